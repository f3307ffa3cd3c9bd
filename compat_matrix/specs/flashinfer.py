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
from compat_matrix.shared.flashinfer_cases import (F16, FUSED_ADD_RMSNORM, RMSNORM_99x1024,
                                                   SILU_AND_MUL, rms_reference, rmsnorm)
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


CASES = [
    Case("jit_build_norm", jit_build_norm, reference=lambda: 1.0, timeout=900,
         notes="nvcc build, ~1-2 min on 2 cores the first time, cached after"),
    RMSNORM_99x1024,
    Case("rmsnorm_qk_3d", rmsnorm, inputs=[randn(3, 8, 128, dtype="float16"),
                                           randn(128, dtype="float16", scale=0.5)],
         reference=rms_reference, tol=F16, devices=("gpu",), timeout=600),
    FUSED_ADD_RMSNORM,
    SILU_AND_MUL,
]
