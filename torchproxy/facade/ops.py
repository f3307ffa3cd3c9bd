"""torch.* functions: math, comparisons and matmul here; reductions in ops_reduce.py, shape and
indexing ops in ops_shape.py (imported at the end, so ``ops.<name>`` reaches every op).

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

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: _assert_async abs absolute acos add addcdiv addcmul addmm allclose asin atan atan2
        bitwise_and bitwise_left_shift bitwise_not bitwise_or bitwise_right_shift bitwise_xor bmm
        ceil clamp clamp_max clamp_min clip complex conj_physical cos cosh div divide einsum eq
        equal erf exp exp2 expm1 floor fmod ge gt isclose isfinite isinf isnan le lerp log log10
        log1p log2 logical_and logical_not logical_or logical_xor lt matmul maximum minimum mm mul
        multiply ne neg negative nonzero outer polar pow reciprocal relu remainder result_type
        round rsqrt sigmoid sign sin sinh sqrt square sub subtract tan tanh true_divide trunc where
    torch.Tensor: add add_ addcdiv addcdiv_ addcmul addcmul_ addmm addmm_ allclose bitwise_and
        bitwise_left_shift bitwise_left_shift_ bitwise_or bitwise_right_shift bitwise_right_shift_
        bitwise_xor bmm cdouble cfloat clamp clamp_ clamp_max clamp_max_ clamp_min clamp_min_ clip
        clip_ conj_physical conj_physical_ div div_ divide divide_ eq equal ge gt isclose isfinite
        isinf isnan le lerp lerp_ logical_and logical_and_ logical_or logical_or_ lt matmul maximum
        minimum mm mul mul_ multiply multiply_ ne nonzero outer pow pow_ remainder sub sub_
        subtract subtract_
""")

import builtins

import numpy as np

import paddle
import paddle.nn.functional as _PF

from .. import paddle_shims as _shims

from ._opbase import (_EMPTY_RESULT, _FLOATS, _INTS, _LEGACY_NAMES, _empty_like_dtype,
                      _float_input, _full, _name, _operands, _prod,
                      _same_dtype, _register_op, _write_out, opmath_function, broadcast_shape,
                      broadcast_sizes, kernel_empty, op, result_type, result_type_n)
from .creation import default_float
from ._accurate_sum import grad_broadcast
from .registry import tensor_method, torch_function
from . import dtypes as _dt
from ._opbase import wrap_dim  # noqa: F401 - re-exported: tensor_methods uses ops.wrap_dim


# -- unary math --------------------------------------------------------------------------------
def _unary(torch_name, paddle_fn, float_only):
    def fn(input, *, out=None):
        x = _float_input(input) if float_only else input
        if torch_name == "square" and _name(x.dtype) == "bool":
            x = x.astype("int64")  # torch squares a bool tensor as pow(x, 2): int64
        if x.size == 0:  # Paddle 2.6 kernels reject 0-size inputs
            dtype = _EMPTY_RESULT.get(torch_name, x.dtype)
            if torch_name == "abs":  # |complex| is real, as the kernel's result would be
                dtype = _dt._to_real(dtype)
            return _write_out(_empty_like_dtype(x, dtype), out)
        return _write_out(paddle_fn(x), out)
    fn.__name__ = torch_name
    fn.__qualname__ = torch_name
    return opmath_function(f"torch.{torch_name}")(fn)


_FLOAT_ONLY = {
    "exp": paddle.exp, "log": paddle.log, "log2": paddle.log2, "log10": paddle.log10,
    "log1p": paddle.log1p, "expm1": paddle.expm1, "sqrt": paddle.sqrt, "rsqrt": paddle.rsqrt,
    "sigmoid": paddle.nn.functional.sigmoid, "tanh": paddle.tanh, "sin": paddle.sin,
    "cos": paddle.cos, "tan": paddle.tan, "erf": paddle.erf, "reciprocal": paddle.reciprocal,
    "asin": paddle.asin, "acos": paddle.acos, "atan": paddle.atan, "sinh": paddle.sinh,
    "cosh": paddle.cosh, "exp2": lambda x: paddle.pow(_full([], 2.0, x.dtype, x), x),
}


def _integral_identity(torch_name, paddle_fn):
    """floor/ceil/trunc: torch returns a copy of an integer tensor (Paddle 2.6 has no integer
    floor/ceil kernels) and has no bool kernel."""
    def fn(x):
        n = _name(x.dtype)
        if n == "bool":
            raise NotImplementedError(f'"{torch_name}_vml_cpu" not implemented for \'Bool\'')
        return x.clone() if n in _INTS else paddle_fn(x)
    return fn


def _neg(x):
    if _name(x.dtype) == "bool":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you "
                           "are trying to invert a mask, use the `~` or `logical_not()` operator "
                           "instead.")
    return paddle.neg(x)


def _sign(x):
    return x.clone() if _name(x.dtype) == "bool" else paddle.sign(x)  # no bool kernel


def _float_test(paddle_fn, integral_value):
    """isnan/isinf/isfinite: integer and bool tensors are never NaN or infinite (Paddle lacks
    their bool kernels)."""
    def fn(x):
        if _name(x.dtype) in _INTS:
            return _full(list(x.shape), integral_value, paddle.bool, x)
        return paddle_fn(x)
    return fn


def _abs(x):
    if x.dtype == paddle.bool:
        raise NotImplementedError('"abs_cpu" not implemented for \'Bool\'')
    w = _shims.widen_for_kernel("abs", x)  # (int8/int16/uint8: no CPU kernel)
    return paddle.abs(x) if w is x else paddle.abs(w).astype(x.dtype)


def _relu(x):
    """torch.relu / Tensor.relu, and F.relu / nn.ReLU (nn._relu): Paddle's relu for floating
    dtypes (its gradient at 0 is torch's 0; paddle.maximum's tie gave 0.5 on Paddle 3.3), in
    float32 for CPU halves (no kernel); integers through maximum (float-only relu kernel, no
    gradient; int8/int16/uint8, which have no CPU maximum kernel, widened and cast back:
    exact)."""
    if x.dtype in (paddle.float32, paddle.float64):
        return _PF.relu(x)
    if x.dtype in (paddle.float16, paddle.bfloat16):
        if x.place.is_cpu_place():
            return _PF.relu(x.astype("float32")).astype(x.dtype)  # exact
        return _PF.relu(x)
    w = _shims.widen_for_kernel("maximum", x)
    r = paddle.maximum(w, _full([], 0, w.dtype, w))
    return r if w is x else r.astype(x.dtype)


_SAME_DTYPE = {
    "abs": _abs, "neg": _neg, "square": paddle.square, "sign": _sign,
    "floor": _integral_identity("floor", paddle.floor),
    "ceil": _integral_identity("ceil", paddle.ceil),
    "trunc": _integral_identity("trunc", paddle.trunc),
    "relu": lambda x: _relu(x),
}


UNARY = {}


for _n, _f in _FLOAT_ONLY.items():
    UNARY[_n] = _unary(_n, _f, True)


for _n, _f in _SAME_DTYPE.items():
    UNARY[_n] = _unary(_n, _f, False)


UNARY["negative"] = UNARY["neg"]


opmath_function("torch.negative")(UNARY["neg"])


UNARY["absolute"] = UNARY["abs"]


opmath_function("torch.absolute")(UNARY["abs"])


@opmath_function("torch.round")
def round(input, *, decimals=None, out=None):  # noqa: A001 - torch's name
    n = _name(input.dtype)
    if n in _INTS:
        # torch.round(int) copies; the decimals= overload (also torch.special.round) and bools
        # have no integer kernel
        if decimals is None and n != "bool":
            return _write_out(input.clone(), out)
        kernel = "round_cpu" if decimals else "round_vml_cpu"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_LEGACY_NAMES.get(n, n)}\'')
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


# Paddle has no bool maximum/minimum kernels: on bools they are logical or/and, as in torch
_BOOL_FORMS = {"maximum": paddle.logical_or, "minimum": paddle.logical_and}


def require_tensors(torch_name, n, input, other=None):
    """torch's argument parser: the first ``n`` operands of ``torch_name`` must be tensors
    (``torch.maximum(t, 2)`` and ``torch.eq(2, t)`` are TypeErrors, where the ops that have a
    Scalar overload accept a Python number)."""
    for pos, (arg, v) in enumerate((("input", input), ("other", other))[:n], 1):
        if not isinstance(v, paddle.Tensor):
            raise TypeError(f"{torch_name}(): argument '{arg}' (position {pos}) must be Tensor, "
                            f"not {type(v).__name__}")


# how many leading operands must be tensors (torch has no Scalar overload for them)
_TENSOR_OPERANDS = {"maximum": 2, "minimum": 2, "logical_and": 2, "logical_or": 2, "atan2": 2,
                    "logical_xor": 2, "eq": 1, "ne": 1, "lt": 1, "le": 1, "gt": 1, "ge": 1}


_INT_ONLY = ("bitwise_and", "bitwise_or", "bitwise_xor")  # torch has no floating kernels


def _broadcasting(paddle_fn, a, b):
    """``paddle_fn(a, b)``; shapes that do not broadcast raise torch's RuntimeError (Paddle's
    kernels raise ValueError)."""
    try:
        return paddle_fn(a, b)
    except ValueError:
        broadcast_sizes(a.shape, b.shape)
        raise


def _binary(torch_name, paddle_fn, result_float=False, method=False, inplace=False):
    bool_form = _BOOL_FORMS.get(torch_name)
    tensors = _TENSOR_OPERANDS.get(torch_name, 0)
    int_only = torch_name in _INT_ONLY
    # (mul: a broadcast operand's gradient is a sum, with torch's accuracy: _accurate_sum.py)
    reduces_grads = torch_name == "mul"

    def fn(input, other, *, out=None):
        if tensors:
            require_tensors(torch_name, tensors, input, other)
        a, b = _operands(input, other)
        if int_only and _name(a.dtype) not in _INTS:  # (Paddle's kernel error is a RuntimeError)
            n = _name(a.dtype)
            raise NotImplementedError(f'"{torch_name}_cpu" not implemented for '
                                      f"'{_LEGACY_NAMES.get(n, n)}'")
        if result_float:
            a, b = _float_input(a), _float_input(b)
        elif bool_form is not None and _name(a.dtype) == "bool":
            return _write_out(bool_form(a, b), out)
        if reduces_grads:
            a, b = grad_broadcast(a, b)
        return _write_out(_broadcasting(paddle_fn, a, b), out)
    fn.__name__ = torch_name
    return op(f"torch.{torch_name}", method=method, inplace=inplace)(fn)


BINARY = {}


# the binary ops below that are also Tensor methods, and those that also have the in-place
# form (x.logical_and_(y) writes the result into x, cast to x's dtype, as torch does)
_BINARY_METHODS = ("mul", "maximum", "minimum", "eq", "ne", "lt", "le", "gt", "ge", "remainder",
                   "logical_and", "logical_or")
_BINARY_INPLACE = ("mul", "logical_and", "logical_or")  # eq_, ge_...: ops_pointwise.py


for _n, _f in {"mul": paddle.multiply, "maximum": paddle.maximum, "minimum": paddle.minimum,
               "eq": lambda a, b: _shims.on_int64_if_unsigned(paddle.equal, a, b),
               "ne": lambda a, b: _shims.on_int64_if_unsigned(paddle.not_equal, a, b),
               "lt": paddle.less_than,
               "le": paddle.less_equal, "gt": paddle.greater_than,
               "ge": paddle.greater_equal, "remainder": _shims.remainder, "logical_and": paddle.logical_and,
               "logical_or": paddle.logical_or, "logical_xor": paddle.logical_xor,
               "bitwise_and": paddle.bitwise_and, "bitwise_or": paddle.bitwise_or,
               "bitwise_xor": paddle.bitwise_xor}.items():
    BINARY[_n] = _binary(_n, _f, method=_n in _BINARY_METHODS, inplace=_n in _BINARY_INPLACE)


BINARY["multiply"] = BINARY["mul"]


op("torch.multiply", method=True, inplace=True)(BINARY["mul"])


def _atan2(a, b):
    shape = paddle.broadcast_shape(list(a.shape), list(b.shape))  # Paddle 2.6 does not broadcast
    return paddle.atan2(paddle.broadcast_to(a, shape), paddle.broadcast_to(b, shape))


BINARY["atan2"] = _binary("atan2", _atan2, result_float=True)


BINARY["true_divide"] = _binary("true_divide", paddle.divide, result_float=True)


@opmath_function("torch.fmod")
def fmod(input, other, *, out=None):
    require_tensors("fmod", 1, input)
    a, b = _operands(input, other)
    return _write_out(a - paddle.trunc(a / b).astype(a.dtype) * b
                      if _name(a.dtype) in _FLOATS else paddle.sign(a) * paddle.remainder(
                          paddle.abs(a), paddle.abs(b)), out)


@op("torch.add", method=True, inplace=True)
def add(input, other, *, alpha=1, out=None):
    if alpha != 1:
        other = other * alpha
    a, b = _operands(input, other)
    if _name(a.dtype) == "bool":  # torch: True + True is True (Paddle 2.6: no bool add kernel)
        return _write_out(paddle.logical_or(a, b), out)
    a, b = grad_broadcast(a, b)  # a broadcast operand's gradient: _accurate_sum.py
    return _write_out(_broadcasting(paddle.add, a, b), out)


def _is_bool(v):
    return isinstance(v, bool) or isinstance(v, paddle.Tensor) and _name(v.dtype) == "bool"


@op("torch.sub", method=True, inplace=True)
def sub(input, other, *, alpha=1, out=None):
    if alpha != 1:
        other = other * alpha
    if _is_bool(input) or _is_bool(other):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    a, b = grad_broadcast(*_operands(input, other))  # broadcast gradients: _accurate_sum.py
    return _write_out(_broadcasting(paddle.subtract, a, b), out)


op("torch.subtract", method=True, inplace=True)(sub)


@op("torch.div", method=True, inplace=True)
def div(input, other, *, rounding_mode=None, out=None):
    a, b = _operands(input, other)
    if rounding_mode is None:
        a, b = grad_broadcast(_float_input(a), _float_input(b))  # (_accurate_sum.py)
        if _shims.DIVIDE_DOUBLE_GRAD_CRASHES and a.stop_gradient and \
                _scalar_pow_for_grad(b, -1):
            return _write_out(paddle.multiply(a, paddle.pow(b, -1.0)), out)
        return _write_out(_broadcasting(paddle.divide, a, b), out)
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


op("torch.divide", method=True, inplace=True)(div)


def _scalar_pow_for_grad(input, exponent) -> bool:
    """``x ** 2`` on a float tensor that records a graph: Paddle's scalar ``pow`` op, not the
    elementwise one.  Paddle's elementwise_pow has no higher-order gradient, so the graph of
    ``torch.autograd.grad(..., create_graph=True)`` through ``x ** 2`` (gradient penalties,
    Hessian-vector products) could not be differentiated again; scalar pow has pow_double_grad
    and pow_triple_grad on Paddle 2.6 and 3.x.  Only while recording: elementwise_pow's values
    are the nearer to torch's (scalar pow differs by 1 ulp more often), and only exponents a
    float32 holds exactly (Paddle keeps the scalar as a float attribute)."""
    return (type(exponent) in (int, float) and isinstance(input, paddle.Tensor)
            and not input.stop_gradient and _name(input.dtype) in ("float32", "float64")
            and float(np.float32(exponent)) == exponent and paddle.is_grad_enabled())


@op("torch.pow", method=True, inplace=True)
def pow(input, exponent, *, out=None):  # noqa: A001
    if _scalar_pow_for_grad(input, exponent):
        return _write_out(paddle.pow(input, float(exponent)), out)
    a, b = _operands(input, exponent)
    if (isinstance(exponent, int) and exponent < 0 and isinstance(input, paddle.Tensor)
            and _name(a.dtype) in _INTS):
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    r = paddle.pow(a, b)
    if _name(r.dtype) in _INTS and _name(r.dtype) != "bool" and bool((b < 0).any()):
        # torch's integer power with a negative exponent: 1 for base 1, +-1 for base -1, else 0
        # (Paddle 2.6 gives garbage there)
        shape = broadcast_shape(a, b)
        a, b, r = (paddle.broadcast_to(v, shape) for v in (a, b, r))
        one = paddle.ones_like(r)
        odd = paddle.remainder(b, paddle.full_like(b, 2)) != 0
        unit = paddle.where((a == -1) & odd, -one, one)
        neg = paddle.where((a == 1) | (a == -1), unit, paddle.zeros_like(r))
        r = paddle.where(b < 0, neg, r)
    return _write_out(r, out)


@opmath_function("torch.where")
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
    if a.dtype == paddle.bool:  # Paddle 2.6 has no bool where kernel
        r = paddle.where(condition.expand(shape), a.astype("int32").expand(shape),
                         b.astype("int32").expand(shape)).astype(a.dtype)
    else:
        r = paddle.where(condition.expand(shape), a.expand(shape), b.expand(shape))
    return _write_out(r, out)


@op("torch.clamp", method=True, inplace=True)
def clamp(input, min=None, max=None, *, out=None):  # noqa: A002
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    x = input
    if _name(result_type_n(x, *(v for v in (min, max) if v is not None))) == "bool":
        # torch: a bool clamp has kernels only for one tensor bound (logical or / and)
        tensors = isinstance(min, paddle.Tensor) or isinstance(max, paddle.Tensor)
        if min is not None and max is not None:
            kernel = "clamp_cpu" if tensors else "clamp_scalar_cpu"
        elif not tensors:
            kernel = "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu"
        else:
            kernel = None
        if kernel:
            raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')
    if isinstance(min, paddle.Tensor) or isinstance(max, paddle.Tensor):
        if builtins.any(isinstance(v, paddle.Tensor) and v.ndim > 0 for v in (min, max)) and \
                builtins.any(v is not None and not isinstance(v, paddle.Tensor) for v in (min, max)):
            # torch's overloads: (Tensor, Tensor? min, Tensor? max) or Scalars (a 0-d tensor
            # passes as a Scalar), never a dimensioned tensor beside a number
            raise TypeError("clamp() received an invalid combination of arguments - got a "
                            "Tensor bound and a number bound")
        def bound(v):  # a Python number beside a tensor bound: a 0-d tensor (same promotion)
            return v if isinstance(v, paddle.Tensor) else _full([], v, result_type(x, v), x)
        if min is not None:
            x = BINARY["maximum"](x, bound(min))
        if max is not None:
            x = BINARY["minimum"](x, bound(max))
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


clip = op("torch.clip", method=True, inplace=True)(clamp)


@op("torch.clamp_min", method=True, inplace=True)
def clamp_min(input, min, *, out=None):  # noqa: A002
    return clamp(input, min=min, out=out)


@op("torch.clamp_max", method=True, inplace=True)
def clamp_max(input, max, *, out=None):  # noqa: A002
    return clamp(input, max=max, out=out)


@op("torch.allclose", method=True)
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False) -> bool:
    """torch: a Python bool (Paddle: a bool Tensor)."""
    _same_dtype(input, other)
    a, b = _operands(input, other)
    if _name(a.dtype) in _INTS:  # Paddle 2.6 has float-only allclose kernels
        a, b = a.astype("float64"), b.astype("float64")
    # torch takes int tolerances (rtol=0); Paddle's kernel wants float ones
    return bool(paddle.allclose(a, b, rtol=float(rtol), atol=float(atol), equal_nan=equal_nan))


@opmath_function("torch.isclose")
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """torch's formula (aten TensorCompare.cpp), which broadcasts and takes every dtype:
    ``a == b | (isfinite(|a - b|) & |a - b| <= atol + |rtol * b|)``, bools as the default
    float, integer differences compared in the default float dtype."""
    _same_dtype(input, other)
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol}")
    shape = broadcast_shape(input, other)
    if _prod(shape) == 0:
        return kernel_empty(shape, paddle.bool, input.place)
    a, b = paddle.broadcast_to(input, shape), paddle.broadcast_to(other, shape)
    n = _name(a.dtype)
    if n.startswith("complex"):  # Paddle 2.6 has no complex equal/isnan kernels
        close = (paddle.equal(paddle.real(a), paddle.real(b))
                 & paddle.equal(paddle.imag(a), paddle.imag(b)))

        def nan(v):
            return paddle.isnan(paddle.real(v)) | paddle.isnan(paddle.imag(v))
    else:
        close, nan = paddle.equal(a, b), paddle.isnan
    inexact = n in _FLOATS or n.startswith("complex")
    if equal_nan and inexact:
        close = close | (nan(a) & nan(b))
    if rtol == 0 and atol == 0:
        return close
    if n == "bool":
        a, b = a.astype(default_float()), b.astype(default_float())
    scaled = b if inexact else b.astype(default_float())
    allowed = paddle.abs(scaled * float(rtol)) + float(atol)
    actual = paddle.abs(a - b)
    if actual.dtype != allowed.dtype:
        actual = actual.astype(allowed.dtype)
    return close | (paddle.isfinite(actual) & (actual <= allowed))


@op("torch.equal", method=True)
def equal(input, other) -> bool:
    """torch: True when shapes and all values are equal (paddle.equal is elementwise)."""
    if list(input.shape) != list(other.shape):
        return False
    if input.size == 0:
        return True
    a, b = _operands(input, other)
    return bool(_shims.on_int64_if_unsigned(paddle.equal_all, a, b))


for _n, _f in (("isnan", _float_test(paddle.isnan, False)),
               ("isinf", _float_test(paddle.isinf, False)),
               ("isfinite", _float_test(paddle.isfinite, True)),
               ("logical_not", paddle.logical_not), ("bitwise_not", paddle.bitwise_not)):
    UNARY[_n] = _unary(_n, _f, False)


for _n in ("isnan", "isinf", "isfinite"):  # Paddle's methods lack bool kernels
    tensor_method(_n)(UNARY[_n])
for _n in ("bitwise_and", "bitwise_or", "bitwise_xor"):  # scalars; Paddle 2.6's 0-size operands
    tensor_method(_n)(BINARY[_n])
tensor_method("isclose")(isclose)


def _legacy_name(dt):
    n = _name(dt)
    return _LEGACY_NAMES.get(n, n)


# -- matmul ------------------------------------------------------------------------------------
def _check_same_dtype(a, b, op):
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_cpp_name(a.dtype)} != {_cpp_name(b.dtype)}")


def _same_dtype_operands(second):
    """matmul's/mm's precheck: ``input`` and ``second`` (positional or keyword) of one dtype."""
    def precheck(*args, **kwargs):
        a = args[0] if args else kwargs.get("input")
        b = args[1] if len(args) > 1 else kwargs.get(second)
        if isinstance(a, paddle.Tensor) and isinstance(b, paddle.Tensor):
            _check_same_dtype(a, b, None)
    return precheck


def _cpp_name(dt):
    n = _name(dt)
    return _dt.CPP_NAMES.get(n, n)


@opmath_function("torch.matmul", precheck=_same_dtype_operands("other"))
def matmul(input, other, *, out=None):
    if input.ndim == 0 or other.ndim == 0:
        raise RuntimeError("both arguments to matmul need to be at least 1D, but they are "
                           f"{input.ndim}D and {other.ndim}D")
    k1, k2 = input.shape[-1], other.shape[-2 if other.ndim > 1 else 0]
    if k1 != k2:  # torch's RuntimeError (Paddle: ValueError)
        if input.ndim == 1 and other.ndim == 1:
            raise RuntimeError(f"inconsistent tensor size, expected tensor [{k1}] and src [{k2}] "
                               f"to have the same number of elements, but got {k1} and {k2} "
                               "elements respectively")
        rows = _prod(input.shape[:-1]) if input.ndim > 1 else 1
        cols = other.shape[-1] if other.ndim > 1 else 1
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({rows}x{k1} and "
                           f"{k2}x{cols})")
    return _write_out(paddle.matmul(input, other), out)


tensor_method("matmul")(matmul)  # torch's dtype/shape errors; Paddle 2.6's 0-size operands


@opmath_function("torch.mm", precheck=_same_dtype_operands("mat2"))
def mm(input, mat2, *, out=None):
    if input.ndim != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.ndim != 2:
        raise RuntimeError("mat2 must be a matrix")
    if input.shape[1] != mat2.shape[0]:
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied ({input.shape[0]}x"
                           f"{input.shape[1]} and {mat2.shape[0]}x{mat2.shape[1]})")
    return _write_out(paddle.matmul(input, mat2), out)


tensor_method("mm")(mm)  # one function: torch.autocast casts Tensor.mm as torch.mm


@op("torch.bmm", method=True)  # (Tensor.bmm: Paddle's has no int64 CPU kernel)
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


def _expandable(t, target):
    """torch's expand check (``input`` of addmm must expand to the product's shape)."""
    shape = list(t.shape)
    if len(shape) > len(target):
        raise RuntimeError(f"The expanded size of the tensor ({target[0] if target else 0}) "
                           f"must match the existing size ({shape[0]}) at non-singleton dimension "
                           f"0.  Target sizes: {target}.  Tensor sizes: {shape}")
    lead = len(target) - len(shape)
    for i, d in enumerate(shape):
        if d != 1 and d != target[lead + i]:
            raise RuntimeError(f"The expanded size of the tensor ({target[lead + i]}) must match "
                               f"the existing size ({d}) at non-singleton dimension {lead + i}."
                               f"  Target sizes: {target}.  Tensor sizes: {shape}")


@op("torch.addmm", method=True, inplace=True)  # (Paddle's addmm_ has no int64 CPU kernel)
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    prod_ = mm(mat1, mat2)
    _expandable(input, list(prod_.shape))
    r = prod_ * alpha if alpha != 1 else prod_
    if beta != 0:
        r = r + (input * beta if beta != 1 else input)
    return _write_out(r, out)


# -- pointwise ops of three operands (registered with registry.op directly: they compute CPU
#    halves in float32 themselves, as torch's opmath does, since _opmath would round a
#    bfloat16 + float16 mix to one of them where torch gives float32) --------------------------
_TYPE_META = {"float32": "float", "float64": "double", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "int64": "long int", "int32": "int",
              "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
              "bool": "bool", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _pointwise_dtype(*operands, op):
    """(result dtype, compute dtype) of torch's pointwise op over ``operands``."""
    dt = result_type_n(*operands)
    broadcast_shape(*operands)
    if _name(dt) == "bool":
        raise NotImplementedError(f'"{op}" not implemented for \'Bool\'')
    return dt, (_dt.DTYPES["float32"] if _name(dt) in ("float16", "bfloat16") else dt)


def _as(v, dt):
    return v if v.dtype == dt else v.astype(dt)


def _scalar_value(value, dt, like):
    """torch casts the Scalar ``value`` to the op's dtype (an int op truncates 2.7 to 2)."""
    if _name(dt) in _INTS:
        value = int(value)
    return _full([], value, dt, like)


def _addc(input, tensor1, tensor2, value, combine, op):
    """addcmul/addcdiv: ``input + value * combine(tensor1, tensor2)`` in the operands' computation
    dtype, cast back to their result dtype (torch's pointwise promotion)."""
    dt, cd = _pointwise_dtype(input, tensor1, tensor2, op=op)
    a, t1, t2 = _as(input, cd), _as(tensor1, cd), _as(tensor2, cd)
    term = combine(t1, t2)
    if value != 1:
        term = paddle.multiply(term, _scalar_value(value, cd, a))
    return _as(paddle.add(a, term), dt)


@_register_op("torch.addcmul", method=True, inplace=True, out=True)
def addcmul(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 * tensor2`` with torch's promotion and broadcasting."""
    return _addc(input, tensor1, tensor2, value, paddle.multiply, "addcmul_cpu_out")


@_register_op("torch.addcdiv", method=True, inplace=True, out=True)
def addcdiv(input, tensor1, tensor2, *, value=1):
    """``input + value * tensor1 / tensor2``; integer tensor1 and tensor2 are refused as in
    torch."""
    if _name(tensor1.dtype) in _INTS and _name(tensor2.dtype) in _INTS:
        raise RuntimeError(
            "Integer division with addcdiv is no longer supported, and in a future  release "
            "addcdiv will perform a true division of tensor1 and tensor2. The historic addcdiv "
            "behavior can be implemented as (input + value * torch.trunc(tensor1 / tensor2))."
            "to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) for "
            "float inputs. The future addcdiv behavior is just the latter implementation: "
            "(input + value * tensor1 / tensor2), for all dtypes.")
    return _addc(input, tensor1, tensor2, value, paddle.divide, "addcdiv_cpu_out")


@_register_op("torch.lerp", method=True, inplace=True, out=True)
def lerp(input, end, weight):
    """``input + weight * (end - input)``, computed as torch does (from ``end`` for weights
    >= 0.5, so weight 1 gives exactly ``end``); input, end and a dimensioned weight tensor
    must share one float dtype."""
    def _expect(t, what):
        if t.dtype != input.dtype:
            raise RuntimeError(f"expected dtype {_TYPE_META.get(_name(input.dtype))} for `{what}` "
                               f"but got dtype {_TYPE_META.get(_name(t.dtype))}")
    _expect(end, "end")
    broadcast_shape(input, end, weight)
    w_tensor = isinstance(weight, paddle.Tensor)
    if w_tensor and weight.ndim > 0:
        _expect(weight, "weight")
    n = _name(input.dtype)
    if n not in _FLOATS and not n.startswith("complex"):
        kernel = "lerp_kernel_tensor" if w_tensor else "lerp_kernel_scalar"
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_LEGACY_NAMES.get(n, n)}'")
    cd = _dt.DTYPES["float32"] if n in ("float16", "bfloat16") else input.dtype
    start, stop = _as(input, cd), _as(end, cd)
    w = _as(weight, cd) if w_tensor else _full([], weight, cd, start)
    diff = paddle.subtract(stop, start)
    one = _full([], 1, cd, start)
    low = paddle.add(start, paddle.multiply(w, diff))
    high = paddle.subtract(stop, paddle.multiply(diff, paddle.subtract(one, w)))
    if n.startswith("complex"):
        r = low
    else:  # Paddle 2.6's where does not broadcast
        r = paddle.where(paddle.broadcast_to(paddle.abs(w) < 0.5, low.shape), low, high)
    return _as(r, input.dtype)


@op("torch.outer", method=True)
def outer(input, vec2):
    for arg, t in (("self", input), ("vec2", vec2)):
        if t.ndim != 1:  # paddle.outer flattens
            raise RuntimeError(f"outer: Expected 1-D argument {arg}, but got {t.ndim}-D")
    if _name(input.dtype) == "bool" and _name(vec2.dtype) == "bool":  # Paddle: no bool matmul
        return paddle.logical_and(input.reshape([-1, 1]), vec2.reshape([1, -1]))
    # torch promotes mixed dtypes (int64 x float32 -> float32: transformers' Pixtral rotary
    # embedding); Paddle's multiply refuses an integer with a float or two integer widths
    dt = result_type(input, vec2)
    return paddle.outer(_as(input, dt), _as(vec2, dt))


def _einsum_sum_ellipsis(equation, operands):
    """torch sums the ellipsis dimensions an explicit output leaves out ('...ik,...j->ij');
    Paddle refuses that: spell the ellipsis dimensions out as unused labels."""
    eq = equation.replace(" ", "")
    if "->" not in eq or "..." not in eq.split("->")[0] or "..." in eq.split("->")[1]:
        return equation
    lhs, rhs = eq.split("->")
    terms = lhs.split(",")
    if len(terms) != len(operands):
        return equation
    free = [c for c in "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ" if c not in eq]
    counts = [t.ndim - len(s.replace("...", "")) for s, t in zip(terms, operands)]
    if builtins.max(counts) > len(free) or builtins.min(counts) < 0:
        return equation
    E = builtins.max(counts)
    labels = free[:E]
    terms = [s.replace("...", "".join(labels[E - k:])) for s, k in zip(terms, counts)]
    return ",".join(terms) + "->" + rhs


@opmath_function("torch.einsum")
def einsum(equation, *operands):
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    for t in operands[1:]:
        if t.dtype != operands[0].dtype:  # (Paddle fails in its kernel with a ValueError)
            raise RuntimeError(f"expected scalar type {_legacy_name(operands[0].dtype)} but "
                               f"found {_legacy_name(t.dtype)}")
    eq = _einsum_sum_ellipsis(equation, operands)
    if operands and builtins.all(_name(t.dtype) in ("int64", "int32", "int16", "int8", "uint8")
                                 for t in operands):
        # Paddle has no integer einsum kernel on the CPU: float64 is exact while every partial
        # sum stays below 2**53 (bounded by the product of the operands' largest magnitudes
        # times the number of terms); beyond that, a clear error instead of rounded integers
        bound = 1.0
        for t in operands:
            bound *= float(paddle.abs(t.astype("float64")).max()) if t.size else 0.0
            bound *= builtins.max(1, t.size)
        if bound >= 2.0 ** 53:
            raise NotImplementedError("torch.einsum on integer tensors: Paddle has no integer "
                                      "einsum kernel and these values are too large to sum "
                                      "exactly in float64")
        dt = operands[0].dtype
        return paddle.einsum(eq, *[t.astype("float64") for t in operands]).round().astype(dt)
    return paddle.einsum(eq, *operands)


@op("torch.nonzero", method=True)
def nonzero(input, *, as_tuple=False):
    if as_tuple:
        return where(input)
    if input.ndim == 0:  # torch: one row of zero coordinates when the scalar is nonzero
        return paddle.zeros([1 if bool(input != 0) else 0, 0], dtype="int64")
    return paddle.nonzero(input).astype("int64")


@torch_function("torch._assert_async")
def _assert_async(cond, msg="Expected Tensor with single nonzero value, but got zero"):
    """torch checks on the device without a sync; here it is checked at once (a sync)."""
    if cond.size != 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    if not bool(cond):
        raise RuntimeError(msg)


@torch_function("torch.result_type")
def result_type_(tensor, other):
    """torch.result_type(tensor, other): the dtype an op of the two would compute in."""
    return result_type(tensor, other)


@opmath_function("torch.complex")
def complex(real, imag, *, out=None):  # noqa: A001
    for pos, (arg, v) in enumerate((("real", real), ("imag", imag)), 1):
        if not isinstance(v, paddle.Tensor):
            raise TypeError(f"complex(): argument '{arg}' (position {pos}) must be Tensor, "
                            f"not {type(v).__name__}")
    if real.dtype != imag.dtype:
        raise RuntimeError(f"Expected object of scalar type {_LEGACY_NAMES.get(_name(real.dtype))}"
                           f" but got scalar type {_LEGACY_NAMES.get(_name(imag.dtype))} for "
                           "second argument")
    if _name(real.dtype) not in ("float32", "float64"):
        raise RuntimeError(f"Expected both inputs to be Half, Float or Double tensors but got "
                           f"{_LEGACY_NAMES.get(_name(real.dtype))} and "
                           f"{_LEGACY_NAMES.get(_name(imag.dtype))}")
    if out is not None:  # torch refuses an out= of the other complex width
        want = "complex128" if _name(real.dtype) == "float64" else "complex64"
        if _name(out.dtype) != want:
            legacy = {"complex64": "ComplexFloat", "complex128": "ComplexDouble"}
            raise RuntimeError(f"Expected object of scalar type {legacy[want]} but got scalar "
                               f"type {legacy.get(_name(out.dtype), _legacy_name(out.dtype))} "
                               "for argument 'out'")
    return _write_out(paddle.complex(real, imag), out)


@op("torch.polar", out=True)
def polar(abs, angle):  # noqa: A002 - torch's argument names
    """``abs * (cos(angle) + i sin(angle))`` with torch.complex's dtype checks."""
    if abs.dtype == angle.dtype and _name(abs.dtype) in ("float32", "float64"):
        broadcast_shape(abs, angle)
        return complex(paddle.multiply(abs, paddle.cos(angle)),
                       paddle.multiply(abs, paddle.sin(angle)))
    return complex(abs, angle)  # raises torch's error for the dtypes


def _conj_physical_(self):
    if _name(self.dtype).startswith("complex"):
        paddle.assign(paddle.conj(self), output=self)
    return self


@op("torch.conj_physical", method=True, inplace=_conj_physical_, out=True)
def conj_physical(input):
    """The conjugate, materialized; a real tensor is returned as it is (torch returns self)."""
    return paddle.conj(input) if _name(input.dtype).startswith("complex") else input


def _complex_caster(name, dtype, part):
    def cast(self, memory_format=None):
        """torch's ``x.{name}()``: self when it already has the dtype, else a complex copy."""
        if _name(self.dtype) == dtype:
            return self
        if _name(self.dtype).startswith("complex"):
            return self.astype(dtype)
        real = self.astype(part)
        return paddle.complex(real, paddle.zeros_like(real))
    cast.__name__ = cast.__qualname__ = name
    cast.__doc__ = cast.__doc__.format(name=name)
    tensor_method(name)(cast)


_complex_caster("cfloat", "complex64", "float32")
_complex_caster("cdouble", "complex128", "float64")


# -- bit shifts (torch's CPU kernels: shifts past the width, or negative ones, give 0 on the left
#    and the sign fill on the right; computed with exact int64 arithmetic on 2.6 and 3.x) --------
_BITS = {"uint8": 8, "int8": 8, "int16": 16, "int32": 32, "int64": 64}
# 2**k as a wrapped int64 (2**63 is the sign bit)
_POW2 = [(1 << k) - (1 << 64) if k == 63 else 1 << k for k in range(64)]


def _pow2(k, like):
    table = paddle.to_tensor(_POW2, dtype="int64", place=like.place)
    return paddle.gather(table, k.reshape([-1])).reshape(k.shape)


def _shift(kernel, left):
    def fn(input, other, *, out=None):
        dt = result_type(input, other)
        n = _name(dt)
        if n not in _BITS:
            raise NotImplementedError(f'"{kernel}" not implemented for '
                                      f"'{_LEGACY_NAMES.get(n, n)}'")
        a, b = _operands(input, other)
        shape = broadcast_shape(a, b)
        if _prod(shape) == 0:
            return _write_out(kernel_empty(shape, dt, a.place), out)
        a = paddle.broadcast_to(a.astype("int64"), shape)
        s = paddle.broadcast_to(b.astype("int64"), shape)
        bits = _BITS[n]
        if left:
            valid = (s >= 0) & (s < bits)
            k = paddle.where(valid, s, paddle.zeros_like(s))
            r = paddle.where(valid, paddle.multiply(a, _pow2(k, a)), paddle.zeros_like(a))
        else:
            top = bits - (0 if n == "uint8" else 1)
            top_t = _full(shape, top, paddle.int64, a)
            k = paddle.where((s < 0) | (s >= top), top_t, s)
            k1 = paddle.minimum(k, _full([], 32, paddle.int64, a))  # 2**63 is no positive int64
            r = paddle.floor_divide(paddle.floor_divide(a, _pow2(k1, a)), _pow2(k - k1, a))
        return _write_out(r.astype(dt) if n != "int64" else r, out)
    return fn


bitwise_left_shift = op("torch.bitwise_left_shift", method=True, inplace=True)(
    _shift("lshift_cpu", left=True))
bitwise_right_shift = op("torch.bitwise_right_shift", method=True, inplace=True)(
    _shift("rshift_cpu", left=False))
