"""Decompositions whose vectors are unique only up to a sign (real) or phase (complex) per
vector: the facade's are aligned to torch's before the ordinary comparison.

torch's own documentation says these results are not unique: ``torch.linalg.svd`` ("The returned
tensors U and V are not unique ... multiplying any pair of singular vectors u_k, v_k by -1 in the
real case or by e^{i phi} in the complex case produces another two valid singular vectors ...
different hardware and software may compute different singular vectors"), ``torch.linalg.eigh``
and ``torch.linalg.eig`` (the same for eigenvectors), ``torch.svd`` ("Different platforms, like
NumPy, or inputs on different device types, may produce different U and V tensors");
``torch.svd_lowrank`` / ``torch.pca_lowrank`` return an SVD.  Paddle's CPU kernels and torch's
LAPACK agree on most samples and flip some vectors on others (float32 rounding decides the
sign), so matching torch's choice in the facade would mean recomputing it on the host.

What is compared, for exactly the ops in :data:`VECTORS` (nothing else goes through here):
singular values / eigenvalues as they are (values and order); each vector of the facade's
result is multiplied by the one unit scalar ``c_k`` (+-1, or e^{i phi}) that brings it closest
to torch's (``c_k = <a_k, e_k> / |<a_k, e_k>|``, 1 where that product is 0), and then the whole
result is compared with the usual tolerances.  For an SVD the same ``c_k`` multiplies the k-th
left and right vector (``U[:, k]``, ``V[:, k]`` / ``conj`` on ``Vh[k, :]``), so ``U diag(S) Vh``
is unchanged and a facade whose U and V disagree with each other still fails.  The extra
columns of a full ``U`` / ``V`` (rows of ``Vh``) past ``min(m, n)`` are "arbitrary bases of the
corresponding subspaces" (torch.linalg.svd's and torch.svd's notes on ``full_matrices`` /
``some=False``): that block is multiplied by the unitary matrix that brings it closest to
torch's (orthogonal Procrustes, ``R = W Zh`` from the SVD of ``a^H e``; a single vector gets its
unit scalar), so it matches when it spans the same subspace.  A vector (or block) that is not a
unit (unitary) multiple of torch's stays different after the scaling and fails as before.
"""
from __future__ import annotations

import numpy as np

# op name -> (index of the output aligned first, index of its partner or None, partner layout)
# layouts: "cols" (vectors are columns: U, V, Q), "rows_conj" (rows of Vh = V^H)
VECTORS = {
    "svd": (0, 2, "cols"),           # torch.svd -> (U, S, V)
    "linalg.svd": (0, 2, "rows_conj"),  # (U, S, Vh)
    "svd_lowrank": (0, 2, "cols"),   # (U, S, V)
    "pca_lowrank": (0, 2, "cols"),   # (U, S, V)
    "linalg.eigh": (1, None, None),  # (eigenvalues, eigenvectors as columns)
    "linalg.eig": (1, None, None),
}


def _phases(a, e):
    """Per column of ``a`` (..., m, k): the unit scalar that brings it closest to ``e``'s."""
    p = np.sum(np.conj(a) * e, axis=-2)  # (..., k)
    mag = np.abs(p)
    with np.errstate(all="ignore"):
        ph = np.where(mag > 0, p / np.where(mag > 0, mag, 1), 1)
    if not np.iscomplexobj(a):
        ph = np.real(ph)
    return ph.astype(a.dtype, copy=False)


def _procrustes(a, e):
    """``a`` (..., m, j) times the unitary (j, j) that brings it closest to ``e``."""
    w, _, zh = np.linalg.svd(np.swapaxes(np.conj(a), -1, -2) @ e)
    return a @ (w @ zh)


def _align_cols(a, e, k):
    """Columns before ``k``: one unit scalar each (returned with the result); columns from
    ``k`` on: one unitary block (an arbitrary basis of the complement)."""
    ph = _phases(a[..., :k], e[..., :k])
    out = a.copy()
    out[..., :k] = a[..., :k] * ph[..., None, :]
    if a.shape[-1] > k:
        out[..., k:] = _procrustes(a[..., k:], e[..., k:])
    return out, ph


def _tensor(t):
    return isinstance(t, tuple) and len(t) == 4 and t[0] == "tensor"


def _as_cols(v, layout):
    """The vectors of ``v`` as columns (Vh's rows, conjugated: the columns of V)."""
    return v if layout == "cols" else np.conj(np.swapaxes(v, -1, -2))


def align(op_name: str, e, a):
    """``a`` (the facade's normalized result) with its vectors aligned to ``e`` (torch's);
    unchanged when ``op_name`` is not listed or the structures differ (the comparison then
    reports the difference)."""
    spec = VECTORS.get(op_name)
    if spec is None or e[0] not in ("tuple", "namedtuple") or e[0] != a[0]:
        return a
    first, partner, layout = spec
    ei, ai = list(e[2]), list(a[2])
    need = [first] + ([partner, 1] if partner is not None else [])
    if len(ei) != len(ai) or any(not (_tensor(ei[i]) and _tensor(ai[i])) or
                                 ei[i][2] != ai[i][2] or ei[i][1] != ai[i][1] for i in need):
        return a
    av = ai[first][3]
    if av.ndim < 2 or av.size == 0:
        return a
    if partner is None:  # eigenvectors: every column its own scalar
        new = {first: _align_cols(av, ei[first][3], av.shape[-1])[0]}
    else:
        # an SVD: the k = len(S) = min(m, n) pairs share one scalar (the left vector's); the
        # vectors past them (full U, V / Vh) as a subspace, on each side
        k = ai[1][3].shape[-1]
        u, ph = _align_cols(av, ei[first][3], k)
        pv = _as_cols(ai[partner][3], layout)
        pe = _as_cols(ei[partner][3], layout)
        v, _ = _align_cols(pv, pe, k)
        v[..., :k] = pv[..., :k] * ph[..., None, :]
        new = {first: u, partner: _as_cols(v, layout)}  # (_as_cols is its own inverse)
    for i, v in new.items():
        t = ai[i]
        ai[i] = (t[0], t[1], t[2], v.astype(t[3].dtype, copy=False))
    return (a[0], a[1], tuple(ai))
