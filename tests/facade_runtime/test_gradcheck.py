"""torch.autograd.gradcheck (facade/autograd_gradcheck.py, torch's slow mode) against real torch:
what it returns, what it raises (type and message) and warns, on the same functions and
float64 inputs; Liger-Kernel's float64 recovery test is the client."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

from difftest import check, run

pytest.importorskip("torch")

X = np.linspace(-1.5, 2.0, 12).reshape(3, 4)
W = np.linspace(0.3, -0.9, 28).reshape(7, 4)

FUNCS = """
import torch
class Wrong(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 3
class NotUndefinedSafe(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, g):
        return g * 2 + 1
def recover(x, weight):  # Liger's test_float64_recovery_reference_values_and_gradients
    target = torch.tensor([1, 0, 6])
    ids = torch.tensor([0, 3, 3])
    logits = x @ weight.t() / 0.7
    anchor = logits.log_softmax(-1).gather(1, target[:, None])
    return anchor + logits[:, ids] - logits.gather(1, target[:, None])
"""


def test_passing_functions_return_true():
    check(FUNCS + """
def f(x, w):
    x = x.clone().requires_grad_(True)
    w = w.clone().requires_grad_(True)
    two = lambda a, b: (a.sin() * 2, (a @ b.t()).tanh().sum(0), torch.arange(3))
    return (torch.autograd.gradcheck(recover, (x, w)),
            torch.autograd.gradcheck(two, (x, w)),
            torch.autograd.gradcheck(lambda a: a.exp().mean(), x),
            torch.autograd.gradcheck(lambda a, b: a * b.sum(), [x, w.detach()]))
""", X, W)


@pytest.mark.parametrize("raise_exception", [True, False])
def test_a_wrong_backward_fails_with_torchs_message(raise_exception):
    src = FUNCS + f"""
def f(x):
    x = x.clone().requires_grad_(True)
    try:
        return torch.autograd.gradcheck(Wrong.apply, (x,), raise_exception={raise_exception})
    except RuntimeError as e:
        return type(e).__name__, type(e).__module__, str(e).split("numerical:")[0]
"""
    check(src, X[0, :3].copy())


def test_backward_not_handling_undefined_grads_fails():
    check(FUNCS + """
def f(x):
    x = x.clone().requires_grad_(True)
    try:
        return torch.autograd.gradcheck(NotUndefinedSafe.apply, (x,))
    except RuntimeError as e:
        return str(e)
""", X[0, :3].copy())


def test_no_input_requiring_grad_is_a_value_error():
    check("""
import torch
def f(x):
    return torch.autograd.gradcheck(lambda a: a * 2, (x,))
""", X)


def test_single_precision_inputs_warn_as_torch():
    src = """
import torch, warnings
def f(x):
    x = x.clone().requires_grad_(True)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        torch.autograd.gradcheck(lambda a: a * 2, (x,), eps=1e-3, atol=1e-2)
    return [str(m.message) for m in w if m.category is UserWarning]
"""
    check(src, X.astype(np.float32))


def test_options_not_provided_are_named():
    from torchproxy.errors import NotProvidedError
    src = """
import torch
def f(x):
    x = x.clone().requires_grad_(True)
    return torch.autograd.gradcheck(lambda a: a * 2, (x,), fast_mode=True)
"""
    with pytest.raises(NotProvidedError, match="fast_mode"):
        run(src, X, scoped=True)
