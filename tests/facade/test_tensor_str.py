"""How tensors print in scope: torch's repr/str/format text, compared with real torch."""
from __future__ import annotations

import pytest

from difftest import load

CASES = [
    "torch.tensor([1., 2., 3.])", "torch.tensor([1.5, 2.25])", "torch.arange(6).reshape(2, 3)",
    "torch.tensor([[1e-5, 1.0], [3.0, 4.0]])", "torch.tensor(3.14159)", "torch.tensor(7)",
    "torch.tensor([True, False])", "torch.zeros(0)", "torch.zeros(2, 0)",
    "torch.zeros(0, dtype=torch.int64)", "torch.arange(2000.).reshape(40, 50)",
    "torch.arange(1200)", "torch.tensor([1., float('nan'), float('inf'), -float('inf')])",
    "torch.ones(2, requires_grad=True)", "torch.ones(2, dtype=torch.float16)",
    "torch.ones(3, dtype=torch.int32)", "torch.tensor([1e10, 1.0])",
    "torch.tensor([100000000., 2.])", "torch.linspace(0, 1, 30)", "torch.tensor([1+2j, 3-4j])",
    "torch.ones(2, 3, 4)", "torch.tensor(-0.5)", "torch.tensor([0., 0.])",
    "torch.ones(2, dtype=torch.float64)", "torch.tensor([[-1.25, 3.5], [100.0, -7.0]])",
    "torch.arange(24.).reshape(2, 3, 4) / 7", "torch.full((3, 1500), 2.5)",
    "torch.tensor([[1, -20], [100, 4]], dtype=torch.int8)", "torch.ones(2, 3, dtype=torch.bool)",
]


@pytest.mark.parametrize("expr", CASES)
def test_repr_str_and_format_are_torchs(expr):
    src = f"import torch\ndef f():\n    t = {expr}\n    return repr(t), str(t), f'{{t}}', format(t, '')\n"
    assert load(src, scoped=True).f() == load(src, scoped=False).f()


def test_a_0d_tensor_formats_as_its_number_and_others_refuse_a_spec():
    src = """
import torch
def f():
    out = [f"{torch.tensor(1.23456):.2f}", f"{torch.tensor(3):04d}"]
    try:
        f"{torch.ones(2):.2f}"
    except TypeError as e:
        out.append(str(e))
    return out
"""
    assert load(src, scoped=True).f() == load(src, scoped=False).f()


def test_printoptions_change_the_text_as_torchs():
    src = """
import torch
def f():
    t = torch.arange(10.) / 3
    out = []
    for kw in ({"precision": 2}, {"threshold": 5, "edgeitems": 2}, {"sci_mode": True},
               {"linewidth": 30}, {"profile": "short"}, {"profile": "default"}):
        torch.set_printoptions(**kw)
        out.append(repr(t))
    torch.set_printoptions(profile="default")
    return out
"""
    assert load(src, scoped=True).f() == load(src, scoped=False).f()


def test_unscoped_code_keeps_paddles_text():
    import paddle
    import torchproxy
    torchproxy.enable(scope={"tp_tensor_str_elsewhere"})
    assert repr(paddle.ones([2])).startswith("Tensor(shape=[2]")
