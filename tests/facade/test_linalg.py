"""torch.linalg vs real torch 2.13: determinants, inverses, solves, decompositions (values that
are unique: singular values, eigenvalues of symmetric matrices, products of the factors),
norms of every order, pinv/matrix_rank tolerances, products, batch dims, out=, gradients, the
torch.* / Tensor aliases, and torch's errors (singular, non-square, integer input)."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

RNG = np.random.default_rng(0)
A = (RNG.standard_normal((2, 4, 4)) + 4 * np.eye(4)).astype("float64")
B = RNG.standard_normal((2, 4, 3)).astype("float64")
R = RNG.standard_normal((3, 5)).astype("float32")
SPD = (A @ A.transpose(0, 2, 1)).astype("float64")


def test_det_inv_solve():
    check("""
import torch
def f(a, b):
    L = torch.linalg
    o = torch.empty(0, dtype=a.dtype)
    L.inv(a, out=o)
    return [L.det(a), torch.det(a), a.det(), L.slogdet(a), L.inv(a), torch.inverse(a),
            a.inverse(), o, L.inv_ex(a), L.solve(a, b), L.solve(a, b[..., 0]),
            L.solve(a[0], b[0, :, 0]), L.solve(a, b.transpose(-1, -2), left=False),
            L.solve_ex(a, b), L.matrix_power(a, 3), L.matrix_power(a, 0), L.matrix_power(a, -2),
            torch.matrix_power(a, 2), a.matrix_power(2), L.det(a.float()),
            L.solve_triangular(a.triu(), b, upper=True),
            L.solve_triangular(a.tril(), b, upper=False, unitriangular=True),
            L.solve_triangular(a.triu(), b.transpose(-1, -2), upper=True, left=False)]
""", A, B, rtol=1e-6, atol=1e-8)


def test_decompositions():
    check("""
import torch
def f(a, s, r):
    L = torch.linalg
    q, rr = L.qr(r)
    u, sv, vh = L.svd(r, full_matrices=False)
    w, v = L.eigh(s)
    c = L.cholesky(s)
    return [q @ rr, rr.abs(), L.qr(r, mode="complete").R.abs(), (u * sv.unsqueeze(-2)) @ vh,
            sv, L.svdvals(r), w, L.eigvalsh(s), L.eigvalsh(s, UPLO="U"), (v * w.unsqueeze(-2)) @ v.transpose(-1, -2),
            c, L.cholesky(s, upper=True), L.cholesky_ex(s).L, L.svd(r[:0]).U,
            torch.sort(L.eigvals(s).abs()).values, torch.sort(L.eig(s).eigenvalues.abs()).values]
""", A, SPD, R, rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("ord", ["None", "2", "1", "-1", "0", "3.5", "float('inf')",
                                 "-float('inf')", "'fro'", "'nuc'", "-2"])
def test_norms(ord):
    check(f"""
import torch
def f(a, r):
    L, o = torch.linalg, {ord}
    out = []
    if not isinstance(o, str):
        out += [L.vector_norm(a, ord=2 if o is None else o), L.vector_norm(r, 2 if o is None else o, dim=1, keepdim=True),
                L.norm(r[0], o), L.vector_norm(r, 2 if o is None else o, dim=(0, 1), dtype=torch.float64)]
    if o is None or isinstance(o, str) or o in (1, -1, 2, -2, float('inf'), -float('inf')):
        mo = 'fro' if o is None else o
        out += [L.matrix_norm(a, mo), L.matrix_norm(r, mo, keepdim=True), L.norm(r, o),
                L.norm(a, o, dim=(2, 1)), L.matrix_norm(r[:0, :0], mo)]
    return out
""", A, R, rtol=1e-5, atol=1e-6)


def test_rank_pinv_cond_products():
    check("""
import torch
def f(a, r, s):
    L = torch.linalg
    low = r[:, :2] @ r[:2, :]
    x, y = r[:, :3], r[:, 2:]
    return [L.matrix_rank(r), L.matrix_rank(low), L.matrix_rank(low, atol=0.5),
            L.matrix_rank(low, rtol=0.3), L.matrix_rank(s, hermitian=True), L.pinv(r), L.pinv(low),
            L.pinv(s, hermitian=True), L.pinv(r, rtol=0.4), L.cond(a), L.cond(a, 'fro'),
            L.cond(a, 1), L.cond(a, -2), L.cross(x, y), L.cross(x[0], y), L.diagonal(a),
            L.diagonal(a, offset=1, dim1=0, dim2=2), L.vecdot(x, y), L.vecdot(x, y, dim=0),
            L.multi_dot([r, r.T, r]), L.multi_dot([r[0], r.T, r[:, 0]]), L.vander(r[0]),
            L.vander(r[0], N=2), L.vander((r[0] * 3).long()), L.matmul(r, r.T),
            L.tensorinv(a.reshape(4, 2, 4).reshape(2, 4, 4, 2)[..., :] .reshape(4, 2, 2, 4), ind=2),
            L.tensorsolve(a.reshape(2, 4, 8)[:, :, :8].reshape(8, 8).reshape(2, 4, 2, 4),
                          r[:2, :4].double())]
""", A, R, SPD, rtol=1e-4, atol=1e-5)


def test_gradients():
    check("""
import torch
def f(a, r):
    a = a.clone().requires_grad_(True)
    r = r.clone().requires_grad_(True)
    L = torch.linalg
    y = L.det(a).sum() + L.inv(a).sum() + L.slogdet(a).logabsdet.sum() + L.vector_norm(r)
    y = y + L.matrix_norm(r).double() + L.svdvals(r).sum().double() + L.pinv(r).sum().double()
    y.backward()
    return a.grad, r.grad
""", A, R, rtol=1e-4, atol=1e-5)


def test_singular_is_linalg_error():
    check("""
import torch
def f():
    out = []
    for g in (lambda: torch.linalg.inv(torch.ones(3, 3)), lambda: torch.inverse(torch.zeros(2, 2)),
              lambda: torch.linalg.solve(torch.zeros(2, 2), torch.ones(2)),
              lambda: torch.linalg.cholesky(-torch.eye(3))):
        try:
            g()
            out.append(None)
        except RuntimeError as e:
            out.append(isinstance(e, torch.linalg.LinAlgError))
    return out
""")


@pytest.mark.parametrize("call", [
    "L.inv(torch.ones(2, 3))", "L.det(torch.ones(2, 2, dtype=torch.long))",
    "L.matrix_norm(torch.ones(3))", "L.cross(torch.ones(2, 2), torch.ones(2, 2))",
    "L.norm(torch.ones(2, 2, 2), 1)", "L.multi_dot([torch.ones(2, 2)])",
    "L.qr(torch.ones(2, 2), mode='bad')",
    "isinstance(torch.linalg.LinAlgError('x'), RuntimeError)",
])
def test_errors(call):
    check(f"""
import torch
L = torch.linalg
def f():
    return {call}
""")


def test_lu_householder():
    check("""
import torch
def f(a, b, r):
    L = torch.linalg
    LU, piv = L.lu_factor(a)
    P, Lo, U = L.lu(a)
    return [LU, piv, L.lu_factor_ex(a), P, Lo, U, L.lu(r).U, L.lu_solve(LU, piv, b),
            L.lu_solve(LU, piv, b, adjoint=True), L.lu_solve(LU, piv, b.transpose(-1, -2), left=False),
            L.householder_product(r.T, r[0, :3]), torch.orgqr(r.T, r[0, :3]), r.T.orgqr(r[0, :3])]
""", A, B, R, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("args", ["x[:1]", "x[:0]", "x, N=1", "x, N=0", "x[0]"])
def test_vander_needs_more_than_one_column(args):
    # torch: "N must be greater than 1." (the facade returned (n, 0) or (n, 1) results)
    check(f"""
import torch
def f(x):
    return torch.linalg.vander({args})
""", np.arange(1.0, 4.0, dtype="float32"))


@pytest.mark.parametrize("call", [
    "torch.matmul(a, b)", "a @ b", "torch.mm(a, b)", "F.linear(a, w)",
    "F.linear(a, a[:2], torch.ones(2, dtype=torch.float64))", "F.linear(a, w, w[:, 0])",
    "F.linear(a[0], w)", "torch.einsum('ij,jk->ik', a, b)", "torch.matmul(a, b.half())",
    "torch.matmul(a, b.long())", "torch.matmul(a, b.bfloat16())",
])
def test_mixed_dtypes_are_refused_as_torch_does(call):
    # Paddle promotes float32 with float64 (F.linear returned float64) or fails in a kernel
    check(f"""
import torch
import torch.nn.functional as F
def f():
    a = torch.ones(2, 3)
    b = torch.ones(3, 4, dtype=torch.float64)
    w = torch.ones(4, 3, dtype=torch.float64)
    return {call}
""")
