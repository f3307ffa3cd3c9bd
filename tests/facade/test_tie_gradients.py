"""Gradients at the points where an activation or a reduction has a kink or a tie: exactly 0
for relu/elu, the bounds of hardtanh/relu6/clamp, equal maxima for max(dim).  Random test data
(OpInfo's included) almost never lands there, but real programs do (zero padding, values a
previous relu or clamp set to its bound).  Found by session 39's probes: torch.relu's gradient at
0 was 0.5 on Paddle 3.3 (paddle.maximum's tie), hardtanh/relu6 passed the gradient at their
bounds (paddle.clip), elu/celu/selu gave 0.5 (3.3) or 0 (2.6) at 0, and max(dim)/min(dim)
split it among tied maxima where torch gives it to the returned index."""
import paddle
import pytest

from difftest import check

POINTS = "[-6.0, -1.0, -0.5, 0.0, 0.5, 1.0, 6.0, 7.0]"

CASES = {
    "torch.relu": "torch.relu(x)",
    "Tensor.relu": "x.relu()",
    "F.relu": "F.relu(x)",
    "nn.ReLU": "torch.nn.ReLU()(x)",
    "F.relu6": "F.relu6(x)",
    "nn.ReLU6": "torch.nn.ReLU6()(x)",
    "F.hardtanh": "F.hardtanh(x)",
    "F.hardtanh_bounds": "F.hardtanh(x, -0.5, 6.0)",
    "F.elu": "F.elu(x)",
    "F.elu_alpha": "F.elu(x, 0.3)",
    "F.celu": "F.celu(x, 1.5)",
    "F.selu": "F.selu(x)",
    "F.leaky_relu": "F.leaky_relu(x, 0.2)",
    "F.threshold": "F.threshold(x, 0.5, -2.0)",
    "torch.clamp_min": "torch.clamp(x, min=0.0)",
    "torch.clamp": "x.clamp(-1.0, 1.0)",
    "torch.maximum": "torch.maximum(x, torch.zeros(8))",
    "max_dim": "torch.stack([x, x.flip(0), torch.zeros(8)]).max(0).values",
    "min_dim_keepdim": "torch.stack([x, torch.zeros(8)], 1).min(1, keepdim=True)[0]",
    "max_dim_row": "x.reshape(2, 4).clamp(0, 1).max(1).values",
}
# Paddle 2.6's clip and maximum drop the gradient at their bounds and ties (3.x: torch's)
PADDLE_2 = paddle.__version__.startswith("2.")
KNOWN_26 = {"torch.clamp_min", "torch.clamp", "torch.maximum", "max_dim_row"}  # (via clamp)


@pytest.mark.parametrize("name", list(CASES))
def test_gradient_at_kinks_and_ties(request, name):
    if PADDLE_2 and name in KNOWN_26:
        request.applymarker(pytest.mark.xfail(strict=True, reason="Paddle 2.6: clip/maximum's "
                                              "gradient at bounds and ties (gaps.toml)"))
    check(f"""
import torch
F = torch.nn.functional
def f():
    x = torch.tensor({POINTS}, requires_grad=True)
    y = {CASES[name]}
    w = torch.arange(1.0, y.numel() + 1).reshape(y.shape)
    (y * w).sum().backward()
    return y, x.grad
""")


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "float16", "bfloat16", "float32",
                                   "bool"])
@pytest.mark.parametrize("expr", ["torch.relu(x)", "x.relu()", "F.relu(x)", "torch.nn.ReLU()(x)",
                                  "torch.nn.ReLU(inplace=True)(x)", "F.relu(x, inplace=True)"])
def test_every_relu_entry_point_takes_every_dtype(dtype, expr):
    # one relu serves them all (ops._relu): nn.ReLU of an integer tensor raised Paddle's
    # missing-kernel error while torch.relu worked; bool raises on both sides (error type)
    check(f"""
import torch
F = torch.nn.functional
def f():
    x = (torch.arange(-3, 3) * (1 if torch.{dtype} != torch.bool else 0)).to(torch.{dtype})
    return {expr}
""")
