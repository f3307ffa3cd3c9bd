"""``torch.special`` on Paddle ops (differentiable where torch is): torch's definitions written
with Paddle's kernels (erf, erfinv, lgamma, digamma, polygamma, i0/i0e/i1/i1e, logsumexp...).
Integer and bool inputs compute in the default float dtype, float16/bfloat16 on the CPU in
float32 (torch's CPU "opmath"), ``out=`` follows torch's rules.  Paddle has no erfc/erfcx
kernel: both use the Chebyshev fit of Numerical Recipes (fractional error < 1.2e-7), written so
that erfcx(x) = exp(x^2) erfc(x) never overflows; ``log_ndtr`` uses erfcx in the lower tail as
torch does.  The orthogonal polynomials (Chebyshev T/U, Hermite H/He, Laguerre L, Legendre P)
follow torch's recurrences and special cases and, as in torch, have no gradient.  Bessel J0/J1/
Y0/Y1, K0/K1 (plain and scaled), spherical J0, Airy Ai and the Hurwitz zeta are torch's CPU
kernels (its Cephes polynomial/rational approximations and loops) written with Paddle ops, in the
input's dtype as torch's (zeta in float64, torch's accumulate type); torch has no gradient for
them and neither do these.  igamma/igammac (special.gammainc/gammaincc) are torch's
calc_igamma/calc_igammac in float64 (see the note above _LZ_NUM for the large-a region)."""
from __future__ import annotations

import math

import paddle

from ._opbase import (_float_input, _full, _name, _operands, opmath_function, default_float,
                      with_out)
from .registry import TABLE, module, op

from .registry import manifest

NAMES = manifest("""
    torch: igamma igammac special
    torch.Tensor: igamma igamma_ igammac igammac_
    torch.special: airy_ai bessel_j0 bessel_j1 bessel_y0 bessel_y1 chebyshev_polynomial_t
        chebyshev_polynomial_u chebyshev_polynomial_v chebyshev_polynomial_w digamma entr erf erfc
        erfcx erfinv exp2 expit expm1 gammainc gammaincc gammaln hermite_polynomial_h
        hermite_polynomial_he i0 i0e i1 i1e laguerre_polynomial_l legendre_polynomial_p log1p
        log_ndtr log_softmax logit logsumexp modified_bessel_i0 modified_bessel_i1
        modified_bessel_k0 modified_bessel_k1 multigammaln ndtr ndtri polygamma psi round
        scaled_modified_bessel_k0 scaled_modified_bessel_k1 shifted_chebyshev_polynomial_t
        shifted_chebyshev_polynomial_u shifted_chebyshev_polynomial_v
        shifted_chebyshev_polynomial_w sinc softmax spherical_bessel_j0 xlog1py xlogy zeta
""")

module("torch.special")

_SQRT1_2 = math.sqrt(0.5)
_SQRT2 = math.sqrt(2.0)


def _c(v, like):
    return _full([], v, like.dtype, like)


def _unary(name, compute):
    def fn(input):
        if not isinstance(input, paddle.Tensor):
            raise TypeError(f"special_{name}(): argument 'input' (position 1) must be Tensor, "
                            f"not {type(input).__name__}")
        x = _float_input(input)
        if x.size == 0:  # Paddle 2.6 kernels reject 0-size inputs
            return paddle.zeros(x.shape, dtype=x.dtype)
        return compute(x)
    fn.__name__ = fn.__qualname__ = name
    return opmath_function(f"torch.special.{name}")(with_out(fn))


def _erfcx_pos(x):
    """exp(x^2) erfc(x) for x >= 0 (Numerical Recipes' erfc fit without its exp(-x^2))."""
    t = 1.0 / (1.0 + 0.5 * x)
    poly = -1.26551223 + t * (1.00002368 + t * (0.37409196 + t * (0.09678418 + t * (
        -0.18628806 + t * (0.27886807 + t * (-1.13520398 + t * (1.48851587 + t * (
            -0.82215223 + t * 0.17087277))))))))
    return t * paddle.exp(poly)


def _erfcx(x):
    a = paddle.abs(x)
    pos = _erfcx_pos(a)
    return paddle.where(x >= 0, pos, 2 * paddle.exp(x * x) - pos)


def _erfc(x):
    a = paddle.abs(x)
    tail = paddle.exp(-a * a) * _erfcx_pos(a)
    tail = paddle.where(x >= 0, tail, 2 - tail)
    return paddle.where(a < 0.5, 1 - paddle.erf(x), tail)


def _ndtr(x):
    return 0.5 * _erfc(-x * _SQRT1_2)


def _log_ndtr(x):
    low = paddle.log(_erfcx(paddle.clip(-x, min=1.0) * _SQRT1_2) / 2) - x * x / 2
    return paddle.where(x < -1.0, low, paddle.log1p(-_erfc(x * _SQRT1_2) / 2))


def _entr(x):
    safe = paddle.where(x > 0, x, paddle.ones_like(x))
    r = -x * paddle.log(safe)
    r = paddle.where(x == 0, paddle.zeros_like(x), r)
    r = paddle.where(x < 0, _c(-math.inf, x).expand(x.shape), r)
    return paddle.where(paddle.isnan(x), x, r)


def _sinc(x):
    px = x * math.pi
    safe = paddle.where(x == 0, paddle.ones_like(x), px)
    return paddle.where(x == 0, paddle.ones_like(x), paddle.sin(safe) / safe)


_unary("erf", paddle.erf)
_unary("erfc", _erfc)
_unary("erfcx", _erfcx)
_unary("erfinv", paddle.erfinv)
_unary("expit", paddle.nn.functional.sigmoid)
_unary("exp2", lambda x: paddle.pow(_c(2.0, x), x))
_unary("expm1", paddle.expm1)
_unary("log1p", paddle.log1p)
_unary("gammaln", paddle.lgamma)
def _digamma(x):
    # torch: digamma(0) = -inf (Paddle 2.6 gives nan)
    return paddle.where(x == 0, _c(-math.inf, x).expand(x.shape), paddle.digamma(x))


_unary("digamma", _digamma)
_unary("psi", _digamma)
_unary("i0", paddle.i0)
_unary("i0e", paddle.i0e)
_unary("i1", paddle.i1)
_unary("i1e", paddle.i1e)
_unary("modified_bessel_i0", paddle.i0)
_unary("modified_bessel_i1", paddle.i1)
_unary("ndtr", _ndtr)
def _ndtri(x):
    # 2p - 1 loses the lower tail in float32: compute in float64, as precise as torch's ndtri
    w = x.astype("float64")
    r = _SQRT2 * paddle.erfinv(paddle.clip(2 * w - 1, -1.0, 1.0))
    r = paddle.where((w < 0) | (w > 1), _c(math.nan, w).expand(w.shape), r)
    return r.astype(x.dtype)


_unary("ndtri", _ndtri)
_unary("log_ndtr", _log_ndtr)
_unary("entr", _entr)
_unary("sinc", _sinc)


@opmath_function("torch.special.logit")
def logit(input, eps=None, *, out=None):
    from ._opbase import write_out
    x = _float_input(input)
    if eps is not None:
        x = paddle.clip(x, min=eps, max=1 - eps)
    return write_out(paddle.log(x / (1 - x)), out)


@opmath_function("torch.special.polygamma")
def polygamma(n, input, *, out=None):
    from ._opbase import write_out
    x = _float_input(input)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if x.size == 0:
        return write_out(paddle.zeros(x.shape, dtype=x.dtype), out)
    if n == 1:  # torch's float32 trigamma (ops_pointwise.polygamma), not Paddle 2.6's kernel
        return TABLE["torch.polygamma"].impl(n, x, out=out)
    return write_out(paddle.digamma(x) if n == 0 else paddle.polygamma(x, n), out)


@opmath_function("torch.special.multigammaln")
def multigammaln(input, p, *, out=None):
    from ._opbase import write_out
    x = _float_input(input)
    if p < 1:
        raise RuntimeError("p has to be greater than or equal to 1")
    if bool((x <= (p - 1) / 2).any()):
        raise RuntimeError(f"All elements must be greater than (p-1)/2")
    r = sum(paddle.lgamma(x - j / 2) for j in range(p)) + p * (p - 1) / 4 * math.log(math.pi)
    return write_out(r, out)


def _binary_float(a, b):
    a, b = _operands(a, b)
    if _name(a.dtype) in ("bool", "uint8", "int8", "int16", "int32", "int64"):
        a, b = a.astype(default_float()), b.astype(default_float())
    shape = paddle.broadcast_shape(list(a.shape), list(b.shape))
    return paddle.broadcast_to(a, shape), paddle.broadcast_to(b, shape)


def _xlog(fn, name):
    def f(input, other):
        x, y = _binary_float(input, other)
        if x.size == 0:
            return paddle.zeros(x.shape, dtype=x.dtype)
        r = x * fn(y)
        r = paddle.where(x == 0, paddle.zeros_like(r), r)
        return paddle.where(paddle.isnan(y), y, r)
    f.__name__ = f.__qualname__ = name
    return opmath_function(f"torch.special.{name}")(with_out(f))


_xlog(paddle.log1p, "xlog1py")
_xlog(paddle.log, "xlogy")


# -- torch.* functions under their torch.special names ------------------------------------------
def _from_table(torch_name, special_name):
    impl = TABLE[torch_name].impl
    opmath_function(special_name)(impl)


@opmath_function("torch.special.round")
def _special_round(input, *, decimals=0, out=None):
    """torch.special.round always takes the decimals= overload of torch.round, which has no
    integer kernel (torch.round(int_tensor) copies, torch.special.round raises)."""
    return TABLE["torch.round"].impl(input, decimals=decimals, out=out)
_from_table("torch.softmax", "torch.special.softmax")
_from_table("torch.log_softmax", "torch.special.log_softmax")
_from_table("torch.logsumexp", "torch.special.logsumexp")


# -- orthogonal polynomials (torch's recurrences; no gradient, as in torch) ---------------------
def _poly(name, body):
    def f(input, n):
        with paddle.no_grad():
            x, nn = _binary_float(input, n)
            if x.size == 0:
                return paddle.zeros(x.shape, dtype=x.dtype)
            nn = paddle.trunc(nn)
            return body(x, nn)
    f.__name__ = f.__qualname__ = name
    return opmath_function(f"torch.special.{name}")(with_out(f))


def _recur(x, n, p0, p1, step):
    """p_0, p_1, p_{k+1} = step(k, p_k, p_{k-1}); returns p_n (n >= 0, per element)."""
    nmax = int(paddle.max(n).item()) if n.size else 0
    res = paddle.where(n == 0, p0, p1)
    p, q = p0, p1
    for k in range(1, nmax):
        p, q = q, step(k, q, p)
        res = paddle.where(n == k + 1, q, res)
    return res


def _cheb_t(x, n):
    one = paddle.ones_like(x)
    r = _recur(x, n, one, x, lambda k, q, p: 2 * x * q - p)
    trig = paddle.cos(n * paddle.acos(paddle.clip(x, -1.0, 1.0)))
    r = paddle.where((n > 6) & (paddle.abs(x) < 1), trig, r)
    sgn = paddle.where((x > 0) | (paddle.remainder(n, _c(2.0, n)) == 0), one, -one)
    r = paddle.where(paddle.abs(x) == 1, sgn, r)
    return paddle.where(n < 0, paddle.zeros_like(x), r)


def _cheb_u(x, n):
    one = paddle.ones_like(x)
    r = _recur(x, n, one, 2 * x, lambda k, q, p: 2 * x * q - p)
    acx = paddle.acos(paddle.clip(x, -1.0, 1.0))
    s = paddle.sin(acx)
    trig = paddle.where(s != 0, paddle.sin((n + 1) * acx) / paddle.where(s != 0, s, one),
                        (n + 1) * paddle.cos((n + 1) * acx) / paddle.cos(acx))
    r = paddle.where((n > 8) & (paddle.abs(x) < 1), trig, r)
    sgn = paddle.where((x > 0) | (paddle.remainder(n, _c(2.0, n)) == 0), n + 1, -(n + 1))
    r = paddle.where(paddle.abs(x) == 1, sgn, r)
    return paddle.where(n < 0, paddle.zeros_like(x), r)


def _herm_h(x, n):
    one = paddle.ones_like(x)
    r = _recur(x, n, one, 2 * x, lambda k, q, p: 2 * x * q - 2 * k * p)
    return paddle.where(n < 0, paddle.zeros_like(x), r)


def _herm_he(x, n):
    one = paddle.ones_like(x)
    if _name(x.dtype) == "float32":
        # torch's compiled loop contracts x*q - k*p into fma(x, q, -(k*p)): the product x*q
        # is not rounded before the subtraction (emulated exactly in float64)
        x64 = x.astype("float64")

        def step(k, q, p):
            return (x64 * q.astype("float64") - (k * p).astype("float64")).astype("float32")
    else:
        def step(k, q, p):
            return x * q - k * p
    r = _recur(x, n, one, x, step)
    return paddle.where(n < 0, paddle.zeros_like(x), r)


def _laguerre(x, n):
    one = paddle.ones_like(x)
    r = _recur(x, n, one, one - x, lambda k, q, p: ((2 * k + 1 - x) * q - k * p) / (k + 1))
    r = paddle.where(paddle.abs(x) == 0, one, r)
    return paddle.where(n < 0, paddle.zeros_like(x), r)


def _legendre(x, n):
    one = paddle.ones_like(x)
    r = _recur(x, n, one, x, lambda k, q, p: ((2 * k + 1) * x * q - k * p) / (k + 1))
    sgn = paddle.where((x > 0) | (paddle.remainder(n, _c(2.0, n)) == 0), one, -one)
    r = paddle.where(paddle.abs(x) == 1, sgn, r)
    return paddle.where(n < 0, paddle.zeros_like(x), r)


_poly("chebyshev_polynomial_t", _cheb_t)
_poly("chebyshev_polynomial_u", _cheb_u)
_poly("hermite_polynomial_h", _herm_h)
_poly("hermite_polynomial_he", _herm_he)
_poly("laguerre_polynomial_l", _laguerre)
_poly("legendre_polynomial_p", _legendre)


def _odd(n):
    return paddle.remainder(n, _c(2.0, n)) != 0


def _guard(x):
    return paddle.clip(x, -1.0, 1.0)


def _cheb_v(x, n):
    one = paddle.ones_like(x)
    r = _recur(x, n, one, 2 * x - 1, lambda k, q, p: 2 * x * q - p)
    a = paddle.acos(_guard(x))
    alt = paddle.where(_odd(n), -(2 * n + 1), 2 * n + 1)
    c = paddle.cos(a / 2)
    trig = paddle.where(paddle.sin(a / 2) != 1,
                        paddle.cos((n + 0.5) * a) / paddle.where(c != 0, c, one), alt)
    r = paddle.where((n > 8) & (paddle.abs(x) < 1), trig, r)
    r = paddle.where(paddle.abs(x) == 1, paddle.where(x > 0, one, alt), r)
    return paddle.where(n < 0, paddle.zeros_like(x), r)


def _cheb_w(x, n):
    one = paddle.ones_like(x)
    r = _recur(x, n, one, 2 * x + 1, lambda k, q, p: 2 * x * q - p)
    a = paddle.acos(_guard(x))
    at_one = paddle.where(x > 0, 2 * n + 1, paddle.where(_odd(n), -one, one))
    sn = paddle.sin(a / 2)
    trig = paddle.where(paddle.cos(a / 2) != 1,
                        paddle.sin((n + 0.5) * a) / paddle.where(sn != 0, sn, one), at_one)
    r = paddle.where((n > 8) & (paddle.abs(x) < 1), trig, r)
    r = paddle.where(paddle.abs(x) == 1, at_one, r)
    return paddle.where(n < 0, paddle.zeros_like(x), r)


def _shifted(x, n, first, at_one, at_zero, trig_n, trig):
    one = paddle.ones_like(x)
    y = x + x - 1
    r = _recur(y, n, one, first(y), lambda k, q, p: (y + y) * q - p)
    r = paddle.where((n > trig_n) & (paddle.abs(y) < 1), trig(y, paddle.acos(_guard(y))), r)
    r = paddle.where(x == 0, at_zero, r)
    r = paddle.where(x == 1, at_one, r)
    return paddle.where(n < 0, paddle.zeros_like(x), r)


def _sh_t(x, n):
    one = paddle.ones_like(x)
    return _shifted(x, n, lambda y: y, one, paddle.where(_odd(n), -one, one), 6,
                    lambda y, a: paddle.cos(n * a))


def _sh_u(x, n):
    one = paddle.ones_like(x)

    def trig(y, a):
        s = paddle.sin(a)
        return paddle.where(s != 0, paddle.sin((n + 1) * a) / paddle.where(s != 0, s, one),
                            (n + 1) * paddle.cos((n + 1) * a) / y)
    return _shifted(x, n, lambda y: y + y, n + 1, paddle.where(_odd(n), -(n + 1), n + 1), 6,
                    trig)


def _sh_v(x, n):
    one = paddle.ones_like(x)
    alt = paddle.where(_odd(n), -(2 * n + 1), 2 * n + 1)

    def trig(y, a):
        c = paddle.cos(a / 2)
        return paddle.where(paddle.sin(a / 2) != 1,
                            paddle.cos((n + 0.5) * a) / paddle.where(c != 0, c, one), alt)
    return _shifted(x, n, lambda y: y + y - 1, one, alt, 6, trig)


def _sh_w(x, n):
    one = paddle.ones_like(x)
    alt = paddle.where(_odd(n), -one, one)

    def trig(y, a):
        sn = paddle.sin(a / 2)
        return paddle.where(paddle.cos(a / 2) != 1,
                            paddle.sin((n + 0.5) * a) / paddle.where(sn != 0, sn, one), alt)
    return _shifted(x, n, lambda y: y + y + 1, 2 * n + 1, alt, 4, trig)


_poly("chebyshev_polynomial_v", _cheb_v)
_poly("chebyshev_polynomial_w", _cheb_w)
_poly("shifted_chebyshev_polynomial_t", _sh_t)
_poly("shifted_chebyshev_polynomial_u", _sh_u)
_poly("shifted_chebyshev_polynomial_v", _sh_v)
_poly("shifted_chebyshev_polynomial_w", _sh_w)


# -- Bessel, Airy and Hurwitz zeta: torch's CPU kernels (aten/src/ATen/native/Math.h, derived
# from the Cephes Math Library, 3-clause BSD, Copyright (c) 2018 Steven Moshier), evaluated
# element-wise with Paddle ops in the input's dtype (float32 math for float32, as torch's T).
# Every branch is computed and the right one picked with where().  Inexact constants are added
# as 0-d tensors of the input's dtype: Paddle 2.6 adds Python floats in float32
# precision.  torch has no gradient for
# any of them (the results carry no grad_fn), so they run under no_grad.
def _horner(z, coeffs):
    """torch's ``r = 0; for c in C: r = r * z + c``."""
    r = paddle.zeros_like(z)
    for c in coeffs:
        r = r * z + _c(c, z)
    return r


def _chb(y, coeffs):
    """torch's ``p, q, a = ?, 0, A[0]; a = y*q - p + A[i]; 0.5*(a - p)`` (Chebyshev series)."""
    p, q, a = paddle.zeros_like(y), paddle.zeros_like(y), paddle.full_like(y, coeffs[0])
    for c in coeffs[1:]:
        p, q = q, a
        a = y * q - p + _c(c, y)
    return 0.5 * (a - p)


def _hp(fn, t):
    """fn (sqrt/exp/log/sin/cos) of a float32 tensor rounded from float64, as torch's libm
    calls are: Paddle's vectorized float32 kernels are not correctly rounded (sqrt(120) is
    2 ulp off, sin/cos lose digits at |t| ~ 1e3, exp(-inf) is 2.9e-39)."""
    return fn(t.astype("float64")).astype(t.dtype) if _name(t.dtype) == "float32" else fn(t)


def _no_grad_unary(name, compute):
    def run(x):
        with paddle.no_grad():
            return compute(x)
    _unary(name, run)


_J0_PP = (7.96936729297347051624e-04, 8.28352392107440799803e-02, 1.23953371646414299388e+00,
          5.44725003058768775090e+00, 8.74716500199817011941e+00, 5.30324038235394892183e+00,
          9.99999999999999997821e-01)
_J0_PQ = (9.24408810558863637013e-04, 8.56288474354474431428e-02, 1.25352743901058953537e+00,
          5.47097740330417105182e+00, 8.76190883237069594232e+00, 5.30605288235394617618e+00,
          1.00000000000000000218e+00)
_J0_QP = (-1.13663838898469149931e-02, -1.28252718670509318512e+00, -1.95539544257735972385e+01,
          -9.32060152123768231369e+01, -1.77681167980488050595e+02, -1.47077505154951170175e+02,
          -5.14105326766599330220e+01, -6.05014350600728481186e+00)
_J0_QQ = (6.43178256118178023184e+01, 8.56430025976980587198e+02, 3.88240183605401609683e+03,
          7.24046774195652478189e+03, 5.93072701187316984827e+03, 2.06209331660327847417e+03,
          2.42005740240291393179e+02)
_J0_RP = (-4.79443220978201773821e+09, 1.95617491946556577543e+12, -2.49248344360967716204e+14,
          9.70862251047306323952e+15)
_J0_RQ = (4.99563147152651017219e+02, 1.73785401676374683123e+05, 4.84409658339962045305e+07,
          1.11855537045356834862e+10, 2.11277520115489217587e+12, 3.10518229857422583814e+14,
          3.18121955943204943306e+16, 1.71086294081043136091e+18)
_J1_PP = (7.62125616208173112003e-04, 7.31397056940917570436e-02, 1.12719608129684925192e+00,
          5.11207951146807644818e+00, 8.42404590141772420927e+00, 5.21451598682361504063e+00,
          1.00000000000000000254e+00)
_J1_PQ = (5.71323128072548699714e-04, 6.88455908754495404082e-02, 1.10514232634061696926e+00,
          5.07386386128601488557e+00, 8.39985554327604159757e+00, 5.20982848682361821619e+00,
          9.99999999999999997461e-01)
_J1_QP = (5.10862594750176621635e-02, 4.98213872951233449420e+00, 7.58238284132545283818e+01,
          3.66779609360150777800e+02, 7.10856304998926107277e+02, 5.97489612400613639965e+02,
          2.11688757100572135698e+02, 2.52070205858023719784e+01)
_J1_QQ = (7.42373277035675149943e+01, 1.05644886038262816351e+03, 4.98641058337653607651e+03,
          9.56231892404756170795e+03, 7.99704160447350683650e+03, 2.82619278517639096600e+03,
          3.36093607810698293419e+02)
_J1_RP = (-8.99971225705559398224e+08, 4.52228297998194034323e+11, -7.27494245221818276015e+13,
          3.68295732863852883286e+15)
_J1_RQ = (6.20836478118054335476e+02, 2.56987256757748830383e+05, 8.35146791431949253037e+07,
          2.21511595479792499675e+10, 4.74914122079991414898e+12, 7.84369607876235854894e+14,
          8.95222336184627338078e+16, 5.32278620332680085395e+18)
_Y0_YP = (1.55924367855235737965e+04, -1.46639295903971606143e+07, 5.43526477051876500413e+09,
          -9.82136065717911466409e+11, 8.75906394395366999549e+13, -3.46628303384729719441e+15,
          4.42733268572569800351e+16, -1.84950800436986690637e+16)
_Y0_YQ = (1.04128353664259848412e+03, 6.26107330137134956842e+05, 2.68919633393814121987e+08,
          8.64002487103935000337e+10, 2.02979612750105546709e+13, 3.17157752842975028269e+15,
          2.50596256172653059228e+17)
_Y1_YP = (1.26320474790178026440e+09, -6.47355876379160291031e+11, 1.14509511541823727583e+14,
          -8.12770255501325109621e+15, 2.02439475713594898196e+17, -7.78877196265950026825e+17)
_Y1_YQ = (5.94301592346128195359e+02, 2.35564092943068577943e+05, 7.34811944459721705660e+07,
          1.87601316108706159478e+10, 3.88231277496238566008e+12, 6.20557727146953693363e+14,
          6.87141087355300489866e+16, 3.97270608116560655612e+18)
_PIO4 = 0.785398163397448309615660845819875721
_3PIO4 = 2.356194490192344928846982537459627163
_SQ2OPI = 0.797884560802865355879892119868763737
_TWOOPI = 0.636619772367581343075535053490057448


def _inf_like(x, sign=1.0):
    return paddle.full_like(x, sign * math.inf)


def _nan_like(x):
    return paddle.full_like(x, math.nan)


def _j0_asym(x, trig0, trig1, sign):
    """The x > 5 expansion shared by J0 (cos, sin, -) and Y0 (sin, cos, +)."""
    w = 25.0 / (x * x)
    p = _horner(w, _J0_PP) / _horner(w, _J0_PQ)
    q = _horner(w, _J0_QP) / _horner(w, _J0_QQ)
    t = x - _c(_PIO4, x)
    return (p * _hp(trig0, t) + sign * (5.0 / x) * q * _hp(trig1, t)) * _SQ2OPI / _hp(
        paddle.sqrt, x)


def _j1_asym(x, trig0, trig1, sign):
    w = (5.0 / x) * (5.0 / x)
    p = _horner(w, _J1_PP) / _horner(w, _J1_PQ)
    q = _horner(w, _J1_QP) / _horner(w, _J1_QQ)
    t = x - _c(_3PIO4, x)
    return (p * _hp(trig0, t) + sign * (5.0 / x) * q * _hp(trig1, t)) * _SQ2OPI / _hp(
        paddle.sqrt, x)


def _bessel_j0(x):
    x = paddle.abs(x)
    z = x * x
    small = (z - _c(5.78318596294678452118e+00, z)) * (
        z - _c(3.04712623436620863991e+01, z)) * \
        _horner(z, _J0_RP) / _horner(z, _J0_RQ)
    small = paddle.where(x < _c(1e-5, x), 1.0 - z / 4.0, small)
    return paddle.where(x <= 5.0, small, _j0_asym(x, paddle.cos, paddle.sin, -1.0))


def _bessel_j1_pos(x):
    z = x * x
    small = _horner(z, _J1_RP) / _horner(z, _J1_RQ) * x * (
        z - _c(1.46819706421238932572e+01, z)) * (z - _c(4.92184563216946036703e+01, z))
    return paddle.where(x <= 5.0, small, _j1_asym(x, paddle.cos, paddle.sin, -1.0))


def _bessel_j1(x):
    r = _bessel_j1_pos(paddle.abs(x))
    return paddle.where(x < 0, -r, r)


def _bessel_y0(x):
    z = x * x
    small = _horner(z, _Y0_YP) / _horner(z, _Y0_YQ) + _TWOOPI * _hp(paddle.log, x) * _bessel_j0(x)
    small = paddle.where(x < 0, _nan_like(x), small)
    small = paddle.where(x == 0, _inf_like(x, -1.0), small)
    return paddle.where(x <= 5.0, small, _j0_asym(x, paddle.sin, paddle.cos, 1.0))


def _bessel_y1(x):
    z = x * x
    small = x * (_horner(z, _Y1_YP) / _horner(z, _Y1_YQ)) + _TWOOPI * (
        _bessel_j1_pos(x) * _hp(paddle.log, x) - 1.0 / x)
    small = paddle.where(x < 0, _nan_like(x), small)
    small = paddle.where(x == 0, _inf_like(x, -1.0), small)
    return paddle.where(x <= 5.0, small, _j1_asym(x, paddle.sin, paddle.cos, 1.0))


_K0_A = (1.37446543561352307156e-16, 4.25981614279661018399e-14, 1.03496952576338420167e-11,
         1.90451637722020886025e-09, 2.53479107902614945675e-07, 2.28621210311945178607e-05,
         1.26461541144692592338e-03, 3.59799365153615016266e-02, 3.44289899924628486886e-01,
         -5.35327393233902768720e-01)
_K0_B = (5.30043377268626276149e-18, -1.64758043015242134646e-17, 5.21039150503902756861e-17,
         -1.67823109680541210385e-16, 5.51205597852431940784e-16, -1.84859337734377901440e-15,
         6.34007647740507060557e-15, -2.22751332699166985548e-14, 8.03289077536357521100e-14,
         -2.98009692317273043925e-13, 1.14034058820847496303e-12, -4.51459788337394416547e-12,
         1.85594911495471785253e-11, -7.95748924447710747776e-11, 3.57739728140030116597e-10,
         -1.69753450938905987466e-09, 8.57403401741422608519e-09, -4.66048989768794782956e-08,
         2.76681363944501510342e-07, -1.83175552271911948767e-06, 1.39498137188764993662e-05,
         -1.28495495816278026384e-04, 1.56988388573005337491e-03, -3.14481013119645005427e-02,
         2.44030308206595545468e+00)
_K1_A = (-7.02386347938628759343e-18, -2.42744985051936593393e-15, -6.66690169419932900609e-13,
         -1.41148839263352776110e-10, -2.21338763073472585583e-08, -2.43340614156596823496e-06,
         -1.73028895751305206302e-04, -6.97572385963986435018e-03, -1.22611180822657148235e-01,
         -3.53155960776544875667e-01, 1.52530022733894777053e+00)
_K1_B = (-5.75674448366501715755e-18, 1.79405087314755922667e-17, -5.68946255844285935196e-17,
         1.83809354436663880070e-16, -6.05704724837331885336e-16, 2.03870316562433424052e-15,
         -7.01983709041831346144e-15, 2.47715442448130437068e-14, -8.97670518232499435011e-14,
         3.34841966607842919884e-13, -1.28917396095102890680e-12, 5.13963967348173025100e-12,
         -2.12996783842756842877e-11, 9.21831518760500529508e-11, -4.19035475934189648750e-10,
         2.01504975519703286596e-09, -1.03457624656780970260e-08, 5.74108412545004946722e-08,
         -3.50196060308781257119e-07, 2.40648494783721712015e-06, -1.93619797416608296024e-05,
         1.95215518471351631108e-04, -2.85781685962277938680e-03, 1.03923736576817238437e-01,
         2.72062619048444266945e+00)


def _bessel_k(x, order, scaled):
    """K0/K1 (scaled: times exp(x)): Chebyshev series on [0, 2] and (2, inf)."""
    a_coef, b_coef = (_K0_A, _K0_B) if order == 0 else (_K1_A, _K1_B)
    safe = paddle.where(x > 0, x, paddle.ones_like(x))
    lg = _hp(paddle.log, 0.5 * safe)
    cheb_a = _chb(safe * safe - 2.0, a_coef)
    if order == 0:
        small = cheb_a - lg * paddle.i0(safe)
    else:
        small = lg * paddle.i1(safe) + cheb_a / safe
    big = _chb(8.0 / safe - 2.0, b_coef) / _hp(paddle.sqrt, safe)
    if scaled:
        small = small * _hp(paddle.exp, safe)
    else:
        big = _hp(paddle.exp, -safe) * big
    r = paddle.where(x <= 2.0, small, big)
    r = paddle.where(x < 0, _nan_like(x), r)
    r = paddle.where(x == 0, _inf_like(x), r)
    return paddle.where(paddle.isnan(x), x, r)


def _spherical_j0(x):
    z = x * x
    series = _horner(z, (1.0 / 6227020800.0, -1.0 / 39916800.0, 1.0 / 362880.0, -1.0 / 5040.0,
                         1.0 / 120.0, -1.0 / 6.0, 1.0))
    safe = paddle.where(paddle.abs(x) < 0.5, paddle.ones_like(x), x)
    r = paddle.where(paddle.abs(x) < 0.5, series, _hp(paddle.sin, safe) / safe)
    return paddle.where(paddle.isinf(x), paddle.zeros_like(x), r)


_AI_AN = (3.46538101525629032477e-01, 1.20075952739645805542e+01, 7.62796053615234516538e+01,
          1.68089224934630576269e+02, 1.59756391350164413639e+02, 7.05360906840444183113e+01,
          1.40264691163389668864e+01, 9.99999999999999995305e-01)
_AI_AD = (5.67594532638770212846e-01, 1.47562562584847203173e+01, 8.45138970141474626562e+01,
          1.77318088145400459522e+02, 1.64234692871529701831e+02, 7.14778400825575695274e+01,
          1.40959135607834029598e+01, 1.00000000000000000470e+00)
_AI_AFN = (-1.31696323418331795333e-01, -6.26456544431912369773e-01, -6.93158036036933542233e-01,
           -2.79779981545119124951e-01, -4.91900132609500318020e-02, -4.06265923594885404393e-03,
           -1.59276496239262096340e-04, -2.77649108155232920844e-06, -1.67787698489114633780e-08)
_AI_AFD = (1.33560420706553243746e+01, 3.26825032795224613948e+01, 2.67367040941499554804e+01,
           9.18707402907259625840e+00, 1.47529146771666414581e+00, 1.15687173795188044134e-01,
           4.40291641615211203805e-03, 7.54720348287414296618e-05, 4.51850092970580378464e-07)
_AI_AGN = (1.97339932091685679179e-02, 3.91103029615688277255e-01, 1.06579897599595591108e+00,
           9.39169229816650230044e-01, 3.51465656105547619242e-01, 6.33888919628925490927e-02,
           5.85804113048388458567e-03, 2.82851600836737019778e-04, 6.98793669997260967291e-06,
           8.11789239554389293311e-08, 3.41551784765923618484e-10)
_AI_AGD = (9.30892908077441974853e+00, 1.98352928718312140417e+01, 1.55646628932864612953e+01,
           5.47686069422975497931e+00, 9.54293611618961883998e-01, 8.64580826352392193095e-02,
           4.12656523824222607191e-03, 1.01259085116509135510e-04, 1.17166733214413521882e-06,
           4.91834570062930015649e-09)
_SQPII = 5.64189583547756286948e-01


def _airy_ai(x):
    eps = 2.220446049250313e-16 if _name(x.dtype) == "float64" else 1.1920928955078125e-07
    # x < -2.09: the oscillating asymptotic expansion
    lo, hi = _c(-2.09, x), _c(2.09, x)  # Paddle 2.6 compares with Python floats in float32
    neg = paddle.where(x < lo, -x, paddle.full_like(x, 3.0))
    zeta = 2.0 * neg * _hp(paddle.sqrt, neg) / 3.0
    z = 1.0 / zeta
    zz = z * z
    t = zeta + _c(0.25 * math.pi, zeta)
    left = _SQPII / _hp(paddle.sqrt, _hp(paddle.sqrt, neg)) * (
        _hp(paddle.sin, t) * (1.0 + zz * _horner(zz, _AI_AFN) / _horner(zz, _AI_AFD))
        - _hp(paddle.cos, t) * (z * _horner(zz, _AI_AGN) / _horner(zz, _AI_AGD)))
    # x >= 2.09: the decaying expansion
    pos = paddle.where(x >= hi, x, paddle.full_like(x, 3.0))
    zp = 2.0 * pos * _hp(paddle.sqrt, pos) / 3.0
    right = _SQPII * (_horner(1.0 / zp, _AI_AN) / _horner(1.0 / zp, _AI_AD)) / (
        2.0 * _hp(paddle.sqrt, _hp(paddle.sqrt, pos)) * _hp(paddle.exp, zp))
    # |x| < 2.09: the power series, each element stopping where torch's loop stops
    xs = paddle.where((x >= lo) & (x < hi), x, paddle.zeros_like(x))
    f, g, k = paddle.ones_like(xs), xs.clone(), paddle.ones_like(xs)
    m, n, zc = paddle.ones_like(xs), xs.clone(), xs * xs * xs
    active = paddle.ones(xs.shape, dtype="bool")
    while bool(active.any()):
        m2 = m * zc
        k2 = k + 1.0
        m2 = m2 / k2
        n2 = n * zc
        k2 = k2 + 1.0
        n2 = n2 / k2
        m2 = m2 / k2
        f2 = f + m2
        k2 = k2 + 1.0
        n2 = n2 / k2
        g2 = g + n2
        m, n, k = (paddle.where(active, a, b) for a, b in ((m2, m), (n2, n), (k2, k)))
        f, g = paddle.where(active, f2, f), paddle.where(active, g2, g)
        active = active & (paddle.abs(m / f) > eps)
    series = 0.355028053887817239260 * f - 0.258819403792806798405 * g
    r = paddle.where(x < lo, left, paddle.where(x >= hi, right, series))
    r = paddle.where(x > _c(103.892, x), paddle.zeros_like(x), r)
    r = paddle.where(paddle.isnan(x), x, r)
    return paddle.where(paddle.isinf(x), _nan_like(x), r)


_no_grad_unary("bessel_j0", _bessel_j0)
_no_grad_unary("bessel_j1", _bessel_j1)
_no_grad_unary("bessel_y0", _bessel_y0)
_no_grad_unary("bessel_y1", _bessel_y1)
_no_grad_unary("modified_bessel_k0", lambda x: _bessel_k(x, 0, False))
_no_grad_unary("modified_bessel_k1", lambda x: _bessel_k(x, 1, False))
_no_grad_unary("scaled_modified_bessel_k0", lambda x: _bessel_k(x, 0, True))
_no_grad_unary("scaled_modified_bessel_k1", lambda x: _bessel_k(x, 1, True))
_no_grad_unary("spherical_bessel_j0", _spherical_j0)
_no_grad_unary("airy_ai", _airy_ai)


_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)
_MACHEP = 1.11022302462515654042E-16


def _zeta(x, q):  # torch's result says requires_grad but its backward raises: none here
    """Hurwitz zeta(x, q) as torch's CPU kernel: in float64 (its accumulate type for float32
    too), the direct sum until a term is negligible, then the Euler-Maclaurin tail; each element
    stops where torch's loop returns."""
    dt = x.dtype
    x, q = x.astype("float64"), q.astype("float64")
    one = paddle.ones_like(x)
    s = paddle.pow(q, -x)
    a, b = q.clone(), paddle.zeros_like(x)
    i = paddle.zeros_like(x)
    done = paddle.zeros(x.shape, dtype="bool")
    while True:
        go = (~done) & ((i < 9) | (a <= 9.0))
        if not bool(go.any()):
            break
        i2, a2 = i + 1.0, a + 1.0
        b2 = paddle.pow(a2, -x)
        s2 = s + b2
        i, a = paddle.where(go, i2, i), paddle.where(go, a2, a)
        b, s = paddle.where(go, b2, b), paddle.where(go, s2, s)
        done = done | (go & (-_MACHEP * s < b) & (b < _MACHEP * s))
    w = a
    tail = s + b * w / (x - one)
    tail = paddle.where(done, s, tail - 0.5 * b)  # converged elements keep the direct sum
    aa, k = paddle.ones_like(x), paddle.zeros_like(x)
    for coef in _ZETA_A:
        aa = aa * (x + k)
        b = b / w
        t = aa * b / coef
        tail2 = tail + t
        live = ~done
        tail = paddle.where(live, tail2, tail)
        done = done | (live & (paddle.abs(t / tail2) < _MACHEP))
        k = k + 1.0
        aa = aa * (x + k)
        b = b / w
        k = k + 1.0
    r = paddle.where(q <= 0, paddle.where(x != paddle.floor(x), _nan_like(x), tail), tail)
    r = paddle.where((q <= 0) & (q == paddle.floor(q)), _inf_like(x), r)
    r = paddle.where(x < 1, _nan_like(x), r)
    r = paddle.where(x == 1, _inf_like(x), r)
    return r.astype(dt)


@opmath_function("torch.special.zeta")
def zeta(input, other, *, out=None):
    from ._opbase import write_out
    if not isinstance(input, paddle.Tensor) and not isinstance(other, paddle.Tensor):
        raise TypeError(f"special_zeta() received an invalid combination of arguments - got "
                        f"({type(input).__name__}, {type(other).__name__}): one of them must be "
                        f"a Tensor")
    with paddle.no_grad():
        x, q = _binary_float(input, other)
        if x.size == 0:
            return write_out(paddle.zeros(x.shape, dtype=x.dtype), out)
        return write_out(_zeta(x, q), out)


# -- regularized incomplete gamma: torch's calc_igamma / calc_igammac (SciPy's igam/igamc with
# Boost's Lanczos sum), computed in float64 and rounded to the result dtype.  torch switches to
# a uniform asymptotic expansion (DLMF 8.12) for 20 < a < 200 with |x - a| / a < 0.3 and for
# a > 200 near x; here those points take the series / continued fraction of the neighbouring
# region (the same function, convergent there: agreement to about 1e-12, not bitwise).
# Gradient: d/dx as torch's formula; torch has none for `input` (a), neither does this.
_LZ_NUM = (0.006061842346248906525783753964555936883222, 0.5098416655656676188125178644804694509993,
           19.51992788247617482847860966235652136208, 449.9445569063168119446858607650988409623,
           6955.999602515376140356310115515198987526, 75999.29304014542649875303443598909137092,
           601859.6171681098786670226533699352302507, 3481712.15498064590882071018964774556468,
           14605578.08768506808414169982791359218571, 43338889.32467613834773723740590533316085,
           86363131.28813859145546927288977868422342, 103794043.1163445451906271053616070238554,
           56906521.91347156388090791033559122686859)
_LZ_DEN = (1., 66., 1925., 32670., 357423., 2637558., 13339535., 45995730., 105258076., 150917976.,
           120543840., 39916800., 0.)
_LZ_G = 6.024680040776729583740234375
_IG_MAXITER = 2000


def _lanczos_sum_expg_scaled(a):
    """ratevl(): the rational function in 1/a for |a| > 1 (coefficients reversed)."""
    big = paddle.abs(a) > 1
    y = paddle.where(big, 1.0 / a, a)
    num_f, den_f = _horner(y, _LZ_NUM), _horner(y, _LZ_DEN)
    num_r, den_r = _horner(y, _LZ_NUM[::-1]), _horner(y, _LZ_DEN[::-1])
    return paddle.where(big, num_r / den_r, num_f / den_f)


def _igam_fac(a, x):
    """x^a exp(-x) / gamma(a) (torch's _igam_helper_fac)."""
    ax = a * paddle.log(x) - x - paddle.lgamma(a)
    direct = paddle.where(ax < -7.09782712893383996843E2, paddle.zeros_like(ax), paddle.exp(ax))
    fac = a + (_LZ_G - 0.5)
    res = paddle.sqrt(fac / 2.718281828459045) / _lanczos_sum_expg_scaled(a)
    small = res * paddle.exp(a - x) * paddle.pow(x / fac, a)
    numfac = (x - a - _LZ_G + 0.5) / fac
    large = res * paddle.exp(a * (paddle.log1p(numfac) - numfac) + x * (0.5 - _LZ_G) / fac)
    lanczos = paddle.where((a < 200) & (x < 200), small, large)
    return paddle.where(paddle.abs(a - x) > 0.4 * paddle.abs(a), direct, lanczos)


def _loop(state, step, active):
    """Run ``step`` until every element has stopped (at most 2000 times, torch's MAXITER)."""
    for _ in range(_IG_MAXITER):
        if not bool(active.any()):
            break
        new, stop = step(state)
        state = [paddle.where(active, n, o) for n, o in zip(new, state)]
        active = active & ~stop
    return state


def _igam_series(a, x):
    ax = _igam_fac(a, x)
    r, c, ans = a.clone(), paddle.ones_like(a), paddle.ones_like(a)

    def step(s):
        r, c, ans = s
        r = r + 1.0
        c = c * x / r
        ans = ans + c
        return (r, c, ans), c <= _MACHEP * ans
    r, c, ans = _loop([r, c, ans], step, ax != 0)
    return paddle.where(ax == 0, paddle.zeros_like(a), ans * ax / a)


def _igamc_series(a, x):
    fac, total, n = paddle.ones_like(a), paddle.zeros_like(a), paddle.zeros_like(a)

    def step(s):
        fac, total, n = s
        n = n + 1.0
        fac = fac * (-x) / n
        term = fac / (a + n)
        total = total + term
        return (fac, total, n), paddle.abs(term) <= _MACHEP * paddle.abs(total)
    fac, total, n = _loop([fac, total, n], step, paddle.ones(a.shape, dtype="bool"))
    logx = paddle.log(x)
    term = -paddle.expm1(a * logx - paddle.lgamma(1 + a))
    return term - paddle.exp(a * logx - paddle.lgamma(a)) * total


def _igamc_cf(a, x):
    ax = _igam_fac(a, x)
    y = 1.0 - a
    z = x + y + 1.0
    c = paddle.zeros_like(a)
    pkm2, qkm2 = paddle.ones_like(a), x.clone()
    pkm1, qkm1 = x + 1.0, z * x
    ans = pkm1 / qkm1
    big, biginv = 4.503599627370496e15, 2.22044604925031308085e-16

    def step(s):
        c, y, z, pkm2, pkm1, qkm2, qkm1, ans = s
        c, y, z = c + 1.0, y + 1.0, z + 2.0
        yc = y * c
        pk = pkm1 * z - pkm2 * yc
        qk = qkm1 * z - qkm2 * yc
        nz = qk != 0
        r = pk / paddle.where(nz, qk, paddle.ones_like(qk))
        t = paddle.where(nz, paddle.abs((ans - r) / r), paddle.ones_like(r))
        ans = paddle.where(nz, r, ans)
        pkm2, pkm1, qkm2, qkm1 = pkm1, pk, qkm1, qk
        scale = paddle.where(paddle.abs(pk) > big, paddle.full_like(pk, biginv),
                             paddle.ones_like(pk))
        pkm2, pkm1, qkm2, qkm1 = pkm2 * scale, pkm1 * scale, qkm2 * scale, qkm1 * scale
        return (c, y, z, pkm2, pkm1, qkm2, qkm1, ans), t <= _MACHEP
    s = _loop([c, y, z, pkm2, pkm1, qkm2, qkm1, ans], step, ax != 0)
    return paddle.where(ax == 0, paddle.zeros_like(a), s[-1] * ax)


def _igam_edges(a, x, r, lower):
    """torch's boundary values (nan outside the domain; a == 0, x == 0, infinities)."""
    one, zero = paddle.ones_like(r), paddle.zeros_like(r)
    inside, outside = (one, zero) if lower else (zero, one)
    r = paddle.where(paddle.isinf(x), inside, r)
    r = paddle.where(paddle.isinf(a), paddle.where(paddle.isinf(x), _nan_like(r), outside), r)
    r = paddle.where(x == 0, outside, r)
    r = paddle.where(a == 0, paddle.where(x > 0, inside, _nan_like(r)), r)
    r = paddle.where((x < 0) | (a < 0), _nan_like(r), r)
    return paddle.where(paddle.isnan(a) | paddle.isnan(x), _nan_like(r), r)


def _igammac_core(a, x):
    ok = (a > 0) & (x > 0) & paddle.isfinite(a) & paddle.isfinite(x)
    a = paddle.where(ok, a, paddle.ones_like(a))
    x = paddle.where(ok, x, paddle.ones_like(x))
    use_cf = (x > 1.1) & (x >= a)
    gt, le = x > 1.1, x <= 0.5  # (logical ops: Paddle 2.6 has no bool where kernel)
    lower_minus = (gt & (x < a)) | (~gt & le & (-0.4 / paddle.log(x) < a)) | (
        ~gt & ~le & (x * 1.1 < a))
    xs = paddle.where(lower_minus, x, paddle.full_like(x, 0.5))
    xc = paddle.where(use_cf, x, paddle.full_like(x, 2.0))
    xt = paddle.where(~use_cf & ~lower_minus, x, paddle.full_like(x, 0.5))
    ac = paddle.where(use_cf, a, paddle.ones_like(a))
    return paddle.where(use_cf, _igamc_cf(ac, xc), paddle.where(
        lower_minus, 1.0 - _igam_series(a, xs), _igamc_series(a, xt)))


def _igamma_core(a, x):
    ok = (a > 0) & (x > 0) & paddle.isfinite(a) & paddle.isfinite(x)
    a = paddle.where(ok, a, paddle.ones_like(a))
    x = paddle.where(ok, x, paddle.ones_like(x))
    upper = (x > 1.0) & (x > a)
    xs = paddle.where(upper, paddle.full_like(x, 0.5), x)
    xu = paddle.where(upper, x, paddle.full_like(x, 2.0))
    return paddle.where(upper, 1.0 - _igammac_core(a, xu), _igam_series(a, xs))


def _igamma_fn(name, core, lower, sign):
    def f(input, other):
        for v, arg in ((input, "input"), (other, "other")):
            if not isinstance(v, paddle.Tensor):
                raise TypeError(f"{name}(): argument '{arg}' must be Tensor, not "
                                f"{type(v).__name__}")
        a, x = _operands(input, other)
        dn = _name(a.dtype)
        if dn not in ("float16", "bfloat16", "float32", "float64"):
            raise NotImplementedError(f'"{name}_cpu" not implemented for '
                               f"'{_LEGACY_DTYPE.get(dn, dn)}'")
        shape = list(_np_broadcast_shapes(tuple(a.shape), tuple(x.shape)))
        if 0 in shape:  # (Paddle 2.6 cannot broadcast to a 0-size shape)
            return paddle.zeros(shape, dtype=a.dtype)
        a, x = paddle.broadcast_to(a, shape), paddle.broadcast_to(x, shape)
        with paddle.no_grad():
            a64, x64 = a.astype("float64"), x.astype("float64")
            r = _igam_edges(a64, x64, core(a64, x64), lower)
            out = r.astype(a.dtype)
        if x.stop_gradient:
            return out
        # torch's derivative for `other`: +-exp((a - 1) log x - x - lgamma(a))
        with paddle.no_grad():
            d = paddle.exp((a64 - 1) * paddle.log(x64) - x64 - paddle.lgamma(a64)).astype(
                a.dtype) * sign
        return out + (x - x.detach()) * d
    f.__name__ = f.__qualname__ = name
    return f


def _np_broadcast_shapes(*shapes):
    import numpy as np
    try:
        return np.broadcast_shapes(*shapes)
    except ValueError:
        raise RuntimeError(f"The size of tensor a ({shapes[0]}) must match the size of tensor b "
                           f"({shapes[1]}) at some non-singleton dimension") from None


_LEGACY_DTYPE = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                 "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble"}
_igamma = op("torch.igamma", method=True, inplace=True, out=True)(
    _igamma_fn("igamma", _igamma_core, True, 1.0))
_igammac = op("torch.igammac", method=True, inplace=True, out=True)(
    _igamma_fn("igammac", _igammac_core, False, -1.0))
opmath_function("torch.special.gammainc")(_igamma)
opmath_function("torch.special.gammaincc")(_igammac)
