"""Random numbers: ``torch.Generator`` streams, ``generator=`` on the sampling functions,
``randperm`` / ``normal`` / ``bernoulli`` / ``multinomial`` / ``poisson``, the in-place samplers
(``uniform_``, ``normal_``...) and the global RNG state.

On the CPU the numbers are real torch's (facade/torch_cpu_rng.py): ``torch.manual_seed(42)``
then ``torch.randn(...)``, ``rand``, ``randint``, ``randperm``, ``uniform_``, ``normal_``,
``bernoulli``, ``random_``, ``exponential_``, ``cauchy_``, ``log_normal_``, ``geometric_``,
``multinomial`` without replacement or of one sample (torch's exponential-race fast path: the
sampling step of a language model's ``generate``), nn.init and dropout give the values real
torch gives for that seed, and
``get_rng_state()``/``set_rng_state()`` exchange torch's 5056-byte state (one saved by real torch
restores here).  A CPU sampler whose torch algorithm is not reproduced (``multinomial`` with
replacement of several samples, ``poisson``) draws from Paddle's generator seeded by one 64-bit draw of the torch stream, so it
too follows the seed and the saved state, with Paddle's numbers.

On CUDA, Paddle's generators: a ``torch.Generator`` there owns a Paddle ``core.Generator``; a
call with ``generator=g`` swaps g's state into the device's default generator for the call
(:func:`generator_scope`).  Same seed -> same numbers, a generator's draws leave the global
stream alone; the numbers are Paddle's, not torch's Philox draws.
"""
from __future__ import annotations

import contextlib
import math

import numpy as np
import paddle

from ..paddle_shims import (default_cpu_generator, default_cuda_generator, expected_place,
                            new_generator, set_expected_place)
from . import dtypes as _dt
from .device import to_place
from .device import device as _device
from .pinned import pin
from .creation import (_INT64, _check_pin_memory, _dtype_or_default, _finish, _like, _num,
                       _to_dtype, _write_out, checked_alloc, parse_size, require_strided)
from .registry import module, tensor_method, torch_function, type_, value

from .registry import manifest
from . import torch_cpu_rng as _trng

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
    """torch.Generator: on the CPU torch's own stream (mt19937, torch's state bytes); on CUDA an
    independent Paddle generator."""

    def __init__(self, device="cpu"):
        self.device = _device(device) if isinstance(device, str) else device
        if self.device.type == "cpu":
            self._stream = _trng.CPUStream()
            self._gen = None
        else:
            self._stream = None
            self._gen = new_generator()
            self._gen.manual_seed(67280421310721)  # torch.Generator()'s default seed

    def manual_seed(self, seed: int) -> "Generator":
        if self._stream is not None:
            self._stream.manual_seed(seed)
        else:
            self._gen.manual_seed(_trng.check_seed(seed))
        return self

    def seed(self) -> int:
        s = _nondeterministic_seed()
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        if self._stream is not None:
            return self._stream.initial_seed()
        return self._gen.initial_seed()

    def get_state(self):
        """torch's state: a uint8 tensor (5056 bytes on the CPU, as torch's)."""
        if self._stream is not None:
            return paddle.to_tensor(self._stream.get_state(), place=paddle.CPUPlace())
        return self._gen.get_state()

    def set_state(self, state) -> "Generator":
        if self._stream is not None:
            if not isinstance(state, paddle.Tensor):
                raise TypeError(f"expected a torch.ByteTensor, but got {type(state).__name__}")
            if _dt.torch_name(state.dtype) != "uint8":
                raise TypeError("RNG state must be a torch.ByteTensor")
            self._stream.set_state(state.numpy())
        else:
            self._gen.set_state(state)
        return self


def _nondeterministic_seed() -> int:
    """torch.seed()'s: a non-deterministic 63-bit seed (os.urandom, not numpy.random: Paddle
    2.6 crashes numpy.random, docs/memory-model.md's Paddle bug 14)."""
    import os
    return int.from_bytes(os.urandom(8), "little") % (2 ** 63)


type_("torch.Generator", Generator, note="CPU: torch's mt19937 stream and state bytes (torch's "
                                         "numbers); CUDA: a Paddle generator (Paddle's numbers, "
                                         "get_state() is Paddle's GeneratorState)")


# -- torch.* random sampling (torch.html's "Random sampling") --------------------------------
def _check_generator(generator):
    """generator=: a torch.Generator; ``_on(device, generator)`` draws from its stream."""
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")


def _drawn(kind, name, sizes, size, generator, out, dtype, device, requires_grad):
    """randn/rand (kind "normal"/"uniform") of ``dtype`` (default float) in a new tensor of
    the size given as torch.randn(2, 3), ((2, 3)) or (size=(2, 3))."""
    _check_generator(generator)
    dt = _dtype_or_default(dtype)
    shape = parse_size(sizes, size, fn=name)
    place = to_place(device)
    with checked_alloc(shape, dt, place):
        t = _sample(kind, shape, dt, place, generator)
    return _write_out(_finish(t, requires_grad), out)


def _sample(kind, shape, dt, place, generator, a=None, b=None):
    """A new tensor of ``kind`` draws: "normal" (mean a=0, std b=1) or "uniform" ([a=0, b=1)):
    torch's numbers on the CPU, Paddle's on CUDA."""
    kernel = "normal_kernel_cpu" if kind == "normal" else "check_uniform_bounds"
    n = _dt.torch_name(dt)
    is_complex = n.startswith("complex")
    compute = None if is_complex else _compute_float(dt, kernel)
    a = 0.0 if a is None else a
    b = 1.0 if b is None else b
    if _is_cpu(place):
        stream = _stream(generator)
        return (_cpu_normal if kind == "normal" else _cpu_uniform)(list(shape), dt, a, b, stream)
    fn = paddle.randn if kind == "normal" else paddle.rand
    with _on(place, generator):
        if is_complex:
            part = "float64" if n == "complex128" else "float32"
            re, im = fn(shape, dtype=part), fn(shape, dtype=part)
            if kind == "normal":
                re, im = re * math.sqrt(0.5), im * math.sqrt(0.5)
            return paddle.complex(re, im)
        t = fn(shape, dtype=compute)
    # the defaults (randn, rand, normal_(), uniform_()) take no extra Paddle ops: on CUDA each
    # is a kernel launch and an allocation (gpu-host-cost-h100-session12.txt)
    if kind == "normal" and (a != 0.0 or b != 1.0):
        t = t * b + a
    elif kind == "uniform" and (a != 0.0 or b != 1.0):
        t = t * (b - a) + a
    return t if compute == n else t.astype(dt)


def _draws(kind, like, place, generator, dtype=None):
    """CUDA: standard ``kind`` draws ("normal"/"uniform") of ``like``'s shape in the math type
    of ``dtype`` (default like's): float64 for float64, float32 otherwise (half tensors are
    computed in float32 and rounded once, by _fill).  The samplers whose CPU branch replays
    torch's stream (exponential_, cauchy_, log_normal_, geometric_, bernoulli) take their CUDA
    draws here, through the same _sample path as randn/rand."""
    math_dt = _dt.DTYPES[_compute(like.dtype if dtype is None else dtype)]
    return _sample(kind, list(like.shape), math_dt, place, generator)


@torch_function("torch.randn")
def randn(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    require_strided(layout, "randn")
    if pin_memory is not False and _check_pin_memory(pin_memory, "randn", device, out):
        return pin(randn(*sizes, size=size, generator=generator, dtype=dtype, layout=layout,
                       device=device, requires_grad=requires_grad))
    return _drawn("normal", "randn", sizes, size, generator, out, dtype, device, requires_grad)


@torch_function("torch.rand")
def rand(*sizes, size=None, generator=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    require_strided(layout, "rand")
    if pin_memory is not False and _check_pin_memory(pin_memory, "rand", device, out):
        return pin(rand(*sizes, size=size, generator=generator, dtype=dtype, layout=layout,
                       device=device, requires_grad=requires_grad))
    return _drawn("uniform", "rand", sizes, size, generator, out, dtype, device, requires_grad)


def _integers(low, high, shape, dt, place, generator):
    """randint's values in [low, high) as a tensor of Paddle dtype ``dt`` (the caller wraps the
    allocation in checked_alloc)."""
    if _is_cpu(place):
        stream = _stream(generator)
        with stream.lock:
            v = _trng.random_from_to(stream, math.prod(shape), low, high, _dt.torch_name(dt))
        return _to_tensor(v, shape, dt)
    # one generator scope (_randint_wide's) and no same-dtype cast: on CUDA every Paddle op is a
    # launch and an allocation, and torch.randint's default int64 needs none
    # (gpu-host-cost-h100-session13.txt)
    t = _randint_wide(int(low), int(high), list(shape), place, generator)
    return t if t.dtype == dt else t.astype(dt)


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
    place = to_place(device)
    with checked_alloc(shape, _INT64, place):
        t = _integers(int(low), int(high), shape, dt, place, generator)
    return _write_out(_finish(t, requires_grad), out)


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
    shape = list(input.shape)
    with checked_alloc(shape, _INT64, place):
        t = _integers(int(low), int(high), shape, dt, place, generator)
    return _finish(t, requires_grad)


def _drawn_like(kind, input, dtype, device, requires_grad):
    """randn_like/rand_like: input's shape, dtype and device unless given."""
    dt, _ = _like(input, dtype, None)
    place = input.place if device is None else to_place(device)
    return _finish(_sample(kind, list(input.shape), dt, place, None), requires_grad)


@torch_function("torch.randn_like")
def randn_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    require_strided(layout, "randn_like")
    return _drawn_like("normal", input, dtype, device, requires_grad)


@torch_function("torch.rand_like")
def rand_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    require_strided(layout, "rand_like")
    return _drawn_like("uniform", input, dtype, device, requires_grad)


def _compute_float(dt, kernel="normal_kernel_cpu"):
    n = _dt.torch_name(dt)
    if n not in ("float32", "float64", "float16", "bfloat16"):
        raise NotImplementedError(f"\"{kernel}\" not implemented for "
                                  f"'{_dt.LEGACY_NAMES.get(n, n)}'")
    return "float64" if n == "float64" else "float32"


# -- the CPU: torch's numbers (facade/torch_cpu_rng.py) ------------------------------------------
def _startup_seed() -> int:
    """Real torch seeds its global CPU generator at start-up from the OS (a 64-bit value
    torch.initial_seed() then returns); only a new torch.Generator() starts at the fixed
    default seed."""
    import os
    return int.from_bytes(os.urandom(8), "little")


_DEFAULT_STREAM = _trng.CPUStream(_startup_seed())


def current_place():
    """The place Paddle's own samplers would draw on now (CPU on a CPU build)."""
    return expected_place()


def _is_cpu(place) -> bool:
    return _device_type(place) == "cpu"


def _stream(generator):
    """The torch CPU stream a draw takes: ``generator``'s, or the global one."""
    if generator is None:
        return _DEFAULT_STREAM
    _check_generator(generator)
    if generator._stream is None:
        raise RuntimeError(f"Expected a 'cpu' device type for generator but found "
                           f"'{generator.device.type}'")
    return generator._stream


def _round_bf16(v):
    """float32 -> the float32 values of bfloat16 rounded to nearest even (c10::BFloat16(float))."""
    bits = np.ascontiguousarray(v, np.float32).view(np.uint32)
    rounded = (bits + (((bits >> 16) & 1) + np.uint32(0x7FFF))) & np.uint32(0xFFFF0000)
    return np.where(np.isnan(v), v, rounded.view(np.float32))


def _cast_values(v, name):
    """numpy values in a sampler's math type -> numpy values of torch dtype ``name`` (float and
    half/bfloat16 through float32, as torch's static_casts go)."""
    if name in ("float32", "float16", "bfloat16") and v.dtype == np.float64:
        v = v.astype(np.float32)
    if name == "bfloat16":
        return _round_bf16(v)
    if name == "float16":
        return v.astype(np.float16)
    if name == "bool":
        return v != 0
    return v.astype(np.dtype(name))


def _to_tensor(v, shape, dt):
    """numpy values -> a new CPU tensor of torch dtype ``dt`` and ``shape``."""
    name = _dt.torch_name(dt)
    arr = _cast_values(np.asarray(v), name).reshape(list(shape))
    t = paddle.to_tensor(arr, place=paddle.CPUPlace())
    return t if t.dtype == dt else t.astype(dt)


def _normal_values(stream, n, name, mean, std, contiguous=True):
    with stream.lock:
        if n >= 16 and contiguous:
            kind = {"float64": "double", "float32": "float"}.get(name, "reduced")
            return _trng.normal_fill(stream, n, kind, mean, std)
        return _trng.normal_serial(stream, n, mean, std)


def _complex(v, shape, name):
    part = np.float64 if name == "complex128" else np.float32
    v = v.astype(part)
    c = (v[0::2] + 1j * v[1::2]).astype(np.complex128 if name == "complex128" else np.complex64)
    return paddle.to_tensor(c.reshape(list(shape)), place=paddle.CPUPlace())


def _cpu_normal(shape, dt, mean, std, stream, contiguous=True):
    """normal_(mean, std) on a new CPU tensor (a complex one: its real view with std/sqrt(2))."""
    name = _dt.torch_name(dt)
    n = math.prod(shape)
    if name.startswith("complex"):
        part = "float64" if name == "complex128" else "float32"
        v = _normal_values(stream, 2 * n, part, float(mean), float(std) / math.sqrt(2),
                           contiguous)
        return _complex(v, shape, name)
    return _to_tensor(_normal_values(stream, n, name, float(mean), float(std), contiguous),
                      shape, dt)


def _uniform_values(stream, n, name, from_, to):
    """uniform_kernel: values of torch dtype ``name``; one that rounds to ``to`` is ``from``."""
    with stream.lock:
        v = _trng.uniform(stream, n, name == "float64", from_, to)
    v = _cast_values(v, name)
    hi = _cast_values(np.array([to], np.float64), name)[0]
    lo = _cast_values(np.array([from_], np.float64), name)[0]
    return np.where(v == hi, lo, v)


def _cpu_uniform(shape, dt, from_, to, stream):
    name = _dt.torch_name(dt)
    n = math.prod(shape)
    if name.startswith("complex"):
        part = "float64" if name == "complex128" else "float32"
        return _complex(_uniform_values(stream, 2 * n, part, from_, to), shape, name)
    return _to_tensor(_uniform_values(stream, n, name, from_, to), shape, dt)


def _memory_order(t):
    """(permutation, permuted shape) that lists ``t``'s elements in memory order, which is the
    order torch's TensorIterator fills a strided output in; None when ``t`` is not a permuted
    dense tensor (then the logical order is used)."""
    shape = list(t.shape)
    if len(shape) < 2 or t.is_contiguous():
        return None
    try:
        strides = list(t.strides)
    except Exception:  # noqa: BLE001  a tensor without strides (Paddle 2.6 dense): logical
        return None
    perm = sorted(range(len(shape)), key=lambda d: (-strides[d], d))
    return perm, [shape[d] for d in perm]


def _fill_in_memory_order(self, make):
    """Fill ``self`` with ``make(shape)``'s tensor, drawn in self's memory order."""
    order = _memory_order(self)
    if order is None:
        return _fill(self, make(list(self.shape)))
    perm, pshape = order
    vals = make(pshape)
    inverse = [perm.index(d) for d in range(len(perm))]
    return _fill(self, vals.transpose(inverse))


# -- generator streams (Paddle's samplers draw through _on, which enters generator_scope) ------
def _default_generator_for(place):
    if isinstance(place, paddle.CPUPlace) or "cpu" in str(place).lower():
        return default_cpu_generator()
    idx = place.gpu_device_id() if hasattr(place, "gpu_device_id") else place.get_device_id()
    return default_cuda_generator(idx)


def _device_type(place) -> str:
    if isinstance(place, paddle.CPUPlace):
        return "cpu"
    if isinstance(place, paddle.CUDAPlace):
        return "cuda"
    return "cpu" if "cpu" in str(place).lower() else "cuda"


@contextlib.contextmanager
def generator_scope(generator, place):
    """Run Paddle's random ops on ``place`` drawing from ``generator``'s stream (None: the
    global one).  On the CPU, Paddle's default CPU generator is seeded for the op from one
    64-bit draw of the torch stream (so the op follows torch.manual_seed and the saved torch
    state), and restored after it."""
    if generator is not None and not isinstance(generator, Generator):
        raise TypeError(f"generator must be a torch.Generator, got {type(generator).__name__}")
    kind = _device_type(place)
    if generator is not None and generator.device.type != kind:
        raise RuntimeError(f"Expected a '{kind}' device type for generator but found "
                           f"'{generator.device.type}'")
    if kind == "cpu":
        stream = _stream(generator)
        default = default_cpu_generator()
        saved = default.get_state()
        with stream.lock:
            default.manual_seed(int(stream.random64(1)[0] >> np.uint64(1)))
        try:
            yield
        finally:
            default.set_state(saved)
        return
    if generator is None:
        yield
        return
    default = _default_generator_for(place)
    saved = default.get_state()
    default.set_state(generator._gen.get_state())
    try:
        yield
    finally:
        generator._gen.set_state(default.get_state())
        default.set_state(saved)


class _on:
    """Run Paddle's random ops on ``device`` (they take no place argument), drawing from
    ``generator``'s stream (facade/random.py: generator_scope)."""

    def __init__(self, device, generator=None):
        self.place = to_place(device)
        self.generator = generator

    def __enter__(self):
        self.saved = expected_place()
        set_expected_place(self.place)
        # CUDA draws without a generator need no scope (the GPU path's host cost); a CPU one
        # always does (Paddle's CPU generator is seeded from the torch stream for it)
        self.scope = None
        if self.generator is not None or _is_cpu(self.place):
            self.scope = generator_scope(self.generator, self.place)
            try:
                self.scope.__enter__()
            except BaseException:
                set_expected_place(self.saved)
                raise

    def __exit__(self, *exc):
        try:
            if self.scope is not None:
                self.scope.__exit__(*exc)
        finally:
            set_expected_place(self.saved)


@torch_function("torch.manual_seed")
def manual_seed(seed):
    """Seeds the torch CPU stream and Paddle's generators (all devices, as torch.manual_seed
    does); returns torch.default_generator."""
    seed = _trng.check_seed(seed)
    _DEFAULT_STREAM.manual_seed(seed)
    paddle.seed(seed & 0x7FFF_FFFF_FFFF_FFFF)
    return default_generator


@torch_function("torch.seed")
def seed():
    s = _nondeterministic_seed()
    manual_seed(s)
    return s


def _compute(dtype) -> str:
    name = dtype if isinstance(dtype, str) else _dt.torch_name(dtype)
    return "float64" if name == "float64" else "float32"


def _fill(self, values):
    """Write ``values`` into ``self`` (in place, its dtype) and return self."""
    with paddle.no_grad():
        paddle.assign(values if values.dtype == self.dtype else values.astype(self.dtype),
                      output=self)
    return self


def _require_float(t, fn):
    n = _dt.torch_name(t.dtype)
    if n not in _FLOATS:
        # torch's dispatch macros raise NotImplementedError for a dtype without a kernel
        raise NotImplementedError(f"\"{fn}\" not implemented for '{_TORCH_KERNEL_NAME.get(n, n)}'")
    return n


_TORCH_KERNEL_NAME = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                      "uint8": "Byte", "bool": "Bool"}


def _serial(self, generator, draw):
    """A serial double-precision sampler (cauchy_, log_normal_, geometric_, exponential_):
    ``draw(stream, n)`` float64 values on the CPU, written in self's memory order."""
    stream = _stream(generator)

    def make(shape):
        with stream.lock:
            v = draw(stream, math.prod(shape))
        return _to_tensor(v, shape, self.dtype)
    return _fill_in_memory_order(self, make)


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
    if _is_cpu(self.place):
        stream = _stream(generator)
        return _fill_in_memory_order(
            self, lambda shape: _cpu_uniform(shape, self.dtype, from_, to, stream))
    return _fill(self, _sample("uniform", list(self.shape), self.dtype, self.place, generator,
                               from_, to))


@tensor_method("normal_")
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    _require_float(self, "normal_kernel_cpu")
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
    if _is_cpu(self.place):
        stream = _stream(generator)
        contiguous = bool(self.is_contiguous())
        return _fill_in_memory_order(
            self, lambda shape: _cpu_normal(shape, self.dtype, mean, std, stream, contiguous))
    return _fill(self, _sample("normal", list(self.shape), self.dtype, self.place, generator,
                               mean, std))


@tensor_method("log_normal_")
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    _require_float(self, "log_normal_cpu")
    if std <= 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={std}")
    if _is_cpu(self.place):
        return _serial(self, generator,
                       lambda s, n: np.exp(_trng.normal_serial(s, n, float(mean), float(std))))
    z = _draws("normal", self, self.place, generator)
    return _fill(self, paddle.exp(z * std + mean))


@tensor_method("exponential_")
def exponential_(self, lambd=1.0, *, generator=None):
    _require_float(self, "exponential_cpu")
    if lambd <= 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={lambd}")
    if _is_cpu(self.place):
        return _serial(self, generator, lambda s, n: _trng.exponential(s, n, float(lambd)))
    u = _draws("uniform", self, self.place, generator)
    return _fill(self, -paddle.log1p(-u) / lambd)


@tensor_method("cauchy_")
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    _require_float(self, "cauchy_cpu")
    if sigma <= 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={sigma}")
    if _is_cpu(self.place):
        return _serial(self, generator, lambda s, n: np.array(
            [median + sigma * math.tan(math.pi * (u - 0.5)) for u in _trng._u53(s, n).tolist()],
            np.float64))
    u = _draws("uniform", self, self.place, generator)
    return _fill(self, median + sigma * paddle.tan(math.pi * (u - 0.5)))


@tensor_method("geometric_")
def geometric_(self, p, *, generator=None):
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={p}")
    if _is_cpu(self.place):
        lp = math.log1p(-p)
        return _serial(self, generator, lambda s, n: np.array(
            [math.ceil(math.log(u) / lp) for u in _trng._u53(s, n).tolist()], np.float64))
    u = _draws("uniform", self, self.place, generator, "float64")
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
    no_bounds = to is None and from_ == 0
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
    if _is_cpu(self.place):
        stream = _stream(generator)

        def make(shape):
            with stream.lock:
                if no_bounds:
                    v = _trng.random_default(stream, math.prod(shape), n)
                else:
                    v = _trng.random_from_to(stream, math.prod(shape), int(from_), int(to), n)
            return _to_tensor(v, shape, self.dtype)
        return _fill_in_memory_order(self, make)
    r = _randint_wide(int(from_), int(to), list(self.shape), self.place, generator)
    return _fill(self, r)


def _randint_wide(low, high, shape, place, generator):
    """Integers uniform in [low, high) for any int64 range on CUDA (Paddle's randint takes int32
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


def _bernoulli_cpu(shape, dt, p, stream):
    """A new CPU tensor of bernoulli draws: p a float (scalar kernel, double uniforms) or a
    tensor broadcast to ``shape`` (its dtype picks double or float uniforms)."""
    n = math.prod(shape)
    with stream.lock:
        if isinstance(p, paddle.Tensor):
            probs = paddle.broadcast_to(p, list(shape)) if list(p.shape) != list(shape) else p
            pn = _dt.torch_name(probs.dtype)
            arr = probs.astype("float32" if pn in ("float16", "bfloat16") else probs.dtype)
            v = _trng.bernoulli_tensor(stream, np.ascontiguousarray(arr.numpy()).ravel())
        else:
            v = _trng.bernoulli_scalar(stream, n, float(p))
    return _to_tensor(v.astype(np.float64), shape, dt)


def dropout_cpu(x, p, noise_shape):
    """torch's _dropout_impl on the CPU: noise = empty(noise_shape).bernoulli_(1 - p) drawn
    from the torch CPU stream, noise.div_(1 - p) in x's dtype, x * noise (the product keeps
    x's autograd).  F.dropout, the feature dropouts and the layers' dropout go through it."""
    stream = _stream(None)
    with stream.lock:
        keep = _trng.bernoulli_scalar(stream, math.prod(noise_shape), 1 - p)
    if _dt.torch_name(x.dtype) == "float64":
        noise = keep.astype(np.float64) / np.float64(1 - p)
    else:
        noise = keep.astype(np.float32) / np.float32(1 - p)
    return x * _to_tensor(noise, list(noise_shape), x.dtype)


@tensor_method("bernoulli_")
def bernoulli_(self, p=0.5, *, generator=None):
    if isinstance(p, paddle.Tensor):
        prob = p.astype("float64")
    else:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        prob = p
    if _is_cpu(self.place):
        stream = _stream(generator)
        return _fill_in_memory_order(
            self, lambda shape: _bernoulli_cpu(shape, self.dtype, p, stream))
    u = _draws("uniform", self, self.place, generator, "float64")
    return _fill(self, (u < prob))


@tensor_method("bernoulli")
def tensor_bernoulli(self, p=None, *, generator=None):
    return bernoulli(self, p, generator=generator)


@torch_function("torch.bernoulli")
def bernoulli(input, p=None, *, generator=None, out=None):
    if p is None:
        n = _dt.torch_name(input.dtype)
        if n not in _FLOATS:
            raise NotImplementedError(f"\"bernoulli_tensor_cpu_p_\" not implemented for "
                               f"'{_TORCH_KERNEL_NAME.get(n, n)}'")
        if bool(((input < 0) | (input > 1)).any()):
            raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
        probs = input
    else:
        probs = p
    if _is_cpu(input.place):
        res = _bernoulli_cpu(list(input.shape), input.dtype, probs, _stream(generator))
        return _out(res, out)
    u = _draws("uniform", input, input.place, generator, "float64")
    pr = probs.astype("float64") if isinstance(probs, paddle.Tensor) else probs
    res = (u < pr).astype(input.dtype)
    return _out(res, out)


def _out(result, out):
    if out is None:
        return result
    return _write_out(result, out)


@torch_function("torch.randperm")
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
    if _is_cpu(place):
        stream = _stream(generator)
        with stream.lock:
            perm = paddle.to_tensor(_trng.randperm(stream, n), place=place)
    else:
        with _on(place, generator):
            perm = paddle.randperm(n, dtype="int64") if n else paddle.zeros([0], dtype="int64")
    # no same-dtype cast for the default int64: a Paddle op (a launch on CUDA) that copies
    res = perm if perm.dtype == dt else perm.astype(dt)
    if requires_grad:
        res.stop_gradient = False
    return _out(res, out)


@torch_function("torch.normal")
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
        res = _sample("normal", shape, dt, place, generator, mean, std)
    else:
        ref = mean if mt else std
        _require_float(ref, "normal_kernel_cpu")
        if st and bool((std < 0).any()):
            raise RuntimeError("normal expects all elements of std >= 0.0")
        if not st and std < 0:
            raise RuntimeError(f"normal expects std >= 0.0, but found std {std}")
        shape = paddle.broadcast_shape(list(mean.shape) if mt else [],
                                       list(std.shape) if st else [])
        # torch's normal_out_impl: a standard normal output (tensor mean, float std: with that
        # std), then output.mul_(std) for a tensor std, then .add_(mean)
        z = _sample("normal", shape, ref.dtype, ref.place, generator, 0.0,
                    1.0 if st else float(std))
        if st:
            z = z * std.astype(z.dtype)
        res = (z + (mean.astype(z.dtype) if mt else mean)).astype(ref.dtype)
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
    if _is_cpu(input.place) and (not replacement or num_samples == 1):
        res = _multinomial_gumbel(input, int(num_samples), _stream(generator))
        return _out(res, out)
    with _on(input.place, generator):
        res = paddle.multinomial(probs, num_samples=int(num_samples), replacement=bool(replacement))
    return _out(res.astype("int64"), out)


def _multinomial_gumbel(input, num_samples, stream):
    """torch's CPU fast path (no replacement, or one sample): q = empty_like(p).exponential_(1),
    q = p / q, then argmax (one sample) or topk: torch's draws and torch's picks."""
    shape = list(input.shape)
    with stream.lock:
        e = _trng.exponential(stream, math.prod(shape), 1.0)
    ratio = input / _to_tensor(e, shape, input.dtype)
    if num_samples == 1:
        return paddle.argmax(ratio, axis=-1, keepdim=True).astype("int64")
    return paddle.topk(ratio, k=num_samples, axis=-1)[1].astype("int64")


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
    g._stream, g._gen = _DEFAULT_STREAM, None
    return g


default_generator = _default()
value("torch.default_generator", default_generator,
      note="the global torch CPU stream (same object as torch.manual_seed's return value)")


@torch_function("torch.initial_seed")
def initial_seed() -> int:
    return default_generator.initial_seed()


@torch_function("torch.get_rng_state")
def get_rng_state():
    """torch's 5056-byte CPU state, a uint8 tensor (real torch's own restores here, and this
    one there)."""
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
    saved = [(_DEFAULT_STREAM, _DEFAULT_STREAM.get_state())]
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
