"""torch.nn.grad (a convolution's gradient with respect to its input or its weight, as Liger's
multi-token attention backward calls it) vs real torch 2.13: 1-d, 2-d and 3-d, strides,
padding, dilation and groups, under no_grad, and a grad_output of the wrong shape."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

CASES = {
    "1d": (1, (2, 4, 9), (6, 2, 3), "stride=2, padding=1, groups=2"),
    "2d": (2, (2, 3, 7, 8), (4, 3, 3, 2), "stride=(1, 2), padding=(1, 0), dilation=(2, 1)"),
    "3d": (3, (1, 2, 5, 5, 4), (3, 2, 2, 3, 2), "stride=1, padding=1"),
}


@pytest.mark.parametrize("case", sorted(CASES))
def test_conv_input_and_weight_gradients(case):
    nd, xs, ws, kw = CASES[case]
    rs = np.random.RandomState(nd)
    x, w = rs.randn(*xs).astype("float32"), rs.randn(*ws).astype("float32")
    check(f"""
import torch
import torch.nn.functional as F
def f(x, w):
    out = F.conv{nd}d(x, w, {kw})
    go = torch.linspace(-1, 1, out.numel()).reshape(out.shape)
    gi = torch.nn.grad.conv{nd}d_input(x.shape, w, go, {kw})
    gw = torch.nn.grad.conv{nd}d_weight(x, w.shape, go, {kw})
    with torch.no_grad():
        gi2 = torch.nn.grad.conv{nd}d_input(list(x.shape), w, go, {kw})
    return [gi, gw, gi2, str(gw.dtype), gi.requires_grad]
""", x, w, rtol=1e-5, atol=1e-5)


def test_grad_output_of_the_wrong_shape_raises_as_torch():
    rs = np.random.RandomState(0)
    check("""
import torch
def f(x, w):
    return torch.nn.grad.conv2d_weight(x, w.shape, torch.ones(1, 2, 3, 3))
""", rs.randn(1, 3, 6, 6).astype("float32"), rs.randn(4, 3, 3, 3).astype("float32"))
