"""Creation functions with torch signatures (values where deterministic, else shape/dtype)."""
import numpy as np
import paddle
import pytest

from difftest import check, load
from _cases import F16, F32, I64

DETERMINISTIC = [
    "torch.zeros(2, 3)", "torch.zeros((2, 3))", "torch.zeros([2, 3])", "torch.zeros(torch.Size([2, 3]))",
    "torch.zeros(0)", "torch.zeros(())", "torch.zeros(2, dtype=torch.int32)",
    "torch.zeros(2, 3, dtype=torch.float16, device='cpu')", "torch.zeros(2, requires_grad=True)",
    "torch.ones(3)", "torch.ones(2, 2, dtype=torch.bool)", "torch.ones((1, 2), dtype=torch.bfloat16)",
    "torch.full((2, 2), 7)", "torch.full((2,), 1.5)", "torch.full([2], True)",
    "torch.full((2, 3), 2, dtype=torch.float32)", "torch.full((), 3.0)",
    "torch.arange(5)", "torch.arange(1, 4)", "torch.arange(0, 1, 0.25)", "torch.arange(5.0)",
    "torch.arange(10, 0, -3)", "torch.arange(0, 10, 3, dtype=torch.float32)",
    "torch.arange(4, dtype=torch.float16)", "torch.arange(1, 2.5, 0.5)", "torch.arange(0)",
    "torch.arange(start=2, end=6)", "torch.arange(0, 5, 0)", "torch.arange(5, 0)",
    "torch.linspace(0, 1, 5)", "torch.linspace(-1, 1, steps=4)", "torch.linspace(0, 10, 3, dtype=torch.int64)",
    "torch.linspace(0, 1, 1)", "torch.linspace(0, 1, 0)",
    "torch.eye(3)", "torch.eye(2, 3)", "torch.eye(3, dtype=torch.int64)", "torch.eye(0)",
    "torch.tensor([1, 2, 3])", "torch.tensor([1.0, 2])", "torch.tensor(3.5)", "torch.tensor(True)",
    "torch.tensor([[1, 2], [3, 4]], dtype=torch.float16)", "torch.tensor([])",
    "torch.tensor([1.5], requires_grad=True)", "torch.tensor([1, 2], dtype=torch.bfloat16)",
    "torch.tensor(7, device='cpu')", "torch.tensor([True, False])", "torch.tensor([[1.0], [2.0]]).shape",
    "torch.as_tensor([1, 2])", "torch.as_tensor([1.0], dtype=torch.float64)",
    "torch.zeros(-1)", "torch.ones(2, 'a')", "torch.tensor([1], requires_grad=True)",
    "torch.zeros(2.5)",
]


@pytest.mark.parametrize("expr", DETERMINISTIC)
def test_creation_values(expr):
    check(f"import torch\ndef f():\n    return {expr}\n")


LIKE = ["torch.zeros_like(x)", "torch.ones_like(x)", "torch.full_like(x, 3)", "torch.full_like(x, 2.5)",
        "torch.zeros_like(x, dtype=torch.float64)", "torch.ones_like(x, device='cpu')",
        "torch.empty_like(x).shape", "torch.empty_like(x).dtype", "torch.empty_like(x, dtype=torch.int32).dtype",
        "torch.empty_like(x, requires_grad=True).requires_grad" , "torch.randn_like(x).shape",
        "torch.rand_like(x).dtype", "torch.zeros_like(x.t())", "torch.empty_like(x.t()).shape",
        "x.new_zeros(2, 3)", "x.new_zeros((2,))", "x.new_ones([1, 2])", "x.new_full((2,), 4)",
        "x.new_zeros(2, dtype=torch.int64)", "x.new_tensor([1, 2])", "x.new_tensor([[1.5]])",
        "x.new_tensor([1, 2], dtype=torch.int32)", "x.new_empty(3).shape", "x.new_empty((2, 2)).dtype",
        "torch.tensor(x)", "torch.as_tensor(x) is x", "torch.as_tensor(x, dtype=torch.float64)",
        "torch.tensor([x[0, 0], x[1, 1]])"]


@pytest.mark.parametrize("expr", LIKE)
@pytest.mark.parametrize("x", [F32, F16, I64], ids=["f32", "f16", "i64"])
def test_like(expr, x):
    if "requires_grad=True" in expr and x is I64:
        pytest.skip("int tensors cannot require grad: covered in test_creation_values")
    check(f"import torch\ndef f(x):\n    return {expr}\n", x)


RANDOM = ["torch.randn(2, 3)", "torch.randn((4,))", "torch.randn(2, dtype=torch.float64)",
          "torch.rand(3, 2)", "torch.rand(2, dtype=torch.float16)", "torch.randn(2, dtype=torch.bfloat16)",
          "torch.randint(10, (3,))", "torch.randint(2, 5, (2, 2))", "torch.randint(0, 3, size=(4,))",
          "torch.randint(5, (2,), dtype=torch.int32)", "torch.randn(0, 3)", "torch.rand(2, requires_grad=True)"]


@pytest.mark.parametrize("expr", RANDOM)
@pytest.mark.parametrize("prop", ["shape", "dtype", "requires_grad", "device"])
def test_random_meta(expr, prop):
    check(f"import torch\ndef f():\n    return {expr}.{prop}\n")


@pytest.mark.parametrize("expr", ["torch.rand(1000)", "torch.randint(3, 7, (1000,))"])
def test_random_ranges(expr):
    mod = load(f"import torch\ndef f():\n    return {expr}\n", scoped=True)
    v = mod.f().numpy()
    if "randint" in expr:
        assert v.min() >= 3 and v.max() <= 6 and len(np.unique(v)) == 4
    else:
        assert v.min() >= 0 and v.max() < 1 and 0.4 < v.mean() < 0.6


def test_randn_statistics():
    mod = load("import torch\ndef f():\n    return torch.randn(20000)\n", scoped=True)
    v = mod.f().numpy()
    assert abs(v.mean()) < 0.05 and abs(v.std() - 1) < 0.05


@pytest.mark.parametrize("expr", ["torch.empty(2, 3).shape", "torch.empty((2, 3), dtype=torch.int8).dtype",
                                  "torch.empty(0).shape", "torch.empty(2, device='cpu').device",
                                  "torch.empty([3], requires_grad=True).requires_grad",
                                  "torch.empty(4, dtype=torch.float16).stride()",
                                  "torch.empty_strided((2, 3), (1, 2)).stride()",
                                  "torch.empty_strided((2, 3), (1, 2)).shape",
                                  "torch.empty_strided((2, 3), (3, 1)).is_contiguous()",
                                  "torch.empty_strided((0, 3), (3, 1)).shape",
                                  "torch.empty(2, 3, memory_format=torch.contiguous_format).shape"])
def test_empty(expr):
    check(f"import torch\ndef f():\n    return {expr}\n")


def test_from_numpy_shares_memory():
    check("""
import numpy as np
import torch
def f():
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    t = torch.from_numpy(a)
    a[0, 0] = 42
    t[1, 1] = -1
    return t, torch.tensor(a.copy()), t.dtype, torch.from_numpy(np.zeros(3, np.int16)).dtype
""")


@pytest.mark.parametrize("body", [
    # pytorch/examples super_resolve.py: out_img_y = out[0].detach().numpy(); out_img_y *= 255.0
    # (torch's out holds the scaled values after; Paddle's numpy() was a copy)
    "out = torch.arange(8.).reshape(2, 1, 2, 2) / 8\n    a = out[0].detach().numpy()\n"
    "    a *= 255.0\n    return out, a.tolist()",
    # strides and offset of views, both directions of writing
    "x = torch.arange(12.).reshape(3, 4)\n    a = x[1:, 1:3].numpy()\n    a[0, 0] = 100\n"
    "    x.add_(1)\n    return x, a.tolist(), a.strides, a.flags.writeable",
    "x = torch.arange(6, dtype=torch.int32).reshape(2, 3)\n    a = x.t().numpy()\n"
    "    a[0, 1] = -5\n    return x, a.strides, a.dtype.name",
    "t = torch.ones(2, requires_grad=True)\n    a = t.numpy(force=True)\n    a[0] = 5\n"
    "    return t.detach(), a.tolist()",
    "x = torch.tensor(3.5)\n    a = x.numpy()\n    a[()] = 1.5\n    return x, a.shape",
    "x = torch.ones(0, 3)\n    return x.numpy().shape, x.numpy().dtype.name",
    "x = torch.tensor([True, False])\n    a = x.numpy()\n    a[1] = True\n    return x",
    "return torch.ones(2, requires_grad=True).numpy()",
    "return torch.ones(2, dtype=torch.bfloat16).numpy()",
    # the array keeps the memory it was made on when the tensor's is released or replaced
    # (Paddle does both in place: the array must hold its own view of the allocation)
    "p = torch.nn.Parameter(torch.ones(4))\n    (p * 3).sum().backward()\n"
    "    a = p.grad.numpy()\n    p.grad = None\n    junk = [torch.full((4,), 7.0) for _ in "
    "range(50)]\n    return a.tolist(), p.grad is None",
    "x = torch.arange(6.)\n    a = x.numpy()\n    x.data = torch.full((6,), 5.0)\n"
    "    junk = [torch.full((6,), 9.0) for _ in range(50)]\n    a[0] = -1\n"
    "    return a.tolist(), x",
    # np.asarray / np.array go through Tensor.__array__: numpy()'s array, as torch's
    "import numpy as np\n    t = torch.ones(3)\n    a = np.asarray(t)\n    a[0] = 5\n"
    "    return t, a.dtype.name",
    "import numpy as np\n    t = torch.arange(6.).view(2, 3).t()\n"
    "    return np.asarray(t, dtype=np.float64), np.asarray(t).strides",
    "import numpy as np\n    return np.asarray(torch.nn.Parameter(torch.ones(2)))",
])
def test_numpy_shares_memory_like_torch(body):
    check(f"import torch\ndef f():\n    {body}\n")


def test_numpy_array_outlives_a_resize_of_its_tensor():
    # real torch refuses the resize ("Trying to resize storage that is not resizable"); the
    # facade resizes into new memory, and the array must keep the old (with a detach()-based
    # array it read freed memory on Paddle 3.3 and zeros on 2.6)
    mod = load("import torch\ndef f():\n    x = torch.arange(6.)\n    a = x.numpy()\n"
               "    x.resize_(1000)\n    junk = [torch.full((1000,), 9.0) for _ in range(20)]\n"
               "    return a.tolist(), x.shape[0]\n", scoped=True)
    assert mod.f() == ([0.0, 1.0, 2.0, 3.0, 4.0, 5.0], 1000)


def test_tensor_copies():
    check("""
import numpy as np
import torch
def f():
    a = np.arange(3, dtype=np.float32)
    t = torch.tensor(a)
    a[0] = 42
    return t
""")


def test_out_and_seed():
    check("""
import torch
def f():
    out = torch.empty(2, 2)
    r = torch.zeros(2, 2, out=out)
    return r is out, out, torch.arange(4, out=torch.empty(4, dtype=torch.int64))
""")


@pytest.mark.parametrize("fn", ["rand", "randn", "rand_like", "randn_like"])
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_random_draws(fn, dtype):
    # torch draws complex rand/randn part by part (randn: each part of variance 1/2); values
    # differ between generators, so the dtype, shape and the parts' moments are compared
    check(f"""
import torch
def f():
    torch.manual_seed(0)
    like = torch.zeros(100000, 2, dtype=torch.{dtype})
    x = torch.{fn}(like) if "{fn}".endswith("_like") else torch.{fn}(100000, 2, dtype=torch.{dtype})
    stats = [round(float(p.mean()), 1) for p in (x.real, x.imag)]
    stats += [round(float(p.var()), 2) for p in (x.real, x.imag)]
    return x.dtype, tuple(x.shape), stats
""")


@pytest.mark.parametrize("call", ["torch.rand(3, dtype=torch.int64)", "torch.randn(3, dtype=torch.bool)",
                                  "torch.randn(2, dtype=torch.uint8)",
                                  "torch.rand_like(torch.zeros(2, dtype=torch.int32))"])
def test_random_draws_of_integer_dtypes_are_refused(call):
    check(f"""
import torch
def f():
    return {call}
""")


@pytest.mark.parametrize("call", [
    "torch.empty(3, pin_memory={p}).shape", "torch.zeros(3, pin_memory={p})",
    "torch.ones(2, 2, pin_memory={p})", "torch.full((2,), 1.5, pin_memory={p})",
    "torch.tensor([1.0], pin_memory={p})", "torch.empty_strided((2,), (1,), pin_memory={p}).shape",
    "torch.randn(2, pin_memory={p}).shape", "torch.rand(2, pin_memory={p}).shape",
    "torch.randperm(3, pin_memory={p}).shape", "torch.scalar_tensor(1.0, pin_memory={p})",
    "torch.empty_like(torch.ones(2), pin_memory={p}).shape",
    "torch.normal(0.0, 1.0, (2,), pin_memory={p}).shape",
    "torch.ones(2).new_empty_strided((2,), (1,), pin_memory={p}).shape",
    "torch.empty_permuted((2, 3), (1, 0), pin_memory={p}).shape",
])
@pytest.mark.parametrize("p", [False, True])
def test_pin_memory_is_refused_without_an_accelerator_as_torch(call, p):
    """pin_memory=True asks for page-locked host memory: torch's CPU build refuses it
    (RuntimeError); it is never silently ignored.  pin_memory=False is accepted."""
    check(f"""
import torch
def f():
    return {call.format(p=p)}
""")


@pytest.mark.parametrize("call", ["torch.ones(2).is_pinned()", "torch.ones(2).pin_memory()",
                                  "torch.ones(2, requires_grad=True).pin_memory()"])
def test_tensor_pinning_without_an_accelerator_as_torch(call):
    """Tensor.is_pinned() is False and Tensor.pin_memory() torch's RuntimeError on a build
    without an accelerator (gpu/facade_cuda_check.py compares pinning with torch's CUDA build)."""
    check(f"""
import torch
def f():
    return {call}
""")


@pytest.mark.parametrize("dtype", ["bfloat16", "float16", "float32", "float64", "int8", "uint8",
                                   "int32", "int64", "bool", "complex64"])
def test_tolist_gives_python_numbers(dtype):
    # Paddle's own tolist gave a bfloat16 tensor's raw bits (16256 for 1.0) on 2.6.2 and 3.3.1;
    # the types of the items are compared too (float, not int)
    check(f"""
import torch
def f():
    x = (torch.arange(12) % 7 - 3).to(torch.{dtype}).reshape(3, 4)
    nested, scalar = x.t()[1:].tolist(), x[1, 2].tolist()
    return nested, [[type(v).__name__ for v in row] for row in nested], scalar, type(scalar).__name__
""")
