"""gauge.py: the sign/phase alignment of svd/eigh/eig-family results must accept exactly the
freedom torch's documentation grants (one unit scalar per vector, shared by an SVD's pair; an
arbitrary basis of the complement in a full U/V) and nothing more."""
from __future__ import annotations

import numpy as np
import pytest

from .core import Mismatch, compare
from .gauge import align


def _t(a):
    return ("tensor", str(a.dtype), a.shape, a)


def _res(*arrays):
    return ("namedtuple", ("U", "S", "Vh"), tuple(_t(a) for a in arrays))


def _svd(m, n, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    a = rng.standard_normal((m, n))
    if np.dtype(dtype).kind == "c":
        a = a + 1j * rng.standard_normal((m, n))
    return [x.astype(dtype) for x in np.linalg.svd(a.astype(dtype), full_matrices=True)]


def _check(op, e, a):
    compare(e, align(op, e, a))


@pytest.mark.parametrize("dtype", [np.float64, np.complex128])
def test_svd_pair_sign_or_phase_is_accepted(dtype):
    u, s, vh = _svd(4, 3, dtype=dtype)
    c = np.array([-1, 1, -1]) if dtype == np.float64 else np.exp(1j * np.array([0.3, -2.0, 1.0]))
    u2, vh2 = u.copy(), vh.copy()
    u2[:, :3] *= c
    vh2[:3, :] *= np.conj(c)[:, None]
    _check("linalg.svd", _res(u, s, vh), _res(u2, s, vh2))
    # torch.svd's (U, S, V) layout
    _check("svd", _res(u, s, np.conj(vh.T)), _res(u2, s, np.conj(vh2.T)))


def test_svd_left_flip_without_right_flip_fails():
    u, s, vh = _svd(4, 3)
    u2 = u.copy()
    u2[:, 1] *= -1  # U diag(S) Vh no longer equals A
    with pytest.raises(Mismatch):
        _check("linalg.svd", _res(u, s, vh), _res(u2, s, vh))


def test_svd_full_complement_basis_is_a_subspace():
    u, s, vh = _svd(5, 2)  # U's last 3 columns: any orthonormal basis of the complement
    q = np.linalg.qr(np.random.default_rng(3).standard_normal((3, 3)))[0]
    u2 = u.copy()
    u2[:, 2:] = u[:, 2:] @ q
    _check("linalg.svd", _res(u, s, vh), _res(u2, s, vh))
    # a block that leaves the subspace is caught
    u3 = u.copy()
    u3[:, 2:] = u[:, 2:] @ q * 1.01
    with pytest.raises(Mismatch):
        _check("linalg.svd", _res(u, s, vh), _res(u3, s, vh))


def test_wrong_values_still_fail():
    u, s, vh = _svd(3, 3)
    with pytest.raises(Mismatch):
        _check("linalg.svd", _res(u, s, vh), _res(u, s * 1.001, vh))
    rot = np.array([[np.cos(0.1), -np.sin(0.1), 0], [np.sin(0.1), np.cos(0.1), 0], [0, 0, 1]])
    with pytest.raises(Mismatch):  # a rotation inside the paired columns is no sign flip
        _check("linalg.svd", _res(u, s, vh), _res(u @ rot, s, rot.T @ vh))


def test_eigenvectors_each_their_own_sign_and_only_listed_ops():
    a = np.random.default_rng(1).standard_normal((4, 4))
    w, q = np.linalg.eigh(a + a.T)
    q2 = q * np.array([1, -1, -1, 1])
    e = ("namedtuple", ("eigenvalues", "eigenvectors"), (_t(w), _t(q)))
    got = ("namedtuple", ("eigenvalues", "eigenvectors"), (_t(w), _t(q2)))
    _check("linalg.eigh", e, got)
    with pytest.raises(Mismatch):  # any other op is compared as it is
        _check("linalg.qr", e, got)
    with pytest.raises(Mismatch):  # eigenvalues are not aligned
        _check("linalg.eigh", e, ("namedtuple", ("eigenvalues", "eigenvectors"),
                                  (_t(w[::-1].copy()), _t(q2))))
