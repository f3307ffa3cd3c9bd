"""torch's autograd anomaly mode (facade/autograd_anomaly.py) against real torch: the flags,
the two context managers and their warning, and a forward under the mode with the backward
after it (Liger-Kernel's fused linear KL-div test).  A backward run while the mode checks NaN
is not provided (NotProvidedError, tested apart)."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

X = np.linspace(-1, 1, 6, dtype="float32").reshape(2, 3)


def test_flags_and_set_anomaly_enabled():
    check('''
import torch
def f():
    seen = [(torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled())]
    torch.set_anomaly_enabled(True)
    seen.append((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
    torch.set_anomaly_enabled(True, False)
    seen.append((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
    torch.set_anomaly_enabled(False)
    seen.append((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
    return seen
''')


@pytest.mark.parametrize("call", ["torch.set_anomaly_enabled(1)",
                                  "torch.set_anomaly_enabled(True, 0)"])
def test_set_anomaly_enabled_wants_bools(call):
    check(f'''
import torch
def f():
    return {call}
''')


def test_context_managers_restore_and_warn():
    check('''
import warnings
import torch
def f():
    seen = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with torch.autograd.detect_anomaly(check_nan=False):
            seen.append((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
            with torch.autograd.set_detect_anomaly(False):
                seen.append(torch.is_anomaly_enabled())
            seen.append(torch.is_anomaly_enabled())
        seen.append((torch.is_anomaly_enabled(), torch.is_anomaly_check_nan_enabled()))
        torch.autograd.set_detect_anomaly(True)  # as a function: stays set
        seen.append(torch.is_anomaly_enabled())
        torch.autograd.set_detect_anomaly(False)
    seen.append([(str(x.message), x.category.__name__) for x in w])
    seen.append(torch.is_anomaly_enabled())
    return seen
''')


def test_forward_under_the_mode_backward_after():
    check('''
import torch
def f(x):
    x = x.clone().requires_grad_(True)
    with torch.autograd.detect_anomaly():
        y = (x.exp() * x).sum()
    y.backward()
    return y, x.grad, torch.is_anomaly_enabled()
''', X)


def test_backward_without_nan_check_inside_the_mode():
    check('''
import torch
def f(x):
    x = x.clone().requires_grad_(True)
    with torch.autograd.detect_anomaly(check_nan=False):
        y = (x * x).sum()
        g, = torch.autograd.grad(y, x)
    return g
''', X)


def test_nan_checked_backward_is_not_provided():
    import paddle  # noqa: F401
    import torchproxy
    from torchproxy.errors import NotProvidedError
    torchproxy.enable(scope={__name__})
    try:
        import torch
        x = torch.ones(3, requires_grad=True)
        with pytest.warns(UserWarning, match="Anomaly Detection has been enabled"):
            mode = torch.autograd.detect_anomaly()
        with mode:
            y = (x * 2).sum()
            with pytest.raises(NotProvidedError, match="check_nan=True"):
                y.backward()
        assert not torch.is_anomaly_enabled()
        y.backward()  # after the mode: as torch
        assert x.grad.tolist() == [2.0, 2.0, 2.0]
    finally:
        torchproxy.disable()
