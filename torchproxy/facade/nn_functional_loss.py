"""``torch.nn.functional`` loss functions (torch's "Loss functions" section), with torch's
reductions (``legacy_reduction`` for the deprecated ``size_average=``/``reduce=``) and
torch's CTC loss (``_ctc`` for float32).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn.functional: binary_cross_entropy binary_cross_entropy_with_logits
        cosine_embedding_loss ctc_loss gaussian_nll_loss hinge_embedding_loss huber_loss l1_loss
        linear_cross_entropy margin_ranking_loss multi_margin_loss multilabel_margin_loss
        multilabel_soft_margin_loss pairwise_distance pdist poisson_nll_loss smooth_l1_loss
        soft_margin_loss triplet_margin_loss triplet_margin_with_distance_loss
""")

import itertools
import math
import numbers

import paddle
import paddle.nn.functional as PF

from ..paddle_shims import broadcast_tensors
from .nn_functional import _floating, _is_int, _reduce, _t, F, legacy_reduction
from .registry import torch_function


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


@torch_function(F + "l1_loss")
def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    input, target = broadcast_tensors([input, target])
    loss = paddle.abs(input - target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@torch_function(F + "smooth_l1_loss")
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


@torch_function(F + "huber_loss")
def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = broadcast_tensors([input, target])
    d = paddle.abs(input - target)
    loss = paddle.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@torch_function(F + "binary_cross_entropy")
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


@torch_function(F + "binary_cross_entropy_with_logits")
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


@torch_function(F + "cosine_embedding_loss")
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


@torch_function(F + "margin_ranking_loss")
def margin_ranking_loss(input1, input2, target, margin=0.0, size_average=None, reduce=None,
                        reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError("margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {input1.shape}, input2: {input2.shape}, "
                           f"target: {target.shape} ")
    loss = PF.relu(-target.astype(input1.dtype) * (input1 - input2) + margin)
    return _reduce(loss, reduction)


@torch_function(F + "hinge_embedding_loss")
def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    zeros = paddle.zeros_like(input)
    # (a tensor margin: Paddle 2.6 applies a Python number through a float32 attribute, so
    # `margin - input` loses float64 digits)
    margin_clamp = paddle.maximum(paddle.full_like(input, margin) - input, zeros)
    out_margin = paddle.where(target != 1, margin_clamp, zeros)
    out_self = paddle.where(target != -1, input, zeros)
    return _reduce(out_margin + out_self, reduction)


@torch_function(F + "soft_margin_loss")
def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_broadcast(input, target)
    if not target.stop_gradient and paddle.is_grad_enabled():  # torch: no formula for target
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect "
                           "to argument 'target'. This input cannot have requires_grad True.")
    return _reduce(PF.softplus(-target * input), reduction)


@torch_function(F + "multilabel_soft_margin_loss")
def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    target = target.astype(input.dtype)
    loss = -(target * PF.log_sigmoid(input) + (1 - target) * PF.log_sigmoid(-input))
    if weight is not None:
        loss = loss * weight
    loss = loss.sum(axis=input.ndim - 1) / input.shape[-1] if input.ndim else loss
    return _reduce(loss, reduction)


def _check_margin_input(x):
    """torch's multi(label)_margin_loss shape check: a non-empty vector or matrix (or 0-d)."""
    nd = x.ndim
    if not ((nd == 2 and x.shape[1] != 0) or (nd == 1 and x.shape[0] != 0) or nd == 0):
        raise RuntimeError("Expected non-empty vector or matrix with optional 0-dim batch size, "
                           f"but got: {list(x.shape)}")


@torch_function(F + "multilabel_margin_loss")
def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    _check_margin_input(input)
    # torch's multilabel_margin_loss_shape_check: one target row per input row
    if input.ndim <= 1:
        ok = target.ndim <= 1 and target.size == (input.shape[0] if input.ndim else 1)
    else:
        ok = target.ndim == 2 and list(target.shape) == list(input.shape)
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    dim = input.shape[-1] if input.ndim else 1
    if target.size and (int(target.min()) < -1 or int(target.max()) >= dim):  # all, past -1 too
        raise RuntimeError("argument #2 'target' is out of range")
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


@torch_function(F + "multi_margin_loss")
def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    reduction = legacy_reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:  # (torch.nn.functional's own check)
        raise ValueError("weight must be one-dimensional")
    _check_margin_input(input)
    nframe = input.shape[0] if input.ndim == 2 else 1
    if not (target.ndim <= 1 and target.size == nframe):
        raise RuntimeError("multi_margin_loss: target tensor should be 1-D with size equal to the "
                           "number of input samples (batch size). Expected target size "
                           f"[{nframe}], but got {list(target.shape)}. Input has shape "
                           f"{list(input.shape)}.")
    squeeze = input.ndim <= 1
    x = input.reshape([1, -1]) if squeeze else input
    y = target.reshape([-1])
    c = x.shape[1]
    if weight is not None and weight.size != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got "
                           f"{list(weight.shape)}")
    if int(y.min()) < 0 or int(y.max()) >= c:
        raise RuntimeError("target out of range")
    xy = paddle.take_along_axis(x, y.unsqueeze(1), axis=1)  # [N, 1]
    z = PF.relu(margin - xy + x)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * paddle.gather(weight, y).unsqueeze(1)
    not_y = paddle.arange(c).unsqueeze(0) != y.unsqueeze(1)
    loss = (z * not_y.astype(z.dtype)).sum(axis=1) / c
    if squeeze and target.ndim == 0:  # torch: unreduced, one loss per target element
        loss = loss.reshape([])
    return _reduce(loss, reduction)


@torch_function(F + "poisson_nll_loss")
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


@torch_function(F + "gaussian_nll_loss")
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


@torch_function(F + "pairwise_distance")
def pairwise_distance(x1, x2, p=2.0, eps=1e-6, keepdim=False):
    if x1.ndim == 0 or x2.ndim == 0:
        raise RuntimeError("pairwise_distance: inputs must have at least 1 dimension")
    return _pairwise(x1, x2, p, eps, keepdim)


@torch_function(F + "pdist")
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


@torch_function(F + "triplet_margin_loss")
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


@torch_function(F + "triplet_margin_with_distance_loss")
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


@torch_function(F + "linear_cross_entropy", note="the reference computation (logits, then "
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


@torch_function(F + "ctc_loss", note="computed on the host (torch's alpha-beta recursion and its "
                "gradient): float32 in torch's float32 operation order (_ctc.py), others in "
                "float64")
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
