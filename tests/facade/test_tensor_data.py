"""Tensor.data (facade/tensor_attributes.py) vs real torch: an alias of the same memory that
does not require grad and has its own version counter, so word_language_model's manual SGD step
``p.data.add_(p.grad, alpha=-lr)`` is an untracked write to a leaf (Paddle 2.6's ``data`` was the
tensor itself, and the step raised the leaf-in-place error); ``x.data = y`` keeps x's
requires_grad (Paddle 2.6 cleared it) and takes only tensors, floating ones while x requires
grad."""
import numpy as np
import pytest

from difftest import check, load

pytest.importorskip("torch")

W = np.array([[0.5, -1.0, 2.0], [0.25, 3.0, -0.75]], "float32")
X = np.array([1.0, -2.0, 0.5], "float32")


def test_manual_sgd_step_through_data():
    # main.py's update, twice, on an nn.Parameter and on a plain leaf: values, flags, versions
    check("""
import torch
def f(w, x):
    p = torch.nn.Parameter(w.clone())
    b = x.clone().requires_grad_()
    out = []
    for _ in range(2):
        p.grad = None; b.grad = None
        loss = ((p @ b) ** 2).sum()
        loss.backward()
        for q in (p, b):
            d = q.data
            out.append((d.requires_grad, d.is_leaf, d.grad_fn is None,
                        isinstance(d, torch.nn.Parameter), d.data_ptr() == q.data_ptr()))
            q.data.add_(q.grad, alpha=-0.1)
        out.append((p.requires_grad, b.requires_grad, p.is_leaf, b.is_leaf))
    return p.detach(), b.detach(), out
""", W, X)


@pytest.mark.xfail(strict=True, raises=AssertionError, reason=(
    "Paddle's detached alias shares the tensor's in-place version counter (torch's .data has "
    "its own): after p.data.add_(...) p._version is 1 (torch: 0), so a graph that saved p "
    "before such a write raises Paddle's modified-by-inplace error at backward"))
def test_data_has_its_own_version_counter():
    check("""
import torch
def f(x):
    p = torch.nn.Parameter(x.clone())
    p.data.add_(1.0)
    return p._version, p.data._version
""", X)


def test_data_of_a_non_leaf_and_writes_through_it():
    check("""
import torch
def f(x):
    a = x.clone().requires_grad_()
    h = a * 3
    d = h.data
    d[0] = 100.0            # the same memory as h, not recorded
    return h.detach(), d.requires_grad, d.is_leaf, h.requires_grad, h.data.shape
""", X)


def test_setting_data_keeps_requires_grad_and_aliases_the_value():
    check("""
import torch
def f(w, x):
    a = x.clone().requires_grad_()
    y = w.clone()
    a.data = y
    y[0, 0] = -9.0          # a now uses y's memory
    shape, req, leaf = a.shape, a.requires_grad, a.is_leaf
    (a * 2).sum().backward()
    n = torch.ones(3)
    n.data = torch.arange(4)  # integer data for a tensor that does not require grad
    return a.detach(), shape, req, leaf, a.grad, n, n.dtype, n.requires_grad
""", W, X)


@pytest.mark.parametrize("value, err, msg", [
    ("3", TypeError, "Variable data has to be a tensor, but got int"),
    ("None", TypeError, "Variable data has to be a tensor, but got NoneType"),
    ("torch.ones(2, dtype=torch.int64)", RuntimeError,
     "data set to a tensor that requires gradients must be floating point or complex dtype"),
])
def test_setting_data_errors(value, err, msg):
    src = f"""
import torch
def f(x):
    a = x.clone().requires_grad_()
    a.data = {value}
"""
    import torch
    import paddle
    with pytest.raises(err) as real:
        load(src, scoped=False).f(torch.from_numpy(X))
    assert str(real.value) == msg
    with pytest.raises(err) as fac:
        load(src, scoped=True).f(paddle.to_tensor(X))
    assert str(fac.value) == msg
