"""The storage area (untyped_storage, storage_offset, set_) against real torch, and the
Paddle facts it relies on."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import check, load

paddle = pytest.importorskip("paddle")
# Tensor._holder_size() (the allocation's size) exists from Paddle 3.1; 2.6 and 3.0 lack it
HAS_HOLDER_SIZE = hasattr(paddle.Tensor, "_holder_size")

X = np.arange(24, dtype="float32").reshape(4, 6)


def test_storage_of_a_view_points_at_the_allocation():
    check("""
    import torch
    def f(x):
        v = x[1:, 2:5]
        s = v.untyped_storage()
        return (v.storage_offset(), s.data_ptr() == x.data_ptr(), s.element_size(),
                s.data_ptr() == x.untyped_storage().data_ptr(), x.storage_offset())
    """, X)


def test_storage_offset_in_elements_for_each_dtype():
    for dtype in ("float16", "float64", "int32", "uint8"):
        check("""
        import torch
        def f(x):
            return (x[3:].storage_offset(), x[1:, ::2].storage_offset())
        """, X.astype(dtype))


@pytest.mark.skipif(not HAS_HOLDER_SIZE, reason=f"Paddle {paddle.__version__} has no "
                    "Tensor._holder_size: the allocation size is not exposed (2.6, 3.0)")
def test_nbytes_is_the_allocation_size():
    check("""
    import torch
    def f(x):
        return (x[2:, 1:3].untyped_storage().nbytes(), x.untyped_storage().size())
    """, X)


@pytest.mark.skipif(HAS_HOLDER_SIZE, reason="the fallback for Paddle without _holder_size "
                    "(2.6, 3.0)")
def test_nbytes_on_paddle_2_covers_the_view():
    mod = load("""
    import torch
    def f(x):
        v = x[1:, 1:3]
        return v.untyped_storage().nbytes(), v.storage_offset(), v.element_size()
    """, scoped=True)
    nbytes, off, item = mod.f(paddle.to_tensor(X))
    # from the allocation's start to one past the view's last element (row 3, column 2)
    assert nbytes == (3 * 6 + 2 + 1) * 4 and off == 7 and item == 4


def test_set_makes_a_strided_view_of_the_storage():
    check("""
    import torch
    def f(x):
        y = x.new_empty(0)
        y.set_(x.untyped_storage(), 2, (3, 2), (6, 2))
        return (y.clone(), y.data_ptr() == x.data_ptr() + 2 * x.element_size(),
                tuple(y.shape), tuple(y.stride()), y.storage_offset())
    """, X)


def test_set_with_default_stride_is_contiguous():
    check("""
    import torch
    def f(x):
        y = x.new_empty(0)
        y.set_(x.untyped_storage(), 1, (2, 5))
        return y.clone(), tuple(y.stride())
    """, X)


def test_set_from_a_tensor_shares_it():
    check("""
    import torch
    def f(x):
        y = x.new_empty(0)
        y.set_(x[1:])
        return y.clone(), y.data_ptr() == x[1:].data_ptr()
    """, X)


def test_set_view_aliases_memory():
    mod = load("""
    import torch
    def f(x):
        y = x.new_empty(0)
        y.set_(x.untyped_storage(), 6, (6,), (1,))
        return y
    """, scoped=True)
    x = paddle.to_tensor(X)
    y = mod.f(x)
    np.testing.assert_array_equal(y.numpy(), X[1])
    # the interpreter writes through raw pointers: write through y's address, read x
    import ctypes
    ctypes.c_float.from_address(y.data_ptr()).value = -5.0
    assert float(x.numpy()[1, 0]) == -5.0


def test_set_past_the_storage_raises():
    mod = load("""
    import torch
    def f(x):
        y = x.new_empty(0)
        y.set_(x.untyped_storage(), 20, (10,), (1,))
        return y
    """, scoped=True)
    with pytest.raises(RuntimeError, match="set_"):
        mod.f(paddle.to_tensor(X))


def test_cpu_storage_cpu_is_itself_and_copy_to_itself_is_a_no_op():
    check("""
    import torch
    def f(x):
        s = x.untyped_storage()
        c = s.cpu()
        s.copy_(c)
        return c.data_ptr() == s.data_ptr(), x.clone()
    """, X)


def test_copy_between_storages_copies_bytes():
    check("""
    import torch
    def f(x, y):
        x.untyped_storage().copy_(y.untyped_storage())
        return x.clone()
    """, X, X[::-1].copy())


def test_copy_size_mismatch_raises():
    check("""
    import torch
    def f(x, y):
        x.untyped_storage().copy_(y.untyped_storage())
    """, X, X[:2].copy())


def test_new_empty_forms():
    check("""
    import torch
    def f(x):
        a = x.new_empty(0, device="cpu")
        b = x.new_empty((2, 3))
        c = x.new_empty(2, 3, dtype=torch.float16)
        return [(tuple(t.shape), t.dtype, t.device, t.requires_grad) for t in (a, b, c)]
    """, X)
