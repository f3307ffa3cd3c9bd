"""torch.testing.assert_close (outcome AND message text vs real torch) and torch.utils.dlpack."""
import numpy as np
import paddle
import pytest

from difftest import check

A = np.array([1.0, 2.0, 3.0], dtype="float32")
MSG = """
import torch
def f(a):
    b = {b}
    try:
        torch.testing.assert_close({args})
    except AssertionError as e:
        return "AssertionError: " + str(e)
    return "passed"
"""


@pytest.mark.parametrize("b,args", [
    ("a.clone()", "a, b"),
    ("a + 5e-6", "a, b"),                                   # inside float32's default atol
    ("a + 1e-3", "a, b"),                                   # outside: message with indices
    ("a * torch.tensor([1.0, 1.5, 1.0])", "a, b"),
    ("a * torch.tensor([1.0, 1.5, 1.0])", "a, b, rtol=0.6, atol=0.0"),
    ("a.double()", "a, b"),                                 # dtype mismatch
    ("a.double()", "a, b, check_dtype=False"),
    ("a.half()", "a.half() + 5e-4, b"),                     # float16 tolerance
    ("a.half()", "a.half() + 1e-2, b"),
    ("a[:2]", "a, b"),                                      # shape mismatch
    ("a.reshape(3, 1)", "a.reshape(3, 1) + torch.tensor([[0.], [0.], [1.]]), b"),
    ("a.to(torch.int64)", "a.to(torch.int64) + 1, b"),      # integers: exact
    ("a.to(torch.int64)", "a.to(torch.int64), b"),
    ("a", "a * float('nan'), b * float('nan')"),
    ("a", "a * float('nan'), b * float('nan'), equal_nan=True"),
    ("a", "a, b, msg='custom message'"),
    ("a + 1", "a, b, msg='custom message'"),
    ("a", "1.0, 1.5"),                                      # Python scalars
    ("a", "1.0, 1.0 + 1e-7"),
    ("a", "3, 3"),
    ("a", "[a, a], [b, b + 1]"),                            # sequences
    ("a", "{'x': a}, {'x': b}"),
    ("a", "a.sum(), b.sum() + 1"),                          # 0-d
    ("a", "None, None"),                                    # torch's NonePair: two .grad of
    ("a", "None, 1.0"),                                     # non-leaves (Liger's tiled MLP)
    ("a", "1.5, None, msg='custom message'"),
    ("a", "[a, None], [b, None]"),
])
def test_assert_close_outcome_and_message(b, args):
    check(MSG.format(b=b, args=args), A)


@pytest.mark.parametrize("args", ["a, a, rtol=1e-3", "a, a, atol=1e-3"])
def test_assert_close_needs_both_tolerances(args):
    check(MSG.format(b="a", args=args), A)  # torch raises ValueError: so must we


# -- dlpack ---------------------------------------------------------------------------------------
# Paddle 2.6's from_dlpack copies CPU tensors (3.x shares them): recorded in the entry notes
SHARES_CPU = int(paddle.__version__.split(".")[0]) >= 3 or paddle.__version__.startswith("0.0")


def _facade_torch():
    from torchproxy.facade import modules
    return modules.build()["torch"]


def test_dlpack_round_trip_is_zero_copy():
    torch = _facade_torch()
    x = paddle.to_tensor(np.arange(6, dtype="float32").reshape(2, 3))
    y = torch.utils.dlpack.from_dlpack(torch.utils.dlpack.to_dlpack(x))
    assert isinstance(y, paddle.Tensor)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
    y[0, 0] = 42.0
    assert float(x[0, 0]) == (42.0 if SHARES_CPU else 0.0)  # same memory on Paddle 3


def test_from_dlpack_of_real_torch_and_numpy_shares_memory():
    import torch as real_torch
    facade = _facade_torch()
    t = real_torch.arange(4, dtype=real_torch.float32)
    p = facade.utils.dlpack.from_dlpack(t)          # an object with __dlpack__ (not a capsule)
    np.testing.assert_array_equal(p.numpy(), [0, 1, 2, 3])
    t[1] = 7.0
    assert float(p[1]) == (7.0 if SHARES_CPU else 1.0)
    p2 = facade.utils.dlpack.from_dlpack(real_torch.utils.dlpack.to_dlpack(t))  # a capsule
    assert float(p2[1]) == 7.0
    a = np.arange(3, dtype="float64")
    q = facade.utils.dlpack.from_dlpack(a)
    np.testing.assert_array_equal(q.numpy(), [0, 1, 2])
    a[2] = -1
    assert float(q[2]) == (-1 if SHARES_CPU else 2)


# -- torch.distributed (single process, no process group: as torch without init) ----------------
@pytest.mark.parametrize("expr", [
    "torch.distributed.is_available()",
    "torch.distributed.is_initialized()",
    "torch.distributed.is_nccl_available()",
    "torch.distributed.get_world_size()",
    "torch.distributed.get_rank()",
    "torch.distributed.all_reduce(a.clone(), op=torch.distributed.ReduceOp.SUM)",
    "torch.distributed.barrier()",
    "isinstance(a, torch.distributed.tensor.DTensor)",
    "torch.distributed.is_available() and torch.distributed.is_initialized()",  # Liger's guard
])
def test_distributed_without_a_process_group_like_torch(expr):
    check(f"""
import torch
import torch.distributed
from torch.distributed.tensor import DTensor
def f(a):
    return {expr}
""", A)


def test_dtensor_cannot_be_made():
    from torchproxy.errors import NotProvidedError
    torch = _facade_torch()
    with pytest.raises(NotProvidedError, match="DTensor"):
        torch.distributed.tensor.DTensor()
