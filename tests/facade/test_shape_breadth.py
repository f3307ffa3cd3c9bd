"""Shape/indexing and creation breadth (issue 11): as_strided and its in-place/copy/scatter
forms, put, masked_scatter, index_put, the masked-index helpers, nonzero_static, tile, the
in-place transposes, squeeze_, resize_/resize_as_, view_copy/unfold_copy, Tensor.mT/view_as,
gather/scatter/index ops on 0-d inputs, smaller indices and bools, arange/linspace/logspace
with integer dtypes (torch's CPU arithmetic), randint_like, empty_permuted, zero_.
Every case runs under real torch and under the proxy (tests/difftest.py) on both Paddles."""
import numpy as np
import pytest

from difftest import check

R = np.random.RandomState(0)
F = (R.randn(3, 4) * 4).astype("float32")
V = (R.randn(16) * 3).astype("float32")
S = np.array(2.5, dtype="float32")          # 0-d
I = R.randint(-9, 10, (3, 4)).astype("int64")
B = R.rand(3, 4) > 0.5
M = R.rand(3, 4) > 0.5                      # a mask


def _snip(expr):
    return f"import torch\ndef f(x, v, s, i, b, m):\n    return {expr}\n"


def _check(expr, **kw):
    check(_snip(expr), F, V, S, I, B, M, **kw)


CASES = [
    # as_strided: a view of the storage (offset from the storage's start), in place, copy
    "torch.as_strided(x, (2, 2), (1, 2))", "torch.as_strided(x, (2, 2), (1, 2), 1)",
    "x.as_strided((3, 3), (4, 1), storage_offset=1)",
    "torch.as_strided(v, (2, 2, 2, 2), (1, 1, 1, 1))", "torch.as_strided(v, (2, 1, 1, 2), (1, 7, 7, 1))",
    "torch.as_strided(x[1:], (2, 2), (1, 2))",        # the view's own offset is the default
    "torch.as_strided(x.t(), (3,), (5,))",            # a non-contiguous input's storage
    "torch.as_strided(x, (0, 2), (1, 1))", "torch.as_strided(s, (), ())",
    "torch.as_strided(b, (2, 3), (3, 1), 2)", "torch.as_strided(i, (4,), (3,))",
    "torch.as_strided(x, (2, 2), (1, 2), 12)",        # out of bounds: RuntimeError
    "torch.as_strided(x, (2, 2), (1, -2))",           # negative strides: RuntimeError
    "torch.as_strided(x, (2, 2), (1,))",              # length mismatch: RuntimeError
    "(lambda y: (y.as_strided_((2, 5), (5, 1), 1), y))(x.clone())",
    "(lambda y: (torch.as_strided_(y, (2,), (2,)), y))(x.clone())",
    "(lambda y: (y.as_strided((2, 2), (1, 2), 1).add_(100), y))(x.clone())",  # writes through
    "torch.as_strided_copy(x, (2, 2), (1, 2), 1)",
    "torch.as_strided_scatter(x, torch.ones(2, 2), (2, 2), (1, 2), 1)",
    "torch.as_strided_scatter(v, torch.arange(16.).reshape(2, 2, 2, 2), (2, 2, 2, 2), (8, 4, 2, 1))",
    "x.as_strided_scatter(torch.zeros(2, 2), (2, 2), (2, 1))",
    "torch.as_strided_scatter(b, torch.ones(2, dtype=torch.bool), (2,), (3,))",
    "torch.as_strided_scatter(v[:1], torch.tensor(1.0), (), ())",
    "torch.as_strided_scatter(x, torch.ones(3), (2, 2), (1, 2))",   # src shape: RuntimeError
    "torch.as_strided_scatter(x, torch.ones(2, 2), (2, 2), (1, 2), 11)",  # out of bounds
    # put / put_
    "torch.put(x, torch.tensor([0, 5, -1]), torch.tensor([1.0, 2.0, 3.0]))",
    "x.put(torch.tensor([1, 1, 2]), torch.tensor([1.0, 2.0, 3.0]), True)",
    "(lambda y: (y.put_(torch.tensor([[3, -2]]), torch.tensor([[7.0, 8.0]]), accumulate=True), y))(x.clone())",
    "torch.put(b, torch.tensor([0, 1]), torch.tensor([True, False]))",
    "torch.put(i, torch.tensor([0, 1]), torch.tensor([5, 5]), True)",
    "torch.put(s, torch.tensor(0), torch.tensor(4.0))", "torch.put(x, torch.tensor([], dtype=torch.long), torch.tensor([]))",
    "torch.put(x, torch.tensor([12]), torch.tensor([1.0]))",        # IndexError
    "torch.put(x, torch.tensor([0, 1]), torch.tensor([1.0]))",      # count mismatch
    "torch.put(x, torch.tensor([0], dtype=torch.int32), torch.tensor([1.0]))",  # not long
    # masked_scatter
    "torch.masked_scatter(x, m, x * 10)", "x.masked_scatter(m[0], x * 10)",
    "torch.masked_scatter(x[0], m, x * 10)",                       # input broadcasts
    "torch.masked_scatter(b, m, ~b)", "torch.masked_scatter(i, m, i * 3)",
    "(lambda y: (y.masked_scatter_(m, x * 2), y))(x.clone())",
    "torch.masked_scatter(x, m.float(), x)",                       # mask dtype: RuntimeError
    "torch.masked_scatter(x, m, torch.ones(1))",                   # too few: RuntimeError
    # index_put and the masked-index helpers
    "torch.index_put(x, (torch.tensor([0, 2]),), torch.ones(2, 4))",
    "torch.index_put(x, (torch.tensor([0, 0]), torch.tensor([1, 1])), torch.tensor([1.0, 2.0]), True)",
    "torch.index_put(x, (m,), torch.tensor(5.0))", "torch.index_put(b, (m,), torch.tensor(True))",
    "torch._unsafe_masked_index(x, m, [torch.tensor([[0], [2], [5]]), torch.tensor([[1, -1, 3, 9]])], 0.5)",
    "torch._unsafe_masked_index_put_accumulate(x, torch.tensor([[True], [False]]), "
    "[torch.tensor([[0], [2]]), torch.tensor([[1, 1, -1]])], torch.ones(2, 3))",
    # an empty input: torch indexes a stand-in full of fill (indexed 0-size dims 1, the rest 0)
    "torch._unsafe_masked_index(torch.zeros(0, 3), torch.tensor([[True], [False]]), "
    "[torch.tensor([0, 1])], 2.5)",
    "torch._unsafe_masked_index(torch.zeros(0, 3, dtype=torch.int64), torch.tensor([True]), "
    "[torch.tensor([[0, 1]]), torch.tensor([0])], 2)",
    "torch._unsafe_masked_index(torch.zeros(0), torch.tensor([True, False]), "
    "[torch.tensor([0, 1])], 1.5)",
    # None in an index list: torch's argument parser refuses it (TypeError)
    "torch.index_put(x, (None, torch.tensor([0])), torch.tensor(1.0))",
    "torch._unsafe_masked_index(x, m, [torch.tensor([0]), None], 0.5)",
    "torch._unsafe_masked_index_put_accumulate(x, m, [None, torch.tensor([0])], torch.ones(1))",
    # nonzero_static
    "torch.nonzero_static(x * m, size=4)", "torch.nonzero_static(x * m, size=20, fill_value=-7)",
    "(x * m).nonzero_static(size=0)", "torch.nonzero_static(s, size=3)",
    "torch.nonzero_static(x[:0], size=2)", "torch.nonzero_static(b, size=5)",
    # tile, transposes, squeeze_, mT, view_as, view_copy, unfold_copy
    "torch.tile(x, (2,))", "torch.tile(x, (2, 1, 3))", "x.tile(2, 2)", "torch.tile(x, (0, 2))",
    "torch.tile(s, (3,))", "torch.tile(b, (2, 1))", "torch.tile(x[:0], (2, 2))",
    "s.repeat(0)", "x.repeat(2, 0, 1)", "b.repeat(1, 2)", "x.repeat(2)",  # fewer dims: RuntimeError
    "(lambda y: (y.transpose_(0, 1), y))(x.clone())", "(lambda y: (y.swapdims_(1, 0), y))(x.clone())",
    "(lambda y: (y.swapaxes_(-1, 0), y))(x.clone())", "x.swapaxes(0, 1)", "s.swapaxes(0, -1)",
    "(lambda y: (y.transpose_(0, 0), y))(s.clone())",
    "(lambda y: (y.squeeze_(), y))(x.reshape(1, 3, 1, 4).clone())",
    "(lambda y: (y.squeeze_((0, 2)), y))(x.reshape(1, 3, 1, 4).clone())",
    "(lambda y: (y.squeeze_(()), y))(x.reshape(1, 3, 1, 4).clone())",
    "x.mT", "x.reshape(2, 3, 2).mT", "v.mT",                      # 1-D: RuntimeError
    "s.view_as(v[:1])", "x.view_as(torch.ones(6, 2))", "torch.view_copy(x, (2, 6))",
    "torch.view_copy(x, (-1,))", "torch.reshape(x[:, :0], (0, 2))", "torch.reshape(x[:, :0], (0, -1))",
    "torch.reshape(x[:1, :1], (0, -1))", "torch.reshape(x, (5, -1, -1))", "torch.reshape(x, (5, -1))",
    "torch.reshape(x[:, :0], (3, 0, 7))", "torch.unfold_copy(x, 1, 2, 1)", "torch.unfold_copy(v, 0, 4, 3)",
    "torch.unfold_copy(s, 0, 1, 1)", "torch.unfold_copy(b, 0, 2, 1)", "torch.unfold_copy(x, 1, 5, 1)",
    "torch.unsafe_chunk(x, 2, 1)", "x.unsafe_chunk(3)", "torch.unsafe_chunk(x, 0)",
    "x.diagonal(offset=1, dim1=1, dim2=0)", "torch.diagonal(x, 0, 1, 1)",  # identical: RuntimeError
    # resize_, resize_as_
    "(lambda y: (y.resize_(2, 6), y))(x.clone())", "(lambda y: (y.resize_((4,)), y))(x.clone())",
    "(lambda y: (y.resize_as_(torch.ones(12, 1)), y))(x.clone())",
    "(lambda y: (torch.resize_as_(y, torch.ones(2, 2)), y))(x.clone())",
    # gather / scatter / index ops: 0-d inputs, index smaller than src, empty index, bools
    "torch.gather(s, 0, torch.tensor(0))", "torch.gather(s, 0, torch.tensor([0]))",
    "torch.gather(v, 0, torch.zeros(2, 0, dtype=torch.long))", "torch.gather(b, 1, torch.tensor([[0, 0], [1, 0], [3, 2]]))",
    "torch.scatter(torch.zeros(6, 4), 1, torch.tensor([[0, 1], [2, 3]]), x)",
    "torch.scatter_add(torch.zeros(6, 4), 0, torch.tensor([[0, 1], [2, 3]]), x)",
    "torch.scatter(x, 1, torch.tensor([[0], [1]]), 7.0)", "torch.scatter(b, 0, torch.tensor([[1, 0]]), ~b)",
    "torch.scatter(s, 0, torch.tensor(0), torch.tensor(9.0))",
    "(lambda y: (y.scatter_(1, torch.tensor([[3, 2]]), x), y))(x.clone())",
    "torch.index_select(s, 0, torch.tensor([0]))", "s.index_select(0, torch.tensor(0))",
    "torch.index_select(b, 1, torch.tensor([3, 0]))",
    "torch.index_add(s, 0, torch.tensor([0]), torch.tensor(2.0), alpha=-1)",
    "torch.index_add(b, 0, torch.tensor([0, 0]), b[:2])",
    "torch.roll(b, 1)", "b.roll(2, 1)", "torch.masked_fill(b, m, True)", "b.masked_fill(m, False)",
    "torch.repeat_interleave(b, 2)", "b.repeat_interleave(torch.tensor([1, 0, 2]), dim=0)",
    # bool inputs of ops whose Paddle 2.6 kernels lack bool; negative take_along_dim indices
    "torch.where(m, b, ~b)", "b.where(m, False)", "torch.take(b, torch.tensor([0, -1, 5]))",
    "torch.masked_select(b, m)", "b.masked_select(m[0])", "torch.index_fill(b, 1, torch.tensor([0, 2]), True)",
    "torch.combinations(b[0], 2)", "torch.take_along_dim(x, torch.tensor([[-1, 0], [-4, 2], [3, -2]]), 1)",
    "torch.take_along_dim(x, torch.tensor([-1, 5]))", "torch.take_along_dim(x, torch.tensor([1, 5]))",
    "torch.gather(x, 1, torch.tensor([[-1, 0]]))", "torch.gather(x, 0, torch.tensor([[3, 0]]))",
    "torch.broadcast_shapes((0, 1, 3), (10, 1))", "torch.broadcast_shapes((2, 1), 3, (1, 1, 1))",
    "torch.broadcast_shapes((2, 3), (3, 2))",                     # RuntimeError
    "torch.broadcast_tensors(x[:0], torch.ones(1, 4))",
    # torch's errors (class checked against torch)
    "torch.roll(v, ())", "torch.roll(x, (2, 1), 0)", "torch.roll(v, 0, 2)", "torch.roll(s, 0, 0)",
    "torch.scatter(x.double(), 0, torch.tensor([[0, 1]]), x)", "torch.scatter(x, 0, torch.tensor([0, 1]), x)",
    "torch.scatter(x, 0, torch.tensor([[0, 1]]), x[None])", "torch.scatter_add(x, 0, torch.tensor([[3, 1]]), x)",
    "torch.tril(v)", "torch.triu(v)", "torch.unbind(s)", "torch.narrow(s, 0, 0, 1)",
    "torch.narrow(x, 1, 5, 0)", "torch.narrow(x, 1, -5, 0)", "torch.narrow(x, 1, 0, -1)",
    "torch.narrow(x, 1, torch.tensor(1), 2)", "torch.narrow(x, 1, torch.tensor([1]), 2)",
    "torch.movedim(x, (0, -2), (1, 0))", "torch.movedim(x, (0,), (1, 0))",
    "torch.index_add(x, 0, torch.tensor([0, 2]), v[:4])",
    "torch.masked_fill(x, m, torch.ones(1))", "torch.masked_fill(x, m, 1j)",
    "torch.arange(0, 64, 0.5, out=torch.empty(0, dtype=torch.int64))",
    "torch.linspace(0, 3, 1.0)", "torch.logspace(0, 3, 2.0)",
    # creation: integer dtypes computed as torch's CPU kernels do
    "torch.arange(0.0, -8.000001, -4.0, dtype=torch.int64)", "torch.arange(0.5, 4.5, 1.5, dtype=torch.int32)",
    "torch.arange(1, 10, 3, dtype=torch.float32)", "torch.arange(-3.7, 3.2, 0.9, dtype=torch.int64)",
    "torch.arange(0.5, 3.5, 0.5, dtype=torch.int64)",               # step truncates to 0
    "torch.arange(0, float('inf'))",                                # RuntimeError
    "torch.linspace(4.3, -3, 50, dtype=torch.int64)", "torch.linspace(-9.35, 7.36, 49, dtype=torch.int64)",
    "torch.linspace(10, -5.5, 26, dtype=torch.int32)", "torch.linspace(2.7, 8, 1, dtype=torch.int64)",
    "torch.linspace(torch.tensor(4.3), torch.tensor(-3.0), 7, dtype=torch.int64)",
    "torch.linspace(torch.ones(2), 3, 4)",                          # 1-d start: RuntimeError
    "torch.logspace(0, 1.2, 2, dtype=torch.int64)", "torch.logspace(3.2, -2.7, 61, dtype=torch.int64)",
    "torch.logspace(-0.68, -1, 1, base=2, dtype=torch.int64)", "torch.logspace(0, 2, 5, base=2.5, dtype=torch.int32)",
    "torch.logspace(torch.tensor(0), torch.tensor(2), 4, dtype=torch.float64)",
    "torch.logspace(0.3, 1.7, 6, dtype=torch.float32)", "torch.logspace(1, 2, 3, base=3, dtype=torch.float64)",
    "(lambda y: (torch.zero_(y), y))(x.clone())", "(lambda y: (torch.zero_(y), y))(b.clone())",
    "torch.empty_permuted((2, 3, 4), (2, 0, 1)).shape", "torch.empty_permuted((2, 3, 4), (2, 0, 1)).stride()",
    "torch.empty_permuted((0, 3), (1, 0), dtype=torch.int64).dtype",
    "torch.empty_permuted((2,), (0, 1))", "torch.empty_permuted((2, 3), (0, 0))",
    "torch.empty_permuted((2,), (3,))",
]


@pytest.mark.parametrize("expr", CASES)
def test_shape_breadth(expr):
    _check(expr)


RANDOM = [
    # randint_like: shape, dtype and range (values are Paddle's stream, not torch's)
    "(lambda r: (r.shape, r.dtype, bool(((r >= 0) & (r < 10)).all()), bool((r == r.round()).all())))(torch.randint_like(x, 10))",
    "(lambda r: (r.shape, r.dtype, bool(((r >= -3) & (r < 3)).all())))(torch.randint_like(i, -3, 3))",
    "(lambda r: (r.shape, r.dtype))(torch.randint_like(x, 2, 5, dtype=torch.int16))",
    "torch.randint_like(x, 5, 5)",                                  # empty range: RuntimeError
    "torch.zeros(10).cauchy_(0, 0)", "torch.multinomial(torch.ones(1, 2), 2, out=torch.empty(1, 2))",
    "torch.multinomial(torch.ones(2 ** 24 + 1), 3)",
    "(lambda r: (r.shape, r.dtype, bool((r == 0).all())))(torch.randint_like(s, 1))",
]


@pytest.mark.parametrize("expr", RANDOM)
def test_random_like(expr):
    _check(expr)


GRADS = [
    # gradients flow through the new names as in torch
    "torch.as_strided(x, (2, 2), (1, 2), 1)", "torch.as_strided_copy(x, (3,), (5,))",
    "torch.masked_scatter(x, m, x * 3)", "torch.put(x, torch.tensor([0, 5]), x[0, :2] * 2, True)",
    "torch.tile(x, (2, 1))",
    "torch.gather(x, 1, torch.tensor([[0], [3]]))",
]


@pytest.mark.parametrize("expr", GRADS)
def test_grads(expr):
    src = ("import torch\ndef f(x0, m):\n    x = x0.clone().requires_grad_(True)\n"
           f"    y = {expr}\n    (y * torch.arange(y.numel(), dtype=y.dtype).reshape(y.shape)).sum().backward()\n"
           "    return x.grad\n")
    check(src, F, M)


@pytest.mark.parametrize("dt", ["int64", "int32"])
def test_linspace_logspace_integer_fuzz(dt):
    """torch's integer linspace (fused multiply-adds) and logspace, on random bounds."""
    rs = np.random.RandomState(1)
    cases = [(float(rs.uniform(-10, 10)), float(rs.uniform(-10, 10)), int(rs.randint(1, 70)),
              float(rs.choice([10.0, 2.0, 2.5]))) for _ in range(60)]
    src = ("import torch\ndef f(cases):\n    out = []\n    for a, b, n, base in cases:\n"
           f"        out.append(torch.linspace(a, b, n, dtype=torch.{dt}))\n"
           f"        out.append(torch.logspace(a / 3, b / 3, n, base=base, dtype=torch.{dt}))\n"
           "    return out\n")
    check(src, cases)


def test_as_strided_scatter_grad_is_the_mathematical_one():
    """The input's gradient is zero where src was written (torch 2.13's own backward differs
    here, so the expectation is computed from the definition)."""
    from difftest import run
    src = ("import torch\ndef f(x0):\n    x = x0.clone().requires_grad_(True)\n"
           "    w = torch.ones(2, 2, requires_grad=True)\n"
           "    y = torch.as_strided_scatter(x, w * 2, (2, 2), (1, 2), 1)\n"
           "    (y * torch.arange(12.).reshape(3, 4)).sum().backward()\n"
           "    return x.grad.numpy(), w.grad.numpy()\n")
    gx, gw = run(src, F, scoped=True)
    want = np.arange(12.0)
    want[[1, 2, 3, 4]] = 0
    np.testing.assert_allclose(np.asarray(gx).reshape(-1), want)
    np.testing.assert_allclose(np.asarray(gw), 2 * np.array([[1.0, 3.0], [2.0, 4.0]]))
