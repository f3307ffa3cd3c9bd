"""``torch.linalg`` on Paddle's linear-algebra kernels (``paddle.linalg``, differentiable), with
torch's signatures, named result tuples (``slogdet -> (sign, logabsdet)``, ``eigh ->
(eigenvalues, eigenvectors)``, ``qr -> (Q, R)``, ``svd -> (U, S, Vh)``, ``*_ex -> (..., info)``),
batch dimensions, ``out=``, and torch's errors: non-float input and non-square matrices are
RuntimeErrors with torch's messages, singular matrices raise ``torch.linalg.LinAlgError`` (a
RuntimeError).  Norms are written from torch's definitions on Paddle ops; ``pinv`` and
``matrix_rank`` use torch's ``atol``/``rtol`` rule on the singular values.  Also
``torch.det``/``Tensor.det``, ``torch.inverse``/``Tensor.inverse`` and ``torch.matrix_power``/
``Tensor.matrix_power`` (torch's aliases of the linalg functions)."""
from __future__ import annotations

import builtins
import math
import numbers

import paddle

from . import dtypes as _dt
from . import pickling as _pickling
from ..paddle_shims import constant_result, empty_result
from ._accurate_sum import accurate_sum
from ._opbase import _name, wrap_dim, write_out
from .creation import default_float
from ._opbase import broadcast_shape, result_type
from ._opbase import broadcast_sizes as _bshape  # batch shapes, as torch broadcasts them
from .ops import matmul as _mm
from .registry import module, op, torch_function, type_

from .registry import manifest

NAMES = manifest("""
    torch: det inverse linalg matrix_power orgqr
    torch.Tensor: det inverse matrix_power orgqr
    torch.linalg: LinAlgError cholesky cholesky_ex cond cross det diagonal eig eigh eigvals
        eigvalsh householder_product inv inv_ex lu lu_factor lu_factor_ex lu_solve matmul
        matrix_norm matrix_power matrix_rank multi_dot norm pinv qr slogdet solve solve_ex
        solve_triangular svd svdvals tensorinv tensorsolve vander vecdot vector_norm
""")

module("torch.linalg")


# torch.linalg.LinAlgError is torch._C._LinAlgError (its name in tracebacks and pickles);
# picklable, with its instances, outside global mode too
LinAlgError = _pickling.torch_named("_LinAlgError", (RuntimeError,), {
    "__doc__": "torch.linalg.LinAlgError: a singular or non-positive-definite input."},
    "torch._C")
type_("torch.linalg.LinAlgError", LinAlgError)

_LEGACY = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte",
           "bool": "Bool", "float16": "Half", "bfloat16": "BFloat16"}
_FLOATS = ("float32", "float64", "complex64", "complex128")
_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}


def _rt(name, fields):
    return _pickling.named_tuple(name, fields)  # torch.return_types.<name>, picklable in scope


SlogdetResult = _rt("linalg_slogdet", ("sign", "logabsdet"))  # torch.linalg.slogdet's
EighResult = _rt("linalg_eigh", ("eigenvalues", "eigenvectors"))
EigResult = _rt("linalg_eig", ("eigenvalues", "eigenvectors"))
QRResult = _rt("linalg_qr", ("Q", "R"))
SVDResult = _rt("linalg_svd", ("U", "S", "Vh"))
InvExResult = _rt("linalg_inv_ex", ("inverse", "info"))
CholExResult = _rt("linalg_cholesky_ex", ("L", "info"))
SolveExResult = _rt("linalg_solve_ex", ("result", "info"))


def _float(fn, A):
    if not isinstance(A, paddle.Tensor):
        raise TypeError(f"{fn}(): argument 'A' must be Tensor, not {type(A).__name__}")
    n = _name(A.dtype)
    if n not in _FLOATS:
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. "
                           f"Got {_LEGACY.get(n, n)}")
    return A


def _square(fn, A, what="A"):
    _float(fn, A)
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor {what} must have at least 2 dimensions.")
    if A.shape[-1] != A.shape[-2]:
        raise RuntimeError(f"{fn}: {what} must be batches of square matrices, but they are "
                           f"{A.shape[-2]} by {A.shape[-1]} matrices")
    return A


def _empty_batch(A):
    return A.size == 0


def _singular(fn, exc):
    raise LinAlgError(f"{fn}: The diagonal element is zero, the inversion could not be "
                      f"completed because the input matrix is singular.") from exc


def _bcast(t, shape):
    """broadcast_to that also gives 0-size results (Paddle 2.6's expand refuses size 0)."""
    if math.prod(shape) == 0:
        return empty_result(list(shape), t.dtype, t.place, (t,))  # keeps t's gradient edge
    return paddle.broadcast_to(t, shape)


def _eye(n, m=None, dtype="float32"):
    """paddle.eye, also complex (Paddle 2.6 has no complex eye kernel)."""
    n_ = _name(dtype) if not isinstance(dtype, str) else dtype
    if n_.startswith("complex"):
        return paddle.eye(n, m, dtype=_real_of(n_)).astype(dtype)
    return paddle.eye(n, m, dtype=dtype)


def _real_of(n):
    return {"complex64": "float32", "complex128": "float64"}.get(n, n)


def _psolve(A, B):
    """paddle.linalg.solve whose backward does not crash: Paddle's solve backward segfaults
    (2.6.2 and 3.3.1) when only one of A and B needs a gradient; the other then enters as a
    detached leaf that asks for one (its gradient is dropped)."""
    if A.stop_gradient != B.stop_gradient:
        if A.stop_gradient:
            A = A.detach()
            A.stop_gradient = False
        else:
            B = B.detach()
            B.stop_gradient = False
    return paddle.linalg.solve(A, B)


def _eye_like(A):
    n = A.shape[-1]
    e = _eye(n, dtype=A.dtype)
    return _bcast(e, A.shape) if A.ndim > 2 else e


def _out(result, out):
    if out is None:
        return result
    if isinstance(result, tuple):
        for r, o in zip(result, out):
            write_out(r, o)
        return out
    return write_out(result, out)


# -- determinants, inverses, solves --------------------------------------------------------------
@torch_function("torch.linalg.det")
def det(A, *, out=None):
    _square("linalg.det", A)
    if _empty_batch(A):
        return _out(paddle.ones(A.shape[:-2], dtype=A.dtype), out)
    return _out(paddle.linalg.det(A), out)


op("torch.det", method=True)(lambda input: det(input))


@torch_function("torch.linalg.slogdet")
def slogdet(A, *, out=None):
    _square("linalg.slogdet", A)
    if _empty_batch(A):
        return _out(SlogdetResult(paddle.ones(A.shape[:-2], dtype=A.dtype),
                                  paddle.zeros(A.shape[:-2], dtype=A.dtype)), out)
    if _name(A.dtype).startswith("complex"):
        d = paddle.linalg.det(A)
        mag = paddle.abs(d)
        return _out(SlogdetResult(d / mag.astype(d.dtype), paddle.log(mag)), out)
    r = paddle.linalg.slogdet(A)
    return _out(SlogdetResult(r[0], r[1]), out)


def _inv(fn, A):
    _square(fn, A)
    if _empty_batch(A):
        return paddle.zeros(A.shape, dtype=A.dtype)
    try:
        r = paddle.linalg.inv(A)
    except (ValueError, RuntimeError) as e:
        _singular(fn, e)
    return r


@torch_function("torch.linalg.inv")
def inv(A, *, out=None):
    return _out(_inv("linalg.inv", A), out)


op("torch.inverse", method=True)(lambda input, *, out=None: _out(_inv("inverse", input), out))


@torch_function("torch.linalg.inv_ex")
def inv_ex(A, *, check_errors=False, out=None):
    _square("linalg.inv_ex", A)
    info = paddle.zeros(A.shape[:-2], dtype="int32")
    try:
        r = paddle.zeros(A.shape, dtype=A.dtype) if _empty_batch(A) else paddle.linalg.inv(A)
    except (ValueError, RuntimeError) as e:
        if check_errors:
            _singular("linalg.inv_ex", e)
        raise LinAlgError("linalg.inv_ex: a singular matrix in the batch (torch returns a "
                          "partial inverse and info > 0; Paddle's inverse kernel refuses the "
                          "batch)") from e
    return _out(InvExResult(r, info), out)


def _solve(fn, A, B, left):
    _square(fn, A)
    _float(fn, B)
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return _solve(fn, A.transpose(list(range(A.ndim - 2)) + [A.ndim - 1, A.ndim - 2]),
                      B.transpose(list(range(B.ndim - 2)) + [B.ndim - 1, B.ndim - 2]),
                      True).transpose(list(range(B.ndim - 2)) + [B.ndim - 1, B.ndim - 2])
    vector = B.ndim == 1 or (B.ndim == A.ndim - 1 and list(B.shape) == list(A.shape[:-1]))
    Bm = B.unsqueeze(-1) if vector else B
    batch = _bshape(list(A.shape[:-2]), list(Bm.shape[:-2]))
    A_ = _bcast(A, batch + list(A.shape[-2:]))
    B_ = _bcast(Bm, batch + list(Bm.shape[-2:]))
    if A_.dtype != B_.dtype:
        raise RuntimeError(f"{fn}: Expected A and B to have the same dtype, but found A of type "
                           f"{_dt.torch_name(A.dtype)} and B of type {_dt.torch_name(B.dtype)} "
                           "instead.")
    if A_.size == 0 or B_.size == 0:
        r = paddle.zeros(B_.shape, dtype=B_.dtype)
    else:
        try:
            r = _psolve(A_, B_)
        except (ValueError, RuntimeError) as e:
            raise LinAlgError(f"{fn}: The solver failed because the input matrix is "
                              "singular.") from e
    return r.squeeze(-1) if vector else r


@torch_function("torch.linalg.solve")
def solve(A, B, *, left=True, out=None):
    return _out(_solve("linalg.solve", A, B, left), out)


@torch_function("torch.linalg.solve_ex")
def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    r = _solve("linalg.solve_ex", A, B, left)
    return _out(SolveExResult(r, paddle.zeros(A.shape[:-2], dtype="int32")), out)


@torch_function("torch.linalg.solve_triangular")
def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    _square("linalg.solve_triangular", A)
    _float("linalg.solve_triangular", B)
    if not left:
        t = lambda x: x.transpose(list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])  # noqa
        return _out(t(solve_triangular(t(A), t(B), upper=not upper, left=True,
                                       unitriangular=unitriangular)), out)
    batch = _bshape(list(A.shape[:-2]), list(B.shape[:-2]))
    A_ = _bcast(A, batch + list(A.shape[-2:]))
    B_ = _bcast(B, batch + list(B.shape[-2:]))
    if A_.size == 0 or B_.size == 0:
        return _out(paddle.zeros(B_.shape, dtype=B_.dtype), out)
    # only the triangle the solve reads gets a gradient (Paddle's backward fills the matrix)
    tri = paddle.triu(A_, 1 if unitriangular else 0) if upper else \
        paddle.tril(A_, -1 if unitriangular else 0)
    if unitriangular:
        tri = tri + _eye(A_.shape[-1], dtype=A_.dtype)
    return _out(paddle.linalg.triangular_solve(tri, B_, upper=upper, transpose=False,
                                               unitriangular=unitriangular), out)


@torch_function("torch.linalg.cholesky")
def cholesky(A, *, upper=False, out=None):
    _square("linalg.cholesky", A)
    if _empty_batch(A):
        return _out(paddle.zeros(A.shape, dtype=A.dtype), out)
    try:
        r = paddle.linalg.cholesky(A, upper=upper)
    except (ValueError, RuntimeError) as e:
        raise LinAlgError("linalg.cholesky: The factorization could not be completed because "
                          "the input is not positive-definite.") from e
    if not bool(paddle.isfinite(r).all()):
        raise LinAlgError("linalg.cholesky: The factorization could not be completed because "
                          "the input is not positive-definite.")
    return _out(r, out)


@torch_function("torch.linalg.cholesky_ex")
def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    r = cholesky(A, upper=upper)
    return _out(CholExResult(r, paddle.zeros(A.shape[:-2], dtype="int32")), out)


@torch_function("torch.linalg.matrix_power")
def matrix_power(A, n, *, out=None):
    _square("linalg.matrix_power", A)
    if _empty_batch(A):  # (Paddle 2.6 cannot clone a 0-size eye)
        return _out(paddle.zeros(A.shape, dtype=A.dtype), out)
    if n == 0:
        return _out(_eye_like(A).clone(), out)
    if _empty_batch(A):
        return _out(paddle.zeros(A.shape, dtype=A.dtype), out)
    return _out(paddle.linalg.matrix_power(A, n), out)


op("torch.matrix_power", method=True)(lambda input, n: matrix_power(input, n))


# -- decompositions ------------------------------------------------------------------------------
@torch_function("torch.linalg.qr")
def qr(A, mode="reduced", *, out=None):
    _float("linalg.qr", A)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           "'reduced' (default), 'r', or 'complete'")
    if A.size == 0:  # Paddle 2.6's kernel refuses 0-size input
        b, (m, n) = list(A.shape[:-2]), A.shape[-2:]
        k = builtins.min(m, n)
        qc = m if mode == "complete" else k
        R = paddle.zeros(b + [qc if mode == "complete" else k, n], dtype=A.dtype)
        Q = _bcast(_eye(m, qc, dtype=A.dtype), b + [m, qc]) if m * qc and math.prod(b) \
            else paddle.zeros(b + [m, qc], dtype=A.dtype)
        if mode == "r":
            Q = paddle.zeros([0], dtype=A.dtype)
        return _out(QRResult(Q, R), out)
    if mode == "r":
        r = paddle.linalg.qr(A, mode="r")
        return _out(QRResult(paddle.zeros([0], dtype=A.dtype), r), out)
    q, r = paddle.linalg.qr(A, mode=mode)
    return _out(QRResult(q, r), out)


@torch_function("torch.linalg.svd")
def svd(A, full_matrices=True, *, driver=None, out=None):
    _float("linalg.svd", A)
    if A.size == 0:  # Paddle's kernel leaves such outputs uninitialised
        m, n, b = A.shape[-2], A.shape[-1], list(A.shape[:-2])
        k = builtins.min(m, n)
        real = _real_dtype(A)
        if full_matrices:
            u = _bcast(_eye(m, dtype=A.dtype), b + [m, m])
            vh = _bcast(_eye(n, dtype=A.dtype), b + [n, n])
        else:
            u = paddle.zeros(b + [m, k], dtype=A.dtype)
            vh = paddle.zeros(b + [k, n], dtype=A.dtype)
        return _out(SVDResult(u if u.size == 0 else u.clone(), paddle.zeros(b + [k], dtype=real),
                                  vh if vh.size == 0 else vh.clone()), out)
    u, s, vh = paddle.linalg.svd(A, full_matrices=full_matrices)
    return _out(SVDResult(u, s, vh), out)


@torch_function("torch.linalg.svdvals")
def svdvals(A, *, driver=None, out=None):
    _float("linalg.svdvals", A)
    if A.size == 0:
        return _out(svd(A, full_matrices=False).S, out)
    return _out(paddle.linalg.svd(A, full_matrices=False)[1], out)


@torch_function("torch.linalg.eigh")
def eigh(A, UPLO="L", *, out=None):
    _square("linalg.eigh", A)
    if A.size == 0:
        return _out(EighResult(paddle.zeros(A.shape[:-1], dtype=_real_dtype(A)),
                               paddle.zeros(A.shape, dtype=A.dtype)), out)
    w, v = paddle.linalg.eigh(A, UPLO=UPLO)
    return _out(EighResult(w, v), out)


@torch_function("torch.linalg.eigvalsh")
def eigvalsh(A, UPLO="L", *, out=None):
    _square("linalg.eigvalsh", A)
    if A.size == 0:
        return _out(paddle.zeros(A.shape[:-1], dtype=_real_dtype(A)), out)
    return _out(paddle.linalg.eigvalsh(A, UPLO=UPLO), out)


@torch_function("torch.linalg.eig")
def eig(A, *, out=None):
    _square("linalg.eig", A)
    cdt = _COMPLEX_OF.get(_name(A.dtype), _name(A.dtype))
    if A.size == 0:
        return _out(EigResult(paddle.zeros(A.shape[:-1], dtype=cdt),
                              paddle.zeros(A.shape, dtype=cdt)), out)
    w, v = paddle.linalg.eig(A)
    return _out(EigResult(w, v), out)


@torch_function("torch.linalg.eigvals")
def eigvals(A, *, out=None):
    _square("linalg.eigvals", A)
    # the values of paddle.linalg.eig (LAPACK geev order, as torch); Paddle's eigvals kernel
    # returns them in another order
    return _out(eig(A).eigenvalues, out)


# -- norms ---------------------------------------------------------------------------------------
def _norm_dtype(fn, A, dtype):
    _float(fn, A)
    if dtype is not None:
        A = A.astype(_dt.to_paddle(dtype))
    return A


def _vnorm(x, ord, axis, keepdim):
    a = paddle.abs(x)
    if _name(a.dtype).startswith("complex"):
        a = paddle.real(a)
    if ord == math.inf:
        return paddle.amax(a, axis=axis, keepdim=keepdim)
    if ord == -math.inf:
        return paddle.amin(a, axis=axis, keepdim=keepdim)
    if ord == 0:  # (+ 0 * sum(a): the result stays in the graph with a zero gradient, as torch's;
        # inf and NaN elements count as nonzero and must not turn that 0 into NaN)
        # (selected from x itself: abs's backward at inf is 0 * inf/inf = NaN)
        r = paddle.real(x) if _name(x.dtype).startswith("complex") else x
        finite = paddle.where(paddle.isfinite(r), r, paddle.zeros_like(r))
        return paddle.sum((a != 0).astype(a.dtype), axis=axis, keepdim=keepdim) + \
            paddle.sum(finite * 0, axis=axis, keepdim=keepdim)
    if ord == 1:
        return accurate_sum(a, axis, keepdim)
    if ord == 2:
        return paddle.sqrt(accurate_sum(a * a, axis, keepdim))
    # exponents as tensors of the input's dtype (a Python float exponent is a float32
    # attribute in Paddle's pow: 0.9 would become 0.899999976)
    p = paddle.full([], float(ord), dtype=a.dtype)
    return paddle.pow(accurate_sum(paddle.pow(a, p), axis, keepdim),
                      paddle.full([], 1.0 / ord, dtype=a.dtype))


def _fmt_ord(o):
    return {math.inf: "inf", -math.inf: "-inf"}.get(o, f"{o:g}" if isinstance(o, float) else o)


@torch_function("torch.linalg.vector_norm")
def vector_norm(x, ord=2, dim=None, keepdim=False, *, dtype=None, out=None):
    x = _norm_dtype("linalg.vector_norm", x, dtype)
    if isinstance(dim, numbers.Integral):
        dim = [dim]
    if dim is not None and len(dim) == 0:
        dim = None
    if x.ndim == 0:
        return _out(_vnorm(x.reshape([1]), ord, None, False).reshape([]), out)
    axis = None if dim is None else [wrap_dim(d, x.ndim) for d in dim]
    if x.size == 0:
        red = list(range(x.ndim)) if axis is None else axis
        if (ord == math.inf or ord < 0) and builtins.any(x.shape[d] == 0 for d in red):
            if axis is None:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt_ord(ord)} norm "
                                   "on an empty tensor because the operation does not have an "
                                   "identity")
            d = next(d for d in red if x.shape[d] == 0)
            raise RuntimeError(f"linalg.vector_norm cannot compute the {_fmt_ord(ord)} norm on "
                               f"the dimension {d}because this dimension is empty and the "
                               "operation does not have an identity")
        shape = [1 if i in red else s for i, s in enumerate(x.shape)] if keepdim else \
            [s for i, s in enumerate(x.shape) if i not in red]
        return _out(constant_result(paddle.zeros(shape, dtype=_real_dtype(x)), (x,)), out)
    r = _vnorm(x, ord, axis, keepdim)
    if keepdim and axis is None:
        r = r.reshape([1] * x.ndim)
    return _out(r, out)


@torch_function("torch.linalg.matrix_norm")
def matrix_norm(A, ord="fro", dim=(-2, -1), keepdim=False, *, dtype=None, out=None):
    A = _norm_dtype("linalg.matrix_norm", A, dtype)
    if A.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 "
                           "dimensions.")
    if len(dim) != 2:
        raise RuntimeError("linalg.matrix_norm: dim must be a 2-tuple. Got "
                           + " ".join(str(d) for d in dim))
    d0, d1 = wrap_dim(dim[0], A.ndim), wrap_dim(dim[1], A.ndim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, "
                           f"{dim[1]})")
    if A.size == 0:
        m, n = A.shape[d0], A.shape[d1]
        if ord == -2 and m * n == 0:
            raise IndexError("amin(): Expected reduction dim -1 to have non-zero size.")
        if ord == -1 and n == 0:
            raise IndexError(f"amin(): Expected reduction dim {d1 - (d0 < d1)} to have non-zero "
                             "size.")
        if ord == -math.inf and m == 0:
            raise IndexError(f"amin(): Expected reduction dim {d0 - (d1 < d0)} to have non-zero "
                             "size.")
    if A.size == 0 and ord in ("fro", "nuc", 1, 2, math.inf, -1, -2, -math.inf):
        shape = [1 if i in (d0, d1) else s for i, s in enumerate(A.shape)] if keepdim else \
            [s for i, s in enumerate(A.shape) if i not in (d0, d1)]
        return _out(constant_result(paddle.zeros(shape, dtype=_real_dtype(A)), (A,)), out)
    if ord == "fro":
        r = _vnorm(A, 2, [d0, d1], keepdim)
    elif ord in ("nuc", 2, -2):
        perm = [i for i in range(A.ndim) if i not in (d0, d1)] + [d0, d1]
        s = paddle.linalg.svd(A.transpose(perm), full_matrices=False)[1]
        r = paddle.sum(s, -1) if ord == "nuc" else (paddle.amax(s, -1) if ord == 2
                                                    else paddle.amin(s, -1))
        if keepdim:
            for d in sorted((d0, d1)):
                r = r.unsqueeze(d)
    elif ord in (1, -1, math.inf, -math.inf):
        sum_dim, red_dim = (d0, d1) if ord in (1, -1) else (d1, d0)
        s = paddle.sum(paddle.abs(A), axis=sum_dim, keepdim=True)
        f = paddle.amax if ord > 0 else paddle.amin
        r = f(s, axis=red_dim, keepdim=True)
        if not keepdim:
            r = r.squeeze([d0, d1])
    else:
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    return _out(r, out)


@torch_function("torch.linalg.norm")
def norm(A, ord=None, dim=None, keepdim=False, *, dtype=None, out=None):
    if isinstance(dim, numbers.Integral):
        dim = (dim,)
    if dim is not None:
        if len(dim) == 1:
            return vector_norm(A, 2 if ord is None else ord, dim, keepdim, dtype=dtype, out=out)
        return matrix_norm(A, "fro" if ord is None else ord, dim, keepdim, dtype=dtype,
                           out=out)
    if ord is None:
        return vector_norm(A, 2, None, keepdim, dtype=dtype, out=out)
    if A.ndim == 2:
        return matrix_norm(A, ord, (-2, -1), keepdim, dtype=dtype, out=out)
    if A.ndim == 1 and not isinstance(ord, str):
        return vector_norm(A, ord, None, keepdim, dtype=dtype, out=out)
    raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be "
                       f"1D or 2D. Got {A.ndim}D.")


@torch_function("torch.linalg.cond")
def cond(A, p=None, *, out=None):
    _float("linalg.cond", A)
    if p is None or p in (2, -2):
        s = paddle.linalg.svd(A, full_matrices=False)[1]
        r = paddle.amax(s, -1) / paddle.amin(s, -1)
        if p == -2:
            r = 1 / r
        return _out(r, out)
    _square("linalg.cond", A)
    return _out(matrix_norm(A, p) * matrix_norm(_inv("linalg.cond", A), p), out)


# -- pseudo-inverse and rank (torch's atol/rtol rule) --------------------------------------------
def _tol(fn, A, S, atol, rtol, tol_dtype):
    smax = paddle.amax(S, -1, keepdim=True) if S.shape[-1] > 0 else \
        paddle.zeros(list(S.shape[:-1]) + [1], dtype=S.dtype)
    eps = float(paddle.finfo(tol_dtype).eps)  # paddle.finfo: 2.6.2 and 3.x alike
    def val(v):
        if v is None:
            return None
        if isinstance(v, paddle.Tensor):
            return v.astype(S.dtype).unsqueeze(-1)
        return paddle.full([], float(v), dtype=S.dtype)
    at, rt = val(atol), val(rtol)
    if rt is None:
        rt = paddle.full([], 0.0 if (at is not None and not isinstance(atol, paddle.Tensor)
                                     and atol > 0) else eps * builtins.max(A.shape[-2:]),
                         dtype=S.dtype)
        if at is not None:
            rt = paddle.full([], 0.0, dtype=S.dtype) if isinstance(atol, paddle.Tensor) or \
                atol > 0 else rt
    if at is None:
        at = paddle.full([], 0.0, dtype=S.dtype)
    return paddle.maximum(at, rt * smax)


def _real_dtype(A):
    n = _name(A.dtype)
    return {"complex64": "float32", "complex128": "float64"}.get(n, n)


@torch_function("torch.linalg.matrix_rank")
def matrix_rank(A, tol=None, hermitian=False, *, atol=None, rtol=None, out=None):
    _float("linalg.matrix_rank", A)
    if tol is not None:
        atol, rtol = tol, 0.0
    if A.size == 0:
        return _out(paddle.zeros(A.shape[:-2], dtype="int64"), out)
    if hermitian:
        S = paddle.abs(paddle.linalg.eigvalsh(A))
    else:
        S = paddle.linalg.svd(A, full_matrices=False)[1]
    t = _tol("linalg.matrix_rank", A, S, atol, rtol, _real_dtype(A))
    return _out(paddle.sum((S > t).astype("int64"), -1), out)


@torch_function("torch.linalg.pinv")
def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    _float("linalg.pinv", A)
    if A.size == 0:
        shape = list(A.shape[:-2]) + [A.shape[-1], A.shape[-2]]
        return _out(constant_result(paddle.zeros(shape, dtype=A.dtype), (A,)), out)
    tr = list(range(A.ndim - 2)) + [A.ndim - 1, A.ndim - 2]
    if hermitian:
        w, V = paddle.linalg.eigh(A)
        S = paddle.abs(w)
        t = _tol("linalg.pinv", A, S, atol, rtol, _real_dtype(A))
        inv_w = paddle.where(S > t, 1 / w, paddle.zeros_like(w))
        Vh = paddle.conj(V).transpose(tr) if _name(A.dtype).startswith("complex") else V.transpose(tr)
        return _out(paddle.matmul(V * inv_w.unsqueeze(-2).astype(V.dtype), Vh), out)
    U, S, Vh = paddle.linalg.svd(A, full_matrices=False)
    t = _tol("linalg.pinv", A, S, atol, rtol, _real_dtype(A))
    inv_s = paddle.where(S > t, 1 / S, paddle.zeros_like(S))
    cplx = _name(A.dtype).startswith("complex")
    V = paddle.conj(Vh).transpose(tr) if cplx else Vh.transpose(tr)
    Uh = paddle.conj(U).transpose(tr) if cplx else U.transpose(tr)
    return _out(paddle.matmul(V * inv_s.unsqueeze(-2).astype(V.dtype), Uh), out)


# -- products and shapes -------------------------------------------------------------------------
@torch_function("torch.linalg.matmul")
def matmul(input, other, *, out=None):
    return _mm(input, other, out=out)


@torch_function("torch.linalg.cross")
def cross(input, other, *, dim=-1, out=None):
    shape = broadcast_shape(input, other)
    if input.ndim != other.ndim:
        raise RuntimeError(f"linalg.cross: inputs must have the same number of dimensions.")
    d = wrap_dim(dim, len(shape))
    if input.shape[d] != 3 or other.shape[d] != 3:
        raise RuntimeError(f"linalg.cross: inputs dimension {dim} must have length 3. Got "
                           f"{input.shape[d]} and {other.shape[d]}")
    a, b = _bcast(input, shape), _bcast(other, shape)
    if a.dtype != b.dtype:
        dt = result_type(input, other)
        a, b = a.astype(dt), b.astype(dt)
    if 0 in shape:  # Paddle's cross of 0 elements keeps no gradient edge
        return _out(empty_result(shape, a.dtype, a.place, (input, other)), out)
    return _out(paddle.cross(a, b, axis=d), out)


@torch_function("torch.linalg.diagonal")
def diagonal(A, *, offset=0, dim1=-2, dim2=-1):
    d1, d2 = wrap_dim(dim1, A.ndim), wrap_dim(dim2, A.ndim)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return paddle.diagonal(A, offset=offset, axis1=d1, axis2=d2)


@torch_function("torch.linalg.vecdot")
def vecdot(x, y, *, dim=-1, out=None):
    if x.dtype != y.dtype:
        raise RuntimeError(f"linalg.vecdot: Expected x and y to have the same dtype, but found "
                           f"x of type {_dt.torch_name(x.dtype)} and y of type "
                           f"{_dt.torch_name(y.dtype)} instead.")
    xc = paddle.conj(x) if _name(x.dtype).startswith("complex") else x
    prod_ = xc * y
    if prod_.size == 0:  # (Paddle 2.6's sum refuses 0-size input)
        d = wrap_dim(dim, prod_.ndim)
        return _out(paddle.zeros([s for i, s in enumerate(prod_.shape) if i != d],
                                 dtype=prod_.dtype), out)
    return _out(paddle.sum(prod_, axis=dim), out)


@torch_function("torch.linalg.multi_dot")
def multi_dot(tensors, *, out=None):
    ts = list(tensors)
    if len(ts) < 2:
        raise RuntimeError(f"multi_dot(): expected at least 2 tensors but got {len(ts)}")
    first_1d, last_1d = ts[0].ndim == 1, ts[-1].ndim == 1
    if first_1d:
        ts[0] = ts[0].unsqueeze(0)
    if last_1d:
        ts[-1] = ts[-1].unsqueeze(-1)
    r = ts[0]
    for t in ts[1:]:
        if r.size == 0 or t.size == 0:  # (Paddle 2.6's matmul refuses 0-size input)
            if r.shape[-1] != t.shape[0]:
                raise RuntimeError(f"multi_dot(): tensors cannot be chained: shapes "
                                   f"{list(r.shape)} and {list(t.shape)}")
            r = paddle.zeros([r.shape[0], t.shape[-1]], dtype=r.dtype)
        else:
            r = paddle.matmul(r, t)
    if first_1d:
        r = r.squeeze(0)
    if last_1d:
        r = r.squeeze(-1)
    return _out(r, out)


@torch_function("torch.linalg.vander")
def vander(x, *, N=None):
    if x.ndim == 0:
        x = x.reshape([1])
    n = x.shape[-1] if N is None else N
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if _name(x.dtype) == "bool":
        x = x.astype("int64")
    cols = [paddle.ones_like(x)]
    for _ in range(1, n):
        cols.append(cols[-1] * x)
    return paddle.stack(cols, axis=-1)


@torch_function("torch.linalg.tensorinv")
def tensorinv(A, ind=2, *, out=None):
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    out_shape = list(A.shape[ind:]) + list(A.shape[:ind])
    rows = math.prod(A.shape[:ind])
    cols = math.prod(A.shape[ind:])
    if rows != cols:
        raise RuntimeError("Expected self to satisfy the requirement prod(self.shape[ind:]) == "
                           "prod(self.shape[:ind]), but got "
                           f"{cols} != {rows}")
    return _out(_inv("linalg.inv", A.reshape([rows, cols])).reshape(out_shape), out)


@torch_function("torch.linalg.tensorsolve")
def tensorsolve(A, B, dims=None, *, out=None):
    if dims is not None:
        nd = A.ndim
        dims = [wrap_dim(d, nd) for d in dims]
        perm = [i for i in range(nd) if i not in dims] + dims
        A = A.transpose(perm)
    res_shape = list(A.shape[B.ndim:])
    n = math.prod(res_shape)
    m = math.prod(B.shape)
    if m != math.prod(A.shape[:B.ndim]) or m != n:
        raise RuntimeError("Expected self to satisfy the requirement "
                           "prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {n} != {math.prod(A.shape[:B.ndim])}")
    r = _solve("linalg.solve", A.reshape([m, n]), B.reshape([m]), True)
    return _out(r.reshape(res_shape), out)


# -- LU, Householder, least squares --------------------------------------------------------------
LUFactorResult = _rt("linalg_lu_factor", ("LU", "pivots"))
LUFactorExResult = _rt("linalg_lu_factor_ex", ("LU", "pivots", "info"))
LUResult = _rt("linalg_lu", ("P", "L", "U"))
LstsqResult = _rt("linalg_lstsq", ("solution", "residuals", "rank", "singular_values"))


def _lu(fn, A, pivot):
    _float(fn, A)
    if A.ndim < 2:
        raise RuntimeError(f"{fn}: Expected tensor with 2 or more dimensions. Got size: "
                           f"{list(A.shape)} instead")
    if not pivot and A.place.is_cpu_place():
        raise RuntimeError(f"{fn}: LU without pivoting is not implemented on the CPU")
    if A.size == 0:  # Paddle 2.6's kernel refuses 0-size input
        b, k = list(A.shape[:-2]), builtins.min(A.shape[-2:])
        return (paddle.zeros(A.shape, dtype=A.dtype), paddle.zeros(b + [k], dtype="int32"),
                paddle.zeros(b, dtype="int32"))
    return paddle.linalg.lu(A, pivot=pivot, get_infos=True)


@torch_function("torch.linalg.lu_factor")
def lu_factor(A, *, pivot=True, out=None):
    LU, piv, info = _lu("linalg.lu_factor", A, pivot)
    if bool((info > 0).any()) if info.size else False:
        raise LinAlgError("torch.linalg.lu_factor: U[i,i] is zero and using it on "
                          "lu_solve would result in a division by zero. If you still want to "
                          "perform the factorization, consider calling linalg.lu(A, pivot) or "
                          "linalg.lu_factor_ex(A, pivot)")
    return _out(LUFactorResult(LU, piv), out)


@torch_function("torch.linalg.lu_factor_ex")
def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    LU, piv, info = _lu("linalg.lu_factor_ex", A, pivot)
    return _out(LUFactorExResult(LU, piv, info.astype("int32").reshape(A.shape[:-2])), out)


@torch_function("torch.linalg.lu")
def lu(A, *, pivot=True, out=None):
    LU, piv, _ = _lu("linalg.lu", A, pivot)
    if A.size == 0:
        b, (m, n) = list(A.shape[:-2]), A.shape[-2:]
        k = builtins.min(m, n)
        return _out(LUResult(_bcast(_eye(m, dtype=A.dtype), b + [m, m]),
                             _bcast(_eye(m, k, dtype=A.dtype), b + [m, k]),
                             paddle.zeros(b + [k, n], dtype=A.dtype)), out)
    P, L, U = paddle.linalg.lu_unpack(LU, piv)
    return _out(LUResult(P.astype(A.dtype), L, U), out)


def _mT(x):
    return x.transpose(list(range(x.ndim - 2)) + [x.ndim - 1, x.ndim - 2])


def _mH(x):
    return paddle.conj(_mT(x)) if _name(x.dtype).startswith("complex") else _mT(x)


@torch_function("torch.linalg.lu_solve")
def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    _float("linalg.lu_solve", LU)
    if not left:  # X A = B  <=>  A^H X^H = B^H
        return _out(_mH(lu_solve(LU, pivots, _mH(B), left=True, adjoint=not adjoint)), out)
    if LU.size == 0 or B.size == 0:
        batch = _bshape(list(LU.shape[:-2]), list(B.shape[:-2]))
        return _out(paddle.zeros(batch + list(B.shape[-2:]), dtype=B.dtype), out)
    P, L, U = paddle.linalg.lu_unpack(LU, pivots)
    P = P.astype(LU.dtype)
    batch = _bshape(list(LU.shape[:-2]), list(B.shape[:-2]))
    L, U, P = (_bcast(t, batch + list(t.shape[-2:])) for t in (L, U, P))
    B = _bcast(B, batch + list(B.shape[-2:]))
    if B.size == 0 or L.size == 0:
        return _out(paddle.zeros(B.shape, dtype=B.dtype), out)
    if not adjoint:  # A = P L U: X = U^-1 L^-1 P^T B
        y = paddle.linalg.triangular_solve(L, paddle.matmul(_mT(P), B), upper=False,
                                           unitriangular=True)
        return _out(paddle.linalg.triangular_solve(U, y, upper=True), out)
    # A^H = U^H L^H P^T: X = P L^-H U^-H B
    y = paddle.linalg.triangular_solve(_mH(U), B, upper=False)
    y = paddle.linalg.triangular_solve(_mH(L), y, upper=True, unitriangular=True)
    return _out(paddle.matmul(P, y), out)


@torch_function("torch.linalg.householder_product")
def householder_product(A, tau, *, out=None):
    _float("linalg.householder_product", A)
    # torch reads only the strictly lower part of A (implicit unit diagonal): pass exactly that
    m, n = A.shape[-2], A.shape[-1]
    V = paddle.tril(A, -1) + _eye(m, n, dtype=A.dtype)
    return _out(paddle.linalg.householder_product(V, tau), out)


op("torch.orgqr", method=True)(lambda input, tau: householder_product(input, tau))
