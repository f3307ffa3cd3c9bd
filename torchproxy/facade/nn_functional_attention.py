"""``torch.nn.functional`` attention (``scaled_dot_product_attention``,
``multi_head_attention_forward``), ``torch.nn.attention`` (``SDPBackend``, ``sdpa_kernel``,
the import-time names of ``flex_attention``) and the SDPA backend switches of
``torch.backends.cuda`` (``enable_flash_sdp``...: one set of enabled backends, shared with
``sdpa_kernel`` as in torch).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.backends.cuda: cudnn_sdp_enabled enable_cudnn_sdp enable_flash_sdp enable_math_sdp
        enable_mem_efficient_sdp flash_sdp_enabled math_sdp_enabled mem_efficient_sdp_enabled
    torch.nn: attention
    torch.nn.attention: SDPBackend flex_attention sdpa_kernel
    torch.nn.attention.flex_attention: BlockMask _DEFAULT_SPARSE_BLOCK_SIZE create_block_mask
        flex_attention
    torch.nn.functional: multi_head_attention_forward scaled_dot_product_attention
""")

import contextlib
import enum
import math

import paddle
import paddle.nn.functional as PF

from .nn import linear_kernel
from .nn_functional import F
from ..errors import NotProvidedError
from .registry import module, torch_function, type_, value


# -- attention --------------------------------------------------------------------------------------
@torch_function(F + "scaled_dot_product_attention",
                note="math reference implementation (torch's semantics); dropout with Paddle's "
                     "numbers")
def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    if query.place.is_cpu_place() and not ({SDPBackend.MATH, SDPBackend.FLASH_ATTENTION}
                                           & _SDP_ENABLED):
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
    if dropout_p > 0.0:  # torch's math kernel: at::dropout (torch's draws on the CPU)
        from .nn import dropout
        w = dropout(w, dropout_p, True)
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


@torch_function(F + "multi_head_attention_forward")
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

    lin = linear_kernel
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
        if dropout_p > 0.0:  # torch's functional dropout (torch's draws on the CPU)
            from .nn import dropout
            w = dropout(w, dropout_p, True)
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

# the enabled backends: torch's global SDP flags, which sdpa_kernel sets and restores
_SDP_ENABLED = set(SDPBackend) - {SDPBackend.ERROR, SDPBackend.OVERRIDEABLE}


@torch_function("torch.nn.attention.sdpa_kernel",
                note="accepts the backends; the facade's attention is one math kernel whatever is "
                     "chosen")
@contextlib.contextmanager
def sdpa_kernel(backends, set_priority: bool = False):
    if isinstance(backends, SDPBackend):
        backends = [backends]
    if not isinstance(backends, (list, tuple)) or not all(isinstance(b, SDPBackend)
                                                           for b in backends):
        raise AssertionError("Backend must be an instance of SDPBackend or a list of "
                             "SDPBackend instances")
    saved = set(_SDP_ENABLED)
    _SDP_ENABLED.clear()
    _SDP_ENABLED.update(backends)
    try:
        yield
    finally:
        _SDP_ENABLED.clear()
        _SDP_ENABLED.update(saved)


def _sdp_switch(backend: SDPBackend, setter: str):
    def enable(enabled) -> None:
        if not isinstance(enabled, bool):
            # torch's message names the math setter for every backend (its C binding's text)
            raise RuntimeError(f"set_sdp_use_math expects a bool, but got "
                               f"{type(enabled).__name__}")
        (_SDP_ENABLED.add if enabled else _SDP_ENABLED.discard)(backend)

    def enabled() -> bool:
        return backend in _SDP_ENABLED
    return enable, enabled


for _short, _backend in (("flash", SDPBackend.FLASH_ATTENTION),
                         ("mem_efficient", SDPBackend.EFFICIENT_ATTENTION),
                         ("math", SDPBackend.MATH), ("cudnn", SDPBackend.CUDNN_ATTENTION)):
    _on, _is_on = _sdp_switch(_backend, _short)
    torch_function(f"torch.backends.cuda.enable_{_short}_sdp",
                   note="sets the flag sdpa_kernel shares; the facade computes attention with "
                        "one kernel (CPU needs math or flash enabled, as torch)")(_on)
    torch_function(f"torch.backends.cuda.{_short}_sdp_enabled")(_is_on)


# -- torch.nn.attention.flex_attention: importable, not computed ------------------------------
# Hugging Face transformers imports BlockMask, create_block_mask and the block size at import
# whenever torch >= 2.5; calling flex attention needs torch's compiled block-sparse kernels.
module("torch.nn.attention.flex_attention")
value("torch.nn.attention.flex_attention._DEFAULT_SPARSE_BLOCK_SIZE", 128)


class BlockMask:
    """torch's block-sparse mask for flex_attention: a type for annotations and isinstance
    checks (False for everything); making one raises NotProvidedError."""

    def __init__(self, *args, **kwargs):
        raise NotProvidedError("torch.nn.attention.flex_attention.BlockMask")


BlockMask.__module__ = "torch.nn.attention.flex_attention"
type_("torch.nn.attention.flex_attention.BlockMask", BlockMask,
      note="a type only (isinstance False); flex_attention itself is not provided")


@torch_function("torch.nn.attention.flex_attention.create_block_mask",
                note="raises NotProvidedError (flex_attention needs torch's compiled kernels)")
def create_block_mask(*args, **kwargs):
    raise NotProvidedError("torch.nn.attention.flex_attention.create_block_mask")


@torch_function("torch.nn.attention.flex_attention.flex_attention",
                note="raises NotProvidedError (torch compiles it into block-sparse kernels)")
def flex_attention(*args, **kwargs):
    raise NotProvidedError("torch.nn.attention.flex_attention.flex_attention")
