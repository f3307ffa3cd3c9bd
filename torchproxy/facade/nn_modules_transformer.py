"""``torch.nn.MultiheadAttention`` and the transformer modules (encoder/decoder layers and
stacks, ``Transformer``), with torch's parameter names.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: MultiheadAttention Transformer TransformerDecoder TransformerDecoderLayer
        TransformerEncoder TransformerEncoderLayer
""")

import copy

import paddle
import paddle.nn.functional as PF

from . import nn as _nn
from . import nn_init as init
from .nn import Module, _finish_layer
from .nn_functional import relu as _relu
from .nn_functional_attention import multi_head_attention_forward
from .nn_modules import _export, _param


# -- attention and transformers ---------------------------------------------------------------
class NonDynamicallyQuantizableLinear(_nn.Linear):
    pass


@_export
class MultiheadAttention(Module):
    def __init__(self, embed_dim, num_heads, dropout=0.0, bias=True, add_bias_kv=False,
                 add_zero_attn=False, kdim=None, vdim=None, batch_first=False, device=None,
                 dtype=None):
        super().__init__()
        if embed_dim <= 0 or num_heads <= 0:
            raise ValueError(f"embed_dim and num_heads must be greater than 0, got "
                             f"embed_dim={embed_dim} and num_heads={num_heads} instead")
        self.embed_dim = embed_dim
        self.kdim = kdim if kdim is not None else embed_dim
        self.vdim = vdim if vdim is not None else embed_dim
        self._qkv_same_embed_dim = self.kdim == embed_dim and self.vdim == embed_dim
        self.num_heads, self.dropout, self.batch_first = num_heads, dropout, batch_first
        self.head_dim = embed_dim // num_heads
        if self.head_dim * num_heads != embed_dim:
            raise AssertionError("embed_dim must be divisible by num_heads")
        if not self._qkv_same_embed_dim:
            self.q_proj_weight = _param([embed_dim, embed_dim])
            self.k_proj_weight = _param([embed_dim, self.kdim])
            self.v_proj_weight = _param([embed_dim, self.vdim])
            self.register_parameter("in_proj_weight", None)
        else:
            self.in_proj_weight = _param([3 * embed_dim, embed_dim])
            self.register_parameter("q_proj_weight", None)
            self.register_parameter("k_proj_weight", None)
            self.register_parameter("v_proj_weight", None)
        if bias:
            self.in_proj_bias = _param([3 * embed_dim])
        else:
            self.register_parameter("in_proj_bias", None)
        self.out_proj = NonDynamicallyQuantizableLinear(embed_dim, embed_dim, bias=bias)
        if add_bias_kv:
            self.bias_k = _param([1, 1, embed_dim])
            self.bias_v = _param([1, 1, embed_dim])
        else:
            self.bias_k = self.bias_v = None
        self.add_zero_attn = add_zero_attn
        self._reset_parameters()
        _finish_layer(self, device, dtype)

    def _reset_parameters(self):
        if self._qkv_same_embed_dim:
            init.xavier_uniform_(self.in_proj_weight)
        else:
            init.xavier_uniform_(self.q_proj_weight)
            init.xavier_uniform_(self.k_proj_weight)
            init.xavier_uniform_(self.v_proj_weight)
        if self.in_proj_bias is not None:
            init.constant_(self.in_proj_bias, 0.0)
            init.constant_(self.out_proj.bias, 0.0)
        if self.bias_k is not None:
            init.xavier_normal_(self.bias_k)
        if self.bias_v is not None:
            init.xavier_normal_(self.bias_v)

    def forward(self, query, key, value, key_padding_mask=None, need_weights=True,
                attn_mask=None, average_attn_weights=True, is_causal=False):
        is_batched = query.ndim == 3
        if self.batch_first and is_batched:
            query, key, value = (t.transpose([1, 0, 2]) for t in (query, key, value))
        out, w = multi_head_attention_forward(
            query, key, value, self.embed_dim, self.num_heads, self.in_proj_weight,
            self.in_proj_bias, self.bias_k, self.bias_v, self.add_zero_attn, self.dropout,
            self.out_proj.weight, self.out_proj.bias, training=self.training,
            key_padding_mask=key_padding_mask, need_weights=need_weights, attn_mask=attn_mask,
            use_separate_proj_weight=not self._qkv_same_embed_dim,
            q_proj_weight=self.q_proj_weight, k_proj_weight=self.k_proj_weight,
            v_proj_weight=self.v_proj_weight, average_attn_weights=average_attn_weights,
            is_causal=is_causal)
        if self.batch_first and is_batched:
            out = out.transpose([1, 0, 2])
        return out, w


def _activation(act):
    if act == "relu" or act is PF.relu or act is _relu:
        return _relu  # F.relu, as torch's default (CPU halves in float32: no Paddle kernel)
    if act == "gelu":
        return _nn.gelu
    if isinstance(act, str):
        raise RuntimeError(f"activation should be relu/gelu, not {act}")
    return act


class _TransformerLayer(Module):
    """What torch's encoder and decoder layers share: the feed-forward block with its norms and
    dropouts, and the self-attention block."""
    _blocks = 2  # norm1..2 and dropout1..2 (encoder); the decoder has norm1..3, dropout1..3

    def _add_feedforward(self, d_model, dim_feedforward, dropout, layer_norm_eps, bias,
                         norm_first):
        # torch's attribute names in torch's order: state_dict() keys follow the order
        self.linear1 = _nn.Linear(d_model, dim_feedforward, bias=bias)
        self.dropout = _nn.Dropout(dropout)
        self.linear2 = _nn.Linear(dim_feedforward, d_model, bias=bias)
        self.norm_first = norm_first
        for i in range(1, self._blocks + 1):
            setattr(self, f"norm{i}", _nn.LayerNorm(d_model, eps=layer_norm_eps, bias=bias))
        for i in range(1, self._blocks + 1):
            setattr(self, f"dropout{i}", _nn.Dropout(dropout))

    def _sa_block(self, x, attn_mask, key_padding_mask, is_causal=False):
        x = self.self_attn(x, x, x, attn_mask=attn_mask, key_padding_mask=key_padding_mask,
                           need_weights=False, is_causal=is_causal)[0]
        return self.dropout1(x)

    def _ff_block(self, x):
        x = self.linear2(self.dropout(self.activation(self.linear1(x))))
        return getattr(self, f"dropout{self._blocks}")(x)


@_export
class TransformerEncoderLayer(_TransformerLayer):
    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, bias=bias,
                                            batch_first=batch_first)
        self._add_feedforward(d_model, dim_feedforward, dropout, layer_norm_eps, bias, norm_first)
        self.activation_relu_or_gelu = 1 if activation in ("relu",) else (
            2 if activation == "gelu" else 0)
        self.activation = _activation(activation)
        _finish_layer(self, device, dtype)

    def forward(self, src, src_mask=None, src_key_padding_mask=None, is_causal=False):
        x = src
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), src_mask, src_key_padding_mask, is_causal)
            x = x + self._ff_block(self.norm2(x))
        else:
            x = self.norm1(x + self._sa_block(x, src_mask, src_key_padding_mask, is_causal))
            x = self.norm2(x + self._ff_block(x))
        return x


@_export
class TransformerDecoderLayer(_TransformerLayer):
    _blocks = 3

    def __init__(self, d_model, nhead, dim_feedforward=2048, dropout=0.1, activation="relu",
                 layer_norm_eps=1e-5, batch_first=False, norm_first=False, bias=True,
                 device=None, dtype=None):
        super().__init__()
        self.self_attn = MultiheadAttention(d_model, nhead, dropout=dropout, batch_first=batch_first,
                                            bias=bias)
        self.multihead_attn = MultiheadAttention(d_model, nhead, dropout=dropout,
                                                 batch_first=batch_first, bias=bias)
        self._add_feedforward(d_model, dim_feedforward, dropout, layer_norm_eps, bias, norm_first)
        self.activation = _activation(activation)
        _finish_layer(self, device, dtype)

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=False, memory_is_causal=False):
        x = tgt
        if self.norm_first:
            x = x + self._sa_block(self.norm1(x), tgt_mask, tgt_key_padding_mask, tgt_is_causal)
            x = x + self._mha_block(self.norm2(x), memory, memory_mask, memory_key_padding_mask,
                                    memory_is_causal)
            x = x + self._ff_block(self.norm3(x))
        else:
            x = self.norm1(x + self._sa_block(x, tgt_mask, tgt_key_padding_mask, tgt_is_causal))
            x = self.norm2(x + self._mha_block(x, memory, memory_mask, memory_key_padding_mask,
                                               memory_is_causal))
            x = self.norm3(x + self._ff_block(x))
        return x

    def _mha_block(self, x, mem, attn_mask, key_padding_mask, is_causal=False):
        x = self.multihead_attn(x, mem, mem, attn_mask=attn_mask,
                                key_padding_mask=key_padding_mask, is_causal=is_causal,
                                need_weights=False)[0]
        return self.dropout2(x)


def _get_clones(module, n):
    return _nn.ModuleList([copy.deepcopy(module) for _ in range(n)])


def _nested_fast_path(enc, src, mask, src_key_padding_mask):
    """Whether torch's TransformerEncoder takes its nested-tensor fast path (eval, no grad
    needed...), whose output is zero at the padded positions."""
    layer = enc.layers[0]
    if not enc.use_nested_tensor or enc.training or src_key_padding_mask is None:
        return False
    if src.ndim != 3 or not layer.self_attn.batch_first:
        return False
    if mask is not None:
        return False
    if paddle.is_grad_enabled() and (not src.stop_gradient or any(
            not p.stop_gradient for p in enc.parameters())):
        return False
    return True


@_export
class TransformerEncoder(Module):
    def __init__(self, encoder_layer, num_layers, norm=None, enable_nested_tensor=True,
                 mask_check=True):
        super().__init__()
        self.layers = _get_clones(encoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm
        self.enable_nested_tensor = enable_nested_tensor
        self.use_nested_tensor = enable_nested_tensor
        self.mask_check = mask_check
        layer = encoder_layer
        why_not = ""
        if not isinstance(layer, TransformerEncoderLayer):
            why_not = "not TransformerEncoderLayer"
        elif layer.norm_first:
            why_not = "norm_first"
        elif not layer.self_attn.batch_first:
            why_not = "batch_first False"
        elif not layer.self_attn._qkv_same_embed_dim:
            why_not = "qkv dims"
        elif layer.self_attn.in_proj_bias is None:
            why_not = "no bias"
        elif not layer.activation_relu_or_gelu:
            why_not = "activation"
        elif layer.norm1.eps != layer.norm2.eps:
            why_not = "eps"
        elif layer.self_attn.num_heads % 2 == 1:
            why_not = "num_head is odd"
        if why_not:
            self.use_nested_tensor = False

    def forward(self, src, mask=None, src_key_padding_mask=None, is_causal=None):
        output = src
        fast = _nested_fast_path(self, src, mask, src_key_padding_mask)
        if src_key_padding_mask is not None and src_key_padding_mask.dtype != paddle.bool:
            fast = False
        for mod in self.layers:
            output = mod(output, src_mask=mask, is_causal=bool(is_causal),
                         src_key_padding_mask=src_key_padding_mask)
        if fast:
            keep = paddle.logical_not(src_key_padding_mask).astype(output.dtype).unsqueeze(-1)
            output = output * keep
        if self.norm is not None:
            output = self.norm(output)
        return output


@_export
class TransformerDecoder(Module):
    def __init__(self, decoder_layer, num_layers, norm=None):
        super().__init__()
        self.layers = _get_clones(decoder_layer, num_layers)
        self.num_layers, self.norm = num_layers, norm

    def forward(self, tgt, memory, tgt_mask=None, memory_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, tgt_is_causal=None, memory_is_causal=False):
        output = tgt
        for mod in self.layers:
            output = mod(output, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                         tgt_key_padding_mask=tgt_key_padding_mask,
                         memory_key_padding_mask=memory_key_padding_mask,
                         tgt_is_causal=bool(tgt_is_causal), memory_is_causal=memory_is_causal)
        if self.norm is not None:
            output = self.norm(output)
        return output


@_export
class Transformer(Module):
    def __init__(self, d_model=512, nhead=8, num_encoder_layers=6, num_decoder_layers=6,
                 dim_feedforward=2048, dropout=0.1, activation="relu", custom_encoder=None,
                 custom_decoder=None, layer_norm_eps=1e-5, batch_first=False, norm_first=False,
                 bias=True, device=None, dtype=None):
        super().__init__()

        def stack(custom, layer_cls, stack_cls, num_layers):
            # the encoder is built (and randomly initialised) before the decoder, as in torch
            if custom is not None:
                return custom
            layer = layer_cls(d_model, nhead, dim_feedforward, dropout, activation,
                              layer_norm_eps, batch_first, norm_first, bias)
            return stack_cls(layer, num_layers, _nn.LayerNorm(d_model, eps=layer_norm_eps,
                                                              bias=bias))
        self.encoder = stack(custom_encoder, TransformerEncoderLayer, TransformerEncoder,
                             num_encoder_layers)
        self.decoder = stack(custom_decoder, TransformerDecoderLayer, TransformerDecoder,
                             num_decoder_layers)
        for p in self.parameters():
            if p.ndim > 1:
                init.xavier_uniform_(p)
        self.d_model, self.nhead, self.batch_first = d_model, nhead, batch_first
        _finish_layer(self, device, dtype)

    def forward(self, src, tgt, src_mask=None, tgt_mask=None, memory_mask=None,
                src_key_padding_mask=None, tgt_key_padding_mask=None,
                memory_key_padding_mask=None, src_is_causal=None, tgt_is_causal=None,
                memory_is_causal=False):
        memory = self.encoder(src, mask=src_mask, src_key_padding_mask=src_key_padding_mask,
                              is_causal=src_is_causal)
        return self.decoder(tgt, memory, tgt_mask=tgt_mask, memory_mask=memory_mask,
                            tgt_key_padding_mask=tgt_key_padding_mask,
                            memory_key_padding_mask=memory_key_padding_mask,
                            tgt_is_causal=tgt_is_causal, memory_is_causal=memory_is_causal)

    @staticmethod
    def generate_square_subsequent_mask(sz, device=None, dtype=None):
        m = paddle.triu(paddle.full([sz, sz], float("-inf"), dtype="float32"), diagonal=1)
        return m
