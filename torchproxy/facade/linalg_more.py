"""torch's older linear-algebra functions and the ``torch.linalg`` names Paddle has no kernel for,
on Paddle ops (differentiable where torch is): ``torch.cholesky``/``cholesky_solve``/
``cholesky_inverse``, ``svd`` (``(U, S, V)``), ``qr``, ``lu``/``lu_unpack``/``lu_solve``,
``logdet``, ``pinverse``, ``matrix_exp`` (scaling and squaring with the degree-13 Pade
approximant, Higham 2005), ``triangular_solve``, ``geqrf`` (LAPACK's Householder reflectors,
``dlarfg``'s sign rule) and ``ormqr``, ``linalg.lstsq`` (torch's per-driver rules for residuals,
rank and singular values), ``linalg.ldl_factor(_ex)``/``ldl_solve`` (LAPACK's ``?sytf2``
Bunch-Kaufman pivoting), ``svd_lowrank``/``pca_lowrank`` (torch's randomized algorithm on
Paddle's generator), ``torch.cross`` and ``adjoint``/``Tensor.mH``/``Tensor.H``.

Result tuples carry torch's field names (``torch.return_types.svd`` -> ``U, S, V``...), errors
torch's classes and messages."""
from __future__ import annotations

import builtins
import math

import numpy as np
import paddle

from ._opbase import _name
from .linalg import (LinAlgError, _bcast, _bshape, _eye, _float, _mH, _out, _psolve,
                     _real_dtype, _rt, _square,
                     cholesky as _lcholesky, cross as _lcross, lu_factor_ex as _lu_factor_ex,
                     lu_solve as _llu_solve, pinv as _pinv, qr as _lqr, slogdet as _slogdet,
                     svd as _lsvd)
from .registry import op, tensor_method, torch_function

from .registry import manifest

NAMES = manifest("""
    torch: adjoint cholesky cholesky_inverse cholesky_solve cross geqrf logdet lu lu_solve
        lu_unpack matrix_exp ormqr pca_lowrank pinverse qr slogdet svd svd_lowrank triangular_solve
    torch.Tensor: H adjoint cholesky cholesky_inverse cholesky_solve cross geqrf logdet lu lu_solve
        mH matrix_exp ormqr pinverse qr slogdet svd triangular_solve
    torch.linalg: ldl_factor ldl_factor_ex ldl_solve lstsq matrix_exp
""")

SVDResult = _rt("svd", ("U", "S", "V"))
QRResult = _rt("qr", ("Q", "R"))
LUWithInfo = _rt("_lu_with_info", ("LU", "pivots", "info"))
LUUnpackResult = _rt("lu_unpack", ("P", "L", "U"))
TriangularSolveResult = _rt("triangular_solve", ("solution", "cloned_coefficient"))
GeqrfResult = _rt("geqrf", ("a", "tau"))
LstsqResult = _rt("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))
LDLFactorResult = _rt("linalg_ldl_factor", ("LD", "pivots"))
LDLFactorExResult = _rt("linalg_ldl_factor_ex", ("LD", "pivots", "info"))


def _complex(A):
    return _name(A.dtype).startswith("complex")


def _batch(*shapes):
    out = []
    for s in shapes:
        out = _bshape(out, list(s))
    return out


def _square_system(fn, A, B):
    """torch's checks of A X = B (linearSolveCheckInputs): A square, B with A's row count."""
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    if B.shape[-2] != A.shape[-1]:
        raise RuntimeError(f"Incompatible matrix sizes for {fn}: each A matrix is "
                           f"{A.shape[-1]} by {A.shape[-1]} but each b matrix is "
                           f"{B.shape[-2]} by {B.shape[-1]}")


def _batched_pair(B, A):
    """B and A broadcast to their common batch shape (each keeps its own matrix dims)."""
    batch = _batch(B.shape[:-2], A.shape[:-2])
    return _bcast(B, batch + list(B.shape[-2:])), _bcast(A, batch + list(A.shape[-2:]))


def _need2d(fn, what, t):
    if t.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {what} must have at least 2 dimensions.")


def _same_dtype(fn, a, b, an="input", bn="other"):
    if a.dtype != b.dtype:
        raise RuntimeError(f"{fn}: Expected {an} and {bn} to have the same dtype, but got "
                           f"{an}'s dtype {_legacy(a)} and {bn}'s dtype {_legacy(b)}")


_LEG = {"float32": "Float", "float64": "Double", "complex64": "ComplexFloat",
        "complex128": "ComplexDouble", "int64": "Long", "int32": "Int", "int16": "Short",
        "int8": "Char", "uint8": "Byte", "bool": "Bool", "float16": "Half",
        "bfloat16": "BFloat16"}


def _legacy(t):
    n = _name(t.dtype)
    return _LEG.get(n, n)


# -- adjoint, Tensor.mH, Tensor.H ----------------------------------------------------------------
def _adj_of_matrices(x, what):
    """The conjugate transpose of a matrix or batch of matrices; ``what`` names the caller
    in torch's error for fewer than two dims."""
    if x.ndim < 2:
        raise RuntimeError(f"{what} is only supported on matrices or batches of matrices. "
                           f"Got {x.ndim}-D tensor.")
    return _mH(x)


@op("torch.adjoint", method=True)
def adjoint(input):
    return _adj_of_matrices(input, "tensor.adjoint()")


@tensor_method("mH")
@property
def mH(self):
    return _adj_of_matrices(self, "tensor.mH")


@tensor_method("H")
@property
def H(self):
    if self.ndim == 0:
        return self
    if self.ndim != 2:
        raise RuntimeError("tensor.H is only supported on matrices (2-D tensors). Got "
                           f"{self.ndim}-D tensor."
                           + (" For batches of matrices, consider using tensor.mH"
                              if self.ndim > 2 else ""))
    return _mH(self)


# -- cross ---------------------------------------------------------------------------------------
@op("torch.cross", method=True)
def cross(input, other, dim=None, *, out=None):
    if dim is None:  # torch: the first dimension of size 3 (deprecated default)
        for i, s in enumerate(input.shape):
            if s == 3:
                dim = i
                break
        else:
            raise RuntimeError("no dimension of size 3 in input")
    return _lcross(input, other, dim=dim, out=out)


# -- Cholesky ------------------------------------------------------------------------------------
@op("torch.cholesky", method=True)
def cholesky(input, upper=False, *, out=None):
    return _lcholesky(input, upper=upper, out=out)


def _chol_solve(fn, B, L, upper):
    _float(fn, B)
    _float(fn, L)
    if B.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B.ndim} dimensions "
                           "instead")
    if L.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L.ndim} dimensions "
                           "instead")
    _square_system(fn, L, B)
    if B.dtype != L.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_legacy(B)} and A of type {_legacy(L)} instead.")
    B_, L_ = _batched_pair(B, L)
    if B_.size == 0 or L_.size == 0:
        return paddle.zeros(B_.shape, dtype=B.dtype)
    # A = L L^H (U^H U): X = L^-H L^-1 B by two triangular solves on the triangle torch's potrs
    # reads.  torch's backward treats the factor as a full matrix (the gradient of
    # (L L^H)^-1 B): a solve with the full product carries that gradient (the value it adds is
    # zero).  Paddle's cholesky_solve kernel is not used: its backward crashes when only B
    # needs a gradient.
    T = paddle.triu(L_) if upper else paddle.tril(L_)
    with paddle.no_grad():
        if upper:
            y = paddle.linalg.triangular_solve(_mH(T), B_, upper=False)
            X = paddle.linalg.triangular_solve(T, y, upper=True)
        else:
            y = paddle.linalg.triangular_solve(T, B_, upper=False)
            X = paddle.linalg.triangular_solve(_mH(T), y, upper=True)
    if L_.stop_gradient and B_.stop_gradient:
        return X
    A = paddle.matmul(_mH(L_), L_) if upper else paddle.matmul(L_, _mH(L_))
    Y = _psolve(A, B_)
    return X + (Y - Y.detach())


@op("torch.cholesky_solve", method=True)
def cholesky_solve(input, input2, upper=False, *, out=None):
    return _out(_chol_solve("cholesky_solve", input, input2, upper), out)


@op("torch.cholesky_inverse", method=True)
def cholesky_inverse(input, upper=False, *, out=None):
    _float("cholesky_inverse", input)
    _need2d("cholesky_inverse", "A", input)
    if input.shape[-1] != input.shape[-2]:
        raise RuntimeError(f"cholesky_inverse: A must be batches of square matrices, but they "
                           f"are {input.shape[-2]} by {input.shape[-1]} matrices")
    if input.size == 0:
        return _out(paddle.zeros(input.shape, dtype=input.dtype), out)
    n = input.shape[-1]
    eye = _bcast(_eye(n, dtype=input.dtype), list(input.shape))
    return _out(_chol_solve("cholesky_inverse", eye, input, upper), out)


# -- SVD, QR (the pre-linalg forms) --------------------------------------------------------------
@op("torch.svd", method=True)
def svd(input, some=True, compute_uv=True, *, out=None):
    _float("svd", input)
    if input.ndim < 2:
        raise RuntimeError("linalg.svd: The input tensor A must have at least 2 dimensions.")
    if not compute_uv:
        m, n, b = input.shape[-2], input.shape[-1], list(input.shape[:-2])
        S = _lsvd(input, full_matrices=False).S
        return _out(SVDResult(paddle.zeros(b + [m, m], dtype=input.dtype), S,
                              paddle.zeros(b + [n, n], dtype=input.dtype)), out)
    U, S, Vh = _lsvd(input, full_matrices=not some)
    return _out(SVDResult(U, S, _mH(Vh)), out)


@op("torch.qr", method=True)
def qr(input, some=True, *, out=None):
    Q, R = _lqr(input, "reduced" if some else "complete")
    return _out(QRResult(Q, R), out)


# -- LU (torch.lu, lu_unpack, lu_solve) ----------------------------------------------------------
def _lu_method(self, pivot=True, get_infos=False):
    """Tensor.lu: a plain tuple (LU, pivots[, infos]), as torch's Tensor.lu returns."""
    r = lu(self, pivot, get_infos)
    return tuple(r)


@op("torch.lu", method=_lu_method)
def lu(A, pivot=True, get_infos=False, out=None):
    LU, piv, info = _lu_factor_ex(A, pivot=pivot)
    if get_infos:
        return _out(LUWithInfo(LU, piv, info), out)
    if info.size and bool((info > 0).any()):
        raise LinAlgError("torch.linalg.lu_factor: U[i,i] is zero and using it on lu_solve "
                          "would result in a division by zero. If you still want to perform "
                          "the factorization, consider calling linalg.lu(A, pivot) or "
                          "linalg.lu_factor_ex(A, pivot)")
    return _out((LU, piv), out)


def _perm_from_pivots(piv, m):
    """LAPACK's 1-based row interchanges (batch..., k) -> permutation matrices (batch..., m, m)
    with A = P L U, as torch.lu_unpack builds them (host loop over the k interchanges)."""
    p = np.asarray(piv.numpy(), dtype=np.int64)
    b = p.shape[:-1]
    flat = p.reshape(-1, p.shape[-1]) if p.ndim else p.reshape(1, 0)
    perms = np.tile(np.arange(m), (flat.shape[0], 1))
    for r in range(flat.shape[0]):
        for i, j in enumerate(flat[r]):
            j = int(j) - 1
            if not 0 <= j < m:
                raise RuntimeError("lu_unpack: pivots out of range: LU_pivots must hold "
                                   f"1-based row indices no larger than {m}")
            perms[r, i], perms[r, j] = perms[r, j], perms[r, i]
    # row i of P^T A is row perms[i] of A: P[perms[i], i] = 1
    P = np.zeros((flat.shape[0], m, m))
    for r in range(flat.shape[0]):
        P[r, perms[r], np.arange(m)] = 1
    return P.reshape(tuple(b) + (m, m))


@torch_function("torch.lu_unpack")
def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    _need2d("torch.lu_unpack", "LU_data", LU_data)
    m, n = LU_data.shape[-2], LU_data.shape[-1]
    k = builtins.min(m, n)
    if list(LU_pivots.shape) != list(LU_data.shape[:-2]) + [k]:
        raise RuntimeError("torch.lu_unpack: Expected LU_pivots.shape[:-1] to be the same as "
                           "LU_data.shape[:-2], but got LU_pivots.shape[:-1] = "
                           f"{list(LU_pivots.shape[:-1])} and LU_data.shape[:-2] = "
                           f"{list(LU_data.shape[:-2])}")
    if _name(LU_pivots.dtype) != "int32":
        raise RuntimeError("torch.lu_unpack: LU_pivots is expected to be a contiguous tensor of "
                           "torch.int32 dtype.")
    empty = paddle.zeros([0], dtype=LU_data.dtype)
    if unpack_data:
        L = paddle.tril(LU_data[..., :, :k], -1) + _eye(m, k, dtype=LU_data.dtype) \
            if LU_data.size else paddle.zeros(list(LU_data.shape[:-2]) + [m, k], LU_data.dtype)
        U = paddle.triu(LU_data[..., :k, :]) if LU_data.size else \
            paddle.zeros(list(LU_data.shape[:-2]) + [k, n], LU_data.dtype)
    else:
        L = U = empty
    if unpack_pivots:
        P = paddle.to_tensor(_perm_from_pivots(LU_pivots, m), dtype=LU_data.dtype,
                             place=LU_data.place)
    else:
        P = empty
    return _out(LUUnpackResult(P, L, U), out)


@op("torch.lu_solve", method=True)
def lu_solve(input, LU_data, LU_pivots, *, out=None):
    return _llu_solve(LU_data, LU_pivots, input, out=out)


# -- logdet, pinverse ----------------------------------------------------------------------------
@op("torch.logdet", method=True)
def logdet(input):
    _square("logdet", input)
    sign, logabs = _slogdet(input)
    if _complex(input):
        return paddle.log(sign) + logabs.astype(input.dtype)
    nan = paddle.full_like(logabs, math.nan)
    return paddle.where(sign < 0, nan, logabs)


_SlogdetResult = _rt("slogdet", ("sign", "logabsdet"))  # torch.return_types.slogdet


@op("torch.slogdet", method=True)
def slogdet(input, *, out=None):
    """torch.linalg.slogdet under torch's older name (its own result type, errors named so)."""
    _square("slogdet", input)
    r = _slogdet(input)
    return _out(_SlogdetResult(r[0], r[1]), out)


@op("torch.pinverse", method=True)
def pinverse(input, rcond=1e-15):
    return _pinv(input, rtol=rcond)


# -- matrix exponential --------------------------------------------------------------------------
# torch's algorithm (Bader, Blanes, Casas: "Computing the matrix exponential with an optimized
# Taylor polynomial approximation", Mathematics 7 (2019) 1174): per matrix, the Taylor degree
# 1/2/4/8/12 whose 1-norm bound holds, else degree 18 with scaling and squaring; computed in the
# input's precision as torch does (so float32 results round like torch's).
_THETAS = {"float32": (1.192092800768788e-07, 5.978858893805233e-04, 5.116619363445086e-02,
                       5.800524627688768e-01, 1.461661507209034e+00, 3.010066362817634e+00),
           "float64": (2.220446049250313e-16, 2.580956802971767e-08, 3.397168839976962e-04,
                       4.991228871115323e-02, 2.996158913811580e-01, 1.090863719290036e+00)}
_SQRT177 = 0.1330413469565007072504e+2
_T8 = {"x3": 2.0 / 3.0}
_T8["x1"] = _T8["x3"] * ((1.0 + _SQRT177) / 88.0)
_T8["x2"] = _T8["x3"] * ((1.0 + _SQRT177) / 352.0)
_T8["x4"] = (-271.0 + 29.0 * _SQRT177) / (315.0 * _T8["x3"])
_T8["x5"] = (-11.0 + 11.0 * _SQRT177) / (1260.0 * _T8["x3"])
_T8["x6"] = (-99.0 + 11.0 * _SQRT177) / (5040.0 * _T8["x3"])
_T8["x7"] = (89.0 - _SQRT177) / (5040.0 * _T8["x3"])
_T8["y2"] = (857.0 - 58.0 * _SQRT177) / 630.0
_B12 = ((9.0198e-16, 0.46932117595418237389, -0.20099424927047284052, -0.04623946134063071740),
        (5.31597895759871264183, 1.19926790417132231573, 0.01179296240992997031,
         0.01108844528519167989),
        (0.18188869982170434744, 0.05502798439925399070, 0.09351590770535414968,
         0.00610700528898058230),
        (-2.0861320e-13, -0.13181061013830184015, -0.02027855540589259079,
         -0.00675951846863086359))
_B18 = ((0.0, -1.00365581030144618291e-01, -8.02924648241156932449e-03,
         -8.92138498045729985177e-04, 0.0),
        (0.0, 3.97849749499645077844e-01, 1.36783778460411720168e+00,
         4.98289622525382669416e-01, -6.37898194594723280150e-04),
        (-1.09676396052962061844e+01, 1.68015813878906206114e+00, 5.71779846478865511061e-02,
         -6.98210122488052056106e-03, 3.34975017086070470649e-05),
        (-9.04316832390810593223e-02, -6.76404519071381882256e-02, 6.75961301770459654925e-02,
         2.95552570429315521194e-02, -1.39180257516060693404e-05),
        (0.0, 0.0, -9.23364619367118555360e-02, -1.69364939002081722752e-02,
         -1.40086798182036094347e-05))


def _lincomb(As, coefs):
    r = None
    for a, c in zip(As, coefs):
        t = a * float(np.float32(c)) if _name(a.dtype) in ("float32", "complex64") else a * c
        r = t if r is None else r + t
    return r


def _taylor(A, deg):
    mm = paddle.matmul
    eye = _eye(A.shape[-1], dtype=A.dtype)
    if deg == 1:
        return eye + A
    A2 = mm(A, A)
    if deg == 2:
        return eye + A + A2 / 2.0
    if deg == 4:
        return _lincomb([eye, A, mm(A2, _lincomb([eye, A, A2], (1 / 2.0, 1 / 6.0, 1 / 24.0)))],
                        (1.0, 1.0, 1.0))
    if deg == 8:
        c = _T8
        A4 = mm(A2, _lincomb([A, A2], (c["x1"], c["x2"])))
        A8 = mm(_lincomb([A2, A4], (c["x3"], 1.0)),
                _lincomb([eye, A, A2, A4], (c["x4"], c["x5"], c["x6"], c["x7"])))
        return _lincomb([eye, A, A2, A8], (1.0, 1.0, c["y2"], 1.0))
    A3 = mm(A, A2)
    if deg == 12:
        Bs = [_lincomb([eye, A, A2, A3], row) for row in _B12]
        A6 = Bs[2] + mm(Bs[3], Bs[3])
        return Bs[0] + mm(Bs[1] + A6, A6)
    A6 = mm(A3, A3)
    Bs = [_lincomb([eye, A, A2, A3, A6], row) for row in _B18]
    A9 = mm(Bs[0], Bs[4]) + Bs[3]
    return Bs[1] + mm(Bs[2] + A9, A9)


def _expm(A):
    """A: (..., n, n), float32/float64/complex; torch's degree choice per matrix."""
    n = A.shape[-1]
    flat = A.reshape([-1, n, n])
    thetas = _THETAS["float32" if _name(A.dtype) in ("float32", "complex64") else "float64"]
    norms = paddle.max(paddle.sum(paddle.abs(flat), axis=-2), axis=-1).numpy().tolist()
    outs = []
    for i, nm in enumerate(norms):
        a = flat[i]
        if nm >= thetas[4] or not math.isfinite(nm):
            s = builtins.max(0, math.ceil(math.log2(nm / thetas[5]))) if math.isfinite(nm) \
                else 0
            r = _taylor(a / float(2 ** s) if s else a, 18)
            for _ in range(s):
                r = paddle.matmul(r, r)
        else:
            deg = next(d for d, t in zip((1, 2, 4, 8, 12), thetas) if nm <= t)
            r = _taylor(a, deg)
        outs.append(r)
    return paddle.stack(outs).reshape(A.shape)


@op("torch.linalg.matrix_exp")
def linalg_matrix_exp(A):
    _square("linalg.matrix_exp", A)
    if A.size == 0:
        return paddle.zeros(A.shape, dtype=A.dtype)
    if A.shape[-1] == 1:
        return paddle.exp(A)
    return _expm(A)


op("torch.matrix_exp", method=True)(lambda input: linalg_matrix_exp(input))


# -- triangular_solve ----------------------------------------------------------------------------
def _triangle(A, upper, unitriangular):
    """The part of A a triangular solve reads (so the rest gets a zero gradient, as in torch)."""
    if unitriangular:
        return (paddle.triu(A, 1) if upper else paddle.tril(A, -1)) + \
            _eye(A.shape[-1], dtype=A.dtype)
    return paddle.triu(A) if upper else paddle.tril(A)


@op("torch.triangular_solve", method=True)
def triangular_solve(input, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    fn = "torch.triangular_solve"
    if input.ndim < 2:
        raise RuntimeError(f"{fn}: Expected b to have at least 2 dimensions, but it has "
                           f"{input.ndim} dimensions instead")
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: Expected A to have at least 2 dimensions, but it has "
                           f"{A.ndim} dimensions instead")
    _float(fn, input)
    _float(fn, A)
    if input.dtype != A.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{_legacy(input)} and A of type {_legacy(A)} instead.")
    _square_system(fn, A, input)
    B_, A_ = _batched_pair(input, A)
    if B_.size == 0 or A_.size == 0:
        X = paddle.zeros(B_.shape, dtype=B_.dtype)
    else:
        A_tri = _triangle(A_, upper, unitriangular)
        At = _mH(A_tri) if (transpose and _complex(A_)) else A_tri
        X = paddle.linalg.triangular_solve(At, B_, upper=(not upper) if (transpose and
                                                                         _complex(A_)) else upper,
                                           transpose=transpose and not _complex(A_),
                                           unitriangular=unitriangular)
    return _out(TriangularSolveResult(X, A_.clone() if A_.size else A_), out)


# -- Householder QR: geqrf, ormqr ----------------------------------------------------------------
def _sign_plus(x):
    """LAPACK's SIGN(1, x): +1 for x >= 0 (and +0), -1 below."""
    return paddle.where(x >= 0, paddle.ones_like(x), -paddle.ones_like(x))


@op("torch.geqrf", method=True)
def geqrf(input, *, out=None):
    if input.ndim < 2:
        raise RuntimeError("torch.geqrf: input must have at least 2 dimensions.")
    _float("torch.geqrf", input)
    m, n = input.shape[-2], input.shape[-1]
    k = builtins.min(m, n)
    b = list(input.shape[:-2])
    if input.size == 0:
        return _out(GeqrfResult(paddle.zeros(input.shape, dtype=input.dtype),
                                paddle.zeros(b + [k], dtype=input.dtype)), out)
    cplx = _complex(input)
    rdt = _real_dtype(input)
    A = input.reshape([-1, m, n]).clone()
    taus = []
    for j in range(k):
        alpha = A[:, j, j]
        x2 = A[:, j + 1:, j]
        if m - j - 1 > 0:
            xn2 = paddle.sum(paddle.real(x2 * paddle.conj(x2)) if cplx else x2 * x2, axis=-1)
        else:
            xn2 = paddle.zeros([A.shape[0]], dtype=rdt)
        ar = paddle.real(alpha) if cplx else alpha
        ai2 = paddle.imag(alpha) ** 2 if cplx else paddle.zeros_like(ar)
        trivial = (xn2 == 0) & (ai2 == 0)
        beta = -_sign_plus(ar) * paddle.sqrt(ar * ar + ai2 + xn2)
        beta = paddle.where(trivial, ar, beta)
        safe = paddle.where(trivial, paddle.ones_like(beta), beta)
        if cplx:
            betac = paddle.complex(beta, paddle.zeros_like(beta))
            safec = paddle.complex(safe, paddle.zeros_like(safe))
            # masks by arithmetic (Paddle 2.6 has no complex `where` kernel)
            mc = trivial.astype(rdt)
            mc = paddle.complex(mc, paddle.zeros_like(mc))
            tau = (safec - alpha) / safec * (1 - mc)
            denom = (alpha - safec) * (1 - mc) + mc
        else:
            betac = beta
            tau = paddle.where(trivial, paddle.zeros_like(beta), (safe - alpha) / safe)
            denom = paddle.where(trivial, paddle.ones_like(beta), alpha - safe)
        v = x2 / denom.unsqueeze(-1) if m - j - 1 > 0 else x2  # (x2 itself when trivial)
        taus.append(tau)
        if j + 1 < n:  # apply H^H = I - conj(tau) v v^H to A[j:, j+1:]
            vf = paddle.concat([paddle.ones([A.shape[0], 1], dtype=A.dtype), v], axis=-1)
            C = A[:, j:, j + 1:]
            vh = paddle.conj(vf) if cplx else vf
            w = paddle.matmul(vh.unsqueeze(-2), C)  # (B, 1, n-j-1)
            t = paddle.conj(tau) if cplx else tau
            C = C - t.reshape([-1, 1, 1]) * paddle.matmul(vf.unsqueeze(-1), w)
            A[:, j:, j + 1:] = C
        A[:, j, j] = betac
        if m - j - 1 > 0:
            A[:, j + 1:, j] = v
    tau = paddle.stack(taus, axis=-1) if taus else paddle.zeros([A.shape[0], 0], A.dtype)
    return _out(GeqrfResult(A.reshape(input.shape), tau.reshape(b + [k])), out)


def _householder_q(input, tau):
    """Q = H_1 ... H_k (mq x mq) from geqrf's reflectors (differentiable)."""
    mq = input.shape[-2]
    k = tau.shape[-1]
    batch = list(input.shape[:-2])
    Q = _bcast(_eye(mq, dtype=input.dtype), batch + [mq, mq])
    cplx = _complex(input)
    for i in range(k):
        col = input[..., i + 1:, i]
        parts = []
        if i:
            parts.append(paddle.zeros(batch + [i], dtype=input.dtype))
        parts.append(paddle.ones(batch + [1], dtype=input.dtype))
        if mq - i - 1 > 0:
            parts.append(col)
        v = paddle.concat(parts, axis=-1)
        vh = paddle.conj(v) if cplx else v
        Qv = paddle.matmul(Q, v.unsqueeze(-1))
        Q = Q - tau[..., i].unsqueeze(-1).unsqueeze(-1) * paddle.matmul(Qv, vh.unsqueeze(-2))
    return Q


@op("torch.ormqr", method=True)
def ormqr(input, input2, input3, left=True, transpose=False, *, out=None):
    fn = "torch.ormqr"
    tau, other = input2, input3
    if input.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if other.ndim < 2:
        raise RuntimeError(f"{fn}: other must have at least 2 dimensions.")
    _float(fn, input)
    if input.ndim != other.ndim:
        raise RuntimeError(f"{fn}: input.dim() must be equal to other.dim()")
    if tau.ndim != input.ndim - 1:
        raise RuntimeError(f"{fn}: tau.dim() must be equal to input.dim() - 1")
    mq = input.shape[-2]
    if tau.shape[-1] > mq:
        raise RuntimeError(f"{fn}: tau.shape[-1] must be less than or equal to input.shape[-2]")
    if left and other.shape[-2] != mq:
        raise RuntimeError(f"{fn}: other.shape[-2] must be equal to input.shape[-2]")
    if not left and other.shape[-1] != mq:
        raise RuntimeError(f"{fn}: other.shape[-1] must be equal to input.shape[-2]")
    if input.dtype != tau.dtype or input.dtype != other.dtype:
        bad, nm = (tau, "tau") if input.dtype != tau.dtype else (other, "other")
        raise RuntimeError(f"{fn}: Expected input and {nm} to have the same dtype, but input "
                           f"has dtype {_legacy(input)} and {nm} has dtype {_legacy(bad)}")
    if other.size == 0 or input.size == 0:
        return _out(paddle.zeros(other.shape, dtype=other.dtype) if other.size == 0 else
                    other.clone(), out)
    Q = _householder_q(input, tau)
    if transpose:
        Q = _mH(Q)
    return _out(paddle.matmul(Q, other) if left else paddle.matmul(other, Q), out)


# -- least squares -------------------------------------------------------------------------------
@torch_function("torch.linalg.lstsq")
def lstsq(A, B, rcond=None, *, driver=None):
    fn = "torch.linalg.lstsq"
    _float(fn, A)
    _float(fn, B)
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError(f"{fn}: other must have at least 1 dimension.")
    if A.dtype != B.dtype:
        raise RuntimeError(f"{fn}: Expected input and other to have the same dtype, but got "
                           f"input's dtype {_legacy(A)} and other's dtype {_legacy(B)}")
    if not (A.ndim >= B.ndim and A.ndim - B.ndim <= 1):
        raise RuntimeError(f"{fn}: input.dim() must be greater or equal to other.dim() and "
                           "(input.dim() - other.dim()) <= 1")
    if driver is None:
        driver = "gelsy" if A.place.is_cpu_place() else "gels"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"{fn}: parameter `driver` should be one of (gels, gelsy, gelsd, "
                           "gelss)")
    vector = B.ndim == A.ndim - 1
    Bm = B.unsqueeze(-1) if vector else B
    m, n = A.shape[-2], A.shape[-1]
    if Bm.shape[-2] != m:
        raise RuntimeError(f"{fn}: input.size(-2) should match other.size(-2)" if not vector
                           else f"{fn}: input.size(-2) should match other.size(-1)")
    batch = _batch(A.shape[:-2], Bm.shape[:-2])
    A_ = _bcast(A, batch + [m, n])
    B_ = _bcast(Bm, batch + list(Bm.shape[-2:]))
    k = B_.shape[-1]
    rdt = _real_dtype(A)
    eps = float(paddle.finfo(paddle.float32 if rdt == "float32" else paddle.float64).eps)
    rc = eps * builtins.max(m, n) if rcond is None or rcond < 0 else float(rcond)
    ab = list(A.shape[:-2])  # rank and singular values keep A's own batch shape (as torch)
    if A.size == 0:
        S = paddle.zeros(ab + [builtins.min(m, n)], dtype=rdt)
        rank = paddle.zeros(ab, dtype="int64")
    else:
        U, S, Vh = paddle.linalg.svd(A, full_matrices=False)
        if driver == "gels":  # QR: no rank cut (A is assumed full rank)
            keep = paddle.ones(S.shape, dtype="bool")
        else:
            keep = S > rc * paddle.amax(S, -1, keepdim=True)
        rank = paddle.sum(keep.astype("int64"), -1)
    if A_.size == 0 or B_.size == 0:
        X = paddle.zeros(batch + [n, k], dtype=A.dtype)
    else:
        inv_s = paddle.where(keep, 1 / paddle.where(keep, S, paddle.ones_like(S)),
                             paddle.zeros_like(S))
        r_ = builtins.min(m, n)
        U = _bcast(U, batch + [m, r_])
        Vh = _bcast(Vh, batch + [r_, n])
        inv_s = _bcast(inv_s, batch + [r_])
        UhB = paddle.matmul(_mH(U), B_)
        X = paddle.matmul(_mH(Vh), inv_s.unsqueeze(-1).astype(A.dtype) * UhB)
    empty = paddle.zeros([0], dtype=rdt)
    residuals = empty
    if m > n and driver != "gelsy" and A_.size and B_.size:
        full = driver == "gels" or bool((rank == n).all())
        if full:
            r = paddle.matmul(A_, X) - B_
            residuals = paddle.sum(paddle.real(r * paddle.conj(r)) if _complex(r) else r * r,
                                   axis=-2)
    sol = X.squeeze(-1) if vector else X
    return LstsqResult(sol, residuals,
                       paddle.zeros([0], dtype="int64") if driver == "gels" else rank,
                       S if driver in ("gelsd", "gelss") else empty)


# -- LDL^T (Bunch-Kaufman, LAPACK ?sytf2 / ?hetf2 with uplo = 'L') ------------------------------
_ALPHA_BK = (1.0 + math.sqrt(17.0)) / 8.0


def _cabs1(z):
    return abs(z.real) + abs(z.imag) if np.iscomplexobj(z) else abs(z)


def _sytf2_lower(a, hermitian):
    """One matrix (numpy, modified in place): LAPACK's unblocked Bunch-Kaufman factorisation
    A = L D L^T (L^H when hermitian), lower storage.  Returns (ipiv 1-based, info)."""
    n = a.shape[0]
    cplx = np.iscomplexobj(a)
    cj = (lambda z: np.conj(z)) if (cplx and hermitian) else (lambda z: z)
    ab = (lambda z: abs(z.real)) if (cplx and hermitian) else _cabs1
    if cplx and hermitian:
        for i in range(n):
            a[i, i] = a[i, i].real
    ipiv = np.zeros(n, dtype=np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = ab(a[k, k])
        if k < n - 1:
            col = np.array([_cabs1(z) for z in a[k + 1:, k]])
            imax = k + 1 + int(np.argmax(col))
            colmax = col[imax - k - 1]
        else:
            imax, colmax = k, 0.0
        if builtins.max(absakk, colmax) == 0 or math.isnan(absakk):
            if info == 0:
                info = k + 1
            kp = k
            if cplx and hermitian:
                a[k, k] = a[k, k].real
        else:
            if absakk >= _ALPHA_BK * colmax:
                kp = k
            else:
                row = [_cabs1(z) for z in a[imax, k:imax]]
                jmax = k + int(np.argmax(row))
                rowmax = row[jmax - k]
                if imax < n - 1:
                    c2 = [_cabs1(z) for z in a[imax + 1:, imax]]
                    rowmax = builtins.max(rowmax, c2[int(np.argmax(c2))])
                if absakk >= _ALPHA_BK * colmax * (colmax / rowmax):
                    kp = k
                elif ab(a[imax, imax]) >= _ALPHA_BK * rowmax:
                    kp = imax
                else:
                    kp = imax
                    kstep = 2
            kk = k + kstep - 1
            if kp != kk:
                if kp < n - 1:
                    t = a[kp + 1:, kk].copy()
                    a[kp + 1:, kk] = a[kp + 1:, kp]
                    a[kp + 1:, kp] = t
                for j in range(kk + 1, kp):
                    t = cj(a[j, kk])
                    a[j, kk] = cj(a[kp, j])
                    a[kp, j] = t
                if cplx and hermitian:
                    a[kp, kk] = np.conj(a[kp, kk])
                t = a[kk, kk]
                a[kk, kk] = a[kp, kp]
                a[kp, kp] = t
                if kstep == 2:
                    if cplx and hermitian:
                        a[k, k] = a[k, k].real
                    t = a[k + 1, k]
                    a[k + 1, k] = a[kp, k]
                    a[kp, k] = t
            elif cplx and hermitian:
                a[k, k] = a[k, k].real
                if kstep == 2:
                    a[k + 1, k + 1] = a[k + 1, k + 1].real
            if kstep == 1:
                if k < n - 1:
                    r1 = 1.0 / (a[k, k].real if (cplx and hermitian) else a[k, k])
                    x = a[k + 1:, k].copy()
                    upd = -r1 * np.outer(x, cj(x))
                    a[k + 1:, k + 1:] += np.tril(upd)
                    a[k + 1:, k] = x * r1
            else:
                if k < n - 2:
                    d21 = a[k + 1, k]
                    if cplx and hermitian:
                        d = abs(d21)
                        d11 = a[k + 1, k + 1].real / d
                        d22 = a[k, k].real / d
                        tt = 1.0 / (d11 * d22 - 1.0)
                        d21 = d21 / d
                        for j in range(k + 2, n):
                            wk = tt * (d11 * a[j, k] - d21 * a[j, k + 1])
                            wkp1 = tt * (d22 * a[j, k + 1] - np.conj(d21) * a[j, k])
                            wk, wkp1 = wk / d, wkp1 / d
                            a[j:, j] -= a[j:, k] * np.conj(wk) + a[j:, k + 1] * np.conj(wkp1)
                            a[j, j] = a[j, j].real
                            a[j, k] = wk
                            a[j, k + 1] = wkp1
                    else:
                        d11 = a[k + 1, k + 1] / d21
                        d22 = a[k, k] / d21
                        tt = 1.0 / (d11 * d22 - 1.0)
                        d21 = tt / d21
                        for j in range(k + 2, n):
                            wk = d21 * (d11 * a[j, k] - a[j, k + 1])
                            wkp1 = d21 * (d22 * a[j, k + 1] - a[j, k])
                            a[j:, j] -= a[j:, k] * wk + a[j:, k + 1] * wkp1
                            a[j, k] = wk
                            a[j, k + 1] = wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _ldl(fn, A, hermitian):
    _square(fn, A)
    n, b = A.shape[-1], list(A.shape[:-2])
    a = A.numpy().reshape([math.prod(b), n, n]).copy()
    piv = np.zeros((a.shape[0], n), dtype=np.int32)
    info = np.zeros(a.shape[0], dtype=np.int32)
    for i in range(a.shape[0]):
        piv[i], info[i] = _sytf2_lower(a[i], hermitian)
        a[i] = np.tril(a[i])
    place = A.place
    return (paddle.to_tensor(a.reshape(b + [n, n]), dtype=A.dtype, place=place),
            paddle.to_tensor(piv.reshape(b + [n]), dtype="int32", place=place),
            paddle.to_tensor(info.reshape(b), dtype="int32", place=place))


@torch_function("torch.linalg.ldl_factor_ex",
                note="not differentiable (as in torch); the factorisation "
                     "runs on the host")
def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    LD, piv, info = _ldl("torch.linalg.ldl_factor_ex", A, hermitian)
    if check_errors and info.size and bool((info > 0).any()):
        raise LinAlgError("torch.linalg.ldl_factor_ex: The factorization could not be "
                          "completed because the input is singular")
    return _out(LDLFactorExResult(LD, piv, info), out)


@torch_function("torch.linalg.ldl_factor",
                note="not differentiable (as in torch); the factorisation "
                     "runs on the host")
def ldl_factor(A, *, hermitian=False, out=None):
    LD, piv, info = _ldl("torch.linalg.ldl_factor", A, hermitian)
    if info.size and bool((info > 0).any()):
        raise LinAlgError(f"torch.linalg.ldl_factor: The factorization could not be completed "
                          f"because the input is singular")
    return _out(LDLFactorResult(LD, piv), out)


def _ldl_unpack(ld, ipiv, hermitian):
    """numpy: (M, D) with A = M D M^T (M^H when hermitian), M = P_1 L_1 P_2 L_2 ..., from
    ?sytrf's lower output."""
    n = ld.shape[0]
    D = np.zeros((n, n), dtype=ld.dtype)
    cj = np.conj if (hermitian and np.iscomplexobj(ld)) else (lambda z: z)
    # A = (P_1 L_1 P_2 L_2 ...) D (...)^T: build M = P_1 L_1 ... by applying the steps
    M = np.eye(n, dtype=ld.dtype)
    k = 0
    while k < n:
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            Pk = np.eye(n, dtype=ld.dtype)
            Pk[[k, kp]] = Pk[[kp, k]]
            Lk = np.eye(n, dtype=ld.dtype)
            Lk[k + 1:, k] = ld[k + 1:, k]
            D[k, k] = ld[k, k]
            M = M @ Pk @ Lk
            k += 1
        else:
            kp = -ipiv[k] - 1
            Pk = np.eye(n, dtype=ld.dtype)
            Pk[[k + 1, kp]] = Pk[[kp, k + 1]]
            Lk = np.eye(n, dtype=ld.dtype)
            Lk[k + 2:, k] = ld[k + 2:, k]
            Lk[k + 2:, k + 1] = ld[k + 2:, k + 1]
            D[k, k], D[k + 1, k + 1] = ld[k, k], ld[k + 1, k + 1]
            D[k + 1, k] = ld[k + 1, k]
            D[k, k + 1] = cj(ld[k + 1, k])
            M = M @ Pk @ Lk
            k += 2
    return M, D


@torch_function("torch.linalg.ldl_solve",
                note="not differentiable (as in torch); solved on the host")
def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    fn = "torch.linalg.ldl_solve"
    _float(fn, LD)
    if LD.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor LD must have at least 2 dimensions.")
    if B.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor B must have at least 2 dimensions.")
    if LD.shape[-1] != LD.shape[-2]:
        raise RuntimeError(f"{fn}: LD must be batches of square matrices, but they are "
                           f"{LD.shape[-2]} by {LD.shape[-1]} matrices")
    if list(pivots.shape) != list(LD.shape[:-1]):
        raise RuntimeError(f"{fn}: Expected LD.shape[:-1] and pivots.shape to be the same, "
                           f"but got pivots with shape {list(pivots.shape)} instead")
    if _name(pivots.dtype) != "int32":
        raise RuntimeError(f"{fn}: Expected pivots to be integers. Got {_legacy(pivots)}")
    if LD.dtype != B.dtype:
        raise RuntimeError(f"{fn}: LD dtype {_legacy(LD)} does not match b dtype {_legacy(B)}")
    n = LD.shape[-1]
    batch = _batch(LD.shape[:-2], B.shape[:-2])
    if B.shape[-2] != n:
        raise RuntimeError(f"{fn}: Incompatible matrix sizes: LD is {n} by {n} but B has "
                           f"{B.shape[-2]} rows")
    nb = math.prod(batch)
    ld = np.broadcast_to(LD.numpy(), batch + [n, n]).reshape(nb, n, n)
    pv = np.broadcast_to(pivots.numpy(), batch + [n]).reshape(nb, n)
    bb = np.broadcast_to(B.numpy(), batch + list(B.shape[-2:])).reshape(nb, n, B.shape[-1])
    X = np.zeros(bb.shape, dtype=bb.dtype)
    for i in range(ld.shape[0]):
        if n == 0:
            break
        M, D = _ldl_unpack(ld[i], pv[i], hermitian)
        cj = np.conj if (hermitian and np.iscomplexobj(M)) else (lambda z: z)
        y = np.linalg.solve(M, bb[i])
        y = np.linalg.solve(D, y)
        X[i] = np.linalg.solve(cj(M).T, y)
    return _out(paddle.to_tensor(X.reshape(batch + list(B.shape[-2:])), dtype=B.dtype,
                                 place=B.place), out)


# -- randomized low-rank SVD / PCA (torch._lowrank, on Paddle's generator) ----------------------
def _randn(shape, dtype):
    if _name(dtype).startswith("complex"):
        rdt = "float32" if _name(dtype) == "complex64" else "float64"
        return paddle.complex(paddle.randn(shape, dtype=rdt), paddle.randn(shape, dtype=rdt))
    return paddle.randn(shape, dtype=dtype)


def _approx_basis(A, q, niter, M=None):
    n = A.shape[-1]
    R = _randn([n, q], A.dtype)
    X = paddle.matmul(A, R)
    if M is not None:
        X = X - paddle.matmul(M, R)
    Q = paddle.linalg.qr(X)[0]
    for _ in range(niter):
        X = paddle.matmul(_mH(A), Q)
        if M is not None:
            X = X - paddle.matmul(_mH(M), Q)
        Q = paddle.linalg.qr(X)[0]
        X = paddle.matmul(A, Q)
        if M is not None:
            X = X - paddle.matmul(M, Q)
        Q = paddle.linalg.qr(X)[0]
    return Q


def _svd_lowrank(A, q=6, niter=2, M=None):
    q = 6 if q is None else q
    m, n = A.shape[-2], A.shape[-1]
    if M is not None:
        M = _bcast(M, list(A.shape))
    if m < n:  # work on the transpose, as torch does
        A = _mH(A)
        if M is not None:
            M = _mH(M)
    Q = _approx_basis(A, q, niter, M)
    B = paddle.matmul(_mH(Q), A)
    if M is not None:
        B = B - paddle.matmul(_mH(Q), M)
    U, S, Vh = paddle.linalg.svd(B, full_matrices=False)
    V = _mH(Vh)
    U = paddle.matmul(Q, U)
    if m < n:
        U, V = V, U
    return U, S, V


@torch_function("torch.svd_lowrank", note="random projections from Paddle's generator (torch's "
                                           "algorithm, not its random stream)")
def svd_lowrank(A, q=6, niter=2, M=None):
    _float("svd_lowrank", A)
    return _svd_lowrank(A, q, niter, M)


@torch_function("torch.pca_lowrank", note="random projections from Paddle's generator (torch's "
                                           "algorithm, not its random stream)")
def pca_lowrank(A, q=None, center=True, niter=2):
    _float("pca_lowrank", A)
    m, n = A.shape[-2], A.shape[-1]
    if q is None:
        q = builtins.min(6, m, n)
    elif not (q >= 0 and q <= builtins.min(m, n)):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={builtins.min(m, n)}")
    if niter < 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if not center:
        return _svd_lowrank(A, q, niter, None)
    C = paddle.mean(A, axis=-2, keepdim=True)
    return _svd_lowrank(A - C, q, niter, None)
