"""torch.hann/hamming/blackman/bartlett/kaiser_window (facade/ops_windows.py) vs real torch
2.13: lengths 0..9, periodic and symmetric, every float dtype (half precision within its ulp:
torch computes in the dtype, the facade in float64 then rounds), the extra parameters
(positional and keyword), requires_grad, and torch's errors."""
import pytest

from difftest import check

pytest.importorskip("torch")

WINDOWS = {"hann_window": "", "hamming_window": "", "blackman_window": "",
           "bartlett_window": "", "kaiser_window": ""}


@pytest.mark.parametrize("name", sorted(WINDOWS))
@pytest.mark.parametrize("dtype,tol", [("None", 1e-6), ("torch.float64", 1e-12),
                                       ("torch.float16", 1e-3), ("torch.bfloat16", 8e-3)])
def test_window_values(name, dtype, tol):
    check(f"""
import torch
def f():
    out = []
    for L in range(10):
        out.append(torch.{name}(L, dtype={dtype}))
        out.append(torch.{name}(L, False, dtype={dtype}))
        out.append(torch.{name}(L, periodic=True, dtype={dtype}))
    return out
""", rtol=tol, atol=tol)


def test_window_parameters():
    check("""
import torch
def f():
    return [torch.hamming_window(7, True, 0.5, 0.4), torch.hamming_window(6, False, alpha=0.6),
            torch.hamming_window(6, periodic=False, alpha=0.6, beta=0.3),
            torch.kaiser_window(6, False, 5.0), torch.kaiser_window(9, True, beta=0.0),
            torch.kaiser_window(8, periodic=True, beta=3),
            torch.hann_window(5, requires_grad=True), torch.bartlett_window(4, device="cpu")]
""")


def test_window_default_dtype_follows():
    check("""
import torch
def f():
    torch.set_default_dtype(torch.float64)
    try:
        return torch.hann_window(4), torch.kaiser_window(3).dtype
    finally:
        torch.set_default_dtype(torch.float32)
""")


@pytest.mark.parametrize("call", [
    "torch.hann_window(-1)", "torch.kaiser_window(-3)", "torch.blackman_window(4, dtype=torch.int64)",
    "torch.bartlett_window(4, dtype=torch.bool)", "torch.hamming_window(4, dtype=torch.complex64)",
    "torch.hann_window(4.0)", "torch.kaiser_window(9, beta=0.0)", "torch.hamming_window(5, alpha=0.5)",
    "torch.hann_window(3, dtype=torch.int32, requires_grad=True)",
])
def test_window_errors(call):
    check(f"""
import torch
def f():
    return {call}
""")
