"""torch.special vs real torch 2.13: every provided function on values across its domain
(tails, zeros, negatives, nan, inf), integer inputs (default float), float64, out=, gradients
where torch has them, the orthogonal polynomials over n = -1..12 and |x| = 1, 0."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

X = np.array([-30.0, -8.0, -3.5, -1.0, -0.6, -0.2, 0.0, 1e-4, 0.3, 0.5, 0.9, 1.0, 2.5, 7.0,
              12.0, 40.0, np.nan, np.inf, -np.inf], dtype="float64")
P = np.array([0.0, 1e-6, 0.02, 0.3, 0.5, 0.77, 0.999, 1.0], dtype="float64")
POS = np.array([0.05, 0.5, 1.0, 2.5, 7.0, 30.0], dtype="float64")

UNARY = ["erf", "erfc", "erfcx", "expit", "exp2", "expm1", "log1p", "i0", "i0e", "i1", "i1e",
         "modified_bessel_i0", "modified_bessel_i1", "ndtr", "log_ndtr", "entr", "sinc"]


@pytest.mark.parametrize("name", UNARY)
def test_unary(name):
    check(f"""
import torch
def f(x):
    F = torch.special.{name}
    return [F(x), F(x.float()), F(torch.arange(-3, 4)), F(x[:0])]
""", X, rtol=2e-6, atol=1e-6)


@pytest.mark.parametrize("name", ["erfinv", "ndtri", "logit"])
def test_unit_interval(name):
    check(f"""
import torch
def f(p):
    F = torch.special.{name}
    return [F(p), F(p.float()), F(p * 2 - 1)]
""", P, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["gammaln", "digamma", "psi"])
def test_gamma_family(name):
    check(f"""
import torch
def f(x):
    return torch.special.{name}(x), torch.special.{name}(x.float())
""", POS, rtol=1e-5, atol=1e-6)


def test_more():
    check("""
import torch
S = torch.special
def f(x, p, q):
    o = torch.empty(0)
    S.erfc(p.float(), out=o)
    return [S.polygamma(0, q), S.polygamma(1, q), S.polygamma(3, q), S.multigammaln(q + 2, 3),
            S.logit(p, eps=1e-3), S.xlog1py(x, p), S.xlogy(p, p), S.xlog1py(0.0, p),
            S.xlogy(torch.tensor([0.0, 2.0, 3.0]), torch.tensor([float('nan'), 0.0, 4.0])),
            S.softmax(x.nan_to_num(0.0, 5.0, -5.0), 0), S.log_softmax(p, dim=0),
            S.logsumexp(q, 0), o, S.xlog1py(torch.arange(3), 2), S.round(x)]
""", X[:8], P, POS, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("name", ["erf", "erfc", "erfcx", "ndtr", "log_ndtr", "ndtri", "i0e",
                                  "i1", "entr", "sinc", "xlog1py"])
def test_gradients(name):
    check(f"""
import torch
def f(p):
    p = p.clone().requires_grad_(True)
    y = torch.special.{name}(p, p + 0.5) if "{name}" == "xlog1py" else torch.special.{name}(p)
    y.sum().backward()
    return p.grad
""", P[1:-2], rtol=1e-5, atol=1e-6)


POLY = ["chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
        "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
        "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
        "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
        "laguerre_polynomial_l", "legendre_polynomial_p"]


@pytest.mark.parametrize("name", POLY)
def test_polynomials(name):
    check(f"""
import torch
def f(x):
    F = torch.special.{name}
    n = torch.arange(-1, 13).reshape(-1, 1).double()
    return [F(x, n), F(x.float(), 3), F(x, torch.tensor(10)), F(torch.arange(-2, 3), 4)]
""", np.array([-1.0, -0.7, -0.1, 0.0, 0.25, 0.5, 0.8, 1.0, 1.6], dtype="float64"),
        rtol=1e-5, atol=1e-5)
