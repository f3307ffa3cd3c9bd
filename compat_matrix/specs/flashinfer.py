"""FlashInfer (flashinfer-ai/flashinfer): CUDA kernels for LLM serving, JIT-built with nvcc into
tvm-ffi modules that take tensors through DLPack; torch-style Python wrappers.

Rows: the Paddle-maintained port ``flashinfer-python-paddle`` (or upstream
``flashinfer-python``: both install the ``flashinfer`` package; the spec runs whichever is
installed).  CPU: import and the norm JIT build for sm_90a (nvcc, no GPU needed).  GPU: the
norm / activation ops against numpy references.  The JIT environment (arch, cache, CUDA
headers and link libraries) is set by ``torchproxy.integrations.flashinfer:configure_jit``
from the variables below; on a CPU machine set TORCHPROXY_CUDA_EXTRA to the folder made by
tests/flashinfer/setup_env.sh (cuBLAS/cuRAND headers, libcuda stub).
"""
import numpy as np

from compat_matrix.spec import Case, Library, randn

LIBRARY = Library(
    name="flashinfer",
    scope=("flashinfer",),
    requires=("flashinfer", "tvm_ffi"),
    imports=("flashinfer", "flashinfer.norm"),
    # apache-tvm-ffi is pinned with torchproxy's own test needs (ci/requirements-main-nodeps.txt)
    pip=("flashinfer-python-paddle==0.4.1.1", "filelock", "jinja2", "markupsafe", "requests",
         "urllib3", "charset-normalizer", "idna", "certifi", "packaging", "typing-extensions"),
    install=("pip install --no-deps -r ci/requirements-main-nodeps.txt   # apache-tvm-ffi",
             "bash tests/flashinfer/setup_env.sh   # CPU build: CUDA headers + libcuda stub"),
    scan=("flashinfer",),
    devices=("cpu", "gpu"),
    env=(("FLASHINFER_CUDA_ARCH_LIST", "9.0a"),
         ("FLASHINFER_WORKSPACE_BASE", "/tmp/torchproxy-matrix-flashinfer"),
         ("MAX_JOBS", "2")),
    # every backend builds with the same toolchain set-up (it only sets unset variables)
    setup=(("*", "*", "torchproxy.integrations.flashinfer:configure_jit"),),
    notes="the kernels need an sm_75+ GPU; on CPU only import and the JIT build run",
)


def jit_build_norm():
    """Build FlashInfer's norm module; 1.0 when the .so holds sm_90a code and its entry points."""
    import re

    import flashinfer
    spec = flashinfer.jit.norm.gen_norm_module()
    spec.build(verbose=False)
    with open(spec.get_library_path(), "rb") as f:
        data = f.read()
    archs = sorted(set(re.findall(rb"sm_[0-9]+a?", data)))
    return float(archs == [b"sm_90a"] and b"__tvm_ffi_rmsnorm" in data)


def rmsnorm(x, w):
    import flashinfer
    return flashinfer.norm.rmsnorm(x, w, eps=1e-6, enable_pdl=False)


def fused_add_rmsnorm(x, r, w):
    import flashinfer
    flashinfer.norm.fused_add_rmsnorm(x, r, w, eps=1e-6, enable_pdl=False)
    return x, r  # both mutated in place


def silu_and_mul(x):
    import flashinfer
    return flashinfer.activation.silu_and_mul(x, enable_pdl=False)


def _rms(x, w, eps=1e-6):
    x = x.astype(np.float32)
    return (x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w.astype(np.float32)).astype(np.float16)


def _fused_ref(x, r, w):
    s = x.astype(np.float32) + r.astype(np.float32)
    return _rms(s, w), s.astype(np.float16)


def _silu_ref(x):
    d = x.shape[-1] // 2
    a, b = x[..., :d].astype(np.float32), x[..., d:].astype(np.float32)
    return (a / (1 + np.exp(-a)) * b).astype(np.float16)


F16 = {"float16": (1e-3, 1e-3)}
CASES = [
    Case("jit_build_norm", jit_build_norm, reference=lambda: 1.0, timeout=900,
         notes="nvcc build, ~1-2 min on 2 cores the first time, cached after"),
    Case("rmsnorm_99x1024", rmsnorm, inputs=[randn(99, 1024, dtype="float16"),
                                             randn(1024, dtype="float16", scale=0.5)],
         reference=_rms, tol=F16, devices=("gpu",), timeout=600),
    Case("rmsnorm_qk_3d", rmsnorm, inputs=[randn(3, 8, 128, dtype="float16"),
                                           randn(128, dtype="float16", scale=0.5)],
         reference=_rms, tol=F16, devices=("gpu",), timeout=600),
    Case("fused_add_rmsnorm_inplace", fused_add_rmsnorm,
         inputs=[randn(16, 4096, dtype="float16"), randn(16, 4096, dtype="float16"),
                 randn(4096, dtype="float16", scale=0.5)],
         reference=_fused_ref, tol=F16, devices=("gpu",), timeout=600),
    Case("silu_and_mul", silu_and_mul, inputs=[randn(99, 2048, dtype="float16")],
         reference=_silu_ref, tol=F16, devices=("gpu",), timeout=900),
]
