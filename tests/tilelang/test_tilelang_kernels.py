"""Unmodified TileLang kernels (kernels/tilelang) under torchproxy, on a machine without a GPU.

- the three GPU kernels lower to CUDA for Hopper (sm_90a: TileLang's own arch for H100/H200,
  whose wgmma/setmaxnreg need the arch-specific variant) and nvcc builds them;
- the CPU-style GEMM (target "c") runs end to end on Paddle CPU tensors against numpy;
- tilelang.jit with no target on a toolkit-but-no-GPU machine gets torchproxy's message.

Runs in a venv with TileLang (tilelang-paddle 0.1.13 or upstream tilelang 0.1.15); skipped
where TileLang is not installed.
"""
import importlib.util
import shutil
import subprocess
import sys

import numpy as np
import pytest

# find, not import: TileLang must first be imported with the proxy enabled.  A spec without
# an origin is a namespace package: tests/tilelang itself when tests/ is on sys.path.
_spec = importlib.util.find_spec("tilelang")
if _spec is None or _spec.origin in (None, "namespace"):
    pytest.skip("TileLang is not installed", allow_module_level=True)

import torchproxy  # noqa: E402
from torchproxy.facade.modules import FacadeModule  # noqa: E402

SCOPE = {"tilelang", "kernels.tilelang"}
torchproxy.enable(scope=SCOPE)

import paddle  # noqa: E402
import tilelang  # noqa: E402
import tvm  # noqa: E402  (TileLang's bundled TVM)
from tvm.target import Target  # noqa: E402

from kernels.tilelang import cpu_gemm, matmul_relu, rmsnorm, softmax  # noqa: E402

HOPPER = Target({"kind": "cuda", "arch": "sm_90a"})
NVCC = shutil.which("nvcc")

# kernel module, factory args, kernel symbol, pieces the generated source must contain
GPU_KERNELS = {
    "matmul_relu": (matmul_relu.matmul_relu_kernel, (256, 256, 128), "matmul_relu_kernel",
                    ["half_t* __restrict__ C",          # fp16 out
                     "float C_local[",                  # fp32 accumulator fragment
                     "CUtensorMap A_desc",              # TMA loads on Hopper
                     "wgmma"]),                         # Hopper tensor-core MMA
    "rmsnorm": (rmsnorm.rmsnorm_kernel, (64, 512), "rmsnorm_kernel",
                ["const float* __restrict__ X", "const float* __restrict__ W",
                 "float* __restrict__ Y", "rsqrt", "AllReduce<tl::SumOp"]),
    "softmax": (softmax.softmax_kernel, (64, 512), "softmax_kernel",
                ["const float* __restrict__ X", "float* __restrict__ Y",
                 "AllReduce<tl::MaxOp", "AllReduce<tl::SumOp", "expf"]),
}


def test_kernel_modules_got_the_facade():
    for mod in (matmul_relu, rmsnorm, softmax, cpu_gemm):
        assert isinstance(mod.torch, FacadeModule), mod.__name__
    # and TileLang's own modules too, including its compiled Cython launcher
    # (tilelang.jit is also a function name: read the submodule from sys.modules)
    cy = sys.modules["tilelang.jit.adapter.cython.adapter"]
    assert isinstance(cy.torch, FacadeModule)
    import tilelang_cython_wrapper
    assert isinstance(tilelang_cython_wrapper.torch, FacadeModule)


def _lower(name):
    factory, args, _, _ = GPU_KERNELS[name]
    with tvm.transform.PassContext(opt_level=3), HOPPER:
        return tilelang.lower(factory.get_tir(*args), target=HOPPER)


@pytest.fixture(scope="module")
def sources():
    return {name: _lower(name).kernel_source for name in GPU_KERNELS}


@pytest.mark.parametrize("name", sorted(GPU_KERNELS))
def test_lowers_to_cuda_for_hopper(sources, name):
    _, _, symbol, pieces = GPU_KERNELS[name]
    src = sources[name]
    assert f'extern "C" __global__ void __launch_bounds__(' in src
    assert f") {symbol}(" in src
    for piece in pieces:
        assert piece in src, f"{piece!r} not in the generated {name} kernel"


def _tilelang_includes():
    from tilelang import env
    return [f"-I{env.TILELANG_TEMPLATE_PATH}", f"-I{env.CUTLASS_INCLUDE_DIR}"]


@pytest.mark.skipif(NVCC is None, reason="nvcc not on PATH")
@pytest.mark.parametrize("name", sorted(GPU_KERNELS))
def test_nvcc_builds_sm90a_cubin(sources, name, tmp_path):
    """nvcc compiles the generated source for sm_90a (device code only: ``-c`` would also run
    the host pass, where the Hopper-only templates of tl_templates static_assert by design;
    TileLang itself builds with --cubin/--ptx).  The PTX must target sm_90a and, for the GEMM,
    use wgmma; the cubin must hold the kernel's code section."""
    _, _, symbol, _ = GPU_KERNELS[name]
    cu = tmp_path / f"{name}.cu"
    cu.write_text(sources[name])
    keep = tmp_path / "keep"
    keep.mkdir()
    cubin = tmp_path / f"{name}.cubin"
    cmd = [NVCC, "-arch=sm_90a", "-std=c++20", "--cubin", "-keep", f"--keep-dir={keep}",
           "-o", str(cubin), *_tilelang_includes(), str(cu)]
    out = subprocess.run(cmd, capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr[-4000:]
    blob = cubin.read_bytes()
    assert blob[:4] == b"\x7fELF"
    assert f".text.{symbol}".encode() in blob
    ptx = "".join(p.read_text() for p in keep.glob("*.ptx"))
    assert ".target sm_90a" in ptx
    assert f".entry {symbol}(" in ptx
    if name == "matmul_relu":
        assert "wgmma.mma_async" in ptx


def test_cpu_gemm_runs_on_paddle_tensors():
    rng = np.random.default_rng(0)
    a = rng.standard_normal((32, 48)).astype("float32")
    b = rng.standard_normal((48, 64)).astype("float32")
    c = cpu_gemm.cpu_gemm(paddle.to_tensor(a), paddle.to_tensor(b))
    assert isinstance(c, paddle.Tensor)
    assert c.shape == [32, 64] and c.dtype == paddle.float32
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-5, atol=1e-5)


def test_cpu_gemm_kernel_source_is_c():
    kernel = cpu_gemm.cpu_gemm_kernel(16, 16, 16)
    src = kernel.get_kernel_source()
    assert "cpu_gemm" in src and "float" in src
    assert "__global__" not in src  # C, not CUDA


def test_cpu_gemm_writes_into_a_given_output():
    """out_idx=-1 allocates C with the facade's torch.empty; a second kernel without out_idx
    writes into a Paddle tensor we own (same memory before and after)."""
    M = N = K = 16
    kernel = tilelang.compile(cpu_gemm.cpu_gemm_kernel.get_tir(M, N, K), target="c")
    a = np.arange(M * K, dtype="float32").reshape(M, K) / 100
    b = np.eye(K, N, dtype="float32") * 3
    c = paddle.full([M, N], -7.0, dtype="float32")
    ptr = c.data_ptr()
    kernel(paddle.to_tensor(a), paddle.to_tensor(b), c)
    assert c.data_ptr() == ptr
    np.testing.assert_allclose(c.numpy(), a @ b, rtol=1e-6)


@pytest.mark.skipif(NVCC is None, reason="the case needs a CUDA toolkit")
def test_jit_without_target_on_a_gpu_less_machine_says_so():
    if paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0:
        pytest.skip("this machine has a GPU Paddle can use")
    with pytest.raises(Exception) as info:
        softmax.softmax_kernel(64, 512)  # @tilelang.jit with no target: auto-detection
    msg = str(info.value)
    assert "torchproxy: TileLang needs a target" in msg
    assert "sees no CUDA GPU" in msg and "target='c'" in msg
    assert "nvcc" not in type(info.value).__name__.lower()


def test_explicit_bare_cuda_target_on_a_gpu_less_machine_says_so():
    if paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0:
        pytest.skip("this machine has a GPU Paddle can use")
    from torchproxy.integrations.tilelang import NoCudaDeviceError
    with pytest.raises(NoCudaDeviceError, match="sm_50"):
        tilelang.compile(softmax.softmax_kernel.get_tir(64, 512), target="cuda")


def test_scoped_modules_are_recorded_as_facade_users():
    st = torchproxy.status()
    assert "tilelang.jit.adapter.cython.adapter" in st["facade_users"]
    assert "kernels.tilelang.matmul_relu" in st["facade_users"]
