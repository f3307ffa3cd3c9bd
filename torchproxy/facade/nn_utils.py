"""``torch.nn.utils``: gradient clipping, parameter vectors, and ``torch.nn.utils.rnn``
(PackedSequence and its pack/pad helpers, accepted by the facade's RNN/LSTM/GRU)."""
from __future__ import annotations

NAMES = (
    "torch.nn.utils", "torch.nn.utils.clip_grad_norm_", "torch.nn.utils.clip_grad_value_",
    "torch.nn.utils.parameters_to_vector", "torch.nn.utils.rnn",
    "torch.nn.utils.rnn.PackedSequence", "torch.nn.utils.rnn.pack_padded_sequence",
    "torch.nn.utils.rnn.pack_sequence", "torch.nn.utils.rnn.pad_packed_sequence",
    "torch.nn.utils.rnn.pad_sequence", "torch.nn.utils.vector_to_parameters",
    "torch.nn.utils.get_total_norm", "torch.nn.utils.clip_grads_with_norm_",
)

import collections
import math

import paddle

from .registry import adapter, module, type_

U = "torch.nn.utils."
module("torch.nn.utils")
module("torch.nn.utils.rnn")


def _tensors(parameters):
    if isinstance(parameters, paddle.Tensor):
        return [parameters]
    return list(parameters)


def _grads(parameters):
    return [p.grad for p in _tensors(parameters) if p.grad is not None]


@adapter(U + "get_total_norm")
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return paddle.to_tensor(0.0)
    norms = [paddle.linalg.norm(t.detach().astype("float32").reshape([-1]), p=norm_type)
             for t in tensors]
    total = paddle.linalg.norm(paddle.stack(norms), p=norm_type)
    if error_if_nonfinite and not bool(paddle.isfinite(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           "is non-finite, so it cannot be clipped. To disable this error and "
                           "scale the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")
    return total.astype(tensors[0].dtype)


@adapter(U + "clip_grads_with_norm_")
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    params = [p for p in _tensors(parameters) if p.grad is not None]
    coef = float(max_norm) / (float(total_norm) + 1e-6)
    coef = min(coef, 1.0)
    for p in params:
        g = p.grad
        with paddle.no_grad():
            paddle.assign((g.astype("float32") * coef).astype(g.dtype), output=g)


@adapter(U + "clip_grad_norm_")
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    params = _tensors(parameters)
    grads = _grads(params)
    if not grads:
        return paddle.to_tensor(0.0)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


@adapter(U + "clip_grad_value_")
def clip_grad_value_(parameters, clip_value, foreach=None):
    clip_value = float(clip_value)
    for g in _grads(parameters):
        with paddle.no_grad():
            paddle.assign(paddle.clip(g, -clip_value, clip_value), output=g)


@adapter(U + "parameters_to_vector")
def parameters_to_vector(parameters):
    return paddle.concat([p.reshape([-1]) for p in _tensors(parameters)])


@adapter(U + "vector_to_parameters")
def vector_to_parameters(vec, parameters):
    if not isinstance(vec, paddle.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in _tensors(parameters):
        n = math.prod(p.shape)
        with paddle.no_grad():
            paddle.assign(vec[offset:offset + n].reshape(p.shape).astype(p.dtype), output=p)
        offset += n


# -- rnn ---------------------------------------------------------------------------------------
_PS = collections.namedtuple("PackedSequence",
                             ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PS):
    """torch.nn.utils.rnn.PackedSequence: ``data`` holds the time steps' rows, longest
    sequences first; ``batch_sizes[t]`` how many sequences have a step ``t``."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        return type(self)(self.data.to(*args, **kwargs) if hasattr(self.data, "to") else self.data,
                          self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    @property
    def is_cuda(self):
        return not self.data.place.is_cpu_place()

    def is_pinned(self):
        return False


def _invert(perm):
    out = paddle.zeros_like(perm)
    return paddle.scatter(out, perm, paddle.arange(perm.shape[0], dtype=perm.dtype))


@adapter("torch.nn.utils.rnn.pack_padded_sequence")
def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    if isinstance(lengths, paddle.Tensor):
        lengths = lengths.tolist()
    lengths = [int(v) for v in lengths]
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
        sorted_indices = None
        order = list(range(len(lengths)))
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        sorted_indices = paddle.to_tensor(order, dtype="int64")
    if any(v <= 0 for v in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    x = input.transpose([1, 0] + list(range(2, input.ndim))) if batch_first else input
    if sorted_indices is not None:
        x = paddle.gather(x, sorted_indices, axis=1)
    sl = [lengths[i] for i in order]
    T = sl[0]
    rows, batch_sizes = [], []
    for t in range(T):
        bs = sum(1 for v in sl if v > t)
        batch_sizes.append(bs)
        rows.append(x[t, :bs])
    data = paddle.concat(rows, axis=0)
    return PackedSequence(data, paddle.to_tensor(batch_sizes, dtype="int64"), sorted_indices, None)


def _unpack_to_padded(seq, padding_value=0.0, total_length=None):
    """(padded [T, B, *] in the packed (sorted) order, lengths in that order)."""
    bsz = [int(v) for v in seq.batch_sizes.tolist()]
    B, T = bsz[0], len(bsz)
    feat = seq.data.shape[1:]
    rows, off = [], 0
    for t, bs in enumerate(bsz):
        step = seq.data[off:off + bs]
        off += bs
        if bs < B:
            pad = paddle.full([B - bs] + feat, padding_value, dtype=seq.data.dtype)
            step = paddle.concat([step, pad], axis=0)
        rows.append(step)
    if total_length is not None and total_length > T:
        rows += [paddle.full([B] + feat, padding_value, dtype=seq.data.dtype)] * (total_length - T)
    lengths = [sum(1 for bs in bsz if bs > b) for b in range(B)]
    return paddle.stack(rows), lengths


def _pack_from_padded(padded, like):
    bsz = [int(v) for v in like.batch_sizes.tolist()]
    data = paddle.concat([padded[t, :bs] for t, bs in enumerate(bsz)], axis=0)
    return PackedSequence(data, like.batch_sizes, like.sorted_indices, like.unsorted_indices)


@adapter("torch.nn.utils.rnn.pad_packed_sequence")
def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    T = sequence.batch_sizes.shape[0]
    if total_length is not None and total_length < T:
        raise ValueError(f"Expected total_length to be at least the length of the longest "
                         f"sequence in input, but got total_length={total_length} and max "
                         f"sequence length being {T}")
    padded, lengths = _unpack_to_padded(sequence, padding_value, total_length)
    lengths = paddle.to_tensor(lengths, dtype="int64")
    if sequence.unsorted_indices is not None:
        padded = paddle.gather(padded, sequence.unsorted_indices, axis=1)
        lengths = paddle.gather(lengths, sequence.unsorted_indices)
    if batch_first:
        padded = padded.transpose([1, 0] + list(range(2, padded.ndim)))
    return padded, lengths


@adapter("torch.nn.utils.rnn.pad_sequence")
def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    sequences = list(sequences)
    T = max(s.shape[0] for s in sequences)
    out = []
    for s in sequences:
        n = s.shape[0]
        if n < T:
            pad = paddle.full([T - n] + list(s.shape[1:]), padding_value, dtype=s.dtype)
            s = paddle.concat([s, pad] if padding_side == "right" else [pad, s], axis=0)
        out.append(s)
    return paddle.stack(out, axis=0 if batch_first else 1)


@adapter("torch.nn.utils.rnn.pack_sequence")
def pack_sequence(sequences, enforce_sorted=True):
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


type_("torch.nn.utils.rnn.PackedSequence", PackedSequence)
