"""``torch.nn`` modules that pad, reshape or resample: the padding layers (``ZeroPad2d``,
``ReflectionPad1d``...), ``Flatten``/``Unflatten``, pixel shuffles, ``Unfold``/``Fold``,
``Upsample``.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: CircularPad1d CircularPad2d CircularPad3d ConstantPad1d ConstantPad2d ConstantPad3d
        Flatten Fold PixelShuffle PixelUnshuffle ReflectionPad1d ReflectionPad2d ReflectionPad3d
        ReplicationPad1d ReplicationPad2d ReplicationPad3d Unflatten Unfold Upsample
        UpsamplingBilinear2d UpsamplingNearest2d ZeroPad1d ZeroPad2d ZeroPad3d
""")

import paddle

from . import nn as _nn
from .nn import Module
from .nn_functional_conv import fold, unfold
from .nn_functional_vision import interpolate, pixel_shuffle, pixel_unshuffle
from .nn_modules import _export, _tuple


# -- padding ------------------------------------------------------------------------------------
def _pad_cls(kind, nd):
    mode = {"Reflection": "reflect", "Replication": "replicate", "Zero": "constant",
            "Circular": "circular", "Constant": "constant"}[kind]

    class Pad(Module):
        def __init__(self, padding, value=None):
            super().__init__()
            self.padding = _tuple(padding, 2 * nd)
            if kind == "Constant":
                if value is None:
                    raise TypeError("__init__() missing 1 required positional argument: 'value'")
                self.value = value
            else:
                if value is not None:
                    raise TypeError("__init__() takes 2 positional arguments but 3 were given")
                self.value = 0.0

        def forward(self, input):
            if mode == "constant":
                return _nn.pad(input, self.padding, "constant", self.value)
            return _nn.pad(input, self.padding, mode)

        def extra_repr(self):
            return f"{self.padding}"
    Pad.__name__ = Pad.__qualname__ = f"{kind}Pad{nd}d"
    return _export(Pad)


for _kind in ("Reflection", "Replication", "Zero", "Circular", "Constant"):
    for _nd in (1, 2, 3):
        globals()[f"{_kind}Pad{_nd}d"] = _pad_cls(_kind, _nd)


# -- reshaping and resampling ------------------------------------------------------------------
@_export
class Flatten(Module):
    def __init__(self, start_dim=1, end_dim=-1):
        super().__init__()
        self.start_dim, self.end_dim = start_dim, end_dim

    def forward(self, input):
        if input.ndim == 0:
            return input.reshape([1])
        return paddle.flatten(input, self.start_dim, self.end_dim)


@_export
class Unflatten(Module):
    def __init__(self, dim, unflattened_size):
        super().__init__()
        self.dim, self.unflattened_size = dim, unflattened_size

    def forward(self, input):
        d = self.dim % input.ndim
        shape = list(input.shape)
        return input.reshape(shape[:d] + list(self.unflattened_size) + shape[d + 1:])


@_export
class PixelShuffle(Module):
    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


@_export
class PixelUnshuffle(Module):
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


@_export
class Unfold(Module):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = (kernel_size, dilation,
                                                                      padding, stride)

    def forward(self, input):
        return unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)

    def extra_repr(self):
        return (f"kernel_size={self.kernel_size}, dilation={self.dilation}, "
                f"padding={self.padding}, stride={self.stride}")


@_export
class Fold(Module):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                       self.stride)

    def extra_repr(self):
        return (f"output_size={self.output_size}, kernel_size={self.kernel_size}, "
                f"dilation={self.dilation}, padding={self.padding}, stride={self.stride}")


@_export
class Upsample(Module):
    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.size, self.mode, self.align_corners = size, mode, align_corners
        self.scale_factor = float(scale_factor) if isinstance(scale_factor, (int, float)) \
            else (tuple(float(f) for f in scale_factor) if scale_factor else None)
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                              recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        info = (f"scale_factor={self.scale_factor!r}" if self.scale_factor is not None
                else f"size={self.size!r}")
        return f"{info}, mode={self.mode!r}"


@_export
class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


@_export
class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
