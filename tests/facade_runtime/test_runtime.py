"""torch.compile / jit / _dynamo, torch.amp custom_fwd/bwd, torch.backends, torch.version, torch._C."""
import warnings

import numpy as np
import paddle
import pytest

from difftest import check

X = np.linspace(-1, 1, 12, dtype="float32").reshape(3, 4)


def _torch():
    import torchproxy
    from torchproxy.facade import modules
    torchproxy.enable(scope={"difftest_scoped"})
    return modules.build()["torch"]


# -- compile & co: the Python runs as is ---------------------------------------------------------
def test_compile_returns_the_function_in_every_form_and_warns_once(monkeypatch):
    from torchproxy.facade import runtime
    torch = _torch()
    monkeypatch.setattr(runtime, "_notified", False)

    def fn(x):
        return x * 2
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        assert torch.compile(fn) is fn
        assert torch.compile(fn, fullgraph=True, dynamic=False) is fn
        assert torch.compile(mode="max-autotune")(fn) is fn

        @torch.compile
        def g(x):
            return x + 1

        @torch.compile(fullgraph=True)
        def h(x):
            return x - 1
    notices = [m for m in w if "torch.compile runs the function as is" in str(m.message)]
    assert len(notices) == 1 and notices[0].category is RuntimeWarning
    x = paddle.to_tensor(X)
    np.testing.assert_allclose(g(x).numpy(), X + 1)
    np.testing.assert_allclose(h(x).numpy(), X - 1)


def test_jit_and_compiler_passthroughs():
    torch = _torch()

    def fn(x):
        return x

    for deco in (torch.jit.script, torch.jit.ignore, torch.jit.unused, torch._dynamo.disable,
                 torch.compiler.disable, torch._dynamo.allow_in_graph):
        assert deco(fn) is fn
    assert torch.jit.ignore(drop=True)(fn) is fn
    assert torch._dynamo.disable(recursive=False)(fn) is fn


def test_dynamo_disable_and_is_compiling_like_torch():
    check("""
import torch
@torch._dynamo.disable
def g(x):
    return x * 3
@torch.compiler.disable
def h(x):
    return x - 1
def f(x):
    return g(x), h(x), torch.compiler.is_compiling(), torch._dynamo.is_compiling(), \\
        torch.jit.is_scripting(), torch.jit.is_tracing()
""", X)


# -- torch.amp.custom_fwd / custom_bwd --------------------------------------------------------------
@pytest.mark.parametrize("fwd,bwd", [
    ("@torch.amp.custom_fwd(device_type='cpu')", "@torch.amp.custom_bwd(device_type='cpu')"),
    ("@torch.amp.custom_fwd(device_type='cpu', cast_inputs=torch.float64)",
     "@torch.amp.custom_bwd(device_type='cpu')"),
])
def test_amp_custom_fwd_bwd_on_autograd_function(fwd, bwd):
    check(f"""
import torch
class Sq(torch.autograd.Function):
    @staticmethod
    {fwd}
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x
    @staticmethod
    {bwd}
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        return 2 * x * dy
def f(x):
    x = x.requires_grad_()
    y = Sq.apply(x)
    y.sum().backward()
    return y, x.grad
""", X)


def test_liger_kernel_amp_selection_works():
    # liger_kernel/ops/utils.py picks torch.amp.custom_fwd when torch >= 2.4, via packaging
    from packaging.version import Version
    torch = _torch()
    assert Version(torch.__version__) >= Version("2.4.0")
    assert torch.version.__version__ == torch.__version__
    import functools
    fwd = functools.partial(torch.amp.custom_fwd, device_type="cuda")
    assert callable(fwd(lambda ctx, x: x))
    with pytest.raises(ValueError, match="device_type"):  # torch checks only that it is a str
        torch.amp.custom_fwd(lambda ctx: None, device_type=3)


# -- torch.backends --------------------------------------------------------------------------------
def test_matmul_allow_tf32_is_paddles_cublas_switch():
    torch = _torch()
    core = paddle.base.core
    saved = torch.backends.cuda.matmul.allow_tf32
    try:
        torch.backends.cuda.matmul.allow_tf32 = True
        assert torch.backends.cuda.matmul.allow_tf32 is True
        if hasattr(core, "get_cublas_switch"):
            assert core.get_cublas_switch() is True
        torch.backends.cuda.matmul.allow_tf32 = False
        assert torch.backends.cuda.matmul.allow_tf32 is False
        if hasattr(core, "get_cublas_switch"):
            assert core.get_cublas_switch() is False
    finally:
        torch.backends.cuda.matmul.allow_tf32 = saved
    from torchproxy.errors import NotProvidedError
    with pytest.raises(NotProvidedError, match="torch.backends.cuda.matmul.fp32_precision"):
        torch.backends.cuda.matmul.fp32_precision = "tf32"
    assert torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction is True
    torch.backends.cuda.matmul.allow_bf16_reduced_precision_reduction = True
    with pytest.raises(NotImplementedError, match="no Paddle counterpart"):
        torch.backends.cuda.matmul.allow_fp16_reduced_precision_reduction = False


def test_cudnn_flags_context():
    torch = _torch()
    before = torch.backends.cudnn.allow_tf32
    with torch.backends.cudnn.flags(enabled=True, allow_tf32=not before):
        assert torch.backends.cudnn.allow_tf32 is (not before)
    assert torch.backends.cudnn.allow_tf32 is before
    with torch.backends.cudnn.flags(enabled=True, benchmark=True, deterministic=True):
        assert torch.backends.cudnn.benchmark is True
        assert torch.backends.cudnn.deterministic is True
    assert torch.backends.cudnn.benchmark is False
    assert torch.backends.cudnn.deterministic is False
    torch.backends.cudnn.deterministic = True
    try:
        assert torch.backends.cudnn.deterministic is True
        if paddle.is_compiled_with_cuda():  # the Paddle flag itself
            assert paddle.get_flags(["FLAGS_cudnn_deterministic"])["FLAGS_cudnn_deterministic"]
    finally:
        torch.backends.cudnn.deterministic = False
    from torchproxy.errors import NotProvidedError
    with pytest.raises(NotProvidedError, match=r"torch\.backends\.cudnn\.allow_fp16"):
        torch.backends.cudnn.allow_fp16 = True  # unknown flags are not silently ignored
    with pytest.raises(NotImplementedError, match="enabled = False"):
        torch.backends.cudnn.enabled = False
    torch.backends.cudnn.enabled = True


def test_import_backends_cudnn_as_a_module_like_torch():
    """pytorch/examples dcgan: ``import torch.backends.cudnn as cudnn`` then
    ``cudnn.benchmark = True`` (the facade's cudnn was an object: the import raised
    ModuleNotProvidedError)."""
    check("""
import types
import torch
import torch.backends.cudnn as cudnn
def f():
    before = cudnn.benchmark
    cudnn.benchmark = True
    try:
        return (before, cudnn.benchmark, torch.backends.cudnn.benchmark,
                cudnn is torch.backends.cudnn, isinstance(cudnn, types.ModuleType),
                cudnn.__name__)
    finally:
        cudnn.benchmark = False
""")


# -- torch._C ----------------------------------------------------------------------------------------
@pytest.mark.skipif(paddle.is_compiled_with_cuda(), reason="the no-CUDA answer")
def test_private_cuda_entry_points_without_cuda():
    torch = _torch()
    # torch's CPU build has no such attributes; called here they fail like torch.cuda's calls
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch._C._cuda_getCurrentRawStream(0)
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        torch._C._cuda_getDevice()


def test_triton_gpu_driver_reads_through_the_facade():
    # what triton.backends.driver.GPUDriver.__init__ does with `import torch`
    torch = _torch()
    from torchproxy.facade import cuda
    assert torch.cuda.get_device_capability is cuda.get_device_capability
    assert torch.cuda.current_device is cuda.current_device
    assert torch.cuda.set_device is cuda.set_device
    assert callable(torch._C._cuda_getCurrentRawStream)


def test_cuda_amp_decorators_and_small_queries_like_torch():
    check("""
import warnings
import torch
with warnings.catch_warnings():
    warnings.simplefilter("ignore")            # torch deprecates torch.cuda.amp.custom_fwd
    class Twice(torch.autograd.Function):
        @staticmethod
        @torch.cuda.amp.custom_fwd
        def forward(ctx, x):
            return x * 2
        @staticmethod
        @torch.cuda.amp.custom_bwd
        def backward(ctx, dy):
            return dy * 2
def f(x):
    x = x.requires_grad_()
    y = Twice.apply(x)
    y.sum().backward()
    with torch.cuda.device_of(x):
        inside = torch.cuda.is_available()
    return y, x.grad, inside, torch.backends.cuda.is_built(), torch.compiler.is_dynamo_compiling()
""", X)


def test_version_module_values():
    torch = _torch()
    assert torch.version.debug is False
    assert torch.version.__version__ == "2.6.0+torchproxy"


@pytest.mark.parametrize("expr", ["torch.is_autocast_enabled()", "torch.is_autocast_enabled('cpu')",
                                  "torch.is_autocast_enabled('cuda')",
                                  "torch.get_autocast_dtype('cuda')", "torch.get_autocast_dtype('cpu')",
                                  "torch.get_autocast_gpu_dtype()"])
def test_autocast_queries_outside_autocast(expr):
    # Liger-Kernel's fused_linear_cross_entropy asks these on every call
    check(f"""
import torch
def f():
    return {expr}
""")
