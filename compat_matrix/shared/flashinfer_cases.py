"""The FlashInfer cases both FlashInfer rows run (the Paddle port, ``specs/flashinfer.py``, and
upstream, ``specs/flashinfer_upstream.py``): the same ``flashinfer`` package API, so the same
calls and numpy references.  The functions call only FlashInfer (no Tensor methods), so they
need not live in the spec module that the worker puts in scope."""
import numpy as np

from compat_matrix.spec import Case, randn


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


def rms_reference(x, w, eps=1e-6):
    x = x.astype(np.float32)
    return (x / np.sqrt((x * x).mean(-1, keepdims=True) + eps) * w.astype(np.float32)).astype(np.float16)


def fused_add_rms_reference(x, r, w):
    s = x.astype(np.float32) + r.astype(np.float32)
    return rms_reference(s, w), s.astype(np.float16)


def silu_and_mul_reference(x):
    d = x.shape[-1] // 2
    a, b = x[..., :d].astype(np.float32), x[..., d:].astype(np.float32)
    return (a / (1 + np.exp(-a)) * b).astype(np.float16)


F16 = {"float16": (1e-3, 1e-3)}
RMSNORM_99x1024 = Case("rmsnorm_99x1024", rmsnorm,
                       inputs=[randn(99, 1024, dtype="float16"),
                               randn(1024, dtype="float16", scale=0.5)],
                       reference=rms_reference, tol=F16, devices=("gpu",), timeout=600)
FUSED_ADD_RMSNORM = Case("fused_add_rmsnorm_inplace", fused_add_rmsnorm,
                         inputs=[randn(16, 4096, dtype="float16"),
                                 randn(16, 4096, dtype="float16"),
                                 randn(4096, dtype="float16", scale=0.5)],
                         reference=fused_add_rms_reference, tol=F16, devices=("gpu",),
                         timeout=600)
SILU_AND_MUL = Case("silu_and_mul", silu_and_mul, inputs=[randn(99, 2048, dtype="float16")],
                    reference=silu_and_mul_reference, tol=F16, devices=("gpu",), timeout=900)
