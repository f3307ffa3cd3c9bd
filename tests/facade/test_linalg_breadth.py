"""torch's older linear-algebra names and the linalg names built on Paddle ops (facade/linalg_more.py)
vs real torch 2.13: cholesky/cholesky_solve/cholesky_inverse, svd (U, S, V), qr, lu/lu_unpack/
lu_solve, logdet, pinverse, matrix_exp, triangular_solve, geqrf/ormqr, linalg.lstsq (every
driver's residuals/rank/singular_values rule), linalg.ldl_factor(_ex)/ldl_solve (LAPACK's
pivots), cross, adjoint/mH/H; gradients where torch has them; zero-size inputs (Paddle 2.6's
kernels refuse them); torch's errors."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

RNG = np.random.default_rng(1)
A = (RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)).astype("float64")
B = RNG.standard_normal((2, 4, 3)).astype("float64")
R = RNG.standard_normal((5, 3)).astype("float32")
W = RNG.standard_normal((3, 5)).astype("float64")
SPD = (A @ A.transpose(0, 2, 1)).astype("float64")
SYM = (lambda m: m + m.transpose(0, 2, 1))(RNG.standard_normal((3, 5, 5))).astype("float64")
C = (RNG.standard_normal((3, 3)) + 1j * RNG.standard_normal((3, 3))).astype("complex64")


def test_cholesky_family():
    check("""
import torch
def f(s, b):
    L = torch.linalg.cholesky(s)
    U = torch.linalg.cholesky(s, upper=True)
    return [torch.cholesky(s), s.cholesky(upper=True), torch.cholesky_solve(b, L),
            torch.cholesky_solve(b, U, upper=True), b.cholesky_solve(L[0]),
            torch.cholesky_inverse(L), torch.cholesky_inverse(U, upper=True),
            L[0].cholesky_inverse(), torch.cholesky_inverse(L[:0]),
            torch.cholesky_solve(b[:0], L[:0])]
""", SPD, B, rtol=1e-6, atol=1e-8)


def test_cholesky_gradients():
    check("""
import torch
def f(s, b):
    s = s.clone().requires_grad_(True)
    b = b.clone().requires_grad_(True)
    L = torch.linalg.cholesky(s)
    y = torch.cholesky_solve(b, L).sum() + torch.cholesky_inverse(L).sum()
    y.backward()
    return s.grad, b.grad
""", SPD, B, rtol=1e-5, atol=1e-7)


def test_svd_qr_pinverse_logdet():
    check("""
import torch
def f(a, r, w):
    U, S, V = torch.svd(r)
    Uf, Sf, Vf = r.svd(some=False)
    Q, R = torch.qr(r)
    Qc, Rc = r.qr(some=False)
    n = torch.svd(r, compute_uv=False)
    return [(U * S) @ V.mT, S, U.abs(), V.abs(), Sf, (Uf[:, :3] * Sf) @ Vf.mT, Q @ R,
            R.abs(), Rc.abs(), Qc.shape, n, type(torch.svd(r)).__name__,
            type(torch.qr(r)).__name__, torch.pinverse(r), w.pinverse(rcond=0.5),
            torch.pinverse(a), torch.logdet(a), a.logdet(), torch.logdet(-a[0:1] @ a[0:1]),
            torch.logdet(torch.diag(torch.tensor([1.0, -2.0])))]
""", A, R, W, rtol=1e-4, atol=1e-5)


def test_lu_family():
    check("""
import torch
def f(a, b, w):
    LU, piv = torch.lu(a)
    LU2, piv2, info = torch.lu(a, get_infos=True)
    P, L, U = torch.lu_unpack(LU, piv)
    Pw, Lw, Uw = torch.lu_unpack(*torch.linalg.lu_factor(w))
    Pt, Lt, Ut = torch.lu_unpack(*torch.linalg.lu_factor(w.mT))
    n1 = torch.lu_unpack(LU, piv, unpack_data=False)
    n2 = torch.lu_unpack(LU, piv, unpack_pivots=False)
    return [LU, piv, info, type(torch.lu(a, get_infos=True)).__name__, a.lu(), a.lu(True, True),
            type(a.lu(True, True)).__name__, P, L, U, P @ L @ U, Pw, Lw, Uw, Pt @ Lt @ Ut,
            n1.L.shape, n1.P, n2.P.shape, n2.U, torch.lu_solve(b, LU, piv), b.lu_solve(LU, piv),
            torch.lu_solve(b[:0], LU[:0], piv[:0])]
""", A, B, W, rtol=1e-6, atol=1e-8)


def test_triangular_solve():
    check("""
import torch
def f(a, b):
    out = []
    for upper in (True, False):
        for tr in (True, False):
            for unit in (True, False):
                r = torch.triangular_solve(b, a, upper=upper, transpose=tr, unitriangular=unit)
                out += [r.solution, r.cloned_coefficient]
    out += [b.triangular_solve(a[0]), torch.triangular_solve(b[:0], a[:0]),
            type(torch.triangular_solve(b, a)).__name__]
    return out
""", A, B, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("shape", [(4, 4), (5, 3), (3, 5), (2, 4, 3), (0, 3), (3, 0)])
def test_geqrf_ormqr(shape):
    X = np.random.default_rng(2).standard_normal(shape)
    m = shape[-2]
    O1 = np.random.default_rng(3).standard_normal(shape[:-2] + (m, 2))
    O2 = np.random.default_rng(4).standard_normal(shape[:-2] + (2, m))
    check("""
import torch
def f(x, o1, o2):
    a, tau = torch.geqrf(x)
    out = [a, tau, x.geqrf(), type(torch.geqrf(x)).__name__]
    for left, o in ((True, o1), (False, o2)):
        for tr in (True, False):
            out.append(torch.ormqr(a, tau, o, left=left, transpose=tr))
    out.append(a.ormqr(tau, o1))
    return out
""", X, O1, O2, rtol=1e-6, atol=1e-8)


def test_geqrf_complex_and_ormqr_gradient():
    check("""
import torch
def f(c, x, o):
    a, tau = torch.geqrf(c)
    q = torch.linalg.householder_product(a, tau)
    ax, tx = torch.geqrf(x)
    ax = ax.clone().requires_grad_(True)
    o = o.clone().requires_grad_(True)
    torch.ormqr(ax, tx, o, transpose=True).pow(2).sum().backward()
    return a, tau, q @ a.triu(), ax.grad, o.grad
""", C, A[0], B[0], rtol=1e-4, atol=1e-5)


def test_matrix_exp():
    Z = np.random.default_rng(5).standard_normal((6, 4, 4))
    Z *= np.array([1e-9, 1e-4, 0.02, 0.3, 1.0, 4.0])[:, None, None] / np.abs(Z).sum(-2).max(-1)[:, None, None]
    check("""
import torch
def f(z, big):
    out = [torch.matrix_exp(z), torch.linalg.matrix_exp(z), z.matrix_exp(),
           torch.matrix_exp(z.float()), torch.matrix_exp(z[:, :1, :1]), torch.matrix_exp(z[:0]),
           torch.matrix_exp(big)]
    zz = z.clone().requires_grad_(True)
    torch.matrix_exp(zz).sum().backward()
    return out + [zz.grad]
""", Z, 3 * A[0], rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("driver", ["None", "'gels'", "'gelsy'", "'gelsd'", "'gelss'"])
def test_lstsq(driver):
    X = np.random.default_rng(6).standard_normal((2, 5, 3))
    Y = np.random.default_rng(7).standard_normal((2, 5, 2))
    check(f"""
import torch
def f(x, y):
    L, d = torch.linalg, {driver}
    out = []
    for a, b in ((x, y), (x[0], y[0]), (x[0].mT, y[0, :3]), (x[0], y[0, :, 0]), (x[:, :3], y[:, :3]),
                 (x[:1], y)):
        r = L.lstsq(a, b, driver=d)
        out += [r, type(r).__name__]
    xx = x.clone().requires_grad_(True)
    L.lstsq(xx, y, driver=d).solution.sum().backward()
    return out + [xx.grad]
""", X, Y, rtol=1e-6, atol=1e-8)


def test_lstsq_rank_deficient():
    X = np.random.default_rng(8).standard_normal((6, 2)) @ np.random.default_rng(9).standard_normal((2, 4))
    Y = np.random.default_rng(10).standard_normal((6, 2))
    check("""
import torch
def f(x, y):
    L = torch.linalg
    return [L.lstsq(x, y, driver=d) for d in ("gelsy", "gelsd", "gelss")] + \\
        [L.lstsq(x, y, rcond=0.5, driver="gelsd")]
""", X, Y, rtol=1e-6, atol=1e-8)


def test_ldl():
    P = np.random.default_rng(11).standard_normal((4, 6, 6))
    P = P + P.transpose(0, 2, 1)
    P[1, 0, 0] = 0.0   # forces a 2x2 pivot
    P[2] = np.diag([1.0, -2.0, 3.0, -4.0, 5.0, 6.0])
    Bm = np.random.default_rng(12).standard_normal((4, 6, 2))
    check("""
import torch
def f(s, p, b):
    L = torch.linalg
    out = []
    for m in (s, p, p.float()):
        r = L.ldl_factor_ex(m)
        out += [r, L.ldl_factor(m), type(r).__name__, L.ldl_solve(r.LD, r.pivots, b.to(m.dtype)[:m.shape[0]]),
                L.ldl_factor(m, hermitian=True)]
    z = L.ldl_factor_ex(torch.zeros(3, 3))
    return out + [z, L.ldl_factor_ex(p[:0]), L.ldl_solve(*L.ldl_factor(p[:0]), b[:0])]
""", SYM, P, Bm, rtol=1e-5, atol=1e-6)


def test_cross_adjoint_mH():
    X = RNG.standard_normal((4, 3, 2)).astype("float32")
    Y = RNG.standard_normal((1, 3, 2)).astype("float32")
    check("""
import torch
def f(x, y, c, r):
    return [torch.cross(x, y), torch.cross(x, y, dim=1), x.cross(y), x.cross(y, dim=-2),
            torch.cross(x.long(), y.long(), dim=1), torch.adjoint(c) * 1, c.adjoint() * 1, c.mH * 1,
            c.H * 1,
            r.mH, r.H, torch.tensor(2.0).H, torch.adjoint(x).shape]
""", X, Y, C, R)


@pytest.mark.parametrize("call", [
    "torch.cross(torch.ones(4, 2), torch.ones(4, 2))",
    "torch.ones(3).H", "torch.ones(2, 2, 2).H", "torch.ones(3).mH", "torch.adjoint(torch.ones(3))",
    "torch.cholesky_solve(torch.ones(3), torch.eye(3))",
    "torch.cholesky_inverse(torch.ones(3))",
    "torch.matrix_exp(torch.ones(2, 3))", "torch.linalg.matrix_exp(torch.ones(2, 2, dtype=torch.long))",
    "torch.geqrf(torch.ones(3))", "torch.ormqr(torch.ones(3, 3), torch.ones(3), torch.ones(2, 3))",
    "torch.triangular_solve(torch.ones(3), torch.eye(3))", "torch.logdet(torch.ones(2, 3))",
    "torch.linalg.lstsq(torch.ones(3, 3), torch.ones(3, 3), driver='foo')",
    "torch.linalg.lstsq(torch.ones(3, 3), torch.ones(3, 3, dtype=torch.float64))",
    "torch.linalg.lstsq(torch.ones(3, 3), torch.ones(2, 3, 3, 3))",
    "torch.linalg.ldl_factor(torch.ones(2, 3))", "torch.linalg.ldl_factor(torch.zeros(3, 3))",
    "torch.svd(torch.ones(3, dtype=torch.long))",
])
def test_errors(call):
    check(f"""
import torch
def f():
    return {call}
""")


def test_lowrank_reconstructs():
    # random projections (Paddle's generator, not torch's stream): compare what is determined,
    # the singular values and the reconstruction of an exactly low-rank matrix
    M = (RNG.standard_normal((8, 2)) @ RNG.standard_normal((2, 6)))
    check("""
import torch
def f(m):
    torch.manual_seed(0)
    U, S, V = torch.svd_lowrank(m, q=3)
    Up, Sp, Vp = torch.pca_lowrank(m, q=2, center=False)
    Uc, Sc, Vc = torch.pca_lowrank(m, q=2)
    c = m - m.mean(-2, keepdim=True)
    return [S[:2], (U * S) @ V.mT, U.shape, Sp, (Up * Sp) @ Vp.mT, Sc, (Uc * Sc) @ Vc.mT - c,
            torch.svd_lowrank(m.mT, q=2)[1]]
""", M, rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("args", ["", "'fro'", "'nuc'", "2", "1", "0", "3.5", "float('inf')",
                                  "-float('inf')", "'fro', (0, 1)", "'fro', (0, 1, 2)",
                                  "2, 1, True", "1, (1, 2)", "'nuc', (1, 2), True",
                                  "None, 0", "2, None, False, None, torch.float64"])
def test_torch_norm(args):
    # torch.functional.norm's dispatch to vector_norm / matrix_norm, the Tensor form (its 4th
    # argument is dtype), out=, and gradients
    X = np.random.default_rng(13).standard_normal((2, 3, 4)).astype("float32")
    check(f"""
import torch
def f(x):
    a = ({args})
    a = a if isinstance(a, tuple) else (a,) if a != () else ()
    if a and a[0] == 'nuc' and len(a) == 1:
        x = x[0]
    xx = x.clone().requires_grad_(True)
    r = torch.norm(xx, *a)
    r.sum().backward()
    m = x.norm(*a[:3], dtype=a[4]) if len(a) > 4 else x.norm(*a)
    if a and a[0] == 0:  # torch leaves no gradient for the 0-"norm" (a count); Paddle a zero one
        return r, m, xx.grad is None or bool((xx.grad == 0).all())
    return r, m, xx.grad
""", X, rtol=1e-5, atol=1e-6)


def test_torch_norm_errors_and_out():
    check("""
import torch
def f(x):
    o = torch.empty(0)
    torch.norm(x, 2, 1, out=o)
    return [o, torch.norm(x[:0], 2), torch.norm(x, 'nuc', (0, 1, 2)) if False else None]
""", np.ones((3, 4), "float32"))
    check("""
import torch
def f():
    return torch.norm(torch.ones(2, 3, 4), 'nuc')
""")


def test_integer_products_outer_einsum():
    # Paddle has no integer addmm_/bmm or bool matmul kernels on the CPU, and refuses an
    # explicit einsum output that drops the ellipsis dimensions (torch sums them)
    I = np.random.default_rng(14).integers(-5, 5, (2, 3, 4))
    J = np.random.default_rng(15).integers(-5, 5, (2, 4, 2))
    check("""
import torch
def f(i, j):
    a = i[0].clone()
    a.addmm_(i[0], j[0] @ j[0].mT, beta=2, alpha=-1)
    b = torch.tensor([True, False, True])
    x = i.float()
    return [a, i.bmm(j), torch.bmm(i, j), torch.outer(b, b), b.outer(b), torch.ger(b, b),
            i[0, 0].outer(j[0, 0]), torch.einsum('...ik, ...j -> ij', x[:1], x[0, 0, :3]),
            torch.einsum('...ik,...j->ij', x, x[0, 0, :3]), torch.einsum('bij,bjk->bik', i, j),
            torch.einsum('ij->', i[0]), torch.einsum('i...->...', x[0, :3, :3])]
""", I, J)


def test_vector_norm_ord0_counts_inf_and_nan():
    """ord=0 counts nonzeros: inf and NaN are nonzero, and the result stays in the graph with
    a zero (never NaN) gradient."""
    v = np.array([[0., 1., np.inf], [np.nan, 0., -2.]], dtype="float32")
    check("""
import torch
def f(v):
    return [torch.linalg.vector_norm(v, 0), torch.linalg.vector_norm(v, 0, 1),
            torch.linalg.vector_norm(v, 0, 0, keepdim=True)]
""", v)
    check("""
import torch
def f(v):
    x = v.clone().requires_grad_(True)
    torch.linalg.vector_norm(x, 0).backward()
    return x.grad is None or bool((x.grad == 0).all())
""", v)
