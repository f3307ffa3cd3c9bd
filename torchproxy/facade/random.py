"""Random numbers: ``torch.Generator`` streams on Paddle's generators, ``generator=`` on the
sampling functions, ``randperm`` / ``normal`` / ``bernoulli`` / ``multinomial`` / ``poisson``, the
in-place samplers (``uniform_``, ``normal_``...) and the global RNG state.

Paddle's random ops take no generator: they draw from the device's default generator.  A
``torch.Generator`` here owns a Paddle ``core.Generator``; a call with ``generator=g`` swaps g's
state into the default generator for the call, then stores the advanced state back into g and
restores the default generator's own state (:func:`generator_scope`).  So, as in torch:
- the same seed gives the same numbers (per Paddle version's kernels; 2.6.2 and 3.3.1 agree on
  the CPU draws the tests use), successive calls continue g's stream;
- draws with ``generator=g`` leave the global stream (``torch.manual_seed``) untouched.
What is NOT torch's: the numbers themselves (Paddle's kernels map the generator's bits to values
differently), and ``get_state()`` returns Paddle's ``GeneratorState`` object, not a uint8
tensor (gaps.toml).
"""
from __future__ import annotations

import contextlib
import math

import numpy as np
import paddle

from ..paddle_shims import (default_cpu_generator, default_cuda_generator, expected_place,
                            new_generator, set_expected_place)
from . import dtypes as _dt
from .device import CPU, to_place
from .device import device as _device
from .pinned import pin
from .creation import (_INT64, _check_pin_memory, _dtype_or_default, _finish, _like, _num,
                       _to_dtype, _write_out, checked_alloc, parse_size, require_strided)
from .registry import module, tensor_method, torch_function, type_, value

from .registry import manifest

NAMES = manifest("""
    torch: Generator bernoulli default_generator get_rng_state initial_seed manual_seed multinomial
        normal poisson rand rand_like randint randint_like randn randn_like random randperm seed
        set_rng_state
    torch.Tensor: bernoulli bernoulli_ cauchy_ exponential_ geometric_ log_normal_ multinomial
        normal_ random_ uniform_
    torch.random: fork_rng get_rng_state initial_seed manual_seed seed set_rng_state
""")

module("torch.random")

_FLOATS = ("float16", "bfloat16", "float32", "float64")


# -- torch.Generator (FlashInfer's sampling.py annotates `generator: Optional[torch.Generator]` at
# import): a real object of its own (Paddle's core.Generator), with torch's methods; the
# samplers draw from it through generator_scope below.
class Generator:
    """torch.Generator: an independent Paddle generator (seed and state)."""

    def __init__(self, device="cpu"):
        self.device = _device(device) if isinstance(device, str) else device
        self._gen = new_generator()
        self._gen.manual_seed(67280421310721)  # torch.Generator()'s default seed

    def manual_seed(self, seed: int) -> "Generator":
        self._gen.manual_seed(int(seed))
        return self

    def seed(self) -> int:
        return self._gen.seed()

    def initial_seed(self) -> int:
        return self._gen.initial_seed()

    def get_state(self):
        return self._gen.get_state()

    def set_state(self, state) -> "Generator":
        self._gen.set_state(state)
        return self


type_("torch.Generator", Generator, note="its own seed and state on a Paddle generator: "
                                         "same seed -> same draws, not torch's numbers; "
                                         "get_state() is Paddle's GeneratorState")


# -- torch.* random sampling (torch.html's "Random sampling") --------------------------------
def _check_generator(generator):
    """generator=: a torch.Generator; ``_on(device, generator)`` draws from its stream."""
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")


def _drawn(fn, name, sizes, size, generator, out, dtype, device, requires_grad):
    """randn/rand: ``fn``'s values of ``dtype`` (default float) in a new tensor of the size
    given as torch.randn(2, 3), ((2, 3)) or (size=(2, 3))."""
    _check_generator(generator)
    dt = _dtype_or_default(dtype)
    shape = parse_size(sizes, size, fn=name)
    with _on(device, generator), checked_alloc(shape, dt, to_place(device)):
        t = _draw(fn, shape, dt)
    return _write_out(_finish(t, requires_grad), out)


@torch_function("torch.randn")
def randn(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    require_strided(layout, "randn")
    if pin_memory is not False and _check_pin_memory(pin_memory, "randn", device, out):
        return pin(randn(*sizes, size=size, generator=generator, dtype=dtype, layout=layout,
                       device=device, requires_grad=requires_grad))
    return _drawn(paddle.randn, "randn", sizes, size, generator, out, dtype, device,
                  requires_grad)


@torch_function("torch.rand")
def rand(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    require_strided(layout, "rand")
    if pin_memory is not False and _check_pin_memory(pin_memory, "rand", device, out):
        return pin(rand(*sizes, size=size, generator=generator, dtype=dtype, layout=layout,
                       device=device, requires_grad=requires_grad))
    return _drawn(paddle.rand, "rand", sizes, size, generator, out, dtype, device,
                  requires_grad)


@torch_function("torch.randint")
def randint(*args, generator=None, out=None, dtype=None, layout=None, device=None,
            requires_grad=False, size=None, low=None, high=None):
    require_strided(layout, 'randint')
    _check_generator(generator)
    pos = list(args)
    if size is None:
        size = pos.pop()
    if high is None:
        high = pos.pop()
    if low is None:
        low = pos.pop() if pos else 0
    dt = _INT64 if dtype is None else _to_dtype(dtype)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    shape = parse_size((size,), fn="randint")
    with _on(device, generator), checked_alloc(shape, _INT64, to_place(device)):
        t = paddle.randint(low, high, shape, dtype="int64")
    return _write_out(_finish(t.astype(dt), requires_grad), out)


@torch_function("torch.randint_like")
def randint_like(input, *args, low=None, high=None, generator=None, dtype=None, layout=None,
                 device=None, requires_grad=False, memory_format=None):
    """torch.randint_like(input, high) / (input, low, high): input's shape, dtype and device
    unless given (a float input gets integral values in its float dtype)."""
    require_strided(layout, 'randint_like')
    pos = [_num(a) for a in args]
    if len(pos) > 2:
        raise TypeError(f"randint_like() takes from 2 to 3 positional arguments but "
                        f"{len(pos) + 1} were given")
    if high is None:
        if not pos:
            raise TypeError("randint_like() missing 1 required positional argument: 'high'")
        high = pos.pop()
    if low is None:
        low = pos.pop() if pos else 0
    dt, place = _like(input, dtype, device)
    low, high = _num(low), _num(high)
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} "
                           f">= to={high}")
    with _on(place, generator):
        t = paddle.randint(int(low), int(high), list(input.shape), dtype="int64")
    return _finish(t.astype(dt), requires_grad)


def _drawn_like(fn, input, dtype, device, requires_grad):
    """randn_like/rand_like: ``fn``'s values in input's shape, dtype and device unless given."""
    dt, _ = _like(input, dtype, None)
    with _on(input.place if device is None else device):
        t = _draw(fn, list(input.shape), dt)
    return _finish(t, requires_grad)


@torch_function("torch.randn_like")
def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    require_strided(layout, "randn_like")
    return _drawn_like(paddle.randn, input, dtype, device, requires_grad)


@torch_function("torch.rand_like")
def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    require_strided(layout, "rand_like")
    return _drawn_like(paddle.rand, input, dtype, device, requires_grad)


def _compute_float(dt, kernel="normal_kernel_cpu"):
    n = _dt.torch_name(dt)
    if n not in ("float32", "float64", "float16", "bfloat16"):
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{_dt.LEGACY_NAMES.get(n, n)}'")
    return "float64" if n == "float64" else "float32"


def _draw(fn, shape, dt):
    """``fn`` (paddle.randn or paddle.rand) values of torch dtype ``dt``: complex dtypes draw
    the real and imaginary parts apart (randn: each of variance 1/2, as torch's)."""
    n = _dt.torch_name(dt)
    if n.startswith("complex"):
        part = "float64" if n == "complex128" else "float32"
        re, im = fn(shape, dtype=part), fn(shape, dtype=part)
        if fn is paddle.randn:
            re, im = re * math.sqrt(0.5), im * math.sqrt(0.5)
        return paddle.complex(re, im)
    kernel = "normal_kernel_cpu" if fn is paddle.randn else "check_uniform_bounds"
    return fn(shape, dtype=_compute_float(dt, kernel)).astype(dt)


# -- generator streams (every sampler here draws through _on, which enters generator_scope) ---
def _default_generator_for(place):
    if isinstance(place, paddle.CPUPlace) or "cpu" in str(place).lower():
        return default_cpu_generator()
    idx = place.gpu_device_id() if hasattr(place, "gpu_device_id") else place.get_device_id()
    return default_cuda_generator(idx)


def _device_type(place) -> str:
    return "cpu" if isinstance(place, paddle.CPUPlace) or "cpu" in str(place).lower() else "cuda"


@contextlib.contextmanager
def generator_scope(generator, place):
    """Run Paddle's random ops on ``place`` drawing from ``generator``'s stream (None: the
    global one)."""
    if generator is None:
        yield
        return
    if not isinstance(generator, Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    kind = _device_type(place)
    if generator.device.type != kind:
        raise RuntimeError(f"Expected a '{kind}' device type for generator but found "
                           f"'{generator.device.type}'")
    default = _default_generator_for(place)
    if generator._gen is default:  # torch.default_generator / manual_seed's return value
        yield
        return
    saved = default.get_state()
    default.set_state(generator._gen.get_state())
    try:
        yield
    finally:
        generator._gen.set_state(default.get_state())
        default.set_state(saved)


class _on:
    """Run Paddle's random ops on ``device`` (they take no place argument), drawing from
    ``generator``'s stream when one is given (facade/random.py: generator_scope)."""

    def __init__(self, device, generator=None):
        self.place = to_place(device)
        self.generator = generator

    def __enter__(self):
        self.saved = expected_place()
        set_expected_place(self.place)
        if self.generator is not None:
            self.scope = generator_scope(self.generator, self.place)
            try:
                self.scope.__enter__()
            except BaseException:
                set_expected_place(self.saved)
                raise

    def __exit__(self, *exc):
        try:
            if self.generator is not None:
                self.scope.__exit__(*exc)
        finally:
            set_expected_place(self.saved)


@torch_function("torch.manual_seed")
def manual_seed(seed):
    """Seeds Paddle's generators (all devices, as torch.manual_seed does) and returns the
    default CPU generator, wrapped as a torch.Generator (torch returns torch.default_generator)."""
    paddle.seed(int(seed))
    gen = Generator.__new__(Generator)
    gen.device = _CPU_DEVICE()
    gen._gen = default_cpu_generator()
    return gen


def _CPU_DEVICE():
    return CPU


@torch_function("torch.seed")
def seed():
    s = int(np.random.SeedSequence().entropy % (2 ** 63))
    paddle.seed(s)
    return s


def _compute(dtype) -> str:
    name = dtype if isinstance(dtype, str) else _dt.torch_name(dtype)
    return "float64" if name == "float64" else "float32"


def _uniform_like(shape, dtype, place, generator):
    """U[0, 1) in float32 (float64 for float64 tensors) on ``place``."""
    compute = _compute(dtype)
    with _on(place, generator):
        return paddle.rand(list(shape), dtype=compute)


def _normal_like(shape, dtype, place, generator):
    compute = _compute(dtype)
    with _on(place, generator):
        return paddle.randn(list(shape), dtype=compute)


def _fill(self, values):
    """Write ``values`` into ``self`` (in place, its dtype) and return self."""
    with paddle.no_grad():
        paddle.assign(values.astype(self.dtype), output=self)
    return self


def _require_float(t, fn):
    n = _dt.torch_name(t.dtype)
    if n not in _FLOATS:
        # torch's dispatch macros raise NotImplementedError for a dtype without a kernel
        raise NotImplementedError(f"\"{fn}\" not implemented for '{_TORCH_KERNEL_NAME.get(n, n)}'")
    return n


_TORCH_KERNEL_NAME = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                      "uint8": "Byte", "bool": "Bool"}


# -- Tensor in-place samplers ----------------------------------------------------------------------
@tensor_method("uniform_")
def uniform_(self, from_=0.0, to=1.0, *, generator=None, **kw):
    from_ = kw.pop("from", from_)
    if kw:
        raise TypeError(f"uniform_() got unexpected keyword arguments {sorted(kw)}")
    _require_float(self, "check_uniform_bounds")
    if from_ > to:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found from={from_} "
                           f"> to={to}")
    u = _uniform_like(self.shape, self.dtype, self.place, generator)
    return _fill(self, u * (to - from_) + from_)


@tensor_method("normal_")
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    _require_float(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    z = _normal_like(self.shape, self.dtype, self.place, generator)
    return _fill(self, z * std + mean)


@tensor_method("log_normal_")
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    _require_float(self, "log_normal_cpu")
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    z = _normal_like(self.shape, self.dtype, self.place, generator)
    return _fill(self, paddle.exp(z * std + mean))


@tensor_method("exponential_")
def exponential_(self, lambd=1.0, *, generator=None):
    _require_float(self, "exponential_cpu")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    u = _uniform_like(self.shape, self.dtype, self.place, generator)
    return _fill(self, -paddle.log1p(-u) / lambd)


@tensor_method("cauchy_")
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    _require_float(self, "cauchy_cpu")
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    u = _uniform_like(self.shape, self.dtype, self.place, generator)
    return _fill(self, median + sigma * paddle.tan(math.pi * (u - 0.5)))


@tensor_method("geometric_")
def geometric_(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    u = _uniform_like(self.shape, "float64", self.place, generator)
    return _fill(self, paddle.ceil(paddle.log1p(-u) / math.log1p(-p)).clip(min=1))


_MANTISSA = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


@tensor_method("random_")
def random_(self, from_=0, to=None, *, generator=None, **kw):
    """Integers uniform in [from, to); ``random_(to)``; no bounds: [0, 2**mantissa] for floats,
    [0, max] for integers (torch's rules)."""
    from_ = kw.pop("from", from_)
    if kw:
        raise TypeError(f"random_() got unexpected keyword arguments {sorted(kw)}")
    n = _dt.torch_name(self.dtype)
    if to is None and from_ != 0:
        from_, to = 0, from_  # random_(to)
    if to is None:
        if n == "bool":
            to = 2
        elif n in _MANTISSA:
            to = 2 ** _MANTISSA[n] + 1
        else:
            to = int(paddle.iinfo(self.dtype).max) + (1 if n != "int64" else 0)
    if from_ >= to:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={from_} "
                           f">= to={to}")
    r = _randint_wide(int(from_), int(to), list(self.shape), self.place, generator)
    return _fill(self, r)


def _randint_wide(low, high, shape, place, generator):
    """Integers uniform in [low, high) for any int64 range (Paddle's randint takes int32
    bounds): up to three 31-bit draws combined, reduced modulo the range."""
    span = high - low
    with _on(place, generator):
        if span <= 2 ** 31 and -2 ** 31 <= low and high <= 2 ** 31 - 1:
            return paddle.randint(low, high, shape, dtype="int64")
        parts = [paddle.randint(0, 2 ** 31 - 1, shape, dtype="int64").numpy().astype(np.uint64)
                 for _ in range(3)]
    bits = (parts[0] << np.uint64(62)) | (parts[1] << np.uint64(31)) | parts[2]
    vals = (bits % np.uint64(span)).astype(object) + low
    return paddle.to_tensor(np.array(vals.tolist(), dtype=np.int64), place=place)


@tensor_method("bernoulli_")
def bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, paddle.Tensor):
        prob = p.astype("float64")
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        prob = p
    u = _uniform_like(self.shape, "float64", self.place, generator)
    return _fill(self, (u < prob))


@tensor_method("bernoulli")
def tensor_bernoulli(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


@torch_function("torch.bernoulli",
                note="Paddle's generator: same seed -> same draws, not torch's numbers")
def bernoulli(input, p=None, *, generator=None, out=None):
    if p is None:
        n = _dt.torch_name(input.dtype)
        if n not in _FLOATS:
            raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                               f"'{_TORCH_KERNEL_NAME.get(n, n)}'")
        probs = input.astype("float64")
        if bool(((probs < 0) | (probs > 1)).any()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    else:
        probs = p
    u = _uniform_like(input.shape, "float64", input.place, generator)
    res = (u < probs).astype(input.dtype)
    return _out(res, out)


def _out(result, out):
    if out is None:
        return result
    return _write_out(result, out)


@torch_function("torch.randperm", note="Paddle's generator: a permutation, not torch's for a seed")
def randperm(n, *, generator=None, out=None, dtype=None, layout=None, device=None,
             requires_grad=False, pin_memory=False):
    require_strided(layout, 'randperm')
    if pin_memory is not False and _check_pin_memory(pin_memory, 'randperm', device, out):
        return pin(randperm(n, generator=generator, dtype=dtype, layout=layout, device=device,
                            requires_grad=requires_grad))
    n = int(n)
    if n < 0:
        raise RuntimeError(f"n must be non-negative, got{n}")
    dt = _dt.DTYPES["int64"] if dtype is None else _dt.to_paddle(dtype)
    place = to_place(device)
    with _on(place, generator):
        perm = paddle.randperm(n, dtype="int64") if n else paddle.zeros([0], dtype="int64")
    res = perm.astype(dt)
    if requires_grad:
        res.stop_gradient = False
    return _out(res, out)


@torch_function("torch.normal",
                note="Paddle's generator: same seed -> same draws, not torch's numbers")
def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, layout=None,
           device=None, requires_grad=False, pin_memory=False):
    require_strided(layout, 'normal')
    if pin_memory is not False and _check_pin_memory(pin_memory, 'normal', device, out):
        return pin(normal(mean, std, size, generator=generator, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad))
    mt, st = isinstance(mean, paddle.Tensor), isinstance(std, paddle.Tensor)
    if not mt and not st:
        if size is None:
            raise TypeError("normal() received an invalid combination of arguments: "
                            "normal(float mean, float std) needs size")
        shape = parse_size((size,), fn="normal")
        dt = _dt.to_paddle(dtype) if dtype is not None else _dt.DTYPES[paddle.get_default_dtype()]
        place = to_place(device)
        if std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        z = _normal_like(shape, dt, place, generator)
        res = (z * std + mean).astype(dt)
    else:
        ref = mean if mt else std
        _require_float(ref, "normal_kernel_cpu")
        if st and bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        if not st and std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        shape = paddle.broadcast_shape(list(mean.shape) if mt else [],
                                       list(std.shape) if st else [])
        z = _normal_like(shape, ref.dtype, ref.place, generator)
        m = mean.astype(z.dtype) if mt else mean
        s = std.astype(z.dtype) if st else std
        res = (z * s + m).astype(ref.dtype)
    if requires_grad:
        res.stop_gradient = False
    return _out(res, out)


@torch_function("torch.multinomial")
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    n = _dt.torch_name(input.dtype)
    if n not in _FLOATS:
        raise RuntimeError("multinomial only supports floating-point dtypes for input, got: "
                           f"{_TORCH_KERNEL_NAME.get(n, n).capitalize()}")
    if input.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if out is not None and _dt.torch_name(out.dtype) != "int64":
        raise RuntimeError("multinomial expects Long tensor out, got: "
                           f"{_TORCH_KERNEL_NAME.get(_dt.torch_name(out.dtype), out.dtype)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    categories = input.shape[-1]
    if categories > 2 ** 24:
        raise RuntimeError(f"number of categories cannot exceed 2^24")
    if not replacement and num_samples > categories:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    probs = input.astype("float32") if n in ("float16", "bfloat16") else input
    if bool((probs < 0).any()) or not bool(paddle.isfinite(probs).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if bool((probs.sum(axis=-1) <= 0).any()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    with _on(input.place, generator):
        res = paddle.multinomial(probs, num_samples=int(num_samples), replacement=bool(replacement))
    return _out(res.astype("int64"), out)


@tensor_method("multinomial")
def tensor_multinomial(self, num_samples, replacement=False, *, generator=None):
    return multinomial(self, num_samples, replacement, generator=generator)


@torch_function("torch.poisson")
def poisson(input, generator=None):
    _require_float(input, "poisson_cpu")
    if bool((input < 0).any()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    rates = input.astype("float32") if _dt.torch_name(input.dtype) in ("float16", "bfloat16") \
        else input
    with _on(input.place, generator):
        res = paddle.poisson(rates)
    return res.astype(input.dtype)


# -- the global generator ------------------------------------------------------------------------
def _default():
    g = Generator.__new__(Generator)
    g.device = _device("cpu")
    g._gen = default_cpu_generator()
    return g


default_generator = _default()
value("torch.default_generator", default_generator,
      note="Paddle's default CPU generator (same object as torch.manual_seed's return value)")


@torch_function("torch.initial_seed")
def initial_seed() -> int:
    return default_generator.initial_seed()


@torch_function("torch.get_rng_state", note="Paddle's GeneratorState object, not a uint8 tensor")
def get_rng_state():
    return default_generator.get_state()


@torch_function("torch.set_rng_state")
def set_rng_state(new_state):
    default_generator.set_state(new_state)


def _manual_seed(seed):
    return manual_seed(seed)


def _seed():
    return seed()


torch_function("torch.random.manual_seed")(_manual_seed)
torch_function("torch.random.seed")(_seed)
torch_function("torch.random.initial_seed")(initial_seed)
torch_function("torch.random.get_rng_state")(get_rng_state)
torch_function("torch.random.set_rng_state")(set_rng_state)


@torch_function("torch.random.fork_rng", note="saves and restores the CPU generator (and the CUDA "
                                              "ones of `devices`)")
@contextlib.contextmanager
def fork_rng(devices=None, enabled=True, _caller="fork_rng", _devices_kw="devices",
             device_type="cuda"):
    if not enabled:
        yield
        return
    saved = [(default_cpu_generator(), default_cpu_generator().get_state())]
    if paddle.is_compiled_with_cuda():
        ids = range(paddle.device.cuda.device_count()) if devices is None else devices
        for i in ids:
            g = default_cuda_generator(int(i))
            saved.append((g, g.get_state()))
    try:
        yield
    finally:
        for g, s in saved:
            g.set_state(s)
