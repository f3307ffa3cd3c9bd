"""Sparse-layout queries on the facade's tensors (facade/sparse_layouts.py) against real torch:
a strided tensor's answers (is_sparse False, to_dense() itself, indices()/values()... torch's
errors and messages), a Paddle sparse tensor handed to scoped code, Paddle's own methods for
unscoped callers, and the sparse constructors still NotProvidedError."""
import numpy as np
import paddle
import pytest
import torch as real_torch

from difftest import check, load
from torchproxy.errors import NotProvidedError

X = np.arange(6, dtype="float32").reshape(2, 3) - 2


def test_is_sparse_is_a_false_property_on_strided_tensors():
    check("""
import torch
def f(x):
    branch = "sparse" if x.is_sparse else "dense"
    csr = "csr" if x.is_sparse_csr else "not csr"
    return x.is_sparse, x.is_sparse_csr, branch, csr, x.sum().is_sparse, x.layout
""", X)


def test_to_dense_of_a_strided_tensor():
    check("""
import torch
def f(x):
    x = x.clone().requires_grad_()
    y = x.to_dense()
    z = x.to_dense(torch.float64)
    (y * 2 + z.float()).sum().backward()
    return (y is x, x.to_dense(torch.float32) is x, x.to_dense(masked_grad=True) is x, z,
            x.grad, x.sum().to_dense(), x.int().to_dense(torch.bool))
""", X)


def test_to_dense_refuses_a_non_dtype():
    check("""
import torch
def f(x):
    return x.to_dense(1)
""", X)


@pytest.mark.parametrize("name", ["indices", "values", "coalesce", "is_coalesced",
                                  "crow_indices", "col_indices", "ccol_indices", "row_indices",
                                  "_indices", "_values", "_nnz"])
def test_sparse_queries_raise_torch_s_error_on_strided_tensors(name):
    check(f"""
import torch
def f(x):
    out = []
    for t in (x, x.sum(), x.int()):
        try:
            t.{name}()
            out.append("no error")
        except (RuntimeError, NotImplementedError) as e:
            out.append((type(e).__name__, str(e)[:90]))
    return out
""", X)


SCOPED = """
import torch
def f(s):
    out = [s.is_sparse, s.is_sparse_csr, s.to_dense(), s.to_dense(torch.float64)]
    for name in ("indices", "values", "coalesce", "_nnz"):
        try:
            getattr(s, name)()
        except AttributeError as e:
            out.append(str(e).split(" is not provided")[0])
    return out
"""


def test_a_paddle_sparse_tensor_in_scoped_code():
    idx, val = [[0, 1, 1], [2, 0, 0]], [3.0, 4.0, 5.0]  # (1, 0) twice: torch sums duplicates
    want = real_torch.sparse_coo_tensor(idx, val, (2, 3)).to_dense().numpy()
    coo = paddle.sparse.sparse_coo_tensor(paddle.to_tensor(idx), paddle.to_tensor(val), [2, 3])
    is_coo, is_csr, dense, dense64, *errors = load(SCOPED, scoped=True).f(coo)
    assert (is_coo, is_csr) == (True, False)
    np.testing.assert_array_equal(dense.numpy(), want)
    assert dense64.dtype == paddle.float64
    np.testing.assert_array_equal(dense64.numpy(), want)
    assert errors == [f"torch.Tensor.{n} (of a Paddle sparse tensor: the facade has no torch "
                      f"sparse layouts)" for n in ("indices", "values", "coalesce", "_nnz")]
    csr = paddle.to_tensor(X).to_sparse_csr()
    is_coo, is_csr, dense, _, *errors = load(SCOPED, scoped=True).f(csr)
    assert (is_coo, is_csr) == (False, True)
    np.testing.assert_array_equal(dense.numpy(), X)
    assert len(errors) == 4


def test_unscoped_paddle_callers_keep_paddle_s_methods():
    load("import torch\ndef f():\n    return torch.ones(1).is_sparse\n", scoped=True).f()
    x = paddle.to_tensor(X)
    assert x.is_sparse() is False and x.is_sparse_csr() is False  # methods, as in Paddle
    coo = x.to_sparse_coo(2)
    assert coo.is_sparse() and coo.indices().shape == [2, 5]


def test_sparse_constructors_stay_not_provided():
    mod = load("""
import torch
def f(x):
    out = []
    for call in (lambda: x.to_sparse(), lambda: torch.sparse_coo_tensor,
                 lambda: torch.sparse_csr_tensor):
        try:
            call()
        except AttributeError as e:
            out.append(e)
    return out
""", scoped=True)
    errors = mod.f(paddle.to_tensor(X))
    assert len(errors) == 3 and all(isinstance(e, NotProvidedError) for e in errors)
