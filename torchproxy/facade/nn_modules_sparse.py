"""``torch.nn.EmbeddingBag`` and ``torch.nn.functional.embedding_bag`` (``Embedding`` is in
facade/nn.py).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: EmbeddingBag
    torch.nn.functional: embedding_bag
""")

import paddle

from .nn import Module, Parameter, _finish_layer
from .nn_modules import _export
from .registry import torch_function


# -- embedding bag ------------------------------------------------------------------------------
@_export
class EmbeddingBag(Module):
    def __init__(self, num_embeddings, embedding_dim, max_norm=None, norm_type=2.0,
                 scale_grad_by_freq=False, mode="mean", sparse=False, _weight=None,
                 include_last_offset=False, padding_idx=None, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = num_embeddings, embedding_dim
        self.max_norm, self.norm_type, self.scale_grad_by_freq = max_norm, norm_type, scale_grad_by_freq
        if mode not in ("sum", "mean", "max"):
            raise ValueError(f"mode has to be one of sum, mean or max, got {mode}")
        self.mode, self.sparse, self.include_last_offset = mode, sparse, include_last_offset
        if padding_idx is not None:
            if not -num_embeddings <= padding_idx < num_embeddings:
                raise AssertionError("padding_idx must be within num_embeddings")
            padding_idx %= num_embeddings
        self.padding_idx = padding_idx
        if _weight is None:  # torch's reset_parameters: normal_(0, 1), the padding row zeroed
            from . import nn_init as init
            from .nn import _new_param_tensor
            w = init.normal_(_new_param_tensor([num_embeddings, embedding_dim], dtype))
            if padding_idx is not None:
                w[padding_idx] = 0.0
        else:
            w = _weight
        self.weight = Parameter(w)
        _finish_layer(self, device, dtype)

    def forward(self, input, offsets=None, per_sample_weights=None):
        return embedding_bag(input, self.weight, offsets, self.max_norm, self.norm_type,
                             self.scale_grad_by_freq, self.mode, self.sparse, per_sample_weights,
                             self.include_last_offset, self.padding_idx)


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2, scale_grad_by_freq=False,
                  mode="mean", sparse=False, per_sample_weights=None, include_last_offset=False,
                  padding_idx=None):
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. "
                                  f"per_sample_weights is only supported for mode='sum' (got "
                                  f"mode='{mode}'). Please open a feature request on GitHub.")
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None")
        bags = [(i * input.shape[1], (i + 1) * input.shape[1]) for i in range(input.shape[0])]
        flat = input.reshape([-1])
        psw = per_sample_weights.reshape([-1]) if per_sample_weights is not None else None
    else:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        off = [int(o) for o in offsets.tolist()]
        flat = input
        n = flat.shape[0]
        if include_last_offset:
            bags = list(zip(off[:-1], off[1:]))
        else:
            bags = list(zip(off, off[1:] + [n]))
        psw = per_sample_weights
    from .nn import embedding  # max_norm (renorm in place), scale_grad_by_freq, sparse
    emb = embedding(flat, weight, None, max_norm, norm_type, scale_grad_by_freq, sparse)
    if psw is not None:
        emb = emb * psw.unsqueeze(-1)
    keep = None
    if padding_idx is not None and padding_idx < 0:  # torch counts it from the end
        padding_idx += weight.shape[0]
    if padding_idx is not None:  # padding entries take no part in the bag (max included)
        keep = (flat != padding_idx).astype(emb.dtype).unsqueeze(-1)
        if mode == "max":
            emb = paddle.where(keep > 0, emb, paddle.full_like(emb, float("-inf")))
        else:
            emb = emb * keep
    rows = []
    for a, b in bags:
        if b <= a:
            rows.append(paddle.zeros([weight.shape[1]], dtype=weight.dtype))
            continue
        seg = emb[a:b]
        if mode == "sum":
            rows.append(seg.sum(axis=0))
        elif mode == "mean":
            cnt = float(b - a) if keep is None else keep[a:b].sum()
            rows.append(seg.sum(axis=0) / paddle.maximum(
                paddle.to_tensor(cnt, dtype=emb.dtype) if keep is None else cnt,
                paddle.to_tensor(1.0, dtype=emb.dtype)))
        else:
            m = seg.max(axis=0)
            rows.append(paddle.where(paddle.isinf(m) & (m < 0), paddle.zeros_like(m), m)
                        if keep is not None else m)
    return paddle.stack(rows) if rows else paddle.zeros([0, weight.shape[1]], weight.dtype)


torch_function("torch.nn.functional.embedding_bag")(embedding_bag)
