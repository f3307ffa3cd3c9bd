"""Autograd state across the steps of a training loop, against real torch: what
tests/memory/gradfuzz.py found (FINDINGS.md, G findings).  Each case failed before its fix on
Paddle 3.3.1 and 2.6.2 (facade/autograd.py): zero_grad(set_to_none=False) then a write into
the gradient was lost by the next backward; a held x.grad stopped following the leaf's
gradient after a backward; x.grad = t took any size; retained non-leaf gradients were replaced
instead of accumulated, taken before the tensor's hooks, and lost by detach_; autograd.grad and
backward(inputs=) skipped leaf hooks; errors had Paddle's types and messages; a second backward
through a PyLayer after backward(retain_graph=True) segfaulted."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

X = np.linspace(-1, 1.3, 12, dtype="float32").reshape(3, 4)


def test_zero_grad_in_place_then_written_gradient_accumulates():
    check('''
import torch
def f(x):
    p = torch.nn.Parameter(x.clone())
    opt = torch.optim.SGD([p], lr=0.1)
    p.view(12)[2:9].tanh().sum().backward()
    opt.zero_grad(set_to_none=False)
    p.grad.add_(1.0)                 # written after zeroing: the next backward adds to it
    (p * 2).sum().backward()
    first = p.grad.clone()
    m = torch.nn.Module()
    m.register_parameter("p", p)
    m.zero_grad(set_to_none=False)
    p.grad = torch.full_like(p, 0.25)
    (p * 2).sum().backward()
    return first, p.grad
''', X)


def test_a_held_grad_follows_accumulation_after_a_strided_first_gradient():
    check('''
import torch
def f(x):
    c = x.clone().requires_grad_()
    c.transpose(0, 1)[1:].tanh().sum().backward()   # the first gradient comes out strided
    g = c.grad
    c[..., 1:3].t().sin().mean().backward()
    return g, g is c.grad, c.grad
''', X)


def _message(src):
    """f returns the exception's type and message, compared with torch's."""
    return textwrap.dedent(src).replace("RUN", "try:\n        BODY\n    except Exception as e:"
                                               "\n        return type(e).__name__, str(e)\n"
                                               "    return None")


@pytest.mark.parametrize("value", ["torch.ones(5)", "torch.ones(3, 4, dtype=torch.float64)",
                                   "p", "3"])
def test_assigning_a_grad_is_checked_as_torch_does(value):
    check(_message('''
import torch
def f(x):
    p = x.clone().requires_grad_()
    RUN
''').replace("BODY", f"p.grad = {value}"), X)


def test_retained_grads_accumulate_after_hooks_and_survive_detach_():
    check('''
import torch
def f(x):
    c = x.clone().requires_grad_()
    h = c * 2 + 1.0
    h.retain_grad()
    hk = h.register_hook(lambda g: g * 3)    # torch retains the gradient after the hooks
    loss = (h * h).sum()
    loss.backward(retain_graph=True)
    first = h.grad
    loss.backward()
    second = h.grad
    h.detach_()
    return first, second, h.grad, c.grad, h.requires_grad, h.grad_fn is None
''', X)


def test_autograd_grad_and_backward_inputs_apply_leaf_hooks():
    check('''
import torch
def f(x):
    a = x.clone().requires_grad_()
    b = (x * 0.5).requires_grad_()
    hk = a.register_hook(lambda g: g * 0.5)
    ga, gb = torch.autograd.grad((a * b).sum(), [a, b])
    (a * b).sum().backward(inputs=[a])
    hk.remove()
    (ga2,) = torch.autograd.grad((a * b).sum(), [a])
    return ga, gb, a.grad, b.grad, ga2
''', X)


@pytest.mark.parametrize("body", [
    "torch.autograd.grad((a * 2).sum() + b.sum(), [b, a, c])",      # c unused
    "torch.autograd.grad(c.sum(), [a])",                             # output needs no grad
    "torch.autograd.grad((a * 2).sum(), [a, c])",                    # an input needs no grad
    "(a * 2).sum().backward(inputs=[c])",
    "c.register_hook(lambda g: g)",
    "a[1:].detach_()",
    "l = (a * a).sum(); l.backward(); l.backward()",
])
def test_errors_have_torchs_type_and_message(body):
    check(_message('''
import torch
def f(x):
    a = x.clone().requires_grad_()
    b = (x * 2).requires_grad_()
    c = x.clone()
    RUN
''').replace("BODY", body), X)


def test_a_second_backward_through_a_pylayer_is_refused_not_a_crash(tmp_path):
    """Paddle bug 13 (docs/memory-model.md): the facade's expand is a PyLayer; torch runs this;
    the facade raises its RuntimeError, where Paddle alone segfaults.  In a child process under
    glibc's heap checks, so a regression fails this test instead of killing the run."""
    script = tmp_path / "second.py"
    script.write_text(textwrap.dedent('''
        import torchproxy
        torchproxy.enable(scope=None)
        import torch
        a = torch.linspace(-1.0, 1.3, 12).reshape(3, 4).requires_grad_()
        loss = a.unsqueeze(0).expand(2, 3, 4).tanh().sum()
        loss.backward(retain_graph=True)
        try:
            loss.backward()
        except RuntimeError as e:
            assert str(e).startswith("torchproxy: a second backward"), e
            print("refused")
        g = torch.autograd.grad(a.expand(2, 3, 4).sum(), [a], retain_graph=True)[0]
        (a.expand(2, 3, 4).sum() * 0).backward()   # graphs of their own: not refused
        print("ok", float(g.sum()))
    '''))
    from tests.memory.fuzz import child_env  # MALLOC_CHECK_=3 with libc_malloc_debug
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    out = subprocess.run([sys.executable, str(script)], env=child_env(165), cwd=root,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-3000:]
    assert out.stdout.split() == ["refused", "ok", "24.0"], out.stdout


def test_a_leaf_turned_off_after_the_forward_gets_no_gradient():
    check('''
import torch
def f(x):
    a = x.clone().requires_grad_()
    b = (x * 2).requires_grad_()
    c = (x * 3).requires_grad_()
    (a * b).sum().backward()
    loss = (a * b * c).sum()
    b.requires_grad_(False)      # torch's AccumulateGrad skips it: b.grad stays as it was
    c.requires_grad = False      # and c.grad stays None
    loss.backward()
    return a.grad, b.grad, c.grad is None, b.requires_grad
''', X)


def test_a_saved_tensor_modified_in_place_raises_torchs_error():
    check(_message('''
import torch
def f(x):
    a = x.clone().requires_grad_()
    loss = (a[1:] ** 2).mean()
    loss.backward(retain_graph=True)
    RUN
''').replace("BODY", "with torch.no_grad():\n            a.mul_(0.5)\n        loss.backward()"
             ).replace("return type(e).__name__, str(e)", "return type(e).__name__, str(e)[:70]"),
          X)


@pytest.mark.parametrize("new", ["p.data * 2", "torch.ones(5)"])
def test_assigning_data_keeps_the_gradient(new):
    check(f'''
import torch
def f(x):
    p = torch.nn.Parameter(x.clone())
    (p * p).sum().backward()
    g = p.grad
    p.data = {new}               # Paddle 2.6's setter dropped p.grad
    return g, p.grad, g is p.grad, p.detach(), p.requires_grad
''', X)


def test_a_turned_off_leaf_keeps_an_assigned_gradient_written_since():
    check('''
import torch
def f(x):
    a = x.clone().requires_grad_()
    b = (x * 2).requires_grad_()
    b.grad = torch.ones(3, 4) * 0.5
    b.requires_grad_(False)
    b.grad.add_(1.0)             # into the assigned tensor: the next backward must keep it
    (a * a).sum().backward()
    return a.grad, b.grad
''', X)
