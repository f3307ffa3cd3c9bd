"""More torch.* functions and Tensor methods from torch's OpInfo database (issue 11, breadth):
the arc* aliases, special unary math (lgamma, digamma, erfc, sinc, logit...), binary math
(xlogy, hypot, logaddexp, copysign, gcd, ldexp, float_power...), small linear algebra (dot,
vdot, inner, addr, addmv, addbmm, baddbmm, trace), stacking/splitting (vstack, tensor_split,
rot90...), reductions (var_mean, aminmax, nansum, kthvalue, mode...), and the Tensor methods /
in-place forms of the existing unary and comparison ops with torch's promotion (an int or bool
tensor's ``x.acos()`` is computed in the default float dtype, as torch does; ``x.acos_()`` on an
int tensor is torch's "result type Float can't be cast" error).

Everything is written against Paddle's public API on 2.6.2 and 3.3.1 alike (where 2.6 lacks a
function, it is composed from what both have)."""
from __future__ import annotations

import builtins
import math

import paddle

from .. import paddle_shims as _shims
from . import dtypes as _dt
from . import ops as _ops
from . import ops_reduce as _red
from . import ops_shape as _shape
from ._opbase import (_FLOATS, _INTS, _float_input, _full, _name, _operands, _register_op,
                      _write_out, opmath_function, check_cast, make_inplace, op, result_type,
                      wrap_dim, _LEGACY_NAMES, _return_type, OutRule)
from .creation import default_float, require_strided
from .registry import TENSOR_TABLE, tensor_method

NAMES = (
    "torch.Tensor.absolute", "torch.Tensor.absolute_", "torch.Tensor.acos", "torch.Tensor.acos_",
    "torch.Tensor.acosh", "torch.Tensor.acosh_", "torch.Tensor.addbmm", "torch.Tensor.addbmm_",
    "torch.Tensor.addmv", "torch.Tensor.addmv_", "torch.Tensor.addr", "torch.Tensor.addr_",
    "torch.Tensor.aminmax", "torch.Tensor.angle", "torch.angle", "torch.Tensor.vsplit", "torch.Tensor.hsplit", "torch.Tensor.dsplit", "torch.Tensor.arccos", "torch.Tensor.arccos_",
    "torch.Tensor.arccosh", "torch.Tensor.arccosh_", "torch.Tensor.arcsin",
    "torch.Tensor.arcsin_", "torch.Tensor.arcsinh", "torch.Tensor.arcsinh_",
    "torch.Tensor.arctan", "torch.Tensor.arctan2", "torch.Tensor.arctan2_",
    "torch.Tensor.arctan_", "torch.Tensor.arctanh", "torch.Tensor.arctanh_", "torch.Tensor.asin",
    "torch.Tensor.asin_", "torch.Tensor.asinh", "torch.Tensor.asinh_", "torch.Tensor.atan",
    "torch.Tensor.atan2", "torch.Tensor.atan2_", "torch.Tensor.atan_", "torch.Tensor.atanh",
    "torch.Tensor.atanh_", "torch.Tensor.baddbmm", "torch.Tensor.baddbmm_", "torch.Tensor.ceil",
    "torch.Tensor.ceil_", "torch.Tensor.copysign", "torch.Tensor.copysign_", "torch.Tensor.cos",
    "torch.Tensor.cos_", "torch.Tensor.cosh", "torch.Tensor.cosh_", "torch.Tensor.deg2rad",
    "torch.Tensor.deg2rad_", "torch.Tensor.diff", "torch.Tensor.digamma",
    "torch.Tensor.digamma_", "torch.Tensor.dot", "torch.Tensor.eq_", "torch.Tensor.erf",
    "torch.Tensor.erf_", "torch.Tensor.erfc", "torch.Tensor.erfc_", "torch.Tensor.erfinv",
    "torch.Tensor.erfinv_", "torch.Tensor.exp", "torch.Tensor.exp2", "torch.Tensor.exp2_",
    "torch.Tensor.exp_", "torch.Tensor.expm1", "torch.Tensor.expm1_", "torch.Tensor.fix",
    "torch.Tensor.fix_", "torch.Tensor.fliplr", "torch.Tensor.flipud",
    "torch.Tensor.float_power", "torch.Tensor.float_power_", "torch.Tensor.floor",
    "torch.Tensor.floor_", "torch.Tensor.floor_divide", "torch.Tensor.floor_divide_",
    "torch.Tensor.fmax", "torch.Tensor.fmin", "torch.Tensor.fmod", "torch.Tensor.fmod_",
    "torch.Tensor.frac", "torch.Tensor.frac_", "torch.Tensor.gcd", "torch.Tensor.gcd_",
    "torch.Tensor.ge_", "torch.Tensor.ger", "torch.Tensor.greater", "torch.Tensor.greater_",
    "torch.Tensor.greater_equal", "torch.Tensor.greater_equal_", "torch.Tensor.gt_",
    "torch.Tensor.heaviside", "torch.Tensor.heaviside_", "torch.Tensor.hypot",
    "torch.Tensor.hypot_", "torch.Tensor.i0", "torch.Tensor.i0_", "torch.Tensor.inner",
    "torch.Tensor.kron", "torch.Tensor.kthvalue", "torch.Tensor.lcm", "torch.Tensor.lcm_",
    "torch.Tensor.ldexp", "torch.Tensor.ldexp_", "torch.Tensor.le_", "torch.Tensor.less",
    "torch.Tensor.less_", "torch.Tensor.less_equal", "torch.Tensor.less_equal_",
    "torch.Tensor.lgamma", "torch.Tensor.lgamma_", "torch.Tensor.log", "torch.Tensor.log10",
    "torch.Tensor.log10_", "torch.Tensor.log1p", "torch.Tensor.log1p_", "torch.Tensor.log2",
    "torch.Tensor.log2_", "torch.Tensor.log_", "torch.Tensor.logaddexp",
    "torch.Tensor.logaddexp2", "torch.Tensor.logcumsumexp", "torch.Tensor.logical_not",
    "torch.Tensor.logical_not_", "torch.Tensor.logical_xor", "torch.Tensor.logical_xor_",
    "torch.Tensor.logit", "torch.Tensor.logit_", "torch.Tensor.lt_", "torch.Tensor.movedim",
    "torch.Tensor.moveaxis", "torch.Tensor.msort", "torch.Tensor.mv", "torch.Tensor.mvlgamma",
    "torch.Tensor.mvlgamma_", "torch.Tensor.nan_to_num", "torch.Tensor.nan_to_num_",
    "torch.Tensor.nanmean", "torch.Tensor.nansum", "torch.Tensor.ne_", "torch.Tensor.neg",
    "torch.Tensor.neg_", "torch.Tensor.negative", "torch.Tensor.negative_",
    "torch.Tensor.nextafter", "torch.Tensor.nextafter_", "torch.Tensor.not_equal",
    "torch.Tensor.not_equal_", "torch.Tensor.polygamma", "torch.Tensor.polygamma_",
    "torch.Tensor.positive", "torch.Tensor.rad2deg", "torch.Tensor.rad2deg_",
    "torch.Tensor.ravel", "torch.Tensor.reciprocal", "torch.Tensor.reciprocal_", "torch.Tensor.relu", "torch.Tensor.relu_",
    "torch.Tensor.remainder_", "torch.Tensor.rot90",
    "torch.Tensor.round", "torch.Tensor.round_", "torch.Tensor.rsqrt", "torch.Tensor.rsqrt_",
    "torch.Tensor.select", "torch.Tensor.sgn", "torch.Tensor.sgn_", "torch.Tensor.sigmoid",
    "torch.Tensor.sigmoid_", "torch.Tensor.sign", "torch.Tensor.sign_", "torch.Tensor.signbit",
    "torch.Tensor.sin", "torch.Tensor.sin_", "torch.Tensor.sinc", "torch.Tensor.sinc_",
    "torch.Tensor.sinh", "torch.Tensor.sinh_", "torch.Tensor.sqrt", "torch.Tensor.sqrt_",
    "torch.Tensor.square", "torch.Tensor.square_", "torch.Tensor.std_mean",
    "torch.Tensor.sum_to_size", "torch.Tensor.swapdims", "torch.Tensor.t", "torch.Tensor.t_",
    "torch.Tensor.tan", "torch.Tensor.tan_", "torch.Tensor.tanh", "torch.Tensor.tanh_",
    "torch.Tensor.tensor_split", "torch.Tensor.trace", "torch.Tensor.true_divide",
    "torch.Tensor.true_divide_", "torch.Tensor.trunc", "torch.Tensor.trunc_",
    "torch.Tensor.var_mean", "torch.Tensor.vdot", "torch.Tensor.xlogy", "torch.Tensor.xlogy_",
    "torch.acosh", "torch.addbmm", "torch.addmv", "torch.addr", "torch.aminmax", "torch.arccos",
    "torch.arccosh", "torch.arcsin", "torch.arcsinh", "torch.arctan", "torch.arctan2",
    "torch.arctanh", "torch.asinh", "torch.atanh", "torch.atleast_1d", "torch.atleast_3d",
    "torch.baddbmm", "torch.channels_last", "torch.channels_last_3d", "torch.column_stack",
    "torch.copysign", "torch.deg2rad", "torch.diff", "torch.digamma", "torch.dot",
    "torch.dsplit", "torch.dstack", "torch.erfc", "torch.erfinv", "torch.fix", "torch.fliplr",
    "torch.flipud", "torch.float_power", "torch.floor_divide", "torch.fmax", "torch.fmin",
    "torch.frac", "torch.gcd", "torch.ger", "torch.greater", "torch.greater_equal",
    "torch.heaviside", "torch.hsplit", "torch.hstack", "torch.hypot", "torch.i0", "torch.inner",
    "torch.kron", "torch.kthvalue", "torch.lcm", "torch.ldexp", "torch.less", "torch.less_equal",
    "torch.lgamma", "torch.logaddexp", "torch.logaddexp2", "torch.logcumsumexp", "torch.logit",
    "torch.logspace", "torch.msort", "torch.mv", "torch.mvlgamma", "torch.nan_to_num",
    "torch.nanmean", "torch.nansum", "torch.nextafter", "torch.not_equal", "torch.polygamma",
    "torch.positive", "torch.rad2deg", "torch.ravel", "torch.rot90", "torch.row_stack",
    "torch.rsub", "torch.select", "torch.sgn", "torch.signbit", "torch.sinc", "torch.std_mean",
    "torch.swapdims", "torch.t", "torch.tensor_split", "torch.trace", "torch.var_mean",
    # batch 2
    "torch.diagonal_copy", "torch.permute_copy", "torch.transpose_copy", "torch.squeeze_copy",
    "torch.unsqueeze_copy", "torch.alias_copy", "torch.split_with_sizes_copy",
    "torch.scatter_reduce",
    "torch.Tensor.scatter_reduce",
    "torch.Tensor.scatter_reduce_",
    "torch.index_reduce",
    "torch.Tensor.index_reduce",
    "torch.Tensor.index_reduce_",
    "torch.index_copy",
    "torch.Tensor.index_copy",
    "torch.Tensor.index_copy_",
    "torch.index_fill",
    "torch.Tensor.index_fill",
    "torch.Tensor.index_fill_",
    "torch.take",
    "torch.Tensor.take",
    "torch.take_along_dim",
    "torch.Tensor.take_along_dim",
    "torch.masked_select",
    "torch.Tensor.masked_select",
    "torch.slice_scatter",
    "torch.Tensor.slice_scatter",
    "torch.select_scatter",
    "torch.Tensor.select_scatter",
    "torch.diagonal_scatter",
    "torch.Tensor.diagonal_scatter",
    "torch.expand_copy",
    "torch.t_copy",
    "torch.unbind_copy",
    "torch.narrow_copy",
    "torch.Tensor.narrow_copy",
    "torch.unflatten",
    "torch.Tensor.unflatten",
    "torch.meshgrid",
    "torch.cartesian_prod",
    "torch.combinations",
    "torch.block_diag",
    "torch.tril_indices",
    "torch.triu_indices",
    "torch.scalar_tensor",
    "torch.argwhere",
    "torch.Tensor.argwhere",
    "torch.resolve_neg",
    "torch.Tensor.resolve_neg",
    "torch.resolve_conj",
    "torch.Tensor.resolve_conj",
    "torch.conj",
    "torch.Tensor.conj",
    "torch.real",
    "torch.imag",
    "torch.isreal",
    "torch.Tensor.isreal",
    "torch.frexp",
    "torch.Tensor.frexp",
    "torch.isin",
    "torch.bucketize",
    "torch.searchsorted",
    "torch.bincount",
    "torch.Tensor.bincount",
    "torch.histc",
    "torch.Tensor.histc",
    "torch.cdist",
    "torch.dist",
    "torch.Tensor.dist",
    "torch.renorm",
    "torch.Tensor.renorm",
    "torch.Tensor.renorm_",
    "torch.cov",
    "torch.Tensor.cov",
    "torch.corrcoef",
    "torch.Tensor.corrcoef",
    "torch.trapezoid",
    "torch.trapz",
    "torch.cumulative_trapezoid",
    "torch.tensordot",
    "torch.diag",
    "torch.Tensor.diag",
    "torch.diag_embed",
    "torch.Tensor.diag_embed",
    "torch.diagflat",
    "torch.Tensor.diagflat",
    "torch.split_with_sizes",
    "torch.Tensor.split_with_sizes",
    "torch.unsafe_split",
    "torch.Tensor.unsafe_split",
    "torch.Tensor.new_empty_strided",
    "torch.vdot", "torch.vsplit", "torch.vstack", "torch.xlogy",
)

_DEFAULT_INT = _dt.DTYPES["int64"]


def _is_float(x):
    return _name(x.dtype) in _FLOATS


def _is_complex(x):
    return _name(x.dtype).startswith("complex")


def _f(x):
    """The float operand of float-only math (ints/bools -> the default float)."""
    return _float_input(x) if isinstance(x, paddle.Tensor) else x


def _legacy(dt):
    n = _name(dt)
    return _LEGACY_NAMES.get(n, n)


# -- Tensor methods / in-place forms of the existing ops ---------------------------------------
def _method(name, fn, inplace=True):
    """Tensor.<name> (and <name>_) as ``fn`` with torch's promotion, unless already declared."""
    if f"torch.Tensor.{name}" not in TENSOR_TABLE:
        tensor_method(name)(fn)
    if inplace and f"torch.Tensor.{name}_" not in TENSOR_TABLE:
        tensor_method(f"{name}_")(make_inplace(f"{name}_", fn))


for _n in ("exp", "log", "log2", "log10", "log1p", "expm1", "sqrt", "rsqrt", "sigmoid", "tanh",
           "sin", "cos", "tan", "erf", "reciprocal", "asin", "acos", "atan", "sinh", "cosh",
           "exp2", "neg", "negative", "sign", "floor", "ceil", "trunc"):
    _method(_n, _ops.UNARY[_n])
_method("absolute", _ops.UNARY["abs"])
_method("relu", _ops.UNARY["relu"])  # torch.Tensor.relu / relu_ (Paddle's Tensor has none)


def _square(input, *, out=None):
    # torch squares a bool tensor as pow(x, 2): the result is int64
    return _ops.UNARY["square"](input.astype("int64") if _name(input.dtype) == "bool" else input,
                                out=out)


_method("square", _square)
_method("round", _ops.round)
_method("logical_not", _ops.UNARY["logical_not"])
for _n in ("eq", "ne", "lt", "le", "gt", "ge", "remainder"):
    _method(_n, _ops.BINARY[_n])
_method("logical_xor", _ops.BINARY["logical_xor"])
_method("atan2", _ops.BINARY["atan2"])
_method("true_divide", _ops.BINARY["true_divide"])
_method("fmod", _ops.fmod)
_method("movedim", _shape.movedim, inplace=False)
_method("moveaxis", _shape.movedim, inplace=False)

for _alias, _target in (("arccos", "acos"), ("arcsin", "asin"), ("arctan", "atan")):
    opmath_function(f"torch.{_alias}")(_ops.UNARY[_target])
    _method(_alias, _ops.UNARY[_target])
opmath_function("torch.arctan2")(_ops.BINARY["atan2"])
_method("arctan2", _ops.BINARY["atan2"])
for _alias, _target in (("not_equal", "ne"), ("less", "lt"), ("less_equal", "le"),
                        ("greater", "gt"), ("greater_equal", "ge")):
    opmath_function(f"torch.{_alias}")(_ops.BINARY[_target])
    _method(_alias, _ops.BINARY[_target])


# -- unary math --------------------------------------------------------------------------------
def _unary_float(torch_name, compute, aliases=()):
    """A float-only unary op: ints/bools -> the default float; out=; method; in-place."""
    def fn(input, *, out=None):
        x = _f(input)
        if x.size == 0:
            return _write_out(x.clone(), out)
        return _write_out(compute(x), out)
    fn.__name__ = fn.__qualname__ = torch_name
    fn = op(f"torch.{torch_name}", method=True, inplace=True)(fn)
    for a in aliases:
        opmath_function(f"torch.{a}")(fn)
        _method(a, fn)
    return fn


acosh = _unary_float("acosh", paddle.acosh, ("arccosh",))
asinh = _unary_float("asinh", paddle.asinh, ("arcsinh",))
atanh = _unary_float("atanh", paddle.atanh, ("arctanh",))
lgamma = _unary_float("lgamma", paddle.lgamma)
digamma = _unary_float("digamma", lambda x: paddle.where(  # torch: digamma(0) = -inf
    x == 0, _full([], -math.inf, x.dtype, x), paddle.digamma(x)))
erfinv = _unary_float("erfinv", paddle.erfinv)
i0 = _unary_float("i0", paddle.i0)


def _erfc(x):
    # 1 - erf(x) computed one width up keeps torch's accuracy where erf(x) is near 1
    wide = x.astype("float64") if _name(x.dtype) != "float64" else x
    r = 1 - paddle.erf(wide)
    return r.astype(x.dtype)


erfc = _unary_float("erfc", _erfc)


def _sinc(x):
    px = x * math.pi
    safe = paddle.where(x == 0, paddle.ones_like(x), px)
    return paddle.where(x == 0, paddle.ones_like(x), paddle.sin(safe) / safe)


sinc = _unary_float("sinc", _sinc)
deg2rad = _unary_float("deg2rad", lambda x: x * _full([], math.pi / 180.0, x.dtype, x))
rad2deg = _unary_float("rad2deg", lambda x: x * _full([], 180.0 / math.pi, x.dtype, x))


def _same_dtype_unary(torch_name, compute, float_only_msg=None):
    def fn(input, *, out=None):
        if float_only_msg and not _is_float(input):
            raise NotImplementedError(float_only_msg.format(_legacy(input.dtype)))
        if input.size == 0:
            return _write_out(input.clone(), out)
        return _write_out(compute(input), out)
    fn.__name__ = fn.__qualname__ = torch_name
    return op(f"torch.{torch_name}", method=True, inplace=True)(fn)


frac = _same_dtype_unary("frac", lambda x: x - paddle.trunc(x),
                         '"frac_cpu" not implemented for \'{}\'')
fix = _same_dtype_unary("fix", lambda x: paddle.trunc(x) if _is_float(x) else x)
sgn = _same_dtype_unary("sgn", lambda x: x.clone() if _name(x.dtype) == "bool" else
                        _ops.UNARY["sign"](x))


@op("torch.angle", method=True, out=True)
def angle(input):
    if _is_complex(input):
        return paddle.angle(input)
    x = _f(input)
    r = paddle.where(x < 0, _full([], math.pi, x.dtype, x), paddle.zeros_like(x))
    return paddle.where(paddle.isnan(x), x, r)


@op("torch.positive", method=True)
def positive(input):
    if _name(input.dtype) == "bool":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


@op("torch.signbit", method=True, out=True)
def signbit(input):
    if _name(input.dtype) == "bool":
        return paddle.zeros(input.shape, dtype="bool")
    if not _is_float(input):
        return input < 0
    neg_zero = (input == 0) & ((1.0 / paddle.where(input == 0, input, paddle.ones_like(input)))
                               < 0)
    return (input < 0) | neg_zero


@op("torch.logit", method=True, inplace=True, out=True)
def logit(input, eps=None):
    x = _f(input)
    if eps is not None:
        x = paddle.clip(x, eps, 1.0 - eps)
    return paddle.log(x / (1 - x))


@op("torch.nan_to_num", method=True, inplace=True, out=True)
def nan_to_num(input, nan=0.0, posinf=None, neginf=None):
    if not (_is_float(input)):
        return input.clone()
    info = paddle.finfo(input.dtype)
    posinf = info.max if posinf is None else posinf
    neginf = info.min if neginf is None else neginf
    x = paddle.where(paddle.isnan(input), _full([], nan, input.dtype, input), input)
    x = paddle.where(paddle.isinf(x) & (x > 0), _full([], posinf, input.dtype, input), x)
    return paddle.where(paddle.isinf(x) & (x < 0), _full([], neginf, input.dtype, input), x)


@op("torch.polygamma", out=True)
def polygamma(n, input):
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    x = _f(input)
    if x.size == 0:
        return x.clone()
    if n == 0:
        return paddle.digamma(x)
    if n == 1:
        return _trigamma(x)
    return paddle.polygamma(x, n)


def _trigamma(x):
    """torch's calc_trigamma (aten Math.h) in x's dtype: the reflection for x < 0.5, six
    recurrence steps, then the asymptotic series.  Paddle 2.6's kernel is more exact in float32
    near the poles, where torch's own float32 result differs from it by 2e-5."""
    pi = _full([], math.pi, x.dtype, x)
    neg = x < 0.5
    s = paddle.sin(pi * x)
    result = paddle.where(neg, -(pi * pi) / (s * s), paddle.zeros_like(x))
    z = paddle.where(neg, 1 - x, x)
    for _ in range(6):
        result = result + 1 / (z * z)
        z = z + 1
    ixx = 1 / (z * z)
    result = result + (1 + 1 / (2 * z) + ixx * (1.0 / 6 - ixx * (1.0 / 30 - ixx * (1.0 / 42)))) / z
    return paddle.where(neg, -result, result)


@tensor_method("polygamma")
def _polygamma_method(self, n):
    return polygamma(n, self)


tensor_method("polygamma_")(make_inplace("polygamma_", _polygamma_method))


@op("torch.mvlgamma", method=True, inplace=True, out=True)
def mvlgamma(input, p):
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    input = _f(input)
    args = input.unsqueeze(-1) - paddle.arange(p, dtype=input.dtype) / 2.0
    return paddle.lgamma(args).sum(-1) + p * (p - 1) / 4.0 * math.log(math.pi)


# -- binary math -------------------------------------------------------------------------------
def _binop(torch_name, compute, float_result=False, method=True, inplace=True, int_only=False,
           tensors=0):
    """``tensors``: how many leading operands torch requires to be tensors (no Scalar form)."""
    def fn(input, other, *, out=None):
        if tensors:
            _ops.require_tensors(torch_name, tensors, input, other)
        a, b = _operands(input, other)
        if int_only and _name(a.dtype) not in _INTS:
            raise NotImplementedError(f'"{torch_name}_cpu" not implemented for '
                                      f"'{_legacy(a.dtype)}'")
        if float_result:
            a, b = _f(a), _f(b)
        return _write_out(compute(a, b), out)
    fn.__name__ = fn.__qualname__ = torch_name
    return op(f"torch.{torch_name}", method=method, inplace=inplace)(fn)


def _bshape(a, b):
    shape = paddle.broadcast_shape(list(a.shape), list(b.shape))
    return paddle.broadcast_to(a, shape), paddle.broadcast_to(b, shape)


def _xlogy(a, b):
    a, b = _bshape(a, b)
    r = a * paddle.log(b)
    r = paddle.where(a == 0, paddle.zeros_like(r), r)
    return paddle.where(paddle.isnan(b), b, r)


xlogy = _binop("xlogy", _xlogy, float_result=True)


def _hypot(a, b):
    a, b = _bshape(a, b)
    return paddle.sqrt(a * a + b * b)


hypot = _binop("hypot", _hypot, tensors=2)


def _logaddexp(a, b, log_base=None):
    a, b = _bshape(a, b)
    if log_base:
        a, b = a * log_base, b * log_base
    m = paddle.maximum(a, b)
    d = -paddle.abs(a - b)
    r = m + paddle.log1p(paddle.exp(d))
    r = paddle.where(a == b, a + math.log(2.0), r)  # infinities of one sign
    r = paddle.where(paddle.isnan(a) | paddle.isnan(b), a + b, r)
    return r / log_base if log_base else r


logaddexp = _binop("logaddexp", _logaddexp, float_result=True, inplace=False, tensors=2)
logaddexp2 = _binop("logaddexp2", lambda a, b: _logaddexp(a, b, math.log(2.0)),
                    float_result=True, inplace=False)


def _fmax(a, b, pick):
    a, b = _bshape(a, b)
    if _name(a.dtype) == "bool":  # Paddle has no bool maximum/minimum kernel
        return pick(a.astype("int32"), b.astype("int32")).astype("bool")
    r = pick(a, b)
    if _is_float(a):
        r = paddle.where(paddle.isnan(a), b, paddle.where(paddle.isnan(b), a, r))
    return r


fmax = _binop("fmax", lambda a, b: _fmax(a, b, paddle.maximum), inplace=False, tensors=2)
fmin = _binop("fmin", lambda a, b: _fmax(a, b, paddle.minimum), inplace=False, tensors=2)


def _copysign(a, b):
    a, b = _bshape(a, b)
    neg = signbit(b)
    mag = paddle.abs(a)
    return paddle.where(neg, -mag, mag)


copysign = _binop("copysign", _copysign, float_result=True, tensors=1)


def _nextafter(a, b):
    if _name(a.dtype) not in ("float32", "float64"):
        raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{_legacy(a.dtype)}\'')
    a, b = _bshape(a, b)
    return paddle.nextafter(a, b)


nextafter = _binop("nextafter", _nextafter, tensors=2)


def _heaviside_op(input, values, *, out=None):
    if isinstance(values, paddle.Tensor) and input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes")
    if _is_complex(input):
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    a, b = _bshape(input, values)
    if _name(a.dtype) == "bool":  # a == 0 picks values, a > 0 is True (2.6: no bool where)
        return _write_out(paddle.logical_or(a, b), out)
    r = paddle.where(a == 0, b, (a > 0).astype(a.dtype) if _name(a.dtype) != "bool" else a)
    r = paddle.where(paddle.isnan(a), a, r) if _is_float(a) else r
    return _write_out(r, out)


heaviside = op("torch.heaviside", method=True, inplace=True)(_heaviside_op)


def _gcd(a, b):
    a, b = _bshape(a, b)
    return paddle.gcd(a, b)


def _lcm(a, b):
    a, b = _bshape(a, b)
    return paddle.lcm(a, b)


gcd = _binop("gcd", _gcd, int_only=True, tensors=2)
lcm = _binop("lcm", _lcm, int_only=True, tensors=2)


@op("torch.ldexp", method=True, inplace=True, out=True)
def ldexp(input, other):
    _ops.require_tensors("ldexp", 2, input, other)
    a = _f(input)
    return _ops.BINARY["mul"](a, _ops.pow(2.0, other) if isinstance(other, paddle.Tensor) else 2.0 ** other)


@op("torch.floor_divide", method=True, inplace=True, out=True)
def floor_divide(input, other):
    return _ops.div(input, other, rounding_mode="floor")


@op("torch.float_power", method=True, inplace=lambda self, exponent: _float_power_(self, exponent),
    out=True)
def float_power(input, exponent):
    def up(v):
        if isinstance(v, paddle.Tensor):
            return v.astype("complex128" if _is_complex(v) else "float64")
        return v
    cplx = any(isinstance(v, builtins.complex) or isinstance(v, paddle.Tensor) and _is_complex(v)
               for v in (input, exponent))
    if cplx:
        input = input.astype("complex128") if isinstance(input, paddle.Tensor) else input
        exponent = exponent.astype("complex128") if isinstance(exponent, paddle.Tensor) \
            else exponent
        return _ops.pow(input, exponent)
    return _ops.pow(up(input), up(exponent) if isinstance(exponent, paddle.Tensor)
                    else float(exponent))


def _float_power_(self, exponent):
    want = "complex128" if _is_complex(self) else "float64"
    if _name(self.dtype) != want:
        raise RuntimeError(f"the base given to float_power_ has dtype {_legacy(self.dtype)} but "
                           f"the operation's result requires dtype {_legacy(_dt.DTYPES[want])}")
    return make_inplace("float_power_", float_power)(self, exponent)


@opmath_function("torch.rsub")
def rsub(input, other, *, alpha=1):
    _ops.require_tensors("rsub", 1, input)
    return _ops.sub(other, input, alpha=alpha) if isinstance(other, paddle.Tensor) else \
        _ops.sub(_full([], other, result_type(input, other), input), input, alpha=alpha)


# -- linear algebra ----------------------------------------------------------------------------
def _vec_check(a, b, name):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found "
                           f"{_legacy(a.dtype)} and {_legacy(b.dtype)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")


@op("torch.dot", method=True, out=True)
def dot(input, tensor):
    _vec_check(input, tensor, "dot")
    r = (input * tensor).sum()
    return r.astype(input.dtype)


@op("torch.vdot", method=True, out=True)
def vdot(input, other):
    _vec_check(input, other, "vdot")
    a = paddle.conj(input) if _is_complex(input) else input
    return (a * other).sum().astype(input.dtype)


@op("torch.inner", method=True, out=True)
def inner(input, other):
    if input.ndim == 0 or other.ndim == 0:
        return _ops.BINARY["mul"](input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected both inputs to have same dtype, but found "
                           f"{_legacy(input.dtype)} and {_legacy(other.dtype)}")
    return paddle.tensordot(input, other, axes=[[input.ndim - 1], [other.ndim - 1]])


@op("torch.ger", method=True, out=True)
def ger(input, vec2):
    if input.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D")
    return _ops.outer(input, vec2)


def _beta_alpha(input, prod, beta, alpha, name):
    if _name(prod.dtype) in _INTS:  # torch casts the scalars to the integer type
        beta, alpha = int(beta), int(alpha)
    if _name(prod.dtype) == "bool":
        prod = prod.astype("bool")
    if beta == 0:
        res = _ops.BINARY["mul"](prod, alpha) if alpha != 1 else prod
        return paddle.broadcast_to(res, prod.shape) if list(res.shape) != list(prod.shape) else res
    a = _ops.BINARY["mul"](input, beta) if beta != 1 else input
    b = _ops.BINARY["mul"](prod, alpha) if alpha != 1 else prod
    return _ops.add(a, b).astype(prod.dtype)


def _dtypes_match(*ts):
    d = ts[0].dtype
    for t in ts[1:]:
        if t.dtype != d:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{_ops._cpp_name(d)} != {_ops._cpp_name(t.dtype)}")


@op("torch.mv", method=True, out=True)
def mv(input, vec):
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {vec.ndim}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat "
                           f"({input.shape[0]}x{input.shape[1]}), vec ({vec.shape[0]})")
    _dtypes_match(input, vec)
    if _name(input.dtype) in _INTS:
        return (input * vec).sum(-1).astype(input.dtype)
    return paddle.matmul(input, vec)


@op("torch.addmv", method=True, inplace=True, out=True)
def addmv(input, mat, vec, *, beta=1, alpha=1):
    return _beta_alpha(input, mv(mat, vec), beta, alpha, "addmv")


@op("torch.addr", method=True, inplace=True, out=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D")
    prod = paddle.outer(vec1, vec2) if _name(vec1.dtype) != "bool" else \
        (vec1.unsqueeze(1) & vec2.unsqueeze(0))
    if _name(vec1.dtype) == "bool":
        p = prod if alpha else paddle.zeros_like(prod)
        r = p if not beta else paddle.logical_or(
            paddle.broadcast_to(input.astype("bool"), prod.shape), p)
        return r
    return _beta_alpha(input, prod, beta, alpha, "addr")


def _bmm(a, b):
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _dtypes_match(a, b)
    if _name(a.dtype) in _INTS:
        return (a.unsqueeze(-1) * b.unsqueeze(1)).sum(-2).astype(a.dtype)
    # (paddle.matmul, not paddle.bmm: bmm over an empty contraction (k == 0) returns
    # uninitialised memory on Paddle 2.6 and 3.x; matmul gives torch's zeros, except on 2.6,
    # whose matmul refuses 0-size operands)
    if a.shape[2] == 0 and _shims.ZERO_SIZE_KERNELS_FAIL:
        return _full([a.shape[0], a.shape[1], b.shape[2]], 0, a.dtype, a)
    return paddle.matmul(a, b)


@op("torch.baddbmm", method=True, inplace=True, out=True)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return _beta_alpha(input, _bmm(batch1, batch2), beta, alpha, "baddbmm")


@op("torch.addbmm", method=True, inplace=True, out=True)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    p = _bmm(batch1, batch2)
    p = p.sum(0).astype(p.dtype) if p.shape[0] else paddle.zeros(
        [batch1.shape[1], batch2.shape[2]], dtype=p.dtype)
    return _beta_alpha(input, p, beta, alpha, "addbmm")


@op("torch.kron", method=True, out=True)
def kron(input, other):
    a, b = _operands(input, other)
    nd = builtins.max(a.ndim, b.ndim)
    a = a.reshape([1] * (nd - a.ndim) + list(a.shape))
    b = b.reshape([1] * (nd - b.ndim) + list(b.shape))
    r = a.reshape([s for d in a.shape for s in (d, 1)]) * b.reshape(
        [s for d in b.shape for s in (1, d)])
    return r.reshape([x * y for x, y in zip(a.shape, b.shape)])


@op("torch.trace", method=True)
def trace(input):
    if input.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim "
                           f"{input.ndim}")
    d = paddle.diagonal(input)
    if _name(input.dtype) in _INTS:
        return d.astype("int64").sum() if d.shape[0] else paddle.zeros([], "int64")
    return d.sum() if d.shape[0] else paddle.zeros([], input.dtype)


# view ops register without the CPU half "opmath" wrapper (_opbase.op): rounding a
# float32 copy back to half would turn the view into a copy (x.t() of a half tensor)
@_register_op("torch.t", method=True, inplace=lambda self: _t_(self))
def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.ndim}D")
    return input.t() if input.ndim == 2 else input


def _t_(self):
    r = t(self)
    if self.ndim == 2:
        self.reshape_(r.shape)  # a 2-d tensor's shape swaps
        paddle.assign(r, output=self)
    return self


# -- shape -------------------------------------------------------------------------------------
@opmath_function("torch.atleast_1d")
def atleast_1d(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = tuple(x.reshape([1]) if x.ndim == 0 else x for x in ts)
    return out[0] if len(tensors) == 1 and isinstance(tensors[0], paddle.Tensor) else out


@opmath_function("torch.atleast_3d")
def atleast_3d(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors

    def one(x):
        if x.ndim == 0:
            return x.reshape([1, 1, 1])
        if x.ndim == 1:
            return x.reshape([1, x.shape[0], 1])
        if x.ndim == 2:
            return x.unsqueeze(-1)
        return x
    out = tuple(one(x) for x in ts)
    return out[0] if len(tensors) == 1 and isinstance(tensors[0], paddle.Tensor) else out


def _stack_like(torch_name, prep, dim):
    def fn(tensors, *, out=None):
        if isinstance(tensors, paddle.Tensor):
            raise TypeError(f"{torch_name}(): argument 'tensors' must be tuple of Tensors, "
                            "not Tensor")
        if len(tensors) == 0:
            raise RuntimeError(f"{torch_name} expects a non-empty TensorList")
        ts = [prep(x) for x in tensors]
        d = dim(ts)
        return _shape.cat(ts, d, out=out)
    fn.__name__ = fn.__qualname__ = torch_name
    return opmath_function(f"torch.{torch_name}")(fn)


def _2d(x):
    return x.reshape([1, -1]) if x.ndim < 2 else x


vstack = _stack_like("vstack", _2d, lambda ts: 0)
opmath_function("torch.row_stack")(vstack)
hstack = _stack_like("hstack", lambda x: x.reshape([1]) if x.ndim == 0 else x,
                     lambda ts: 0 if ts[0].ndim == 1 else 1)
dstack = _stack_like("dstack", lambda x: atleast_3d(x), lambda ts: 2)
column_stack = _stack_like("column_stack",
                           lambda x: x.reshape([-1, 1]) if x.ndim <= 1 else x, lambda ts: 1)


@_register_op("torch.tensor_split", method=True)
def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    # torch's three overloads name the split argument sections= (int), indices= (sequence)
    # or tensor_indices_or_sections= (Tensor)
    given = [v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections)
             if v is not None]
    if len(given) != 1 or (sections is not None and not isinstance(sections, int)) or (
            indices is not None and not isinstance(indices, (list, tuple))) or (
            tensor_indices_or_sections is not None and
            not isinstance(tensor_indices_or_sections, paddle.Tensor)):
        raise TypeError("tensor_split() received an invalid combination of arguments")
    indices_or_sections = given[0]
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, paddle.Tensor):
        if ios.ndim > 1 or _name(ios.dtype) != "int64":
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have a "
                               "dtype of long and to be 0-D or 1-D")
        ios = int(ios.item()) if ios.ndim == 0 else [int(v) for v in ios.tolist()]
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(n, ios)
        bounds, s = [], 0
        for i in range(ios):
            s += q + (1 if i < r else 0)
            bounds.append(s)
        bounds = bounds[:-1]
    else:
        bounds = list(ios)
    out, prev = [], 0
    for b in bounds + [n]:
        b = builtins.min(builtins.max(b if b >= 0 else b + n, 0), n)
        lo = builtins.min(prev, n)
        hi = builtins.max(b, lo)
        out.append(paddle.slice(input, [d], [lo], [hi]))
        prev = hi if b >= lo else lo
        prev = b if b >= lo else prev
    return tuple(out)


def _dir_split(torch_name, dim, min_dim):
    def fn(input, indices_or_sections):
        if input.ndim < min_dim:
            raise RuntimeError(f"torch.{torch_name} requires a tensor with at least {min_dim} "
                               f"dimension, but got a tensor with {input.ndim} dimensions!")
        d = dim(input)
        if isinstance(indices_or_sections, int) and indices_or_sections == 0:
            raise RuntimeError(f"torch.{torch_name} attempted to split along dimension {d}, "
                               "but the split_size is 0")
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise RuntimeError(f"torch.{torch_name} attempted to split along dimension {d}, "
                               f"but the size of the dimension {input.shape[d]} is not divisible "
                               f"by the split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)
    fn.__name__ = fn.__qualname__ = torch_name
    return op(f"torch.{torch_name}", method=True)(fn)


vsplit = _dir_split("vsplit", lambda x: 0, 2)
hsplit = _dir_split("hsplit", lambda x: 0 if x.ndim == 1 else 1, 1)
dsplit = _dir_split("dsplit", lambda x: 2, 3)


@op("torch.fliplr", method=True)
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return paddle.flip(input, [1])


@op("torch.flipud", method=True)
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return paddle.flip(input, [0])


@op("torch.rot90", method=True)
def rot90(input, k=1, dims=(0, 1)):
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    k = k % 4
    if k == 0:
        return input.clone()
    return paddle.rot90(input, k, [d0, d1])


@op("torch.ravel", method=True)
def ravel(input):
    return input.reshape([-1])


@_register_op("torch.select", method=True)
def select(input, dim, index):
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if index < -n or index >= n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {dim}")
    i = index + n if index < 0 else index
    return paddle.slice(input, [d], [i], [i + 1]).squeeze(d)


@_register_op("torch.swapdims", method=True)
def swapdims(input, dim0, dim1):
    return _shape.transpose(input, dim0, dim1)


@tensor_method("sum_to_size")
def sum_to_size(self, *size):
    size = list(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else \
        list(size)
    shape = list(self.shape)
    if len(size) > len(shape) or builtins.any(
            s != 1 and s != d for s, d in zip(size[::-1], shape[::-1])):
        raise RuntimeError(f"size {{{size}}} is not expandable to size {{{shape}}}.")
    lead = len(shape) - len(size)
    axes = list(range(lead)) + [lead + i for i, s in enumerate(size)
                                if s == 1 and shape[lead + i] != 1]
    if not axes:  # torch sums a 0-d tensor to size () (a bool one becomes int64)
        return _red.sum(self) if self.ndim == 0 else self
    return _red.sum(self, axes, True).reshape(size)


@op("torch.diff", method=True, out=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    for p in (prepend, append):
        if p is None or p.ndim == 0:
            continue
        if p.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in range(input.ndim):
            if i != d and p.shape[i] != input.shape[i]:
                raise RuntimeError(
                    f"diff expects the shape of tensor to prepend or append to match that of "
                    f"input except along the differencing dimension; input.size({i}) = "
                    f"{input.shape[i]}, but got tensor.size({i}) = {p.shape[i]}")
    if n == 0:  # torch: a copy of the input; prepend/append are not applied
        return input.clone()
    parts = [p for p in (prepend, input, append) if p is not None]
    parts = [p if p.ndim else paddle.broadcast_to(
        p.reshape([1] * input.ndim), [1 if i == d else s for i, s in enumerate(input.shape)])
        for p in parts]
    x = paddle.concat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi = paddle.slice(x, [d], [1], [m])
        lo = paddle.slice(x, [d], [0], [m - 1])
        x = (hi != lo) if _name(x.dtype) == "bool" else hi - lo
    return x


# -- reductions --------------------------------------------------------------------------------
AminmaxResult = _return_type("aminmax", ("min", "max"))


@op("torch.aminmax", method=True)
def aminmax(input, *, dim=None, keepdim=False):
    if input.size == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    x = input.astype("int32") if _name(input.dtype) == "bool" else input
    mn = _red.amin(x, () if dim is None else dim, keepdim)
    mx = _red.amax(x, () if dim is None else dim, keepdim)
    return AminmaxResult(mn.astype(input.dtype), mx.astype(input.dtype))


def _stat_mean(torch_name, stat):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):  # var_mean(x, True): the unbiased flag, positionally
            dim, unbiased = None, dim
        s = stat(input, dim, unbiased, keepdim, correction=correction)
        m = _red.mean(input, dim, keepdim)
        return s, m
    fn.__name__ = fn.__qualname__ = torch_name
    return op(f"torch.{torch_name}", method=True)(fn)


var_mean = _stat_mean("var_mean", _red.var)
std_mean = _stat_mean("std_mean", _red.std)


@op("torch.nansum", method=True, out=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    if _is_complex(input):
        raise RuntimeError("nansum does not support complex inputs")
    x = paddle.where(paddle.isnan(input), paddle.zeros_like(input), input) \
        if _is_float(input) else input
    return _red.sum(x, dim, keepdim, dtype=dtype)


@op("torch.nanmean", method=True, out=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not _is_float(input) and not _is_complex(input):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_legacy(input.dtype)}")
    keep = (~paddle.isnan(input)).astype(input.dtype)
    s = nansum(input, dim, keepdim, dtype=dtype)
    return s / _red.sum(keep, dim, keepdim, dtype=dtype)


@op("torch.kthvalue", method=True)
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if input.ndim and n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if k < 1 or k > n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if out is not None and builtins.any(o is input for o in out):
        raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please clone() "
                           "the tensor before performing the operation.")
    x = input.reshape([1]) if input.ndim == 0 else input
    i = _red.kth_index(x, k, d)  # torch's quickselect position among equal values
    v = paddle.take_along_axis(x, i, d)
    if not keepdim or input.ndim == 0:
        v, i = v.squeeze(d), i.squeeze(d)
    if input.ndim == 0:
        v, i = v.reshape([]), i.reshape([])
    return _shape_result(_red.KthResult if hasattr(_red, "KthResult") else
                         _return_type("kthvalue"), v, i, out)


def _shape_result(cls, v, i, out):
    if out is not None:
        _write_out(v, out[0])
        _write_out(i, out[1])
        return cls(out[0], out[1])
    return cls(v, i)


@op("torch.msort", method=True, out=True)
def msort(input):
    return _red.sort(input, 0).values if input.ndim else input.clone()


@op("torch.logcumsumexp", method=True, out=True)
def logcumsumexp(input, dim):
    d = wrap_dim(dim, input.ndim)
    x = _f(input)
    if x.ndim == 0:
        return x.clone()
    if x.size == 0:
        return x.clone()
    return paddle.logcumsumexp(x, axis=d)


# -- creation ----------------------------------------------------------------------------------
@opmath_function("torch.logspace")
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    require_strided(layout, 'logspace')
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    from . import creation as _cr
    dt = _dt.to_paddle(dtype) if dtype is not None else default_float()
    vals = _cr.logspace_values(start, end, steps, base, dt)  # torch's CPU kernel's arithmetic
    r = _cr._finish(_cr._from_numpy_as(vals, dt, device), requires_grad)
    return _write_out(r, out)


# -- memory formats ----------------------------------------------------------------------------
# torch.channels_last / channels_last_3d are values of torch.memory_format; conversions that
# take one (x.to(memory_format=...), x.float(memory_format=...)) keep the values (Paddle tensors
# have one row-major layout; torch's channels-last tensors hold the same values).
from .creation import memory_format as _memory_format  # noqa: E402
from .registry import value as _value  # noqa: E402

channels_last = _memory_format("channels_last")
channels_last_3d = _memory_format("channels_last_3d")
_value("torch.channels_last", channels_last,
       note="accepted by conversions (x.to/x.float(memory_format=...)): values as torch's; "
            "the layout stays row-major (stride() differs); empty(memory_format=) refuses it")
_value("torch.channels_last_3d", channels_last_3d,
       note="as torch.channels_last")


# -- batch 2: indexing / scatter forms ---------------------------------------------------------
_REDUCE = {"sum": "add", "prod": "mul", "mean": "mean", "amax": "amax", "amin": "amin"}


def _scatter_reduce(input, d, index, src, reduce, include_self):
    if reduce not in _REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if index.size == 0:
        return input.clone()
    if index.ndim and list(index.shape) != list(src.shape):
        src = src[tuple(slice(0, s) for s in index.shape)]
    x, s = input, src.astype(input.dtype)
    is_bool = _name(x.dtype) == "bool"
    if is_bool:
        x, s = x.astype("int32"), s.astype("int32")
    r = paddle.put_along_axis(x, index, s, d, reduce=_REDUCE[reduce], include_self=include_self,
                              broadcast=False)
    if reduce == "mean" and _name(x.dtype) in _INTS:  # torch: integer mean rounds down
        cnt = paddle.put_along_axis(paddle.full(x.shape, 1 if include_self else 0, "int64"),
                                    index, paddle.ones(index.shape, "int64"), d, reduce="add",
                                    broadcast=False)
        tot = paddle.put_along_axis(x.astype("int64"), index, s.astype("int64"), d,
                                    reduce="add", include_self=include_self, broadcast=False)
        mean = paddle.floor_divide(tot, paddle.maximum(cnt, paddle.ones_like(cnt)))
        r = paddle.where(cnt > 0, mean, x.astype("int64")).astype(x.dtype)
    return r.astype("bool") if is_bool else r


def _check_index(index, name):
    if _name(index.dtype) != "int64":
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")


@op("torch.scatter_reduce", method=True, inplace=True, out=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    _check_index(index, "scatter_reduce")
    if input.dtype != src.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype")
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return _scatter_reduce(input.reshape([1]), 0, index.reshape([1]), src.reshape([1]),
                               reduce, include_self).reshape([])
    return _scatter_reduce(input, d, index, src, reduce, include_self)


def _along(index, d, shape):
    view = [1] * len(shape)
    view[d] = -1
    return paddle.broadcast_to(index.reshape(view), shape)


@op("torch.index_reduce", method=True, inplace=True, out=True)
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if input.ndim == 0:
        return index_reduce(input.reshape([1]), 0, index.reshape([-1]), source.reshape([-1]),
                            reduce, include_self=include_self).reshape([])
    d = wrap_dim(dim, input.ndim)
    src = source.reshape([1]) if source.ndim == 0 else source
    return _scatter_reduce(input, d, _along(index.reshape([-1]), d, src.shape), src, reduce,
                           include_self)


@op("torch.index_copy", method=True, inplace=True, out=True)
def index_copy(input, dim, index, source):
    if input.dtype != source.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_legacy(input.dtype)} and (source) "
                           f"{_legacy(source.dtype)}")
    if input.ndim == 0:
        return source.reshape([]).clone() if index.size else input.clone()
    d = wrap_dim(dim, input.ndim)
    src = source.reshape([1]) if source.ndim == 0 else source
    x = input.astype("int32") if _name(input.dtype) == "bool" else input
    r = paddle.put_along_axis(x, _along(index.reshape([-1]), d, src.shape), src.astype(x.dtype),
                              d, broadcast=False)
    return r.astype(input.dtype)


@op("torch.index_fill", method=True, inplace=True)
def index_fill(input, dim, index, value):
    if isinstance(value, paddle.Tensor):
        if value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        value = value.item()
    if input.ndim == 0:
        return _full([], value, input.dtype, input) if index.size else input.clone()
    d = wrap_dim(dim, input.ndim)
    idx = index.reshape([-1])
    idx = paddle.where(idx < 0, idx + input.shape[d], idx)
    mask_shape = [1] * input.ndim
    mask_shape[d] = input.shape[d]
    hit = paddle.zeros([input.shape[d]], "int32")
    if idx.size:
        hit = paddle.scatter(hit, idx, paddle.ones(idx.shape, "int32"))
    hit = hit.reshape(mask_shape) > 0
    x = input.astype("int32") if _name(input.dtype) == "bool" else input  # no bool kernel (2.6)
    return paddle.where(hit, _full([], value, x.dtype, input), x).astype(input.dtype)


@op("torch.take", method=True, out=OutRule(
    no_overlap=True, same_dtype="take(): self and out expected to have the same dtype, but got "
                                "self.dtype = {self} and out.dtype = {out}"))
def take(input, index):
    if _name(index.dtype) != "int64":
        raise RuntimeError("take(): Expected a long tensor for index, but got "
                           f"{_legacy(index.dtype)}")
    n = int(input.size)
    flat = input.reshape([-1])
    if index.size == 0:
        return paddle.zeros(index.shape, input.dtype)
    lo, hi = int(index.min()), int(index.max())
    if lo < -n or hi >= n:
        raise IndexError(f"out of range: tried to access index {hi if hi >= n else lo} on a "
                         f"tensor of {n} elements.")
    idx = paddle.where(index < 0, index + n, index)
    x = flat.astype("int32") if _name(input.dtype) == "bool" else flat  # no bool gather (2.6)
    return paddle.gather(x, idx.reshape([-1])).reshape(index.shape).astype(input.dtype)


@op("torch.take_along_dim", method=True, out=True)
def take_along_dim(input, indices, dim=None):
    if _name(input.dtype) == "bool":  # Paddle has no bool take_along_axis kernel
        return take_along_dim(input.astype("int32"), indices, dim).astype("bool")
    if dim is None:
        n, flat = int(input.size), indices.reshape([-1])
        if flat.size:  # torch gathers from the flattened input: no negative indices
            lo, hi = int(flat.min()), int(flat.max())
            if lo < 0 or hi >= n:
                raise RuntimeError(f"index {lo if lo < 0 else hi} is out of bounds for "
                                   f"dimension 0 with size {n}")
        return paddle.take_along_axis(input.reshape([-1]), flat, 0)
    d = wrap_dim(dim, input.ndim)
    indices = paddle.where(indices < 0, indices + input.shape[d], indices)
    shp = [builtins.max(a, b) if i != d else b for i, (a, b) in
           enumerate(zip(input.shape, indices.shape))]
    in_shape = [s if i != d else input.shape[d] for i, s in enumerate(shp)]
    return paddle.take_along_axis(paddle.broadcast_to(input, in_shape),
                                  paddle.broadcast_to(indices, shp), d, broadcast=False)


@op("torch.masked_select", method=True, out=OutRule(
    no_overlap=True, same_dtype="masked_select(): self and result must have the same scalar type"))
def masked_select(input, mask):
    if _name(mask.dtype) != "bool":
        raise RuntimeError(f"masked_select: expected BoolTensor for mask")
    shape = paddle.broadcast_shape(list(input.shape), list(mask.shape))
    x = input.astype("int32") if _name(input.dtype) == "bool" else input  # no bool kernel (2.6)
    return paddle.masked_select(paddle.broadcast_to(x, shape),
                                paddle.broadcast_to(mask, shape)).astype(input.dtype)


# -- batch 2: scatters of slices ---------------------------------------------------------------
def _slices(ndim, d, s):
    return tuple(s if i == d else slice(None) for i in range(ndim))


@op("torch.slice_scatter", method=True, out=True)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    d = wrap_dim(dim, input.ndim)
    out = input.clone()
    out[_slices(input.ndim, d, slice(start, end, step))] = src.astype(input.dtype)
    return out


@op("torch.select_scatter", method=True, out=True)
def select_scatter(input, src, dim, index):
    d = wrap_dim(dim, input.ndim)
    out = input.clone()
    out[_slices(input.ndim, d, index)] = src.astype(input.dtype)
    return out


@op("torch.diagonal_scatter", method=True, out=True)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    return paddle.diagonal_scatter(input, src.astype(input.dtype), offset,
                                   wrap_dim(dim1, input.ndim), wrap_dim(dim2, input.ndim))


# -- batch 2: *_copy forms ---------------------------------------------------------------------
@op("torch.expand_copy", out=True)
def expand_copy(input, size, *, implicit=False):
    from .tensor_methods import expand as _expand
    return _expand(input, *size).clone() if isinstance(size, (list, tuple)) else \
        _expand(input, size).clone()


@op("torch.t_copy", out=True)
def t_copy(input):
    return t(input).clone()


@op("torch.unbind_copy")
def unbind_copy(input, dim=0):
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return tuple(x.clone() for x in _shape.unbind(input, dim))


@op("torch.narrow_copy", method=True, out=True)
def narrow_copy(input, dim, start, length):
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(dim, int) and dim >= input.ndim:  # narrow_copy: a TORCH_CHECK, not IndexError
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.  (Could this error message be improved?  If so, please "
                           "report an enhancement request to PyTorch.)")
    return _shape.narrow(input, dim, start, length).clone()


@op("torch.diagonal_copy", out=True)
def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    if wrap_dim(dim1, input.ndim) == wrap_dim(dim2, input.ndim):
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _shape.diagonal(input, offset, dim1, dim2).clone()


@op("torch.permute_copy", out=True)
def permute_copy(input, dims):
    return _shape.permute(input, dims).clone()


@op("torch.transpose_copy", out=True)
def transpose_copy(input, dim0, dim1):
    return _shape.transpose(input, dim0, dim1).clone()


@op("torch.squeeze_copy", out=True)
def squeeze_copy(input, dim=None):
    return _shape.squeeze(input, dim).clone()


@op("torch.unsqueeze_copy", out=True)
def unsqueeze_copy(input, dim):
    return _shape.unsqueeze(input, dim).clone()


@op("torch.alias_copy", out=True)
def alias_copy(input):
    return input.clone()


@op("torch.split_with_sizes_copy")
def split_with_sizes_copy(input, split_sizes, dim=0):
    return tuple(x.clone() for x in split_with_sizes(input, split_sizes, dim))


# -- batch 2: shape / creation -----------------------------------------------------------------
@_register_op("torch.unflatten", method=True)
def unflatten(input, dim, sizes):
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    sizes = list(sizes)
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = list(input.shape)
    known = _prod([s for s in sizes if s != -1])
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in sizes:
        sizes[sizes.index(-1)] = shape[d] // known if known else 0
    if _prod(sizes) != shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({shape[d]}) in the input tensor")
    return _shims.reshape_exact(input, shape[:d] + sizes + shape[d + 1:])


def _prod(xs):
    r = 1
    for v in xs:
        r *= v
    return r


@opmath_function("torch.meshgrid")
def meshgrid(*tensors, indexing=None):
    ts = list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) \
        else list(tensors)
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for x in ts:
        if x.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {x.ndim}D")
    ts = [x.reshape([-1]) for x in ts]
    axis = list(range(len(ts)))
    if indexing == "xy" and len(ts) >= 2:  # the first two axes swap places
        axis[0], axis[1] = 1, 0
    shape = [0] * len(ts)
    for i, x in enumerate(ts):
        shape[axis[i]] = int(x.shape[0])
    out = []
    for i, x in enumerate(ts):
        view = [1] * len(ts)
        view[axis[i]] = -1
        out.append(paddle.broadcast_to(x.reshape(view), shape))
    return tuple(out)


@opmath_function("torch.cartesian_prod")
def cartesian_prod(*tensors):
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return paddle.stack([g.reshape([-1]) for g in grids], 1)


@opmath_function("torch.combinations")
def combinations(input, r=2, with_replacement=False):
    import itertools
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return paddle.zeros([0], input.dtype)
    n = int(input.shape[0])
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(gen(range(n), r))
    if not idx:
        return paddle.zeros([0, r] if r > 1 else [0], input.dtype)
    t = paddle.to_tensor(idx, dtype="int64")
    x = input.astype("int32") if _name(input.dtype) == "bool" else input  # no bool gather (2.6)
    return paddle.gather(x, t.reshape([-1])).reshape([len(idx), r]).astype(input.dtype)


@opmath_function("torch.block_diag")
def block_diag(*tensors):
    from .ops import result_type_n
    ts = [x.reshape([1, 1]) if x.ndim == 0 else x.reshape([1, -1]) if x.ndim == 1 else x
          for x in tensors]
    for x in ts:
        if x.ndim != 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {ts.index(x)} has {x.ndim} dimensions")
    if not ts:
        return paddle.zeros([1, 0], default_float())
    dt = result_type_n(*ts)
    rows, cols = builtins.sum(int(x.shape[0]) for x in ts), builtins.sum(
        int(x.shape[1]) for x in ts)
    out = paddle.zeros([rows, cols], dt)
    r = c = 0
    for x in ts:
        h, w = int(x.shape[0]), int(x.shape[1])
        if h and w:
            out[r:r + h, c:c + w] = x.astype(dt)
        r, c = r + h, c + w
    return out


def _tri_indices(fn, row, col, offset, dtype, device):
    import numpy as np
    from . import creation as _cr
    r, c = fn(row, offset, col)
    dt = _dt.to_paddle(dtype) if dtype is not None else _DEFAULT_INT
    return _cr.tensor(np.stack([r, c]).astype("int64"), dtype=dt, device=device)


@opmath_function("torch.tril_indices")
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    require_strided(layout, 'tril_indices')
    import numpy as np
    return _tri_indices(np.tril_indices, row, col, offset, dtype, device)


@opmath_function("torch.triu_indices")
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    require_strided(layout, 'triu_indices')
    import numpy as np
    return _tri_indices(np.triu_indices, row, col, offset, dtype, device)


@opmath_function("torch.scalar_tensor")
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    require_strided(layout, 'scalar_tensor')
    from . import creation as _cr
    dt = _dt.to_paddle(dtype) if dtype is not None else default_float()
    return _cr.tensor(s, dtype=dt, device=device, requires_grad=requires_grad)


@op("torch.argwhere", method=True)
def argwhere(input):
    return _ops.nonzero(input)


# -- batch 2: complex views --------------------------------------------------------------------
@op("torch.resolve_neg", method=True)
def resolve_neg(input):
    return input


@op("torch.resolve_conj", method=True)
def resolve_conj(input):
    return input


@op("torch.conj", method=True)
def conj(input):
    return paddle.conj(input) if _is_complex(input) else input


@opmath_function("torch.real")
def real(input):
    return paddle.real(input) if _is_complex(input) else input


@opmath_function("torch.imag")
def imag(input):
    if not _is_complex(input):
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    return paddle.imag(input)


@op("torch.isreal", method=True)
def isreal(input):
    if _is_complex(input):
        return paddle.imag(input) == 0
    return paddle.ones(input.shape, "bool")


FrexpResult = _return_type("frexp", ("mantissa", "exponent"))


@op("torch.frexp", method=True)
def frexp(input, *, out=None):
    if not _is_float(input):
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = paddle.frexp(input)
    return _shape_result(FrexpResult, m, e.astype("int32"), out)


# -- batch 2: search / counting ----------------------------------------------------------------
@op("torch.isin", out=True)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    like = elements if isinstance(elements, paddle.Tensor) else test_elements
    e = elements if isinstance(elements, paddle.Tensor) else _full([], elements, like.dtype, like)
    t = test_elements if isinstance(test_elements, paddle.Tensor) else \
        _full([], test_elements, like.dtype, like)
    a, b = _operands(e, t)
    if b.size == 0:
        r = paddle.zeros(a.shape, "bool")
    else:
        r = (a.unsqueeze(-1) == b.reshape([-1])).any(-1)
    return paddle.logical_not(r) if invert else r


@op("torch.bucketize", out=True)
def bucketize(input, boundaries, *, out_int32=False, right=False):
    x = input if isinstance(input, paddle.Tensor) else _full([], input, boundaries.dtype,
                                                              boundaries)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    r = paddle.searchsorted(boundaries, x.astype(boundaries.dtype) if x.dtype != boundaries.dtype
                            else x, out_int32=out_int32, right=right)
    return r


@op("torch.searchsorted", out=True)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = paddle.take_along_axis(seq, sorter, -1)
    x = input if isinstance(input, paddle.Tensor) else _full([], input, seq.dtype, seq)
    if x.ndim == 0 and seq.ndim == 1:
        return paddle.searchsorted(seq, x.reshape([1]), out_int32=out_int32,
                                   right=right).reshape([])
    if seq.ndim > 1 and list(seq.shape[:-1]) != list(x.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor "
                           "must match")
    return paddle.searchsorted(seq, x.astype(seq.dtype) if x.dtype != seq.dtype else x,
                               out_int32=out_int32, right=right)


@op("torch.bincount", method=True)
def bincount(input, weights=None, minlength=0):
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if _name(input.dtype) not in _INTS or _name(input.dtype) == "bool":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.size and int(input.min()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    n = builtins.max(minlength, int(input.max()) + 1 if input.size else 0)
    if weights is None:
        if input.size == 0:
            return paddle.zeros([n], "int64")
        return paddle.bincount(input.astype("int64"), minlength=n).astype("int64")
    wdt = "float32" if _name(weights.dtype) == "float32" else "float64"
    if input.size == 0:
        return paddle.zeros([n], wdt)
    return paddle.bincount(input.astype("int64"), weights.astype("float64"),
                           minlength=n).astype(wdt)


@op("torch.histc", method=True, out=True)
def histc(input, bins=100, min=0, max=0):  # noqa: A002 - torch's names
    if not _is_float(input):
        raise NotImplementedError(f'"histogram_cpu" not implemented for '
                                  f"'{_legacy(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0")
    lo, hi = float(min), float(max)
    if lo == hi and input.size:
        lo, hi = float(input.min()), float(input.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc(): max must be larger than min")
    if input.size == 0:
        return paddle.zeros([bins], input.dtype)
    x = input.astype("float64").reshape([-1])
    # tensor operands: Paddle 2.6 applies Python scalars through a float32 attribute
    lo_t, hi_t, bins_t, width_t = (_full([], v, x.dtype, x) for v in (lo, hi, bins, hi - lo))
    inside = (x >= lo_t) & (x <= hi_t)
    idx = paddle.floor((x - lo_t) * bins_t / width_t).astype("int64")
    idx = paddle.clip(idx, 0, bins - 1)
    idx = paddle.masked_select(idx, inside)
    if idx.size == 0:
        return paddle.zeros([bins], input.dtype)
    return paddle.bincount(idx, minlength=bins).astype(input.dtype)


# -- batch 2: distances / statistics -----------------------------------------------------------
def _pnorm(d, p, axis):
    if p == 0:
        return (d != 0).astype(d.dtype).sum(axis)
    if p == math.inf:
        return paddle.abs(d).max(axis)
    if p == 1:
        return paddle.abs(d).sum(axis)
    if p == 2:
        return paddle.sqrt((d * d).sum(axis))
    return paddle.pow(paddle.pow(paddle.abs(d), p).sum(axis), 1.0 / p)


@opmath_function("torch.cdist")
def cdist(x1, x2, p=2.0, compute_mode=None):
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values")
    if not _is_float(x1):
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: "
                           f"{_legacy(x1.dtype)}")
    d = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if d.size == 0:
        return paddle.zeros(d.shape[:-1], x1.dtype)
    return _pnorm(d, p, -1)


@op("torch.dist", method=True)
def dist(input, other, p=2):
    a, b = _operands(input, other)
    d = (a - b).reshape([-1])
    if d.size == 0:
        return _shims.constant_result(paddle.zeros([], a.dtype), (a, b))
    return _pnorm(d, float(p), 0)


@op("torch.renorm", method=True, inplace=True, out=True)
def renorm(input, p, dim, maxnorm):
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    d = wrap_dim(dim, input.ndim)
    axes = [i for i in range(input.ndim) if i != d]
    norms = _pnorm(input, float(p), axes)
    factor = paddle.where(norms > maxnorm, maxnorm / (norms + 1e-7), paddle.ones_like(norms))
    view = [1] * input.ndim
    view[d] = -1
    return input * factor.reshape(view).astype(input.dtype)


@op("torch.cov", method=True)
def cov(input, *, correction=1, fweights=None, aweights=None):
    """ATen's cov (Correlation.cpp): the weights keep their own dtype, so w.sum() and the
    normalization factor are computed in it (float32 aweights round there, as in torch)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    x = input.reshape([1, -1]) if input.ndim < 2 else input
    x = _f(x) if not _is_complex(x) else x
    n = int(x.shape[1])
    for name, wt, integral in (("fweights", fweights, True), ("aweights", aweights, False)):
        if wt is None:
            continue
        if wt.ndim > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                               f"{name} with {wt.ndim} dimensions")
        is_int = _name(wt.dtype) in ("uint8", "int8", "int16", "int32", "int64")
        if integral and not is_int:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got "
                               f"fweights with {_name(wt.dtype).capitalize()} dtype")
        if not integral and _name(wt.dtype) not in ("float16", "bfloat16", "float32", "float64"):
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {_name(wt.dtype).capitalize()} dtype")
        if wt.size != n:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                               f"observations in the input but got {wt.size} != {n}")
        if n and bool((wt.min() < 0).item()):
            raise RuntimeError(f"cov(): {name} cannot be negative")
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w.astype(aweights.dtype) * aweights
    if w is None:
        avg = x.mean(1, keepdim=True) if n else paddle.full([x.shape[0], 1], math.nan, x.dtype)
        norm = builtins.max(float(n) - correction, 0.0)
        xm = x - avg
        c = paddle.matmul(xm, paddle.conj(xm).t() if _is_complex(xm) else xm.t())
        c = c / norm if norm else c / 0.0
    else:
        w_sum = w.sum()  # in w's dtype, as torch
        avg = (x * w.astype(x.dtype)).sum(1, keepdim=True) / w_sum.astype(x.dtype)
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
        if _name(norm.dtype) in ("int64", "int32"):
            norm = norm.astype(x.dtype)
        norm = paddle.clip(norm, min=0)
        xm = x - avg
        xw = xm * w.astype(x.dtype)
        c = paddle.matmul(xm, paddle.conj(xw).t() if _is_complex(xw) else xw.t())
        c = c / norm.astype(c.dtype if not _is_complex(c) else x.real().dtype)
    return c.reshape([]) if input.ndim < 2 or x.shape[0] == 1 else c


@op("torch.corrcoef", method=True)
def corrcoef(input):
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = paddle.diagonal(c)
    std = paddle.sqrt(d)
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return paddle.clip(c, -1, 1) if not _is_complex(c) else c


@opmath_function("torch.trapezoid")
def trapezoid(y, x=None, *, dx=None, dim=-1):
    d = wrap_dim(dim, y.ndim)
    n = y.shape[d]
    yf = _f(y)
    if n == 0:
        return yf.sum(d)
    lo, hi = paddle.slice(yf, [d], [0], [n - 1]), paddle.slice(yf, [d], [1], [n])
    if x is None:
        return ((lo + hi) * ((1.0 if dx is None else dx) / 2.0)).sum(d)
    xd = _f(diff(x, dim=-1 if x.ndim == 1 else d))
    if x.ndim == 1:
        view = [1] * y.ndim
        view[d] = -1
        xd = xd.reshape(view)
    return ((lo + hi) * xd / 2.0).sum(d)


opmath_function("torch.trapz")(trapezoid)


@opmath_function("torch.cumulative_trapezoid")
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    d = wrap_dim(dim, y.ndim)
    n = y.shape[d]
    yf = _f(y)
    if n == 0:
        return yf.clone()
    lo, hi = paddle.slice(yf, [d], [0], [n - 1]), paddle.slice(yf, [d], [1], [n])
    if x is None:
        parts = (lo + hi) * ((1.0 if dx is None else dx) / 2.0)
    else:
        xd = _f(diff(x, dim=-1 if x.ndim == 1 else d))
        if x.ndim == 1:
            view = [1] * y.ndim
            view[d] = -1
            xd = xd.reshape(view)
        parts = (lo + hi) * xd / 2.0
    return paddle.cumsum(parts, d) if parts.shape[d] else parts


@op("torch.tensordot", out=True)
def tensordot(a, b, dims=2):
    if isinstance(dims, paddle.Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        axes = [list(range(a.ndim - dims, a.ndim)), list(range(dims))]
    else:
        axes = [list(dims[0]) if isinstance(dims[0], (list, tuple)) else [dims[0]],
                list(dims[1]) if isinstance(dims[1], (list, tuple)) else [dims[1]]]
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected both inputs to have same dtype")
    return paddle.tensordot(a, b, axes=axes)


@op("torch.diag", method=True, out=True)
def diag(input, diagonal=0):
    if input.ndim not in (1, 2):
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.ndim}D")
    x = input.astype("int32") if _name(input.dtype) == "bool" else input
    return paddle.diag(x, offset=diagonal).astype(input.dtype)


@op("torch.diag_embed", method=True, out=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    nd = input.ndim + 1
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = int(input.shape[-1]) + builtins.abs(offset) if input.ndim else 1 + builtins.abs(offset)
    x = input.reshape([1]) if input.ndim == 0 else input
    # out[..., i, i + offset] = x[..., i]: build the matrix from x and an index mask
    m = int(x.shape[-1])
    rows = paddle.arange(n).reshape([n, 1])
    cols = paddle.arange(n).reshape([1, n])
    mask = (cols - rows) == offset
    pos = paddle.where(mask, paddle.minimum(rows, cols), paddle.zeros_like(rows + cols))
    pos = paddle.clip(pos, 0, builtins.max(m - 1, 0))
    base = x.astype("int32") if _name(x.dtype) == "bool" else x
    vals = paddle.gather(base, pos.reshape([-1]), axis=base.ndim - 1).reshape(
        list(base.shape[:-1]) + [n, n])
    out = paddle.where(mask, vals, paddle.zeros_like(vals)).astype(input.dtype)
    # the two new dims are the last two: move them to dim1, dim2
    src = list(range(nd - 2))
    perm = [0] * nd
    it = iter(src)
    for i in range(nd):
        if i == d1:
            perm[i] = nd - 2
        elif i == d2:
            perm[i] = nd - 1
        else:
            perm[i] = next(it)
    return out.transpose(perm)


@op("torch.diagflat", method=True, out=True)
def diagflat(input, offset=0):
    return diag(input.reshape([-1]), offset)


@_register_op("torch.split_with_sizes", method=True)
def split_with_sizes(input, split_sizes, dim=0):
    d = wrap_dim(dim, input.ndim)
    if builtins.sum(split_sizes) != input.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                           f"{input.shape[d]} (input tensor's size at dimension {dim}), but got "
                           f"split_sizes={list(split_sizes)}")
    out, s = [], 0
    for n in split_sizes:
        out.append(paddle.slice(input, [d], [s], [s + n]))
        s += n
    return tuple(out)


@_register_op("torch.unsafe_split", method=True)
def unsafe_split(input, split_size, dim=0):
    return tuple(_shape.split(input, split_size, dim))


@tensor_method("new_empty_strided")
def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                      layout=None, pin_memory=False):
    require_strided(layout, 'Tensor.new_empty_strided')
    from . import creation as _cr
    return _cr.empty_strided(size, stride, dtype=dtype if dtype is not None else self.dtype,
                             device=device if device is not None else self.place,
                             requires_grad=requires_grad)
