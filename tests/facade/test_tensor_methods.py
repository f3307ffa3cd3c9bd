"""Tensor methods called from scoped code get torch semantics (differential)."""
import numpy as np
import pytest

from difftest import check
from _cases import EMPTY, F16, F32, F32_3D, I64, VEC

QUERIES = ["x.size()", "x.size(0)", "x.size(-1)", "x.shape", "x.stride()", "x.stride(0)", "x.stride(-1)",
           "x.numel()", "x.dim()", "x.ndim", "x.element_size()", "x.is_contiguous()", "x.nelement()",
           "x.ndimension()", "x.data_ptr() != 0 or x.numel() == 0", "x.is_cuda", "x.item() if x.numel() == 1 else len(x)",
           "x.T.stride()", "x.t().is_contiguous()" , "x.contiguous().is_contiguous()",
           "x.type()", "x.stride(5)", "x.size(9)"]


@pytest.mark.parametrize("expr", QUERIES)
@pytest.mark.parametrize("x", [F32, F16, I64, EMPTY, F32_3D, VEC], ids=["f32", "f16", "i64", "empty", "3d", "vec"])
def test_queries(expr, x):
    if ("t()" in expr or ".T" in expr) and x.ndim != 2:
        pytest.skip("t() needs <= 2-D")
    if "stride" in expr and x.size == 0:
        pytest.skip("from_numpy of a 0-size array has numpy's odd strides: test_empty_strides")
    check(f"import torch\ndef f(x):\n    return {expr}\n", x)


@pytest.mark.parametrize("shape", ["0, 4", "3, 0", "2, 0, 3", "0", "1, 0, 1"])
def test_empty_strides(shape):
    check(f"import torch\ndef f():\n    x = torch.empty({shape})\n    return x.stride(), x.stride(0), x.is_contiguous()\n")


PADDLE2 = __import__("paddle").__version__.startswith("2.")
# views Paddle 2.6 cannot express (its as_strided needs contiguous input; no dtype views)
NEEDS_PADDLE3 = {"x.t().view(4, 3)", "x.t().unsqueeze(0).view(4, 3)", "x[:, :2].view(3, 2)",
                 "x.view(2, 6).t().view(6, 2)", "x.t()[1:].view(-1, 3)", "x.view(torch.float32)"}

SHAPE = ["x.view(-1)", "x.view(4, 3)", "x.view((2, -1))", "x.view([12])", "x.view(x.size())",
         "x.view(torch.float32)", "x.reshape(-1)", "x.reshape(4, 3)", "x.reshape((2, 6))", "x.reshape(5, -1)",
         "x.view(5, -1)", "x.view(-1, -1)", "x.transpose(0, 1)", "x.transpose(-1, -2).contiguous()",
         "x.transpose(1, 0).stride()", "x.permute(1, 0)", "x.permute((1, 0)).stride()",
         "x.expand(2, 3, 4)", "x.expand(-1, 4)", "x.unsqueeze(0).expand(3, -1, -1)", "x.expand(3, 5)",
         "x.flatten()", "x.flatten(1)", "x.flatten(0, 1)", "x.unsqueeze(0).shape", "x.unsqueeze(-1).shape",
         "x.unsqueeze(1).squeeze(1)", "x.squeeze()", "x.squeeze(0)", "x.unsqueeze(0).squeeze(0).stride()",
         "x.split(2)", "x.split(1, dim=1)", "x.split([1, 2])", "x.split([3, 1], -1)", "x.split(5)",
         "x.chunk(2, 1)", "x.unbind(0)", "x.narrow(1, 0, 2)", "x.t()", "x.T", "x.clone()", "x.detach()",
         "x.repeat(2, 1)", "x.repeat(1, 2, 1)", "x.masked_fill(x > 0, 0)", "x.index_select(1, torch.tensor([0, 2]))",
         "x.gather(1, torch.tensor([[0], [1], [2]]))", "x.where(x > 0, torch.zeros(()))",
         "x.view(3, 2, 2)[:, 1].stride()", "x[:, 1:3].stride()", "x[:, 1:3].is_contiguous()",
         "x[1].stride()", "x.t().view(-1)", "x.t().view(4, 3)", "x.t().reshape(-1)",
         "x.t().unsqueeze(0).view(4, 3)", "x[:, :2].view(3, 2)", "x[:, :2].view(6)",
         "x.view(2, 6).t().view(6, 2)", "x.t()[1:].view(-1, 3)"]


@pytest.mark.parametrize("expr", SHAPE)
@pytest.mark.parametrize("x", [F32, I64], ids=["f32", "i64"])
def test_shape_methods(expr, x):
    if PADDLE2 and expr in NEEDS_PADDLE3:
        pytest.skip("gaps.toml: view of a non-contiguous tensor / dtype view need Paddle >= 3")
    check(f"import torch\ndef f(x):\n    return {expr}\n", x)


CASTS = ["x.float()", "x.half()", "x.bfloat16()", "x.double()", "x.int()", "x.long()", "x.bool()",
         "x.short()", "x.char()", "x.byte()", "x.float() is x", "x.long() is x", "x.half() is x",
         "x.to(torch.float16)", "x.to(torch.float32) is x", "x.to(torch.float32, copy=True) is x",
         "x.to(dtype=torch.int32)", "x.to('cpu', torch.float64)", "x.to(device='cpu', dtype=torch.float16)",
         "x.to(torch.device('cpu'))", "x.to(x)", "x.to(torch.zeros(1, dtype=torch.int8))",
         "x.to(torch.float64, non_blocking=True)", "x.to('cpu', non_blocking=True) is x",
         "x.to(None, torch.float16)", "x.to(other=x)", "x.type(torch.float16)", "x.type('torch.DoubleTensor')",
         "x.type(torch.int64).type()", "x.type_as(torch.zeros(1, dtype=torch.float64))", "x.cpu()", "x.float().requires_grad"]


@pytest.mark.parametrize("expr", CASTS)
@pytest.mark.parametrize("x", [F32, F16, I64], ids=["f32", "f16", "i64"])
def test_casts(expr, x):
    check(f"import torch\ndef f(x):\n    return {expr}\n", x)


REDUCE = ["x.sum()", "x.sum(0)", "x.sum(dim=1)", "x.sum(dim=-1, keepdim=True)", "x.sum((0, 1))",
          "x.sum(dtype=torch.float64)", "x.mean()", "x.mean(1)", "x.mean(dim=0, keepdim=True)",
          "x.max()", "x.max(1)", "x.max(dim=0)", "x.max(dim=-1, keepdim=True)", "x.max(1).values",
          "x.max(1).indices", "x.max(1)[0]", "x.min(0)", "x.min()", "x.min(dim=1).indices",
          "x.max(torch.zeros(4))", "x.amax(1)", "x.argmax()", "x.argmax(dim=1)", "x.argmin(0)",
          "x.all()", "x.any(1)", "x.cumsum(1)", "x.softmax(-1)", "x.log_softmax(1)", "x.sort(1)",
          "x.topk(2)", "x.topk(1, dim=0).indices", "x.clamp(min=0)", "x.clamp(-0.5, 0.5)", "x.clip(max=0)",
          "x.add(1)", "x.add(x, alpha=2)", "x.sub(x)", "x.mul(2)", "x.div(2)", "x.prod(1)",
          "x.var(1)", "x.std()", "x.norm()", "x.allclose(x)", "x.equal(x)", "x.logsumexp(1)"]


@pytest.mark.parametrize("expr", REDUCE)
@pytest.mark.parametrize("x", [F32, F16, F64 := F32.astype("float64")], ids=["f32", "f16", "f64"])
def test_reduce_methods(expr, x):
    check(f"import torch\ndef f(x):\n    return {expr}\n", x, rtol=5e-3, atol=5e-3)


INPLACE = ["x.zero_()", "x.fill_(3)", "x.fill_(torch.tensor(2.5))", "x.copy_(torch.ones(3, 4))",
           "x.copy_(torch.arange(4))", "x.copy_(torch.ones(4, dtype=torch.float64))",
           "x[:, 1:3].zero_()", "x[:, 1:3].fill_(7)", "x[:, 1:3].copy_(torch.ones(3, 2))",
           "x.t().copy_(torch.arange(12.0).view(4, 3))", "x[1].copy_(torch.arange(4))",
           "x.fill_(torch.ones(2))"]


@pytest.mark.parametrize("expr", INPLACE)
def test_inplace_through_views(expr):
    """In-place writes land in the base tensor, as torch's do (the return value is self)."""
    check(f"import torch\ndef f(x):\n    r = {expr}\n    return x, r\n", F32)


def test_inplace_returns_self():
    check("""
import torch
def f(x):
    return x.zero_() is x, x.fill_(1) is x, x.copy_(x) is x
""", F32)


def test_integer_casts_leave_the_graph():
    """torch: an integer or bool cast never requires grad, so nothing flows back through it
    (Paddle's cast passed the gradient on: x.long() added 1 per element to x.grad)."""
    x = np.array([1.5, -2.5, 3.0], dtype="float32")
    check("""
import torch
def f(v):
    x = v.clone().requires_grad_(True)
    casts = [x.long(), x.int(), x.bool(), x.to(torch.int64), x.to(dtype=torch.int16),
             x.type(torch.int32), x.double()]
    flags = [c.requires_grad for c in casts]
    (x * 2 + casts[0].float() + casts[3].float() + casts[5].float() + casts[6].float()).sum().backward()
    return flags, x.grad
""", x)


def test_grad_fn_is_none_exactly_where_torchs_is():
    from difftest import load
    src = """
import torch
def f():
    x = torch.ones(2, requires_grad=True)
    z = torch.ones(2)
    y = x * 2
    out = [x.grad_fn is None, z.grad_fn is None, (z * 2).grad_fn is None, y.grad_fn is None,
           y.detach().grad_fn is None, y.sum().grad_fn is None]
    with torch.no_grad():
        out.append((x * 2).grad_fn is None)
    return out
"""
    assert load(src, scoped=True).f() == load(src, scoped=False).f()
