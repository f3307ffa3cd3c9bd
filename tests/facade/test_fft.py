"""torch.fft vs real torch 2.13: every transform with n/s/dim/norm, integer/float64/complex
inputs (torch's result dtypes), out=, gradients through the transforms, fftshift/fftfreq, and
torch's errors (0-d input, repeated dims, bad n, bad norm, complex into rfft, CPU float16)."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X3 = RNG.standard_normal((3, 4, 5)).astype("float32")
XC = (RNG.standard_normal((4, 6)) + 1j * RNG.standard_normal((4, 6))).astype("complex64")

ONE_D = ["fft", "ifft", "rfft", "irfft", "hfft", "ihfft"]
MULTI = ["fft2", "ifft2", "rfft2", "irfft2", "hfft2", "ihfft2",
         "fftn", "ifftn", "rfftn", "irfftn", "hfftn", "ihfftn"]


@pytest.mark.parametrize("name", ONE_D)
def test_one_d(name):
    check(f"""
import torch
def f(x):
    F = torch.fft.{name}
    # "+ 0": torch's ifft/ihfft of a real input can be a conjugate view (numpy() refuses it)
    return [t + 0 for t in (F(x), F(x, n=7), F(x, n=3, dim=0), F(x, dim=1, norm="ortho"),
            F(x, norm="forward"), F(x.double(), norm="backward"), F((x * 10).long()),
            F(x, n=4, dim=-2))]
""", X3, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", MULTI)
def test_multi_d(name):
    check(f"""
import torch
def f(x):
    F = torch.fft.{name}
    return [t + 0 for t in (F(x), F(x, s=(3, 6)), F(x, dim=(0, 2)),
            F(x, s=(2, -1), dim=(2, 0), norm="ortho"), F(x.double(), norm="forward"),
            F(x, dim=(1,)), F(x.int()))]
""", X3, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["fft", "ifft", "irfft", "hfft", "fft2", "ifftn", "irfftn",
                                  "hfft2"])
def test_complex_input(name):
    check(f"""
import torch
def f(x):
    return torch.fft.{name}(x) + 0, torch.fft.{name}(x.to(torch.complex128)) + 0
""", XC, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("name", ["fft", "rfft", "irfft", "fftn", "rfft2", "hfftn"])
def test_gradient(name):
    check(f"""
import torch
def f(x):
    x = x.clone().requires_grad_(True)
    y = torch.fft.{name}(x)
    y = y.abs() if y.is_complex() else y
    (y * torch.arange(y.numel()).reshape(y.shape)).sum().backward()
    return x.grad
""", X3, rtol=1e-4, atol=1e-4)


def test_out_shift_freq():
    check("""
import torch
def f(x):
    o = torch.empty(0, dtype=torch.complex64)
    r = torch.fft.fft(x, out=o)
    b = x > 0
    return [r is o, o, torch.fft.fftshift(x), torch.fft.ifftshift(x, dim=1),
            torch.fft.fftshift(x, dim=(0, 2)), torch.fft.fftshift(b), torch.fft.ifftshift(b),
            torch.fft.fftfreq(7), torch.fft.fftfreq(8, d=0.3, dtype=torch.float64),
            torch.fft.rfftfreq(9, 2.0), torch.fft.rfftfreq(4)]
""", X3)


@pytest.mark.parametrize("call", [
    "torch.fft.fft(torch.tensor(1.0))", "torch.fft.fftn(torch.tensor(1.0), dim=(0,))",
    "torch.fft.rfft2(torch.tensor(1.0), dim=(0,))", "torch.fft.fft(x, n=0)",
    "torch.fft.irfft(x[:, :1])", "torch.fft.fft(x, norm='bad')", "torch.fft.fftn(x, dim=(0, 0))",
    "torch.fft.fftn(x, s=(2,), dim=(0, 1))", "torch.fft.rfft(x.to(torch.complex64))",
    "torch.fft.fft(x.half())", "torch.fft.fft(x, dim=3)",
])
def test_errors(call):
    check(f"""
import torch
def f(x):
    return {call}
""", X3[0])
