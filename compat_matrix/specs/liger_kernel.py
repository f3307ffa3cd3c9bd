"""Liger-Kernel (linkedin/Liger-Kernel): Triton kernels for LLM training, torch-style wrappers.

Called through the public functional API (``liger_kernel.transformers.functional``), on
Paddle tensors under the proxies and on torch tensors in the oracle.  Installed without its
``torch`` requirement (real torch is the oracle's, pinned separately).  On CPU the kernels run
in the Triton interpreter; several of them do not run there even on real torch (a Python float
``eps`` where the compiler would give a tl scalar): those cases show the oracle's failure, and
the proxy cells say ``oracle_failed`` at best.
"""
from compat_matrix.spec import Case, rand, randint, randn, value
from compat_matrix.shared.triton_rows import triton_library

LIBRARY = triton_library("liger_kernel", imports=("liger_kernel.transformers.functional",),
                         pip=("liger-kernel==0.8.5",))


def _F():
    import liger_kernel.transformers.functional as F
    return F


def rms_norm(x, w, eps):
    return _F().liger_rms_norm(x, w, eps)


def rms_norm_backward(x, w, eps, dy):
    y = _F().liger_rms_norm(x, w, eps)
    y.backward(dy)
    return y, x.grad, w.grad


def fused_add_rms_norm(x, r, w, eps):
    return _F().liger_fused_add_rms_norm(x, r, w, eps)


def layer_norm(x, w, b, eps):
    return _F().liger_layer_norm(x, w, b, eps)


def layer_norm_backward(x, w, b, eps, dy):
    y = _F().liger_layer_norm(x, w, b, eps)
    y.backward(dy)
    return y, x.grad, w.grad, b.grad


def poly_norm(x, w, b, eps):
    return _F().liger_poly_norm(x, w, b, eps)


def group_norm(x, w, b, channels, groups, eps):
    return _F().liger_group_norm(x, w, b, channels, groups, eps)


def dyt(x, alpha, gamma, beta):
    return _F().liger_dyt(x, alpha, gamma, beta)


def swiglu(a, b):
    return _F().liger_swiglu(a, b)


def swiglu_backward(a, b, dy):
    y = _F().liger_swiglu(a, b)
    y.backward(dy)
    return y, a.grad, b.grad


def geglu(a, b):
    return _F().liger_geglu(a, b)


def relu_squared(x):
    return _F().liger_relu_squared(x)


def softmax(x):
    return _F().liger_softmax(x)


def softmax_backward(x, dy):
    y = _F().liger_softmax(x)
    y.backward(dy)
    return y, x.grad


def sparsemax(x):
    return _F().liger_sparsemax(x)


def cross_entropy(logits, target):
    return _F().liger_cross_entropy(logits, target)


def cross_entropy_backward(logits, target):
    loss = _F().liger_cross_entropy(logits, target)
    loss.backward()
    return loss, logits.grad


def fused_linear_cross_entropy(x, weight, target):
    return _F().liger_fused_linear_cross_entropy(x, weight, target)


def _cos_sin(c, s):
    """HF-style tables: the frequencies twice (cat(freqs, freqs)), as RoPE kernels assume."""
    import torch
    return torch.cat([c, c], dim=-1), torch.cat([s, s], dim=-1)


def rope(q, k, c, s):
    cos, sin = _cos_sin(c, s)
    return _F().liger_rope(q, k, cos, sin)


def rope_backward(q, k, c, s, dq, dk):
    import torch
    cos, sin = _cos_sin(c, s)
    q2, k2 = _F().liger_rope(q, k, cos, sin)
    torch.autograd.backward([q2, k2], [dq, dk])
    return q2, k2, q.grad, k.grad


def _log_softmax_pair(a, b):
    import torch
    return torch.log_softmax(a, dim=-1), torch.log_softmax(b, dim=-1)


def kl_div(a, b):
    x, y = _log_softmax_pair(a, b)
    return _F().liger_kl_div(x, y)


def jsd(a, b):
    x, y = _log_softmax_pair(a, b)
    return _F().liger_jsd(x, y)


def tvd(a, b):
    import torch
    return _F().liger_tvd(torch.softmax(a, dim=-1), torch.softmax(b, dim=-1))


def _grad_of(fn):
    """A backward case from a forward one: sum of outputs times a fixed cotangent (the last
    input), then the gradients of every input that asked for one."""
    def case(*args):
        *inputs, dy = args
        y = fn(*inputs)
        y.backward(dy)
        return (y,) + tuple(a.grad for a in inputs if getattr(a, "requires_grad", False)
                            or getattr(a, "stop_gradient", True) is False)
    case.__name__ = fn.__name__ + "_backward"
    return case


def rms_norm_gemma(x, w, eps):
    return _F().liger_rms_norm(x, w, eps, offset=1.0, casting_mode="gemma")


def rms_norm_none(x, w, eps):
    return _F().liger_rms_norm(x, w, eps, casting_mode="none")


def cross_entropy_smoothing(logits, target):
    return _F().liger_cross_entropy(logits, target, label_smoothing=0.1)


def cross_entropy_softcap(logits, target):
    return _F().liger_cross_entropy(logits, target, softcap=10.0, reduction="sum")


def cross_entropy_ignore(logits, target):
    t = target.clone()
    t[::2] = -100
    return _F().liger_cross_entropy(logits, t)


def fused_linear_jsd(x, w, tx, tw):
    return _F().liger_fused_linear_jsd(x, w, tx, tw)


def fused_linear_cross_entropy_backward(x, weight, target):
    loss = _F().liger_fused_linear_cross_entropy(x, weight, target)
    loss.backward()
    return loss, x.grad, weight.grad


def jsd_backward(a, b):
    x, y = _log_softmax_pair(a, b)
    loss = _F().liger_jsd(x, y)
    loss.backward()
    return loss, a.grad


def kl_div_backward(a, b):
    x, y = _log_softmax_pair(a, b)
    loss = _F().liger_kl_div(x, y)
    loss.backward()
    return loss, a.grad


def _np():
    import numpy
    return numpy


def _softmax_ref(x):
    e = _np().exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _cross_entropy_ref(logits, target):
    np = _np()
    z = logits.astype("float64")
    lse = np.log(np.exp(z - z.max(-1, keepdims=True)).sum(-1)) + z.max(-1)
    return np.float32((lse - z[np.arange(len(target)), target]).mean())


def _rope_ref(q, k, c, s):
    """HF's apply_rotary_pos_emb: x * cos + rotate_half(x) * sin, cos/sin unsqueezed at dim 1."""
    cos, sin = _np().concatenate([c, c], -1), _np().concatenate([s, s], -1)

    def rot(x):
        h = x.shape[-1] // 2
        return _np().concatenate([-x[..., h:], x[..., :h]], axis=-1)
    c, s_ = cos[:, None], sin[:, None]
    return q * c + rot(q) * s_, k * c + rot(k) * s_


B, H = 4, 64
CASES = [
    Case("rms_norm", rms_norm, inputs=[randn(B, H), randn(H), value(1e-6)],
         reference=lambda x, w, eps: x / (((x.astype("float64") ** 2).mean(-1, keepdims=True)
                                           + eps) ** 0.5) * w),
    Case("rms_norm_backward", rms_norm_backward,
         inputs=[randn(B, H, grad=True), randn(H, grad=True), value(1e-6), randn(B, H)],
         tol={"float32": (1e-4, 1e-5)}),
    Case("rms_norm_bf16", rms_norm, inputs=[randn(B, H, dtype="bfloat16"),
                                            randn(H, dtype="bfloat16"), value(1e-6)]),
    Case("fused_add_rms_norm", fused_add_rms_norm,
         inputs=[randn(B, H), randn(B, H), randn(H), value(1e-6)]),
    Case("layer_norm", layer_norm, inputs=[randn(B, H), randn(H), randn(H), value(1e-6)],
         reference=lambda x, w, b, eps: (x - x.mean(-1, keepdims=True))
         / (x.var(-1, keepdims=True) + eps) ** 0.5 * w + b, tol={"float32": (1e-4, 1e-5)}),
    Case("layer_norm_backward", layer_norm_backward,
         inputs=[randn(B, H, grad=True), randn(H, grad=True), randn(H, grad=True), value(1e-6),
                 randn(B, H)], tol={"float32": (1e-4, 1e-5)}),
    Case("poly_norm", poly_norm, inputs=[randn(B, H), randn(3), randn(1), value(1e-6)]),
    Case("group_norm", group_norm, inputs=[randn(2, 4, 16), randn(4), randn(4), value(4),
                                           value(2), value(1e-6)], tol={"float32": (1e-4, 1e-5)}),
    Case("dyt", dyt, inputs=[randn(B, H), rand(1, low=0.3, high=0.7), randn(H), randn(H)]),
    Case("swiglu", swiglu, inputs=[randn(B, H), randn(B, H)],
         reference=lambda a, b: a / (1 + __import__("numpy").exp(-a)) * b),
    Case("swiglu_backward", swiglu_backward,
         inputs=[randn(B, H, grad=True), randn(B, H, grad=True), randn(B, H)]),
    Case("geglu", geglu, inputs=[randn(B, H), randn(B, H)], tol={"float32": (1e-4, 1e-5)}),
    Case("relu_squared", relu_squared, inputs=[randn(B, H)],
         reference=lambda x: __import__("numpy").maximum(x, 0) ** 2),
    Case("softmax", softmax, inputs=[randn(B, H)], tol={"float32": (1e-5, 1e-6)},
         reference=_softmax_ref),
    Case("softmax_backward", softmax_backward, inputs=[randn(B, H, grad=True), randn(B, H)]),
    Case("sparsemax", sparsemax, inputs=[randn(B, H)]),
    Case("cross_entropy", cross_entropy, inputs=[randn(8, 32), randint(0, 32, 8)],
         tol={"float32": (1e-5, 1e-5)}, reference=_cross_entropy_ref),
    Case("cross_entropy_backward", cross_entropy_backward,
         inputs=[randn(8, 32, grad=True), randint(0, 32, 8)], tol={"float32": (1e-5, 1e-6)}),
    Case("fused_linear_cross_entropy", fused_linear_cross_entropy,
         inputs=[randn(8, 16), randn(32, 16), randint(0, 32, 8)], tol={"float32": (1e-4, 1e-5)}),
    Case("rope", rope, inputs=[randn(1, 2, 8, 16), randn(1, 2, 8, 16), randn(1, 8, 8),
                               randn(1, 8, 8)], reference=_rope_ref, tol={"float32": (1e-5, 1e-5)}),
    Case("rope_backward", rope_backward,
         inputs=[randn(1, 2, 8, 16, grad=True), randn(1, 2, 8, 16, grad=True), randn(1, 8, 8),
                 randn(1, 8, 8), randn(1, 2, 8, 16), randn(1, 2, 8, 16)],
         tol={"float32": (1e-5, 1e-5)}),
    Case("kl_div", kl_div, inputs=[randn(B, H), randn(B, H)]),
    Case("jsd", jsd, inputs=[randn(B, H), randn(B, H)], tol={"float32": (1e-5, 1e-6)}),
    Case("tvd", tvd, inputs=[randn(B, H), randn(B, H)]),
    # backward passes and options of the same kernels
    Case("geglu_backward", _grad_of(geglu), inputs=[randn(B, H, grad=True), randn(B, H, grad=True),
                                                     randn(B, H)], tol={"float32": (1e-4, 1e-5)}),
    Case("relu_squared_backward", _grad_of(relu_squared), inputs=[randn(B, H, grad=True), randn(B, H)]),
    Case("dyt_backward", _grad_of(dyt), inputs=[randn(B, H, grad=True), rand(1, low=0.3, high=0.7, grad=True),
                                                 randn(H, grad=True), randn(H, grad=True), randn(B, H)],
         tol={"float32": (1e-4, 1e-5)}),
    Case("poly_norm_backward", _grad_of(poly_norm),
         inputs=[randn(B, H, grad=True), randn(3, grad=True), randn(1, grad=True), value(1e-6), randn(B, H)],
         tol={"float32": (1e-4, 1e-5)}),
    Case("group_norm_backward", _grad_of(group_norm),
         inputs=[randn(2, 4, 16, grad=True), randn(4, grad=True), randn(4, grad=True), value(4), value(2),
                 value(1e-6), randn(2, 4, 16)], tol={"float32": (1e-4, 1e-5)}),
    Case("sparsemax_backward", _grad_of(sparsemax), inputs=[randn(B, H, grad=True), randn(B, H)]),
    Case("fused_add_rms_norm_fp16", fused_add_rms_norm,
         inputs=[randn(B, H, dtype="float16"), randn(B, H, dtype="float16"), randn(H, dtype="float16"),
                 value(1e-6)], tol={"float16": (2e-3, 2e-3)}),
    Case("cross_entropy_label_smoothing", cross_entropy_smoothing, inputs=[randn(8, 32), randint(0, 32, 8)],
         tol={"float32": (1e-5, 1e-5)}),
    Case("cross_entropy_softcap_sum", cross_entropy_softcap, inputs=[randn(8, 32), randint(0, 32, 8)],
         tol={"float32": (1e-5, 1e-5)}),
    Case("cross_entropy_ignore_index", cross_entropy_ignore, inputs=[randn(8, 32), randint(0, 32, 8)],
         tol={"float32": (1e-5, 1e-5)}),
    Case("fused_linear_cross_entropy_backward", fused_linear_cross_entropy_backward,
         inputs=[randn(8, 16, grad=True), randn(32, 16, grad=True), randint(0, 32, 8)],
         tol={"float32": (1e-4, 1e-5)}),
    Case("fused_linear_jsd", fused_linear_jsd, inputs=[randn(8, 16), randn(32, 16), randn(8, 16), randn(32, 16)],
         tol={"float32": (1e-4, 1e-5)}),
    Case("rms_norm_gemma", rms_norm_gemma, inputs=[randn(B, H), randn(H), value(1e-6)],
         tol={"float32": (1e-5, 1e-6)}),
    Case("rms_norm_no_casting", rms_norm_none, inputs=[randn(B, H), randn(H), value(1e-6)],
         tol={"float32": (1e-5, 1e-6)}),
    Case("swiglu_bf16", swiglu, inputs=[randn(B, H, dtype="bfloat16"), randn(B, H, dtype="bfloat16")]),
    Case("softmax_3d", softmax, inputs=[randn(2, 3, 40)], reference=_softmax_ref,
         tol={"float32": (1e-5, 1e-6)}),
    Case("layer_norm_bf16", layer_norm, inputs=[randn(B, H, dtype="bfloat16"), randn(H, dtype="bfloat16"),
                                                randn(H, dtype="bfloat16"), value(1e-6)]),
    Case("rope_bf16", rope, inputs=[randn(1, 2, 8, 16, dtype="bfloat16"), randn(1, 2, 8, 16, dtype="bfloat16"),
                                    randn(1, 8, 8, dtype="bfloat16"), randn(1, 8, 8, dtype="bfloat16")]),
    Case("jsd_backward", jsd_backward, inputs=[randn(B, H, grad=True), randn(B, H)],
         tol={"float32": (1e-5, 1e-6)}),
    Case("kl_div_backward", kl_div_backward, inputs=[randn(B, H, grad=True), randn(B, H)],
         tol={"float32": (1e-5, 1e-6)}),
]
