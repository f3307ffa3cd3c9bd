"""The torch.* (ATen) forms of torch.nn.functional ops vs real torch 2.13: max_pool1d/2d/3d,
max_pool1d_with_indices, avg_pool1d, adaptive_avg/max_pool1d (stride=[] meaning the kernel),
celu/selu/threshold/rrelu and their in-place forms, pdist, cosine_similarity, bilinear.
rrelu in training draws random slopes: its bounds and spread are checked, not its numbers."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

rng = np.random.default_rng(7)
X1 = rng.standard_normal((2, 3, 9)).astype("float32")
X2 = rng.standard_normal((2, 3, 6, 7)).astype("float32")
X3 = rng.standard_normal((1, 2, 4, 5, 6)).astype("float32")


@pytest.mark.parametrize("call", [
    "torch.max_pool1d(x, 2)", "torch.max_pool1d(x, 3, [])", "torch.max_pool1d(x, 3, 2, 1)",
    "torch.max_pool1d(x, kernel_size=2, stride=1, padding=1, dilation=2, ceil_mode=True)",
    "torch.max_pool1d(x[0], 4)", "torch.max_pool1d(x, 2, return_indices=True)",
    "torch.max_pool1d(x, 12)", "torch.max_pool1d_with_indices(x, 3, 2)",
    "torch.max_pool1d_with_indices(x, 2, [], 1, 1, True)",
    "torch.avg_pool1d(x, 2)", "torch.avg_pool1d(x, 3, [], 1)",
    "torch.avg_pool1d(x, 3, 2, 1, True, False)",
    "torch.avg_pool1d(x, kernel_size=4, stride=3, ceil_mode=True, count_include_pad=False)",
    "torch.adaptive_avg_pool1d(x, 4)", "torch.adaptive_max_pool1d(x, 4)",
    "torch.adaptive_max_pool1d(x, output_size=(2,))",
])
def test_pool_1d(call):
    check(f"import torch\ndef f(x):\n    return {call}", X1)


@pytest.mark.parametrize("call", [
    "torch.max_pool2d(x, 2)", "torch.max_pool2d(x, (3, 2), [], (1, 0))",
    "torch.max_pool2d(x, 3, 2, 1, 1, True)", "torch.max_pool2d(x[0], kernel_size=[2, 3])",
])
def test_pool_2d(call):
    check(f"import torch\ndef f(x):\n    return {call}", X2)


@pytest.mark.parametrize("call", ["torch.max_pool3d(x, 2)",
                                  "torch.max_pool3d(x, (2, 3, 2), [1, 2, 2], 1, ceil_mode=True)"])
def test_pool_3d(call):
    check(f"import torch\ndef f(x):\n    return {call}", X3)


def test_pool_grad():
    check("""
import torch
def f(x):
    x.requires_grad_()
    (torch.max_pool2d(x, 2).sum() + torch.avg_pool1d(x.flatten(2), 3).sum()).backward()
    return x.grad
""", X2)


A = rng.standard_normal((3, 5)).astype("float32")


@pytest.mark.parametrize("call", [
    "torch.celu(x)", "torch.celu(x, 0.5)", "torch.celu(x, alpha=2.0)", "torch.selu(x)",
    "torch.threshold(x, 0.1, -3.0)", "torch.threshold(x, threshold=0.0, value=2)",
    "torch.rrelu(x)", "torch.rrelu(x, 0.1, 0.3)", "torch.rrelu(x, 0.1, 0.3, False)",
    "torch.rrelu(x, lower=0.2, upper=0.1)", "torch.celu(x, 0.0)",
])
def test_activations(call):
    check(f"import torch\ndef f(x):\n    return {call}", A)


@pytest.mark.parametrize("call", ["torch.celu_(y)", "torch.celu_(y, 1.5)", "torch.selu_(y)",
                                  "torch.threshold_(y, 0.2, 0.0)", "torch.rrelu_(y)",
                                  "torch.rrelu_(y, 0.0, 0.5)"])
def test_activation_inplace(call):
    check(f"""
import torch
def f(x):
    y = x.clone()
    r = {call}
    return r is y, y
""", A)


def test_rrelu_training_distribution():
    # training=True: negative inputs scaled by slopes drawn from U(lower, upper), positives kept
    check("""
import torch
def f():
    x = -torch.ones(20000)
    out = []
    for fn in (torch.rrelu, torch.rrelu_):
        y = fn(x.clone(), 0.1, 0.3, True)
        s = -y
        out += [bool((s >= 0.1).all()), bool((s <= 0.3).all()), round(float(s.mean()), 2),
                round(float(s.std()), 2), bool((fn(torch.ones(5), 0.1, 0.3, True) == 1).all())]
    return out
""")


def test_rrelu_training_grad():
    check("""
import torch
def f():
    x = torch.tensor([-2.0, -1.0, 3.0], requires_grad=True)
    y = torch.rrelu(x, 0.25, 0.25, True)   # lower == upper: deterministic
    y.sum().backward()
    return y, x.grad
""")


B = rng.standard_normal((4, 3)).astype("float64")


@pytest.mark.parametrize("call", [
    "torch.pdist(x)", "torch.pdist(x, 1)", "torch.pdist(x, p=0.5)", "torch.pdist(x, float('inf'))",
    "torch.pdist(x[:1])", "torch.pdist(x[0])",
    "torch.cosine_similarity(x, x.flip(0))", "torch.cosine_similarity(x, x[:1], dim=0)",
    "torch.cosine_similarity(x, 2 * x, 1, 1e-3)", "torch.cosine_similarity(x1=x, x2=x, dim=-1)",
])
def test_distances(call):
    check(f"import torch\ndef f(x):\n    return {call}", B)


def test_bilinear():
    w = rng.standard_normal((2, 3, 4))
    check("""
import torch
def f(a, b, w, bias):
    return (torch.bilinear(a, b, w, bias), torch.bilinear(a, b, w, None),
            torch.bilinear(input1=a, input2=b, weight=w, bias=bias))
""", rng.standard_normal((5, 3)), rng.standard_normal((5, 4)), w, rng.standard_normal(2))
