"""flash-linear-attention (fla-org/flash-linear-attention, the ``fla-core`` wheel): linear-attention
and state-space kernels written in pure Triton, with torch-style wrappers; used by Paddle ports of
linear-attention models (Qwen3-Next's gated delta rule, RWKV, GLA...).

Why this library: it is the largest pure-Triton kernel collection (about 60 ops), its wrappers
use much of torch (autograd.Function, custom_fwd, contiguity, dtypes, einops), and it has no
C++ part, so every case runs on CPU in Triton's interpreter.  Cases: the recurrent, chunked
and parallel forms of the main attention families (small shapes: the interpreter runs every
program of the grid in Python), and the fused modules (norms, gates, activations, losses),
forward and backward.  Compared with real torch's outputs (the oracle); no numpy references.
"""
from compat_matrix.spec import Case, rand, randint, randn
from compat_matrix.shared.triton_rows import triton_library

LIBRARY = triton_library(
    "fla",
    # einops is not in scope: it has its own Paddle backend (einops._backends.PaddleBackend,
    # picked by tensor type), written with Paddle's Tensor methods (x.transpose(perm))
    requires=("fla", "einops", "triton"),
    imports=("fla.ops", "fla.modules"),
    pip=("fla-core==0.6.0", "einops==0.8.2"),
    notes="fla-core installs only the kernels (flash-linear-attention adds the models, "
          "which need transformers)",
)

B, T, H, K, V = 1, 16, 2, 16, 16


def _ops():
    import fla.ops
    return fla.ops


def _log_sigmoid(x):
    import torch
    return torch.nn.functional.logsigmoid(x)


def _unit(k):
    import torch
    return torch.nn.functional.normalize(k, p=2.0, dim=-1)


def _first(out):
    return out[0] if isinstance(out, tuple) else out


def recurrent(name):
    def fn(q, k, v):
        return _first(getattr(_ops(), name)(q, k, v))
    fn.__name__ = name
    return fn


def gated(name, normalize_k=False):
    def fn(q, k, v, g):
        k = _unit(k) if normalize_k else k
        return _first(getattr(_ops(), name)(q, k, v, _log_sigmoid(g)))
    fn.__name__ = name
    return fn


def delta(name, gate):
    def fn(q, k, v, g, beta):
        # by keyword: fused_recurrent_gated_delta_rule's 5th parameter is gk, not beta (a
        # [B, T, H] gk there is read past its end: garbage, NaN under real torch)
        if gate:
            return _first(getattr(_ops(), name)(q, _unit(k), v, g=_log_sigmoid(g), beta=beta))
        return _first(getattr(_ops(), name)(q, _unit(k), v, beta=beta))
    fn.__name__ = name
    return fn


def grad_of(name):
    def fn(q, k, v, do):
        o = _first(getattr(_ops(), name)(q, k, v))
        o.backward(do)
        return o, q.grad, k.grad, v.grad
    fn.__name__ = name + "_backward"
    return fn


def gla_backward(q, k, v, g, do):
    o = _first(_ops().fused_recurrent_gla(q, k, v, _log_sigmoid(g)))
    o.backward(do)
    return o, q.grad, k.grad, v.grad, g.grad


def simple_gla_backward(q, k, v, g, do):
    o = _first(_ops().chunk_simple_gla(q, k, v, _log_sigmoid(g)))
    o.backward(do)
    return o, q.grad, k.grad, v.grad, g.grad


def hgrn(x, g):
    return _first(_ops().fused_recurrent_hgrn(x, _log_sigmoid(g)))


def rwkv6(r, k, v, w, u):
    return _first(_ops().fused_recurrent_rwkv6(r, k, v, _log_sigmoid(w), u))


def lightning(q, k, v):
    return _first(_ops().fused_recurrent_lightning_attn(q, k, v, layer_idx=0, num_layers=2))


def lightning_chunk(q, k, v):
    return _first(_ops().chunk_lightning_attn(q, k, v, layer_idx=0, num_layers=2))


def with_state(q, k, v, h0):
    o, ht = _ops().fused_recurrent_gla(q, k, v, None, initial_state=h0, output_final_state=True)
    return o, ht


# -- modules ----------------------------------------------------------------------------------
def _norm():
    import fla.modules.norm.layernorm as m
    return m


def rms_norm(x, w, b):
    return _norm().rms_norm(x, w, b, eps=1e-6)


def layer_norm(x, w, b):
    return _norm().layer_norm(x, w, b, eps=1e-5)


def layer_norm_backward(x, w, b, dy):
    y = _norm().layer_norm(x, w, b, eps=1e-5)
    y.backward(dy)
    return y, x.grad, w.grad, b.grad


def rms_norm_residual(x, r, w, b):
    return _norm().rms_norm(x, w, b, residual=r, prenorm=True, eps=1e-6)


def group_norm(x, w, b):
    return _norm().group_norm(x, w, b, eps=1e-5, num_groups=4)


def l2norm(x):
    from fla.modules.l2norm import l2norm
    return l2norm(x)


def l2norm_backward(x, dy):
    from fla.modules.l2norm import l2norm
    y = l2norm(x)
    y.backward(dy)
    return y, x.grad


def rms_norm_gated(x, g, w, b):
    from fla.modules.fused_norm_gate import rms_norm_gated
    return rms_norm_gated(x, g, w, b)


def layer_norm_gated(x, g, w, b):
    from fla.modules.fused_norm_gate import layer_norm_gated
    return layer_norm_gated(x, g, w, b, activation="sigmoid")


def _act():
    import fla.modules.activations as a
    return a


def swiglu(x, y):
    return _act().swiglu(x, y)


def swiglu_backward(x, y, dz):
    z = _act().swiglu(x, y)
    z.backward(dz)
    return z, x.grad, y.grad


def logsigmoid(x):
    return _act().logsigmoid(x)


def swish(x):
    return _act().swish(x)


def sigmoid_backward(x, dy):
    y = _act().sigmoid(x)
    y.backward(dy)
    return y, x.grad


def rotary(x, cos, sin):
    from fla.modules.rotary import rotary_embedding
    return rotary_embedding(x, cos, sin)


def token_shift(x):
    from fla.modules.token_shift import token_shift
    return token_shift(x)


def cross_entropy(logits, target):
    from fla.modules.fused_cross_entropy import cross_entropy_loss
    return _first(cross_entropy_loss(logits, target))


def cross_entropy_backward(logits, target):
    from fla.modules.fused_cross_entropy import cross_entropy_loss
    loss = _first(cross_entropy_loss(logits, target)).sum()
    loss.backward()
    return loss, logits.grad


def _backward(fn):
    """fn's output times a fixed cotangent (the last input), then the inputs' gradients."""
    def case(*args):
        *inputs, dy = args
        y = _first(fn(*inputs))
        y.backward(dy)
        return (y,) + tuple(a.grad for a in inputs if getattr(a, "requires_grad", False)
                            or getattr(a, "stop_gradient", True) is False)
    case.__name__ = fn.__name__ + "_backward"
    return case


def _qkv(grad=False):
    return [randn(B, T, H, K, grad=grad), randn(B, T, H, K, grad=grad), randn(B, T, H, V, grad=grad)]


TOL = {"float32": (1e-4, 1e-5)}
CASES = [
    # attention families: recurrent (one program per head, a loop over time) ...
    Case("fused_recurrent_linear_attn", recurrent("fused_recurrent_linear_attn"), inputs=_qkv(), tol=TOL),
    Case("fused_recurrent_retention", recurrent("fused_recurrent_retention"), inputs=_qkv(), tol=TOL),
    Case("fused_recurrent_gla", gated("fused_recurrent_gla"), inputs=_qkv() + [randn(B, T, H, K)], tol=TOL),
    Case("fused_recurrent_simple_gla", gated("fused_recurrent_simple_gla"),
         inputs=_qkv() + [randn(B, T, H)], tol=TOL),
    Case("fused_recurrent_delta_rule", delta("fused_recurrent_delta_rule", False),
         inputs=_qkv() + [randn(B, T, H), rand(B, T, H)], tol=TOL),
    Case("fused_recurrent_gated_delta_rule", delta("fused_recurrent_gated_delta_rule", True),
         inputs=_qkv() + [randn(B, T, H), rand(B, T, H)], tol=TOL),
    Case("fused_recurrent_hgrn", hgrn, inputs=[randn(B, T, 32), randn(B, T, 32)], tol=TOL),
    Case("fused_recurrent_rwkv6", rwkv6, inputs=_qkv() + [randn(B, T, H, K), randn(H, K)], tol=TOL),
    Case("fused_recurrent_lightning_attn", lightning, inputs=_qkv(), tol=TOL),
    Case("fused_recurrent_gla_state", with_state, inputs=_qkv() + [randn(B, H, K, V)], tol=TOL),
    # ... chunked (blocks of time, then a recurrence over the blocks' states) ...
    Case("chunk_simple_gla", gated("chunk_simple_gla"), inputs=_qkv() + [randn(B, T, H)], tol=TOL),
    Case("chunk_retention", recurrent("chunk_retention"), inputs=_qkv(), tol=TOL),
    Case("chunk_lightning_attn", lightning_chunk, inputs=_qkv(), tol=TOL),
    Case("chunk_linear_attn", recurrent("chunk_linear_attn"), inputs=_qkv(), tol=TOL),
    Case("fused_chunk_linear_attn", recurrent("fused_chunk_linear_attn"), inputs=_qkv(), tol=TOL),
    Case("chunk_gla", gated("chunk_gla"), inputs=_qkv() + [randn(B, T, H, K)], tol=TOL),
    Case("chunk_gated_delta_rule", delta("chunk_gated_delta_rule", True),
         inputs=_qkv() + [randn(B, T, H), rand(B, T, H)], tol=TOL),
    Case("fused_chunk_based", recurrent("fused_chunk_based"), inputs=_qkv(), tol=TOL),
    # ... and parallel (attention-like, one block of queries per program)
    Case("parallel_attn", recurrent("parallel_attn"), inputs=_qkv(), tol=TOL),
    Case("parallel_retention", recurrent("parallel_retention"), inputs=_qkv(), tol=TOL),
    Case("parallel_based", recurrent("parallel_based"), inputs=_qkv(), tol=TOL),
    Case("parallel_simple_gla", gated("parallel_simple_gla"), inputs=_qkv() + [randn(B, T, H)], tol=TOL),
    Case("fused_recurrent_gla_backward", gla_backward,
         inputs=_qkv(grad=True) + [randn(B, T, H, K, grad=True), randn(B, T, H, V)], tol=TOL),
    Case("fused_recurrent_linear_attn_backward", grad_of("fused_recurrent_linear_attn"),
         inputs=_qkv(grad=True) + [randn(B, T, H, V)], tol=TOL),
    Case("fused_recurrent_retention_backward", grad_of("fused_recurrent_retention"),
         inputs=_qkv(grad=True) + [randn(B, T, H, V)], tol=TOL),
    Case("parallel_attn_backward", grad_of("parallel_attn"),
         inputs=_qkv(grad=True) + [randn(B, T, H, V)], tol=TOL),
    Case("chunk_simple_gla_backward", simple_gla_backward,
         inputs=_qkv(grad=True) + [randn(B, T, H, grad=True), randn(B, T, H, V)], tol=TOL),
    # fused modules
    Case("rms_norm", rms_norm, inputs=[randn(4, 64), randn(64), randn(64)], tol=TOL),
    Case("rms_norm_residual", rms_norm_residual, inputs=[randn(4, 64), randn(4, 64), randn(64), randn(64)],
         tol=TOL),
    Case("layer_norm", layer_norm, inputs=[randn(4, 64), randn(64), randn(64)], tol=TOL),
    Case("layer_norm_backward", layer_norm_backward,
         inputs=[randn(4, 64, grad=True), randn(64, grad=True), randn(64, grad=True), randn(4, 64)], tol=TOL),
    Case("group_norm", group_norm, inputs=[randn(4, 64), randn(64), randn(64)], tol=TOL),
    Case("l2norm", l2norm, inputs=[randn(4, 64)], tol=TOL),
    Case("l2norm_backward", l2norm_backward, inputs=[randn(4, 64, grad=True), randn(4, 64)], tol=TOL),
    Case("rms_norm_gated", rms_norm_gated, inputs=[randn(4, 64), randn(4, 64), randn(64), randn(64)], tol=TOL),
    Case("layer_norm_gated", layer_norm_gated, inputs=[randn(4, 64), randn(4, 64), randn(64), randn(64)],
         tol=TOL),
    Case("swiglu", swiglu, inputs=[randn(4, 64), randn(4, 64)], tol=TOL),
    Case("swiglu_backward", swiglu_backward,
         inputs=[randn(4, 64, grad=True), randn(4, 64, grad=True), randn(4, 64)], tol=TOL),
    Case("logsigmoid", logsigmoid, inputs=[randn(4, 64)], tol=TOL),
    Case("swish", swish, inputs=[randn(4, 64)], tol=TOL),
    Case("sigmoid_backward", sigmoid_backward, inputs=[randn(4, 64, grad=True), randn(4, 64)], tol=TOL),
    Case("rms_norm_backward", _backward(rms_norm),
         inputs=[randn(4, 64, grad=True), randn(64, grad=True), randn(64, grad=True), randn(4, 64)], tol=TOL),
    Case("rms_norm_gated_backward", _backward(rms_norm_gated),
         inputs=[randn(4, 64, grad=True), randn(4, 64, grad=True), randn(64, grad=True), randn(64, grad=True),
                 randn(4, 64)], tol=TOL),
    Case("group_norm_backward", _backward(group_norm),
         inputs=[randn(4, 64, grad=True), randn(64, grad=True), randn(64, grad=True), randn(4, 64)], tol=TOL),
    Case("logsigmoid_backward", _backward(logsigmoid), inputs=[randn(4, 64, grad=True), randn(4, 64)], tol=TOL),
    Case("swish_backward", _backward(swish), inputs=[randn(4, 64, grad=True), randn(4, 64)], tol=TOL),
    Case("token_shift_backward", _backward(token_shift), inputs=[randn(2, 8, 16, grad=True), randn(2, 8, 16)],
         tol=TOL),
    Case("rotary_backward", _backward(rotary),
         inputs=[randn(1, 8, 2, 16, grad=True), randn(8, 8), randn(8, 8), randn(1, 8, 2, 16)], tol=TOL),
    Case("rotary", rotary, inputs=[randn(1, 8, 2, 16), randn(8, 8), randn(8, 8)], tol=TOL),
    Case("token_shift", token_shift, inputs=[randn(2, 8, 16)], tol=TOL),
    Case("cross_entropy", cross_entropy, inputs=[randn(8, 32), randint(0, 32, 8)], tol=TOL),
    Case("cross_entropy_backward", cross_entropy_backward,
         inputs=[randn(8, 32, grad=True), randint(0, 32, 8)], tol=TOL),
]
