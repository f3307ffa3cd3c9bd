"""``torch.nn.functional`` beyond the kernel libraries' basics (facade/nn.py), split by the
families of torch's own documentation: this module holds the non-linear activations, the
linear and sparse functions not in nn.py (``bilinear``, ``one_hot``) and the helpers every
``nn_functional_*`` family uses (``F``, ``legacy_reduction``, ``_ntuple``...).  The families:
``nn_functional_loss``, ``_dropout``, ``_pooling``, ``_norm``, ``_conv``, ``_vision``,
``_attention`` (docs/ARCHITECTURE.md, "Where each torch namespace lives").

All are written with Paddle ops (code here gets Paddle semantics) and torch's signatures.
Where torch and Paddle differ in a kernel's definition (pooling windows with ceil_mode, the
average pool's divisor, loss reductions), the computation is written out from torch's
definition rather than delegated, so the result is torch's on every supported Paddle version.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn.functional: bilinear celu celu_ elu elu_ glu gumbel_softmax hardshrink hardsigmoid
        hardswish hardtanh hardtanh_ leaky_relu leaky_relu_ mish one_hot prelu relu relu6 relu_
        rrelu rrelu_ selu selu_ softmin softshrink softsign tanhshrink threshold threshold_
""")

import math

import paddle
import paddle.nn.functional as PF

# the shared helpers (re-exported here for the families that import them from this module)
from ._nn_common import _floating, _is_int, _reduce, legacy_reduction  # noqa: F401
from ._nn_common import _ntuple_values as _ntuple  # noqa: F401
from ._accurate_sum import exact_broadcast
from ._inplace_checks import inplace_form, inplace_result
from .nn import _cpu_half, _relu, softmax  # _relu: Paddle's relu, float32 for CPU halves
from .registry import torch_function


F = "torch.nn.functional."


def _t(x, like):
    """A Python scalar as a 0-d tensor of ``like``'s dtype."""
    return paddle.full([], x, dtype=like.dtype)


_hardtanh = _cpu_half(PF.hardtanh)


# -- activations --------------------------------------------------------------------------------
def _act(name, fn, inplace_name=None):
    fn = torch_function(F + name)(fn)
    if inplace_name:
        def ip(input, *args, **kwargs):  # every such fn takes inplace (inplace_form's clone)
            kwargs.pop("inplace", None)
            return fn(input, *args, inplace=True, **kwargs)
        ip.__name__ = inplace_name
        torch_function(F + inplace_name)(ip)
    return fn


@torch_function(F + "relu")
def relu(input, inplace=False):
    return inplace_result(input, _relu(input), inplace)  # (integers: through maximum, ops._relu)



def relu_(input):
    return relu(input, inplace=True)


torch_function(F + "relu_")(relu_)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def _negative_part(input):
    """``(input > 0, input where it is not, else 0)``: the exponential branch of elu/celu/selu
    without paddle.minimum, whose tie at 0 splits the gradient (3.3: elu'(0) was 0.5, 2.6: 0;
    torch: alpha)."""
    pos = input > 0
    return pos, paddle.where(pos, _t(0, input), input)


@inplace_form
def elu(input, alpha=1.0, inplace=False):
    pos, neg = _negative_part(input)
    out = paddle.where(pos, input, alpha * (paddle.exp(neg) - 1))
    return inplace_result(input, out, inplace)


@inplace_form
def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    pos, neg = _negative_part(input)
    out = paddle.where(pos, input, alpha * (paddle.exp(neg / alpha) - 1))
    return inplace_result(input, out, inplace)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


@inplace_form
def selu(input, inplace=False):
    return inplace_result(input, _SELU_SCALE * elu(input, _SELU_ALPHA), inplace)


def glu(input, dim=-1):
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    if input.shape[dim] % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {dim % input.ndim} "
                           f"is size {input.shape[dim]}")
    a, b = paddle.chunk(input, 2, axis=dim)
    return a * PF.sigmoid(b)


def hardshrink(input, lambd=0.5):
    return paddle.where(paddle.abs(input) > lambd, input, paddle.zeros_like(input))


def softshrink(input, lambd=0.5):
    if lambd < 0:
        raise RuntimeError(f"lambda must be greater or equal to 0, but found to be {lambd}.")
    return paddle.where(input > lambd, input - lambd,
                        paddle.where(input < -lambd, input + lambd, paddle.zeros_like(input)))


@inplace_form
def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if _is_int(input):  # torch keeps the integer dtype
        return inplace_result(input, paddle.clip(input, int(min_val), int(max_val)), inplace)
    # Paddle's hardtanh has torch's gradient: none at the bounds (clip's passes it there)
    return inplace_result(input, _hardtanh(input, float(min_val), float(max_val)), inplace)


@inplace_form
def hardswish(input, inplace=False):
    return inplace_result(input, input * paddle.clip(input + 3, 0.0, 6.0) / 6, inplace)


def hardsigmoid(input, inplace=False):
    return inplace_result(input, paddle.clip(input / 6 + 0.5, 0.0, 1.0), inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return inplace_result(input, paddle.where(input > 0, input, input * negative_slope), inplace)


def prelu(input, weight):
    if input.ndim == 0 and math.prod(weight.shape) != 1:
        raise RuntimeError("Not allow zero-dim input tensor.")
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: "
                           f"ndim = {weight.ndim}")
    channels = input.shape[1] if input.ndim >= 2 else 1
    if math.prod(weight.shape) not in (1, channels):
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found "
                           f"parameter numbers = {math.prod(weight.shape)} and channel size = "
                           f"{channels}.")
    w = weight
    if math.prod(weight.shape) == 1:
        w = weight.reshape([])
    else:
        if input.ndim < 2:
            w = weight.reshape([-1]) if input.ndim == 1 else weight
        else:
            w = weight.reshape([1, -1] + [1] * (input.ndim - 2))
    return paddle.where(input > 0, input, input * w)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    if lower > upper:
        raise RuntimeError(f"Lower bound should be less than or equal to the upper bound")
    if training:
        a = paddle.uniform(input.shape, dtype=input.dtype, min=lower, max=upper)
        out = paddle.where(input >= 0, input, input * a)
    else:
        out = leaky_relu(input, (lower + upper) / 2)
    return inplace_result(input, out, inplace)


@inplace_form
def mish(input, inplace=False):
    return inplace_result(input, input * paddle.tanh(PF.softplus(input)), inplace)


def softsign(input):
    return input / (1 + paddle.abs(input))


def tanhshrink(input):
    input = _floating(input)
    return input - paddle.tanh(input)


def threshold(input, threshold, value, inplace=False):
    return inplace_result(input, paddle.where(input > threshold, input, _t(value, input)), inplace)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    return softmax(-input if dtype is None else -input.astype(_pd(dtype)), dim)


def gumbel_softmax(logits, tau=1.0, hard=False, eps=1e-10, dim=-1):
    g = -paddle.log(paddle.empty_like(logits).exponential_())
    y = PF.softmax((logits + g) / tau, axis=dim)
    if hard:
        idx = y.argmax(axis=dim, keepdim=True)
        y_hard = paddle.zeros_like(y)
        y_hard = paddle.put_along_axis(y_hard, idx, 1.0, axis=dim)
        return y_hard - y.detach() + y
    return y


def _pd(dtype):
    from .runtime import paddle_dtype_of
    return paddle_dtype_of(dtype)


for _name, _fn, _ip in (("relu6", relu6, None), ("elu", elu, "elu_"), ("celu", celu, "celu_"),
                        ("selu", selu, "selu_"), ("glu", glu, None), ("hardshrink", hardshrink, None),
                        ("softshrink", softshrink, None), ("hardtanh", hardtanh, "hardtanh_"),
                        ("hardswish", hardswish, None), ("hardsigmoid", hardsigmoid, None),
                        ("leaky_relu", leaky_relu, "leaky_relu_"), ("prelu", prelu, None),
                        ("rrelu", rrelu, "rrelu_"), ("mish", mish, None), ("softsign", softsign, None),
                        ("tanhshrink", tanhshrink, None), ("threshold", threshold, "threshold_"),
                        ("softmin", softmin, None), ("gumbel_softmax", gumbel_softmax, None)):
    globals()[_name] = _act(_name, _fn, _ip)  # the registered function (F.prelu: autocast's)


# -- linear and sparse functions (linear, embedding: facade/nn.py) --------------------------------
@torch_function(F + "bilinear")
def bilinear(input1, input2, weight, bias=None):
    o, i, j = weight.shape
    t = paddle.matmul(input1, weight.transpose([1, 0, 2]).reshape([i, o * j]))
    out = (t.reshape(list(t.shape[:-1]) + [o, j]) * input2.unsqueeze(-2)).sum(axis=-1)
    return out + exact_broadcast(bias, out.shape) if bias is not None else out


@torch_function(F + "one_hot")
def one_hot(tensor, num_classes=-1):
    if tensor.dtype != paddle.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(tensor.max()) + 1 if math.prod(tensor.shape) else 0
    return PF.one_hot(tensor, num_classes).astype("int64")
