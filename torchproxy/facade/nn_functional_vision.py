"""``torch.nn.functional`` vision functions: pixel and channel shuffles, ``interpolate`` (torch's
CPU index and weight rules) and ``grid_sample`` / ``torch.grid_sampler*``.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: channel_shuffle grid_sampler grid_sampler_2d grid_sampler_3d native_channel_shuffle
    torch.nn.functional: channel_shuffle grid_sample interpolate pixel_shuffle pixel_unshuffle
        upsample upsample_bilinear upsample_nearest
""")

import itertools
import math

import paddle

from .nn_functional import F
from .nn_functional_pooling import _adaptive
from .registry import torch_function


@torch_function(F + "pixel_shuffle")
def pixel_shuffle(input, upscale_factor):
    r = int(upscale_factor)
    *b, c, h, w = input.shape
    oc = c // (r * r)
    x = input.reshape(b + [oc, r, r, h, w])
    nb = len(b)
    perm = list(range(nb)) + [nb, nb + 3, nb + 1, nb + 4, nb + 2]
    return x.transpose(perm).reshape(b + [oc, h * r, w * r])


@torch_function(F + "pixel_unshuffle")
def pixel_unshuffle(input, downscale_factor):
    r = int(downscale_factor)
    *b, c, h, w = input.shape
    x = input.reshape(b + [c, h // r, r, w // r, r])
    nb = len(b)
    perm = list(range(nb)) + [nb, nb + 2, nb + 4, nb + 1, nb + 3]
    return x.transpose(perm).reshape(b + [c * r * r, h // r, w // r])


def channel_shuffle(input, groups):
    g = int(groups)
    if input.ndim < 3:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with sizes {list(input.shape)}")
    if g <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{g}")
    n, c = input.shape[0], input.shape[1]
    if c % g:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {g} groups.")
    rest = list(input.shape[2:])
    x = input.reshape([n, g, c // g] + rest)
    perm = [0, 2, 1] + list(range(3, x.ndim))
    return x.transpose(perm).reshape(input.shape)


for _name in (F + "channel_shuffle", "torch.channel_shuffle", "torch.native_channel_shuffle"):
    torch_function(_name)(channel_shuffle)


_INTERP_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}


def _interp_taps(in_size, out_size, mode, align_corners, scale, ftype):
    """torch's CPU source indices and weights along one axis (UpSample.h): [(index, weight)]
    per tap, computed in the kernel's float type ``ftype`` (float32 for float32 inputs)."""
    import numpy as np
    dst = np.arange(out_size)

    def scales_value():  # compute_scales_value
        if scale is not None and scale > 0:
            return ftype(1.0 / scale)
        return ftype(in_size) / ftype(out_size)
    if mode in ("nearest", "nearest-exact"):
        sc = np.float32(scales_value())
        if out_size == in_size:
            idx = dst
        elif mode == "nearest" and out_size == 2 * in_size:
            idx = dst >> 1
        elif mode == "nearest":
            idx = np.minimum(np.floor(dst.astype(np.float32) * sc).astype(np.int64), in_size - 1)
        else:
            src = ((dst + 0.5) * np.float64(sc)).astype(np.float32)
            idx = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
        return [(idx, None)]
    if align_corners:  # area_pixel_compute_scale
        sc = ftype(in_size - 1) / ftype(out_size - 1) if out_size > 1 else ftype(0)
        src = sc * dst.astype(ftype)
    else:
        sc = scales_value()
        src = sc * (dst.astype(ftype) + ftype(0.5)) - ftype(0.5)
        if mode != "bicubic":
            src = np.maximum(src, ftype(0))
    src = src.astype(ftype)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)  # guard_index_and_lambda
    lam = np.clip(src - i0.astype(ftype), ftype(0), ftype(1)).astype(ftype)
    if mode != "bicubic":
        i1 = i0 + (i0 < in_size - 1)
        return [(i0, (ftype(1) - lam).astype(ftype)), (i1, lam)]
    A = ftype(-0.75)

    def c1(x):
        return ((A + 2) * x - (A + 3)) * x * x + 1

    def c2(x):
        return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A
    coeffs = [c2(lam + 1), c1(lam), c1(1 - lam), c2(2 - lam)]
    return [(np.clip(i0 - 1 + j, 0, in_size - 1), coeffs[j].astype(ftype)) for j in range(4)]


def _resample(x, axis, taps):
    out = None
    for idx, w in taps:
        g = paddle.index_select(x, paddle.to_tensor(idx, dtype="int64"), axis=axis)
        if w is not None:
            shape = [1] * x.ndim
            shape[axis] = len(w)
            g = g * paddle.to_tensor(w).astype(x.dtype).reshape(shape)
        out = g if out is None else out + g
    return out


@torch_function(F + "interpolate", note="torch's CPU index and weight rules (non-integer scales, "
                "nearest-exact, align_corners) computed with Paddle gathers; antialias= is not "
                "provided")
def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    import numpy as np
    nd = input.ndim - 2
    modes = ("nearest | linear | bilinear | bicubic | trilinear | area | nearest-exact")
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating "
                             "modes: linear | bilinear | bicubic | trilinear")
    elif mode in _INTERP_DIMS:
        align_corners = bool(align_corners)
    else:
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported "
                                  f"(got {input.ndim}D) for the modes: {modes} (got {mode})")
    if nd not in (1, 2, 3):
        raise ValueError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                         f"{input.ndim}D) for the modes: {modes} (got {mode})")
    if mode in _INTERP_DIMS and _INTERP_DIMS[mode] != nd:
        raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs "
                                  f"{_INTERP_DIMS[mode] + 2}D input")
    if antialias:
        from ..errors import NotProvidedError
        raise NotProvidedError("torch.nn.functional.interpolate(antialias=True)")
    if (size is None) == (scale_factor is None):
        raise ValueError("either size or scale_factor should be defined" if size is None
                         else "only one of size or scale_factor should be defined")
    sp = list(input.shape[2:])
    scales = [None] * nd
    if size is not None:
        if isinstance(size, (list, tuple)):
            if len(size) != nd:
                raise ValueError(f"Input and output must have the same number of spatial "
                                 f"dimensions, but got input with spatial dimensions of {sp} "
                                 f"and output size of {list(size)}. Please provide input tensor "
                                 f"in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, "
                                 f"...,oK) format.")
            out = [int(v) for v in size]
        else:
            out = [int(size)] * nd
    else:
        sf = list(scale_factor) if isinstance(scale_factor, (list, tuple)) else [scale_factor] * nd
        if len(sf) != nd:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of {sp} and "
                             f"scale_factor of shape {sf}.")
        out = [int(math.floor(float(L * f))) for L, f in zip(sp, sf)]
        if not recompute_scale_factor:
            scales = [float(f) for f in sf]
    if any(o <= 0 for o in out) and math.prod(input.shape):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(map(str, sp))}) and output "
                           f"({', '.join(map(str, out))})")
    if mode == "area":
        return _adaptive(input, out, nd, "avg")
    ftype = np.float64 if input.dtype == paddle.float64 else np.float32
    x = input
    for k in reversed(range(nd)):  # the last axis first: torch's nesting of the weights
        x = _resample(x, 2 + k, _interp_taps(sp[k], out[k], mode, align_corners, scales[k],
                                             ftype))
    return x


# -- grid_sample ------------------------------------------------------------------------------------
def _gs_reflect(c, twice_low, twice_high):
    if twice_low == twice_high:
        return paddle.zeros_like(c)
    mn, span = twice_low / 2, (twice_high - twice_low) / 2
    c = paddle.abs(c - mn)
    flips = paddle.floor(c / span)
    extra = c - flips * span  # fmod (c >= 0), differentiable on Paddle 2.6 too
    even = paddle.remainder(flips, paddle.full([], 2.0, dtype=c.dtype)) == 0
    return paddle.where(even, extra + mn, span - extra + mn)


def _gs_pad(c, size, padding_mode, align_corners):
    """torch's compute_coordinates: border clips, reflection reflects then clips."""
    if padding_mode == "border":
        return paddle.clip(c, 0, size - 1)
    if padding_mode == "reflection":
        c = _gs_reflect(c, 0, 2 * (size - 1)) if align_corners else \
            _gs_reflect(c, -1, 2 * size - 1)
        return paddle.clip(c, 0, size - 1)
    return c


def _gs_read(xf, idx, sizes):
    """Values of ``xf`` ([N, C, prod(sizes)]) at integer coordinates ``idx`` (per spatial dim,
    [N, P] each, slowest dim first); zero outside the input."""
    valid = None
    lin = None
    for i, size in zip(idx, sizes):
        ok = (i >= 0) & (i <= size - 1)
        valid = ok if valid is None else valid & ok
        ic = paddle.clip(i, 0, size - 1).astype("int64")
        lin = ic if lin is None else lin * size + ic
    n, c = xf.shape[0], xf.shape[1]
    vals = paddle.take_along_axis(xf, lin.unsqueeze(1).expand([n, c, lin.shape[1]]), axis=2)
    return vals * valid.astype(xf.dtype).unsqueeze(1)


def _nearbyint(c):
    r = paddle.floor(c + 0.5)
    tie = (r - c) == 0.5
    odd = paddle.remainder(r, paddle.full([], 2.0, dtype=c.dtype)) != 0
    return paddle.where(tie & odd, r - 1, r)


@torch_function(F + "grid_sample",
                note="torch's CPU sampler (bilinear/nearest/bicubic, zeros/border/"
                     "reflection) written with Paddle gathers: differentiable in input and grid")
def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError(f"nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError(f"nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    align = bool(align_corners)
    nd = input.ndim - 2
    if input.ndim not in (4, 5) or grid.ndim != input.ndim:
        raise RuntimeError(f"grid_sampler(): expected 4D or 5D input and grid with same number "
                           f"of dimensions, but got input with sizes {list(input.shape)} and "
                           f"grid with sizes {list(grid.shape)}")
    if grid.shape[0] != input.shape[0] or grid.shape[-1] != nd:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {nd} in last dimension "
                           f"and the same batch size as input, but got grid with sizes "
                           f"{list(grid.shape)} and input with sizes {list(input.shape)}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have same dtype, but "
                           f"input has {input.dtype} and grid has {grid.dtype}")
    if mode == "bicubic" and nd != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    n, c = input.shape[0], input.shape[1]
    sizes = list(input.shape[2:])  # slowest first: (D,) H, W
    out_sp = list(grid.shape[1:-1])
    P = math.prod(out_sp)
    xf = input.reshape([n, c, math.prod(sizes)])
    g = grid.reshape([n, P, nd])
    # grid's last dim lists x (W), y (H)[, z (D)]: reversed to the input's dim order
    coords = []
    for d in range(nd):
        size = sizes[d]
        gc = g[:, :, nd - 1 - d]
        coords.append((gc + 1) / 2 * (size - 1) if align else ((gc + 1) * size - 1) / 2)
    if mode == "bicubic":
        base = [paddle.floor(cc) for cc in coords]
        t = [cc - b for cc, b in zip(coords, base)]
        A = -0.75

        def cc1(x):
            return ((A + 2) * x - (A + 3)) * x * x + 1

        def cc2(x):
            return ((A * x - 5 * A) * x + 8 * A) * x - 4 * A

        def coeffs(tt):
            return [cc2(tt + 1), cc1(tt), cc1(1 - tt), cc2(2 - tt)]
        cy, cx = coeffs(t[0]), coeffs(t[1])
        out = None
        for i in range(4):
            yi = _gs_pad(base[0] - 1 + i, sizes[0], padding_mode, align)
            row = None
            for j in range(4):
                xj = _gs_pad(base[1] - 1 + j, sizes[1], padding_mode, align)
                v = _gs_read(xf, [yi, xj], sizes) * cx[j].unsqueeze(1)
                row = v if row is None else row + v
            row = row * cy[i].unsqueeze(1)
            out = row if out is None else out + row
    else:
        coords = [_gs_pad(cc, size, padding_mode, align) for cc, size in zip(coords, sizes)]
        if mode == "nearest":
            out = _gs_read(xf, [_nearbyint(cc) for cc in coords], sizes)
        else:
            base = [paddle.floor(cc) for cc in coords]
            frac = [cc - b for cc, b in zip(coords, base)]
            out = None
            for bits in itertools.product((0, 1), repeat=nd):
                w = None
                for b, f in zip(bits, frac):
                    wd = f if b else 1 - f
                    w = wd if w is None else w * wd
                v = _gs_read(xf, [b + bit for b, bit in zip(base, bits)], sizes) * w.unsqueeze(1)
                out = v if out is None else out + v
    return out.reshape([n, c] + out_sp)


_GS_MODES = ("bilinear", "nearest", "bicubic")
_GS_PADS = ("zeros", "border", "reflection")


def _grid_sampler(nd):
    def sampler(input, grid, interpolation_mode, padding_mode, align_corners):
        if nd and input.ndim != nd + 2:
            raise RuntimeError(f"grid_sampler_{nd}d(): expected {nd + 2}D input, got "
                               f"{input.ndim}D")
        return grid_sample(input, grid, _GS_MODES[interpolation_mode],
                           _GS_PADS[padding_mode], align_corners)
    return sampler


for _name, _nd in (("torch.grid_sampler", 0), ("torch.grid_sampler_2d", 2),
                   ("torch.grid_sampler_3d", 3)):
    torch_function(_name)(_grid_sampler(_nd))


@torch_function(F + "upsample")
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
             recompute_scale_factor=None):
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


@torch_function(F + "upsample_nearest")
def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


@torch_function(F + "upsample_bilinear")
def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
