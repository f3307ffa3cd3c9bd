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
import warnings

import numpy as np
import paddle
import paddle.fft as _pfft

from . import dtypes as _dt
from ._opbase import _LEGACY_NAMES, _name, with_out
from .creation import _finish, _from_numpy_as, default_float, require_strided
from .registry import module, op, torch_function

from .registry import manifest

NAMES = manifest("""
    torch: fft istft stft
    torch.Tensor: istft stft
    torch.fft: fft fft2 fftfreq fftn fftshift hfft hfft2 hfftn ifft ifft2 ifftn ifftshift ihfft
        ihfft2 ihfftn irfft irfft2 irfftn rfft rfft2 rfftfreq rfftn
""")

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


def _to_complex(x):
    n = _name(x.dtype)
    if n.startswith("complex"):
        return x
    return paddle.complex(x, paddle.zeros_like(x))


def _register(fn_name, fn):
    fn.__name__ = fn.__qualname__ = fn_name
    return torch_function(f"torch.fft.{fn_name}")(with_out(fn))


def _one_d(fn_name, paddle_fn, kind):
    """A 1-d transform; ``kind`` is "c2c", "r2c" or "c2r" (whose default output length is
    2 * (n - 1) and whose input is made complex first)."""
    def fn(input, n=None, dim=-1, norm=None):
        x = _input(input, fn_name, kind)
        d = _wrap(dim, x.ndim)
        if n is not None:
            size = n
        else:
            size = 2 * (x.shape[d] - 1) if kind == "c2r" else x.shape[d]
        _check_n(size)
        if kind == "c2r":
            x = _to_complex(x)
        return paddle_fn(x, n=n, axis=d, norm=_norm(norm))
    return _register(fn_name, fn)


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
        if fn_name in ("hfft2", "hfftn") and _name(x.dtype) == "complex64":
            # Paddle's complex64 multi-dim c2r loses digits (1e-5) where torch's pocketfft
            # does not: computed in complex128 and rounded
            return paddle_fn(x.astype("complex128"), s=sizes, axes=dims,
                             norm=_norm(norm)).astype("float32")
        return paddle_fn(x, s=sizes if s is not None or kind == "c2r" else None, axes=dims,
                         norm=_norm(norm))
    return _register(fn_name, fn)


fft = _one_d("fft", _pfft.fft, "c2c")
ifft = _one_d("ifft", _pfft.ifft, "c2c")
rfft = _one_d("rfft", _pfft.rfft, "r2c")
ihfft = _one_d("ihfft", _pfft.ihfft, "r2c")
irfft = _one_d("irfft", _pfft.irfft, "c2r")
hfft = _one_d("hfft", _pfft.hfft, "c2r")
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


@torch_function("torch.fft.fftshift")
def fftshift(input, dim=None):
    return _shift(input, dim, 1)


@torch_function("torch.fft.ifftshift")
def ifftshift(input, dim=None):
    return _shift(input, dim, -1)


def _freq(vals, dtype, device, requires_grad, out):
    dt = default_float() if dtype is None else _dt.to_paddle(dtype)
    from ._opbase import write_out
    return write_out(_finish(_from_numpy_as(vals, dt, device), requires_grad), out)


@torch_function("torch.fft.fftfreq")
def fftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    require_strided(layout, 'fftfreq')
    return _freq(np.fft.fftfreq(n, d), dtype, device, requires_grad, out)


@torch_function("torch.fft.rfftfreq")
def rfftfreq(n, d=1.0, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    require_strided(layout, 'rfftfreq')
    return _freq(np.fft.rfftfreq(n, d), dtype, device, requires_grad, out)


# -- torch.stft / torch.istft (ATen's SpectralOps.cpp, written with Paddle ops) -----------------
def _window(window, win_length, n_fft, dtype, fn):
    if window is None:
        window = paddle.ones([win_length], dtype=dtype)
    elif window.ndim != 1 or window.shape[0] != win_length:
        raise RuntimeError(f"{fn}: expected a 1D window tensor of size equal to win_length="
                           f"{win_length}, but got window with size {list(window.shape)}")
    if win_length < n_fft:  # torch pads the window centered to n_fft
        left = (n_fft - win_length) // 2
        window = paddle.concat([paddle.zeros([left], window.dtype), window,
                                paddle.zeros([n_fft - win_length - left], window.dtype)])
    return window


def _stft_args(n_fft, hop_length, win_length, fn):
    hop = n_fft // 4 if hop_length is None else hop_length
    win = n_fft if win_length is None else win_length
    if n_fft <= 0:
        raise RuntimeError(f"{fn}: expected 0 < n_fft, but got n_fft={n_fft}")
    if hop <= 0:
        raise RuntimeError(f"{fn}: expected hop_length > 0, but got hop_length={hop}")
    if win <= 0 or win > n_fft:
        raise RuntimeError(f"{fn}: expected 0 < win_length <= n_fft, but got win_length={win}")
    return hop, win


def _is_complex(x):
    return x is not None and _name(x.dtype).startswith("complex")


@op("torch.stft", method=True)
def stft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
         pad_mode="reflect", normalized=False, onesided=None, return_complex=None,
         align_to_window=None):
    if not isinstance(input, paddle.Tensor):  # torch's Python stft fails on input.dim()
        raise AttributeError(f"stft(): input must be a Tensor, not {type(input).__name__} (it "
                             f"has no attribute 'dim')")
    complex_in = _is_complex(input) or _is_complex(window)
    if return_complex is None:
        if not complex_in:
            raise RuntimeError("stft requires the return_complex parameter be given for real "
                               "inputs, and will further require that return_complex=True in a "
                               "future PyTorch release.")
        return_complex = True
    if input.ndim not in (1, 2):
        raise RuntimeError(f"stft: expected a 1D or 2D tensor, but got {input.ndim}D tensor")
    hop, win = _stft_args(n_fft, hop_length, win_length, "stft")
    x = input if complex_in or _name(input.dtype) in ("float32", "float64") else \
        input.astype(default_float())
    batched = x.ndim == 2
    if not batched:
        x = x.unsqueeze(0)
    if center:
        if align_to_window is not None:
            raise RuntimeError("stft: align_to_window should only be set when center = false")
        pad = n_fft // 2
        mode = {"constant": "constant", "reflect": "reflect", "replicate": "replicate",
                "circular": "circular"}.get(pad_mode)
        if mode is None:
            raise RuntimeError(f"stft: unsupported pad_mode {pad_mode!r}")
        x = paddle.nn.functional.pad(x.unsqueeze(1), [pad, pad], mode=mode,
                                     data_format="NCL").squeeze(1)
    if align_to_window and win < n_fft:
        # frames start where their window starts: the n_fft frame reaches (n_fft - win) // 2
        # before it (zeros under the padded window), so win_length (not n_fft) counts frames
        left = (n_fft - win) // 2
        x = paddle.concat([paddle.zeros([x.shape[0], left], x.dtype), x,
                           paddle.zeros([x.shape[0], n_fft - win - left], x.dtype)], axis=1)
    length = x.shape[-1]
    if n_fft > length:
        raise RuntimeError(f"stft: expected 0 < n_fft <= {length}, but got n_fft={n_fft}")
    real_dt = _REAL_OF.get(_name(x.dtype), _name(x.dtype))
    w = _window(window, win, n_fft, real_dt if window is None else window.dtype, "stft")
    n_frames = 1 + (length - n_fft) // hop
    frames = paddle.stack([x[:, i * hop:i * hop + n_fft] for i in range(n_frames)], axis=1)
    frames = frames * w
    if onesided is None:
        onesided = not complex_in
    elif onesided and complex_in:
        raise RuntimeError("Cannot have onesided output if window or input is complex")
    norm = "ortho" if normalized else "backward"
    spec = (_pfft.rfft if onesided else _pfft.fft)(frames, axis=-1, norm=norm)
    spec = spec.transpose([0, 2, 1])
    if not batched:
        spec = spec.squeeze(0)
    if return_complex:
        return spec
    warnings.warn("stft with return_complex=False is deprecated. In a future pytorch release, "
                  "stft will return complex tensors for all inputs, and return_complex=False "
                  "will raise an error.\nNote: you can still call torch.view_as_real on the "
                  "complex output to recover the old return format.", UserWarning)
    # view_as_real (Paddle 2.6's as_real misreads a transposed complex tensor)
    return paddle.stack([paddle.real(spec), paddle.imag(spec)], axis=-1)


@op("torch.istft", method=True)
def istft(input, n_fft, hop_length=None, win_length=None, window=None, center=True,
          normalized=False, onesided=None, length=None, return_complex=False):
    if not isinstance(input, paddle.Tensor):
        raise TypeError(f"istft(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if not _is_complex(input):
        raise RuntimeError("istft requires a complex-valued input tensor matching the output "
                           "from stft with return_complex=True.")
    hop, win = _stft_args(n_fft, hop_length, win_length, "istft")
    if input.ndim not in (2, 3):
        raise RuntimeError(f"istft: expected a tensor with 2 or 3 dimensions of complex, but "
                           f"got {input.ndim}")
    x = input if input.ndim == 3 else input.unsqueeze(0)
    fft_size, n_frames = x.shape[1], x.shape[2]
    if onesided is None:
        onesided = fft_size != n_fft
    if onesided:
        if n_fft // 2 + 1 != fft_size:
            raise RuntimeError(f"istft(...): expected the frequency dimension (3rd to the last) "
                               f"of the input tensor to match n_fft / 2 + 1 when onesided=True, "
                               f"but got {fft_size}")
    elif n_fft != fft_size:
        raise RuntimeError(f"istft(...): expected the frequency dimension (3rd to the last) of "
                           f"the input tensor to match n_fft when onesided=False, but got "
                           f"{fft_size}")
    real_dt = _REAL_OF[_name(x.dtype)]
    w = _window(window, win, n_fft, real_dt if window is None else window.dtype, "istft")
    x = x.transpose([0, 2, 1])  # (B, frames, freq)
    norm = "ortho" if normalized else "backward"
    if return_complex:
        if onesided:
            raise RuntimeError("Cannot have onesided output if window or input is complex")
        frames = _pfft.ifft(x, axis=-1, norm=norm)
    else:
        if _is_complex(window):
            raise RuntimeError("Complex windows are incompatible with return_complex=False")
        if not onesided:
            x = x[:, :, :n_fft // 2 + 1]
        frames = _pfft.irfft(x, n=n_fft, axis=-1, norm=norm)
    frames = frames * w
    total = n_fft + hop * (n_frames - 1)
    # overlap-add of the frames and of the squared window (torch's col2im)
    y = paddle.zeros([frames.shape[0], total], dtype=frames.dtype)
    w2 = w * w  # torch's window.pow(2): complex for a complex window
    env = paddle.zeros([total], dtype=w2.dtype)
    for i in range(n_frames):
        pad = [i * hop, total - i * hop - n_fft]
        y = y + paddle.concat([paddle.zeros([frames.shape[0], pad[0]], frames.dtype),
                               frames[:, i, :],
                               paddle.zeros([frames.shape[0], pad[1]], frames.dtype)], axis=1)
        env = env + paddle.concat([paddle.zeros([pad[0]], env.dtype), w2,
                                   paddle.zeros([pad[1]], env.dtype)])
    start = n_fft // 2 if center else 0
    if length is not None:
        end = start + length
    elif center:
        end = total - n_fft // 2
    else:
        end = total
    stop = min(end, total)
    y, env = y[:, start:stop], env[start:stop]
    if env.shape[0] and bool((paddle.abs(env).min() < 1e-11).item()):
        raise RuntimeError("istft(...): window overlap add min: "
                           f"{float(paddle.abs(env).min())}")
    y = y / env
    if end > total:
        y = paddle.concat([y, paddle.zeros([y.shape[0], end - total], y.dtype)], axis=1)
    return y if input.ndim == 3 else y.squeeze(0)
