"""``torch.nn`` loss modules (``_Loss``/``_WeightedLoss`` with torch's legacy ``size_average=``/
``reduce=`` handling) and the distance modules (``PairwiseDistance``, ``CosineSimilarity``).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: BCELoss BCEWithLogitsLoss CTCLoss CosineEmbeddingLoss CosineSimilarity
        GaussianNLLLoss HingeEmbeddingLoss HuberLoss L1Loss LinearCrossEntropyLoss MSELoss
        MarginRankingLoss MultiLabelMarginLoss MultiLabelSoftMarginLoss MultiMarginLoss NLLLoss
        NLLLoss2d PairwiseDistance PoissonNLLLoss SmoothL1Loss SoftMarginLoss TripletMarginLoss
        TripletMarginWithDistanceLoss
    torch.nn.modules.loss: _Loss _WeightedLoss
""")

import math

from . import nn as _nn
from .nn import Module
from .nn_functional import legacy_reduction
from .nn_functional_loss import (binary_cross_entropy, binary_cross_entropy_with_logits,
                                 cosine_embedding_loss, ctc_loss, gaussian_nll_loss,
                                 hinge_embedding_loss, huber_loss, l1_loss, linear_cross_entropy,
                                 margin_ranking_loss, multi_margin_loss, multilabel_margin_loss,
                                 multilabel_soft_margin_loss, pairwise_distance, poisson_nll_loss,
                                 smooth_l1_loss, soft_margin_loss, triplet_margin_loss,
                                 triplet_margin_with_distance_loss)
from .nn_modules import _export, _export_base


# -- losses ------------------------------------------------------------------------------------
@_export_base("loss")
class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        # torch's _Loss: the legacy pair is translated, a reduction string is kept unchecked
        # (KLDivLoss's "batchmean" is valid there; the functional checks at the call)
        self.reduction = reduction if size_average is None and reduce is None else \
            legacy_reduction(size_average, reduce, reduction)


@_export_base("loss")
class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


@_export
class L1Loss(_Loss):
    def forward(self, input, target):
        return l1_loss(input, target, reduction=self.reduction)


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
class NLLLoss2d(NLLLoss):
    """torch's deprecated alias of NLLLoss (a FutureWarning per instance, as torch's)."""

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        import warnings
        warnings.warn("`NLLLoss2d` has been deprecated. Please use `NLLLoss` instead as a "
                      "drop-in replacement and see "
                      "https://pytorch.org/docs/main/nn.html#torch.nn.NLLLoss for more details.",
                      FutureWarning, stacklevel=2)
        super().__init__(weight, size_average, ignore_index, reduce, reduction)


@_export
class BCELoss(_WeightedLoss):
    def forward(self, input, target):
        return binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


@_export
class BCEWithLogitsLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return binary_cross_entropy_with_logits(input, target, self.weight,
                                                   pos_weight=self.pos_weight,
                                                   reduction=self.reduction)


@_export
class HuberLoss(_Loss):
    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return huber_loss(input, target, reduction=self.reduction, delta=self.delta)


@_export
class SmoothL1Loss(_Loss):
    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


@_export
class SoftMarginLoss(_Loss):
    def forward(self, input, target):
        return soft_margin_loss(input, target, reduction=self.reduction)


@_export
class MultiLabelMarginLoss(_Loss):
    def forward(self, input, target):
        return multilabel_margin_loss(input, target, reduction=self.reduction)


@_export
class MultiLabelSoftMarginLoss(_WeightedLoss):
    def forward(self, input, target):
        return multilabel_soft_margin_loss(input, target, weight=self.weight,
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
        return multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                    weight=self.weight, reduction=self.reduction)


@_export
class CosineEmbeddingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                        reduction=self.reduction)


@_export
class MarginRankingLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input1, input2, target):
        return margin_ranking_loss(input1, input2, target, margin=self.margin,
                                      reduction=self.reduction)


@_export
class HingeEmbeddingLoss(_Loss):
    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin

    def forward(self, input, target):
        return hinge_embedding_loss(input, target, margin=self.margin,
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
        return triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                      eps=self.eps, swap=self.swap, reduction=self.reduction)


@_export
class TripletMarginWithDistanceLoss(_Loss):
    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        self.distance_function = distance_function
        self.margin, self.swap = margin, swap

    def forward(self, anchor, positive, negative):
        return triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)


@_export
class PoissonNLLLoss(_Loss):
    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input, self.full, self.eps = log_input, full, eps

    def forward(self, log_input, target):
        return poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                   eps=self.eps, reduction=self.reduction)


@_export
class GaussianNLLLoss(_Loss):
    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full, self.eps = full, eps

    def forward(self, input, target, var):
        return gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
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
        return linear_cross_entropy(input, w, target, linear_bias=b, weight=self.weight,
                                       reduction=self.reduction, ignore_index=self.ignore_index,
                                       label_smoothing=self.label_smoothing, options=self.options)


@_export
class CTCLoss(_Loss):
    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank, self.zero_infinity = blank, zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                           self.reduction, self.zero_infinity)


# -- distances ---------------------------------------------------------------------------------
@_export
class PairwiseDistance(Module):
    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


@_export
class CosineSimilarity(Module):
    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return _nn.cosine_similarity(x1, x2, self.dim, self.eps)
