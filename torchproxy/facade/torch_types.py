"""``torch.types``: the type aliases torch's annotations use (``_dtype``, ``_device``,
``_size``, ``Number``, ``Device``...).  Hugging Face transformers 5 imports
``from torch.types import _dtype`` at import (utils/generic.py), so Liger-Kernel 0.8.5's model
patching, which needs transformers >= 5, stops there without it.

Each alias is the facade's counterpart of torch's: the builtin types as in torch, and the torch
classes (``torch.dtype``, ``torch.device``, ``torch.Size``, ``torch.layout``) replaced by the
facade's, so ``isinstance(x, torch.types._dtype)`` and annotations mean in scope what they mean
in torch.  Torch's symbolic-shape names (``SymInt``, ``IntLikeType``...), ``Storage``,
``_qscheme`` and ``_dispatchkey`` name torch classes the facade does not have and are not
provided.  Tests: tests/facade_runtime/test_torch_types.py, against real torch.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: types
    torch.types: Device Number _Number _bool _bytes _complex _device _dtype _float _int _layout
        _size _str
""")

from typing import Optional, Union

from .core import Size
from .creation import layout
from .device import device
from .dtypes import DTYPE_TYPE
from .registry import module, value

module("torch.types")
for _name, _obj in (("_bool", bool), ("_bytes", bytes), ("_complex", complex),
                    ("_float", float), ("_int", int), ("_str", str),
                    ("_dtype", DTYPE_TYPE), ("_device", device), ("_layout", layout),
                    # torch's unions, written with the facade's classes
                    ("_size", Union[Size, list[int], tuple[int, ...]]),
                    ("Number", Union[int, float, bool]),
                    ("_Number", (int, float, bool)),
                    ("Device", Optional[Union[device, str, int]])):
    value(f"torch.types.{_name}", _obj)
