"""``torch.nn.functional`` beyond the kernel libraries' basics (facade/nn.py): activations,
losses, pooling, normalisation, convolutions (3-d, transposed), attention, with torch's
signatures and semantics, written with Paddle ops (code here gets Paddle semantics).

Where torch and Paddle differ in a kernel's definition (pooling windows with ceil_mode, the
average pool's divisor, loss reductions), the computation is written out here from torch's
definition rather than delegated, so the result is torch's on every supported Paddle version.
"""
from __future__ import annotations

NAMES = (
    "torch.nn.functional.adaptive_avg_pool1d", "torch.nn.functional.adaptive_avg_pool2d",
    "torch.nn.functional.adaptive_avg_pool3d", "torch.nn.functional.adaptive_max_pool1d",
    "torch.nn.functional.adaptive_max_pool1d_with_indices",
    "torch.nn.functional.adaptive_max_pool2d",
    "torch.nn.functional.adaptive_max_pool2d_with_indices",
    "torch.nn.functional.adaptive_max_pool3d",
    "torch.nn.functional.adaptive_max_pool3d_with_indices", "torch.nn.functional.alpha_dropout",
    "torch.nn.functional.avg_pool1d", "torch.nn.functional.avg_pool2d",
    "torch.nn.functional.avg_pool3d", "torch.nn.functional.batch_norm",
    "torch.nn.functional.bilinear", "torch.nn.functional.binary_cross_entropy",
    "torch.nn.functional.binary_cross_entropy_with_logits", "torch.nn.functional.celu",
    "torch.nn.functional.celu_", "torch.nn.functional.conv3d",
    "torch.nn.functional.conv_transpose1d", "torch.nn.functional.conv_transpose2d",
    "torch.nn.functional.conv_transpose3d", "torch.nn.functional.ctc_loss", "torch.nn.functional.cosine_embedding_loss",
    "torch.nn.functional.dropout1d", "torch.nn.functional.dropout2d",
    "torch.nn.functional.dropout3d", "torch.nn.functional.elu", "torch.nn.functional.elu_",
    "torch.nn.functional.feature_alpha_dropout", "torch.nn.functional.gaussian_nll_loss",
    "torch.nn.functional.glu", "torch.nn.functional.group_norm",
    "torch.nn.functional.gumbel_softmax", "torch.nn.functional.hardshrink",
    "torch.nn.functional.hardsigmoid", "torch.nn.functional.hardswish",
    "torch.nn.functional.hardtanh", "torch.nn.functional.hardtanh_",
    "torch.nn.functional.hinge_embedding_loss", "torch.nn.functional.huber_loss",
    "torch.nn.functional.instance_norm", "torch.nn.functional.l1_loss",
    "torch.nn.functional.leaky_relu", "torch.nn.functional.leaky_relu_",
    "torch.nn.functional.local_response_norm", "torch.nn.functional.lp_pool1d",
    "torch.nn.functional.lp_pool2d", "torch.nn.functional.lp_pool3d",
    "torch.nn.functional.margin_ranking_loss", "torch.nn.functional.max_pool1d",
    "torch.nn.functional.max_pool1d_with_indices", "torch.nn.functional.max_pool2d",
    "torch.nn.functional.max_pool2d_with_indices", "torch.nn.functional.max_pool3d",
    "torch.nn.functional.max_pool3d_with_indices", "torch.nn.functional.mish",
    "torch.nn.functional.multi_head_attention_forward", "torch.nn.functional.multi_margin_loss",
    "torch.nn.functional.multilabel_margin_loss",
    "torch.nn.functional.multilabel_soft_margin_loss", "torch.nn.functional.one_hot",
    "torch.nn.functional.pairwise_distance", "torch.nn.functional.pdist",
    "torch.nn.functional.pixel_shuffle", "torch.nn.functional.pixel_unshuffle",
    "torch.nn.functional.poisson_nll_loss", "torch.nn.functional.prelu",
    "torch.nn.functional.relu6", "torch.nn.functional.relu_", "torch.nn.functional.rrelu",
    "torch.nn.functional.rrelu_", "torch.nn.functional.scaled_dot_product_attention",
    "torch.nn.functional.selu", "torch.nn.functional.selu_",
    "torch.nn.functional.smooth_l1_loss", "torch.nn.functional.soft_margin_loss",
    "torch.nn.functional.softmin", "torch.nn.functional.softshrink",
    "torch.nn.functional.softsign", "torch.nn.functional.tanhshrink",
    "torch.nn.functional.threshold", "torch.nn.functional.threshold_",
    "torch.nn.functional.triplet_margin_loss",
    "torch.nn.functional.triplet_margin_with_distance_loss", "torch.nn.functional.unfold",
    "torch.nn.functional.fold", "torch.nn.attention", "torch.nn.attention.SDPBackend",
    "torch.nn.attention.sdpa_kernel", "torch.nn.functional.linear_cross_entropy",
    "torch.nn.functional.interpolate", "torch.nn.functional.upsample",
    "torch.nn.functional.upsample_nearest", "torch.nn.functional.upsample_bilinear",
    "torch.nn.functional.max_unpool1d", "torch.nn.functional.max_unpool2d",
    "torch.nn.functional.max_unpool3d", "torch.nn.functional.channel_shuffle",
    "torch.channel_shuffle", "torch.native_channel_shuffle", "torch.nn.functional.relu",
    "torch.nn.functional.grid_sample", "torch.grid_sampler", "torch.grid_sampler_2d",
    "torch.grid_sampler_3d",
    "torch.nn.functional.fractional_max_pool2d", "torch.nn.functional.fractional_max_pool3d",
    "torch.nn.functional.fractional_max_pool2d_with_indices",
    "torch.nn.functional.fractional_max_pool3d_with_indices",
    "torch.conv1d", "torch.conv2d", "torch.conv3d", "torch.conv_transpose1d",
    "torch.conv_transpose2d", "torch.conv_transpose3d", "torch.group_norm", "torch.layer_norm",
    "torch.rms_norm", "torch.batch_norm", "torch.native_layer_norm", "torch.native_group_norm",
    "torch.native_batch_norm", "torch._native_batch_norm_legit",
)

import contextlib
import enum
import itertools
import math
import numbers

import paddle
import paddle.nn.functional as PF

from ..paddle_shims import broadcast_tensors
from .registry import adapter, module, type_

F = "torch.nn.functional."


def _t(x, like):
    """A Python scalar as a 0-d tensor of ``like``'s dtype."""
    return paddle.full([], x, dtype=like.dtype)


def _inplace(input, out, inplace):
    if not inplace:
        return out
    paddle.assign(out, input)
    return input


def _ntuple(v, n):
    if isinstance(v, (list, tuple)):
        if len(v) == 1 and n > 1:
            return tuple(int(v[0]) for _ in range(n))
        if len(v) != n:
            raise RuntimeError(f"expected {n} values, got {len(v)}: {v}")
        return tuple(int(i) for i in v)
    return (int(v),) * n


def _reduce(loss, reduction):
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def legacy_reduction(size_average, reduce, reduction="mean"):
    """torch's _Reduction.legacy_get_string: the deprecated size_average=/reduce= pair."""
    if size_average is None and reduce is None:
        if reduction not in ("none", "mean", "sum", "batchmean"):  # checked before computing
            raise ValueError(f"{reduction} is not a valid value for reduction")
        return reduction
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if size_average and reduce:
        return "mean"
    return "sum" if reduce else "none"


# -- activations --------------------------------------------------------------------------------
def _act(name, fn, inplace_name=None):
    adapter(F + name)(fn)
    if inplace_name:
        def ip(input, *args, **kwargs):
            kwargs.pop("inplace", None)
            return _inplace(input, fn(input, *args, **kwargs), True)
        ip.__name__ = inplace_name
        adapter(F + inplace_name)(ip)
    return fn


def _is_int(x):
    return x.dtype in (paddle.int64, paddle.int32, paddle.int16, paddle.int8, paddle.uint8)


def _floating(x):
    """An integer/bool input as the default float dtype (torch's promotion for float ops)."""
    if _is_int(x) or x.dtype == paddle.bool:
        return x.astype(paddle.get_default_dtype())
    return x


@adapter(F + "relu")
def relu(input, inplace=False):
    if _is_int(input):  # Paddle's relu has float kernels only
        return _inplace(input, paddle.maximum(input, paddle.zeros([], dtype=input.dtype)), inplace)
    return _inplace(input, PF.relu(input), inplace)


def relu_(input):
    return relu(input, inplace=True)


adapter(F + "relu_")(relu_)


def relu6(input, inplace=False):
    return hardtanh(input, 0.0, 6.0, inplace)


def elu(input, alpha=1.0, inplace=False):
    out = paddle.where(input > 0, input, alpha * (paddle.exp(paddle.minimum(input, _t(0, input))) - 1))
    return _inplace(input, out, inplace)


def celu(input, alpha=1.0, inplace=False):
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    out = paddle.where(input > 0, input,
                       alpha * (paddle.exp(paddle.minimum(input, _t(0, input)) / alpha) - 1))
    return _inplace(input, out, inplace)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input, inplace=False):
    return _inplace(input, _SELU_SCALE * elu(input, _SELU_ALPHA), inplace)


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


def hardtanh(input, min_val=-1.0, max_val=1.0, inplace=False):
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    if _is_int(input):  # torch keeps the integer dtype
        return _inplace(input, paddle.clip(input, int(min_val), int(max_val)), inplace)
    return _inplace(input, paddle.clip(input, min_val, max_val), inplace)


def hardswish(input, inplace=False):
    return _inplace(input, input * paddle.clip(input + 3, 0.0, 6.0) / 6, inplace)


def hardsigmoid(input, inplace=False):
    return _inplace(input, paddle.clip(input / 6 + 0.5, 0.0, 1.0), inplace)


def leaky_relu(input, negative_slope=0.01, inplace=False):
    return _inplace(input, paddle.where(input > 0, input, input * negative_slope), inplace)


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
    return _inplace(input, out, inplace)


def mish(input, inplace=False):
    return _inplace(input, input * paddle.tanh(PF.softplus(input)), inplace)


def softsign(input):
    return input / (1 + paddle.abs(input))


def tanhshrink(input):
    input = _floating(input)
    return input - paddle.tanh(input)


def threshold(input, threshold, value, inplace=False):
    return _inplace(input, paddle.where(input > threshold, input, _t(value, input)), inplace)


def softmin(input, dim=None, _stacklevel=3, dtype=None):
    from .nn import softmax
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
    _act(_name, _fn, _ip)


# -- losses ---------------------------------------------------------------------------------------
def _check_broadcast(*tensors):
    """torch's broadcast error (RuntimeError) before Paddle's (ValueError) can be raised."""
    shapes = [list(t.shape) for t in tensors if isinstance(t, paddle.Tensor)]
    for d in range(1, max((len(sh) for sh in shapes), default=0) + 1):
        sizes = [sh[-d] for sh in shapes if len(sh) >= d and sh[-d] != 1]
        if sizes and any(v != sizes[0] for v in sizes):
            a, b = sizes[0], next(v for v in sizes if v != sizes[0])
            nd = max(len(sh) for sh in shapes)
            raise RuntimeError(f"The size of tensor a ({a}) must match the size of tensor b "
                               f"({b}) at non-singleton dimension {nd - d}")


def _check_same_size(input, target, name):
    if list(input.shape) != list(target.shape):
        raise ValueError(f"Using a target size ({list(target.shape)}) that is different to the "
                         f"input size ({list(input.shape)}) is deprecated. Please ensure they "
                         "have the same size.")


@adapter(F + "l1_loss")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    input, target = broadcast_tensors([input, target])
    loss = paddle.abs(input - target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@adapter(F + "smooth_l1_loss")
def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0,
                   weight=None):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    input, target = broadcast_tensors([input, target])
    d = paddle.abs(input - target)
    if beta == 0:
        loss = d
    else:
        loss = paddle.where(d < beta, 0.5 * d * d / beta, d - 0.5 * beta)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@adapter(F + "huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = broadcast_tensors([input, target])
    d = paddle.abs(input - target)
    loss = paddle.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@adapter(F + "binary_cross_entropy")
def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if list(target.shape) != list(input.shape):
        raise ValueError(f"Using a target size ({list(target.shape)}) that is different to the "
                         f"input size ({list(input.shape)}) is deprecated. Please ensure they "
                         "have the same size.")
    # torch clamps each log at -100
    lo = _t(-100.0, input)
    loss = -(target * paddle.maximum(paddle.log(input), lo)
             + (1 - target) * paddle.maximum(paddle.log(1 - input), lo))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@adapter(F + "binary_cross_entropy_with_logits")
def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if list(target.shape) != list(input.shape):
        raise ValueError(f"Target size ({list(target.shape)}) must be the same as input size "
                         f"({list(input.shape)})")
    # torch: (1 - t) * x + (1 + (pw - 1) * t) * log(1 + exp(-x))  (log-sum-exp stable form)
    log_sig_neg = PF.softplus(-input)  # log(1 + exp(-x))
    if pos_weight is not None:
        lw = 1 + (pos_weight - 1) * target
        loss = (1 - target) * input + lw * log_sig_neg
    else:
        loss = (1 - target) * input + log_sig_neg
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@adapter(F + "cosine_embedding_loss")
def cosine_embedding_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                          reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    eps = 1e-12
    dim = input1.ndim - 1
    input1, input2 = _floating(input1), _floating(input2)
    prod = (input1 * input2).sum(axis=dim)
    mag1 = (input1 * input1).sum(axis=dim) + eps
    mag2 = (input2 * input2).sum(axis=dim) + eps
    cos = prod / paddle.sqrt(mag1 * mag2)
    zeros = paddle.zeros_like(cos)
    pos = paddle.where(target == 1, 1 - cos, zeros)
    neg = paddle.where(target == -1, paddle.maximum(cos - margin, zeros), zeros)
    return _reduce(pos + neg, reduction)


@adapter(F + "margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    loss = PF.relu(-target.astype(input1.dtype) * (input1 - input2) + margin)
    return _reduce(loss, reduction)


@adapter(F + "hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    zeros = paddle.zeros_like(input)
    margin_clamp = paddle.maximum(margin - input, zeros)
    out_margin = paddle.where(target != 1, margin_clamp, zeros)
    out_self = paddle.where(target != -1, input, zeros)
    return _reduce(out_margin + out_self, reduction)


@adapter(F + "soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    if not target.stop_gradient and paddle.is_grad_enabled():  # torch: no formula for target
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect "
                           "to argument 'target'. This input cannot have requires_grad True.")
    return _reduce(PF.softplus(-target * input), reduction)


@adapter(F + "multilabel_soft_margin_loss")
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    target = target.astype(input.dtype)
    loss = -(target * PF.log_sigmoid(input) + (1 - target) * PF.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(axis=input.ndim - 1) / input.shape[-1] if input.ndim else loss
    return _reduce(loss, reduction)


@adapter(F + "multilabel_margin_loss")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    squeeze = input.ndim <= 1
    x = input.reshape([1, -1]) if squeeze else input
    y = target.reshape([1, -1]) if squeeze else target
    c = x.shape[1]
    # valid targets: the prefix before the first -1
    valid = paddle.cumprod((y >= 0).astype("int64"), dim=1).astype("bool")
    safe = paddle.where(valid, y, paddle.zeros_like(y))
    is_target = paddle.zeros(x.shape, dtype="float32")
    is_target = paddle.put_along_axis(is_target, safe, valid.astype("float32"), axis=1,
                                      reduce="add") > 0
    xt = paddle.take_along_axis(x, safe, axis=1)  # [N, C]: x[y_j]
    m = PF.relu(1 - (xt.unsqueeze(2) - x.unsqueeze(1)))  # [N, j, i]
    mask = valid.unsqueeze(2) & paddle.logical_not(is_target).unsqueeze(1)
    loss = (m * mask.astype(m.dtype)).sum(axis=[1, 2]) / c
    if squeeze:
        loss = loss.reshape([]) if input.ndim == 0 or reduction != "none" or True else loss
    return _reduce(loss, reduction)


@adapter(F + "multi_margin_loss")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    squeeze = input.ndim <= 1
    x = input.reshape([1, -1]) if squeeze else input
    y = target.reshape([-1])
    c = x.shape[1]
    xy = paddle.take_along_axis(x, y.unsqueeze(1), axis=1)  # [N, 1]
    z = PF.relu(margin - xy + x)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * paddle.gather(weight, y).unsqueeze(1)
    not_y = paddle.arange(c).unsqueeze(0) != y.unsqueeze(1)
    loss = (z * not_y.astype(z.dtype)).sum(axis=1) / c
    if squeeze:
        loss = loss.reshape([])
    return _reduce(loss, reduction)


@adapter(F + "poisson_nll_loss")
def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    if _is_int(input) and _is_int(target):
        input, target = _floating(input), _floating(target)
    if log_input:
        loss = paddle.exp(input) - target * input
    else:
        loss = input - target * paddle.log(input + eps)
    if full:
        # torch: stirling(target).masked_fill(target <= 1, 0) (its gradient at target 0: nan)
        stirling = target * paddle.log(target) - target + 0.5 * paddle.log(2 * math.pi * target)
        loss = loss + paddle.where(target <= 1, paddle.zeros_like(stirling), stirling)
    return _reduce(loss, reduction)


@adapter(F + "gaussian_nll_loss")
def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    _check_broadcast(input, target)
    if isinstance(var, numbers.Number):
        var = paddle.full(input.shape, var, dtype=input.dtype)
    if list(var.shape) != list(input.shape):
        if list(input.shape[:-1]) == list(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.shape, var.shape)
                                            if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    if bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    # torch clamps without gradient through the clamp: var.clamp_(min=eps) under no_grad
    var = var + (paddle.clip(var.detach(), min=eps) - var.detach())
    loss = 0.5 * (paddle.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def _pairwise(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    d = x1 - x2 + eps
    dim = max(x1.ndim, x2.ndim) - 1
    if p == float("inf"):
        return paddle.abs(d).max(axis=dim, keepdim=keepdim)
    if p == 0:
        return (d != 0).astype(d.dtype).sum(axis=dim, keepdim=keepdim)
    if p == 2:
        return paddle.sqrt((d * d).sum(axis=dim, keepdim=keepdim))
    return paddle.pow(paddle.pow(paddle.abs(d), p).sum(axis=dim, keepdim=keepdim), 1.0 / p)


@adapter(F + "pairwise_distance")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    if x1.ndim == 0 or x2.ndim == 0:
        raise RuntimeError("pairwise_distance: inputs must have at least 1 dimension")
    return _pairwise(x1, x2, p, eps, keepdim)


@adapter(F + "pdist")
def pdist(input, p=2):
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    n = input.shape[0]
    i, j = zip(*itertools.combinations(range(n), 2)) if n > 1 else ((), ())
    if not i:
        return paddle.zeros([0], dtype=input.dtype)
    a = paddle.gather(input, paddle.to_tensor(list(i)))
    b = paddle.gather(input, paddle.to_tensor(list(j)))
    d = paddle.abs(a - b)
    if p == float("inf"):
        return d.max(axis=1)
    if p == 0:  # the count of differing coordinates
        return paddle.sign(d).sum(axis=1)  # d >= 0: 1 where it differs; zero gradient
    if p == 2:
        return paddle.sqrt((d * d).sum(axis=1))
    return paddle.pow(paddle.pow(d, p).sum(axis=1), 1.0 / p)


@adapter(F + "triplet_margin_loss")
def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    _check_broadcast(anchor, positive, negative)
    dp = _pairwise(anchor, positive, p, eps)
    dn = _pairwise(anchor, negative, p, eps)
    if swap:
        dn = paddle.minimum(dn, _pairwise(positive, negative, p, eps))
    return _reduce(PF.relu(margin + dp - dn), reduction)


@adapter(F + "triplet_margin_with_distance_loss")
def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    if margin <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, "
                         f"got {margin} instead")
    _check_broadcast(anchor, positive, negative)
    dist = distance_function if distance_function is not None else pairwise_distance
    dp = dist(anchor, positive)
    dn = dist(anchor, negative)
    if swap:
        dn = paddle.minimum(dn, dist(positive, negative))
    return _reduce(PF.relu(margin + dp - dn), reduction)


@adapter(F + "linear_cross_entropy", note="the reference computation (logits, then "
         "cross_entropy); options= (chunking) changes nothing in the result and is accepted")
def linear_cross_entropy(input, linear_weight, target, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0, options=None):
    from .nn import cross_entropy
    if input.ndim < 1 or input.ndim > 2:
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.ndim}")
    if linear_weight.ndim < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.ndim}")
    batch, in_features = list(input.shape[:-1]), input.shape[-1]
    if in_features != linear_weight.shape[-1]:
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {linear_weight.shape[-1]}, "
                           "respectively")
    num_classes, out_features = linear_weight.shape[0], list(linear_weight.shape[1:-1])
    if linear_bias is not None and list(linear_bias.shape) != [num_classes] + out_features:
        raise RuntimeError(f"expected linear_bias shape {tuple([num_classes] + out_features)}, "
                           f"got {tuple(linear_bias.shape)}")
    if out_features and not batch:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, (N, "
                           f"{in_features}), got unbatched input with shape {tuple(input.shape)}")
    logits_shape = batch + [num_classes] + out_features
    if list(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains probabilities")
    w2 = linear_weight.reshape([-1, in_features])
    logits = paddle.matmul(input, w2, transpose_y=True)
    if linear_bias is not None:
        logits = logits + linear_bias.reshape([-1])
    logits = logits.reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)


def _ctc_host(lp, tg, il, tl, blank):
    """torch's CTC on the host (float64): per sample -log p(target | input) and torch's
    gradient w.r.t. the log-probabilities, exp(lp) - sum over the target positions of
    exp(alpha + beta - lp) / p (as torch's ctc_loss_backward: it assumes normalised rows)."""
    import numpy as np
    T, N, C = lp.shape
    nll = np.zeros(N, dtype=lp.dtype)
    grad = np.zeros_like(lp)
    neg = lp.dtype.type(-np.inf)
    for n in range(N):
        t_n, s_n = int(il[n]), int(tl[n])
        ext = np.full(2 * s_n + 1, blank, dtype=np.int64)
        ext[1::2] = tg[n][:s_n]
        L = len(ext)
        x = lp[:t_n, n, :][:, ext]  # [t_n, L]
        skip = np.zeros(L, dtype=bool)
        skip[2:] = (ext[2:] != blank) & (ext[2:] != ext[:-2])
        alpha = np.full((t_n, L), neg)
        if t_n == 0:
            nll[n] = 0.0 if s_n == 0 else np.inf
            continue
        alpha[0, 0] = x[0, 0]
        if L > 1:
            alpha[0, 1] = x[0, 1]
        for t in range(1, t_n):
            a = alpha[t - 1]
            a1 = np.concatenate([[neg], a[:-1]])
            a2 = np.where(skip, np.concatenate([[neg, neg], a[:-2]]), neg)
            alpha[t] = np.logaddexp(np.logaddexp(a, a1), a2) + x[t]
        beta = np.full((t_n, L), neg)
        beta[-1, -1] = x[-1, -1]
        if L > 1:
            beta[-1, -2] = x[-1, -2]
        skip_b = np.zeros(L, dtype=bool)
        skip_b[:-2] = skip[2:]
        for t in range(t_n - 2, -1, -1):
            b = beta[t + 1]
            b1 = np.concatenate([b[1:], [neg]])
            b2 = np.where(skip_b, np.concatenate([b[2:], [neg, neg]]), neg)
            beta[t] = np.logaddexp(np.logaddexp(b, b1), b2) + x[t]
        ll = alpha[-1, -1] if L == 1 else np.logaddexp(alpha[-1, -1], alpha[-1, -2])
        nll[n] = -ll
        ab = alpha + beta  # [t_n, L]
        lcab = np.full((t_n, C), neg)
        for s_ in range(L):
            lcab[:, ext[s_]] = np.logaddexp(lcab[:, ext[s_]], ab[:, s_])
        with np.errstate(invalid="ignore", over="ignore"):
            grad[:t_n, n, :] = np.exp(lp[:t_n, n, :]) - np.exp(lcab + nll[n] - lp[:t_n, n, :])
    return nll, grad


class _CTC(paddle.autograd.PyLayer):
    @staticmethod
    def forward(ctx, log_probs, tg, il, tl, blank, zero_infinity):
        import numpy as np
        if log_probs.dtype == paddle.float32:  # torch's float32 arithmetic, op by op
            from ._ctc import ctc_float32
            nll, grad = ctc_float32(log_probs.detach().numpy(), tg, il, tl, blank)
        else:
            nll, grad = _ctc_host(log_probs.detach().astype("float64").numpy(), tg, il, tl, blank)
        if zero_infinity:
            inf = np.isinf(nll)
            nll[inf] = 0.0
            grad[:, inf, :] = 0.0
        ctx.grad = grad
        ctx.dtype = log_probs.dtype
        return paddle.to_tensor(nll).astype(log_probs.dtype)

    @staticmethod
    def backward(ctx, g):
        gr = paddle.to_tensor(ctx.grad).astype(ctx.dtype)
        return gr * g.reshape([1, -1, 1])


def _as_list(v, name):
    if isinstance(v, paddle.Tensor):
        return [int(i) for i in v.reshape([-1]).tolist()]
    if not isinstance(v, (list, tuple)):
        raise TypeError(f"ctc_loss(): argument '{name}' must be a Tensor or a tuple of ints, "
                        f"not {type(v).__name__}")
    return [int(i) for i in v]


@adapter(F + "ctc_loss", note="computed on the host (torch's alpha-beta recursion and its "
         "gradient): float32 in torch's float32 operation order (_ctc.py), others in float64")
def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    unbatched = log_probs.ndim == 2
    lp = log_probs.unsqueeze(1) if unbatched else log_probs
    if lp.ndim != 3:
        raise RuntimeError(f"ctc_loss: expected log_probs to be 2-D or 3-D, got {log_probs.ndim}")
    T, N, C = lp.shape
    if isinstance(input_lengths, paddle.Tensor) != isinstance(target_lengths, paddle.Tensor):
        raise TypeError("ctc_loss() received an invalid combination of arguments: "
                        "input_lengths and target_lengths must both be Tensors or both tuples "
                        "of ints")
    il, tl = _as_list(input_lengths, "input_lengths"), _as_list(target_lengths, "target_lengths")
    if len(il) != N:
        raise RuntimeError(f"input_lengths must be of size batch_size ({N}), got {len(il)}")
    if len(tl) != N:
        raise RuntimeError(f"target_lengths must be of size batch_size ({N}), got {len(tl)}")
    if any(v > T for v in il):
        raise RuntimeError(f"Expected input_lengths to have value at most {T}, but got value "
                           f"{max(il)}")
    tgt = targets.astype("int64").numpy()
    if unbatched and tgt.ndim == 1:
        rows = [tgt[:tl[0]]]
    elif tgt.ndim == 2:
        rows = [tgt[n] for n in range(N)]
    else:  # concatenated targets
        rows, off = [], 0
        for v in tl:
            rows.append(tgt[off:off + v])
            off += v
    for n, r in enumerate(rows):
        if len(r) < tl[n]:
            raise RuntimeError(f"Expected tensor to have size at least {tl[n]} at dimension 1, "
                               f"but got size {len(r)}")
    loss = _CTC.apply(lp, rows, il, tl, blank, bool(zero_infinity))
    if reduction == "none":
        return loss.squeeze(0) if unbatched else loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        lens = paddle.to_tensor([max(v, 1) for v in tl], dtype=loss.dtype)
        return (loss / lens).mean()
    raise ValueError(f"{reduction} is not a valid value for reduction")


# -- dropout variants -------------------------------------------------------------------------------
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout(input, p, training, inplace, batched_ndim, name):
    _check_p(p)
    if not training or p == 0:
        return input
    unbatched = input.ndim == batched_ndim - 1
    x = input.unsqueeze(0) if unbatched else input
    if p == 1:
        out = x * 0
    else:
        keep = paddle.bernoulli(paddle.full(x.shape[:2] + [1] * (x.ndim - 2), 1 - p, dtype=x.dtype))
        out = x * keep / (1 - p)
    out = out.squeeze(0) if unbatched else out
    return _inplace(input, out, inplace)


@adapter(F + "dropout1d")
def dropout1d(input, p=0.5, training=True, inplace=False):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           "input.")
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d")


@adapter(F + "dropout2d")
def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 4, "dropout2d")


@adapter(F + "dropout3d")
def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 5, "dropout3d")


def _alpha(input, p, training, inplace, feature):
    _check_p(p)
    if not training or p == 0:
        return input
    if p == 1:  # torch: input * 0 (nan stays nan)
        return _inplace(input, input * paddle.zeros([], dtype=input.dtype), inplace)
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    shape = input.shape[:2] + [1] * (input.ndim - 2) if feature else input.shape
    keep = paddle.bernoulli(paddle.full(shape, 1 - p, dtype=input.dtype))
    out = (input * keep + alpha_p * (1 - keep)) * a + b
    return _inplace(input, out, inplace)


@adapter(F + "alpha_dropout")
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha(input, p, training, inplace, False)


@adapter(F + "feature_alpha_dropout")
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha(input, p, training, inplace, True)


# -- pooling ----------------------------------------------------------------------------------------
def _batched(input, d, name):
    """(input with a batch dim, unbatched?) for a d-dimensional spatial op."""
    if input.ndim == d + 1:
        return input.unsqueeze(0), True
    if input.ndim == d + 2:
        return input, False
    raise RuntimeError(f"{name}: Expected {d + 1}D or {d + 2}D input, but got "
                       f"{input.ndim}D input")


def _out_len(L, k, s, p, d, ceil_mode):
    num = L + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        out = -(-num // s) + 1
        if (out - 1) * s >= L + p:
            out -= 1
    else:
        out = num // s + 1
    return out


def _windows(x, ks, ss, ps, ds, ceil_mode, fill):
    """Every kernel offset's strided view of ``x`` ([N, C, *spatial]) padded with ``fill``:
    ([K, N, C, *out] stacked views, [K, *out] flat input indices, out sizes)."""
    nd = len(ks)
    sp = x.shape[2:]
    outs = [_out_len(L, k, s, p, d, ceil_mode) for L, k, s, p, d in zip(sp, ks, ss, ps, ds)]
    if any(o <= 0 for o in outs):
        raise RuntimeError(f"Given input size: {tuple(x.shape[1:])}. Calculated output size: "
                           f"{tuple([x.shape[1]] + outs)}. Output size is too small")
    pads = []
    for L, k, s, p, d, o in zip(sp, ks, ss, ps, ds, outs):
        right = max((o - 1) * s + d * (k - 1) + 1 - (L + p), 0)
        pads.append((p, right))
    if any(a or b for a, b in pads):
        flat = []
        for a, b in reversed(pads):  # Paddle (as torch) lists the last dim first
            flat += [a, b]
        xp = PF.pad(x, flat, mode="constant", value=fill,
                    data_format={1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd])
    else:
        xp = x
    views, idxs = [], []
    grids = paddle.meshgrid(*[paddle.arange(o, dtype="int64") for o in outs]) if nd > 1 \
        else [paddle.arange(outs[0], dtype="int64")]
    for off in itertools.product(*[range(k) for k in ks]):
        sl = [slice(None), slice(None)]
        flat_idx = None
        for dim, (o, s, d, p, L) in enumerate(zip(off, ss, ds, ps, sp)):
            start = o * d
            sl.append(slice(start, start + (outs[dim] - 1) * s + 1, s))
            coord = grids[dim] * s + start - p
            flat_idx = coord if flat_idx is None else flat_idx * L + coord
        views.append(xp[tuple(sl)])
        idxs.append(flat_idx)
    return paddle.stack(views), paddle.stack(idxs), outs, pads


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd, name):
    x, unb = _batched(input, nd, name)
    ks = _ntuple(kernel_size, nd)
    ss = _ntuple(stride if stride not in (None, []) and stride != () else kernel_size, nd)
    ps, ds = _ntuple(padding, nd), _ntuple(dilation, nd)
    for k, p in zip(ks, ps):
        if p < 0:
            raise RuntimeError("pad must be non-negative")
        if p * 2 > k:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation=1")
    w, idx, outs, _ = _windows(x, ks, ss, ps, ds, ceil_mode, float("-inf"))
    am = paddle.argmax(w, axis=0, keepdim=True)  # first max (ties: the first offset, as torch)
    out = paddle.take_along_axis(w, am, axis=0).squeeze(0)
    if unb:
        out = out.squeeze(0)
    if not return_indices:
        return out
    ind = paddle.take_along_axis(idx.reshape([idx.shape[0], 1, 1] + outs).expand(w.shape), am,
                                 axis=0).squeeze(0)
    if unb:
        ind = ind.squeeze(0)
    return out, ind


def _avg_divisor(x, ks, ss, ps, outs, count_include_pad):
    nd = len(ks)
    div = None
    for dim, (L, k, s, p, o) in enumerate(zip(x.shape[2:], ks, ss, ps, outs)):
        cnt = []
        for j in range(o):
            start = j * s - p
            end = min(start + k, L + p)
            cnt.append((end - start) if count_include_pad else (min(end, L) - max(start, 0)))
        shape = [1] * nd
        shape[dim] = o
        c = paddle.to_tensor(cnt, dtype=x.dtype if not _is_int(x) else "int64").reshape(shape)
        div = c if div is None else div * c
    return div


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
              nd, name):
    x, unb = _batched(input, nd, name)
    ks = _ntuple(kernel_size, nd)
    ss = _ntuple(stride if stride not in (None, []) and stride != () else kernel_size, nd)
    ps = _ntuple(padding, nd)
    for k, p in zip(ks, ps):
        if p < 0:
            raise RuntimeError("pad must be non-negative")
        if p * 2 > k:
            raise RuntimeError(f"pad should be at most half of kernel size, but got pad={p} and "
                               f"kernel_size={k}")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    w, _, outs, _ = _windows(x, ks, ss, ps, (1,) * nd, ceil_mode, 0.0)
    total = w.sum(axis=0)
    if _is_int(x):  # torch keeps the dtype: C++ integer division (truncation toward zero)
        if divisor_override is not None:
            div = paddle.full([], int(divisor_override), dtype=x.dtype)
        else:
            div = _avg_divisor(x, ks, ss, ps, outs, count_include_pad).astype(x.dtype)
        q = paddle.abs(total) // paddle.abs(div)
        out = paddle.where((total < 0) != (div < 0), -q, q)
    elif divisor_override is not None:
        out = total / divisor_override
    else:
        out = total / _avg_divisor(x, ks, ss, ps, outs, count_include_pad)
    return out.squeeze(0) if unb else out


def _mp(nd):
    def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=False):
        return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                         nd, f"max_pool{nd}d")

    def with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                     return_indices=True):
        return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, nd,
                         f"max_pool{nd}d")
    max_pool.__name__ = f"max_pool{nd}d"
    adapter(F + f"max_pool{nd}d")(max_pool)
    adapter(F + f"max_pool{nd}d_with_indices")(with_indices)
    return max_pool


max_pool1d, max_pool2d, max_pool3d = _mp(1), _mp(2), _mp(3)


@adapter(F + "avg_pool1d")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1,
                     "avg_pool1d")


@adapter(F + "avg_pool2d")
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2, "avg_pool2d")


@adapter(F + "avg_pool3d")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3, "avg_pool3d")


def _unpool_output_size(input, ks, ss, ps, output_size):
    nd = len(ks)
    default = [(input.shape[input.ndim - nd + d] - 1) * ss[d] + ks[d] - 2 * ps[d]
               for d in range(nd)]
    if output_size is None:
        return default
    output_size = [int(v) for v in output_size]
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(nd):
        lo, hi = default[d] - ss[d], default[d] + ss[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f'{lo} and {hi})')
    return output_size


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, nd):
    """torch's max_unpool: every value written at its flat index in its (N, C) plane of the
    output (zeros elsewhere); gradients flow back to the values by the same indices."""
    name = f"max_unpool{nd}d"
    ks = _ntuple(kernel_size, nd)
    ss = _ntuple(stride if stride is not None else kernel_size, nd)
    ps = _ntuple(padding, nd)
    out = _unpool_output_size(input, ks, ss, ps, output_size)
    if list(indices.shape) != list(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    if indices.dtype != paddle.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype}")
    x, unb = _batched(input, nd, name)
    idx = indices.unsqueeze(0) if unb else indices
    n, c = x.shape[0], x.shape[1]
    total = math.prod(out)
    flat_idx = idx.reshape([n, c, math.prod(idx.shape[2:])])
    vals = x.reshape([n, c, math.prod(x.shape[2:])])
    res = paddle.zeros([n, c, total], dtype=x.dtype)
    if math.prod(flat_idx.shape):
        lo, hi = int(flat_idx.min()), int(flat_idx.max())
        if lo < 0 or hi >= total:
            bad = lo if lo < 0 else hi
            raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                               f"{'x'.join(map(str, out))}")
        if vals.stop_gradient:
            res = paddle.put_along_axis(res, flat_idx, vals, axis=2)
        else:  # values by assignment, gradient to every value (a repeated index included)
            add = paddle.put_along_axis(res, flat_idx, vals, axis=2, reduce="add")
            res = paddle.put_along_axis(res, flat_idx, vals.detach(), axis=2) + (add - add.detach())
    res = res.reshape([n, c] + out)
    return res.squeeze(0) if unb else res


def _mu(nd):
    def max_unpool(input, indices, kernel_size, stride=None, padding=0, output_size=None):
        return _max_unpool(input, indices, kernel_size, stride, padding, output_size, nd)
    max_unpool.__name__ = f"max_unpool{nd}d"
    adapter(F + f"max_unpool{nd}d")(max_unpool)
    return max_unpool


max_unpool1d, max_unpool2d, max_unpool3d = _mu(1), _mu(2), _mu(3)


def _fractional_intervals(sample, in_size, out_size, pool):
    import numpy as np
    seq = np.empty(out_size, dtype=np.int64)
    ft = np.float64 if isinstance(sample, np.float64) else np.float32  # torch: scalar_t
    if out_size > 1:
        alpha = ft(in_size - pool) / ft(out_size - 1)
        for i in range(out_size - 1):
            seq[i] = int(ft((ft(i) + sample) * alpha)) - int(ft(sample * alpha))
    seq[out_size - 1] = in_size - pool
    return seq


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                         _random_samples, nd):
    import numpy as np
    name = f"fractional_max_pool{nd}d"
    x, unb = _batched(input, nd, name)
    ks = _ntuple(kernel_size, nd)
    sp = x.shape[2:]
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an "
                             "output_ratio")
        ratios = list(output_ratio) if isinstance(output_ratio, (list, tuple)) else [output_ratio] * nd
        outs = [int(L * r) for L, r in zip(sp, ratios)]
    else:
        outs = list(_ntuple(output_size, nd))
    for L, k, o in zip(sp, ks, outs):
        if o + k - 1 > L:
            raise RuntimeError(f"{name}(): pool size {k} too large relative to input size {L} "
                               f"for output size {o}")
    n, c = x.shape[0], x.shape[1]
    if _random_samples is None:
        samples = paddle.rand([n, c, nd], dtype=x.dtype)
    else:
        samples = _random_samples
        if samples.dtype != x.dtype:  # torch checks it before pooling
            raise RuntimeError("Expect _random_samples to have the same dtype as input")
    smp = samples.astype("float64" if x.dtype == paddle.float64 else "float32").numpy()
    # torch's order of the samples per plane: 2-d (w, h); 3-d (t, h, w)
    order = [1, 0] if nd == 2 else list(range(nd))
    strides = [int(np.prod(sp[d + 1:])) for d in range(nd)]
    K = int(np.prod(ks))
    offs = np.stack(np.meshgrid(*[np.arange(k) for k in ks], indexing="ij"), -1).reshape(K, nd)
    idx = np.empty((n, c, int(np.prod(outs)), K), dtype=np.int64)
    for b in range(n):
        for ch in range(c):
            seqs = [_fractional_intervals(smp[b, ch, order[d]], sp[d], outs[d], ks[d])
                    for d in range(nd)]
            starts = np.stack(np.meshgrid(*seqs, indexing="ij"), -1).reshape(-1, 1, nd)
            pos = starts + offs[None]  # [O, K, nd]
            idx[b, ch] = (pos * np.array(strides)).sum(-1)
    flat_idx = paddle.to_tensor(idx)
    xf = x.reshape([n, c, -1])
    w = paddle.take_along_axis(xf, flat_idx.reshape([n, c, -1]), axis=2).reshape(idx.shape)
    am = paddle.argmax(w, axis=3, keepdim=True)
    out = paddle.take_along_axis(w, am, axis=3).squeeze(3).reshape([n, c] + outs)
    ind = paddle.take_along_axis(flat_idx, am, axis=3).squeeze(3).reshape([n, c] + outs)
    if unb:
        out, ind = out.squeeze(0), ind.squeeze(0)
    return (out, ind) if return_indices else out


def _fmp(nd):
    def fmp(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
            _random_samples=None):
        return _fractional_max_pool(input, kernel_size, output_size, output_ratio,
                                    return_indices, _random_samples, nd)

    def fmpi(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
             _random_samples=None):
        return _fractional_max_pool(input, kernel_size, output_size, output_ratio, True,
                                    _random_samples, nd)
    adapter(F + f"fractional_max_pool{nd}d")(fmp)
    adapter(F + f"fractional_max_pool{nd}d_with_indices")(fmpi)
    return fmp


fractional_max_pool2d, fractional_max_pool3d = _fmp(2), _fmp(3)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd):
    ks = _ntuple(kernel_size, nd)
    out = _avg_pool(paddle.pow(input, norm_type), ks, stride, 0, ceil_mode, True, None, nd,
                    f"lp_pool{nd}d")
    n = math.prod(ks)
    return paddle.pow(paddle.sign(out) * PF.relu(paddle.abs(out)) * n, 1.0 / norm_type)


@adapter(F + "lp_pool1d")
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


@adapter(F + "lp_pool2d")
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


@adapter(F + "lp_pool3d")
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


def _adaptive_sizes(output_size, spatial):
    out = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * len(spatial)
    if len(out) == 1 and len(spatial) > 1:
        out = out * len(spatial)
    return [int(L) if o is None else int(o) for o, L in zip(out, spatial)]


def _adaptive(input, output_size, nd, kind, return_indices=False):
    name = f"adaptive_{kind}_pool{nd}d"
    if nd > 1 and isinstance(output_size, (list, tuple)) and output_size and \
            input.ndim <= len(output_size):  # torch's Python-level _list_with_default
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if isinstance(output_size, (list, tuple)) and len(output_size) not in (1, nd):
        raise RuntimeError(f"{name}: 'output_size' should contain one int"
                           f"{'' if nd == 1 else f' or {nd} ints'}")
    x, unb = _batched(input, nd, name)
    outs = _adaptive_sizes(output_size, x.shape[2:])
    if any(o < 0 for o in outs):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(outs)}: "
                           f"{list(x.shape[:2]) + outs}")
    sp = x.shape[2:]
    # one window per output index and dim: [start, end) = [floor(i L / o), ceil((i + 1) L / o))
    bounds = [[(i * L // o, -(-(i + 1) * L // o)) for i in range(o)] for L, o in zip(sp, outs)]
    fmt = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd]
    regular = all(L % o == 0 for L, o in zip(sp, outs))
    if kind == "avg" and regular:
        ks = [L // o for L, o in zip(sp, outs)]
        r = _avg_pool(x, ks, ks, 0, False, True, None, nd, name)
        return r.squeeze(0) if unb else r
    cells, idx_cells = [], []
    for combo in itertools.product(*bounds):
        sl = (slice(None), slice(None)) + tuple(slice(a, b) for a, b in combo)
        win = x[sl].reshape(x.shape[:2] + [-1])
        if kind == "avg":
            cells.append(win.mean(axis=2))
        else:
            am = paddle.argmax(win, axis=2, keepdim=True)
            cells.append(paddle.take_along_axis(win, am, axis=2).squeeze(2))
            if return_indices:
                # flat index inside the window -> flat index in the input's spatial dims
                sizes = [b - a for a, b in combo]
                rem = am.squeeze(2)
                coords = []
                for s_ in reversed(sizes):
                    coords.append(rem % s_)
                    rem = rem // s_
                coords = coords[::-1]
                flat = None
                for (a, _), c, L in zip(combo, coords, sp):
                    c = c + a
                    flat = c if flat is None else flat * L + c
                idx_cells.append(flat)
    out = paddle.stack(cells, axis=2).reshape(x.shape[:2] + outs)
    if unb:
        out = out.squeeze(0)
    if kind == "max" and return_indices:
        ind = paddle.stack(idx_cells, axis=2).reshape(x.shape[:2] + outs)
        return out, (ind.squeeze(0) if unb else ind)
    return out


def _ad(nd):
    def avg(input, output_size):
        return _adaptive(input, output_size, nd, "avg")

    def mx(input, output_size, return_indices=False):
        return _adaptive(input, output_size, nd, "max", return_indices)

    def mxi(input, output_size, return_indices=True):
        return _adaptive(input, output_size, nd, "max", True)
    adapter(F + f"adaptive_avg_pool{nd}d")(avg)
    adapter(F + f"adaptive_max_pool{nd}d")(mx)
    adapter(F + f"adaptive_max_pool{nd}d_with_indices")(mxi)
    return avg, mx


(adaptive_avg_pool1d, adaptive_max_pool1d), (adaptive_avg_pool2d, adaptive_max_pool2d), \
    (adaptive_avg_pool3d, adaptive_max_pool3d) = _ad(1), _ad(2), _ad(3)


# -- normalisation ----------------------------------------------------------------------------------
def _bshape(t, ndim):
    """A per-channel [C] tensor broadcast over [N, C, *]."""
    return t.reshape([1, -1] + [1] * (ndim - 2))


@adapter(F + "batch_norm")
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
            if weight is not None:
                out = out * _bshape(weight, input.ndim)
            if bias is not None:
                out = out + _bshape(bias, input.ndim)
            return out
        if n == 1:
            raise ValueError(f"Expected more than 1 value per channel when training, got input "
                             f"size {list(input.shape)}")
        mean = input.mean(axis=axes)
        var = ((input - _bshape(mean, input.ndim)) ** 2).mean(axis=axes)
        if running_mean is not None:
            with paddle.no_grad():
                paddle.assign((1 - momentum) * running_mean + momentum * mean.detach(),
                              output=running_mean)
        if running_var is not None:
            with paddle.no_grad():
                unbiased = var.detach() * (float(n) / (float(n) - 1))
                paddle.assign((1 - momentum) * running_var + momentum * unbiased,
                              output=running_var)
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        mean, var = running_mean, running_var
    out = (input - _bshape(mean, input.ndim)) / paddle.sqrt(_bshape(var, input.ndim) + eps)
    if weight is not None:
        out = out * _bshape(weight, input.ndim)
    if bias is not None:
        out = out + _bshape(bias, input.ndim)
    return out


@adapter(F + "instance_norm")
def instance_norm(input, running_mean=None, running_var=None, weight=None, bias=None,
                  use_input_stats=True, momentum=0.1, eps=1e-5):
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or more input (got {input.ndim}D input)")
    axes = list(range(2, input.ndim))
    if use_input_stats:
        mean = input.mean(axis=axes, keepdim=True)
        var = ((input - mean) ** 2).mean(axis=axes, keepdim=True)
        n = math.prod(input.shape[2:])
        if running_mean is not None:
            with paddle.no_grad():
                m = mean.detach().reshape(input.shape[:2]).mean(axis=0)
                paddle.assign((1 - momentum) * running_mean + momentum * m, output=running_mean)
        if running_var is not None:
            with paddle.no_grad():
                v = var.detach().reshape(input.shape[:2]).mean(axis=0) * (n / max(n - 1, 1))
                paddle.assign((1 - momentum) * running_var + momentum * v, output=running_var)
    else:
        mean = _bshape(running_mean, input.ndim)
        var = _bshape(running_var, input.ndim)
    out = (input - mean) / paddle.sqrt(var + eps)
    if weight is not None:
        out = out * _bshape(weight, input.ndim)
    if bias is not None:
        out = out + _bshape(bias, input.ndim)
    return out


@adapter(F + "group_norm")
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
    mean = x.mean(axis=2, keepdim=True)
    var = ((x - mean) ** 2).mean(axis=2, keepdim=True)
    out = ((x - mean) / paddle.sqrt(var + eps)).reshape(input.shape)
    if weight is not None:
        out = out * _bshape(weight, input.ndim)
    if bias is not None:
        out = out + _bshape(bias, input.ndim)
    return out


@adapter("torch.group_norm")
def torch_group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    return group_norm(input, num_groups, weight, bias, eps)


@adapter("torch.layer_norm")
def torch_layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5,
                     cudnn_enable=True):
    from .nn import layer_norm
    return layer_norm(input, normalized_shape, weight, bias, eps)


@adapter("torch.rms_norm")
def torch_rms_norm(input, normalized_shape, weight=None, eps=None):
    from .nn import rms_norm
    return rms_norm(input, normalized_shape, weight, eps)


@adapter("torch.batch_norm")
def torch_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
                     cudnn_enabled=True):
    return batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


@adapter("torch.native_layer_norm")
def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """(out, mean, rstd), mean/rstd of shape input.shape[:axis] + [1] * len(normalized_shape)."""
    from .nn import check_norm_shape
    k = len(check_norm_shape(input, normalized_shape, weight, bias))
    axes = list(range(input.ndim - k, input.ndim))
    mean = input.mean(axis=axes, keepdim=True)
    var = ((input - mean) ** 2).mean(axis=axes, keepdim=True)
    rstd = paddle.rsqrt(var + eps)
    out = (input - mean) * rstd
    if weight is not None:
        out = out * weight
    if bias is not None:
        out = out + bias
    return out, mean, rstd


@adapter("torch.native_group_norm")
def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """(out, mean [N, group], rstd [N, group])."""
    if C % group:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, "
                           f"but got input of shape {list(input.shape)} and num_groups={group}")
    x = input.reshape([N, group, math.prod(input.shape[1:]) // group])
    mean = x.mean(axis=2, keepdim=True)
    var = ((x - mean) ** 2).mean(axis=2, keepdim=True)
    rstd = paddle.rsqrt(var + eps)
    out = ((x - mean) * rstd).reshape(input.shape)
    if weight is not None:
        out = out * _bshape(weight, input.ndim)
    if bias is not None:
        out = out + _bshape(bias, input.ndim)
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
        mean = input.mean(axis=axes)
        var = ((input - _bshape(mean, input.ndim)) ** 2).mean(axis=axes)
        invstd = paddle.rsqrt(var + eps)
        with paddle.no_grad():
            if running_mean is not None:
                paddle.assign((1 - momentum) * running_mean + momentum * mean.detach(),
                              output=running_mean)
            if running_var is not None and n > 1:
                unbiased = var.detach() * (float(n) / (float(n) - 1))
                paddle.assign((1 - momentum) * running_var + momentum * unbiased,
                              output=running_var)
        out = (input - _bshape(mean, input.ndim)) * _bshape(invstd, input.ndim)
        save_mean, save_invstd = mean, invstd
    else:
        if running_mean is None or running_var is None:
            raise RuntimeError("running_mean and running_var must be defined in evaluation mode")
        out = (input - _bshape(running_mean, input.ndim)) * \
            _bshape(paddle.rsqrt(running_var + eps), input.ndim)
        save_mean = paddle.zeros([0], dtype=input.dtype)
        save_invstd = paddle.zeros([0], dtype=input.dtype)
    if weight is not None:
        out = out * _bshape(weight, input.ndim)
    if bias is not None:
        out = out + _bshape(bias, input.ndim)
    return out, save_mean, save_invstd


@adapter("torch.native_batch_norm")
def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    return _native_bn(input, weight, bias, running_mean, running_var, training, momentum, eps)


@adapter("torch._native_batch_norm_legit")
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


@adapter(F + "local_response_norm")
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


# -- convolutions -----------------------------------------------------------------------------------
def _conv_fmt(nd):
    return {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd]


@adapter(F + "conv3d")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    from .nn import _convnd
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 3)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd):
    """torch's transposed convolution: Paddle's kernel without padding (its output_padding
    checks are stricter than torch's), then torch's crop of ``padding`` on both sides and
    ``output_padding`` zeros (plus bias) on the right."""
    from .nn import _is_int
    name = f"conv_transpose{nd}d"
    from .nn import check_conv_args
    check_conv_args(input, weight, bias, stride, padding, dilation, groups, nd, transposed=True)
    x, unb = _batched(input, nd, name)
    ss, ps, ops, ds = (_ntuple(v, nd) for v in (stride, padding, output_padding, dilation))
    if any(o >= s and o >= d for o, s, d in zip(ops, ss, ds)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but "
                           f"got output_padding {list(ops)}, stride {list(ss)}, dilation "
                           f"{list(ds)}")
    if weight.ndim != nd + 2:
        raise RuntimeError(f"Expected {nd + 2}-dimensional weight for {name}, but got weight of "
                           f"size {list(weight.shape)}")
    if x.shape[1] != weight.shape[0] or weight.shape[0] % groups:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {weight.shape[0]} channels, but got "
                           f"{x.shape[1]} channels instead")
    fn = {1: PF.conv1d_transpose, 2: PF.conv2d_transpose, 3: PF.conv3d_transpose}[nd]
    integral = _is_int(x)
    xx, ww = (x.astype("float64"), weight.astype("float64")) if integral else (x, weight)
    full = fn(xx, ww, bias=None, stride=list(ss), padding=[0] * nd, output_padding=[0] * nd,
              dilation=list(ds), groups=groups, data_format=_conv_fmt(nd))
    sl, flat = [slice(None), slice(None)], []
    for L, F_, k, s, p, o, d in zip(x.shape[2:], full.shape[2:], weight.shape[2:], ss, ps, ops, ds):
        target = (L - 1) * s - 2 * p + d * (k - 1) + o + 1
        if target <= 0:
            raise RuntimeError(f"Given input size per channel: {list(x.shape[2:])}. Calculated "
                               f"output size per channel is too small")
        sl.append(slice(p, p + target))
        flat = [0, max(p + target - F_, 0)] + flat  # Paddle lists the last dim first
    if any(flat):
        full = PF.pad(full, flat, mode="constant", value=0.0, data_format=_conv_fmt(nd))
    out = full[tuple(sl)]
    if bias is not None:
        out = out + _bshape(bias.astype(out.dtype), out.ndim)
    if integral:
        out = out.astype(x.dtype)
    return out.squeeze(0) if unb else out


@adapter(F + "conv_transpose1d")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


@adapter(F + "conv_transpose2d")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


@adapter(F + "conv_transpose3d")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


def _conv_aliases():
    from . import nn as _nn
    for nd, (f, t) in enumerate(((_nn.conv1d, conv_transpose1d), (_nn.conv2d, conv_transpose2d),
                                 (conv3d, conv_transpose3d)), start=1):
        adapter(f"torch.conv{nd}d")(f)  # torch's positional signature is F's
        adapter(f"torch.conv_transpose{nd}d")(t)


_conv_aliases()


@adapter(F + "unfold")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    x, unb = (input.unsqueeze(0), True) if input.ndim == 3 else (input, False)
    if x.ndim != 4:
        raise NotImplementedError("Input Error: Only 3D or 4D input Tensors are supported "
                                  f"(got {input.ndim}D)")
    ks, ds, ps, ss = (_ntuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    is_bool = x.dtype == paddle.bool  # Paddle has no bool pad kernel: exact through int32
    w, _, outs, _ = _windows(x.astype("int32") if is_bool else x, ks, ss, ps, ds, False, 0.0)
    n, c = x.shape[0], x.shape[1]
    out = w.transpose([1, 2, 0, 3, 4]).reshape([n, c * len(w), outs[0] * outs[1]])
    if is_bool:
        out = out.astype("bool")
    return out.squeeze(0) if unb else out


@adapter(F + "fold")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    x, unb = (input.unsqueeze(0), True) if input.ndim == 2 else (input, False)
    ks, ds, ps, ss = (_ntuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    out = PF.fold(x, list(_ntuple(output_size, 2)), list(ks), strides=list(ss), paddings=list(ps),
                  dilations=list(ds))
    return out.squeeze(0) if unb else out


@adapter(F + "bilinear")
def bilinear(input1, input2, weight, bias=None):
    o, i, j = weight.shape
    t = paddle.matmul(input1, weight.transpose([1, 0, 2]).reshape([i, o * j]))
    out = (t.reshape(list(t.shape[:-1]) + [o, j]) * input2.unsqueeze(-2)).sum(axis=-1)
    return out + bias if bias is not None else out


@adapter(F + "pixel_shuffle")
def pixel_shuffle(input, upscale_factor):
    r = int(upscale_factor)
    *b, c, h, w = input.shape
    oc = c // (r * r)
    x = input.reshape(b + [oc, r, r, h, w])
    nb = len(b)
    perm = list(range(nb)) + [nb, nb + 3, nb + 1, nb + 4, nb + 2]
    return x.transpose(perm).reshape(b + [oc, h * r, w * r])


@adapter(F + "pixel_unshuffle")
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
    adapter(_name)(channel_shuffle)


@adapter(F + "one_hot")
def one_hot(tensor, num_classes=-1):
    if tensor.dtype != paddle.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    if num_classes == -1:
        num_classes = int(tensor.max()) + 1 if math.prod(tensor.shape) else 0
    return PF.one_hot(tensor, num_classes).astype("int64")


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


@adapter(F + "interpolate", note="torch's CPU index and weight rules (non-integer scales, "
         "nearest-exact, align_corners) computed with Paddle gathers; antialias= is not provided")
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


@adapter(F + "grid_sample", note="torch's CPU sampler (bilinear/nearest/bicubic, zeros/border/"
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
    adapter(_name)(_grid_sampler(_nd))


@adapter(F + "upsample")
def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
             recompute_scale_factor=None):
    return interpolate(input, size, scale_factor, mode, align_corners, recompute_scale_factor)


@adapter(F + "upsample_nearest")
def upsample_nearest(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="nearest")


@adapter(F + "upsample_bilinear")
def upsample_bilinear(input, size=None, scale_factor=None):
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


# -- attention --------------------------------------------------------------------------------------
@adapter(F + "scaled_dot_product_attention",
         note="math reference implementation (torch's semantics); dropout with Paddle's numbers")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    backends = _SDPA_BACKENDS[-1]
    if query.place.is_cpu_place() and not ({SDPBackend.MATH, SDPBackend.FLASH_ATTENTION}
                                           & set(backends)):
        raise RuntimeError("No viable backend for scaled_dot_product_attention was found. This "
                           "is likely due to turning off both the math kernel and the fused "
                           "kernels.")
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    bias = None
    if is_causal:
        causal = paddle.tril(paddle.ones([L, S], dtype="bool"))
        bias = paddle.where(causal, paddle.zeros([L, S], query.dtype),
                            paddle.full([L, S], float("-inf"), query.dtype))
    if attn_mask is not None:
        if attn_mask.dtype == paddle.bool:
            bias = paddle.where(attn_mask, paddle.zeros(attn_mask.shape, query.dtype),
                                paddle.full(attn_mask.shape, float("-inf"), query.dtype))
        else:
            bias = attn_mask.astype(query.dtype)
    if enable_gqa and query.ndim >= 3:
        hq, hk = query.shape[-3], key.shape[-3]
        if hq != hk:
            if hq % hk:
                raise RuntimeError("number of heads in key/value must divide number of heads in "
                                   "query")
            key = paddle.repeat_interleave(key, hq // hk, axis=-3)
            value = paddle.repeat_interleave(value, hq // value.shape[-3], axis=-3)
    # torch's math kernel scales query and key by sqrt(scale) each, before the product
    if scale_factor >= 0:
        root = math.sqrt(scale_factor)
        w = paddle.matmul(query * root, key * root, transpose_y=True)
    else:
        w = paddle.matmul(query, key, transpose_y=True) * scale_factor
    if bias is not None:
        w = w + bias
        # torch's math kernel uses a "safe" softmax: rows masked entirely give 0, not nan
        dead = paddle.all(paddle.isinf(w) & (w < 0), axis=-1, keepdim=True)
        w = PF.softmax(paddle.where(dead, paddle.zeros_like(w), w), axis=-1)
        w = paddle.where(dead, paddle.zeros_like(w), w)
    else:
        w = PF.softmax(w, axis=-1)
    if dropout_p > 0.0:
        w = PF.dropout(w, p=dropout_p, training=True)
    return paddle.matmul(w, value)


def _canonical_mask(mask, other_type, target_dtype):
    if mask is None:
        return None
    if mask.dtype == paddle.bool:
        return paddle.where(mask, paddle.full(mask.shape, float("-inf"), target_dtype),
                            paddle.zeros(mask.shape, target_dtype))
    if not paddle.is_floating_point(mask):
        raise AssertionError("only bool and floating types of masks are supported")
    return mask


@adapter(F + "multi_head_attention_forward")
def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads, in_proj_weight,
                                 in_proj_bias, bias_k, bias_v, add_zero_attn, dropout_p,
                                 out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """torch's reference multi-head attention ([L, N, E] layout, or unbatched [L, E])."""
    batched = query.ndim == 3
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {embed_dim}")
    head_dim = embed_dim // num_heads
    key_padding_mask = _canonical_mask(key_padding_mask, attn_mask, query.dtype)
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to create "
                           "this mask.")
    if is_causal and key_padding_mask is None and not need_weights:
        attn_mask = None
    else:
        attn_mask = _canonical_mask(attn_mask, None, query.dtype)
        if key_padding_mask is not None:
            is_causal = False

    def lin(x, w, b):
        out = paddle.matmul(x, w, transpose_y=True)
        return out + b if b is not None else out

    if not use_separate_proj_weight:
        wq, wk, wv = paddle.chunk(in_proj_weight, 3, axis=0)
    else:
        wq, wk, wv = q_proj_weight, k_proj_weight, v_proj_weight
    bq = bk = bv = None
    if in_proj_bias is not None:
        bq, bk, bv = paddle.chunk(in_proj_bias, 3, axis=0)
    q, k, v = lin(query, wq, bq), lin(key, wk, bk), lin(value, wv, bv)

    if attn_mask is not None:
        if attn_mask.ndim == 2:
            if list(attn_mask.shape) != [tgt_len, src_len]:
                raise RuntimeError(f"The shape of the 2D attn_mask is {list(attn_mask.shape)}, "
                                   f"but should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.ndim == 3:
            if list(attn_mask.shape) != [bsz * num_heads, tgt_len, src_len]:
                raise RuntimeError(f"The shape of the 3D attn_mask is {list(attn_mask.shape)}, "
                                   f"but should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.ndim} is not supported")

    if bias_k is not None and bias_v is not None:
        k = paddle.concat([k, bias_k.expand([1, bsz, embed_dim])], axis=0)
        v = paddle.concat([v, bias_v.expand([1, bsz, embed_dim])], axis=0)
        if attn_mask is not None:
            attn_mask = PF.pad(attn_mask, [0, 1], value=0.0, data_format="NCL")
        if key_padding_mask is not None:
            key_padding_mask = paddle.concat(
                [key_padding_mask, paddle.zeros([bsz, 1], key_padding_mask.dtype)], axis=1)

    q = q.reshape([tgt_len, bsz * num_heads, head_dim]).transpose([1, 0, 2])
    k = k.reshape([k.shape[0], bsz * num_heads, head_dim]).transpose([1, 0, 2])
    v = v.reshape([v.shape[0], bsz * num_heads, head_dim]).transpose([1, 0, 2])
    if static_k is not None:
        k = static_k
    if static_v is not None:
        v = static_v
    if add_zero_attn:
        k = paddle.concat([k, paddle.zeros([bsz * num_heads, 1, head_dim], k.dtype)], axis=1)
        v = paddle.concat([v, paddle.zeros([bsz * num_heads, 1, head_dim], v.dtype)], axis=1)
        if attn_mask is not None:
            attn_mask = PF.pad(attn_mask, [0, 1], value=0.0, data_format="NCL")
        if key_padding_mask is not None:
            key_padding_mask = paddle.concat(
                [key_padding_mask, paddle.zeros([bsz, 1], key_padding_mask.dtype)], axis=1)
    src_len = k.shape[1]
    if key_padding_mask is not None:
        kpm = key_padding_mask.reshape([bsz, 1, 1, src_len]).expand(
            [bsz, num_heads, 1, src_len]).reshape([bsz * num_heads, 1, src_len])
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0

    if need_weights:
        w = paddle.matmul(q * math.sqrt(1.0 / head_dim), k, transpose_y=True)
        if attn_mask is not None:
            w = w + attn_mask
        w = PF.softmax(w, axis=-1)
        if dropout_p > 0.0:
            w = PF.dropout(w, p=dropout_p)
        out = paddle.matmul(w, v)
        out = out.transpose([1, 0, 2]).reshape([tgt_len * bsz, embed_dim])
        out = lin(out, out_proj_weight, out_proj_bias).reshape([tgt_len, bsz, embed_dim])
        w = w.reshape([bsz, num_heads, tgt_len, src_len])
        if average_attn_weights:
            w = w.mean(axis=1)
        if not batched:
            out, w = out.squeeze(1), w.squeeze(0)
        return out, w
    if attn_mask is not None:
        attn_mask = attn_mask.reshape([bsz, num_heads, -1, src_len]) \
            if attn_mask.shape[0] != 1 else attn_mask.unsqueeze(0)
    q4 = q.reshape([bsz, num_heads, tgt_len, head_dim])
    k4 = k.reshape([bsz, num_heads, src_len, head_dim])
    v4 = v.reshape([bsz, num_heads, src_len, head_dim])
    out = scaled_dot_product_attention(q4, k4, v4, attn_mask, dropout_p, is_causal)
    out = out.transpose([2, 0, 1, 3]).reshape([bsz * tgt_len, embed_dim])
    out = lin(out, out_proj_weight, out_proj_bias).reshape([tgt_len, bsz, embed_dim])
    if not batched:
        out = out.squeeze(1)
    return out, None


# -- torch.nn.attention ---------------------------------------------------------------------------
module("torch.nn.attention")


class SDPBackend(enum.IntEnum):
    """torch.nn.attention.SDPBackend (the facade computes every backend with one kernel)."""
    ERROR = -1
    MATH = 0
    FLASH_ATTENTION = 1
    EFFICIENT_ATTENTION = 2
    CUDNN_ATTENTION = 3
    OVERRIDEABLE = 4


type_("torch.nn.attention.SDPBackend", SDPBackend)

_SDPA_BACKENDS = [list(SDPBackend)]


@adapter("torch.nn.attention.sdpa_kernel",
         note="accepts the backends; the facade's attention is one math kernel whatever is chosen")
@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, (list, tuple)) or not all(isinstance(b, SDPBackend)
                                                           for b in backends):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of "
                             "SDPBackend instances")
    _SDPA_BACKENDS.append(list(backends))
    try:
        yield
    finally:
        _SDPA_BACKENDS.pop()
