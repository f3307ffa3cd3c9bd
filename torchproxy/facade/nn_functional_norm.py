"""``torch.nn.functional`` normalisation functions (batch/instance/group/local-response norm)
and their ``torch.*`` native forms, with torch's running-statistics updates.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: _native_batch_norm_legit batch_norm group_norm layer_norm native_batch_norm
        native_group_norm native_layer_norm rms_norm
    torch.nn.functional: batch_norm group_norm instance_norm local_response_norm
""")

import math

import paddle

from ._accurate_sum import accurate_mean, exact_broadcast
from ._nn_common import _floating, _is_int
from .nn import layer_norm, layer_norm_formula, rms_norm
from .nn_functional import F
from .registry import torch_function


# -- normalisation ----------------------------------------------------------------------------------
def _bshape(t, ndim):
    """A per-channel [C] tensor broadcast over [N, C, *]."""
    return t.reshape([1, -1] + [1] * (ndim - 2))


def _over(stat, x):
    """A per-channel or per-group statistic broadcast over ``x`` (its gradient summed with
    torch's accuracy: _accurate_sum.py)."""
    return exact_broadcast(stat, x.shape)


def _moments(x, axes, keepdim=False):
    """(mean, biased variance) of ``x`` over ``axes``, summed with torch's accuracy."""
    mean = accurate_mean(x, axes, keepdim)
    m = mean if keepdim else mean.reshape(
        [1 if i in axes else d for i, d in enumerate(x.shape)])
    return mean, accurate_mean((x - _over(m, x)) ** 2, axes, keepdim)


def _affine(out, weight, bias):
    """``out * weight + bias`` with per-channel weight/bias (either may be None); their
    gradients summed with torch's accuracy (_accurate_sum.py)."""
    if weight is not None:
        out = out * _over(_bshape(weight, out.ndim), out)
    if bias is not None:
        out = out + _over(_bshape(bias, out.ndim), out)
    return out


def _update_running(running, value, momentum):
    """torch's running-statistics update, in place: running = (1 - momentum) * running +
    momentum * value (no autograd record)."""
    with paddle.no_grad():
        paddle.assign((1 - momentum) * running + momentum * value, output=running)


@torch_function(F + "batch_norm")
def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    if input.ndim < 2:  # torch counts 0 channels for a 1-D input: only an empty one passes
        for name, t in (("running_mean", running_mean), ("running_var", running_var),
                        ("weight", weight), ("bias", bias)):
            if t is not None and math.prod(t.shape) != 0:
                raise RuntimeError(f"{name} should contain 0 elements not {math.prod(t.shape)}")
        if math.prod(input.shape):
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {list(input.shape)}")
        return input + 0  # a new (empty) tensor; Paddle 2.6 cannot clone an empty one
    axes = [0] + list(range(2, input.ndim))
    if training:
        n = math.prod(input.shape) // input.shape[1]
        if n == 0:  # an empty batch: torch returns it normalised as is, stats unchanged
            out = input
            out = _affine(out, weight, bias)
            return out
        if n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {list(input.shape)}")
        mean, var = _moments(input, axes)
        if running_mean is not None:
            _update_running(running_mean, mean.detach(), momentum)
        if running_var is not None:
            _update_running(running_var, var.detach() * (float(n) / (float(n) - 1)), momentum)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        mean, var = running_mean, running_var
    out = ((input - _over(_bshape(mean, input.ndim), input))
           / _over(paddle.sqrt(_bshape(var, input.ndim) + eps), input))
    out = _affine(out, weight, bias)
    return out


@torch_function(F + "instance_norm")
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or more input (got {input.ndim}D input)")
    axes = list(range(2, input.ndim))
    if use_input_stats:
        mean, var = _moments(input, axes, keepdim=True)
        n = math.prod(input.shape[2:])
        if running_mean is not None:
            _update_running(running_mean, mean.detach().reshape(input.shape[:2]).mean(axis=0),
                            momentum)
        if running_var is not None:
            _update_running(running_var, var.detach().reshape(input.shape[:2]).mean(axis=0)
                            * (n / max(n - 1, 1)), momentum)
    else:
        mean = _bshape(running_mean, input.ndim)
        var = _bshape(running_var, input.ndim)
    out = (input - _over(mean, input)) / _over(paddle.sqrt(var + eps), input)
    out = _affine(out, weight, bias)
    return out


@torch_function(F + "group_norm")
def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.ndim}")
    n, c = input.shape[0], input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by "
                           f"num_groups, but got input of shape {list(input.shape)} and "
                           f"num_groups={num_groups}")
    x = input.reshape([n, num_groups, math.prod(input.shape[1:]) // num_groups])
    mean, var = _moments(x, [2], keepdim=True)
    out = ((x - _over(mean, x)) / _over(paddle.sqrt(var + eps), x)).reshape(input.shape)
    out = _affine(out, weight, bias)
    return out


@torch_function("torch.group_norm")
def torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return group_norm(input, num_groups, weight, bias, eps)


@torch_function("torch.layer_norm")
def torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5,
                     cudnn_enable=True):
    return layer_norm(input, normalized_shape, weight, bias, eps)


@torch_function("torch.rms_norm")
def torch_rms_norm(input, normalized_shape, weight=None, eps=None):
    return rms_norm(input, normalized_shape, weight, eps)


@torch_function("torch.batch_norm")
def torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                     cudnn_enabled=True):
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@torch_function("torch.native_layer_norm")
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(out, mean, rstd), mean/rstd of shape input.shape[:axis] + [1] * len(normalized_shape)."""
    return layer_norm_formula(input, normalized_shape, weight, bias, eps)


@torch_function("torch.native_group_norm")
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(out, mean [N, group], rstd [N, group])."""
    if C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and num_groups={group}")
    x = input.reshape([N, group, math.prod(input.shape[1:]) // group])
    mean, var = _moments(x, [2], keepdim=True)
    rstd = paddle.rsqrt(var + eps)
    out = ((x - _over(mean, x)) * _over(rstd, x)).reshape(input.shape)
    out = _affine(out, weight, bias)
    return out, mean.reshape([N, group]), rstd.reshape([N, group])


def _native_bn(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """torch's native_batch_norm: (out, save_mean, save_invstd); in evaluation both saved
    tensors are empty, and training updates the running stats in place (unbiased variance)."""
    if input.ndim < 2:
        raise RuntimeError(f"batch_norm: expected at least 2-D input, got {input.ndim}-D")
    axes = [0] + list(range(2, input.ndim))
    c = input.shape[1]
    if training:
        n = math.prod(input.shape) // max(c, 1)
        mean, var = _moments(input, axes)
        invstd = paddle.rsqrt(var + eps)
        if running_mean is not None:
            _update_running(running_mean, mean.detach(), momentum)
        if running_var is not None and n > 1:
            _update_running(running_var, var.detach() * (float(n) / (float(n) - 1)), momentum)
        out = ((input - _over(_bshape(mean, input.ndim), input))
               * _over(_bshape(invstd, input.ndim), input))
        save_mean, save_invstd = mean, invstd
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        out = (input - _bshape(running_mean, input.ndim)) * \
            _bshape(paddle.rsqrt(running_var + eps), input.ndim)
        save_mean = paddle.zeros([0], dtype=input.dtype)
        save_invstd = paddle.zeros([0], dtype=input.dtype)
    out = _affine(out, weight, bias)
    return out, save_mean, save_invstd


@torch_function("torch.native_batch_norm")
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    return _native_bn(input, weight, bias, running_mean, running_var, training, momentum, eps)


@torch_function("torch._native_batch_norm_legit")
def _native_batch_norm_legit(input, weight, bias, *args):
    """Both overloads: (running_mean, running_var, training, momentum, eps) and, without
    running stats, (training, momentum, eps)."""
    if len(args) == 3:
        return _native_bn(input, weight, bias, None, None, *args)
    if len(args) == 5:
        return _native_bn(input, weight, bias, *args)
    raise TypeError("_native_batch_norm_legit() takes (input, weight, bias, running_mean, "
                    "running_var, training, momentum, eps) or (input, weight, bias, training, "
                    "momentum, eps)")


@torch_function(F + "local_response_norm")
def local_response_norm(input, size, alpha=1e-4, beta=0.75, k=1.0):
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} "
                         "dimensions)")
    if math.prod(input.shape) == 0:
        return input
    sq = input * input
    c = input.shape[1]
    lo, hi = size // 2, (size - 1) // 2
    zeros_lo = paddle.zeros([input.shape[0], lo] + input.shape[2:], dtype=input.dtype)
    zeros_hi = paddle.zeros([input.shape[0], hi] + input.shape[2:], dtype=input.dtype)
    padded = paddle.concat([zeros_lo, sq, zeros_hi], axis=1)
    div = None
    for o in range(size):
        s = padded[:, o:o + c]
        div = s if div is None else div + s
    if _is_int(input):  # torch averages with an integer avg_pool (squares: never negative)
        div = (div // size).astype(paddle.get_default_dtype())
    else:
        div = div / size
    div = paddle.pow(div * alpha + k, beta)
    return _floating(input) / div
