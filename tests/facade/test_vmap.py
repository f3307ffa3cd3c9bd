"""torch.vmap (facade/func.py) against real torch: in_dims / out_dims forms, nested vmaps (the
way Hugging Face transformers builds attention masks), gradients through it, and torch's
errors where the dims do not fit."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

X = np.arange(6, dtype="float32").reshape(2, 3)
Y = np.arange(12, dtype="float32").reshape(3, 4) / 7


@pytest.mark.parametrize("call", [
    "torch.vmap(lambda a: a.sum())(x)",
    "torch.vmap(lambda a: a * 2, in_dims=1)(x)",
    "torch.vmap(lambda a: a * 2, in_dims=-1, out_dims=1)(x)",
    "torch.vmap(lambda a: a.cumsum(0), out_dims=-1)(x)",
    "torch.vmap(lambda a, b: a @ b, in_dims=(0, None))(x, y)",
    "torch.vmap(lambda a, s: a * s, in_dims=(0, None))(x, 2.5)",
    "torch.vmap(lambda a, k: a * k)(x, torch.tensor([1., -1.]))",
    "torch.vmap(lambda a: (a.max(), a.argmax()))(x)",
    "torch.vmap(lambda a: {'s': a.sum(), 'm': a.mean()})(x)",
    "torch.vmap(lambda a: (a, a.sum()), out_dims=(1, 0))(x)",
    "torch.vmap(lambda a, b: a + b.sum(), out_dims=(0,))(x, y)",
    "torch.vmap(lambda a, b: (a.sum(), b), out_dims=(0, None), in_dims=(0, None))(x, y)",
    "torch.vmap(lambda d: d['a'] * 2, in_dims=({'a': 1},))({'a': x})",
    "torch.vmap(lambda p: p[0] - p[1], in_dims=((0, 1),))((x, x.T))",
    "torch.vmap(lambda a: a > 2)(x)",
    "torch.vmap(lambda a: a, chunk_size=1)(x)",
    "torch.vmap(lambda a: a * 3, randomness='same')(x)",
    "torch.vmap(torch.vmap(lambda a: a * a))(x)",
    "torch.vmap(torch.vmap(lambda a, b: a * b, in_dims=(None, 0)), in_dims=(0, None))"
    "(x[:, 0], y[0])",
])
def test_vmap_values(call):
    check(f'''
import torch
def f(x, y):
    return {call}
''', X, Y)


def test_vmap_nested_index_functions_build_a_mask():
    """transformers' masking_utils: a 4-level vmap over (batch, head, q, kv) of an index
    function reading a padding mask with 0-d tensor indices."""
    check('''
import torch
def f(pad):
    def causal_and_padding(b, h, q, kv):
        return (kv <= q) & pad[b, kv]
    fn = causal_and_padding
    for dims in [(None, None, None, 0), (None, None, 0, None), (None, 0, None, None),
                 (0, None, None, None)]:
        fn = torch.vmap(fn, in_dims=dims, out_dims=0)
    return fn(torch.arange(2), torch.arange(1), torch.arange(4), torch.arange(5))
''', np.array([[0, 1, 1, 1, 1], [1, 1, 1, 1, 1]], dtype=bool))


def test_vmap_gradient_flows():
    check('''
import torch
def f(x, y):
    x = x.clone().requires_grad_()
    out = torch.vmap(lambda a: (a * a).sum())(x)
    out.sum().backward()
    return out, x.grad
''', X, Y)


@pytest.mark.parametrize("call", [
    "torch.vmap(lambda a: 3)(x)",
    "torch.vmap(lambda a: None)(x)",
    "torch.vmap(lambda a, b: a + b)(x, y)",
    "torch.vmap(lambda a: a, in_dims=(0, 1))(x)",
    "torch.vmap(lambda a: a, in_dims=None)(x)",
    "torch.vmap(lambda a: a, in_dims='a')(x)",
    "torch.vmap(lambda a: a, in_dims=2)(x)",
    "torch.vmap(lambda a: a, in_dims=0)(3)",
    "torch.vmap(lambda a: a)(torch.tensor(3.))",
    "torch.vmap(lambda a: a)()",
    "torch.vmap(lambda a: a, out_dims=2)(x)",
    "torch.vmap(lambda a: a, out_dims=(0, 1))(x)",
    "torch.vmap(lambda a: (a, a.sum()), out_dims=(0, None))(x)",
    "torch.vmap(lambda a: a, randomness='x')",
])
def test_vmap_errors(call):
    check(f'''
import torch
def f(x, y):
    return {call}
''', X, Y)
