"""torch.* functions: math, reductions, comparisons and shape ops with torch's signatures.

Each function takes the input tensor first, so tensor_methods.py registers the same functions
as Tensor methods (``x.sum(dim=1)`` is ``torch.sum(x, dim=1)``).  Aliases are used only where
Paddle's function has torch's semantics on 2.6.2 and 3.3.1 alike (proved by tests/facade).
What torch does differently and we follow:
- integer inputs to float-only math (exp, sqrt, sigmoid...) give the default float dtype;
- integer sums/products/cumsums accumulate in int64;
- ``dim`` out of range is an IndexError;
- ``max(x, dim)`` / ``sort`` / ``topk`` return named tuples ``(values, indices)``;
- ``split(n)`` means chunks of n elements, not n sections.
"""
from __future__ import annotations

import builtins  # this module defines sum/max/min/any/all/round/pow: use builtins.*
import collections
import numbers

import paddle

from . import dtypes as _dt
from .creation import _C_ops, _write_out, default_float
from .registry import adapter as _register_adapter

_name = _dt.torch_name
_to_dtype = _dt.to_paddle
_FLOATS = ("float16", "bfloat16", "float32", "float64")
_INTS = ("bool", "uint8", "int8", "int16", "int32", "int64")
_HALF = (_dt.DTYPES["float16"], _dt.DTYPES["bfloat16"])
_FLOAT32 = _dt.DTYPES["float32"]
_WIDE = (_FLOAT32, _dt.DTYPES["float64"])


# -- float16/bfloat16 on the CPU ----------------------------------------------------------------
# Paddle's CPU build has no float16 (and few bfloat16) kernels for add, where, max, softmax...;
# torch's CPU kernels compute half inputs in float32 ("opmath") and round the result.  Every
# adapter of this module is registered through _opmath, which does the same for CPU halves:
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
        return v.astype("float32")
    if isinstance(v, (list, tuple)) and v and isinstance(v[0], paddle.Tensor):
        return type(v)(_up(b) for b in v)
    return v


def _down(v, half):
    if isinstance(v, paddle.Tensor):
        return v.astype(half) if v.dtype == _FLOAT32 else v
    if isinstance(v, tuple):
        items = [_down(b, half) for b in v]
        return type(v)(*items) if hasattr(v, "_fields") else tuple(items)
    return v


def _opmath(fn):
    def run(*args, **kwargs):
        half = _find_half(args)
        if half is None or kwargs.get("out") is not None:
            return fn(*args, **kwargs)
        # the output dtype is not the half one when chosen by dtype= or promoted by a
        # dimensioned wider float operand (a 0-d one does not promote, as in torch)
        explicit_dtype = kwargs.get("dtype") is not None or builtins.any(
            isinstance(a, _dt.DTYPE_TYPE) or isinstance(a, paddle.Tensor) and a.ndim > 0
            and a.dtype in _WIDE for a in args)
        result = fn(*[_up(a) for a in args], **kwargs)
        return result if explicit_dtype else _down(result, half)
    run.__name__ = fn.__name__
    run.__qualname__ = fn.__qualname__
    run.__doc__ = fn.__doc__
    run.__wrapped__ = fn
    return run


def adapter(torch_name):
    """Register ``fn`` (wrapped by _opmath) and return the wrapped function: Tensor methods
    (tensor_methods.py) and ops calling ops get the same behaviour as ``torch.<name>``."""
    def deco(fn):
        return _register_adapter(torch_name)(fn if hasattr(fn, "__wrapped__") else _opmath(fn))
    return deco


def _return_type(name, fields=("values", "indices")):
    cls = collections.namedtuple(name, fields)
    cls.__module__ = "torch.return_types"
    return cls


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


def _float_input(x):
    """Integers and bools promote to the default float dtype for float-only math."""
    if _name(x.dtype) in _INTS:
        return x.astype(default_float())
    return x


# -- unary math --------------------------------------------------------------------------------
def _unary(torch_name, paddle_fn, float_only):
    def fn(input, *, out=None):
        x = _float_input(input) if float_only else input
        if x.size == 0:  # Paddle 2.6 kernels reject 0-size inputs
            return _write_out(_empty_like_dtype(x, _EMPTY_RESULT.get(torch_name, x.dtype)), out)
        return _write_out(paddle_fn(x), out)
    fn.__name__ = torch_name
    fn.__qualname__ = torch_name
    return adapter(f"torch.{torch_name}")(fn)


_FLOAT_ONLY = {
    "exp": paddle.exp, "log": paddle.log, "log2": paddle.log2, "log10": paddle.log10,
    "log1p": paddle.log1p, "expm1": paddle.expm1, "sqrt": paddle.sqrt, "rsqrt": paddle.rsqrt,
    "sigmoid": paddle.nn.functional.sigmoid, "tanh": paddle.tanh, "sin": paddle.sin,
    "cos": paddle.cos, "tan": paddle.tan, "erf": paddle.erf, "reciprocal": paddle.reciprocal,
    "asin": paddle.asin, "acos": paddle.acos, "atan": paddle.atan, "sinh": paddle.sinh,
    "cosh": paddle.cosh, "exp2": lambda x: paddle.pow(_full([], 2.0, x.dtype, x), x),
}
_SAME_DTYPE = {
    "abs": paddle.abs, "neg": paddle.neg, "square": paddle.square, "sign": paddle.sign,
    "floor": paddle.floor, "ceil": paddle.ceil, "trunc": paddle.trunc,
    "relu": lambda x: paddle.maximum(x, _full([], 0, x.dtype, x)),  # Paddle: float-only relu
}
UNARY = {}
for _n, _f in _FLOAT_ONLY.items():
    UNARY[_n] = _unary(_n, _f, True)
for _n, _f in _SAME_DTYPE.items():
    UNARY[_n] = _unary(_n, _f, False)
UNARY["negative"] = UNARY["neg"]
adapter("torch.negative")(UNARY["neg"])
UNARY["absolute"] = UNARY["abs"]
adapter("torch.absolute")(UNARY["abs"])


@adapter("torch.round")
def round(input, *, decimals=0, out=None):  # noqa: A001 - torch's name
    if input.size == 0:
        return _write_out(_empty_like_dtype(input, input.dtype), out)
    if decimals:
        s = 10.0 ** decimals
        return _write_out(paddle.round(input * s) / s, out)
    # torch rounds half to even; paddle.round rounds half away from zero on some versions
    f = paddle.floor(input)
    diff = input - f
    even = paddle.remainder(f, _full([], 2.0, f.dtype, f)) == 0
    up = (diff > 0.5) | ((diff == 0.5) & ~even)
    return _write_out(paddle.where(up, f + 1, f).astype(input.dtype), out)


_EMPTY_RESULT = {"isnan": paddle.bool, "isinf": paddle.bool, "isfinite": paddle.bool,
                 "logical_not": paddle.bool}


def _empty_like_dtype(x, dtype):
    return _C_ops.empty(list(x.shape), dtype, x.place)


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


def _pytype(v):
    for t in (bool, int, float, builtins.complex):
        if isinstance(v, t):
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
    return _C_ops.full(shape, value, dtype, like.place)


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


def _binary(torch_name, paddle_fn, result_float=False):
    def fn(input, other, *, out=None):
        a, b = _operands(input, other)
        if result_float:
            a, b = _float_input(a), _float_input(b)
        return _write_out(paddle_fn(a, b), out)
    fn.__name__ = torch_name
    return adapter(f"torch.{torch_name}")(fn)


BINARY = {}
for _n, _f in {"mul": paddle.multiply, "maximum": paddle.maximum, "minimum": paddle.minimum,
               "eq": paddle.equal, "ne": paddle.not_equal, "lt": paddle.less_than,
               "le": paddle.less_equal, "gt": paddle.greater_than,
               "ge": paddle.greater_equal, "remainder": paddle.remainder, "logical_and": paddle.logical_and,
               "logical_or": paddle.logical_or, "logical_xor": paddle.logical_xor,
               "bitwise_and": paddle.bitwise_and, "bitwise_or": paddle.bitwise_or,
               "bitwise_xor": paddle.bitwise_xor}.items():
    BINARY[_n] = _binary(_n, _f)
BINARY["multiply"] = BINARY["mul"]
adapter("torch.multiply")(BINARY["mul"])
def _atan2(a, b):
    shape = paddle.broadcast_shape(list(a.shape), list(b.shape))  # Paddle 2.6 does not broadcast
    return paddle.atan2(paddle.broadcast_to(a, shape), paddle.broadcast_to(b, shape))


BINARY["atan2"] = _binary("atan2", _atan2, result_float=True)
BINARY["true_divide"] = _binary("true_divide", paddle.divide, result_float=True)


@adapter("torch.fmod")
def fmod(input, other, *, out=None):
    a, b = _operands(input, other)
    return _write_out(a - paddle.trunc(a / b).astype(a.dtype) * b
                      if _name(a.dtype) in _FLOATS else paddle.sign(a) * paddle.remainder(
                          paddle.abs(a), paddle.abs(b)), out)


@adapter("torch.add")
def add(input, other, *, alpha=1, out=None):
    if alpha != 1:
        other = other * alpha
    a, b = _operands(input, other)
    return _write_out(paddle.add(a, b), out)


def _is_bool(v):
    return isinstance(v, bool) or isinstance(v, paddle.Tensor) and _name(v.dtype) == "bool"


@adapter("torch.sub")
def sub(input, other, *, alpha=1, out=None):
    if alpha != 1:
        other = other * alpha
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    a, b = _operands(input, other)
    return _write_out(paddle.subtract(a, b), out)


adapter("torch.subtract")(sub)


@adapter("torch.div")
def div(input, other, *, rounding_mode=None, out=None):
    a, b = _operands(input, other)
    if rounding_mode is None:
        a, b = _float_input(a), _float_input(b)
        return _write_out(paddle.divide(a, b), out)
    if rounding_mode == "trunc":
        if _name(a.dtype) in _INTS:
            q = paddle.divide(a.astype("float64"), b.astype("float64"))
            return _write_out(paddle.trunc(q).astype(a.dtype), out)
        return _write_out(paddle.trunc(paddle.divide(a, b)), out)
    if rounding_mode == "floor":
        if _name(a.dtype) in _INTS:
            return _write_out(paddle.floor_divide(a, b), out)
        return _write_out(paddle.floor(paddle.divide(a, b)), out)
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


adapter("torch.divide")(div)


@adapter("torch.pow")
def pow(input, exponent, *, out=None):  # noqa: A001
    a, b = _operands(input, exponent)
    return _write_out(paddle.pow(a, b), out)


@adapter("torch.where")
def where(condition, input=None, other=None, *, out=None):
    if input is None and other is None:
        if condition.ndim == 0:
            return (paddle.nonzero(condition.reshape([1])).reshape([-1]),)
        # Paddle 2.6 returns [n, 1] pieces; torch 1-D index tensors
        return tuple(t.reshape([-1]).astype("int64")
                     for t in paddle.nonzero(condition, as_tuple=True))
    a, b = _operands(input, other, like=condition)
    if condition.dtype != paddle.bool:
        condition = condition.astype("bool")
    shape = paddle.broadcast_shape(paddle.broadcast_shape(list(a.shape), list(b.shape)),
                                   list(condition.shape))
    return _write_out(paddle.where(condition.expand(shape), a.expand(shape), b.expand(shape)),
                      out)


@adapter("torch.clamp")
def clamp(input, min=None, max=None, *, out=None):  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    x = input
    if isinstance(min, paddle.Tensor) or isinstance(max, paddle.Tensor):
        if min is not None:
            x = BINARY["maximum"](x, min)
        if max is not None:
            x = BINARY["minimum"](x, max)
        return _write_out(x, out)
    dt = x.dtype
    for bound in (min, max):
        if bound is not None:
            dt = result_type(_full([1], 0, dt, x), bound)
    if dt != x.dtype:
        x = x.astype(dt)
    if _name(dt) in _INTS:
        # paddle.clip wants bounds of the tensor's kind
        lo = _full([], min, dt, x) if min is not None else None
        hi = _full([], max, dt, x) if max is not None else None
        if lo is not None:
            x = paddle.maximum(x, lo)
        if hi is not None:
            x = paddle.minimum(x, hi)
        return _write_out(x, out)
    if min is not None and max is not None and min > max:
        return _write_out(paddle.full_like(x, max), out)  # torch: every value becomes max
    return _write_out(paddle.clip(x, min, max), out)


clip = adapter("torch.clip")(clamp)


@adapter("torch.clamp_min")
def clamp_min(input, min):  # noqa: A002
    return clamp(input, min=min)


@adapter("torch.clamp_max")
def clamp_max(input, max):  # noqa: A002
    return clamp(input, max=max)


@adapter("torch.allclose")
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """torch: a Python bool (Paddle: a bool Tensor)."""
    _same_dtype(input, other)
    a, b = _operands(input, other)
    if _name(a.dtype) in _INTS:  # Paddle 2.6 has float-only allclose kernels
        a, b = a.astype("float64"), b.astype("float64")
    return bool(paddle.allclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan))


@adapter("torch.isclose")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    _same_dtype(input, other)
    a, b = _operands(input, other)
    return paddle.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)


@adapter("torch.equal")
def equal(input, other) -> bool:
    """torch: True when shapes and all values are equal (paddle.equal is elementwise)."""
    if list(input.shape) != list(other.shape):
        return False
    if input.size == 0:
        return True
    a, b = _operands(input, other)
    return bool(paddle.equal_all(a, b))


for _n, _f in (("isnan", paddle.isnan), ("isinf", paddle.isinf), ("isfinite", paddle.isfinite),
               ("logical_not", paddle.logical_not), ("bitwise_not", paddle.bitwise_not)):
    UNARY[_n] = _unary(_n, _f, False)


# -- reductions --------------------------------------------------------------------------------
def _reduce_dtype(x, dtype, int_to_int64=True):
    if dtype is not None:
        return x.astype(_to_dtype(dtype))
    if int_to_int64 and _name(x.dtype) in _INTS:
        return x.astype("int64")
    return x


@adapter("torch.sum")
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A001
    x = _reduce_dtype(input, dtype)
    axis = _dims(dim, x.ndim)
    if x.size == 0:  # torch: the empty sum is 0 (Paddle 2.6 rejects 0-size reductions)
        return _write_out(_full(_reduced_shape(x.shape, axis, keepdim), 0, x.dtype, x), out)
    return _write_out(paddle.sum(x, axis=axis, keepdim=keepdim), out)


@adapter("torch.prod")
def prod(input, dim=None, keepdim=False, *, dtype=None):
    x = _reduce_dtype(input, dtype)
    axis = None if dim is None else wrap_dim(dim, x.ndim)
    return paddle.prod(x, axis=axis, keepdim=keepdim)


@adapter("torch.mean")
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    x = input if dtype is None else input.astype(_to_dtype(dtype))
    n = _name(x.dtype)
    if n not in _FLOATS and not n.startswith("complex"):
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {n.capitalize()}")
    axis = _dims(dim, x.ndim)
    if x.size == 0:  # torch: the empty mean is nan
        return _write_out(_full(_reduced_shape(x.shape, axis, keepdim), float("nan"), x.dtype,
                                x), out)
    return _write_out(paddle.mean(x, axis=axis, keepdim=keepdim), out)


def _var_correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


@adapter("torch.var")
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):  # torch.var(x, False): the old unbiased positional
        dim, unbiased = None, dim
    c = _var_correction(unbiased, correction)
    axis = _dims(dim, input.ndim)
    m = paddle.mean(input, axis=axis, keepdim=True)
    n = input.size if axis is None else _prod([input.shape[d] for d in axis])
    s = paddle.sum((input - m) ** 2, axis=axis, keepdim=keepdim)
    return s / (n - c) if n - c > 0 else s / 0.0  # torch: inf/nan when n <= correction


@adapter("torch.std")
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return paddle.sqrt(var(input, dim, unbiased, keepdim, correction=correction))


def _prod(xs):
    n = 1
    for v in xs:
        n *= v
    return n


def _minmax(torch_name, reduce_all, reduce_dim, elementwise, result_cls):
    def fn(input, dim=None, keepdim=False, *, out=None):
        if isinstance(dim, paddle.Tensor):  # torch.max(a, b)
            return _write_out(BINARY[elementwise](input, dim), out)
        if dim is None:
            if keepdim:
                raise TypeError(f"{torch_name}() received an invalid combination of arguments")
            if input.size == 0:
                raise RuntimeError(f"{torch_name}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            return reduce_all(input)
        d = wrap_dim(dim, input.ndim)
        if input.ndim == 0:
            return result_cls(input.clone(), _full([], 0, _dt.DTYPES["int64"], input))
        if input.shape[d] == 0:
            raise IndexError(f"{torch_name}(): Expected reduction dim {d} to have non-zero size.")
        values = reduce_dim(input, axis=d, keepdim=keepdim)
        indices = (paddle.argmax if torch_name == "max" else paddle.argmin)(
            input, axis=d, keepdim=keepdim)
        return result_cls(values, indices.astype("int64"))
    fn.__name__ = torch_name
    return adapter(f"torch.{torch_name}")(fn)


max = _minmax("max", paddle.max, paddle.max, "maximum", MaxResult)  # noqa: A001
min = _minmax("min", paddle.min, paddle.min, "minimum", MinResult)  # noqa: A001


def _check_empty_reduce(x, axis, op):
    for i in (range(x.ndim) if axis is None else axis):
        if x.shape[i] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {i} to have non-zero size.")


@adapter("torch.amax")
def amax(input, dim=(), keepdim=False, *, out=None):
    axis = _dims(dim, input.ndim)
    if input.size == 0:
        _check_empty_reduce(input, axis, "amax")
        return _write_out(_C_ops.empty(_reduced_shape(input.shape, axis, keepdim), input.dtype,
                                         input.place),
                          out)
    return _write_out(paddle.amax(input, axis=axis, keepdim=keepdim), out)


@adapter("torch.amin")
def amin(input, dim=(), keepdim=False, *, out=None):
    axis = _dims(dim, input.ndim)
    if input.size == 0:
        _check_empty_reduce(input, axis, "amin")
        return _write_out(_C_ops.empty(_reduced_shape(input.shape, axis, keepdim), input.dtype,
                                         input.place),
                          out)
    return _write_out(paddle.amin(input, axis=axis, keepdim=keepdim), out)


def _arg(torch_name, paddle_fn):
    def fn(input, dim=None, keepdim=False):
        if dim is None:
            r = paddle_fn(input.reshape([-1]), axis=0)
            return r.reshape([1] * input.ndim) if keepdim else r.reshape([])
        return paddle_fn(input, axis=wrap_dim(dim, input.ndim), keepdim=keepdim).astype("int64")
    fn.__name__ = torch_name
    return adapter(f"torch.{torch_name}")(fn)


argmax = _arg("argmax", paddle.argmax)
argmin = _arg("argmin", paddle.argmin)


@adapter("torch.all")
def all(input, dim=None, keepdim=False):  # noqa: A001
    x = input.astype("bool")
    r = paddle.all(x, axis=_dims(dim, x.ndim), keepdim=keepdim)
    return r.astype("uint8") if _name(input.dtype) == "uint8" else r


@adapter("torch.any")
def any(input, dim=None, keepdim=False):  # noqa: A001
    x = input.astype("bool")
    r = paddle.any(x, axis=_dims(dim, x.ndim), keepdim=keepdim)
    return r.astype("uint8") if _name(input.dtype) == "uint8" else r


@adapter("torch.logsumexp")
def logsumexp(input, dim, keepdim=False):
    x = _float_input(input)
    return paddle.logsumexp(x, axis=_dims(dim, x.ndim), keepdim=keepdim)


@adapter("torch.cumsum")
def cumsum(input, dim, *, dtype=None, out=None):
    x = _reduce_dtype(input, dtype)
    return _write_out(paddle.cumsum(x, axis=wrap_dim(dim, x.ndim)), out)


@adapter("torch.cumprod")
def cumprod(input, dim, *, dtype=None):
    x = _reduce_dtype(input, dtype)
    return paddle.cumprod(x, dim=wrap_dim(dim, x.ndim))


_LEGACY_NAMES = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                 "uint8": "Byte", "bool": "Bool", "float32": "Float", "float64": "Double",
                 "float16": "Half", "bfloat16": "BFloat16"}


def _float_kernel(x, op):
    n = _name(x.dtype)
    if n not in _FLOATS:
        raise NotImplementedError(f'"{op}_kernel_impl" not implemented for '
                                  f"'{_LEGACY_NAMES.get(n, n)}'")


def _same_dtype(a, b):
    if isinstance(b, paddle.Tensor) and a.dtype != b.dtype:
        raise RuntimeError(f"{_LEGACY_NAMES.get(_name(b.dtype))} did not match "
                           f"{_LEGACY_NAMES.get(_name(a.dtype))}")


@adapter("torch.softmax")
def softmax(input, dim, dtype=None):
    x = input if dtype is None else input.astype(_to_dtype(dtype))
    _float_kernel(x, "softmax")
    return paddle.nn.functional.softmax(x, axis=wrap_dim(dim, x.ndim))


@adapter("torch.log_softmax")
def log_softmax(input, dim, dtype=None):
    x = input if dtype is None else input.astype(_to_dtype(dtype))
    _float_kernel(x, "log_softmax")
    return paddle.nn.functional.log_softmax(x, axis=wrap_dim(dim, x.ndim))


@adapter("torch.norm")
def norm(input, p="fro", dim=None, keepdim=False, dtype=None):
    x = input if dtype is None else input.astype(_to_dtype(dtype))
    axis = _dims(dim, x.ndim)
    if p == "fro" or p == 2:
        return paddle.sqrt(paddle.sum(x * x, axis=axis, keepdim=keepdim))
    if p == float("inf"):
        return paddle.amax(paddle.abs(x), axis=axis, keepdim=keepdim)
    return paddle.sum(paddle.abs(x) ** p, axis=axis, keepdim=keepdim) ** (1.0 / p)


@adapter("torch.sort")
def sort(input, dim=-1, descending=False, stable=False):
    d = wrap_dim(dim, input.ndim)
    idx = paddle.argsort(input, axis=d, descending=descending, stable=True) \
        if _has_stable_argsort() else paddle.argsort(input, axis=d, descending=descending)
    return SortResult(paddle.take_along_axis(input, idx, d), idx.astype("int64"))


@adapter("torch.argsort")
def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable).indices


def _has_stable_argsort():
    import inspect
    global _STABLE
    if _STABLE is None:
        _STABLE = "stable" in inspect.signature(paddle.argsort).parameters
    return _STABLE


_STABLE = None


@adapter("torch.topk")
def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    d = wrap_dim(dim, input.ndim)
    v, i = paddle.topk(input, k, axis=d, largest=largest, sorted=True)
    return TopkResult(v, i.astype("int64"))


# -- matmul ------------------------------------------------------------------------------------
def _check_same_dtype(a, b, op):
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_name(a.dtype)} != {_name(b.dtype)}")


@adapter("torch.matmul")
def matmul(input, other, *, out=None):
    _check_same_dtype(input, other, "matmul")
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{input.ndim}D and {other.ndim}D")
    return _write_out(paddle.matmul(input, other), out)


@adapter("torch.mm")
def mm(input, mat2, *, out=None):
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    _check_same_dtype(input, mat2, "mm")
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x"
                           f"{input.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    return _write_out(paddle.matmul(input, mat2), out)


@adapter("torch.bmm")
def bmm(input, mat2, *, out=None):
    if input.ndim != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.ndim != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    _check_same_dtype(input, mat2, "bmm")
    if input.shape[0] != mat2.shape[0] or input.shape[2] != mat2.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{input.shape[0]}, {input.shape[2]}] but got: "
                           f"[{mat2.shape[0]}, {mat2.shape[1]}].")
    return _write_out(paddle.matmul(input, mat2), out)


@adapter("torch.addmm")
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    prod_ = mm(mat1, mat2)
    r = prod_ * alpha if alpha != 1 else prod_
    if beta != 0:
        r = r + (input * beta if beta != 1 else input)
    return _write_out(r, out)


@adapter("torch.outer")
def outer(input, vec2):
    return paddle.outer(input, vec2)


@adapter("torch.einsum")
def einsum(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    return paddle.einsum(equation, *operands)


# -- joining and shape ops ---------------------------------------------------------------------
def _common(tensors, op):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{op}(): expected a non-empty list of Tensors")
    dt = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype != dt:
            dt = _dt.promote_types(dt, t.dtype)
    return [t if t.dtype == dt else t.astype(dt) for t in tensors]


@adapter("torch.cat")
def cat(tensors, dim=0, *, out=None):
    ts = _common(tensors, "cat")
    # torch skips legacy 1-D empty tensors (shape [0]) when joining others
    kept = [t for t in ts if not (t.ndim == 1 and t.shape[0] == 0)] or ts[:1]
    d = wrap_dim(dim, kept[0].ndim)
    ref = list(kept[0].shape)
    for i, t in enumerate(kept[1:], 1):
        shape = list(t.shape)
        if len(shape) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} "
                               f"and {len(shape)}")
        for j, (p, q) in enumerate(zip(ref, shape)):
            if j != d and p != q:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {p} but got size {q} for tensor number {i} "
                                   "in the list.")
    return _write_out(paddle.concat(kept, axis=d), out)


adapter("torch.concat")(cat)
adapter("torch.concatenate")(cat)


@adapter("torch.stack")
def stack(tensors, dim=0, *, out=None):
    ts = _common(tensors, "stack")
    shapes = {tuple(t.shape) for t in ts}
    if len(shapes) > 1:
        raise RuntimeError("stack expects each tensor to be equal size")
    d = wrap_dim(dim, ts[0].ndim + 1)
    return _write_out(paddle.stack(ts, axis=d), out)


@adapter("torch.reshape")
def reshape(input, shape):
    return input.reshape(list(shape))


@adapter("torch.transpose")
def transpose(input, dim0, dim1):
    nd = input.ndim
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    if nd < 2:
        return input.view(input.shape) if nd else input.reshape([])
    perm = list(range(nd))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return input.transpose(perm)


adapter("torch.swapaxes")(transpose)


@adapter("torch.permute")
def permute(input, dims):
    nd = input.ndim
    perm = [wrap_dim(d, nd) for d in dims]
    if len(perm) != nd or sorted(perm) != list(range(nd)):
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {nd} is not equal to len(dims) = {len(perm)}")
    return input.transpose(perm) if nd else input


@adapter("torch.flatten")
def flatten(input, start_dim=0, end_dim=-1):
    nd = input.ndim
    if nd == 0:
        return input.reshape([1])
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = list(input.shape)
    return input.reshape(shape[:s] + [-1 if 0 not in shape[s:e + 1] else 0] + shape[e + 1:])


@adapter("torch.squeeze")
def squeeze(input, dim=None):
    nd = input.ndim
    if dim is None:
        return input.reshape([d for d in input.shape if d != 1])
    dims = _dims(dim, nd) or []
    shape = list(input.shape)
    return input.reshape([s for i, s in enumerate(shape) if not (i in dims and s == 1)])


@adapter("torch.unsqueeze")
def unsqueeze(input, dim):
    d = wrap_dim(dim, input.ndim + 1)
    shape = list(input.shape)
    return input.reshape(shape[:d] + [1] + shape[d:])


@adapter("torch.split")
def split(tensor, split_size_or_sections, dim=0):
    """torch: an int is the size of each chunk (the last may be smaller)."""
    d = wrap_dim(dim, tensor.ndim)
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s <= 0 and not (s == 0 and n == 0):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [s] * (n // s) + ([n % s] if n % s else []) if s else [0]
    else:
        sizes = [int(v) for v in split_size_or_sections]
        if builtins_sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={sizes}")
    return tuple(_narrow(tensor, d, sizes))


def _narrow(t, d, sizes):
    out, start = [], 0
    for s in sizes:
        out.append(paddle.slice(t, [d], [start], [start + s]))
        start += s
    return out


def builtins_sum(xs):
    t = 0
    for v in xs:
        t += v
    return t


@adapter("torch.chunk")
def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    size = -(-n // chunks) if n else 0
    if size == 0:
        return tuple(_narrow(input, d, [0] * (chunks if n == 0 else 1)))
    return split(input, size, d)


@adapter("torch.unbind")
def unbind(input, dim=0):
    d = wrap_dim(dim, input.ndim)
    return tuple(paddle.unbind(input, axis=d))


@adapter("torch.narrow")
def narrow(input, dim, start, length):
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if start < 0:
        start += n
    if start < 0 or start + length > n or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return paddle.slice(input, [d], [start], [start + length])


@adapter("torch.gather")
def gather(input, dim, index, *, sparse_grad=False):
    return paddle.take_along_axis(input, index, wrap_dim(dim, input.ndim),
                                  broadcast=False) if _tal_has_broadcast() else \
        paddle.take_along_axis(input, index, wrap_dim(dim, input.ndim))


_TAL = None


def _tal_has_broadcast():
    global _TAL
    if _TAL is None:
        import inspect
        _TAL = "broadcast" in inspect.signature(paddle.take_along_axis).parameters
    return _TAL


@adapter("torch.index_select")
def index_select(input, dim, index):
    return paddle.index_select(input, index, axis=wrap_dim(dim, input.ndim))


@adapter("torch.masked_fill")
def masked_fill(input, mask, value):
    if isinstance(value, paddle.Tensor):
        value = value.item()
    fill = _full([], value, input.dtype, input)
    return paddle.where(mask.astype("bool"), fill, input)


@adapter("torch.tril")
def tril(input, diagonal=0, *, out=None):
    return _write_out(paddle.tril(input, diagonal), out)


@adapter("torch.triu")
def triu(input, diagonal=0, *, out=None):
    return _write_out(paddle.triu(input, diagonal), out)


@adapter("torch.flip")
def flip(input, dims):
    return paddle.flip(input, axis=[wrap_dim(d, input.ndim) for d in dims])


@adapter("torch.roll")
def roll(input, shifts, dims=None):
    return paddle.roll(input, shifts, axis=dims)


@adapter("torch.broadcast_to")
def broadcast_to(input, size):
    return paddle.broadcast_to(input, list(size))


@adapter("torch.nonzero")
def nonzero(input, *, as_tuple=False):
    if as_tuple:
        return where(input)
    return paddle.nonzero(input).astype("int64")


@adapter("torch.numel")
def numel(input) -> int:
    return _prod(input.shape)


@adapter("torch.count_nonzero")
def count_nonzero(input, dim=None):
    return paddle.sum((input != 0).astype("int64"), axis=_dims(dim, input.ndim))


@adapter("torch.clone")
def clone(input, *, memory_format=None):
    return input.clone()


@adapter("torch.repeat_interleave")
def repeat_interleave(input, repeats, dim=None, *, output_size=None):
    if dim is None:
        input, dim = input.reshape([-1]), 0
    return paddle.repeat_interleave(input, repeats, axis=wrap_dim(dim, input.ndim))


@adapter("torch.scatter")
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """torch: out[i][index[i][j]] = src[i][j] along ``dim`` (paddle.scatter is row-wise)."""
    if src is None:
        src = value
    if isinstance(src, paddle.Tensor) and list(src.shape) != list(index.shape):
        src = paddle.slice(src, list(range(index.ndim)), [0] * index.ndim, list(index.shape))
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    mode = {"add": "add", "multiply": "mul", None: "assign"}[reduce]
    if not isinstance(src, paddle.Tensor):
        src = _full(list(index.shape), src, input.dtype, input)
    return paddle.put_along_axis(input, index, src.astype(input.dtype),
                                 wrap_dim(dim, input.ndim), reduce=mode)


@adapter("torch.scatter_add")
def scatter_add(input, dim, index, src):
    return scatter(input, dim, index, src, reduce="add")


@adapter("torch.index_add")
def index_add(input, dim, index, source, *, alpha=1):
    src = source * alpha if alpha != 1 else source
    return paddle.index_add(input, index, wrap_dim(dim, input.ndim), src.astype(input.dtype))


@adapter("torch.view_as_real")
def view_as_real(input):
    """Values of torch's view (a copy in Paddle: writes do not reach the complex tensor)."""
    if not _name(input.dtype).startswith("complex"):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    return paddle.as_real(input)


@adapter("torch.view_as_complex")
def view_as_complex(input):
    return paddle.as_complex(input)


@_register_adapter("torch._assert_async")
def _assert_async(cond, msg="Expected Tensor with single nonzero value, but got zero"):
    """torch checks on the device without a sync; here it is checked at once (a sync)."""
    if cond.size != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    if not bool(cond):
        raise RuntimeError(msg)


@adapter("torch.quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """torch's quantile (Triton's do_bench uses it): sort, then interpolate between ranks."""
    _float_kernel(input, "quantile")
    scalar_q = not isinstance(q, paddle.Tensor) or q.ndim == 0
    qs = [float(q)] if not isinstance(q, paddle.Tensor) else [float(v) for v in
                                                             q.reshape([-1]).tolist()]
    if builtins.any(v < 0 or v > 1 for v in qs):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    x = input.reshape([-1]) if dim is None else input
    d = 0 if dim is None else wrap_dim(dim, input.ndim)
    n = x.shape[d]
    s = paddle.sort(x, axis=d)
    outs = []
    for v in qs:
        pos = v * (n - 1)
        lo, hi = int(pos // 1), -int(-pos // 1)
        a = paddle.slice(s, [d], [lo], [lo + 1])
        b = paddle.slice(s, [d], [hi], [hi + 1])
        frac = pos - lo
        if interpolation == "linear":
            r = a + (b - a) * frac
        elif interpolation == "lower":
            r = a
        elif interpolation == "higher":
            r = b
        elif interpolation == "midpoint":
            r = (a + b) / 2
        elif interpolation == "nearest":
            r = b if frac > 0.5 or (frac == 0.5 and hi % 2 == 0) else a  # round half to even
        else:
            raise ValueError(f"quantile() interpolation must be one of linear, lower, higher, "
                             f"midpoint or nearest. Got {interpolation}")
        if dim is None:
            r = r.reshape([1] * input.ndim if keepdim else [])
        elif not keepdim:
            r = r.squeeze(d)
        outs.append(r)
    result = outs[0] if scalar_q else paddle.stack(outs, axis=0)
    return _write_out(result, out)


@adapter("torch.median")
def median(input, dim=None, keepdim=False):
    """torch: the lower median (no interpolation); with dim, (values, indices)."""
    if dim is None:
        flat = input.reshape([-1])
        if flat.size == 0:
            return _full([], float("nan"), input.dtype, input)
        s = paddle.sort(flat)
        return s[(flat.shape[0] - 1) // 2]
    d = wrap_dim(dim, input.ndim)
    idx = paddle.argsort(input, axis=d)
    k = (input.shape[d] - 1) // 2
    i = paddle.slice(idx, [d], [k], [k + 1])
    v = paddle.take_along_axis(input, i, d)
    if not keepdim:
        v, i = v.squeeze(d), i.squeeze(d)
    return MedianResult(v, i.astype("int64"))


@adapter("torch.movedim")
def movedim(input, source, destination):
    nd = input.ndim
    src = [wrap_dim(d, nd) for d in (source if isinstance(source, (list, tuple)) else [source])]
    dst = [wrap_dim(d, nd) for d in (destination if isinstance(destination, (list, tuple))
                                     else [destination])]
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                           f"should contain the same number of dims as destination ({dst} dims)")
    perm = [-1] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(i for i in range(nd) if i not in src)
    perm = [p if p >= 0 else next(rest) for p in perm]
    return input.transpose(perm) if nd else input


adapter("torch.moveaxis")(movedim)


@adapter("torch.diagonal")
def diagonal(input, offset=0, dim1=0, dim2=1):
    nd = input.ndim
    return paddle.diagonal(input, offset=offset, axis1=wrap_dim(dim1, nd),
                           axis2=wrap_dim(dim2, nd))


@_register_adapter("torch.result_type")
def result_type_(tensor, other):
    """torch.result_type(tensor, other): the dtype an op of the two would compute in."""
    return result_type(tensor, other)


@adapter("torch.complex")
def complex(real, imag, *, out=None):  # noqa: A001
    if real.dtype != imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {_LEGACY_NAMES.get(_name(real.dtype))}"
                           f" but got scalar type {_LEGACY_NAMES.get(_name(imag.dtype))} for "
                           "second argument")
    if _name(real.dtype) not in ("float32", "float64"):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_LEGACY_NAMES.get(_name(real.dtype))} and "
                           f"{_LEGACY_NAMES.get(_name(imag.dtype))}")
    return _write_out(paddle.complex(real, imag), out)


@_register_adapter("torch.broadcast_shapes")
def broadcast_shapes(*shapes):
    out = []
    for s in shapes:
        s = [s] if isinstance(s, int) else list(s)
        out = paddle.broadcast_shape(out, s) if out else s
    from .core import Size
    return Size(out)


@adapter("torch.broadcast_tensors")
def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = list(broadcast_shapes(*[t.shape for t in tensors]))
    return tuple(paddle.broadcast_to(t, shape) for t in tensors)


@adapter("torch.atleast_2d")
def atleast_2d(*tensors):
    def one(t):
        return t.reshape([1, 1]) if t.ndim == 0 else t.reshape([1, t.shape[0]]) \
            if t.ndim == 1 else t
    if len(tensors) == 1 and isinstance(tensors[0], paddle.Tensor):
        return one(tensors[0])
    ts = tensors[0] if len(tensors) == 1 else tensors
    return tuple(one(t) for t in ts)


@adapter("torch.fill")
def fill(input, value):
    if isinstance(value, paddle.Tensor):
        value = value.item()
    return _full(list(input.shape), value, input.dtype, input)


_register_adapter("torch.cummax")(lambda input, dim: _cum(input, dim, paddle.cummax, CummaxResult))


def _cum(input, dim, fn, cls):
    v, i = fn(input, axis=wrap_dim(dim, input.ndim))
    return cls(v, i.astype("int64"))


CumminResult = _return_type("cummin")
_register_adapter("torch.cummin")(lambda input, dim: _cum(input, dim, paddle.cummin, CumminResult))

# torch.return_types: the named tuples above, for annotations (-> torch.return_types.max)
from .registry import module as _module, type_ as _type  # noqa: E402

_module("torch.return_types")
for _cls in (MaxResult, MinResult, SortResult, TopkResult, KthResult, ModeResult, MedianResult,
             CummaxResult, CumminResult):
    _type(f"torch.return_types.{_cls.__name__}", _cls)
