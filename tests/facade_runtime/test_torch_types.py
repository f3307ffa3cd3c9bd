"""``torch.types`` (facade/torch_types.py), against real torch: the aliases name the same kinds
of object (a builtin, torch's dtype/device/layout/Size classes, torch's unions of them), so an
isinstance check or an annotation means the same in scope.  Hugging Face transformers 5 does
``from torch.types import _dtype`` at import."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

NAMES = ["_bool", "_bytes", "_complex", "_float", "_int", "_str", "_dtype", "_device",
         "_layout", "_size", "Number", "_Number", "Device"]


def test_import_forms():
    check('''
import torch
import torch.types
from torch.types import _dtype, _device, Number
def f():
    return (_dtype is torch.dtype, _device is torch.device, torch.types._layout is torch.layout,
            Number == (int | float | bool), torch.types.__name__)
''')


@pytest.mark.parametrize("name", NAMES)
def test_isinstance_answers(name):
    """Each alias, used as isinstance's second argument (a union as its members), answers as
    torch's for values of every kind the aliases name."""
    check(f'''
import typing
import torch
import torch.types
def f(x):
    a = getattr(torch.types, {name!r})
    kinds = tuple(typing.get_args(a)) if typing.get_args(a) else a
    kinds = tuple(typing.get_origin(k) or k for k in (kinds if isinstance(kinds, tuple)
                                                        else (kinds,)))
    values = [True, 3, 2.5, 1j, "cpu", b"x", None, [1, 2], (1, 2), torch.float32,
              torch.device("cpu"), torch.strided, torch.Size([2]), x]
    return [isinstance(v, kinds) for v in values]
''', np.zeros(2, "float32"))


def test_missing_names_raise():
    """Torch's symbolic-shape aliases name classes the facade lacks: a clear error naming them."""
    import paddle  # noqa: F401
    import torchproxy
    from torchproxy.errors import NotProvidedError
    torchproxy.enable(scope={"__main__", __name__})
    try:
        import torch.types as tt
        with pytest.raises(NotProvidedError, match="torch.types.SymInt"):
            tt.SymInt
    finally:
        torchproxy.disable()
