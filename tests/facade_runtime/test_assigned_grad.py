"""A tensor assigned to a leaf's ``.grad`` is the leaf's gradient from then on, as in torch:
``x.grad`` is that object, a backward accumulates into it in place (through a view into the
caller's buffer: Liger-Kernel's tiled MLP assigns ``x_shard.grad = x_grad.narrow(...)`` inside
its Function's backward and returns ``x_grad``), from its current value (facade/autograd.py's
_ASSIGNED_GRADS).  Against real torch."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

X = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)


def test_backward_accumulates_into_an_assigned_view():
    check('''
import torch
def f(x):
    buf = torch.zeros(6, 3)
    x = x.clone().requires_grad_(True)
    x.grad = buf.narrow(0, 2, 4).view_as(x)
    g0 = x.grad
    (x * x).sum().backward()
    (x * 3).sum().backward()
    return buf, x.grad, x.grad is g0
''', X)


def test_backward_starts_from_what_was_written_into_it():
    check('''
import torch
def f(x):
    buf = torch.zeros(4, 3)
    x = x.clone().requires_grad_(True)
    x.grad = buf
    buf.add_(1.5)
    x.grad.mul_(2)
    torch.autograd.backward((x * 2).sum(), torch.tensor(1.0))
    return buf, x.grad
''', X)


def test_set_to_none_forgets_it():
    check('''
import torch
def f(x):
    buf = torch.zeros(4, 3)
    x = x.clone().requires_grad_(True)
    x.grad = buf
    x.grad = None
    (x * 2).sum().backward()
    return buf, x.grad
''', X)


def test_backward_inputs_accumulates_into_it():
    check('''
import torch
def f(x):
    buf = torch.ones(4, 3)
    x = x.clone().requires_grad_(True)
    x.grad = buf
    (x * 2).sum().backward(inputs=[x])
    return buf, x.grad
''', X)


def test_tiled_backward_inside_a_function():
    """Liger's LigerTiledMLPFunction's pattern: the backward recomputes each shard with grad
    enabled and backpropagates into a .grad that views its own gradient buffer."""
    check('''
import torch
class Tiled(torch.autograd.Function):
    @staticmethod
    def forward(ctx, w, x):
        ctx.save_for_backward(w, x)
        with torch.no_grad():
            return torch.tanh(x @ w)
    @staticmethod
    def backward(ctx, gy):
        w, x = ctx.saved_tensors
        x = x.detach()
        x.requires_grad_(True)
        x_grad = torch.zeros_like(x)
        for i, shard in enumerate(torch.chunk(x, 2, dim=0)):
            shard.requires_grad_(True)
            n = shard.shape[0]
            shard.grad = x_grad.narrow(0, i * n, n).view_as(shard)
            with torch.enable_grad():
                out = torch.tanh(shard @ w.detach())
            torch.autograd.backward(out, gy.narrow(0, i * n, n))
        return None, x_grad
def f(x):
    w = torch.linspace(-1, 1, 9).reshape(3, 3)
    x = x.clone().requires_grad_(True)
    Tiled.apply(w, x).sum().backward()
    ref = x.detach().clone().requires_grad_(True)
    torch.tanh(ref @ w).sum().backward()
    return x.grad, ref.grad
''', X)
