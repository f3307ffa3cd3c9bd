"""Signatures as torch has them (issue 10, item 5): positional and keyword forms, ``out=`` (torch
resizes an empty out, warns and resizes a non-empty one, refuses casts it cannot make), dim
tuples and negative dims, ``dtype=`` on reductions, Tensor-method forms that differ from the
function's (``x.flip(0, 1)``); and for names now dispatched, Paddle's own meaning outside the
scope is unchanged."""
import warnings

import numpy as np
import paddle
import pytest

from difftest import check, run

R = np.random.RandomState(3)
X = R.randn(2, 3, 4).astype("float32")
Y = R.randn(2, 3, 4).astype("float32")
I = R.randint(-3, 4, (2, 3, 4)).astype("int64")


def _snip(body):
    return f"import torch\ndef f(x, y, i):\n    return {body}\n"


OUT = [
    ("torch.empty(0)", "torch.add(x, y, out=o)"),
    ("torch.empty(0)", "torch.sum(x, 1, out=o)"),
    ("torch.empty(0)", "torch.mean(x, (0, 2), keepdim=True, out=o)"),
    ("torch.empty(0, dtype=torch.float64)", "torch.mul(x, y, out=o)"),
    ("torch.empty(0, dtype=torch.int64)", "torch.add(x, y, out=o)"),  # refused cast
    ("torch.empty(0, dtype=torch.bool)", "torch.add(i, i, out=o)"),  # refused cast
    ("torch.empty(0, dtype=torch.float32)", "torch.add(i, i, out=o)"),  # int -> float: fine
    ("torch.empty(0)", "torch.exp(x, out=o)"),
    ("torch.empty(0)", "torch.cumsum(x, -1, out=o)"),
    ("torch.empty(0)", "torch.cat([x, y], 1, out=o)"),
    ("torch.empty(0)", "torch.where(x > 0, x, y, out=o)"),
    ("torch.empty(0)", "torch.clamp(x, -0.5, 0.5, out=o)"),
    ("torch.zeros(2, 3, 4)", "torch.sub(x, y, alpha=2, out=o)"),
    ("torch.empty(0)", "torch.matmul(x, y.transpose(1, 2), out=o)"),
    ("torch.empty(0, dtype=torch.int64)", "torch.amax(i, dim=(0, -1), out=o)"),
]


@pytest.mark.parametrize("make,expr", OUT)
def test_out_resized_cast_or_refused_like_torch(make, expr):
    check(f"import torch\ndef f(x, y, i):\n    o = {make}\n    r = {expr}\n    return o, r is o\n",
          X, Y, I)


def test_out_of_another_nonempty_shape_is_resized_with_torchs_warning():
    src = _snip("torch.add(x, y, out=torch.zeros(5))")
    for scoped in (False, True):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = run(src, X, Y, I, scoped=scoped)
        assert list(r.shape) == [2, 3, 4]
        msgs = [str(m.message) for m in w]
        assert any("was resized since it had shape [5]" in m for m in msgs), (scoped, msgs)


DIMS = [
    "torch.sum(x, (0, -1))", "torch.sum(x, dim=[-1, -2], keepdim=True)", "x.sum((1,))",
    "torch.mean(x, dim=(-3, 2))", "torch.amax(x, (-1, 0))", "torch.amin(x, dim=-2)",
    "torch.std(x, (0, 1))", "torch.var(x, dim=-1, keepdim=True)", "torch.logsumexp(x, (0, 2))",
    "torch.any(x > 0, (0, 1))", "torch.all(x > -5, dim=-1)", "torch.count_nonzero(i, (0, -1))",
    "i.count_nonzero()", "i.count_nonzero(dim=1)", "i.count_nonzero((0, 2))",
    "torch.sum(x, (0, 0))", "torch.sum(x, 3)", "torch.mean(x, -4)",
    "torch.argmax(x, -1)", "torch.argmax(x[0, 0, 0])", "torch.argmax(x[0, 0, 0], 0)",
    "torch.argmin(x[0, 0, 0], -1, keepdim=True)", "torch.argmax(x[0, 0, 0], 1)",
    "x[0, 0, 0].argmax()",
]


@pytest.mark.parametrize("expr", DIMS)
def test_dim_tuples_and_negative_dims(expr):
    check(_snip(expr), X, Y, I)


DTYPES = [
    "torch.sum(i, dtype=torch.float32)", "torch.sum(x, 1, dtype=torch.float64)",
    "x.sum(dim=0, dtype=torch.float16)", "torch.mean(i, dtype=torch.float64)",
    "torch.mean(x, (0, 1), dtype=torch.float64)", "torch.prod(i, 1, dtype=torch.float32)",
    "torch.cumsum(i, 0, dtype=torch.float32)", "torch.cumprod(x, -1, dtype=torch.float64)",
    "torch.softmax(i, -1, dtype=torch.float32)", "torch.log_softmax(x, 1, dtype=torch.float64)",
    "torch.sum(i == 1)", "torch.sum(i.int())", "torch.prod(i.short(), 0)",
]


@pytest.mark.parametrize("expr", DTYPES)
def test_dtype_on_reductions(expr):
    check(_snip(expr), X, Y, I, rtol=1e-3)


FORMS = [
    "torch.add(input=x, other=y)", "torch.add(x, other=y, alpha=0.5)", "torch.sub(x, y, alpha=2)",
    "torch.clamp(x, min=-0.1)", "torch.clamp(x, max=0.1)", "torch.clamp(x, -0.1, 0.1)",
    "torch.sum(input=x, dim=1)", "torch.max(x, dim=1, keepdim=True)", "torch.max(x, 1)",
    "x.max(dim=-1).values", "torch.topk(x, 2, dim=1, largest=False)", "x.topk(k=1)",
    "torch.flip(x, (0, 2))", "torch.flip(x, [-1])", "torch.flip(x, dims=(1,))",
    "x.flip(0)", "x.flip(0, 2)", "x.flip((1, 2))", "x.flip(dims=[-1, 0])", "x.flip(dims=(0, 0))",
    "x[0, 0, 0].flip(0)", "torch.flip(x, ())",
    "torch.gather(x, 1, torch.zeros(2, 1, 4, dtype=torch.long))",
    "torch.addcmul(x, y, y, value=2)", "x.lerp(end=y, weight=0.25)",
]


@pytest.mark.parametrize("expr", FORMS)
def test_positional_and_keyword_forms(expr):
    check(_snip(expr), X, Y, I)


# -- names dispatched for torch's meaning keep Paddle's meaning outside the scope ----------------
@pytest.fixture()
def enabled():
    import torchproxy
    from difftest import _ensure_enabled
    _ensure_enabled()
    assert torchproxy.is_enabled()


def test_unscoped_callers_keep_paddles_flip_count_nonzero_argmax(enabled):
    x = paddle.to_tensor(X)
    np.testing.assert_array_equal(x.flip(axis=[0]).numpy(), np.flip(X, 0))  # Paddle's keyword
    np.testing.assert_array_equal(x.flip([0, 2]).numpy(), np.flip(X, (0, 2)))
    c = paddle.to_tensor(I).count_nonzero(axis=1, keepdim=True)  # Paddle's keywords
    assert list(c.shape) == [2, 1, 4]
    np.testing.assert_array_equal(c.numpy(), np.count_nonzero(I, axis=1)[:, None, :])
    s = x.sum(axis=1)  # Paddle's axis=
    np.testing.assert_allclose(s.numpy(), X.sum(1), rtol=1e-6)
    with pytest.raises(TypeError):  # torch's keyword is not Paddle's: the dispatcher kept Paddle's
        x.flip(dims=[0])


METHODS = [
    "x.logical_and_(y)", "x.logical_or_(y > 0)", "(x > 0).logical_and_(y > 0)",
    "x.multiply(y)", "x.multiply_(2)", "i.multiply_(y)", "x.subtract(y, alpha=2)",
    "x.subtract_(1)", "x.divide(y)", "i.divide(2, rounding_mode='floor')", "x.divide_(2)",
    "i.divide_(2)", "x.clip_(-0.2, 0.2)", "i.clip_(max=1)",
    "x[0, :, :3].addmm(x[0], y[0].t())", "x[0, :1, :3].addmm(x[0], y[0].t(), beta=0.5, alpha=2)",
    "x[0].addmm(x[0], y[0].t())",
]


@pytest.mark.parametrize("expr", METHODS)
def test_method_and_inplace_forms(expr):
    """The Tensor forms the same declarations give (registry.op): in place means self is
    written (cast to its dtype where torch allows, its RuntimeError where not) and returned."""
    check(f"import torch\ndef f(x, y, i):\n    r = {expr}\n    return x, i, r\n", X, Y, I)
