"""``torch.nn`` normalisation modules: batch/instance norm (torch's running statistics and
``num_batches_tracked``), ``GroupNorm``, ``LocalResponseNorm``, ``RMSNorm``.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: BatchNorm1d BatchNorm2d BatchNorm3d GroupNorm InstanceNorm1d InstanceNorm2d
        InstanceNorm3d LocalResponseNorm RMSNorm
    torch.nn.modules.batchnorm: _BatchNorm _NormBase
    torch.nn.modules.instancenorm: _InstanceNorm
""")

import paddle

from . import nn as _nn
from . import nn_init as init
from .nn import _finish_layer, _norm_affine_params, Module, Parameter
from .nn_functional_norm import batch_norm, group_norm, instance_norm, local_response_norm
from .nn_modules import _export, _export_base


# -- normalisation ------------------------------------------------------------------------------
@_export_base("batchnorm")
class _NormBase(Module):
    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=True,
                 track_running_stats=True, device=None, dtype=None, *, bias=True):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        _norm_affine_params(self, [num_features], affine, bias)
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


@_export_base("batchnorm")
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
        return batch_norm(input, self.running_mean if use_stats else None,
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


@_export_base("instancenorm")
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
        out = instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
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
        _norm_affine_params(self, [num_channels], affine, bias)
        _finish_layer(self, device, dtype)

    def forward(self, input):
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)


@_export
class LocalResponseNorm(Module):
    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return local_response_norm(input, self.size, self.alpha, self.beta, self.k)


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
