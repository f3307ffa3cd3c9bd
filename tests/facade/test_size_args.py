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
    # the search for others of its kind (a torch.Size reaching a Paddle 2.6 API), none failing:
    # shapes, repeats, dims and sizes given as torch.Size to the calls that take a list
    "x.reshape(torch.Size([4, 3]))", "x.view(torch.Size([2, -1]))", "torch.reshape(x, x.shape)",
    "x.new_zeros(x.size())", "x.new_ones(x.shape)", "x.new_full(x.shape, 2.0)",
    "x.new_empty(x.shape).shape", "torch.zeros(x.shape)", "torch.ones(x.size(), dtype=torch.int64)",
    "torch.full(x.shape, 1.5)", "torch.empty(x.shape).shape", "torch.randn(x.shape).shape",
    "torch.randint(0, 5, x.shape).shape", "x.repeat(torch.Size([2, 1]))",
    "torch.tile(x, torch.Size([2, 1]))", "x.permute(torch.Size([1, 0]))", "x.flip(torch.Size([0]))",
    "x.sum(torch.Size([0]))", "x.mean(dim=torch.Size([1]))", "x.amax(torch.Size([1]))",
    "x.var(torch.Size([0, 1]))", "torch.logsumexp(x, torch.Size([1]))",
    "x.flatten().unflatten(0, x.shape)", "x.unflatten(1, torch.Size([2, 2]))",
    "torch.nn.functional.pad(x, torch.Size([1, 1]))", "x.as_strided(x.shape, torch.Size([4, 1]))",
    "torch.empty_strided(x.shape, (4, 1)).shape", "x.split(torch.Size([1, 3]), dim=1)",
    "torch.nn.functional.layer_norm(x, x.shape[-1:])", "torch.nn.LayerNorm(x.shape[-1:])(x)",
    "torch.nn.functional.interpolate(x[None], size=torch.Size([8]))",
    "torch.movedim(x, torch.Size([0]), torch.Size([1]))", "x.std(dim=torch.Size([1]))",
]


@pytest.mark.parametrize("expr", CASES)
def test_size_arguments(expr):
    check(_snip(expr), X, C)
