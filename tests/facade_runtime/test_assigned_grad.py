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


@pytest.mark.parametrize("set_to_none", [True, False])
@pytest.mark.parametrize("owner", ["optimizer", "module"])
def test_zero_grad_clears_an_assigned_grad(set_to_none, owner):
    """A training loop that once assigned ``p.grad`` (a preallocated buffer) and then calls
    ``zero_grad`` each step: torch's set_to_none forgets the buffer, set_to_none=False zeroes it
    in place; the next backward must not start from the old values."""
    check(f'''
import torch
def f(x):
    lin = torch.nn.Linear(3, 2)
    with torch.no_grad():
        lin.weight.copy_(torch.linspace(-1, 1, 6).reshape(2, 3))
        lin.bias.zero_()
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    buf = torch.full((2, 3), 5.0)
    lin.weight.grad = buf
    out = []
    for _ in range(2):
        {"opt" if owner == "optimizer" else "lin"}.zero_grad(set_to_none={set_to_none})
        out.append(lin.weight.grad is None)
        lin(x).pow(2).sum().backward()
        out.append(lin.weight.grad.clone())
        opt.step()
    return out, buf, lin.weight.detach()
''', X)


def test_grad_cleared_by_paddle_code_is_none():
    """Unscoped Paddle code clearing the gradient (``clear_gradient``) ends the assignment:
    the facade's ``x.grad`` is None then, and the next backward does not start from the old
    buffer's values (torch has no such path; the facade must not resurrect a cleared grad)."""
    import difftest
    m = difftest.load('''
import torch
def assign(x):
    x.grad = torch.full((4, 3), 7.0)
def grad(x):
    return x.grad
def backward(x):
    (x * 2).sum().backward()
''', scoped=True)
    import paddle
    x = paddle.to_tensor(X, stop_gradient=False)
    m.assign(x)
    x.clear_gradient(False)          # Paddle's own, outside the scope
    assert m.grad(x) is None
    m.backward(x)
    np.testing.assert_array_equal(m.grad(x).numpy(), np.full((4, 3), 2.0, "float32"))


def test_parameters_setattr_is_paddles_again_after_uninstall_and_outside_the_scope():
    """Paddle 3.x's EagerParamBase.__setattr__ is replaced while the facade is installed (so a
    scoped ``p.grad = t`` reaches torch's setter) and put back exactly by uninstall(); unscoped
    code keeps Paddle's setter (a copy) all along."""
    import difftest
    import paddle
    from torchproxy.facade import tensor as tensor_mod
    from torchproxy.paddle_shims import EagerParamBase
    difftest.load("def f(): pass", scoped=True)   # the session's facade installed
    own = "__setattr__" in EagerParamBase.__dict__
    installed = EagerParamBase.__dict__.get("__setattr__")
    tensor_mod.uninstall()
    try:
        paddles = EagerParamBase.__dict__.get("__setattr__")
        assert (paddles is not None) == own
        if own:  # Paddle 3.x
            assert installed.__module__ == "torchproxy.facade.tensor"
            assert paddles.__module__ == "paddle.base.framework"
    finally:
        tensor_mod.install()
    again = EagerParamBase.__dict__.get("__setattr__")
    assert (again.__module__ == "torchproxy.facade.tensor") if own else again is None
    p = paddle.create_parameter([2], "float32")
    g = paddle.ones([2])
    p.grad = g                     # here: unscoped, Paddle's setter
    g.add_(paddle.ones([2]))
    np.testing.assert_array_equal(p.grad.numpy(), [1.0, 1.0])  # Paddle copied it


def test_clip_optimizers_and_lbfgs_use_the_assigned_tensor():
    """clip_grad_norm_, the optimizers' step and LBFGS read and write the tensor assigned to
    ``.grad`` (and what was written into it since), as torch's do: facade code reading
    Paddle's own ``p.grad`` saw a stale copy, so clipping never reached the user's tensor."""
    check("""
import torch
def f(x):
    p = torch.zeros(3, requires_grad=True)
    q = torch.nn.Parameter(torch.ones(3))
    p.grad = x.clone()
    q.grad = x.clone() * 2
    p.grad.mul_(3)                      # written into after the assignment
    total = torch.nn.utils.clip_grad_norm_([p, q], 1.0)
    clipped = (p.grad.clone(), q.grad.clone())
    opt = torch.optim.SGD([p, q], lr=0.5, momentum=0.9)
    opt.step()
    q.grad.zero_()
    opt.step()
    return total, clipped, p.detach().clone(), q.detach().clone()
""", np.array([3.0, 4.0, 12.0], np.float32))


def test_lbfgs_reads_the_assigned_tensor():
    check("""
import torch
def f(x):
    p = torch.nn.Parameter(torch.zeros(3))
    opt = torch.optim.LBFGS([p], lr=0.1, max_iter=3)
    def closure():
        opt.zero_grad()
        loss = ((p - x) ** 2).sum()
        g = torch.autograd.grad(loss, p)[0]
        p.grad = g * 1.0                 # a closure that assigns its gradient
        return loss
    opt.step(closure)
    return p.detach().clone()
""", np.array([1.0, -2.0, 0.5], np.float32), rtol=1e-5, atol=1e-6)
