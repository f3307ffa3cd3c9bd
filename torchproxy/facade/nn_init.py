"""``torch.nn.init``: torch's initialisers, in place on Paddle tensors and parameters.

Fan-in / fan-out, gains and bounds are computed as torch computes them (in its order of
operations), and the draws are the tensor's own ``uniform_`` / ``normal_`` (facade/random.py): on
the CPU, torch's numbers for torch's seed; ``generator=`` draws from a facade ``torch.Generator``."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: init
    torch.nn.init: _calculate_correct_fan _calculate_fan_in_and_fan_out calculate_gain constant
        constant_ dirac dirac_ eye eye_ kaiming_normal kaiming_normal_ kaiming_uniform
        kaiming_uniform_ normal normal_ ones_ orthogonal orthogonal_ sparse sparse_ trunc_normal_
        uniform uniform_ xavier_normal xavier_normal_ xavier_uniform xavier_uniform_ zeros_
""")

import math
import numbers

import paddle

from ..paddle_shims import is_meta
from .registry import module, torch_function

I = "torch.nn.init."
module("torch.nn.init")


def _write(tensor, values):
    """Copy ``values`` into ``tensor`` in place (no autograd record, as torch's no_grad).  A
    meta tensor has nothing to write (torch's init functions leave it as it is; the values
    drawn for it here are discarded)."""
    if is_meta(tensor):
        return tensor
    with paddle.no_grad():
        paddle.assign(values.astype(tensor.dtype), output=tensor)
    return tensor


@torch_function(I + "calculate_gain")
def calculate_gain(nonlinearity, param=None):
    linear_fns = ["linear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
                  "conv_transpose3d"]
    if nonlinearity in linear_fns or nonlinearity == "sigmoid":
        return 1
    if nonlinearity == "tanh":
        return 5.0 / 3
    if nonlinearity == "relu":
        return math.sqrt(2.0)
    if nonlinearity == "leaky_relu":
        if param is None:
            negative_slope = 0.01
        elif not isinstance(param, bool) and isinstance(param, (int, float)):
            negative_slope = param
        else:
            raise ValueError(f"negative_slope {param} not a valid number")
        return math.sqrt(2.0 / (1 + negative_slope ** 2))
    if nonlinearity == "selu":
        return 3.0 / 4
    raise ValueError(f"Unsupported nonlinearity {nonlinearity}")


@torch_function(I + "_calculate_fan_in_and_fan_out")
def _calculate_fan_in_and_fan_out(tensor):
    dims = tensor.ndim
    if dims < 2:
        raise ValueError("Fan in and fan out can not be computed for tensor with fewer than 2 "
                         "dimensions")
    shape = list(tensor.shape)
    receptive = math.prod(shape[2:]) if dims > 2 else 1
    return shape[1] * receptive, shape[0] * receptive


@torch_function(I + "_calculate_correct_fan")
def _calculate_correct_fan(tensor, mode):
    mode = mode.lower()
    if mode not in ("fan_in", "fan_out"):
        raise ValueError(f"Mode {mode} not supported, please use one of fan_in, fan_out")
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    return fan_in if mode == "fan_in" else fan_out


def _draw(tensor, method, *args, generator=None):
    """``tensor.<method>_(*args, generator=)`` without autograd (torch's no_grad); a meta
    tensor is left as it is."""
    if is_meta(tensor):
        return tensor
    from . import random as _random
    with paddle.no_grad():
        return getattr(_random, method)(tensor, *args, generator=generator)


@torch_function(I + "uniform_")
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    return _draw(tensor, "uniform_", a, b, generator=generator)


@torch_function(I + "normal_")
def normal_(tensor, mean=0.0, std=1.0, generator=None):
    return _draw(tensor, "normal_", mean, std, generator=generator)


@torch_function(I + "trunc_normal_")
def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    """torch 2.13's rejection sampler, draw for draw: with over 30% of the mass inside [a, b],
    normal draws redrawn where they fall outside; otherwise uniform proposals on [a, b]
    accepted against the normal density (a second uniform per element and round)."""
    import warnings
    from . import random as _random
    if is_meta(tensor):
        return tensor

    def norm_cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0

    if (mean < a - 2 * std) or (mean > b + 2 * std):
        warnings.warn("mean is more than 2 std from [a, b] in nn.init.trunc_normal_. "
                      "The distribution of values may be incorrect.", stacklevel=2)
    with paddle.no_grad():
        p = norm_cdf((b - mean) / std) - norm_cdf((a - mean) / std)
        if p > 0.3:
            lo = float(paddle.to_tensor(a, dtype=tensor.dtype))
            hi = float(paddle.to_tensor(b, dtype=tensor.dtype))
            result = _random.normal_(tensor, mean, std, generator=generator)
            while True:
                mask = (result < lo) | (result > hi)
                if not bool(mask.any()):
                    break
                fresh = _random.normal_(paddle.empty_like(result), mean, std,
                                        generator=generator)
                result = paddle.where(mask, fresh, result)
            return _write(tensor, result)
        mode = max(a, min(mean, b))
        log_peak = -0.5 * ((mode - mean) / std) ** 2

        def log_pdf(c):
            return ((c - mean) / std) ** 2 * -0.5 - log_peak

        def rejected():
            u = _random.uniform_(paddle.empty_like(tensor), 0.0, 1.0, generator=generator)
            return paddle.log(u) > cands

        result = _random.uniform_(tensor, a, b, generator=generator).clone()
        cands = log_pdf(result)
        pending = rejected()
        while bool(pending.any()):
            fresh = _random.uniform_(paddle.empty_like(tensor), a, b, generator=generator)
            result = paddle.where(pending, fresh, result)
            cands = log_pdf(fresh)
            pending = paddle.logical_and(pending, rejected())  # where(pending, new, pending)
        return _write(tensor, result)


@torch_function(I + "constant_")
def constant_(tensor, val):
    return _write(tensor, paddle.full(tensor.shape, val, dtype=tensor.dtype))


@torch_function(I + "ones_")
def ones_(tensor):
    return constant_(tensor, 1.0)


@torch_function(I + "zeros_")
def zeros_(tensor):
    return constant_(tensor, 0.0)


@torch_function(I + "eye_")
def eye_(tensor):
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    return _write(tensor, paddle.eye(tensor.shape[0], tensor.shape[1], dtype=tensor.dtype))


@torch_function(I + "dirac_")
def dirac_(tensor, groups=1):
    dims = tensor.ndim
    if dims not in (3, 4, 5):
        raise ValueError("Only tensors with 3, 4, or 5 dimensions are supported")
    sizes = list(tensor.shape)
    if sizes[0] % groups != 0:
        raise ValueError("dim 0 must be divisible by groups")
    out_per = sizes[0] // groups
    min_dim = min(out_per, sizes[1])
    import numpy as np
    v = np.zeros(sizes, dtype="float64")
    for g in range(groups):
        for d in range(min_dim):
            idx = (g * out_per + d, d) + tuple(s // 2 for s in sizes[2:])
            v[idx] = 1
    return _write(tensor, paddle.to_tensor(v))


@torch_function(I + "xavier_uniform_")
def xavier_uniform_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    a = math.sqrt(3.0) * std
    return uniform_(tensor, -a, a, generator)


@torch_function(I + "xavier_normal_")
def xavier_normal_(tensor, gain=1.0, generator=None):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(tensor)
    std = gain * math.sqrt(2.0 / float(fan_in + fan_out))
    return normal_(tensor, 0.0, std, generator)


@torch_function(I + "kaiming_uniform_")
def kaiming_uniform_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in list(tensor.shape):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    gain = calculate_gain(nonlinearity, a)
    std = gain / math.sqrt(fan)
    bound = math.sqrt(3.0) * std  # torch's order of operations: the float bounds are torch's
    return uniform_(tensor, -bound, bound, generator)


@torch_function(I + "kaiming_normal_")
def kaiming_normal_(tensor, a=0, mode="fan_in", nonlinearity="leaky_relu", generator=None):
    if 0 in list(tensor.shape):
        return tensor
    fan = _calculate_correct_fan(tensor, mode)
    std = calculate_gain(nonlinearity, a) / math.sqrt(fan)
    return normal_(tensor, 0.0, std, generator)


@torch_function(I + "orthogonal_")
def orthogonal_(tensor, gain=1, generator=None):
    if tensor.ndim < 2:
        raise ValueError("Only tensors with 2 or more dimensions are supported")
    if math.prod(tensor.shape) == 0:
        return tensor
    rows = tensor.shape[0]
    cols = math.prod(tensor.shape) // rows
    flat = normal_(paddle.empty([rows, int(cols)], dtype=tensor.dtype), 0.0, 1.0,
                   generator).astype("float64")
    if rows < cols:
        flat = flat.t()
    q, r = paddle.linalg.qr(flat)
    q = q * paddle.sign(paddle.diagonal(r, 0)).unsqueeze(0)
    if rows < cols:
        q = q.t()
    return _write(tensor, (q * gain).reshape(tensor.shape))


@torch_function(I + "sparse_")
def sparse_(tensor, sparsity, std=0.01, generator=None):
    if tensor.ndim != 2:
        raise ValueError("Only tensors with 2 dimensions are supported")
    rows, cols = tensor.shape
    num_zeros = int(math.ceil(sparsity * rows))
    normal_(tensor, 0.0, std, generator)
    v = tensor.clone()
    from . import random as _random
    for c in range(cols):
        idx = _random.randperm(rows)[:num_zeros]  # torch's sparse_ passes no generator here
        if num_zeros:
            col = v[:, c]
            col = paddle.scatter(col, idx, paddle.zeros([num_zeros], col.dtype))
            v[:, c] = col
    return _write(tensor, v)


# torch's deprecated spellings without the trailing underscore (Hugging Face's modeling_utils
# lists them at import): each warns as torch does and calls the in-place initialiser.
def _deprecated(new_name):
    meth = globals()[new_name]
    old_name = new_name[:-1]

    def deprecated_init(*args, **kwargs):
        import warnings
        warnings.warn(f"`nn.init.{old_name}` is now deprecated in favor of `nn.init.{new_name}`.",
                      FutureWarning, stacklevel=2)
        return meth(*args, **kwargs)
    deprecated_init.__name__ = old_name
    return deprecated_init


for _new in ("uniform_", "normal_", "constant_", "eye_", "dirac_", "xavier_uniform_",
             "xavier_normal_", "kaiming_uniform_", "kaiming_normal_", "orthogonal_", "sparse_"):
    torch_function(I + _new[:-1])(_deprecated(_new))
