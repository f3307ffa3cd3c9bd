"""torch's autocast in the facade's own op dispatch: the per-thread state and the per-op casting
policies (facade/autocast.py registers the public names on top of this).

Why not Paddle's ``paddle.amp.auto_cast``: its white/black lists are Paddle's (on the CPU it
casts other ops than torch does), it is one global switch with no device_type, and it would
also recast the Paddle calls facade implementations make internally.  torch's autocast is a
dispatch key in front of a fixed list of ATen ops (aten/src/ATen/autocast_mode.cpp); here the
same list is data (``CPU_POLICY``: torch name -> policy), applied where the facade registers a
name (``registry.torch_function`` / ``registry.op`` call :func:`wrap`), so ``torch.mm``,
``Tensor.mm``, ``x @ y``, ``nn.Linear`` (which calls ``F.linear``) all pass the same wrapper.

Policies (torch's CPU ones):
- ``lower``: floating tensors (not float64) cast to the autocast dtype (bfloat16 by default);
- ``fp32``: floating tensors (not float64) cast to float32;
- ``promote``: floating tensors cast to the widest floating dtype among them (cat, stack);
- ``plain``: no cast: a facade composite that calls listed ops internally where torch's own
  kernel does not (torch.mv, torch.outer...), so it keeps its input dtype as in torch.
Some torch composites decompose into a listed op only for some arguments (``einsum`` with a
contracted index becomes ``bmm``; ``inner`` of two vectors is ``dot``, not listed): their policy
is a function of the arguments returning one of the above.

As in torch, a listed op runs with autocast suspended (its kernel is not autocast again inside),
calls with ``out=`` are not autocast, nor are in-place forms (registry.op builds those from the
unwrapped function), nor tensors on another device type than the region's.

Cost outside autocast: one extra call frame and one global read per listed op
(``_ACTIVE``, the number of threads with an enabled region); the thread-local state is read
only when some thread has autocast on.
"""
from __future__ import annotations

import functools
import threading

import paddle

DEVICE_TYPES = ("cpu", "cuda")
_DEFAULT_DTYPE = {"cpu": paddle.bfloat16, "cuda": paddle.float16}  # torch's, per device type

_ACTIVE = 0  # threads x device types with autocast enabled (the fast check)
_LOCK = threading.Lock()


class _State(threading.local):
    """torch keeps autocast state per thread (c10's thread-local dispatch key set)."""

    def __init__(self):
        self.enabled = {d: False for d in DEVICE_TYPES}
        self.dtype = dict(_DEFAULT_DTYPE)
        self.cache_enabled = True
        self.nesting = 0
        self.suspended = 0  # > 0 while a listed op runs (torch excludes the autocast key)


STATE = _State()


def set_enabled(device_type: str, enabled: bool) -> None:
    global _ACTIVE
    enabled = bool(enabled)
    if STATE.enabled[device_type] != enabled:
        with _LOCK:
            _ACTIVE += 1 if enabled else -1
        STATE.enabled[device_type] = enabled


def _device_type(t) -> str | None:
    place = t.place
    if place.is_cpu_place():
        return "cpu"
    if place.is_gpu_place():
        return "cuda"
    return None


def _first_tensor(args, kwargs):
    for a in args:
        if isinstance(a, paddle.Tensor):
            return a
        if isinstance(a, (list, tuple)):
            for b in a:
                if isinstance(b, paddle.Tensor):
                    return b
    for a in kwargs.values():
        if isinstance(a, paddle.Tensor):
            return a
    return None


_FLOAT64 = paddle.float64
_FLOAT32 = paddle.float32


def _eligible(t, device_type) -> bool:
    return (t.is_floating_point() and t.dtype != _FLOAT64
            and _device_type(t) == device_type)


def _cast(value, dtype, device_type):
    if isinstance(value, paddle.Tensor):
        if value.dtype != dtype and _eligible(value, device_type):
            return value.astype(dtype)
        return value
    if isinstance(value, (list, tuple)) and any(isinstance(v, paddle.Tensor) for v in value):
        return type(value)(_cast(v, dtype, device_type) for v in value)
    return value


def _tensors(args, kwargs):
    for a in list(args) + list(kwargs.values()):
        if isinstance(a, paddle.Tensor):
            yield a
        elif isinstance(a, (list, tuple)):
            yield from (b for b in a if isinstance(b, paddle.Tensor))


def _promote_dtype(args, kwargs, lower, device_type):
    """torch's at::autocast::prioritize: the widest floating dtype among the operands, starting
    from the autocast dtype; a floating dtype other than float32/float64/the autocast dtype
    (bfloat16 operands of a float16 region) is torch's RuntimeError."""
    current = lower
    for t in _tensors(args, kwargs):
        if not t.is_floating_point() or _device_type(t) != device_type:
            continue
        nxt = t.dtype
        if current == _FLOAT64:
            continue
        if nxt == _FLOAT64:
            current = _FLOAT64
        elif nxt == _FLOAT32:
            current = _FLOAT32
        elif nxt != lower:
            raise RuntimeError("Unexpected floating ScalarType in at::autocast::prioritize")
    return current


def _call(fn, policy, args, kwargs):
    st = STATE
    if st.suspended:
        return fn(*args, **kwargs)
    first = _first_tensor(args, kwargs)
    device_type = _device_type(first) if first is not None else None
    if device_type is None or not st.enabled[device_type] or kwargs.get("out") is not None:
        return fn(*args, **kwargs)
    if callable(policy):
        policy = policy(*args, **kwargs)
    lower = st.dtype[device_type]
    if policy == "lower":
        target = lower
    elif policy == "fp32":
        target = _FLOAT32
    elif policy == "promote":
        target = _promote_dtype(args, kwargs, lower, device_type)
    else:  # "plain"
        target = None
    if target is not None:
        args = [_cast(a, target, device_type) for a in args]
        kwargs = {k: _cast(v, target, device_type) for k, v in kwargs.items()}
    st.suspended += 1
    try:
        return fn(*args, **kwargs)
    finally:
        st.suspended -= 1


def wrap(torch_name: str, fn):
    """``fn`` behind its autocast policy when ``torch_name`` has one (else ``fn`` itself);
    idempotent (a name registered again with the wrapped function keeps one wrapper)."""
    policy = POLICY.get(torch_name)
    if policy is None or getattr(fn, "autocast_policy", None) is not None:
        return fn
    if policy == "lower" or callable(policy):
        # the ops autocast runs in bfloat16/float16 must run on CPU halves; Paddle's CPU build
        # lacks most such kernels (linear, conv, sdpa...): torch's CPU "opmath" (compute in
        # float32, round the result), as every _opbase.op has
        from ._opbase import _opmath, _wrapped  # lazy: _opbase imports registry
        if not _wrapped(fn):
            fn = _opmath(fn, torch_name)

    @functools.wraps(fn)
    def run(*args, **kwargs):
        if _ACTIVE:
            return _call(fn, policy, args, kwargs)
        return fn(*args, **kwargs)
    run.autocast_policy = policy
    return run


# -- per-argument policies of torch composites --------------------------------------------------
def _einsum_policy(equation, *operands):
    """torch's einsum contracts operands pairwise; a pair with a summed index is a ``bmm``
    (listed), one without is a ``mul`` (not listed)."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = operands[0]
    if len(operands) < 2 or not isinstance(equation, str):
        return "plain"
    lhs, _, out = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if "->" not in equation:  # implicit output: the letters that appear once
        out = "".join(c for c in set(lhs) if c.isalpha() and lhs.count(c) == 1)
    summed = {c for c in set(lhs) if c.isalpha() and c not in out
              and sum(c in t for t in terms) >= 2}
    return "lower" if summed else "plain"


def _inner_policy(input, other, *args, **kwargs):
    """torch.inner: two vectors -> ``dot`` and a 0-d operand -> ``mul`` (not listed), else
    ``tensordot`` -> ``mm`` (listed)."""
    nd = (getattr(input, "ndim", 0), getattr(other, "ndim", 0))
    return "plain" if 0 in nd or nd == (1, 1) else "lower"


def _multi_dot_policy(tensors, *args, **kwargs):
    return "lower" if len(tensors) >= 2 else "plain"


def _chain_matmul_policy(*matrices, **kwargs):
    return "lower" if len(matrices) >= 2 else "plain"


def _pad_policy(input, pad, mode="constant", value=None):
    """F.pad: torch's reflection_pad / replication_pad kernels are on the float32 list."""
    return "fp32" if mode in ("reflect", "replicate") else "plain"


F = "torch.nn.functional."
# torch's CPU lists (aten/src/ATen/autocast_mode.cpp, "CPU" sections), by public torch name.
# Names the facade does not register are simply never wrapped.
_LOWER = (
    "torch.matmul", "torch.linalg.matmul", "torch.mm", "torch.bmm", "torch.baddbmm",
    "torch.addmm", "torch.addbmm", F + "linear", "torch.conv1d", "torch.conv2d", "torch.conv3d",
    F + "conv1d", F + "conv2d", F + "conv3d", "torch.conv_transpose1d", "torch.conv_transpose2d",
    "torch.conv_transpose3d", F + "conv_transpose1d", F + "conv_transpose2d",
    F + "conv_transpose3d", "torch.conv_tbc", "torch.prelu", F + "prelu",
    F + "scaled_dot_product_attention", "torch.linalg.vecdot",
    # composites of torch's that run listed ops inside: tensordot (mm), MHA (linear, bmm)
    "torch.tensordot", F + "multi_head_attention_forward",
)
_FP32 = (
    F + "avg_pool3d", F + "binary_cross_entropy", F + "grid_sample", "torch.polar", "torch.prod",
    "torch.quantile", "torch.nanquantile", "torch.stft", "torch.cdist", "torch.trace",
    "torch.view_as_complex", "torch.cholesky", "torch.cholesky_inverse", "torch.cholesky_solve",
    "torch.inverse", "torch.lu_solve", "torch.orgqr", "torch.ormqr", "torch.pinverse",
    F + "max_pool3d", F + "max_pool3d_with_indices", F + "max_unpool2d", F + "max_unpool3d",
    F + "adaptive_avg_pool3d", F + "mse_loss", F + "cosine_embedding_loss", F + "nll_loss",
    F + "hinge_embedding_loss", F + "poisson_nll_loss", F + "smooth_l1_loss",
    F + "cross_entropy", F + "l1_loss", F + "huber_loss", F + "margin_ranking_loss",
    F + "soft_margin_loss", F + "triplet_margin_loss", F + "multi_margin_loss", F + "ctc_loss",
    F + "kl_div", F + "multilabel_margin_loss", F + "binary_cross_entropy_with_logits",
    F + "fractional_max_pool2d", F + "fractional_max_pool3d", F + "adaptive_max_pool3d",
    "torch.geqrf", "torch.qr", "torch.svd", "torch.triangular_solve",
    *("torch.fft." + n for n in ("fft", "ifft", "fft2", "ifft2", "fftn", "ifftn", "rfft", "irfft",
                                 "rfft2", "irfft2", "rfftn", "irfftn", "hfft", "ihfft")),
    *("torch.linalg." + n for n in ("cond", "matrix_rank", "solve", "cholesky", "svdvals",
                                    "eigvals", "eigvalsh", "inv", "householder_product",
                                    "tensorinv", "tensorsolve", "qr", "cholesky_ex", "svd", "eig",
                                    "eigh", "lstsq", "inv_ex")),
)
_PROMOTE = ("torch.cat", "torch.stack", "torch.index_copy")

CPU_POLICY: dict = {
    **{n: "lower" for n in _LOWER}, **{n: "fp32" for n in _FP32},
    **{n: "promote" for n in _PROMOTE},
    "torch.einsum": _einsum_policy, "torch.inner": _inner_policy,
    "torch.linalg.multi_dot": _multi_dot_policy, "torch.chain_matmul": _chain_matmul_policy,
    F + "pad": _pad_policy,
}
POLICY = CPU_POLICY
