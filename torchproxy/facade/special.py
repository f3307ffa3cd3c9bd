"""``torch.special`` on Paddle ops (differentiable where torch is): torch's definitions written
with Paddle's kernels (erf, erfinv, lgamma, digamma, polygamma, i0/i0e/i1/i1e, logsumexp...).
Integer and bool inputs compute in the default float dtype, float16/bfloat16 on the CPU in
float32 (torch's CPU "opmath"), ``out=`` follows torch's rules.  Paddle has no erfc/erfcx
kernel: both use the Chebyshev fit of Numerical Recipes (fractional error < 1.2e-7), written so
that erfcx(x) = exp(x^2) erfc(x) never overflows; ``log_ndtr`` uses erfcx in the lower tail as
torch does.  The orthogonal polynomials (Chebyshev T/U, Hermite H/He, Laguerre L, Legendre P)
follow torch's recurrences and special cases and, as in torch, have no gradient.  Names whose
Cephes series have no Paddle kernel (Bessel J/Y/K, Airy, spherical Bessel, Hurwitz zeta,
gammainc) are listed in gaps.toml."""
from __future__ import annotations

import math

import paddle

from ._opbase import (_float_input, _full, _name, _operands, adapter, default_float,
                      with_out)
from .registry import TABLE, module

NAMES = (
    "torch.special", "torch.special.chebyshev_polynomial_t",
    "torch.special.chebyshev_polynomial_u", "torch.special.chebyshev_polynomial_v",
    "torch.special.chebyshev_polynomial_w", "torch.special.shifted_chebyshev_polynomial_t",
    "torch.special.shifted_chebyshev_polynomial_u", "torch.special.shifted_chebyshev_polynomial_v",
    "torch.special.shifted_chebyshev_polynomial_w", "torch.special.digamma", "torch.special.entr",
    "torch.special.erf", "torch.special.erfc", "torch.special.erfcx", "torch.special.erfinv",
    "torch.special.exp2", "torch.special.expit", "torch.special.expm1", "torch.special.gammaln",
    "torch.special.hermite_polynomial_h", "torch.special.hermite_polynomial_he",
    "torch.special.i0", "torch.special.i0e", "torch.special.i1", "torch.special.i1e",
    "torch.special.laguerre_polynomial_l", "torch.special.legendre_polynomial_p",
    "torch.special.log1p", "torch.special.log_ndtr", "torch.special.log_softmax",
    "torch.special.logit", "torch.special.logsumexp", "torch.special.modified_bessel_i0",
    "torch.special.modified_bessel_i1", "torch.special.multigammaln", "torch.special.ndtr",
    "torch.special.ndtri", "torch.special.polygamma", "torch.special.psi",
    "torch.special.round", "torch.special.sinc", "torch.special.softmax",
    "torch.special.xlog1py", "torch.special.xlogy",
)

module("torch.special")

_SQRT1_2 = math.sqrt(0.5)
_SQRT2 = math.sqrt(2.0)


def _c(v, like):
    return _full([], v, like.dtype, like)


def _unary(name, compute):
    def fn(input):
        x = _float_input(input)
        if x.size == 0:  # Paddle 2.6 kernels reject 0-size inputs
            return paddle.zeros(x.shape, dtype=x.dtype)
        return compute(x)
    fn.__name__ = fn.__qualname__ = name
    return adapter(f"torch.special.{name}")(with_out(fn))


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


@adapter("torch.special.logit")
def logit(input, eps=None, *, out=None):
    from ._opbase import write_out
    x = _float_input(input)
    if eps is not None:
        x = paddle.clip(x, min=eps, max=1 - eps)
    return write_out(paddle.log(x / (1 - x)), out)


@adapter("torch.special.polygamma")
def polygamma(n, input, *, out=None):
    from ._opbase import write_out
    x = _float_input(input)
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    if x.size == 0:
        return write_out(paddle.zeros(x.shape, dtype=x.dtype), out)
    return write_out(paddle.digamma(x) if n == 0 else paddle.polygamma(x, n), out)


@adapter("torch.special.multigammaln")
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
    return adapter(f"torch.special.{name}")(with_out(f))


_xlog(paddle.log1p, "xlog1py")
_xlog(paddle.log, "xlogy")


# -- torch.* functions under their torch.special names ------------------------------------------
def _from_table(torch_name, special_name):
    impl = TABLE[torch_name].impl
    adapter(special_name)(impl)


_from_table("torch.round", "torch.special.round")
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
    return adapter(f"torch.special.{name}")(with_out(f))


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
    r = _recur(x, n, one, x, lambda k, q, p: x * q - k * p)
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
