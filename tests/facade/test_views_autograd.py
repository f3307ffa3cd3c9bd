"""torch's memory model for view ops, and autograd through views, against real torch.

Every case runs one torch snippet under real torch and under the facade (tests/difftest.py) and
compares: each view's shape, ``stride()``, ``storage_offset()`` and ``data_ptr()`` relative to
its base, ``is_contiguous()``, the gradient that reaches the leaf, and the base's values after a
write through the view (or the exception torch raises for that write).  The cases run in child
processes with glibc's heap checks (tests/facade/_child_check.py): a backward that writes past a
buffer aborts the child and fails its case, never passes by luck.

Bases: ``contig`` (a fresh (4, 6) tensor), ``slice`` (a (4, 4) column slice of one: offset 1,
strides (6, 1)), ``t`` (a transposed one: strides (1, 6)).  Views of non-contiguous bases are
what nanoGPT's attention does (``c_attn(x).split(...)`` then ``.view(B, T, nh, hs)``).
"""
import numpy as np
import pytest

from _child_check import run_cases
from _cases import RNG

X = RNG.standard_normal((4, 6)).astype("float32")
XC = (RNG.standard_normal((4, 6)) + 1j * RNG.standard_normal((4, 6))).astype("complex64")

BASES = {
    "contig": "leaf * 1.0",
    "slice": "(leaf * 1.0)[:, 1:5]",
    "t": "(leaf * 1.0).t()",
}

# view ops, written on ``t`` (the base); each gives a view or a tuple of views
VIEWS = {
    "view": "t.view(2, -1, t.shape[-1])",
    "view_flat": "t.view(-1)",  # raises for the non-contiguous bases, as torch
    "view_as": "t.view_as(t.reshape(2, -1, t.shape[-1]))",
    "reshape": "t.reshape(2, -1, t.shape[-1])",
    "reshape_flat": "t.reshape(-1)",  # a copy for the non-contiguous bases
    "as_strided": "t.as_strided((2, 2), (3, 1), t.storage_offset() + 1)",
    "as_strided_overlap": "t.as_strided((3, 3), (1, 1))",
    "expand": "t[:, :1].expand(-1, 3)",
    "expand_lead": "t[0].expand(2, 3, -1)",
    "expand_as": "t[:1].expand_as(t)",
    "broadcast_to": "torch.broadcast_to(t[:1], (3, t.shape[1]))",
    "transpose": "t.transpose(0, 1)",
    "t": "t.t()",
    "T": "t.T",
    "mT": "t.mT",
    "permute": "t.permute(1, 0)",
    "movedim": "torch.movedim(t, 0, 1)",
    "split": "t.split(2, dim=1)",
    "chunk": "t.chunk(2, dim=0)",
    "unbind": "t.unbind(1)",
    "tensor_split": "torch.tensor_split(t, 3, dim=0)",
    "narrow": "t.narrow(1, 1, 2)",
    "select": "t.select(0, 1)",
    "index_int": "t[1]",
    "slice_step": "t[::2, 1::2]",
    "index_none": "t[None, 1:, ...]",
    "squeeze": "t[:1].squeeze(0)",
    "unsqueeze": "t.unsqueeze(1)",
    "flatten": "t.flatten()",
    "flatten_inner": "t.unsqueeze(0).flatten(0, 1)",
    "unflatten": "t.unflatten(0, (2, -1))",
    "diagonal": "t.diagonal()",
    "diagonal_offset": "torch.diagonal(t, 1)",
    "unfold": "t.unfold(0, 2, 1)",
    "detach": "t.detach()",
    "view_of_view": "t.transpose(0, 1)[1:].view(-1)",
    "split_view": "t.split(2, dim=1)[1].view(2, -1)",
}

# views whose elements overlap without a zero stride: torch's in-place ops on them are undefined
# (torch's overlap check says "too hard" and writes element by element), so the write is skipped
WRITE_UNDEFINED = {"as_strided_overlap", "unfold"}

VIEW_SNIPPET = """
import torch

def facts(v, base):
    same = v.untyped_storage().data_ptr() == base.untyped_storage().data_ptr()
    return (tuple(v.shape), v.stride(), v.is_contiguous(), same,
            v.storage_offset() - base.storage_offset() if same else None,
            (v.data_ptr() - base.data_ptr()) // v.element_size() if same else None)

def f(x):
    leaf = x.requires_grad_()
    t = {base}
    y = {expr}
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    got = [facts(v, t) for v in ys]
    loss = sum((v * torch.arange(v.numel(), dtype=v.dtype).reshape(v.shape)).sum() for v in ys)
    if loss.requires_grad:
        loss.backward()
    if {skip_write}:
        return got, leaf.grad
    with torch.no_grad():  # a write through the first view reaches the base
        t = {base}
        y = {expr}
        first = y[0] if isinstance(y, (tuple, list)) else y
        try:
            first.add_(100.0)
            wrote = t.clone()
        except RuntimeError as e:
            wrote = type(e).__name__
    return got, leaf.grad, wrote
"""

CASES = {}
for _b, _base in BASES.items():
    for _v, _expr in VIEWS.items():
        CASES[f"{_v}-{_b}"] = (VIEW_SNIPPET.format(base=_base, expr=_expr,
                                                    skip_write=_v in WRITE_UNDEFINED), (X,))

# the minimal program (nanoGPT's attention split + view)
CASES["issue18_split_view_backward"] = ("""
import torch
def f(x):
    x = x.requires_grad_()
    q, k, v = (x * 1.0).split(64, dim=1)
    q.view(64, 2, 32).sum().backward()
    return x.grad, x.grad.sum()
""", (RNG.standard_normal((64, 192)).astype("float32"),))

CASES["attention_split_view_transpose"] = ("""
import torch
def f(x, w):
    B, T, C, nh = 2, 8, 16, 4
    x = x.requires_grad_()
    w = w.requires_grad_()
    q, k, v = (x @ w).split(C, dim=2)
    q = q.view(B, T, nh, C // nh).transpose(1, 2)
    k = k.view(B, T, nh, C // nh).transpose(1, 2)
    v = v.view(B, T, nh, C // nh).transpose(1, 2)
    att = (q @ k.transpose(-2, -1)) * (1.0 / (C // nh) ** 0.5)
    y = (att.softmax(dim=-1) @ v).transpose(1, 2).contiguous().view(B, T, C)
    (y * y).sum().backward()
    return y, x.grad, w.grad
""", (RNG.standard_normal((2, 8, 16)), RNG.standard_normal((16, 48))))  # float64: exact sums

# several views of one base: their gradients accumulate in x.grad
CASES["grad_accumulates_through_views"] = ("""
import torch
def f(x):
    x = x.requires_grad_()
    a = x[:, :3].view(-1)
    b = x.t()[1:]
    c = x.split(2, dim=1)[2].reshape(2, 4)
    d = x[0].expand(3, -1)
    (a.sum() * 2 + (b * b).sum() + c.mean() + d.sum()).backward()
    return x.grad
""", (X,))

# Paddle's broadcast_tensors backward segfaults when an operand does not require grad
for _loss in ("huber_loss", "mse_loss", "smooth_l1_loss", "l1_loss"):
    CASES[f"{_loss}_backward"] = (f"""
import torch
def f(a, b):
    a = a.requires_grad_()
    loss = torch.nn.functional.{_loss}(a, b)
    loss.backward()
    return loss, a.grad
""", (RNG.standard_normal((3, 5)).astype("float32"), RNG.standard_normal((3, 5)).astype("float32")))
    CASES[f"{_loss}_broadcast_backward"] = (f"""
import torch, warnings
def f(a, b):
    a = a.requires_grad_()
    b = b.requires_grad_()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        loss = torch.nn.functional.{_loss}(a, b)
    loss.backward()
    return loss, a.grad, b.grad
""", (RNG.standard_normal((3, 5)).astype("float32"), RNG.standard_normal((1, 5)).astype("float32")))

CASES["broadcast_tensors_backward"] = ("""
import torch
def f(a, b):
    a = a.requires_grad_()
    x, y = torch.broadcast_tensors(a, b)
    ((x - y) ** 2).sum().backward()
    return x.stride(), y.stride(), a.grad
""", (RNG.standard_normal((3, 1)).astype("float32"), RNG.standard_normal((1, 5)).astype("float32")))


@pytest.fixture(scope="module")
def results(request):
    """The selected cases (``-k`` respected), all run in one child process (a new one after a
    crash)."""
    names = [item.callspec.params["name"] for item in request.session.items
             if item.module is request.module and hasattr(item, "callspec")]
    return run_cases(__file__, names or list(CASES))


@pytest.mark.parametrize("name", list(CASES))
def test_view_case(results, name):
    err = results[name]
    assert err is None, err
