"""``torch.signal.windows``: torch's window functions (torch/signal/windows/windows.py) with its
argument checks and error messages.  The values are computed in float64 with torch's formulas
(linspace over the same range, then exp/sin/cos/i0) and cast to the requested dtype; the result
is a leaf tensor (``requires_grad=`` honoured), as torch's window is a function of no tensor."""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from . import dtypes as _dt
from .creation import _finish, _from_numpy_as, default_float, strided
from .registry import module, torch_function

from .registry import manifest

NAMES = manifest("""
    torch: signal
    torch.signal: windows
    torch.signal.windows: bartlett blackman cosine exponential gaussian general_cosine
        general_hamming hamming hann kaiser nuttall
""")

module("torch.signal")
module("torch.signal.windows")


def _check(fn, M, dtype, layout):
    if M < 0:
        raise ValueError(f"{fn} requires non-negative window length, got M={M}")
    if layout is not None and layout is not strided:
        raise ValueError(f"{fn} is implemented for strided tensors only, got: {layout}")
    dt = default_float() if dtype is None else _dt.to_paddle(dtype)
    name = _dt.torch_name(dt)
    if name not in ("float32", "float64"):
        raise ValueError(f"{fn} expects float32 or float64 dtypes, got: torch.{name}")
    return dt


def _make(vals, dt, device, requires_grad):
    return _finish(_from_numpy_as(np.asarray(vals, dtype=np.float64).reshape(-1), dt, device),
                   requires_grad)


def _lin(start, end, M):
    return np.linspace(start, end, M, dtype=np.float64)


def _trivial(M, dt, device, requires_grad):
    """M == 0 -> empty, M == 1 -> [1.] (None for longer windows)."""
    if M == 0:
        return _make([], dt, device, requires_grad)
    if M == 1:
        return _make([1.0], dt, device, requires_grad)
    return None


@torch_function("torch.signal.windows.exponential")
def exponential(M, *, center=None, tau=1.0, sym=True, dtype=None, layout=None, device=None,
                requires_grad=False):
    dt = _check("exponential", M, dtype, layout)
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")
    if M == 0:
        return _make([], dt, device, requires_grad)
    if center is None:
        center = (M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / tau
    k = _lin(-center * c, (-center + (M - 1)) * c, M)
    return _make(np.exp(-np.abs(k)), dt, device, requires_grad)


@torch_function("torch.signal.windows.cosine")
def cosine(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    dt = _check("cosine", M, dtype, layout)
    if M == 0:
        return _make([], dt, device, requires_grad)
    c = math.pi / (M + 1 if not sym and M > 1 else M)
    k = _lin(0.5 * c, (0.5 + (M - 1)) * c, M)
    return _make(np.sin(k), dt, device, requires_grad)


@torch_function("torch.signal.windows.gaussian")
def gaussian(M, *, std=1.0, sym=True, dtype=None, layout=None, device=None,
             requires_grad=False):
    dt = _check("gaussian", M, dtype, layout)
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    if M == 0:
        return _make([], dt, device, requires_grad)
    start = -(M if not sym and M > 1 else M - 1) / 2.0
    c = 1 / (std * math.sqrt(2))
    k = _lin(start * c, (start + (M - 1)) * c, M)
    return _make(np.exp(-(k ** 2)), dt, device, requires_grad)


@torch_function("torch.signal.windows.kaiser")
def kaiser(M, *, beta=12.0, sym=True, dtype=None, layout=None, device=None,
           requires_grad=False):
    dt = _check("kaiser", M, dtype, layout)
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    t = _trivial(M, dt, device, requires_grad)
    if t is not None:
        return t
    beta = float(beta)
    c = 2.0 * beta / (M if not sym else M - 1)
    k = _lin(-beta, min(beta, -beta + (M - 1) * c), M)
    return _make(np.i0(np.sqrt(np.maximum(beta * beta - k ** 2, 0.0))) / np.i0(beta), dt,
                 device, requires_grad)


@torch_function("torch.signal.windows.bartlett")
def bartlett(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    dt = _check("bartlett", M, dtype, layout)
    t = _trivial(M, dt, device, requires_grad)
    if t is not None:
        return t
    c = 2 / (M if not sym else M - 1)
    k = _lin(-1, -1 + (M - 1) * c, M)
    return _make(1 - np.abs(k), dt, device, requires_grad)


@torch_function("torch.signal.windows.general_cosine")
def general_cosine(M, *, a, sym=True, dtype=None, layout=None, device=None,
                   requires_grad=False):
    dt = _check("general_cosine", M, dtype, layout)
    t = _trivial(M, dt, device, requires_grad)
    if t is not None:
        return t
    if not isinstance(a, Iterable):
        raise TypeError("Coefficients must be a list/tuple")
    a = list(a)
    if not a:
        raise ValueError("Coefficients cannot be empty")
    c = 2 * math.pi / (M if not sym else M - 1)
    k = _lin(0, (M - 1) * c, M)
    a_i = np.array([(-1) ** i * float(w) for i, w in enumerate(a)], dtype=np.float64)
    i = np.arange(len(a_i), dtype=np.float64)
    return _make((a_i[:, None] * np.cos(i[:, None] * k)).sum(0), dt, device, requires_grad)


@torch_function("torch.signal.windows.general_hamming")
def general_hamming(M, *, alpha=0.54, sym=True, dtype=None, layout=None, device=None,
                    requires_grad=False):
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


@torch_function("torch.signal.windows.hamming")
def hamming(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


@torch_function("torch.signal.windows.hann")
def hann(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


@torch_function("torch.signal.windows.blackman")
def blackman(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    _check("blackman", M, dtype, layout)
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


@torch_function("torch.signal.windows.nuttall")
def nuttall(M, *, sym=True, dtype=None, layout=None, device=None, requires_grad=False):
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym,
                          dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)
