"""data_ptr() + stride() must address exactly the elements a view holds: Triton kernels read
memory that way.  The snippet reads raw memory with ctypes through the tensor's own
data_ptr()/stride()/element_size() and compares with the tensor's values, under torch and
the proxy (so both sides must agree on the layout facts too)."""
import numpy as np
import pytest

from difftest import check
from _cases import F32

READER = """
import ctypes
import numpy as np
import torch

def read(t):
    n = t.element_size()
    if t.numel() == 0:
        return np.zeros(tuple(t.shape), np.float32)
    span = 1 + sum((s - 1) * st for s, st in zip(t.shape, t.stride()))
    buf = (ctypes.c_char * (span * n)).from_address(t.data_ptr())
    base = np.frombuffer(buf, dtype=np.float32)
    return np.lib.stride_tricks.as_strided(
        base, shape=tuple(t.shape), strides=tuple(s * n for s in t.stride())).copy()

def f(x):
    y = {expr}
    mem = read(y)
    vals = np.array(y.tolist(), dtype=np.float32).reshape(tuple(y.shape))
    return bool(np.array_equal(mem, vals)), mem, {contig}
"""

VIEWS = ["x", "x.t()", "x.transpose(0, 1)", "x.permute(1, 0)", "x[1:]", "x[:, 1:3]", "x[1]",
         "x[:, 2]", "x[::2]", "x.split(2, dim=1)[1]", "x.chunk(2)[1]", "x.narrow(1, 1, 2)",
         "x.unsqueeze(0)", "x.t().unsqueeze(1)", "x.view(2, 6)", "x.reshape(6, 2)", "x.flatten()",
         "x.t().contiguous()", "x.expand(2, 3, 4)", "x[:, 1:].t()", "x.unbind(1)[2]",
         "x[:0]", "x.t().t()", "x.squeeze()", "x[1:, 1:].view(2, 3)", "x[:1].t()",
         "x[:, :1].t()", "x[1:2, 1:3]", "x.t()[:, 1:2]"]


@pytest.mark.parametrize("expr", VIEWS)
def test_data_ptr_and_stride_address_the_values(expr):
    check(READER.replace("{expr}", expr).replace("{contig}", "y.is_contiguous()"), F32)


def test_views_share_memory_with_base():
    """Writes through a view reach the base (a view is not a copy), as in torch."""
    check("""
import torch
def f(x):
    x.t()[0].fill_(-1)
    x[:, 2].zero_()
    x.view(12)[11] = 5
    x.narrow(0, 1, 1).fill_(9)
    return x
""", F32)
