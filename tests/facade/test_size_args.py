"""torch.Size (a tuple subclass) as a shape argument (issue 26): Paddle 2.6's IntArray
arguments refuse tuple subclasses ("expand(): argument (position 2) must be list or int, but
got Size"), which the GPU matrix hit in Liger-Kernel's fused_linear_jsd
(``t.sum(-1, keepdim=True).broadcast_to(x.shape)``).  ``Tensor.broadcast_to`` was Paddle's own
method for scoped callers; ``torch.roll`` passed the caller's shifts through.  Every case runs
under real torch and under the proxy (tests/difftest.py) on both Paddles."""
import numpy as np
import pytest

from difftest import check

R = np.random.RandomState(0)
X = R.randn(3, 4).astype("float32")
C = R.randn(3, 1).astype("float32")


def _snip(expr):
    return f"import torch\ndef f(x, c):\n    return {expr}\n"


CASES = [
    "c.broadcast_to(x.shape)", "c.broadcast_to(torch.Size([2, 3, 4]))", "c.broadcast_to((3, 4))",
    "c.broadcast_to([3, -1])", "torch.broadcast_to(c, x.shape)",
    "c.broadcast_to(x.size()).stride()",            # a view: zero stride along the new dim
    "(lambda y: (y.add_(1), c))(c.broadcast_to(x.shape)[:1])",  # torch: in-place on an expanded view
    "c.broadcast_to((2, 4))",                       # mismatch: RuntimeError
    "x.broadcast_to((4,))",                          # fewer sizes: RuntimeError
    "x.sum(-1, keepdim=True).broadcast_to(x.shape) * x",  # Liger's fused_linear_jsd line
    "torch.roll(x, torch.Size([1, 2]), torch.Size([0, 1]))", "x.roll(torch.Size([1]), (1,))",
    "torch.roll(x, torch.Size([5]))", "torch.roll(x, (1,))", "torch.roll(x, 3)",
    "torch.roll(x, (1, 2), 0)",                     # shifts and dims do not align: RuntimeError
    "c.expand(x.shape)", "c.expand(torch.Size([2, 3, 4])).shape",
]


@pytest.mark.parametrize("expr", CASES)
def test_size_arguments(expr):
    check(_snip(expr), X, C)
