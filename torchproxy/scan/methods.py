"""Candidate Tensor-method names for the static scan.

A call ``x.data_ptr()`` is a Tensor-method use only if ``x`` is a tensor, which a static scan
cannot know; so these calls are reported in their own section, by name and count, never in the
torch-name totals.  This tuple only says which call names are *worth counting* (methods whose
torch meaning a wrapper typically relies on); whether each is provided is decided by the
facade's own ``TENSOR_TABLE`` (plus ``paddle.Tensor`` itself), like every other name.
Names that are common on non-tensors too (``get``, ``append``, ``items``, ``sum``...) are left
out on purpose: counting them would be noise.
"""
from __future__ import annotations

COMMON_TENSOR_METHODS = (
    "data_ptr", "stride", "is_contiguous", "contiguous", "storage_offset", "untyped_storage",
    "element_size", "numel", "dim", "size", "view", "view_as", "reshape", "flatten",
    "unsqueeze", "squeeze", "transpose", "permute", "expand", "expand_as", "narrow",
    "new_empty", "new_zeros", "new_ones", "new_full", "new_tensor", "empty_like",
    "copy_", "fill_", "zero_", "masked_fill", "masked_fill_", "index_select", "scatter_",
    "to", "cuda", "cpu", "float", "half", "bfloat16", "int", "long", "bool", "type",
    "item", "tolist", "numpy", "clone", "detach", "requires_grad_", "backward",
    "get_device", "record_stream", "is_floating_point", "is_complex", "nelement",
    "t", "mT", "chunk", "split", "unbind", "repeat", "repeat_interleave",
    "add_", "mul_", "div_", "sub_", "clamp", "clamp_", "amax", "amin", "argmax", "cumsum",
    "softmax", "exp", "sqrt", "rsqrt", "pow", "abs", "max", "min", "mean",
)
