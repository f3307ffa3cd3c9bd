"""The per-launch host calls of kernel wrappers (issue 26) take fast paths: torch.empty with a
tuple/list/Size of plain ints, torch.empty_like without options, x.stride(int), x.device.
Each case runs under real torch and under the proxy (tests/difftest.py) on both Paddles, on
both sides of every fast-path condition: the forms that take the fast path, and the neighbours
that must fall through to the general code (bools, NumPy ints, negative, huge, float sizes,
out-of-range dims) with torch's exception types.  Uninitialised values are never compared:
the snippets return shapes, dtypes, devices, strides and Python types."""
import numpy as np
import pytest

from difftest import check

X = np.arange(12, dtype="float32").reshape(3, 4)


def _meta(expr):
    return (f"import torch\nimport numpy as np\ndef f(x):\n    t = {expr}\n"
            "    return (tuple(t.shape), t.dtype, str(t.device), t.requires_grad, "
            "type(t.shape).__name__, t.stride(), t.is_contiguous())\n")


EMPTY = [
    "torch.empty((3, 4), device=x.device, dtype=x.dtype)", "torch.empty([3, 4])",
    "torch.empty(x.shape, dtype=torch.float16)", "torch.empty(x.size(), device='cpu')",
    "torch.empty(())", "torch.empty([])", "torch.empty((0, 5))", "torch.empty((2, 3), dtype=torch.int64)",
    "torch.empty((2, 3), dtype=torch.bool)", "torch.empty((2,), dtype=torch.bfloat16)",
    "torch.empty(3, 4)", "torch.empty(5)", "torch.empty(size=(3, 4))",
    "torch.empty((3, 4), requires_grad=True)", "torch.empty((3, 4), memory_format=torch.contiguous_format)",
    "torch.empty((np.int64(3), 4))", "torch.empty((True, 2))",
    # errors, same types as torch
    "torch.empty((2, -1))", "torch.empty((2.0, 3))", "torch.empty((2, 2**63))",
    "torch.empty((2**62, 2**62))", "torch.empty(((2, 3),))", "torch.empty((2, 3), dtype=3)",
    "torch.empty((3, 4), size=(3, 4))",
    # sizes spread out (TileLang's adapter: torch.empty(*shape, dtype=..., device=...)), and
    # what must still take the general path or raise as torch does
    "torch.empty(3, 4, device=x.device, dtype=x.dtype)", "torch.empty(2, 3, 4, dtype=torch.float16)",
    "torch.empty(0, 5)", "torch.empty(3, 4, requires_grad=True)", "torch.empty(2, -1)",
    "torch.empty(2, 3.0)", "torch.empty(True, 2)", "torch.empty(np.int64(2), 3)", "torch.empty(2, 2**63)",
    "torch.empty(2**62, 2**62)", "torch.empty(2, (3,))", "torch.empty(3, 4, size=(3, 4))",
    "torch.empty(3, 4, dtype=3)", "torch.empty(2, 3, device='cpu')",
    "torch.empty(2, 3, memory_format=torch.contiguous_format)",
]


@pytest.mark.parametrize("expr", EMPTY)
def test_empty_forms(expr):
    check(_meta(expr), X)


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64", "int8", "uint8",
                                   "int16", "int32", "int64", "bool", "complex64", "complex128"])
def test_empty_like_keeps_every_dtype(dtype):
    check(_meta(f"torch.empty_like(x.to(torch.{dtype}))"), X)


EMPTY_LIKE = [
    "torch.empty_like(x)", "torch.empty_like(x[:, 1:])", "torch.empty_like(x[0, 0])",
    "torch.empty_like(x[:0])", "torch.empty_like(x, dtype=torch.float64)",
    "torch.empty_like(x, device='cpu')", "torch.empty_like(x, requires_grad=True)",
    "torch.empty_like(x, memory_format=torch.contiguous_format)",
    "torch.empty_like(x, memory_format=torch.preserve_format)",
    "torch.empty_like(x.requires_grad_())",     # torch: the new tensor does not require grad
    # pin_memory= (torch's empty_like takes it; True needs an accelerator: RuntimeError on
    # this CPU-only host in both) and layout=, which leave the hot path
    "torch.empty_like(x, pin_memory=False)", "torch.empty_like(x, pin_memory=None)",
    "torch.empty_like(x, pin_memory=True)", "torch.empty_like(x, pin_memory=1)",
    "torch.empty_like(x, dtype=torch.int32, pin_memory=False)",
    "torch.empty_like(x, layout=torch.strided)", "torch.empty_like(x, layout=torch.strided, dtype=torch.float16)",
    "torch.empty_like(x, layout=3)", "torch.empty_like(x[:, ::2])",
]


@pytest.mark.parametrize("expr", EMPTY_LIKE)
def test_empty_like_forms(expr):
    check(_meta(expr), X)


@pytest.mark.parametrize("expr", EMPTY_LIKE[:5])
def test_empty_like_forms_passing_x_place(expr, monkeypatch):
    """The hot path as GPU builds take it (paddle_shims.EMPTY_LIKE_OWN_PLACE is None there:
    Paddle's CUDA build refuses an undefined place): x's place read through
    fast_dtype.place_reader, one Place object per device."""
    from torchproxy.facade import creation
    monkeypatch.setattr(creation, "_OWN_PLACE", None)
    check(_meta(expr), X)


def test_place_reader_answers_x_place():
    """_paddle_tensor.c place(): Paddle's own Place value for every tensor, one object per
    (place type, device) once the facade installed the reading, Paddle's read for what it does
    not read (a 0-size tensor has no allocation), Paddle's error for a non-tensor."""
    import paddle
    from difftest import _ensure_enabled
    from torchproxy.facade import fast_dtype
    _ensure_enabled()
    read = fast_dtype.place_reader()
    a, b = paddle.to_tensor([1.0, 2.0]), paddle.to_tensor([[3]], dtype="int64")
    same = lambda p, q: str(p) == str(q)  # noqa: E731 - 2.6's Place has no __eq__
    assert same(read(a), a.place) and same(read(b), b.place)
    C = fast_dtype._module()
    if C is not None:
        # one object where the reading is installed (the dispatcher's, on both Paddles here)
        assert (read(a) is read(b)) == (C.place_of(a, paddle.Tensor) is not None)
        assert read(a) is read(b) or not hasattr(C, "api") or C.api() is None
        z = paddle.zeros([0, 3])
        assert same(read(z), z.place) and read(z) is not read(z)  # no allocation: Paddle's read
    with pytest.raises(AttributeError):
        read(object())


def _value(expr):
    return f"import torch\nimport numpy as np\ndef f(x):\n    r = {expr}\n    return (r, type(r).__name__)\n"


STRIDE = [
    "x.stride(0)", "x.stride(1)", "x.stride(-1)", "x.stride(-2)", "x.t().stride(0)",
    "x[:, ::2].stride(1)", "x[None].stride(0)", "x[:0].stride(0)", "x.stride()",
    "x.stride(np.int64(1))", "x.stride(2)", "x.stride(-3)", "x.stride(True)", "x.stride(1.0)",
    "x.stride('a')", "x[0, 0].stride()", "x[0, 0].stride(0)",
]


@pytest.mark.parametrize("expr", STRIDE)
def test_stride_forms(expr):
    check(_value(expr), X)


DEVICE = [
    "x.device", "str(x.device)", "repr(x.device)", "x.device.type", "x.device.index",
    "x.device == torch.device('cpu')", "isinstance(x.device, torch.device)",
    "hash(x.device) == hash(torch.device('cpu'))", "x[1:].device == x.device",
]


@pytest.mark.parametrize("expr", DEVICE)
def test_device_forms(expr):
    check(_value(expr), X)


@pytest.mark.parametrize("dtype", ["float8_e4m3fn", "float8_e5m2"])
def test_empty_like_float8(dtype):
    """Paddle 3.x's CPU empty_like has no float8 kernel: the hot path's failure sends float8
    inputs to the general path (Paddle 2.6 has no float8: torch.float8_* is absent there)."""
    import paddle
    if not hasattr(paddle, dtype):
        pytest.skip(f"Paddle {paddle.__version__} has no {dtype}")
    check(_meta(f"torch.empty_like(x.to(torch.{dtype}))"), X)
