"""torch.signal.windows vs real torch 2.13: every window, symmetric and periodic, lengths 0..7,
both float dtypes, the keyword parameters, requires_grad, and torch's argument errors."""
import pytest

from difftest import check

pytest.importorskip("torch")

WINDOWS = {
    "bartlett": "", "blackman": "", "cosine": "", "hamming": "", "hann": "", "nuttall": "",
    "exponential": "tau=0.7", "gaussian": "std=0.8", "kaiser": "beta=5.0",
    "general_cosine": "a=[0.46, 0.23, 0.31]", "general_hamming": "alpha=0.6",
}


@pytest.mark.parametrize("name", sorted(WINDOWS))
def test_window_values(name):
    kw = WINDOWS[name]
    extra = kw + ", " if kw else ""
    check(f"""
import torch
def f():
    out = []
    for M in range(8):
        for sym in (True, False):
            out.append(torch.signal.windows.{name}(M, {extra}sym=sym))
            out.append(torch.signal.windows.{name}(M, {extra}sym=sym, dtype=torch.float64))
    return out
""")


def test_window_defaults_and_grad():
    check("""
import torch
from torch.signal import windows
def f():
    return [windows.kaiser(6), windows.gaussian(5), windows.exponential(4, center=1.0, sym=False),
            windows.hann(5, requires_grad=True), windows.general_cosine(4, a=(1.0,))]
""")


@pytest.mark.parametrize("call", [
    "windows.hann(-1)", "windows.hann(3, dtype=torch.int64)", "windows.hann(3, dtype=torch.float16)",
    "windows.exponential(3, tau=-1)", "windows.exponential(3, center=1.0)",
    "windows.gaussian(3, std=0)", "windows.kaiser(3, beta=-1)",
    "windows.general_cosine(3, a=None)", "windows.general_cosine(3, a=[])",
])
def test_window_errors(call):
    check(f"""
import torch
from torch.signal import windows
def f():
    return {call}
""")
