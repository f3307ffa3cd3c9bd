"""torch's "Pointwise Ops" (torch.html) beyond ops.py, from torch's OpInfo database: the arc*
aliases, special unary math (lgamma, digamma, erfc, sinc, logit...), binary math (xlogy, hypot,
logaddexp, copysign, gcd, ldexp, float_power...), the complex views (conj, real, imag,
resolve_neg...), and the Tensor methods / in-place forms of the existing unary and comparison ops
with torch's promotion (an int or bool tensor's ``x.acos()`` is computed in the default float
dtype, as torch does; ``x.acos_()`` on an int tensor is torch's "result type Float can't be
cast" error).  Also the helpers the other OpInfo-breadth modules share (``_f``, ``_legacy``...).

Everything is written against Paddle's public API on 2.6.2 and 3.3.1 alike (where 2.6 lacks a
function, it is composed from what both have)."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: acosh angle arccos arccosh arcsin arcsinh arctan arctan2 arctanh asinh atanh conj
        copysign deg2rad digamma erfc erfinv fix float_power floor_divide fmax fmin frac frexp gcd
        greater greater_equal heaviside hypot i0 imag isreal lcm ldexp less less_equal lgamma
        logaddexp logaddexp2 logit mvlgamma nan_to_num nextafter not_equal polygamma positive
        rad2deg real resolve_conj resolve_neg rsub sgn signbit sinc xlogy
    torch.Tensor: absolute absolute_ acos acos_ acosh acosh_ angle arccos arccos_ arccosh arccosh_
        arcsin arcsin_ arcsinh arcsinh_ arctan arctan2 arctan2_ arctan_ arctanh arctanh_ asin asin_
        asinh asinh_ atan atan2 atan2_ atan_ atanh atanh_ ceil ceil_ conj copysign copysign_ cos
        cos_ cosh cosh_ deg2rad deg2rad_ digamma digamma_ eq_ erf erf_ erfc erfc_ erfinv erfinv_
        exp exp2 exp2_ exp_ expm1 expm1_ fix fix_ float_power float_power_ floor floor_
        floor_divide floor_divide_ fmax fmin fmod fmod_ frac frac_ frexp gcd gcd_ ge_ greater
        greater_ greater_equal greater_equal_ gt_ heaviside heaviside_ hypot hypot_ i0 i0_ isreal
        lcm lcm_ ldexp ldexp_ le_ less less_ less_equal less_equal_ lgamma lgamma_ log log10 log10_
        log1p log1p_ log2 log2_ log_ logaddexp logaddexp2 logical_not logical_not_ logical_xor
        logical_xor_ logit logit_ lt_ moveaxis movedim mvlgamma mvlgamma_ nan_to_num nan_to_num_
        ne_ neg neg_ negative negative_ nextafter nextafter_ not_equal not_equal_ polygamma
        polygamma_ positive rad2deg rad2deg_ reciprocal reciprocal_ relu relu_ remainder_
        resolve_conj resolve_neg round round_ rsqrt rsqrt_ sgn sgn_ sigmoid sigmoid_ sign sign_
        signbit sin sin_ sinc sinc_ sinh sinh_ sqrt sqrt_ square square_ tan tan_ tanh tanh_
        true_divide true_divide_ trunc trunc_ xlogy xlogy_
""")

import builtins
import math

import paddle

from . import dtypes as _dt
from . import ops as _ops
from . import ops_shape as _shape
from ._opbase import (_FLOATS, _INTS, _float_input, _full, _name, _operands, _write_out,
                      opmath_function, make_inplace, op, result_type, _LEGACY_NAMES, _return_type)
from .registry import TENSOR_TABLE, tensor_method

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


def _shape_result(cls, v, i, out):
    if out is not None:
        _write_out(v, out[0])
        _write_out(i, out[1])
        return cls(out[0], out[1])
    return cls(v, i)


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


def _logaddexp_values(a, b, log_base=None):
    """torch's CPU kernel: max + log1p(exp(-|a - b|)), a + log 2 at a tie (infinities of one
    sign), NaN in, NaN out; in base 2 through log_base = log 2."""
    if log_base:
        a, b = a * log_base, b * log_base
    m = paddle.maximum(a, b)
    d = -paddle.abs(a - b)
    r = m + paddle.log1p(paddle.exp(d))
    r = paddle.where(a == b, a + math.log(2.0), r)
    r = paddle.where(paddle.isnan(a) | paddle.isnan(b), a + b, r)
    return r / log_base if log_base else r


class _LogAddExp(paddle.autograd.PyLayer):
    """logaddexp / logaddexp2 with torch's gradient: ``g / (1 + exp(b - a))`` for a and
    ``g / (1 + exp(a - b))`` for b (base 2: ``2 ** (b - a)``).  Differentiating the forward's
    composition gave a tie (a == b) all of the gradient on a (torch: half each; Liger's JSD
    test on equal distributions), NaN for an infinite operand, and other roundings."""

    @staticmethod
    def forward(ctx, a, b, log_base):
        ctx.save_for_backward(a, b)
        ctx.log_base = log_base
        return _logaddexp_values(a, b, log_base)

    @staticmethod
    def backward(ctx, g):
        a, b = ctx.saved_tensor()
        if ctx.log_base:
            two = paddle.full([], 2.0, dtype=a.dtype)
            ea, eb = paddle.pow(two, b - a), paddle.pow(two, a - b)
        else:
            ea, eb = paddle.exp(b - a), paddle.exp(a - b)
        return (None if a.stop_gradient else g / (1 + ea),
                None if b.stop_gradient else g / (1 + eb))


def _logaddexp(a, b, log_base=None):
    a, b = _bshape(a, b)
    if (a.stop_gradient and b.stop_gradient) or not paddle.is_grad_enabled():
        return _logaddexp_values(a, b, log_base)
    return _LogAddExp.apply(a, b, log_base)


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
