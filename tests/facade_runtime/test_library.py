"""torch.library / torch.ops: real torch vs the facade (CPU tensors; each test its own op names,
since real torch's operator registry is process-wide)."""
import itertools

import numpy as np
import pytest

from difftest import check

X = np.arange(6, dtype="float32").reshape(2, 3) / 4
_n = itertools.count()


def ns():
    return f"tpx{next(_n)}"


def test_custom_op_call_and_torch_ops():
    check(f"""
import torch
@torch.library.custom_op("{ns()}::scale", mutates_args=())
def scale(x: torch.Tensor, k: float) -> torch.Tensor:
    return x * k
def f(x):
    return scale(x, 2.0)
""", X)
    name = ns()
    check(f"""
import torch
@torch.library.custom_op("{name}::scale", mutates_args=(), device_types="cpu")
def scale(x: torch.Tensor, k: float) -> torch.Tensor:
    return x * k
def f(x):
    return torch.ops.{name}.scale(x, 3.0), torch.ops.{name}.scale.default(x, k=0.5)
""", X)


def test_custom_op_decorator_call_forms():
    name = ns()
    check(f"""
import torch
def impl(x: torch.Tensor) -> torch.Tensor:
    return x + 1
op = torch.library.custom_op("{name}::plus1", impl, mutates_args=())
def f(x):
    return op(x), torch.ops.{name}.plus1(x)
""", X)


def test_custom_op_for_cuda_only_refuses_cpu_tensors():
    check(f"""
import torch
@torch.library.custom_op("{ns()}::gpu_only", mutates_args=(), device_types="cuda")
def g(x: torch.Tensor) -> torch.Tensor:
    return x * 2
def f(x):
    return g(x)
""", X)


def test_register_kernel_for_cpu_overrides_default():
    name = ns()
    check(f"""
import torch
@torch.library.custom_op("{name}::op", mutates_args=())
def op(x: torch.Tensor) -> torch.Tensor:
    return x * 2
@op.register_kernel("cpu")
def _(x):
    return x * 10
@torch.library.register_fake("{name}::op")
def _(x):
    return torch.empty_like(x)
def f(x):
    return op(x)
""", X)


def test_mutating_op():
    check(f"""
import torch
@torch.library.custom_op("{ns()}::fill2", mutates_args=("out",))
def fill2(x: torch.Tensor, out: torch.Tensor) -> None:
    out.copy_(x * 2)
def f(x):
    out = torch.zeros_like(x)
    r = fill2(x, out)
    return r is None, out
""", X)


def test_returning_an_input_is_refused():
    check(f"""
import torch
@torch.library.custom_op("{ns()}::ident", mutates_args=())
def ident(x: torch.Tensor) -> torch.Tensor:
    return x
def f(x):
    return ident(x)
""", X)


@pytest.mark.parametrize("bad", ['torch.library.custom_op("{n}::h")',
                                 'torch.library.custom_op("{n}::noann", mutates_args=())',
                                 'torch.library.custom_op("{n}::m", mutates_args="x")',
                                 'torch.library.custom_op("nonamespace", mutates_args=())'])
def test_custom_op_argument_errors(bad):
    check(f"""
import torch
def f(x):
    def h(x):
        return x
    return {bad.format(n=ns())}(h)
""", X)


def test_register_autograd_grads_match_torch():
    check(f"""
import torch
@torch.library.custom_op("{ns()}::mysin", mutates_args=())
def mysin(x: torch.Tensor, k: float) -> torch.Tensor:
    return torch.sin(x) * k
def setup_context(ctx, inputs, output):
    x, k = inputs
    ctx.save_for_backward(x)
    ctx.k = k
def backward(ctx, grad):
    (x,) = ctx.saved_tensors
    return grad * torch.cos(x) * ctx.k, None
mysin.register_autograd(backward, setup_context=setup_context)
def f(x):
    x = x.requires_grad_()
    y = mysin(x, 2.0)
    y.sum().backward()
    return y, x.grad
""", X)


def test_library_define_and_impl():
    name = ns()
    check(f"""
import torch
lib = torch.library.Library("{name}", "DEF")
lib.define("axpy(Tensor x, Tensor y, float a) -> Tensor")
lib.impl("axpy", lambda x, y, a: x * a + y, "CPU")
def f(x):
    return torch.ops.{name}.axpy(x, x, 2.0)
""", X)


def test_unknown_op_raises_attribute_error_naming_it():
    check("""
import torch
def f(x):
    return torch.ops.tpx_nowhere.nothing
""", X)
    from torchproxy.errors import NotProvidedError
    from torchproxy.facade import modules
    torch = modules.build()["torch"]
    with pytest.raises(NotProvidedError, match=r"torch\.ops\.aten\.convolution_backward"):
        torch.ops.aten.convolution_backward


def test_wrap_triton_returns_the_jit_kernel():
    triton = pytest.importorskip("triton")
    import triton.language as tl
    from torchproxy.facade import modules
    torch = modules.build()["torch"]

    @triton.jit
    def k(X, n: tl.constexpr):
        pass
    assert torch.library.wrap_triton(k) is k
    with pytest.raises(RuntimeError, match="wrap_triton"):
        torch.library.wrap_triton(lambda: None)


def test_functional_registration_forms():
    name = ns()
    check(f"""
import torch
@torch.library.triton_op("{name}::cube", mutates_args=())
def cube(x: torch.Tensor) -> torch.Tensor:
    return x * x * x
def _setup(ctx, inputs, output):
    ctx.save_for_backward(inputs[0])
def _bwd(ctx, g):
    (x,) = ctx.saved_tensors
    return 3 * x * x * g
torch.library.register_autograd("{name}::cube", _bwd, setup_context=_setup)
lib = torch.library.Library("{name}", "FRAGMENT")
lib.define("twice(Tensor x) -> Tensor")
@torch.library.impl("{name}::twice", "CPU")
def _(x):
    return x * 2
@torch.library.custom_op("{name}::half", mutates_args=(), device_types="cuda")
def half(x: torch.Tensor) -> torch.Tensor:
    return x / 2
torch.library.register_kernel("{name}::half", "cpu", lambda x: x / 4)
def f(x):
    x = x.requires_grad_()
    y = torch.ops.{name}.cube(x)
    y.sum().backward()
    with torch.no_grad():
        t = torch.ops.{name}.twice(x)
        h = half(x)
    return y, x.grad, t, h
""", X)


def test_mutates_args_must_name_parameters():
    check(f"""
import torch
def f(x):
    @torch.library.custom_op("{ns()}::bad", mutates_args=("nope",))
    def bad(x: torch.Tensor) -> torch.Tensor:
        return x * 2
    return bad(x)
""", X)
