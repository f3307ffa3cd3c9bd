"""``torch.nn.init``: torch's initialisers, in place on Paddle tensors and parameters.

Fan-in / fan-out, gains and bounds are computed as torch computes them; the random numbers are
Paddle's (same distributions, not torch's streams; ``generator=`` draws from a facade
``torch.Generator``)."""
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


def _gen_state(generator, tensor=None):
    """Draw from a facade ``torch.Generator``'s stream (None: the global one)."""
    from .random import generator_scope
    place = tensor.place if tensor is not None else paddle.CPUPlace()
    return generator_scope(generator, place)


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


def _uniform_values(tensor, a, b):
    return paddle.uniform(tensor.shape, dtype="float32", min=a, max=b)


@torch_function(I + "uniform_")
def uniform_(tensor, a=0.0, b=1.0, generator=None):
    with _gen_state(generator):
        return _write(tensor, _uniform_values(tensor, a, b))


@torch_function(I + "normal_")
def normal_(tensor, mean=0.0, std=1.0, generator=None):
    with _gen_state(generator):
        return _write(tensor, paddle.normal(mean, std, shape=tensor.shape))


@torch_function(I + "trunc_normal_")
def trunc_normal_(tensor, mean=0.0, std=1.0, a=-2.0, b=2.0, generator=None):
    # torch's method: inverse CDF of a uniform draw between the bounds' CDF values
    def cdf(x):
        return (1.0 + math.erf(x / math.sqrt(2.0))) / 2.0
    lo, hi = cdf((a - mean) / std), cdf((b - mean) / std)
    with _gen_state(generator):
        u = paddle.uniform(tensor.shape, dtype="float64", min=2 * lo - 1, max=2 * hi - 1)
    v = paddle.erfinv(u) * (std * math.sqrt(2.0)) + mean
    return _write(tensor, paddle.clip(v, a, b))


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
    bound = math.sqrt(3.0) * gain / math.sqrt(fan)
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
    with _gen_state(generator):
        flat = paddle.normal(0.0, 1.0, shape=[rows, int(cols)]).astype("float64")
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
    with _gen_state(generator):
        v = paddle.normal(0.0, std, shape=[rows, cols])
        for c in range(cols):
            idx = paddle.randperm(rows)[:num_zeros]
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
