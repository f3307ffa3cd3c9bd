"""torch docs "Spectral Ops": the window functions ``torch.hann_window``, ``hamming_window``,
``blackman_window``, ``bartlett_window``, ``kaiser_window`` (ATen's TensorFactories.cpp
formulas, not torch.signal.windows': ``periodic=`` computes an ``N + 1`` window and drops the
last sample).  torch computes in the dtype itself, one rounding per op (half precision: each op
in float32, then rounded), so the formulas below run torch's op sequence with numpy and round
after each op as torch's kernels do; the kaiser window rounds once (its kernel computes in
float32/float64 throughout).  The result is a leaf (``requires_grad=`` honoured)."""
from __future__ import annotations

import numpy as np

from . import dtypes as _dt
from .creation import _finish, _from_numpy_as, default_float, require_strided
from .registry import torch_function

from .registry import manifest

NAMES = manifest("""
    torch: bartlett_window blackman_window hamming_window hann_window kaiser_window
""")

_FLOATS = ("float16", "bfloat16", "float32", "float64")


def _bf16(x):
    """float32 -> the nearest bfloat16 (ties to even), kept as float32."""
    b = np.asarray(x, dtype=np.float32).view(np.uint32)
    b = (b + np.uint32(0x7FFF) + ((b >> np.uint32(16)) & np.uint32(1))) & np.uint32(0xFFFF0000)
    return b.view(np.float32)


class _Arith:
    """torch's per-op rounding for one dtype: ``r(x)`` rounds an op's result, ``s(c)`` is a
    Python scalar operand as the kernel sees it (TensorIterator casts a wrapped number to the
    tensor's dtype first, so for the half types it is rounded too)."""

    def __init__(self, name):
        if name == "float64":
            self.r = self.s = np.float64
        elif name == "float32":
            self.r = self.s = np.float32
        elif name == "float16":
            self.r = self.s = lambda x: np.float16(x).astype(np.float32)
        else:
            self.r = self.s = _bf16


def _overloads(fn, given):
    """torch's overloads take the optional parameters in order only: (L), (L, periodic),
    (L, periodic, p1), ... -- a later one without an earlier one is a TypeError."""
    seen_missing = None
    for name, v in given:
        if v is None:
            seen_missing = seen_missing or name
        elif seen_missing:
            raise TypeError(f"{fn}() received an invalid combination of arguments: "
                            f"{name} without {seen_missing}")


def _window(fn, L, periodic, dtype, layout, device, requires_grad, formula):
    """torch's shared frame: checks, the 0/1-length cases, periodic = one longer, truncated."""
    if isinstance(L, bool) or not isinstance(L, int):
        raise TypeError(f"{fn}(): argument 'window_length' must be int, not "
                        f"{type(L).__name__}")
    periodic = True if periodic is None else periodic
    dt = default_float() if dtype is None else _dt.to_paddle(dtype)
    name = _dt.torch_name(dt)
    require_strided(layout, fn)  # (sparse layouts: NotProvidedError)
    if name.startswith("complex"):
        # (torch's message: its arange has no complex kernel)
        raise NotImplementedError(f'"arange_cpu" not implemented for {name!r}')
    if name not in _FLOATS:
        raise RuntimeError(f"{fn} expects floating point dtypes, got: torch.{name}")
    if L < 0:
        raise RuntimeError(f"{fn} requires non-negative window_length, got window_length={L}")
    if L == 0:
        vals = np.zeros(0)
    elif L == 1:
        vals = np.ones(1)
    else:
        n = L + 1 if periodic else L
        a = _Arith(name)
        vals = formula(a, a.r(np.arange(n, dtype=np.float64)), n)[:L]
    return _finish(_from_numpy_as(vals, dt, device), requires_grad)


def _hamming(alpha, beta):
    def formula(a, k, n):
        # window.mul_(2 pi / (n - 1)).cos_().mul_(-beta).add_(alpha)
        w = a.r(np.cos(a.r(k * a.s(np.pi * 2.0 / (n - 1)))))
        return a.r(a.r(w * a.s(-beta)) + a.s(alpha))
    return formula


@torch_function("torch.hann_window")
def hann_window(window_length, periodic=None, *, dtype=None, layout=None, device=None,
                requires_grad=False, pin_memory=False):
    require_strided(layout, "hann_window")
    return _window("hann_window", window_length, periodic, dtype, layout, device,
                   requires_grad, _hamming(0.5, 0.5))


@torch_function("torch.hamming_window")
def hamming_window(window_length, periodic=None, alpha=None, beta=None, *, dtype=None,
                   layout=None, device=None, requires_grad=False, pin_memory=False):
    require_strided(layout, "hamming_window")
    _overloads("hamming_window", (("periodic", periodic), ("alpha", alpha), ("beta", beta)))
    return _window("hamming_window", window_length, periodic, dtype, layout, device,
                   requires_grad, _hamming(0.54 if alpha is None else float(alpha),
                                           0.46 if beta is None else float(beta)))


def _blackman(a, k, n):
    # w = arange.mul_(pi / (n - 1)); w.mul(4).cos_().mul_(0.08) - w.mul(2).cos_().mul_(0.5) + 0.42
    w = a.r(k * a.s(np.pi / (n - 1)))
    c4 = a.r(a.r(np.cos(a.r(w * a.s(4)))) * a.s(0.08))
    c2 = a.r(a.r(np.cos(a.r(w * a.s(2)))) * a.s(0.5))
    return a.r(a.r(c4 - c2) + a.s(0.42))


@torch_function("torch.blackman_window")
def blackman_window(window_length, periodic=None, *, dtype=None, layout=None, device=None,
                    requires_grad=False, pin_memory=False):
    require_strided(layout, "blackman_window")
    return _window("blackman_window", window_length, periodic, dtype, layout, device,
                   requires_grad, _blackman)


def _bartlett(a, k, n):
    w = np.array(a.r(k * a.s(2.0 / (n - 1))))
    half = ((n - 1) >> 1) + 1       # torch mirrors the samples past the first half: 2 - w
    w[half:] = a.r(a.r(-w[half:]) + a.s(2))
    return w


@torch_function("torch.bartlett_window")
def bartlett_window(window_length, periodic=None, *, dtype=None, layout=None, device=None,
                    requires_grad=False, pin_memory=False):
    require_strided(layout, "bartlett_window")
    return _window("bartlett_window", window_length, periodic, dtype, layout, device,
                   requires_grad, _bartlett)


@torch_function("torch.kaiser_window")
def kaiser_window(window_length, periodic=None, beta=None, *, dtype=None, layout=None,
                  device=None, requires_grad=False, pin_memory=False):
    require_strided(layout, "kaiser_window")
    _overloads("kaiser_window", (("periodic", periodic), ("beta", beta)))
    beta = 12.0 if beta is None else float(beta)

    def formula(a, k, n):
        alpha = (n - 1) / 2.0
        return np.i0(beta * np.sqrt(np.abs(1 - ((k - alpha) / alpha) ** 2))) / np.i0(beta)
    return _window("kaiser_window", window_length, periodic, dtype, layout, device,
                   requires_grad, formula)
