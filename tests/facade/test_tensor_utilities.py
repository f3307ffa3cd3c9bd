"""torch._assert, is_nonzero, set_default_tensor_type, frombuffer, from_dlpack, can_cast,
vander, slogdet (facade/ops_tensors.py, linalg_more.py) vs real torch 2.13: values, dtypes,
result types and torch's errors."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")


@pytest.mark.parametrize("cond", ["True", "1", "torch.tensor(True)", "torch.tensor([2.0])",
                                  "False", "0", "torch.tensor(False)", "torch.tensor(0.0)"])
def test_assert(cond):
    check(f"""
import torch
def f():
    torch._assert({cond}, "the message")
    return 1
""")


def test_assert_message():
    import torchproxy  # noqa: F401
    from difftest import run
    for scoped in (False, True):
        with pytest.raises(AssertionError, match="^shape mismatch$"):
            run("import torch\ndef f():\n    torch._assert(torch.tensor(False), 'shape mismatch')",
                scoped=scoped)


@pytest.mark.parametrize("x", ["torch.tensor([1.5])", "torch.tensor(0)", "torch.tensor([[0.0]])",
                               "torch.tensor(True)", "torch.tensor([])", "torch.tensor([1, 2])"])
def test_is_nonzero(x):
    check(f"""
import torch
def f():
    return torch.is_nonzero({x}), {x}.is_nonzero()
""")


@pytest.mark.parametrize("t", ["torch.DoubleTensor", "'torch.DoubleTensor'", "torch.FloatTensor",
                               "'torch.HalfTensor'", "torch.LongTensor", "'torch.IntTensor'",
                               "torch.float64", "3", "'torch.cuda.FloatTensor'", "'NoSuchModule.X'"])
def test_set_default_tensor_type(t):
    check(f"""
import torch, warnings
def f():
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            torch.set_default_tensor_type({t})
        return torch.get_default_dtype(), torch.tensor([1.5]), torch.ones(2)
    finally:
        torch.set_default_dtype(torch.float32)
""")


@pytest.mark.parametrize("kw", ["dtype=torch.int16", "dtype=torch.int16, count=2, offset=2",
                                "dtype=torch.uint8, offset=7", "dtype=torch.float32",
                                "dtype=torch.int32, offset=1", "dtype=torch.int32, count=3",
                                "dtype=torch.int32, offset=9", "dtype=torch.int32, count=0",
                                "dtype=torch.float64, requires_grad=True",
                                "dtype=torch.float32, requires_grad=True",
                                "dtype=torch.bfloat16, count=2", "dtype=torch.bool, count=3",
                                "dtype=torch.int64, offset=-1"])
def test_frombuffer(kw):
    check(f"""
import torch
def f():
    b = bytearray(bytes([1, 0, 3, 64, 5, 6, 7, 62]))
    return torch.frombuffer(b, {kw})
""")


@pytest.mark.parametrize("buf", ["b''", "b'abcd'", "5", "[1, 2]", "memoryview(b'abcdefgh')[2:]",
                                 "__import__('array').array('i', [7, 8, 9])"])
def test_frombuffer_sources(buf):
    check(f"""
import torch
def f():
    return torch.frombuffer({buf}, dtype=torch.uint8)
""")


def test_frombuffer_missing_dtype():
    check("import torch\ndef f():\n    return torch.frombuffer(bytearray(4))")


def test_frombuffer_shares_memory():
    import paddle
    from torchproxy.paddle_shims import IS_PADDLE_2
    if IS_PADDLE_2:
        pytest.skip("gaps.toml-free: torch.frombuffer's note: Paddle 2.6 copies")
    check("""
import torch
def f():
    b = bytearray(8)
    t = torch.frombuffer(b, dtype=torch.int16)
    t[1] = 258
    return list(b), t
""")


def test_from_dlpack():
    check("""
import torch, numpy as np
def f(x):
    a = np.arange(6.0).reshape(2, 3)
    return torch.from_dlpack(a), torch.from_dlpack(x), torch.from_dlpack(x.__dlpack__())
""", np.arange(4, dtype="float32"))


DTS = ["bool", "uint8", "int8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
       "complex64", "complex128"]


def test_can_cast_table():
    check(f"""
import torch
def f():
    dts = [getattr(torch, n) for n in {DTS!r}]
    return [[torch.can_cast(a, b) for b in dts] for a in dts]
""")


@pytest.mark.parametrize("args", ["1, torch.int32", "torch.int32, 'float'", "torch.int8"])
def test_can_cast_errors(args):
    check(f"import torch\ndef f():\n    return torch.can_cast({args})")


@pytest.mark.parametrize("call", [
    "torch.vander(torch.tensor([1, 2, 3], dtype=torch.int32))",
    "torch.vander(torch.tensor([1.0, 2.0]), N=3, increasing=True)",
    "torch.vander(torch.tensor([1.0, -2.0, 0.5]), 4)",
    "torch.vander(torch.tensor([True, False]))",
    "torch.vander(torch.tensor([1.0, 2.0]), N=0)",
    "torch.vander(torch.tensor([3], dtype=torch.uint8), N=4)",
    "torch.vander(torch.tensor([1.0, 2.0], dtype=torch.float64), 1)",
    "torch.vander(torch.tensor(1.0))", "torch.vander(torch.ones(2, 2))",
    "torch.vander(torch.ones(2), N=-1)",
])
def test_vander(call):
    check(f"import torch\ndef f():\n    return {call}")


@pytest.mark.parametrize("shape", [(3, 3), (2, 4, 4), (0, 2, 2)])
def test_slogdet(shape):
    rng = np.random.default_rng(3)
    check("""
import torch
def f(a):
    r = torch.slogdet(a)
    m = a.slogdet()
    return type(r).__name__, r.sign, r.logabsdet, m[0], m[1]
""", rng.standard_normal(shape))


@pytest.mark.parametrize("shape", [(3,), (2, 3)])
def test_slogdet_errors(shape):
    check("import torch\ndef f(a):\n    return torch.slogdet(a)", np.ones(shape))
