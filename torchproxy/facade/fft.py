"""``torch.fft`` on Paddle's FFT kernels (``paddle.fft``, differentiable) with torch's argument
forms and rules: ``n=``/``s=`` (``-1`` keeps a dimension's size), ``dim=`` (an int for the 1-d
transforms, a sequence for the 2-d/n-d ones; ``dim=None`` with ``s`` given means the last
``len(s)`` dimensions), ``norm=`` None/"backward"/"ortho"/"forward", ``out=``; dtypes: integer
and bool inputs are transformed as the default float dtype, float32 gives complex64 and float64
complex128; the real-input transforms (rfft*, ihfft*) refuse complex input and the real-output
ones (irfft*, hfft*) give float.  torch's CPU FFT has no float16/bfloat16 kernel ("Unsupported
dtype Half"), and neither does this facade on CPU.  Errors are torch's classes and messages
(unique dims, data points, normalization mode, 0-d input)."""
from __future__ import annotations

import numbers

import numpy as np
import paddle
import paddle.fft as _pfft

from . import dtypes as _dt
from ._opbase import _LEGACY_NAMES, _name, with_out
from .creation import _finish, _from_numpy_as, default_float
from .registry import adapter, module

NAMES = (
    "torch.fft", "torch.fft.fft", "torch.fft.fft2", "torch.fft.fftfreq", "torch.fft.fftn",
    "torch.fft.fftshift", "torch.fft.hfft", "torch.fft.hfft2", "torch.fft.hfftn",
    "torch.fft.ifft", "torch.fft.ifft2", "torch.fft.ifftn", "torch.fft.ifftshift",
    "torch.fft.ihfft", "torch.fft.ihfft2", "torch.fft.ihfftn", "torch.fft.irfft",
    "torch.fft.irfft2", "torch.fft.irfftn", "torch.fft.rfft", "torch.fft.rfft2",
    "torch.fft.rfftfreq", "torch.fft.rfftn",
)

module("torch.fft")

_COMPLEX_OF = {"float32": "complex64", "float64": "complex128"}
_REAL_OF = {"complex64": "float32", "complex128": "float64"}
_LEGACY = dict(_LEGACY_NAMES, complex64="ComplexFloat", complex128="ComplexDouble")


def _norm(norm):
    if norm is None:
        return "backward"
    if norm not in ("backward", "ortho", "forward"):
        raise RuntimeError(f'Invalid normalization mode: "{norm}"')
    return norm


def _input(x, fn, kind):
    """kind: "c2c" (real or complex in), "r2c" (real in only), "c2r" (complex in, real out)."""
    if not isinstance(x, paddle.Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(x).__name__}")
    n = _name(x.dtype)
    if n in ("float16", "bfloat16") and x.place.is_cpu_place():
        raise RuntimeError(f"Unsupported dtype {_LEGACY[n]}")
    if n not in ("float32", "float64", "complex64", "complex128", "float16", "bfloat16"):
        x = x.astype(default_float())
    if kind == "r2c" and _name(x.dtype).startswith("complex"):
        raise RuntimeError(f"{fn} expects a real input tensor, but got {_LEGACY[_name(x.dtype)]}")
    return x


def _wrap(d, ndim):
    if isinstance(d, bool) or not isinstance(d, numbers.Integral):
        raise TypeError(f"dim must be an int, got {type(d).__name__}")
    if ndim == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    if d < -ndim or d >= ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {d})")
    return d + ndim if d < 0 else d


def _check_n(n):
    if n < 1:
        raise RuntimeError(f"Invalid number of data points ({n}) specified")


def _dims(x, s, dim, default_all):
    """torch's (s, dim) resolution for the 2-d / n-d transforms -> (sizes or None, dims)."""
    nd = x.ndim
    if isinstance(dim, numbers.Integral) and not isinstance(dim, bool):
        dim = (dim,)
    if s is not None:
        s = [int(v) for v in s]
        if dim is None:
            if len(s) > nd:
                raise RuntimeError(f"Got shape with {len(s)} values but input tensor only has "
                                   f"{nd} dimensions.")
            dim = list(range(nd - len(s), nd))
        elif len(s) != len(dim):
            raise RuntimeError("When given, dim and shape arguments must have the same length")
    if dim is None:
        dims = list(range(nd)) if default_all else [_wrap(-2, nd), _wrap(-1, nd)]
    else:
        dims = [_wrap(d, nd) for d in dim]
    if len(set(dims)) != len(dims):
        raise RuntimeError("FFT dims must be unique")
    return s, dims


def _c2c(fn_name, paddle_fn):
    def fn(input, n=None, dim=-1, norm=None):
        x = _input(input, fn_name, "c2c")
        d = _wrap(dim, x.ndim)
        size = x.shape[d] if n is None else n
        _check_n(size)
        return paddle_fn(x, n=n, axis=d, norm=_norm(norm))
    fn.__name__ = fn.__qualname__ = fn_name
    return adapter(f"torch.fft.{fn_name}")(with_out(fn))


def _r2c(fn_name, paddle_fn):
    def fn(input, n=None, dim=-1, norm=None):
        x = _input(input, fn_name, "r2c")
        d = _wrap(dim, x.ndim)
        size = x.shape[d] if n is None else n
        _check_n(size)
        return paddle_fn(x, n=n, axis=d, norm=_norm(norm))
    fn.__name__ = fn.__qualname__ = fn_name
    return adapter(f"torch.fft.{fn_name}")(with_out(fn))


def _to_complex(x):
    n = _name(x.dtype)
    if n.startswith("complex"):
        return x
    return paddle.complex(x, paddle.zeros_like(x))


def _c2r(fn_name, paddle_fn):
    def fn(input, n=None, dim=-1, norm=None):
        x = _input(input, fn_name, "c2r")
        d = _wrap(dim, x.ndim)
        size = 2 * (x.shape[d] - 1) if n is None else n
        _check_n(size)
        return paddle_fn(_to_complex(x), n=n, axis=d, norm=_norm(norm))
    fn.__name__ = fn.__qualname__ = fn_name
    return adapter(f"torch.fft.{fn_name}")(with_out(fn))


def _nd(fn_name, paddle_fn, kind, two_d):
    default_dim = (-2, -1) if two_d else None

    def fn(input, s=None, dim=default_dim, norm=None):
        x = _input(input, fn_name, kind)
        s, dims = _dims(x, s, dim, default_all=not two_d)
        if s is not None:
            sizes = []
            for i, (v, d) in enumerate(zip(s, dims)):
                if v == -1:
                    v = x.shape[d]
                    if kind == "c2r" and i == len(dims) - 1:
                        v = 2 * (v - 1)
                sizes.append(v)
        else:
            sizes = [x.shape[d] for d in dims]
            if kind == "c2r" and dims:
                sizes[-1] = 2 * (sizes[-1] - 1)
        for v in sizes:
            _check_n(v)
        if not dims:
            return x.astype(_COMPLEX_OF.get(_name(x.dtype), _name(x.dtype))) \
                if kind != "c2r" else x
        if kind == "c2r":
            x = _to_complex(x)
        return paddle_fn(x, s=sizes if s is not None or kind == "c2r" else None, axes=dims,
                         norm=_norm(norm))
    fn.__name__ = fn.__qualname__ = fn_name
    return adapter(f"torch.fft.{fn_name}")(with_out(fn))


fft = _c2c("fft", _pfft.fft)
ifft = _c2c("ifft", _pfft.ifft)
rfft = _r2c("rfft", _pfft.rfft)
ihfft = _r2c("ihfft", _pfft.ihfft)
irfft = _c2r("irfft", _pfft.irfft)
hfft = _c2r("hfft", _pfft.hfft)
fft2 = _nd("fft2", _pfft.fftn, "c2c", True)
ifft2 = _nd("ifft2", _pfft.ifftn, "c2c", True)
rfft2 = _nd("rfft2", _pfft.rfftn, "r2c", True)
ihfft2 = _nd("ihfft2", _pfft.ihfftn, "r2c", True)
irfft2 = _nd("irfft2", _pfft.irfftn, "c2r", True)
hfft2 = _nd("hfft2", _pfft.hfftn, "c2r", True)
fftn = _nd("fftn", _pfft.fftn, "c2c", False)
ifftn = _nd("ifftn", _pfft.ifftn, "c2c", False)
rfftn = _nd("rfftn", _pfft.rfftn, "r2c", False)
ihfftn = _nd("ihfftn", _pfft.ihfftn, "r2c", False)
irfftn = _nd("irfftn", _pfft.irfftn, "c2r", False)
hfftn = _nd("hfftn", _pfft.hfftn, "c2r", False)


def _shift(x, dim, sign):
    if dim is None:
        dims = list(range(x.ndim))
    elif isinstance(dim, numbers.Integral):
        dims = [_wrap(dim, x.ndim)]
    else:
        dims = [_wrap(d, x.ndim) for d in dim]
    if not dims:
        return x.clone()
    shifts = [(x.shape[d] // 2) if sign > 0 else -(x.shape[d] // 2) for d in dims]
    n = _name(x.dtype)
    if n not in ("int32", "int64", "float32", "float64", "complex64", "complex128"):
        # Paddle's roll has no bool (2.6), int8/uint8/int16 or half CPU kernels: exact via a wider type
        wide = "float32" if n in ("float16", "bfloat16") else "int64"
        return paddle.roll(x.astype(wide), shifts=shifts, axis=dims).astype(x.dtype)
    return paddle.roll(x, shifts=shifts, axis=dims)


@adapter("torch.fft.fftshift")
def fftshift(input, dim=None):
    return _shift(input, dim, 1)


@adapter("torch.fft.ifftshift")
def ifftshift(input, dim=None):
    return _shift(input, dim, -1)


def _freq(vals, dtype, device, requires_grad, out):
    dt = default_float() if dtype is None else _dt.to_paddle(dtype)
    from ._opbase import write_out
    return write_out(_finish(_from_numpy_as(vals, dt, device), requires_grad), out)


@adapter("torch.fft.fftfreq")
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _freq(np.fft.fftfreq(n, d), dtype, device, requires_grad, out)


@adapter("torch.fft.rfftfreq")
def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    return _freq(np.fft.rfftfreq(n, d), dtype, device, requires_grad, out)
