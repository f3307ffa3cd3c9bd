"""FlashInfer upstream (flashinfer-ai/flashinfer, the ``flashinfer-python`` wheel), next to the
Paddle-maintained port of the ``flashinfer`` row: the same package name, so it cannot share
.venv's site-packages with the port.  It lives in its own folder (``--target``, no
dependencies: its ``torch`` requirement would pull real torch's CUDA wheels, and its other
CUDA-only requirements, cuda-python, cuda-tile, nccl4py, cudnn-frontend, cutlass-dsl, are not
needed to import it) that only this library's workers put first on ``sys.path``; the port's
dependencies in .venv (apache-tvm-ffi, jinja2, requests...) serve it, plus ``nvidia-ml-py``
(``pynvml``, imported at the top).

CPU: the import (its torch-side Python under each backend).  GPU: the norm / activation ops
against numpy references, as for the port.  Kernels need an sm_75+ GPU; the JIT build on CPU
is exercised by the port's row.
"""
import numpy as np

from compat_matrix.spec import Case, Library, randn

PINS = ("flashinfer-python==0.7.2.post1", "nvidia-ml-py==13.615.71")
SITE = "../../build/matrix-flashinfer-upstream/site"   # relative to this file

LIBRARY = Library(
    name="flashinfer_upstream",
    scope=("flashinfer",),
    requires=("flashinfer", "tvm_ffi", "pynvml"),
    imports=("flashinfer", "flashinfer.norm", "flashinfer.activation"),
    # not pip=: ./dev installs pip= pins into .venv, where this would replace the port
    install=("pip install --no-deps --target build/matrix-flashinfer-upstream/site "
             + " ".join(PINS),),
    pythonpath=(SITE,),
    scan=("flashinfer",),
    devices=("cpu", "gpu"),
    notes="upstream wheel in its own --target folder (same package name as the Paddle port)",
)


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
    Case("rmsnorm_99x1024", rmsnorm, inputs=[randn(99, 1024, dtype="float16"),
                                             randn(1024, dtype="float16", scale=0.5)],
         reference=_rms, tol=F16, devices=("gpu",), timeout=600),
    Case("fused_add_rmsnorm_inplace", fused_add_rmsnorm,
         inputs=[randn(16, 4096, dtype="float16"), randn(16, 4096, dtype="float16"),
                 randn(4096, dtype="float16", scale=0.5)],
         reference=_fused_ref, tol=F16, devices=("gpu",), timeout=600),
    Case("silu_and_mul", silu_and_mul, inputs=[randn(99, 2048, dtype="float16")],
         reference=_silu_ref, tol=F16, devices=("gpu",), timeout=900),
]
