"""Operands with a 0-size dimension (torch gives empty results, or an empty sum/product/mean)
against real torch, on both Paddles.  On Paddle 2.6 these go through facade/zero_size.py (its
kernels refuse 0-size operands); on 3.x Paddle computes them and the same cases must hold."""
import numpy as np
import paddle
import pytest

from difftest import check, load

from torchproxy import paddle_shims
from torchproxy.facade import zero_size

R = np.random.RandomState(0)
E = np.zeros((0, 3), "float32")  # empty rows
ROW = R.randn(3).astype("float32")
FULL = R.randn(2, 3).astype("float32")
EI = np.zeros((0, 3), "int64")
ROWI = R.randint(-5, 6, (3,)).astype("int64")
M20 = np.zeros((2, 0), "float32")  # empty contraction dimension
M03 = np.zeros((0, 3), "float32")
SQ = R.randn(2, 2).astype("float32")
W = R.randn(4, 3).astype("float32")
B4 = R.randn(4).astype("float32")


def _snip(expr):
    return ("import torch\n"
            "def f(e, row, full, ei, rowi, m20, m03, sq, w, b4):\n"
            f"    return {expr}\n")


def _check(expr, **kw):
    check(_snip(expr), E, ROW, FULL, EI, ROWI, M20, M03, SQ, W, B4, **kw)


ELEMENTWISE = [
    # broadcasting binary ops (Paddle 2.6: "meta data must be valid")
    "torch.add(e, row)", "torch.add(row, e)", "e + 2", "2 - e", "e * row", "row / e",
    "torch.sub(e, row, alpha=2)", "torch.mul(ei, 2.5)", "torch.div(ei, rowi, rounding_mode='floor')",
    "torch.true_divide(ei, rowi)", "torch.floor_divide(e, row)", "torch.remainder(ei, rowi)",
    "torch.fmod(e, row)", "torch.pow(e, row)", "torch.pow(ei, 2)", "torch.float_power(e, 2)",
    "torch.maximum(e, row)", "torch.minimum(ei, rowi)", "torch.eq(e, row)", "torch.lt(ei, 1)",
    "e.ge(row)", "torch.logical_and(e, row)", "torch.bitwise_xor(ei, rowi)",
    "torch.ldexp(e, rowi)", "torch.complex(e, row)", "torch.clamp_min(e, row)",
    "torch.gcd(ei, rowi)", "torch.lcm(ei, rowi)", "torch.add(ei, row)",
    "torch.where(e > 0, e, row)",
    # unary ops whose empty path cloned (Paddle 2.6: "uninitialized tensor in clone")
    "torch.acosh(e)", "torch.digamma(e)", "torch.lgamma(e)", "torch.erfc(e)", "torch.sinc(e)",
    "torch.acosh(ei)", "e.acosh()", "torch.flip(e, [0, 1])",
    # in-place forms return their (empty) self
    "e.acosh_()", "e.add_(row)", "ei.mul_(rowi)",
    # matmul with an empty result
    "torch.matmul(m03.t(), torch.ones(0, 4))", "torch.mm(torch.ones(0, 2), sq)",
    "torch.matmul(e, w.t())",
]


# kernels of shape, pooling and linear algebra ops that Paddle 2.6 refuses on 0-size operands
SHAPES = [
    "torch.cat([e, e])", "torch.stack([e, e])", "e.repeat(2, 1)", "torch.tile(e, (2, 2))",
    "torch.searchsorted(torch.zeros(0, 3), torch.zeros(0, 2))",
    "torch.nn.functional.adaptive_avg_pool1d(torch.zeros(0, 8, 4), 2)",
    "torch.nn.functional.group_norm(torch.zeros(0, 2, 3), 1)",
    "torch.nn.functional.pixel_shuffle(torch.zeros(0, 4, 2, 2), 2)",
    "torch.linalg.qr(torch.zeros(0, 3))", "torch.linalg.svdvals(torch.zeros(3, 0))",
    "torch.linalg.eigvalsh(torch.zeros(0, 2, 2))",
    "torch.linalg.solve(torch.zeros(0, 2, 2), torch.zeros(0, 2))",
]


@pytest.mark.parametrize("expr", SHAPES)
def test_shape_and_linalg_kernels(expr):
    _check(expr)


@pytest.mark.parametrize("expr", ELEMENTWISE)
def test_empty_result(expr):
    _check(expr)


REDUCTIONS = [
    # a sum of no products is 0: torch gives zeros (plus the input/bias term)
    "torch.mm(m20, m03)", "torch.matmul(m20, m03)",
    "torch.addmm(full, m20, m03)", "torch.addmm(row, m20, m03, beta=2, alpha=3)",
    "torch.nn.functional.linear(m20, torch.ones(4, 0))",
    "torch.nn.functional.linear(m20, torch.ones(4, 0), b4)",
    "torch.linalg.multi_dot([m20, m03, w.t()])",
    "torch.prod(e)", "torch.prod(e, 0)", "torch.prod(ei, 0, keepdim=True)", "torch.prod(e, 1)",
    "torch.std(e, 0)", "torch.var(e, 0)", "torch.var(e, 1)", "torch.std_mean(e, 0)",
    "torch.var_mean(e, 0, correction=0)", "torch.mean(e, 0)",
    "torch.sum(e, 0)", "torch.sum(ei)", "torch.nansum(e, 0)", "torch.nanmean(e, 0)",
    "torch.bmm(torch.zeros(2, 3, 0), torch.zeros(2, 0, 4))",
    "torch.mv(m20, torch.zeros(0))", "torch.addmv(b4[:2], m20, torch.zeros(0), beta=2)",
    "torch.dot(torch.zeros(0), torch.zeros(0))", "torch.vdot(torch.zeros(0), torch.zeros(0))",
    "torch.inner(m20, m20)", "torch.outer(torch.zeros(0), b4)",
    "torch.linalg.vecdot(m20, m20)", "torch.linalg.matmul(m20, m03)",
    "torch.nn.functional.bilinear(torch.zeros(0, 2), torch.zeros(0, 3), torch.ones(4, 2, 3), b4)",
]


@pytest.mark.parametrize("expr", REDUCTIONS)
def test_empty_reduction(expr):
    _check(expr)


ERRORS = [
    # torch refuses these (the inner sizes differ): so must we, not return an empty result
    "torch.mm(m20, w)", "torch.addmm(full, m20, m03.t())",
]


@pytest.mark.parametrize("expr", ERRORS)
def test_still_raises(expr):
    _check(expr)


def test_out_argument():
    # out= is resized to the (empty or reduced) result and returned, as in torch
    src = ("import torch\n"
           "def f(e, row, m20, m03):\n"
           "    o1, o2, o3 = torch.ones(5), torch.zeros(0), torch.ones(2, 3)\n"
           "    r1 = torch.maximum(e, row, out=o1)\n"
           "    r2 = torch.maximum(e, row, out=o2)\n"
           "    r3 = torch.mm(m20, m03, out=o3)\n"
           "    return r1, r2, r3, r1 is o1, r2 is o2, r3 is o3\n")
    check(src, E, ROW, M20, M03)


def test_inplace_function_never_writes_stand_ins_into_a_real_operand():
    if not paddle_shims.IS_PADDLE_2:
        pytest.skip("the recovery runs on Paddle 2.6 only")
    err = RuntimeError("The meta data must be valid when call the mutable data function")
    x = paddle.ones([2, 3])

    def add_(self, other):
        return paddle.assign(self + other.sum(0), output=self)
    with pytest.raises(RuntimeError, match="meta data"):
        zero_size.recover(err, add_, "torch.add_", (x, paddle.to_tensor(E)), {})
    assert float(x.sum()) == 6.0


def test_autograd_flag():
    # the result of an op over an operand that requires grad requires grad, as in torch
    _check("torch.add(torch.zeros(0, 3, requires_grad=True), row)")
    _check("torch.mm(torch.zeros(2, 0, requires_grad=True), m03)")
    _check("torch.add(e, row)")


def test_grad_of_nonempty_operand_flows():
    # addmm over an empty contraction: the input term keeps its graph
    src = ("import torch\n"
           "def f(full, m20, m03):\n"
           "    x = full.clone().requires_grad_()\n"
           "    torch.addmm(x, m20, m03, beta=3).sum().backward()\n"
           "    return x.grad\n")
    check(src, FULL, M20, M03)


def test_only_paddle_26_failures_are_recovered():
    assert paddle_shims.ZERO_SIZE_KERNELS_FAIL == paddle_shims.IS_PADDLE_2
    msg = "(PreconditionNotMet) The meta data must be valid when call the mutable data function."
    assert paddle_shims.is_zero_size_failure(RuntimeError(msg)) == paddle_shims.IS_PADDLE_2
    assert not paddle_shims.is_zero_size_failure(RuntimeError("some other error"))
    assert not paddle_shims.is_zero_size_failure(TypeError(msg))


def test_dimension_growth_rule():
    assert zero_size._grows(2, 3) and zero_size._grows(4, 9) and zero_size._grows(6, 9)
    assert not zero_size._grows(4, 5)  # cat of an empty and a 2-row tensor: 2 + s
    assert not zero_size._grows(3, 4)


def test_unscoped_paddle_unaffected():
    # outside facade calls Paddle keeps its own behaviour (its error on 2.6, its result on 3.x)
    e, row = paddle.to_tensor(E), paddle.to_tensor(ROW)
    if paddle_shims.IS_PADDLE_2:
        with pytest.raises(RuntimeError, match="meta data must be valid"):
            paddle.add(e, row)
    else:
        assert paddle.add(e, row).shape == [0, 3]


def test_refused_when_stand_ins_do_not_settle_it():
    # a Paddle error that is not a zero-size failure, or no 0-size operand: re-raised as is
    err = ValueError("unrelated")
    with pytest.raises(ValueError, match="unrelated"):
        zero_size.recover(err, lambda *a: None, "torch.add", (paddle.ones([2]),), {})
    if paddle_shims.IS_PADDLE_2:
        err = RuntimeError("The meta data must be valid when call the mutable data function")
        with pytest.raises(RuntimeError, match="meta data"):  # cat-like growth: 2 + s rows
            zero_size.recover(err, lambda x: paddle.concat([x, paddle.ones([2, 3])]), None,
                              (paddle.to_tensor(E),), {})
        with pytest.raises(RuntimeError, match="meta data"):  # a reduction not in the table
            zero_size.recover(err, lambda x: x.sum(0), "torch.amax", (paddle.to_tensor(E),), {})


def test_scoped_module_sees_empty_results():
    mod = load("import torch\ndef f():\n    return torch.zeros(0, 3) + torch.ones(3)\n",
               scoped=True)
    r = mod.f()
    assert isinstance(r, paddle.Tensor) and r.shape == [0, 3]


def test_baddbmm_over_an_empty_contraction_is_beta_times_input():
    """paddle.bmm over k == 0 returns uninitialised memory (2.6 and 3.x): the facade's
    baddbmm/addbmm must give torch's beta * input (the product is zeros)."""
    inp = np.arange(24, dtype="float32").reshape(2, 3, 4)
    b1 = np.ones((2, 3, 0), dtype="float32")
    b2 = np.ones((2, 0, 4), dtype="float32")
    check("""
import torch
def f(inp, b1, b2):
    return [torch.baddbmm(inp, b1, b2), torch.baddbmm(inp, b1, b2, beta=0.5),
            torch.addbmm(inp[0], b1, b2, beta=2)]
""", inp, b1, b2)


# torch gives a base zeros through a view with no elements; Paddle 2.6's backward kernels crash
# on a 0-size gradient (paddle_shims.cut_empty_grads routes around them).  Each snippet returns
# the leaves' gradients and the empty view's requires_grad.
EMPTY_VIEW_GRADS = [
    "b[1:].narrow(1, 2, 0)", "b[:, 0::2].as_strided((0,), (2,))", "b[2][1:].reshape(1, 0)",
    "b.t()[1:1]", "torch.tensor_split(b[1:], [0], dim=0)[0]", "b[1:].view(-1)[3:3].view(1, 0)",
    "b.expand(2, 4, 3)[:, 1:1].unsqueeze(0)", "b[1:][:, -9:-7]",
]


# the gradient reaches b only through v (None if it did not, as before on 2.6), or also through
# b[0, 0]: Paddle's own Tensor.abs (not replaced by the facade) keeps Paddle's node on 2.6, so
# nothing reaches b through it there: only with the second path
@pytest.mark.parametrize("reduce", ["v.sum()", "v.mean()", "(v * v).sum()",
                                    "(v * 3).abs().sum() + b[0, 0] * 2", "v.sum() + b[0, 0] * 2"])
@pytest.mark.parametrize("view", EMPTY_VIEW_GRADS)
def test_gradient_through_an_empty_view_is_zeros(view, reduce):
    check(f"""
import torch
def f(w):
    b = w.clone().requires_grad_()
    v = {view}
    loss = {reduce}
    loss.backward()
    return b.grad, v.requires_grad, tuple(v.shape)
""", W)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float64", "complex64"])
def test_gradient_through_an_empty_view_other_dtypes(dtype):
    check(f"""
import torch
def f(w):
    b = w.to(torch.{dtype}).requires_grad_()
    v = b[1:].narrow(1, 2, 0)
    loss = (v * v).sum() + b[1:3, 0:0].sum() + b[0, 0] * 2
    loss = loss.real if loss.is_complex() else loss
    loss.backward()
    return b.grad.real if b.grad.is_complex() else b.grad
""", W)


def test_empty_views_that_torch_does_not_differentiate():
    # detach() and view(dtype) of an empty view stay outside the graph, as in torch
    check("""
import torch
def f(w):
    b = w.clone().requires_grad_()
    return (b[0:0].detach().requires_grad, b.detach()[0:0].requires_grad,
            b[1:1].view(torch.float32).requires_grad, (b[1:1] * 2).requires_grad)
""", W)


_EMPTY_LEAF = """
import torch
def f():
    w = torch.zeros(2, 0, requires_grad=True)
    b = torch.arange(6.).reshape(2, 3).requires_grad_()
    untouched = torch.zeros(0, 3, requires_grad=True)
    (w[:, :0].sum() + b.sum()).backward()
    return (None if w.grad is None else (tuple(w.grad.shape), w.grad.requires_grad)),  \\
        tuple(b.grad.shape), untouched.grad
"""


def test_a_backward_through_an_empty_leaf_leaves_it_an_empty_gradient():
    # torch: w.grad is an empty tensor of w's shape; Paddle 2.6 drops 0-size gradients
    # (paddle_shims.empty_leaf_grad) and a leaf no backward reached keeps None
    assert load(_EMPTY_LEAF, scoped=True).f() == load(_EMPTY_LEAF, scoped=False).f()


def test_releasing_an_empty_leafs_gradient(request):
    if not paddle_shims.IS_PADDLE_2:
        request.applymarker(pytest.mark.xfail(
            strict=True, reason="Paddle 3.3.1: clear_gradient() keeps a 0-size gradient, so "
                                "x.grad = None leaves it (a Paddle bug)"))
    src = _EMPTY_LEAF.replace("    return (None", "    w.grad = None\n    return (None")
    assert load(src, scoped=True).f() == load(src, scoped=False).f()


# ops the facade computes without a kernel when an operand has no elements (the empty result,
# the 0 of a norm of nothing): the result keeps the operand's gradient edge, so the base gets
# zeros as in torch (paddle_shims.empty_result / constant_result; they had no edge, and
# backward raised "element 0 of tensors does not require grad", on both Paddles)
EMPTY_OPERAND_OPS = [
    "torch.exp(v)", "v.exp()", "torch.sin(v)", "v.sigmoid()", "v.tanh()", "torch.sqrt(v)",
    "v.neg()", "v.square()", "torch.relu(v)", "v.relu()", "torch.round(v)", "v.floor()",
    "torch.sign(v)", "v.reciprocal()", "torch.erf(v)", "v.log1p()", "torch.abs(v)", "v.abs()",
    "v.clone()", "torch.clone(v)", "torch.norm(v)", "v.norm()", "torch.linalg.vector_norm(v)",
    "torch.linalg.matrix_norm(v)", "torch.dist(v, v)", "torch.cross(v.t(), v.t(), dim=1)",
    "torch.linalg.pinv(v)", "torch.remainder(v, 0.7)", "v % 0.7", "torch.kron(v, v)",
    "torch.linalg.cross(v.t(), v.t())", "v.T", "v.H", "v.mH", "v.tril()", "v.triu(1)",
    "v.diag_embed()", "b[:0].T", "b[:0].tril(-1)",
]


@pytest.mark.parametrize("expr", EMPTY_OPERAND_OPS)
def test_gradient_through_an_op_on_an_empty_view(expr):
    check(f"""
import torch
def f(w):
    b = w[:3].clone().requires_grad_()
    v = b[:, :0]
    r = {expr}
    r.sum().backward()
    return r.requires_grad, r.dtype, tuple(r.shape), b.grad
""", W)


def test_remainder_gradients():
    # Paddle 2.6's remainder has no gradient (paddle_shims.remainder): torch's are 1 for the
    # dividend and -floor(a / b) for the divisor
    check("""
import torch
def f(w, b4):
    a = w.clone().requires_grad_()
    d = (b4[:3].abs() + 0.5).requires_grad_()
    r = torch.remainder(a, d) + a % 0.7
    r.sum().backward()
    return r, a.grad, d.grad
""", W, B4)


def test_outer_of_matrices_is_refused():
    check("""
import torch
def f(w, b4):
    return torch.outer(w, b4)
""", W, B4)


@pytest.mark.parametrize("expr", ["torch.zeros(1, 0, 0, 1).unfold(0, 1, 2)",
                                  "torch.zeros(2, 3, 0, 0).unfold(0, 1, 1)",
                                  "torch.zeros(3, 0).unfold(1, 0, 1)",
                                  "w[:, :0].unfold(0, 2, 1)", "w[:0].view(0, 2, 0, 6).unfold(3, 2, 3)"])
def test_unfold_of_empty_tensors(expr):
    # Paddle 2.6's unfold gave (1, 0, 1, 1, 1) for the first (fuzzer, 2.6 100k run)
    check(f"""
import torch
def f(w):
    w = w.clone().requires_grad_()
    v = {expr}
    v.sum().backward() if v.requires_grad else None
    return tuple(v.shape), w.grad  # (strides of 0-element views: fuzzer F34, open)
""", W)


@pytest.mark.parametrize("expr", ["x.expand(0, 5)", "torch.broadcast_to(x, (0, 5))",
                                  "x.expand(2, 0, 5)", "x.expand_as(torch.ones(0, 5))"])
def test_expand_a_size_one_dim_to_zero(expr):
    """torch expands a size-1 dim to 0 (Paddle 2.6's expand refuses a 0 in the target); the
    gradient of the input is zeros."""
    check(f"""
import torch
def f(x):
    x.requires_grad_()
    y = {expr}
    (y * 2).sum().backward()
    return y, x.grad
""", np.ones((1, 5), "float32"))
