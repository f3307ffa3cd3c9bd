"""torch.device: a real type; x.device / is_cuda; conversions."""
import paddle
import pytest

from difftest import check, load
from _cases import F32

CTOR = ["torch.device('cpu')", "torch.device('cuda')", "torch.device('cuda:1')",
        "torch.device('cuda', 0)", "torch.device('cuda', index=2)", "torch.device(type='cpu')",
        "torch.device('cpu', 0)", "torch.device('cpu:0')", "torch.device(torch.device('cuda:3'))",
        "torch.device('xpu:1')", "torch.device('meta')", "torch.device('gpu')",
        "torch.device('cuda:0', 1)", "torch.device('cuda', -1)", "torch.device('cuda:x')",
        "torch.device('cuda:-1')", "torch.device('')", "torch.device('cuda', '1')"]


@pytest.mark.parametrize("ctor", CTOR)
@pytest.mark.parametrize("expr", ["d", "d.type", "d.index", "str(d)", "repr(d)",
                                  "isinstance(d, torch.device)"])
def test_device_values(ctor, expr):
    check(f"import torch\ndef f():\n    d = {ctor}\n    return {expr}\n")


@pytest.mark.parametrize("expr", [
    "torch.device('cuda') == torch.device('cuda')", "torch.device('cuda') == torch.device('cuda:0')",
    "torch.device('cuda:0') == torch.device('cuda', 0)", "torch.device('cpu') == 'cpu'",
    "torch.device('cpu') != torch.device('cuda')",
    "len({torch.device('cuda:0'), torch.device('cuda', 0), torch.device('cuda')})",
    "hash(torch.device('cpu')) == hash(torch.device('cpu'))",
    "{torch.device('cpu'): 1}[torch.device('cpu')]",
    "x.device", "x.device.type", "x.device.index", "str(x.device)", "x.device == torch.device('cpu')",
    "isinstance(x.device, torch.device)", "torch.device(x.device)", "x.is_cuda", "x.is_xpu",
    "x.is_cuda or x.is_xpu",  # pytorch/examples dcgan's forward
    "x.t().device", "x[1:].device", "torch.empty(2, device=x.device).device",
    "torch.empty_like(x).device", "x.to(x.device) is x", "x.to('cpu') is x",
    "x.cpu() is x", "x.to(torch.device('cpu'), torch.float64).dtype",
    "torch.zeros(2, device='cpu').device", "torch.ones(1, device=torch.device('cpu', 0)).device",
])
def test_device_ops(expr):
    check(f"import torch\ndef f(x):\n    return {expr}\n", F32)


def test_annotations_and_pickle():
    check("""
import pickle
import torch
from typing import Optional, Union
def g(d: int | torch.device | None = None, e: Optional[Union[str, torch.device]] = None):
    return d
def f():
    d = torch.device('cuda', 1)
    return g(d), pickle.loads(pickle.dumps(d)), type(d).__name__
""")


@pytest.mark.skipif(paddle.is_compiled_with_cuda(), reason="CPU-only Paddle")
@pytest.mark.parametrize("expr", ["torch.empty(2, device='cuda')", "torch.zeros(2, device='cuda:0')",
                                  "torch.ones(2).cuda()", "torch.ones(2).to('cuda')",
                                  "torch.device(0)"])
def test_cuda_on_cpu_build_raises_like_torch(expr):
    """No GPU here: both raise the same error type (AssertionError/RuntimeError as torch)."""
    check(f"import torch\ndef f():\n    return {expr}\n")


def test_paddle_device_outside_scope_unchanged():
    x = paddle.to_tensor(F32)
    load("def f(): pass", scoped=True)  # proxy enabled
    from torchproxy.facade import tensor as facade_tensor
    if facade_tensor.policy_of("device") == "added":
        # Paddle 2.6 and 3.0 to 3.2 have no Tensor.device: the facade adds one; Paddle callers
        # may see it
        assert x.device.type == "cpu"
    else:  # Paddle's own Tensor.device (a string in 3.3) stays Paddle's outside the scope
        assert isinstance(x.device, str) and x.device == "cpu"
    assert isinstance(x.place, type(paddle.CPUPlace())) or "Place" in type(x.place).__name__
