"""``torch.nn`` module classes: convolutions, pooling, norms, losses, activations, recurrent
layers, attention and transformers, padding, dropout variants and containers.

Each class has torch's constructor arguments, attribute names, parameter/buffer names and
shapes (so ``state_dict()`` keys match torch's and real torch's weights load by key), torch's
initialisation scheme (``reset_parameters`` with the facade's ``nn.init``), and a forward
written with the functional forms (facade/nn.py, facade/nn_functional.py).
"""
from __future__ import annotations

NAMES = (
    "torch.nn.AdaptiveAvgPool1d", "torch.nn.AdaptiveAvgPool2d", "torch.nn.AdaptiveAvgPool3d",
    "torch.nn.AdaptiveMaxPool1d", "torch.nn.AdaptiveMaxPool2d", "torch.nn.AdaptiveMaxPool3d",
    "torch.nn.AlphaDropout", "torch.nn.AvgPool1d", "torch.nn.AvgPool2d", "torch.nn.AvgPool3d",
    "torch.nn.BCELoss", "torch.nn.BCEWithLogitsLoss", "torch.nn.BatchNorm1d",
    "torch.nn.BatchNorm2d", "torch.nn.BatchNorm3d", "torch.nn.Bilinear", "torch.nn.CELU",
    "torch.nn.CircularPad1d", "torch.nn.CircularPad2d", "torch.nn.CircularPad3d",
    "torch.nn.ConstantPad1d", "torch.nn.ConstantPad2d", "torch.nn.ConstantPad3d",
    "torch.nn.Conv1d", "torch.nn.Conv2d", "torch.nn.Conv3d", "torch.nn.ConvTranspose1d",
    "torch.nn.ConvTranspose2d", "torch.nn.ConvTranspose3d", "torch.nn.CTCLoss", "torch.nn.CosineEmbeddingLoss",
    "torch.nn.CosineSimilarity", "torch.nn.Dropout1d", "torch.nn.Dropout2d",
    "torch.nn.Dropout3d", "torch.nn.ELU", "torch.nn.EmbeddingBag",
    "torch.nn.FeatureAlphaDropout", "torch.nn.Flatten", "torch.nn.Fold", "torch.nn.GLU",
    "torch.nn.GRU", "torch.nn.GRUCell", "torch.nn.GaussianNLLLoss", "torch.nn.GroupNorm",
    "torch.nn.Hardshrink", "torch.nn.Hardsigmoid", "torch.nn.Hardswish", "torch.nn.Hardtanh",
    "torch.nn.HingeEmbeddingLoss", "torch.nn.HuberLoss", "torch.nn.InstanceNorm1d",
    "torch.nn.InstanceNorm2d", "torch.nn.InstanceNorm3d", "torch.nn.L1Loss", "torch.nn.LPPool1d",
    "torch.nn.LPPool2d", "torch.nn.LPPool3d", "torch.nn.LSTM", "torch.nn.LSTMCell",
    "torch.nn.LeakyReLU", "torch.nn.LinearCrossEntropyLoss", "torch.nn.LocalResponseNorm", "torch.nn.LogSigmoid",
    "torch.nn.LogSoftmax", "torch.nn.MSELoss", "torch.nn.MarginRankingLoss",
    "torch.nn.MaxPool1d", "torch.nn.MaxPool2d", "torch.nn.MaxPool3d", "torch.nn.Mish",
    "torch.nn.ModuleDict", "torch.nn.MultiLabelMarginLoss", "torch.nn.MultiLabelSoftMarginLoss",
    "torch.nn.MultiMarginLoss", "torch.nn.MultiheadAttention", "torch.nn.NLLLoss",
    "torch.nn.PReLU", "torch.nn.PairwiseDistance", "torch.nn.ParameterDict",
    "torch.nn.ParameterList", "torch.nn.PixelShuffle", "torch.nn.PixelUnshuffle",
    "torch.nn.PoissonNLLLoss", "torch.nn.RMSNorm", "torch.nn.RNN", "torch.nn.RNNBase",
    "torch.nn.RNNCell", "torch.nn.RReLU", "torch.nn.ReLU6", "torch.nn.ReflectionPad1d",
    "torch.nn.ReflectionPad2d", "torch.nn.ReflectionPad3d", "torch.nn.ReplicationPad1d",
    "torch.nn.ReplicationPad2d", "torch.nn.ReplicationPad3d", "torch.nn.SELU",
    "torch.nn.Sequential", "torch.nn.Sigmoid", "torch.nn.SmoothL1Loss", "torch.nn.SoftMarginLoss",
    "torch.nn.Softmax2d", "torch.nn.Softmin", "torch.nn.Softplus", "torch.nn.Softshrink",
    "torch.nn.Softsign", "torch.nn.Tanh", "torch.nn.Tanhshrink", "torch.nn.Threshold",
    "torch.nn.Transformer", "torch.nn.TransformerDecoder", "torch.nn.TransformerDecoderLayer",
    "torch.nn.TransformerEncoder", "torch.nn.TransformerEncoderLayer", "torch.nn.functional.embedding_bag",
    "torch.nn.TripletMarginLoss", "torch.nn.TripletMarginWithDistanceLoss", "torch.nn.Unflatten",
    "torch.nn.FractionalMaxPool2d", "torch.nn.FractionalMaxPool3d",
    "torch.nn.Unfold", "torch.nn.Upsample", "torch.nn.UpsamplingBilinear2d",
    "torch.nn.UpsamplingNearest2d", "torch.nn.ZeroPad1d", "torch.nn.ZeroPad2d", "torch.nn.ZeroPad3d",
)

import collections
import copy
import math

import paddle
import paddle.nn.functional as PF

from . import nn as _nn
from . import nn_functional as NF
from . import nn_init as init
from .nn import Module, Parameter, _finish_layer
from .registry import adapter, type_

_EXPORTS: list = []


def _export(cls):
    _EXPORTS.append(cls)
    return cls


def _empty(shape):
    return paddle.empty([int(s) for s in shape], dtype=paddle.get_default_dtype())


def _param(shape):
    return Parameter(_empty(shape))


# -- activations -------------------------------------------------------------------------------
def _simple(name, fn, params=(), inplace=False, extra=""):
    """A module whose forward is ``fn(input, *[getattr(self, p) for p in params])``."""
    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        names = list(params) + (["inplace"] if inplace else [])
        defaults = dict(_DEFAULTS.get(name, {}))
        for n, a in zip(names, args):
            defaults[n] = a
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{k}'")
            defaults[k] = v
        if len(args) > len(names):
            raise TypeError(f"{name}.__init__() takes {len(names)} positional arguments")
        for n in names:
            setattr(self, n, defaults[n])

    def forward(self, input):
        args = [getattr(self, p) for p in params]
        if inplace:
            return fn(input, *args, inplace=self.inplace)
        return fn(input, *args)

    def extra_repr(self):
        return ", ".join(f"{p}={getattr(self, p)}" for p in params)
    cls = type(name, (Module,), {"__init__": __init__, "forward": forward,
                                 "extra_repr": extra_repr, "__module__": __name__})
    return _export(cls)


_DEFAULTS = {
    "ReLU6": {"inplace": False}, "ELU": {"alpha": 1.0, "inplace": False},
    "CELU": {"alpha": 1.0, "inplace": False}, "SELU": {"inplace": False}, "GLU": {"dim": -1},
    "Hardshrink": {"lambd": 0.5}, "Softshrink": {"lambd": 0.5},
    "Hardswish": {"inplace": False}, "Hardsigmoid": {"inplace": False},
    "LeakyReLU": {"negative_slope": 0.01, "inplace": False}, "Mish": {"inplace": False},
    "Threshold": {"inplace": False}, "Softmin": {"dim": None}, "LogSoftmax": {"dim": None},
    "Softplus": {"beta": 1.0, "threshold": 20.0},
}

ReLU6 = _simple("ReLU6", NF.relu6, inplace=True)
ELU = _simple("ELU", NF.elu, ("alpha",), inplace=True)
CELU = _simple("CELU", NF.celu, ("alpha",), inplace=True)
SELU = _simple("SELU", NF.selu, inplace=True)
GLU = _simple("GLU", NF.glu, ("dim",))
Hardshrink = _simple("Hardshrink", NF.hardshrink, ("lambd",))
Softshrink = _simple("Softshrink", NF.softshrink, ("lambd",))
Hardswish = _simple("Hardswish", NF.hardswish, inplace=True)
Hardsigmoid = _simple("Hardsigmoid", NF.hardsigmoid, inplace=True)
LeakyReLU = _simple("LeakyReLU", NF.leaky_relu, ("negative_slope",), inplace=True)
Mish = _simple("Mish", NF.mish, inplace=True)
Softsign = _simple("Softsign", NF.softsign)
Tanhshrink = _simple("Tanhshrink", NF.tanhshrink)
Threshold = _simple("Threshold", NF.threshold, ("threshold", "value"), inplace=True)
Softmin = _simple("Softmin", NF.softmin, ("dim",))
LogSoftmax = _simple("LogSoftmax", _nn.log_softmax, ("dim",))
Softplus = _simple("Softplus", _nn.softplus, ("beta", "threshold"))
Sigmoid = _simple("Sigmoid", PF.sigmoid)
Tanh = _simple("Tanh", paddle.tanh)
LogSigmoid = _simple("LogSigmoid", PF.log_sigmoid)


@_export
class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        self.min_val = min_val if min_value is None else min_value
        self.max_val = max_val if max_value is None else max_value
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError("max_val must be larger than min_val")

    def forward(self, input):
        return NF.hardtanh(input, self.min_val, self.max_val, self.inplace)


@_export
class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return NF.rrelu(input, self.lower, self.upper, self.training, self.inplace)


@_export
class Softmax2d(Module):
    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             "instead")
        return _nn.softmax(input, -3)


@_export
class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(paddle.full([num_parameters], init,
                                            dtype=paddle.get_default_dtype()))
        _finish_layer(self, device, dtype)

    def forward(self, input):
        return NF.prelu(input, self.weight)


# -- losses ------------------------------------------------------------------------------------
class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        # torch's _Loss: the legacy pair is translated, a reduction string is kept unchecked
        # (KLDivLoss's "batchmean" is valid there; the functional checks at the call)
        self.reduction = reduction if size_average is None and reduce is None else \
            NF.legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


@_export
class L1Loss(_Loss):
    def forward(self, input, target):
        return NF.l1_loss(input, target, reduction=self.reduction)


@_export
class MSELoss(_Loss):
    def forward(self, input, target):
        return _nn.mse_loss(input, target, reduction=self.reduction)


@_export
class NLLLoss(_WeightedLoss):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return _nn.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                            reduction=self.reduction)


@_export
class BCELoss(_WeightedLoss):
    def forward(self, input, target):
        return NF.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


@_export
class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return NF.binary_cross_entropy_with_logits(input, target, self.weight,
                                                   pos_weight=self.pos_weight,
                                                   reduction=self.reduction)


@_export
class HuberLoss(_Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return NF.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


@_export
class SmoothL1Loss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return NF.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


@_export
class SoftMarginLoss(_Loss):
    def forward(self, input, target):
        return NF.soft_margin_loss(input, target, reduction=self.reduction)


@_export
class MultiLabelMarginLoss(_Loss):
    def forward(self, input, target):
        return NF.multilabel_margin_loss(input, target, reduction=self.reduction)


@_export
class MultiLabelSoftMarginLoss(_WeightedLoss):
    def forward(self, input, target):
        return NF.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                              reduction=self.reduction)


@_export
class MultiMarginLoss(_WeightedLoss):
    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.ndim != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.ndim}D instead")
        self.p, self.margin = p, margin

    def forward(self, input, target):
        return NF.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                    weight=self.weight, reduction=self.reduction)


@_export
class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return NF.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                        reduction=self.reduction)


@_export
class MarginRankingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return NF.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                      reduction=self.reduction)


@_export
class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return NF.hinge_embedding_loss(input, target, margin=self.margin,
                                       reduction=self.reduction)


@_export
class TripletMarginLoss(_Loss):
    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.margin, self.p, self.eps, self.swap = margin, p, eps, swap

    def forward(self, anchor, positive, negative):
        return NF.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                      eps=self.eps, swap=self.swap, reduction=self.reduction)


@_export
class TripletMarginWithDistanceLoss(_Loss):
    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        self.distance_function = distance_function
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return NF.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


@_export
class PoissonNLLLoss(_Loss):
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return NF.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                   eps=self.eps, reduction=self.reduction)


@_export
class GaussianNLLLoss(_Loss):
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return NF.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                    reduction=self.reduction)


@_export
class LinearCrossEntropyLoss(_WeightedLoss):
    """torch 2.13's LinearCrossEntropyLoss: ``linear`` (a Linear without bias by default, its
    weight [C * prod(out_features), in_features]) then cross entropy."""

    def __init__(self, in_features, num_classes, *, out_features=(), bias=False, device=None,
                 dtype=None, reduction="mean", weight=None, ignore_index=None,
                 label_smoothing=0.0, options=None):
        if weight is not None and list(weight.shape) != [num_classes]:
            raise RuntimeError(f"expected weight shape to be {(num_classes,)}, got "
                               f"{tuple(weight.shape)}")
        if label_smoothing < 0 or label_smoothing > 1.0:
            raise RuntimeError(f"expected label_smoothing to be in range [0, 1], got "
                               f"{label_smoothing}")
        super().__init__(weight=weight, reduction=reduction)
        self.num_classes, self.out_features = num_classes, tuple(out_features)
        self.ignore_index, self.label_smoothing, self.options = (ignore_index, label_smoothing,
                                                                 options)
        self.linear = _nn.Linear(in_features, math.prod(out_features) * num_classes, bias=bias,
                                 device=device, dtype=dtype)

    def forward(self, input, target):
        w = self.linear.weight.reshape([self.num_classes, *self.out_features,
                                        self.linear.in_features])
        b = self.linear.bias.reshape([self.num_classes, *self.out_features]) \
            if self.linear.bias is not None else None
        return NF.linear_cross_entropy(input, w, target, linear_bias=b, weight=self.weight,
                                       reduction=self.reduction, ignore_index=self.ignore_index,
                                       label_smoothing=self.label_smoothing, options=self.options)


@_export
class CTCLoss(_Loss):
    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return NF.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                           self.reduction, self.zero_infinity)


# -- distances ---------------------------------------------------------------------------------
@_export
class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return NF.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


@_export
class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return _nn.cosine_similarity(x1, x2, self.dim, self.eps)


# -- convolutions ------------------------------------------------------------------------------
def _tuple(v, n):
    return NF._ntuple(v, n)


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
        if bias:
            self.bias = _param([out_channels])
        else:
            self.register_parameter("bias", None)
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
        if self.groups != 1:
            s += f", groups={self.groups}"
        if self.bias is None:
            s += ", bias=False"
        if self.padding_mode != "zeros":
            s += f", padding_mode={self.padding_mode}"
        return s

    def _conv_forward(self, input, weight, bias):
        if self.padding_mode != "zeros":
            x = _nn.pad(input, self._reversed_padding_repeated_twice, mode=self.padding_mode)
            return _nn._convnd(x, weight, bias, self.stride, 0, self.dilation, self.groups,
                               self._nd)
        return _nn._convnd(input, weight, bias, self.stride, self.padding, self.dilation,
                           self.groups, self._nd)

    def forward(self, input):
        return self._conv_forward(input, self.weight, self.bias)


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
        return NF._conv_transpose(input, self.weight, self.bias, self.stride, self.padding, op,
                                  self.groups, self.dilation, self._nd)


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
        if bias:
            self.bias = _param([out_features])
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        _finish_layer(self, device, dtype)

    def reset_parameters(self):
        bound = 1 / math.sqrt(self.weight.shape[1])
        init.uniform_(self.weight, -bound, bound)
        if self.bias is not None:
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input1, input2):
        return NF.bilinear(input1, input2, self.weight, self.bias)


# -- pooling ------------------------------------------------------------------------------------
def _maxpool_cls(nd):
    fn = {1: NF.max_pool1d, 2: NF.max_pool2d, 3: NF.max_pool3d}[nd]

    class MaxPool(Module):
        def __init__(self, kernel_size, stride=None, padding=0, dilation=1, return_indices=False,
                     ceil_mode=False):
            super().__init__()
            self.kernel_size = kernel_size
            self.stride = stride if stride is not None else kernel_size
            self.padding, self.dilation = padding, dilation
            self.return_indices, self.ceil_mode = return_indices, ceil_mode

        def forward(self, input):
            return fn(input, self.kernel_size, self.stride, self.padding, self.dilation,
                      ceil_mode=self.ceil_mode, return_indices=self.return_indices)
    MaxPool.__name__ = MaxPool.__qualname__ = f"MaxPool{nd}d"
    return _export(MaxPool)


MaxPool1d, MaxPool2d, MaxPool3d = _maxpool_cls(1), _maxpool_cls(2), _maxpool_cls(3)


@_export
class AvgPool1d(Module):
    def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                 count_include_pad=True):
        super().__init__()
        self.kernel_size = _tuple(kernel_size, 1)
        self.stride = _tuple(stride if stride is not None else kernel_size, 1)
        self.padding = _tuple(padding, 1)
        self.ceil_mode, self.count_include_pad = ceil_mode, count_include_pad

    def forward(self, input):
        return NF.avg_pool1d(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                             self.count_include_pad)


def _avgpool_cls(nd):
    fn = {2: NF.avg_pool2d, 3: NF.avg_pool3d}[nd]

    class AvgPool(Module):
        def __init__(self, kernel_size, stride=None, padding=0, ceil_mode=False,
                     count_include_pad=True, divisor_override=None):
            super().__init__()
            self.kernel_size = kernel_size
            self.stride = stride if stride is not None else kernel_size
            self.padding, self.ceil_mode = padding, ceil_mode
            self.count_include_pad, self.divisor_override = count_include_pad, divisor_override

        def forward(self, input):
            return fn(input, self.kernel_size, self.stride, self.padding, self.ceil_mode,
                      self.count_include_pad, self.divisor_override)
    AvgPool.__name__ = AvgPool.__qualname__ = f"AvgPool{nd}d"
    return _export(AvgPool)


AvgPool2d, AvgPool3d = _avgpool_cls(2), _avgpool_cls(3)


def _adaptive_cls(nd, kind):
    if kind == "avg":
        fn = {1: NF.adaptive_avg_pool1d, 2: NF.adaptive_avg_pool2d, 3: NF.adaptive_avg_pool3d}[nd]

        class Pool(Module):
            def __init__(self, output_size):
                super().__init__()
                self.output_size = output_size

            def forward(self, input):
                return fn(input, self.output_size)
        Pool.__name__ = Pool.__qualname__ = f"AdaptiveAvgPool{nd}d"
    else:
        fn = {1: NF.adaptive_max_pool1d, 2: NF.adaptive_max_pool2d, 3: NF.adaptive_max_pool3d}[nd]

        class Pool(Module):
            def __init__(self, output_size, return_indices=False):
                super().__init__()
                self.output_size, self.return_indices = output_size, return_indices

            def forward(self, input):
                return fn(input, self.output_size, self.return_indices)
        Pool.__name__ = Pool.__qualname__ = f"AdaptiveMaxPool{nd}d"
    return _export(Pool)


AdaptiveAvgPool1d, AdaptiveAvgPool2d, AdaptiveAvgPool3d = (_adaptive_cls(n, "avg") for n in (1, 2, 3))
AdaptiveMaxPool1d, AdaptiveMaxPool2d, AdaptiveMaxPool3d = (_adaptive_cls(n, "max") for n in (1, 2, 3))


def _fmp_cls(nd):
    fn = {2: NF.fractional_max_pool2d, 3: NF.fractional_max_pool3d}[nd]

    class FractionalMaxPool(Module):
        def __init__(self, kernel_size, output_size=None, output_ratio=None,
                     return_indices=False, _random_samples=None):
            super().__init__()
            self.kernel_size, self.return_indices = kernel_size, return_indices
            self.output_size, self.output_ratio = output_size, output_ratio
            self.register_buffer("_random_samples", _random_samples)
            if output_size is None and output_ratio is None:
                raise ValueError(f"FractionalMaxPool{nd}d requires specifying either an "
                                 "output size, or a pooling ratio")
            if output_size is not None and output_ratio is not None:
                raise ValueError("only one of output_size and output_ratio may be specified")
            if output_ratio is not None:
                r = NF._ntuple(1, nd) if False else (
                    output_ratio if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * nd)
                if not all(0 < v < 1 for v in r):
                    raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")

        def forward(self, input):
            return fn(input, self.kernel_size, self.output_size, self.output_ratio,
                      self.return_indices, _random_samples=self._random_samples)
    FractionalMaxPool.__name__ = FractionalMaxPool.__qualname__ = f"FractionalMaxPool{nd}d"
    return _export(FractionalMaxPool)


FractionalMaxPool2d, FractionalMaxPool3d = _fmp_cls(2), _fmp_cls(3)


def _lppool_cls(nd):
    fn = {1: NF.lp_pool1d, 2: NF.lp_pool2d, 3: NF.lp_pool3d}[nd]

    class LPPool(Module):
        def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
            super().__init__()
            self.norm_type, self.kernel_size = norm_type, kernel_size
            self.stride, self.ceil_mode = stride, ceil_mode

        def forward(self, input):
            return fn(input, float(self.norm_type), self.kernel_size, self.stride, self.ceil_mode)
    LPPool.__name__ = LPPool.__qualname__ = f"LPPool{nd}d"
    return _export(LPPool)


LPPool1d, LPPool2d, LPPool3d = _lppool_cls(1), _lppool_cls(2), _lppool_cls(3)


# -- normalisation ------------------------------------------------------------------------------
class _NormBase(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(paddle.ones([num_features]))
            if bias:
                self.bias = Parameter(paddle.zeros([num_features]))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", paddle.zeros([num_features]))
            self.register_buffer("running_var", paddle.ones([num_features]))
            self.register_buffer("num_batches_tracked", paddle.to_tensor(0, dtype="int64"))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)
            self.register_buffer("num_batches_tracked", None)
        _finish_layer(self, device, dtype)

    def reset_running_stats(self):
        if self.track_running_stats:
            init.zeros_(self.running_mean)
            init.ones_(self.running_var)
            init.zeros_(self.num_batches_tracked)

    def reset_parameters(self):
        self.reset_running_stats()
        if self.affine:
            init.ones_(self.weight)
            init.zeros_(self.bias)

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")


class _BatchNorm(_NormBase):
    _dims = (2, 3)

    def _check_input_dim(self, input):
        if input.ndim not in self._dims:
            want = " or ".join(f"{d}D" for d in self._dims)
            raise ValueError(f"expected {want} input (got {input.ndim}D input)")

    def forward(self, input):
        self._check_input_dim(input)
        factor = 0.0 if self.momentum is None else self.momentum
        if self.training and self.track_running_stats and self.num_batches_tracked is not None:
            with paddle.no_grad():
                paddle.assign(self.num_batches_tracked + 1, output=self.num_batches_tracked)
            if self.momentum is None:
                factor = 1.0 / float(self.num_batches_tracked.item())
        bn_training = self.training or (self.running_mean is None and self.running_var is None)
        use_stats = not self.training or self.track_running_stats
        return NF.batch_norm(input, self.running_mean if use_stats else None,
                             self.running_var if use_stats else None, self.weight, self.bias,
                             bn_training, factor, self.eps)


@_export
class BatchNorm1d(_BatchNorm):
    _dims = (2, 3)


@_export
class BatchNorm2d(_BatchNorm):
    _dims = (4,)


@_export
class BatchNorm3d(_BatchNorm):
    _dims = (5,)


class _InstanceNorm(_NormBase):
    _nd = 1

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None, *, bias=True):
        super().__init__(num_features, eps, momentum, affine, track_running_stats, device, dtype,
                         bias=bias)

    def forward(self, input):
        nd = self._nd
        if input.ndim not in (nd + 1, nd + 2):
            raise ValueError(f"expected {nd + 1}D or {nd + 2}D input (got {input.ndim}D input)")
        unb = input.ndim == nd + 1
        x = input.unsqueeze(0) if unb else input
        if x.shape[1] != self.num_features and self.affine:
            raise ValueError(f"expected input's size at dim=1 to match num_features "
                             f"({self.num_features}), but got: {x.shape[1]}.")
        out = NF.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                               self.training or not self.track_running_stats,
                               self.momentum if self.momentum is not None else 0.1, self.eps)
        return out.squeeze(0) if unb else out


@_export
class InstanceNorm1d(_InstanceNorm):
    _nd = 1


@_export
class InstanceNorm2d(_InstanceNorm):
    _nd = 2


@_export
class InstanceNorm3d(_InstanceNorm):
    _nd = 3


@_export
class GroupNorm(Module):
    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError("num_channels must be divisible by num_groups")
        self.num_groups, self.num_channels, self.eps, self.affine = (num_groups, num_channels,
                                                                     eps, affine)
        if affine:
            self.weight = Parameter(paddle.ones([num_channels]))
            self.bias = Parameter(paddle.zeros([num_channels])) if bias else None
            if not bias:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        _finish_layer(self, device, dtype)

    def forward(self, input):
        return NF.group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


@_export
class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return NF.local_response_norm(input, self.size, self.alpha, self.beta, self.k)


@_export
class RMSNorm(Module):
    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps, self.elementwise_affine = eps, elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(paddle.ones(list(self.normalized_shape)))
        else:
            self.register_parameter("weight", None)
        _finish_layer(self, device, dtype)

    def forward(self, x):
        return _nn.rms_norm(x, self.normalized_shape, self.weight, self.eps)


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


# -- dropout variants, reshaping -----------------------------------------------------------------
class _DropoutNd(Module):
    _fn = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self)._fn(input, self.p, self.training, self.inplace)


@_export
class Dropout1d(_DropoutNd):
    _fn = staticmethod(NF.dropout1d)


@_export
class Dropout2d(_DropoutNd):
    _fn = staticmethod(NF.dropout2d)


@_export
class Dropout3d(_DropoutNd):
    _fn = staticmethod(NF.dropout3d)


@_export
class AlphaDropout(_DropoutNd):
    _fn = staticmethod(NF.alpha_dropout)


@_export
class FeatureAlphaDropout(_DropoutNd):
    _fn = staticmethod(NF.feature_alpha_dropout)


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
        return NF.pixel_shuffle(input, self.upscale_factor)


@_export
class PixelUnshuffle(Module):
    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return NF.pixel_unshuffle(input, self.downscale_factor)


@_export
class Unfold(Module):
    def __init__(self, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.kernel_size, self.dilation, self.padding, self.stride = (kernel_size, dilation,
                                                                      padding, stride)

    def forward(self, input):
        return NF.unfold(input, self.kernel_size, self.dilation, self.padding, self.stride)


@_export
class Fold(Module):
    def __init__(self, output_size, kernel_size, dilation=1, padding=0, stride=1):
        super().__init__()
        self.output_size, self.kernel_size = output_size, kernel_size
        self.dilation, self.padding, self.stride = dilation, padding, stride

    def forward(self, input):
        return NF.fold(input, self.output_size, self.kernel_size, self.dilation, self.padding,
                       self.stride)


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
        return NF.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                              recompute_scale_factor=self.recompute_scale_factor)


@_export
class UpsamplingNearest2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


@_export
class UpsamplingBilinear2d(Upsample):
    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)


# -- containers ---------------------------------------------------------------------------------
@_export
class Sequential(Module):
    def __init__(self, *args):
        super().__init__()
        if len(args) == 1 and isinstance(args[0], collections.OrderedDict):
            for key, m in args[0].items():
                self.add_module(key, m)
        else:
            for idx, m in enumerate(args):
                self.add_module(str(idx), m)

    def __getitem__(self, idx):
        items = list(self._sub_layers.items())
        if isinstance(idx, slice):
            return Sequential(collections.OrderedDict(items[idx]))
        n = len(items)
        if not -n <= idx < n:
            raise IndexError(f"index {idx} is out of range")
        return items[idx % n][1]

    def __setitem__(self, idx, module):
        key = list(self._sub_layers)[idx]
        self._sub_layers[key] = module

    def __delitem__(self, idx):
        keys = list(self._sub_layers)
        for k in (keys[idx] if isinstance(idx, slice) else [keys[idx]]):
            del self._sub_layers[k]
        rest = list(self._sub_layers.values())
        self._sub_layers.clear()
        for i, m in enumerate(rest):
            self._sub_layers[str(i)] = m

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers.values())

    def append(self, module):
        self.add_module(str(len(self)), module)
        return self

    def extend(self, modules):
        for m in modules:
            self.append(m)
        return self

    def insert(self, index, module):
        mods = list(self._sub_layers.values())
        mods.insert(index, module)
        self._sub_layers.clear()
        for i, m in enumerate(mods):
            self._sub_layers[str(i)] = m
        return self

    def forward(self, input):
        for m in self._sub_layers.values():
            input = m(input)
        return input


@_export
class ModuleDict(Module):
    def __init__(self, modules=None):
        super().__init__()
        if modules is not None:
            self.update(modules)

    def __getitem__(self, key):
        return self._sub_layers[key]

    def __setitem__(self, key, module):
        self.add_module(key, module)

    def __delitem__(self, key):
        del self._sub_layers[key]

    def __len__(self):
        return len(self._sub_layers)

    def __iter__(self):
        return iter(self._sub_layers)

    def __contains__(self, key):
        return key in self._sub_layers

    def keys(self):
        return self._sub_layers.keys()

    def items(self):
        return self._sub_layers.items()

    def values(self):
        return self._sub_layers.values()

    def pop(self, key):
        return self._sub_layers.pop(key)

    def clear(self):
        self._sub_layers.clear()

    def update(self, modules):
        items = modules.items() if hasattr(modules, "items") else modules
        for k, m in items:
            self[k] = m


@_export
class ParameterList(Module):
    def __init__(self, values=None):
        super().__init__()
        self._size = 0
        if values is not None:
            self.extend(values)

    def _as_param(self, v):
        if isinstance(v, paddle.Tensor) and not isinstance(v, Parameter):
            v = Parameter(v)
        return v

    def __getitem__(self, idx):
        if isinstance(idx, slice):
            return ParameterList([self[i] for i in range(self._size)[idx]])
        if not -self._size <= idx < self._size:
            raise IndexError(f"index {idx} is out of range")
        return self._parameters[str(idx % self._size)]

    def __setitem__(self, idx, param):
        self.register_parameter(str(idx % self._size), self._as_param(param))

    def __len__(self):
        return self._size

    def __iter__(self):
        return iter(self[i] for i in range(self._size))

    def append(self, value):
        self._size += 1
        self.register_parameter(str(self._size - 1), self._as_param(value))
        return self

    def extend(self, values):
        for v in values:
            self.append(v)
        return self

    def forward(self, *args, **kwargs):
        raise RuntimeError("ParameterList should not be called.")


@_export
class ParameterDict(Module):
    def __init__(self, parameters=None):
        super().__init__()
        if parameters is not None:
            self.update(parameters)

    def __getitem__(self, key):
        return self._parameters[key]

    def __setitem__(self, key, value):
        if isinstance(value, paddle.Tensor) and not isinstance(value, Parameter):
            value = Parameter(value)
        self.register_parameter(key, value)

    def __delitem__(self, key):
        del self._parameters[key]

    def __len__(self):
        return len(self._parameters)

    def __iter__(self):
        return iter(self._parameters)

    def __contains__(self, key):
        return key in self._parameters

    def keys(self):
        return self._parameters.keys()

    def items(self):
        return self._parameters.items()

    def values(self):
        return self._parameters.values()

    def update(self, parameters):
        items = parameters.items() if hasattr(parameters, "items") else parameters
        for k, v in items:
            self[k] = v

    def forward(self, *args, **kwargs):
        raise RuntimeError("ParameterDict should not be called.")


# -- embedding bag ------------------------------------------------------------------------------
@_export
class EmbeddingBag(Module):
    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"mode has to be one of sum, mean or max, got {mode}")
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:
            w = paddle.randn([num_embeddings, embedding_dim])
            if padding_idx is not None:
                w[padding_idx] = 0.0
        else:
            w = _weight
        self.weight = Parameter(w)
        _finish_layer(self, device, dtype)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                             self.include_last_offset, self.padding_idx)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None")
        bags = [(i * input.shape[1], (i + 1) * input.shape[1]) for i in range(input.shape[0])]
        flat = input.reshape([-1])
        psw = per_sample_weights.reshape([-1]) if per_sample_weights is not None else None
    else:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        off = [int(o) for o in offsets.tolist()]
        flat = input
        n = flat.shape[0]
        if include_last_offset:
            bags = list(zip(off[:-1], off[1:]))
        else:
            bags = list(zip(off, off[1:] + [n]))
        psw = per_sample_weights
    from .nn import embedding  # max_norm (renorm in place), scale_grad_by_freq, sparse
    emb = embedding(flat, weight, None, max_norm, norm_type, scale_grad_by_freq, sparse)
    if psw is not None:
        emb = emb * psw.unsqueeze(-1)
    keep = None
    if padding_idx is not None and padding_idx < 0:  # torch counts it from the end
        padding_idx += weight.shape[0]
    if padding_idx is not None:  # padding entries take no part in the bag (max included)
        keep = (flat != padding_idx).astype(emb.dtype).unsqueeze(-1)
        if mode == "max":
            emb = paddle.where(keep > 0, emb, paddle.full_like(emb, float("-inf")))
        else:
            emb = emb * keep
    rows = []
    for a, b in bags:
        if b <= a:
            rows.append(paddle.zeros([weight.shape[1]], dtype=weight.dtype))
            continue
        seg = emb[a:b]
        if mode == "sum":
            rows.append(seg.sum(axis=0))
        elif mode == "mean":
            cnt = float(b - a) if keep is None else keep[a:b].sum()
            rows.append(seg.sum(axis=0) / paddle.maximum(
                paddle.to_tensor(cnt, dtype=emb.dtype) if keep is None else cnt,
                paddle.to_tensor(1.0, dtype=emb.dtype)))
        else:
            m = seg.max(axis=0)
            rows.append(paddle.where(paddle.isinf(m) & (m < 0), paddle.zeros_like(m), m)
                        if keep is not None else m)
    return paddle.stack(rows) if rows else paddle.zeros([0, weight.shape[1]], weight.dtype)


# -- recurrent layers ---------------------------------------------------------------------------
def _linear(x, w, b):
    out = paddle.matmul(x, w, transpose_y=True)
    return out + b if b is not None else out


def _rnn_cell(mode, x, hx, w_ih, w_hh, b_ih, b_hh, w_hr=None):
    """One step; hx is h (or (h, c) for LSTM). Returns the new state."""
    if mode == "LSTM":
        h, c = hx
        gates = _linear(x, w_ih, b_ih) + _linear(h, w_hh, b_hh)
        i, f, g, o = paddle.chunk(gates, 4, axis=-1)
        i, f, g, o = PF.sigmoid(i), PF.sigmoid(f), paddle.tanh(g), PF.sigmoid(o)
        c = f * c + i * g
        h = o * paddle.tanh(c)
        if w_hr is not None:
            h = paddle.matmul(h, w_hr, transpose_y=True)
        return h, c
    if mode == "GRU":
        gi = _linear(x, w_ih, b_ih)
        gh = _linear(hx, w_hh, b_hh)
        ir, iz, in_ = paddle.chunk(gi, 3, axis=-1)
        hr, hz, hn = paddle.chunk(gh, 3, axis=-1)
        r = PF.sigmoid(ir + hr)
        z = PF.sigmoid(iz + hz)
        n = paddle.tanh(in_ + r * hn)
        return (1 - z) * n + z * hx
    act = paddle.tanh if mode == "RNN_TANH" else PF.relu
    return act(_linear(x, w_ih, b_ih) + _linear(hx, w_hh, b_hh))


@_export
class RNNBase(Module):
    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__()
        self.mode, self.input_size, self.hidden_size = mode, input_size, hidden_size
        self.num_layers, self.bias, self.batch_first = num_layers, bias, batch_first
        self.dropout, self.bidirectional, self.proj_size = float(dropout), bidirectional, proj_size
        if not isinstance(dropout, (int, float)) or not 0 <= dropout <= 1 or isinstance(dropout, bool):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if not isinstance(hidden_size, int) or hidden_size <= 0:
            raise ValueError("hidden_size must be an integer greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than or equal to 1")
        if proj_size < 0:
            raise ValueError("proj_size should be a positive integer or zero to disable "
                             "projections")
        if proj_size >= hidden_size:
            raise ValueError("proj_size has to be smaller than hidden_size")
        if mode != "LSTM" and proj_size:
            raise ValueError("proj_size argument is only supported for LSTM, not RNN or GRU")
        gate = {"LSTM": 4, "GRU": 3}.get(mode, 1) * hidden_size
        dirs = 2 if bidirectional else 1
        real_hidden = proj_size if proj_size > 0 else hidden_size
        self._flat_weights_names = []
        for layer in range(num_layers):
            for d in range(dirs):
                in_size = input_size if layer == 0 else real_hidden * dirs
                sfx = "_reverse" if d == 1 else ""
                names = [f"weight_ih_l{layer}{sfx}", f"weight_hh_l{layer}{sfx}"]
                shapes = [[gate, in_size], [gate, real_hidden]]
                if bias:
                    names += [f"bias_ih_l{layer}{sfx}", f"bias_hh_l{layer}{sfx}"]
                    shapes += [[gate], [gate]]
                if proj_size > 0:
                    names.append(f"weight_hr_l{layer}{sfx}")
                    shapes.append([proj_size, hidden_size])
                for n, s in zip(names, shapes):
                    setattr(self, n, _param(s))
                self._flat_weights_names.extend(names)
        self.reset_parameters()
        _finish_layer(self, device, dtype)

    @property
    def _flat_weights(self):
        return [getattr(self, n) for n in self._flat_weights_names]

    @property
    def all_weights(self):
        return [[getattr(self, n) for n in self._flat_weights_names if n.endswith(sfx)]
                for sfx in ()]  # rarely used; kept for attribute presence

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self._flat_weights:
            init.uniform_(w, -stdv, stdv)

    def flatten_parameters(self):
        return None

    def _weights(self, layer, d):
        sfx = "_reverse" if d == 1 else ""
        g = lambda n: getattr(self, f"{n}_l{layer}{sfx}", None)  # noqa: E731
        return (g("weight_ih"), g("weight_hh"), g("bias_ih") if self.bias else None,
                g("bias_hh") if self.bias else None,
                g("weight_hr") if self.proj_size > 0 else None)

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.proj_size:
            s += f", proj_size={self.proj_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    def forward(self, input, hx=None):
        from .nn_utils import PackedSequence, _pack_from_padded, _unpack_to_padded
        packed = isinstance(input, PackedSequence)
        if packed:
            x, lengths = _unpack_to_padded(input)  # [T, B, *] time-major
            batched = True
            sorted_idx, unsorted_idx = input.sorted_indices, input.unsorted_indices
        else:
            lengths = None
            batched = input.ndim == 3
            if input.ndim not in (2, 3):
                raise ValueError(f"{self.mode}: Expected input to be 2D or 3D, got "
                                 f"{input.ndim}D instead")
            x = input if batched else input.unsqueeze(1)
            if batched and self.batch_first:
                x = x.transpose([1, 0, 2])
        T, B = x.shape[0], x.shape[1]
        dirs = 2 if self.bidirectional else 1
        real_hidden = self.proj_size if self.proj_size > 0 else self.hidden_size
        is_lstm = self.mode == "LSTM"
        if hx is None:
            h0 = paddle.zeros([self.num_layers * dirs, B, real_hidden], dtype=x.dtype)
            c0 = paddle.zeros([self.num_layers * dirs, B, self.hidden_size], dtype=x.dtype) \
                if is_lstm else None
        else:
            if is_lstm:
                h0, c0 = hx
            else:
                h0, c0 = hx, None
            if not batched:
                if h0.ndim != 2:
                    raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but "
                                       f"got {h0.ndim}-D tensor")
                h0 = h0.unsqueeze(1)
                c0 = c0.unsqueeze(1) if c0 is not None else None
            elif h0.ndim != 3:
                raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                                   f"{h0.ndim}-D tensor")
            if packed and sorted_idx is not None:
                h0 = paddle.gather(h0, sorted_idx, axis=1)
                c0 = paddle.gather(c0, sorted_idx, axis=1) if c0 is not None else None
        if lengths is not None:
            mask = (paddle.arange(T).unsqueeze(1) < paddle.to_tensor(lengths).unsqueeze(0))
            mask = mask.astype(x.dtype).unsqueeze(-1)  # [T, B, 1]
        hn, cn = [], []
        layer_in = x
        for layer in range(self.num_layers):
            outs = []
            for d in range(dirs):
                w_ih, w_hh, b_ih, b_hh, w_hr = self._weights(layer, d)
                idx = layer * dirs + d
                h = h0[idx]
                state = (h, c0[idx]) if is_lstm else h
                steps = range(T - 1, -1, -1) if d == 1 else range(T)
                ys = [None] * T
                for t in steps:
                    new = _rnn_cell(self.mode, layer_in[t], state, w_ih, w_hh, b_ih, b_hh, w_hr)
                    if lengths is not None:
                        m = mask[t]
                        if is_lstm:
                            new = (new[0] * m + state[0] * (1 - m), new[1] * m + state[1] * (1 - m))
                        else:
                            new = new * m + state * (1 - m)
                    state = new
                    y = state[0] if is_lstm else state
                    ys[t] = y * mask[t] if lengths is not None else y
                outs.append(paddle.stack(ys))
                if is_lstm:
                    hn.append(state[0])
                    cn.append(state[1])
                else:
                    hn.append(state)
            layer_out = outs[0] if dirs == 1 else paddle.concat(outs, axis=-1)
            if self.dropout and self.training and layer < self.num_layers - 1:
                layer_out = PF.dropout(layer_out, p=self.dropout, training=True)
            layer_in = layer_out
        out = layer_in
        h_n = paddle.stack(hn)
        c_n = paddle.stack(cn) if is_lstm else None
        if packed:
            out = _pack_from_padded(out, input)
            if unsorted_idx is not None:
                h_n = paddle.gather(h_n, unsorted_idx, axis=1)
                c_n = paddle.gather(c_n, unsorted_idx, axis=1) if c_n is not None else None
        else:
            if batched and self.batch_first:
                out = out.transpose([1, 0, 2])
            if not batched:
                out = out.squeeze(1)
                h_n = h_n.squeeze(1)
                c_n = c_n.squeeze(1) if c_n is not None else None
        return (out, (h_n, c_n)) if is_lstm else (out, h_n)


@_export
class RNN(RNNBase):
    def __init__(self, *args, **kwargs):
        names = ["input_size", "hidden_size", "num_layers", "nonlinearity", "bias", "batch_first",
                 "dropout", "bidirectional", "device", "dtype"]
        for n, a in zip(names, args):
            kwargs[n] = a
        nl = kwargs.pop("nonlinearity", "tanh")
        if nl not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity '{nl}'. Select from 'tanh' or 'relu'.")
        self.nonlinearity = nl
        super().__init__("RNN_TANH" if nl == "tanh" else "RNN_RELU", **kwargs)


@_export
class LSTM(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("LSTM", *args, **kwargs)


@_export
class GRU(RNNBase):
    def __init__(self, *args, **kwargs):
        super().__init__("GRU", *args, **kwargs)


class _RNNCellBase(Module):
    _mode = "RNN_TANH"
    _gates = 1

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__()
        self.input_size, self.hidden_size, self.bias = input_size, hidden_size, bias
        g = self._gates * hidden_size
        self.weight_ih = _param([g, input_size])
        self.weight_hh = _param([g, hidden_size])
        if bias:
            self.bias_ih = _param([g])
            self.bias_hh = _param([g])
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()
        _finish_layer(self, device, dtype)

    def reset_parameters(self):
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for w in self.parameters():
            init.uniform_(w, -stdv, stdv)

    def _run(self, input, hx, mode):
        if input.ndim not in (1, 2):
            raise ValueError(f"{type(self).__name__}: Expected input to be 1D or 2D, got "
                             f"{input.ndim}D instead")
        batched = input.ndim == 2
        x = input if batched else input.unsqueeze(0)
        n = x.shape[0]
        lstm = mode == "LSTM"
        if hx is None:
            z = paddle.zeros([n, self.hidden_size], dtype=x.dtype)
            hx = (z, z) if lstm else z
        elif not batched:
            hx = tuple(h.unsqueeze(0) for h in hx) if lstm else hx.unsqueeze(0)
        out = _rnn_cell(mode, x, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        if not batched:
            out = tuple(o.squeeze(0) for o in out) if lstm else out.squeeze(0)
        return out


@_export
class RNNCell(_RNNCellBase):
    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise ValueError(f"Unknown nonlinearity: {nonlinearity}")
        self.nonlinearity = nonlinearity
        super().__init__(input_size, hidden_size, bias, device, dtype)

    def forward(self, input, hx=None):
        return self._run(input, hx, "RNN_TANH" if self.nonlinearity == "tanh" else "RNN_RELU")


@_export
class LSTMCell(_RNNCellBase):
    _gates = 4

    def forward(self, input, hx=None):
        return self._run(input, hx, "LSTM")


@_export
class GRUCell(_RNNCellBase):
    _gates = 3

    def forward(self, input, hx=None):
        return self._run(input, hx, "GRU")


# -- attention and transformers ---------------------------------------------------------------
class NonDynamicallyQuantizableLinear(_nn.Linear):
    pass


@_export
class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = _param([embed_dim, embed_dim])
            self.k_proj_weight = _param([embed_dim, self.kdim])
            self.v_proj_weight = _param([embed_dim, self.vdim])
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = _param([3 * embed_dim, embed_dim])
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = _param([3 * embed_dim])
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias)
        if add_bias_kv:
            self.bias_k = _param([1, 1, embed_dim])
            self.bias_v = _param([1, 1, embed_dim])
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()
        _finish_layer(self, device, dtype)

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        is_batched = query.ndim == 3
        if self.batch_first and is_batched:
            query, key, value = (t.transpose([1, 0, 2]) for t in (query, key, value))
        out, w = NF.multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and is_batched:
            out = out.transpose([1, 0, 2])
        return out, w


def _activation(act):
    if act == "relu" or act is PF.relu:
        return PF.relu
    if act == "gelu":
        return _nn.gelu
    if isinstance(act, str):
        raise RuntimeError(f"activation should be relu/gelu, not {act}")
    return act


@_export
class TransformerEncoderLayer(Module):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first)
        self.linear1 = _nn.Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = _nn.Dropout(dropout)
        self.linear2 = _nn.Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = _nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = _nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout1 = _nn.Dropout(dropout)
        self.dropout2 = _nn.Dropout(dropout)
        self.activation_relu_or_gelu = 1 if activation in ("relu",) else (
            2 if activation == "gelu" else 0)
        self.activation = _activation(activation)
        _finish_layer(self, device, dtype)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout2(x)


@_export
class TransformerDecoderLayer(Module):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                            bias=bias)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias)
        self.linear1 = _nn.Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = _nn.Dropout(dropout)
        self.linear2 = _nn.Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        self.norm1 = _nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm2 = _nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.norm3 = _nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias)
        self.dropout1 = _nn.Dropout(dropout)
        self.dropout2 = _nn.Dropout(dropout)
        self.dropout3 = _nn.Dropout(dropout)
        self.activation = _activation(activation)
        _finish_layer(self, device, dtype)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                    memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           is_causal=is_causal, need_weights=False)[0]
        return self.dropout1(x)

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return self.dropout3(x)


def _get_clones(module, n):
    return _nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


def _nested_fast_path(enc, src, mask, src_key_padding_mask):
    """Whether torch's TransformerEncoder takes its nested-tensor fast path (eval, no grad
    needed...), whose output is zero at the padded positions."""
    layer = enc.layers[0]
    if not enc.use_nested_tensor or enc.training or src_key_padding_mask is None:
        return False
    if src.ndim != 3 or not layer.self_attn.batch_first:
        return False
    if mask is not None:
        return False
    if paddle.is_grad_enabled() and (not src.stop_gradient or any(
            not p.stop_gradient for p in enc.parameters())):
        return False
    return True


@_export
class TransformerEncoder(Module):
    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        layer = encoder_layer
        why_not = ""
        if not isinstance(layer, TransformerEncoderLayer):
            why_not = "not TransformerEncoderLayer"
        elif layer.norm_first:
            why_not = "norm_first"
        elif not layer.self_attn.batch_first:
            why_not = "batch_first False"
        elif not layer.self_attn._qkv_same_embed_dim:
            why_not = "qkv dims"
        elif layer.self_attn.in_proj_bias is None:
            why_not = "no bias"
        elif not layer.activation_relu_or_gelu:
            why_not = "activation"
        elif layer.norm1.eps != layer.norm2.eps:
            why_not = "eps"
        elif layer.self_attn.num_heads % 2 == 1:
            why_not = "num_head is odd"
        if why_not:
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        output = src
        fast = _nested_fast_path(self, src, mask, src_key_padding_mask)
        if src_key_padding_mask is not None and src_key_padding_mask.dtype != paddle.bool:
            fast = False
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=bool(is_causal),
                         src_key_padding_mask=src_key_padding_mask)
        if fast:
            keep = paddle.logical_not(src_key_padding_mask).astype(output.dtype).unsqueeze(-1)
            output = output * keep
        if self.norm is not None:
            output = self.norm(output)
        return output


@_export
class TransformerDecoder(Module):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


@_export
class Transformer(Module):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()
        if custom_encoder is not None:
            self.encoder = custom_encoder
        else:
            layer = TransformerEncoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            layer_norm_eps, batch_first, norm_first, bias)
            self.encoder = TransformerEncoder(layer, num_encoder_layers,
                                              _nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
        if custom_decoder is not None:
            self.decoder = custom_decoder
        else:
            layer = TransformerDecoderLayer(d_model, nhead, dim_feedforward, dropout, activation,
                                            layer_norm_eps, batch_first, norm_first, bias)
            self.decoder = TransformerDecoder(layer, num_decoder_layers,
                                              _nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        _finish_layer(self, device, dtype)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        m = paddle.triu(paddle.full([sz, sz], float("-inf"), dtype="float32"), diagonal=1)
        return m


for _cls in _EXPORTS:
    type_(f"torch.nn.{_cls.__name__}", _cls)
adapter("torch.nn.functional.embedding_bag")(embedding_bag)
