"""``torch.nn`` convolution modules (``Conv1d``-``3d``, ``ConvTranspose1d``-``3d``: torch's
parameter shapes, ``padding="same"``, ``padding_mode``, ``output_size``) and ``Bilinear``.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: Bilinear Conv1d Conv2d Conv3d ConvTranspose1d ConvTranspose2d ConvTranspose3d
    torch.nn.modules.conv: _ConvNd _ConvTransposeNd
""")

import math

from . import nn as _nn
from . import nn_init as init
from .nn import Module, _finish_layer
from .nn_functional import bilinear
from .nn_functional_conv import conv3d, conv_transpose1d, conv_transpose2d, conv_transpose3d
from .nn_modules import _export, _export_base, _optional_bias, _param, _tuple


# -- convolutions ------------------------------------------------------------------------------
@_export_base("conv")
class _ConvNd(Module):
    _nd = 2
    _transposed = False

    def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                 groups=1, bias=True, padding_mode="zeros", device=None, dtype=None,
                 output_padding=0):
        super().__init__()
        nd = self._nd
        if groups <= 0:
            raise ValueError("groups must be a positive integer")
        if in_channels % groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if out_channels % groups != 0:
            raise ValueError("out_channels must be divisible by groups")
        valid_modes = {"zeros", "reflect", "replicate", "circular"}
        if padding_mode not in valid_modes:
            raise ValueError(f"padding_mode must be one of {valid_modes}, but got "
                             f"padding_mode='{padding_mode}'")
        self.in_channels, self.out_channels = in_channels, out_channels
        self.kernel_size = _tuple(kernel_size, nd)
        self.stride = _tuple(stride, nd)
        self.dilation = _tuple(dilation, nd)
        if isinstance(padding, str):
            if padding not in ("same", "valid"):
                raise ValueError(f"Invalid padding string {padding!r}, should be one of "
                                 "{'valid', 'same'}")
            if padding == "same" and any(s != 1 for s in self.stride):
                raise ValueError("padding='same' is not supported for strided convolutions")
            self.padding = padding
        else:
            self.padding = _tuple(padding, nd)
        self.output_padding = _tuple(output_padding, nd)
        self.transposed = self._transposed
        self.groups, self.padding_mode = groups, padding_mode
        if isinstance(self.padding, str):
            self._reversed_padding_repeated_twice = [0, 0] * nd
            if padding == "same":
                for d, k, i in zip(self.dilation, self.kernel_size, range(nd - 1, -1, -1)):
                    total = d * (k - 1)
                    left = total // 2
                    self._reversed_padding_repeated_twice[2 * i] = left
                    self._reversed_padding_repeated_twice[2 * i + 1] = total - left
        else:
            self._reversed_padding_repeated_twice = [p for p in reversed(self.padding)
                                                     for _ in range(2)]
        if self._transposed:
            shape = [in_channels, out_channels // groups] + list(self.kernel_size)
        else:
            shape = [out_channels, in_channels // groups] + list(self.kernel_size)
        self.weight = _param(shape)
        _optional_bias(self, bias, out_channels)
        self.reset_parameters()
        _finish_layer(self, device, dtype)

    def reset_parameters(self):
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            if fan_in != 0:
                bound = 1 / math.sqrt(fan_in)
                init.uniform_(self.bias, -bound, bound)

    def extra_repr(self):
        s = (f"{self.in_channels}, {self.out_channels}, kernel_size={self.kernel_size}, "
             f"stride={self.stride}")
        if self.padding != (0,) * self._nd:
            s += f", padding={self.padding}"
        if self.dilation != (1,) * self._nd:
            s += f", dilation={self.dilation}"
        if self.output_padding != (0,) * self._nd:
            s += f", output_padding={self.output_padding}"
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv_forward(self, input, weight, bias):
        # through F.conv{1,2,3}d, as torch's modules: torch.autocast casts them there
        conv = _conv_fn(self._nd)
        if self.padding_mode != "zeros":
            x = _nn.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return conv(x, weight, bias, self.stride, 0, self.dilation, self.groups)
        return conv(input, weight, bias, self.stride, self.padding, self.dilation, self.groups)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


def _conv_fn(nd):
    return (_nn.conv1d, _nn.conv2d, conv3d)[nd - 1]


def _conv_cls(nd):
    class Conv(_ConvNd):
        _nd = nd

        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                     dilation=1, groups=1, bias=True, padding_mode="zeros", device=None,
                     dtype=None):
            super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                             groups, bias, padding_mode, device, dtype)
    Conv.__name__ = Conv.__qualname__ = f"Conv{nd}d"
    return _export(Conv)


Conv1d, Conv2d, Conv3d = _conv_cls(1), _conv_cls(2), _conv_cls(3)


@_export_base("conv")
class _ConvTransposeNd(_ConvNd):
    _transposed = True

    def _output_padding(self, input, output_size):
        if output_size is None:
            return self.output_padding
        nd = self._nd
        output_size = list(output_size)
        has_batch = input.ndim == nd + 2
        if len(output_size) == nd + 2 or (len(output_size) == nd + 1 and not has_batch):
            output_size = output_size[-nd:]
        if len(output_size) != nd:
            raise ValueError(f"ConvTranspose{nd}D: for {input.ndim}D input, output_size must "
                             f"have {nd} or {nd + 2} elements (got {len(output_size)})")
        res = []
        sp = input.shape[-nd:]
        for d in range(nd):
            min_size = ((sp[d] - 1) * self.stride[d] - 2 * self.padding[d]
                        + self.dilation[d] * (self.kernel_size[d] - 1) + 1)
            max_size = min_size + self.stride[d] - 1
            if not min_size <= output_size[d] <= max_size:
                raise ValueError(f"requested an output size of {output_size}, but valid sizes "
                                 f"range from {min_size} to {max_size} (for an input of "
                                 f"{list(sp)})")
            res.append(output_size[d] - min_size)
        return tuple(res)

    def forward(self, input, output_size=None):
        if self.padding_mode != "zeros":
            raise ValueError(f"Only 'zeros' padding mode is supported for "
                             f"{type(self).__name__}")
        op = self._output_padding(input, output_size)
        conv_t = (conv_transpose1d, conv_transpose2d, conv_transpose3d)[self._nd - 1]
        return conv_t(input, self.weight, self.bias, self.stride, self.padding, op, self.groups,
                      self.dilation)


def _convt_cls(nd):
    class ConvT(_ConvTransposeNd):
        _nd = nd

        def __init__(self, in_channels, out_channels, kernel_size, stride=1, padding=0,
                     output_padding=0, groups=1, bias=True, dilation=1, padding_mode="zeros",
                     device=None, dtype=None):
            if padding_mode != "zeros":
                raise ValueError(f'Only "zeros" padding mode is supported for '
                                 f'ConvTranspose{nd}d')
            super().__init__(in_channels, out_channels, kernel_size, stride, padding, dilation,
                             groups, bias, padding_mode, device, dtype, output_padding)
    ConvT.__name__ = ConvT.__qualname__ = f"ConvTranspose{nd}d"
    return _export(ConvT)


ConvTranspose1d, ConvTranspose2d, ConvTranspose3d = _convt_cls(1), _convt_cls(2), _convt_cls(3)


@_export
class Bilinear(Module):
    def __init__(self, in1_features, in2_features, out_features, bias=True, device=None,
                 dtype=None):
        super().__init__()
        self.in1_features, self.in2_features = in1_features, in2_features
        self.out_features = out_features
        self.weight = _param([out_features, in1_features, in2_features])
        _optional_bias(self, bias, out_features)
        self.reset_parameters()
        _finish_layer(self, device, dtype)

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return bilinear(input1, input2, self.weight, self.bias)
