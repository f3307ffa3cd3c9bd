"""Shared machinery of the op modules (ops.py, ops_reduce.py, ops_shape.py):
``opmath_function`` (and ``op``), which register an op through the CPU half-precision "opmath"
wrapper, torch's dim checks, type promotion for tensor/scalar operands, torch's named result
tuples, and small helpers."""
from __future__ import annotations

import builtins  # the op modules define sum/max/min/any/all/round/pow/complex: use builtins.*
import numbers

import paddle

from .. import paddle_shims as _shims
from . import _sizes
from . import dtypes as _dt
from . import pickling as _pickling
from ._inplace_checks import augmented_subscript, check_inplace_target
from .tensor import original as _original
from ..paddle_shims import ZERO_SIZE_KERNELS_FAIL
from ..paddle_shims import empty_result, kernel_empty, kernel_full  # noqa: F401 - shared with op modules
from . import zero_size as _zero_size
from .creation import _check_cast, _write_out, default_float  # noqa: F401 - shared
from . import registry as _registry
from .registry import torch_function
from .registry import op as _register_op

_name = _dt.torch_name
_paddle_shape = _original("shape").__get__  # Paddle's getter, never the scope dispatcher


_to_dtype = _dt.to_paddle


_FLOATS = ("float16", "bfloat16", "float32", "float64")


_INTS = ("bool", "uint8", "int8", "int16", "int32", "int64")


_HALF = (_dt.DTYPES["float16"], _dt.DTYPES["bfloat16"])


_FLOAT32 = _dt.DTYPES["float32"]


_WIDE = (_FLOAT32, _dt.DTYPES["float64"])


# -- float16/bfloat16 on the CPU ----------------------------------------------------------------
# Paddle's CPU build has no float16 (and few bfloat16) kernels for add, where, max, softmax...;
# torch's CPU kernels compute half inputs in float32 ("opmath") and round the result.  Every
# opmath_function/op of this module registers through _opmath, which does the same for CPU halves:
# half tensors in -> float32 compute -> float32 results back to the half dtype (unless a
# ``dtype=`` argument chose the output dtype).  On GPUs Paddle's own half kernels run.
def _cpu_half(v):
    return isinstance(v, paddle.Tensor) and v.dtype in _HALF and v.place.is_cpu_place()


def _find_half(args):
    for a in args:
        if isinstance(a, paddle.Tensor):
            if a.dtype in _HALF and a.place.is_cpu_place():
                return a.dtype
        elif isinstance(a, (list, tuple)):
            for b in a:
                if _cpu_half(b):
                    return b.dtype
    return None


def _up(v):
    if _cpu_half(v):
        return _shims.widen(v)  # (its gradient rounded back as torch's: paddle_shims.widen)
    if isinstance(v, (list, tuple)) and v and isinstance(v[0], paddle.Tensor):
        return type(v)(_up(b) for b in v)
    return v


def _down(v, half):
    if isinstance(v, paddle.Tensor):  # rounded to nearest even, as torch (Paddle 2.6 truncates)
        return _shims.astype_exact(v, half) if v.dtype == _FLOAT32 else v
    if isinstance(v, tuple):
        items = [_down(b, half) for b in v]
        return type(v)(*items) if hasattr(v, "_fields") else tuple(items)
    return v


def _opmath(fn, torch_name=None, precheck=None):
    def run(*args, **kwargs):
        if precheck is not None:  # torch's checks of the operands as given (before _up)
            precheck(*args, **kwargs)
        try:
            # operands given by keyword (torch.add(input=a, other=b)) count as positional ones
            operands = [*args, *(v for k, v in kwargs.items() if k != "out")]
            half = _find_half(operands)
            out = kwargs.get("out")
            if half is None or out is not None and not isinstance(out, paddle.Tensor):
                return fn(*args, **kwargs)  # (a tuple out=, values and indices: the op's own)
            if out is not None:
                # torch computes CPU halves in float32 and rounds the result into out too;
                # Paddle's CPU build lacks even a bfloat16 add kernel (Liger's fused linear
                # cross entropy: torch.add(input=grad_bias, other=..., out=grad_bias))
                return _write_out(run(*args, **{k: v for k, v in kwargs.items()
                                                if k != "out"}), out)
            # the output dtype is not the half one when chosen by dtype= or promoted by a
            # dimensioned wider float operand (a 0-d one does not promote, as in torch)
            explicit_dtype = kwargs.get("dtype") is not None or builtins.any(
                isinstance(a, _dt.DTYPE_TYPE) or isinstance(a, paddle.Tensor) and a.ndim > 0
                and a.dtype in _WIDE for a in operands)
            result = fn(*[_up(a) for a in args],
                        **{k: v if k == "out" else _up(v) for k, v in kwargs.items()})
            return result if explicit_dtype else _down(result, half)
        except Exception as e:  # Paddle 2.6 refusing a 0-size operand (never taken on 3.x)
            if not ZERO_SIZE_KERNELS_FAIL:
                raise
            return _zero_size.recover(e, run, torch_name, args, kwargs)
    run.__name__ = fn.__name__
    run.__qualname__ = fn.__qualname__
    run.__module__ = fn.__module__  # where it is defined (COVERAGE.md, pickling by reference)
    run.__doc__ = fn.__doc__
    run.__wrapped__ = fn
    run.zero_size_guarded = True  # registry.torch_function's zero_size.guard leaves it as it is
    return _zero_size.cutting_empty_grads(run)


def view_op(torch_name):
    """For ops whose result is a view of an operand (transpose, narrow, as_strided...): no
    half-precision round trip, which would hand back a float32 computation's copy instead of
    the view (only Paddle 2.6's 0-size recovery, as in _opmath).  Put it under ``opmath_function``/
    ``op``, which then leave the function as it is."""
    def deco(fn):
        def run(*args, **kwargs):
            try:
                return fn(*args, **kwargs)
            except Exception as e:  # Paddle 2.6 refusing a 0-size operand (never on 3.x)
                if not ZERO_SIZE_KERNELS_FAIL:
                    raise
                return _zero_size.recover(e, run, torch_name, args, kwargs)
        run.__name__, run.__qualname__, run.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
        run.__module__ = fn.__module__
        run.__wrapped__ = fn
        run.zero_size_guarded = True
        return _zero_size.cutting_empty_grads(run)
    return deco


def _wrapped(fn):
    """Already wrapped by _opmath or with_out (registry.torch_function's zero_size.guard alone does
    not count: such a function still gets the half-precision wrapper)."""
    return hasattr(fn, "__wrapped__") and not hasattr(fn, "zero_size_guard_of")


def opmath_function(torch_name, precheck=None):
    """``registry.torch_function`` with torch's CPU half-precision rule (``_opmath``: float16/
    bfloat16 inputs computed in float32, the result rounded back): registers the wrapped ``fn``
    and returns it, so Tensor methods (tensor_methods.py) and ops calling ops get the same
    behaviour as ``torch.<name>``.  ``precheck(*args, **kwargs)`` sees the operands before
    the half-precision ones are widened (matmul's same-dtype rule)."""
    def deco(fn):
        return torch_function(torch_name)(
            fn if _wrapped(fn) else _opmath(fn, torch_name, precheck))
    return deco


def op(torch_name, *, method=False, inplace=False, out=False, note=""):
    """``registry.op`` (function + Tensor method + in-place form in one declaration) with
    the CPU half-precision wrapper of ``opmath_function``."""
    reg = _register_op(torch_name, method=method, inplace=inplace, out=out, note=note)

    def deco(fn):
        return reg(fn if _wrapped(fn) else _opmath(fn, torch_name))
    return deco


# -- torch's rules for results written into an existing tensor (in-place ops, out=) -----------
def _cast_kind(dt):
    n = _name(dt)
    return 0 if n == "bool" else 3 if n.startswith("complex") else 2 if "float" in n else 1


def _legacy(dt):
    n = _name(dt)
    return _LEGACY_NAMES.get(n, n)


check_cast = _check_cast  # torch's canCast rule (creation.py, shared with out=)


def make_inplace(name, fn):
    """Tensor.<name>_ from the out-of-place ``fn``: compute with torch's promotion, refuse
    results that cannot be cast back (float into an int tensor) or that broadcast beyond
    self's shape, write through views with assign(), return self."""
    operator = name.startswith("__")  # x += y: see check_inplace_target's ``views``

    def method(self, *args, **kwargs):
        rebase = _check_inplace_target(self, not operator)  # torch's leaf, view, overlap errors
        # under autograd the op reads a copy of self: Paddle saves its inputs for backward, and
        # the write below would change a saved self ("modified by an inplace operation",
        # where torch's x.mul_(3) saves only the 3)
        src = self.clone() if not self.stop_gradient and paddle.is_grad_enabled() else self
        result = fn(src, *args, **kwargs)
        if result.dtype != self.dtype:
            check_cast(result.dtype, self.dtype)
            result = result.astype(self.dtype)
        shape = list(_paddle_shape(self))
        if list(result.shape) != shape:
            raise RuntimeError(f"output with shape {shape} doesn't match the broadcast shape "
                               f"{list(result.shape)}")
        paddle.assign(result, output=self)
        if rebase is not None:  # a reshape view's base takes the write (CopySlices)
            rebase(result)
        return self
    method.__name__ = method.__qualname__ = name
    method.__doc__ = f"torch's in-place ``Tensor.{name}`` (see ``{fn.__name__}``)."
    return method


def _check_inplace_target(self, method):
    # an operator (x *= 2) on a view of a computed tensor is exact only inside a[i] *= 2
    return check_inplace_target(self, views=True if method else
                                lambda: not augmented_subscript())


write_out = _write_out  # torch's out= rules (creation.py: cast check, resize, write)


def _span(t):
    """[first, last] byte addressed by ``t`` within its allocation (None: no element)."""
    shape, strides = list(t.shape), list(t.strides)
    if 0 in shape:
        return None
    item = _sizes.itemsize(t.dtype)
    lo = hi = _shims.byte_offset(t)
    for n, st in zip(shape, strides):
        (lo, hi) = (lo + st * (n - 1) * item, hi) if st < 0 else (lo, hi + st * (n - 1) * item)
    return lo, hi + item - 1


def check_no_overlap(out, tensors) -> None:
    """torch's assert_no_overlap(out, input) for each tensor argument: a written-to tensor
    may not share an element's memory with an input."""
    outs = out if isinstance(out, (tuple, list)) else (out,)
    for o in outs:
        if not isinstance(o, paddle.Tensor):
            continue
        for t in tensors:
            if not isinstance(t, paddle.Tensor):
                continue
            if t is o or (t._is_shared_buffer_with(o) and _spans_meet(_span(t), _span(o))):
                raise RuntimeError("unsupported operation: some elements of the input tensor and "
                                   "the written-to tensor refer to a single memory location. "
                                   "Please clone() the tensor before performing the operation.")


def _spans_meet(a, b) -> bool:
    return a is not None and b is not None and a[0] <= b[1] and b[0] <= a[1]


class OutRule:
    """Stricter ``out=`` rules of some torch ops (``op(..., out=OutRule(...))``):
    ``no_overlap``: an out sharing memory with a tensor argument is refused (torch's
    assert_no_overlap: gathers, selections); ``same_dtype``: an out of another dtype than the
    input is refused, with torch's message for that op, formatted with ``self``/``out`` (torch's
    legacy names: Float, Double) and ``self_lower``/``out_lower`` (float, double)."""

    __slots__ = ("no_overlap", "same_dtype")

    def __init__(self, no_overlap: bool = False, same_dtype: str | None = None):
        self.no_overlap, self.same_dtype = no_overlap, same_dtype

    def check(self, args, kwargs, out):
        if self.no_overlap:
            check_no_overlap(out, args + tuple(kwargs.values()))
        if self.same_dtype and args and isinstance(out, paddle.Tensor) and \
                isinstance(args[0], paddle.Tensor) and out.dtype != args[0].dtype:
            a, b = _legacy(args[0].dtype), _legacy(out.dtype)
            raise RuntimeError(self.same_dtype.format(self=a, out=b, self_lower=a.lower(),
                                                      out_lower=b.lower()))


def with_out(fn, rule: OutRule | None = None):
    """``fn`` plus a keyword ``out=`` written by :func:`write_out` (``rule``: torch's stricter
    rules for this op, checked before ``fn`` runs)."""
    if rule is not None:
        def run(*args, out=None, **kwargs):
            if out is not None:
                rule.check(args, kwargs, out)
            return write_out(fn(*args, **kwargs), out)
    else:
        def run(*args, out=None, **kwargs):
            return write_out(fn(*args, **kwargs), out)
    run.__name__, run.__qualname__, run.__doc__ = fn.__name__, fn.__qualname__, fn.__doc__
    run.__wrapped__ = fn
    return run


# registry.op's out= and in-place forms (registered late: the registry sits below this module)
_registry.provide_forms(with_out=with_out, make_inplace=make_inplace)


def _return_type(name, fields=("values", "indices")):
    return _pickling.named_tuple(name, fields)  # torch.return_types.<name>, picklable in scope


MaxResult = _return_type("max")


MinResult = _return_type("min")


SortResult = _return_type("sort")


TopkResult = _return_type("topk")


KthResult = _return_type("kthvalue")


ModeResult = _return_type("mode")


MedianResult = _return_type("median")


CummaxResult = _return_type("cummax")


def wrap_dim(d, ndim):
    """torch's dim check: range [-ndim, ndim-1] (a 0-d tensor accepts -1 and 0)."""
    n = ndim if ndim > 0 else 1
    if isinstance(d, bool) or not isinstance(d, numbers.Integral):
        raise TypeError(f"dim must be an int, got {type(d).__name__}")
    if d < -n or d >= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return d + n if d < 0 else d


def _dims(dim, ndim):
    """None / int / tuple / list -> None (all) or a sorted list of non-negative dims."""
    if dim is None:
        return None
    if isinstance(dim, (list, tuple)):
        if len(dim) == 0:
            return None
        out = [wrap_dim(d, ndim) for d in dim]
        if len(set(out)) != len(out):
            raise RuntimeError(f"dim {out} appears multiple times in the list of dims")
        return sorted(out)
    return [wrap_dim(dim, ndim)]


_LOG_SOFTMAX_COMPOSED = (paddle.float32, paddle.float64)


def log_softmax_kernel(x, axis):
    """Paddle's log_softmax; on CPU for float32/float64 the same formula composed of Paddle ops,
    ``s - log(sum(exp(s)))`` with ``s = x - max(x)`` (torch's CPU kernel's, and Paddle's: the
    forward is bit-identical): Paddle 3.3.1's CPU log_softmax kernel and its gradient take
    ~2.7 s each for a 2048 x 3200 float32 input, 50x its softmax, and were the bulk of the
    proxy side's time in Liger's loss tests (their references take log_softmax of batch x
    vocabulary logits).  The max is a constant to autograd (its gradient cancels exactly).
    The float32 normalizer ``sum(exp(s))`` is accumulated in float64: Paddle's float32 sum over
    a 32,000-wide row is ~1e-5 off where torch's vectorized kernel stays near 1e-6, and the
    gradient (``exp(s) / sum``) carried that error (Liger's cross-entropy test compares it at
    rtol 1e-6; tests/facade/test_log_softmax_accuracy.py: error at most torch's)."""
    if x.dtype in _LOG_SOFTMAX_COMPOSED and x.ndim > 0 and x.size > 0 \
            and x.place.is_cpu_place():
        s = x - paddle.max(x, axis=axis, keepdim=True).detach()
        e = paddle.exp(s)
        if x.dtype == paddle.float32:
            z = e.astype(paddle.float64).sum(axis=axis, keepdim=True).astype(x.dtype)
            # the gradient of the broadcast log(z) sums the incoming gradient over the row:
            # Paddle's sequential float32 sum over a 32,000-wide row left the facade's
            # cross-entropy gradients twice torch's distance from float64 (Liger's
            # test_cross_entropy at rtol 1e-6), so that sum is exact_broadcast's blocked one
            from ._accurate_sum import exact_broadcast  # lazy: _accurate_sum imports _opbase
            return s - exact_broadcast(paddle.log(z), s.shape)
        z = e.sum(axis=axis, keepdim=True)
        return s - paddle.log(z)
    return paddle.nn.functional.log_softmax(x, axis=axis)


def _float_input(x):
    """Integers and bools promote to the default float dtype for float-only math."""
    if _name(x.dtype) in _INTS:
        return x.astype(default_float())
    return x


_EMPTY_RESULT = {"isnan": paddle.bool, "isinf": paddle.bool, "isfinite": paddle.bool,
                 "logical_not": paddle.bool}


def _empty_like_dtype(x, dtype):
    """The empty result of an elementwise op on empty ``x``, computed without a kernel; it
    keeps ``x``'s gradient edge (paddle_shims.empty_result)."""
    return empty_result(list(x.shape), dtype, x.place, (x,))


def _reduced_shape(shape, axis, keepdim):
    axis = range(len(shape)) if axis is None else axis
    return [1 if i in axis else d for i, d in enumerate(shape)] if keepdim else \
        [d for i, d in enumerate(shape) if i not in axis]


# -- binary ------------------------------------------------------------------------------------
def result_type(a, b):
    """torch's promotion for tensor/scalar operands: a 0-d tensor or Python scalar only lifts
    the category (int -> float), never the width of a dimensioned tensor."""
    ta, tb = isinstance(a, paddle.Tensor), isinstance(b, paddle.Tensor)
    if ta and tb:
        a_dim, b_dim = len(a.shape) > 0, len(b.shape) > 0
        if a_dim == b_dim:
            return _dt.promote_types(a.dtype, b.dtype)
        dense, scal = (a, b) if a_dim else (b, a)
        return _lift(dense.dtype, scal.dtype)
    if ta:
        return _lift(a.dtype, _dt._PY_TYPES[_pytype(b)]())
    if tb:
        return _lift(b.dtype, _dt._PY_TYPES[_pytype(a)]())
    return _dt._PY_TYPES[_pytype(a)]()


def result_type_n(*operands):
    """torch's result type over any number of tensor / Python scalar operands (TensorIterator's
    three categories: dimensioned tensors, 0-d tensors, Python scalars; a lower category only
    lifts the kind -- ``combine_categories`` in aten/src/ATen/native/TypeProperties.cpp)."""
    cats = [None, None, None]
    for v in operands:
        if isinstance(v, paddle.Tensor):
            c, dt = (0 if len(v.shape) > 0 else 1), v.dtype
        else:
            c, dt = 2, _dt._PY_TYPES[_pytype(v)]()
        cats[c] = dt if cats[c] is None else _dt.promote_types(cats[c], dt)
    return _combine(cats[0], _combine(cats[1], cats[2]))


def _combine(higher, lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    kh, kl = _cast_kind(higher), _cast_kind(lower)
    if kh == 3:
        return higher
    if kl == 3:
        if kh == 2:
            return _dt.DTYPES["complex128" if _name(higher) == "float64" else "complex64"]
        return lower
    if kh == 2:
        return higher
    if kh == 0 or kl == 2:
        return _dt.promote_types(higher, lower)
    return higher


def broadcast_shape(*tensors):
    """torch's broadcast of the operands' shapes, with torch's RuntimeError (Paddle raises
    ValueError) when they do not broadcast."""
    out = []
    for t in tensors:
        if not isinstance(t, paddle.Tensor):
            continue
        out = broadcast_sizes(out, _paddle_shape(t))
    return out


def broadcast_sizes(a, b):
    """torch's broadcast of two shapes given as lists of ints, with torch's RuntimeError; plain
    arithmetic, so 0-size dimensions broadcast as torch's do (Paddle 2.6's broadcast_shape
    turns [0], [0] into [-1])."""
    a, b = list(a), list(b)
    n = builtins.max(len(a), len(b))
    a, b = [1] * (n - len(a)) + a, [1] * (n - len(b)) + b
    out = []
    for i, (x, y) in enumerate(zip(a, b)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                               f"({y}) at non-singleton dimension {i}")
        out.append(y if x == 1 else x)
    return out


def _pytype(v):
    for t in (bool, int, float, builtins.complex):
        if isinstance(v, t):
            return t
    # numpy scalars (np.int32(1) == x): torch takes them as the Python number of their kind
    for abc, t in ((numbers.Integral, int), (numbers.Real, float), (numbers.Complex, builtins.complex)):
        if isinstance(v, abc):
            return t
    raise TypeError(f"unsupported operand {v!r}")


def _kind(n):
    return 0 if n == "bool" else 1 if n in _INTS else 3 if n.startswith("complex") else 2


def _lift(dense, scalar):
    kd, ks = _kind(_name(dense)), _kind(_name(scalar))
    if ks > kd:
        if ks == 2:
            return default_float()
        if kd == 2:  # float tensor, complex scalar: the complex type of the tensor's width
            return _dt.DTYPES["complex128" if _name(dense) == "float64" else "complex64"]
        return scalar
    return dense


def _scalar_tensor(v, dt, like):
    """A 0-d tensor holding Python scalar ``v`` on ``like``'s device (Paddle 2.6's full()
    rejects complex values)."""
    if isinstance(v, builtins.complex):
        part = _dt.DTYPES["float64" if _name(dt) == "complex128" else "float32"]
        return paddle.complex(_full([], v.real, part, like), _full([], v.imag, part, like))
    return _full([], v, dt, like)


def _full(shape, value, dtype, like):
    """paddle.full on ``like``'s device: scalars must live where the tensor operand lives (the
    default place is the current GPU, which a CPU operand cannot be combined with)."""
    return kernel_full(shape, value, dtype, like.place)


def _operands(a, b, like=None):
    dt = result_type(a, b)
    ref = a if isinstance(a, paddle.Tensor) else b if isinstance(b, paddle.Tensor) else like
    if not isinstance(a, paddle.Tensor):
        a = _scalar_tensor(a, dt, ref)
    elif a.dtype != dt:
        a = a.astype(dt)
    if not isinstance(b, paddle.Tensor):
        b = _scalar_tensor(b, dt, ref)
    elif b.dtype != dt:
        b = b.astype(dt)
    return a, b


def _prod(xs):
    n = 1
    for v in xs:
        n *= v
    return n


_LEGACY_NAMES = _dt.LEGACY_NAMES


def _float_kernel(x, op):
    n = _name(x.dtype)
    if n not in _FLOATS:
        raise NotImplementedError(f'"{op}_kernel_impl" not implemented for '
                                  f"'{_LEGACY_NAMES.get(n, n)}'")


def _same_dtype(a, b):
    if isinstance(b, paddle.Tensor) and a.dtype != b.dtype:
        raise RuntimeError(f"{_LEGACY_NAMES.get(_name(b.dtype))} did not match "
                           f"{_LEGACY_NAMES.get(_name(a.dtype))}")


def builtins_sum(xs):
    t = 0
    for v in xs:
        t += v
    return t


CumminResult = _return_type("cummin")
