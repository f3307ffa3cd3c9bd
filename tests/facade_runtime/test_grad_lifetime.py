"""What ``x.grad`` hands out outlives the leaf's gradient, as in torch: a gradient someone holds
keeps its values when the leaf's is released (``p.grad = None``, ``zero_grad()``, an optimizer's
``zero_grad(set_to_none=True)``) or replaced (``p.grad = other``), while in-place updates reach
the real gradient both ways and ``p.grad is p.grad`` (facade/autograd.py's _user_grad).  Before,
a held gradient became an uninitialised tensor on Paddle 3.3, read freed memory on Paddle 2.6
(run these under MALLOC_CHECK_=3), or took the new values.  Against real torch."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

X = np.linspace(-1, 1, 12, dtype="float32").reshape(4, 3)


def test_a_held_grad_survives_its_release():
    check('''
import torch
def f(x):
    p = x.clone().requires_grad_(True)
    (p * p).sum().backward()
    g = p.grad
    p.grad = None
    q = torch.ones(4, 3) * 9     # memory the allocator may hand out again
    return g.clone(), g.sum(), p.grad is None, q
''', X)


def test_a_held_grad_keeps_its_values_when_another_is_assigned():
    check('''
import torch
def f(x):
    p = x.clone().requires_grad_(True)
    (p * 3).sum().backward()
    g = p.grad
    p.grad = torch.full((4, 3), 7.0)
    return g, p.grad, g is p.grad
''', X)


def test_zero_grad_of_module_and_optimizer():
    check('''
import torch
def f(x):
    torch.manual_seed(0)
    m = torch.nn.Linear(3, 2)
    with torch.no_grad():
        m.weight.copy_(torch.arange(6.0).view(2, 3) / 7)
        m.bias.fill_(0.25)
    opt = torch.optim.SGD(m.parameters(), lr=0.1)
    m(x).pow(2).sum().backward()
    held = [p.grad for p in m.parameters()]
    m.zero_grad()                      # set_to_none=True
    none_after_module = [p.grad is None for p in m.parameters()]
    m(x).sum().backward()
    held2 = [p.grad for p in m.parameters()]
    opt.zero_grad(set_to_none=True)
    m(x).sum().backward()
    kept = [p.grad for p in m.parameters()]
    opt.zero_grad(set_to_none=False)   # zeroed in place: a held one sees it
    return held, none_after_module, held2, kept, [p.grad for p in m.parameters()]
''', X)


def test_in_place_updates_reach_the_gradient_both_ways_and_identity_holds():
    check('''
import torch
def f(x):
    p = x.clone().requires_grad_(True)
    (p * 2).sum().backward()
    g = p.grad
    same = p.grad is g and p.grad is p.grad
    g.mul_(3)                          # through the held one
    from_held = p.grad.clone()
    (p * 1).sum().backward()           # accumulates into the same tensor
    after_backward = (g.clone(), p.grad is g)
    p.grad.zero_()
    return same, from_held, after_backward, g, g.requires_grad, p.grad.requires_grad
''', X)


def test_a_held_grad_after_an_optimizer_step_and_clipping():
    check('''
import torch
def f(x):
    p = torch.nn.Parameter(x.clone())
    opt = torch.optim.SGD([p], lr=0.5, momentum=0.9, weight_decay=0.1)
    (p ** 3).sum().backward()
    g = p.grad
    torch.nn.utils.clip_grad_norm_([p], 0.5)    # in place: the held one sees it
    clipped = g.clone()
    opt.step()                                  # weight decay does not touch p.grad
    opt.zero_grad()
    return clipped, g, p.detach(), p.grad is None
''', X)
