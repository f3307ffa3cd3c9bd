"""float32 sums on CPU with torch's accuracy: the reductions behind sum/mean and behind the
gradients of broadcast operands.

Why: Paddle's CPU kernels reduce a partial axis (``x.sum(-1)``, ``x.mean((0, 2))``) and the
gradient of a broadcast operand (``w * x`` with ``w`` of shape [C] or [], bias adds) by one
sequential float32 accumulation over the whole reduced extent, so the rounding error grows with
the extent; torch's CPU reductions sum in cascades (error growing with its logarithm).  On
[8, 512, 768] and [16, 32, 4096] inputs the facade's weight gradients were 5-120x further from
float64 than torch's (docs/results/bench-reduction_accuracy.txt, bench/reduction_accuracy.py),
enough to fail Liger-Kernel's
reference comparisons and to move a training loop's loss curve away from torch's.

How: a reduced extent longer than ``BLOCK`` is split in two (``n = n1 * n2``, both near
``sqrt(n)``; a zero pad completes an extent without such a factor) and summed in two Paddle
reductions (each split again while longer than ``BLOCK``), one axis at a time, so no float32
accumulation runs over more than ``BLOCK`` terms.  A full reduction stays one ``paddle.sum``:
that kernel already sums pairwise.  The values are torch's sums rounded differently, not bit-identical ones (torch's are not
bit-identical across its own kernels either); the accuracy class is torch's.

Only float32 tensors on the CPU take this path: float64 sums are already far below the
tolerance anyone compares with, Paddle's GPU kernels reduce in trees, and half-precision CPU
reductions keep Paddle's (widening) kernels.
"""
from __future__ import annotations

import math

import paddle
from paddle.autograd import PyLayer

from .. import paddle_shims as _shims
from ._opbase import broadcast_sizes

# Longest extent summed by one sequential float32 accumulation (beyond it, the error of
# Paddle's kernel exceeds torch's cascade sum measurably: bench/reduction_accuracy.py)
BLOCK = 128

_F32 = paddle.float32


def applies(x) -> bool:
    """float32 on the CPU: the tensors whose reductions this module does."""
    # (the place first, read in C once the facade is installed: paddle_shims.ON_CPU; a CUDA
    # tensor reads no dtype)
    return _shims.ON_CPU(x) and x.dtype == _F32


def _split(n):
    """(n1, n2, pad): n + pad == n1 * n2 with n1 and n2 near sqrt(n)."""
    root = math.isqrt(n)
    for n1 in range(root, max(root // 2, 1) - 1, -1):
        if n % n1 == 0:
            return n1, n // n1, 0
    n1 = root
    n2 = -(-n // n1)
    return n1, n2, n1 * n2 - n


def _sum_axis(x, axis):
    """``x.sum(axis, keepdim=True)`` as two shorter float32 accumulations."""
    n = x.shape[axis]
    if n <= BLOCK:
        return paddle.sum(x, axis=axis, keepdim=True)
    n1, n2, pad = _split(n)
    if pad:
        shape = list(x.shape)
        shape[axis] = pad
        x = paddle.concat([x, paddle.zeros(shape, x.dtype)], axis=axis)
    shape = list(x.shape)
    x = x.reshape(shape[:axis] + [n1, n2] + shape[axis + 1:])
    x = _sum_axis(x, axis + 1).squeeze(axis + 1)
    return _sum_axis(x, axis)


def accurate_sum(x, axes, keepdim=False):
    """``paddle.sum(x, axes, keepdim)``; float32 CPU tensors with torch's accuracy.
    ``axes``: None (all) or a list of non-negative dims (in any order: each is summed with
    keepdim, so the others keep their positions)."""
    # (the cheap tests first: a full reduction, or a tensor off the CPU or not float32, pays
    # no shape reading: GPU tensors' host cost, bench/facade_ops_host.py)
    if axes is None or not applies(x) or len(axes) >= x.ndim:
        # Paddle's full reduction sums pairwise already (a 0-d tensor's dims are [0] or [-1])
        return paddle.sum(x, axis=axes, keepdim=keepdim)
    if math.prod(x.shape[a] for a in axes) <= BLOCK:
        return paddle.sum(x, axis=axes, keepdim=keepdim)
    for a in axes:
        x = _sum_axis(x, a)
    return x if keepdim else x.squeeze(axes)


class _ExactBroadcast(PyLayer):
    """``paddle.expand(w, shape)`` whose backward sums the broadcast gradient with
    ``accurate_sum`` (Paddle's expand/elementwise gradients accumulate sequentially)."""

    @staticmethod
    def forward(ctx, w, shape):
        lead = len(shape) - w.ndim
        ctx.axes = list(range(lead)) + [lead + i for i, d in enumerate(w.shape)
                                        if d == 1 and shape[lead + i] != 1]
        ctx.wshape = list(w.shape)
        return paddle.expand(w, shape)

    @staticmethod
    def backward(ctx, g):
        return accurate_sum(g, ctx.axes, keepdim=True).reshape(ctx.wshape)


def _reduced_count(w, shape):
    """How many output elements each element of ``w`` (broadcast to ``shape``) reaches."""
    n = math.prod(shape)
    m = math.prod(w.shape)
    return n // m if m else 0


def exact_broadcast(w, shape):
    """``w`` broadcast to ``shape`` for an elementwise op whose gradient for ``w`` must be
    reduced: through ``_ExactBroadcast`` when that reduction is long and ``w`` is a float32
    CPU tensor that records a graph; otherwise ``w`` itself (the op broadcasts)."""
    if w.stop_gradient or not paddle.is_grad_enabled() or not applies(w):
        return w
    shape = list(shape)
    if list(w.shape) == shape or _reduced_count(w, shape) <= BLOCK:
        return w
    return _ExactBroadcast.apply(w, shape)


def grad_broadcast(a, b):
    """The operands of a broadcasting binary op, each that needs a long gradient reduction
    broadcast by ``exact_broadcast`` (a cheap no-op for operands that record no graph)."""
    if a.stop_gradient and b.stop_gradient:
        return a, b
    # which operands could take the exact path, decided before any shape is read: operands on
    # a GPU (or not float32) pay two attribute reads, not torch's broadcast in Python (1-2 us a
    # call: bench/facade_ops_host.py); shapes that do not broadcast still raise torch's error
    # (the ops' _broadcasting)
    wa = not a.stop_gradient and applies(a)
    wb = not b.stop_gradient and applies(b)
    if not (wa or wb) or not paddle.is_grad_enabled():
        return a, b
    sa, sb = a.shape, b.shape
    if sa == sb:
        return a, b
    shape = broadcast_sizes(sa, sb)  # (torch's RuntimeError for shapes that do not broadcast)
    return (exact_broadcast(a, shape) if wa else a), (exact_broadcast(b, shape) if wb else b)


def accurate_mean(x, axes=None, keepdim=False):
    """``paddle.mean(x, axes, keepdim)``; float32 CPU tensors through ``accurate_sum`` (Paddle's
    CPU mean kernel accumulates sequentially even over all elements)."""
    if not applies(x) or x.ndim == 0:
        return paddle.mean(x, axis=axes, keepdim=keepdim)
    count = math.prod(x.shape) if axes is None else math.prod(x.shape[a] for a in axes)
    return accurate_sum(x, axes, keepdim) / count
