"""Helpers that torch.nn.functional's families share, in the family's lowest module (nn.py
imports them from here; nn_functional re-exports them to its families): torch's legacy
size_average/reduce rule, a loss's reduction, integer inputs as the default float dtype,
n-tuples of ints."""
from __future__ import annotations

import paddle


def _ntuple_values(v, n):
    """An int or a sequence of ints as an n-tuple of ints (kernel sizes, strides, padding)."""
    if isinstance(v, (list, tuple)):
        if len(v) == 1 and n > 1:
            return tuple(int(v[0]) for _ in range(n))
        if len(v) != n:
            raise RuntimeError(f"expected {n} values, got {len(v)}: {v}")
        return tuple(int(i) for i in v)
    return (int(v),) * n


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


def _reduce(loss, reduction):
    """A loss's ``reduction=``: none, mean or sum (torch's ValueError for any other)."""
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _is_int(x):
    return x.dtype in (paddle.int64, paddle.int32, paddle.int16, paddle.int8, paddle.uint8)


def _floating(x):
    """An integer/bool input as the default float dtype (torch's promotion for float ops)."""
    if _is_int(x) or x.dtype == paddle.bool:
        return x.astype(paddle.get_default_dtype())
    return x
