"""Errors torch raises that the facade let through or raised with another class (torch's OpInfo
error_inputs found them): Tensor.item on other than one element, multi(label)_margin_loss
target shapes, max_pool dilation <= 0, aminmax's out= dtype.  Class and message vs real
torch 2.13, and the neighbouring valid calls still computing torch's values."""
import numpy as np
import pytest

from difftest import check, run

rng = np.random.default_rng(11)


def _same_error(src, *args):
    """torch raises; the facade raises the same class with the same first message line."""
    try:
        run(src, *args, scoped=False)
    except Exception as texc:  # noqa: BLE001
        with pytest.raises(type(texc)) as got:
            run(src, *args, scoped=True)
        assert str(got.value).splitlines()[0] == str(texc).splitlines()[0]
        return
    raise AssertionError("real torch did not raise")


@pytest.mark.parametrize("shape", [(10,), (0,), (2, 3)])
def test_item_of_other_than_one_element(shape):
    _same_error("""
import torch
def f(x):
    return x.item()
""", rng.standard_normal(shape).astype("float32"))


@pytest.mark.parametrize("x", [np.float32(2.5), np.array([[3]], "int32"), np.array([True]),
                               np.array([-7], "int64")])
def test_item_of_one_element(x):
    check("""
import torch
def f(x):
    v = x.item()
    return v, type(v).__name__
""", np.asarray(x))


@pytest.mark.parametrize("fn,ishape,tshape", [
    ("multi_margin_loss", (5, 4), (5, 4)), ("multi_margin_loss", (5, 4), (4,)),
    ("multi_margin_loss", (4,), (2,)), ("multi_margin_loss", (5, 4), (1, 5)),
    ("multilabel_margin_loss", (5, 4), (4,)), ("multilabel_margin_loss", (5, 4), (5,)),
    ("multilabel_margin_loss", (4,), (2,)), ("multilabel_margin_loss", (4,), (1, 4)),
])
def test_margin_loss_target_shape(fn, ishape, tshape):
    _same_error(f"""
import torch
def f(x, y):
    return torch.nn.functional.{fn}(x, y)
""", rng.standard_normal(ishape).astype("float32"), np.zeros(tshape, "int64"))


@pytest.mark.parametrize("fn,ishape,tshape", [
    ("multi_margin_loss", (5, 4), (5,)), ("multi_margin_loss", (4,), (1,)),
    ("multi_margin_loss", (), (1,)), ("multi_margin_loss", (), ()), ("multi_margin_loss", (4,), ()),
    ("multilabel_margin_loss", (5, 4), (5, 4)),
    ("multilabel_margin_loss", (4,), (4,)), ("multilabel_margin_loss", (), (1,)),
])
def test_margin_loss_valid_shapes(fn, ishape, tshape):
    check(f"""
import torch
def f(x, y):
    return torch.nn.functional.{fn}(x, y), torch.nn.functional.{fn}(x, y, reduction="none")
""", rng.standard_normal(ishape).astype("float32"),
          rng.integers(-1 if fn == "multilabel_margin_loss" else 0, ishape[-1] if ishape else 1,
                       tshape))


@pytest.mark.parametrize("fn,target", [
    ("multi_margin_loss", [4, 0]), ("multi_margin_loss", [-1, 0]),
    ("multilabel_margin_loss", [[0, -1, 7, 1], [0, 1, 2, 3]]),
    ("multilabel_margin_loss", [[0, -2, 1, 1], [0, 1, 2, 3]]),
])
def test_margin_loss_target_out_of_range(fn, target):
    _same_error(f"""
import torch
def f(x, y):
    return torch.nn.functional.{fn}(x, y)
""", rng.standard_normal((2, 4)).astype("float32"), np.array(target, "int64"))


@pytest.mark.parametrize("wshape", [(), (5, 4), (5,)])
def test_multi_margin_loss_weight_shape(wshape):
    _same_error("""
import torch
def f(x, y, w):
    return torch.nn.functional.multi_margin_loss(x, y, weight=w)
""", rng.standard_normal((5, 4)).astype("float32"), np.array([9, 0, 1, 2, 3]),
                rng.standard_normal(wshape).astype("float32"))


@pytest.mark.parametrize("nd,dilation", [(1, 0), (1, -1), (2, 0), (2, (1, 0)), (3, 0)])
def test_max_pool_dilation_not_positive(nd, dilation):
    _same_error(f"""
import torch
def f(x):
    return torch.nn.functional.max_pool{nd}d(x, kernel_size=1, stride=1, dilation={dilation!r})
""", rng.standard_normal((2, 3) + (4,) * nd).astype("float32"))


@pytest.mark.parametrize("dt", ["float64", "int64", "int32", "bool", "float16"])
def test_aminmax_out_dtype(dt):
    _same_error(f"""
import torch
def f(x):
    return torch.aminmax(x, dim=0, out=(torch.empty(0), torch.empty(0, dtype=torch.{dt})))
""", rng.standard_normal((4, 5)).astype("float32"))


def test_aminmax_out():
    check("""
import torch
def f(x):
    mn, mx = torch.empty(0), torch.empty(3)
    r = torch.aminmax(x, dim=1, keepdim=True, out=(mn, mx))
    r2 = torch.aminmax(x, out=(torch.empty(0), torch.empty(0)))
    return type(r).__name__, r.min is mn, r.max is mx, mn, mx, r2, type(r2).__name__
""", rng.standard_normal((4, 5)).astype("float32"))
