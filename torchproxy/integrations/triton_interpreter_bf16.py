"""The ``bf16`` fix for Triton's CPU interpreter: bfloat16 arithmetic on values, not bit patterns.

numpy has no bfloat16, so the interpreter stores bf16 data as ``uint16`` bit patterns.  Only the
bf16 <-> fp32 casts know that (``_convert_float``); every other operation runs numpy directly on
the storage, so ``a * b`` of two bf16 tensors multiplies the integers 0x4020 and 0x4000, and
``-5.0 < -2.0`` is false (bf16 is sign-magnitude: the bit order is not the value order).  Triton
documents the interpreter as not supporting bf16 arithmetic; upstream declined both fixes
offered (triton-lang/triton PR 10945, bf16 ops in float32; PR 11585, bf16 ``tl.dot``).

Liger-Kernel's bf16 cases hit it: ``geglu_a.cast(bf16) * b_row`` returns garbage, on real torch
and on the proxy alike, so a test comparing two calls of the same kernel "passes" on the same
garbage (or fails where that garbage holds a NaN).  Compiled Triton computes these values; this
fix makes the interpreter do the same: each bf16 operation converts its operands to float32,
runs the interpreter's own float32 operation, and rounds the result back to bf16
(round-to-nearest-even, NaN kept a quiet NaN).  For one operation that is what the GPU computes
(a product of two bf16 values is exact in float32; a sum can differ from a direct bf16 rounding
only through double rounding, in ties).  Reductions and scans over bf16 (``tl.sum``, ``tl.max``,
``tl.cumsum``) accumulate in float32 and round once: the GPU rounds each combine step in its own
order; the interpreter's order was never the GPU's, for float32 either.

The casts to bf16 round to nearest even, as the compiler's ``fptrunc`` does: the interpreter's
own float32 -> bf16 cast truncates (a kernel computing in float32 and storing to a bf16 output
gets the value below, every time), and its explicit ``rtne`` mode rounds ties away from zero.

Covered: the float binary operators and comparisons, the float unary operators, ``fma``,
``clamp``, ``tl.dot`` with bf16 operands, every cast to or from bf16 (through float32),
reductions and scans, and the libdevice fix's functions.  Bit-level operations (loads, stores, ``where``, ``abs``, bitcasts, joins, reshapes)
were already right.  Not covered: atomics on bf16 memory (``tl.atomic_add`` on a bf16 pointer)
keep the interpreter's behaviour.

Detected by trying it (``2.5 + 2.0`` in bf16 must give 4.5), never by version.
"""
from __future__ import annotations

import functools

import numpy as np

_BINARY = ("create_fadd", "create_fsub", "create_fmul", "create_fdiv", "create_frem",
           "create_precise_divf", "create_minimumf", "create_minnumf", "create_maximumf",
           "create_maxnumf", "create_fcmpOLT", "create_fcmpOGT", "create_fcmpOLE",
           "create_fcmpOGE", "create_fcmpOEQ", "create_fcmpONE", "create_fcmpULT",
           "create_fcmpUGT", "create_fcmpULE", "create_fcmpUGE", "create_fcmpUEQ",
           "create_fcmpUNE")
_UNARY = ("create_cos", "create_exp", "create_exp2", "create_floor", "create_ceil", "create_log",
          "create_log2", "create_precise_sqrt", "create_sqrt", "create_sin", "create_erf",
          "create_rsqrt")


def bf16_to_f32(bits) -> np.ndarray:
    """bf16 bit patterns (uint16) -> their float32 values (exact)."""
    return (np.asarray(bits).astype(np.uint32) << 16).view(np.float32)


def f32_to_bf16(values) -> np.ndarray:
    """float32 values -> bf16 bit patterns (uint16), rounded to nearest even as torch and the GPU
    round; a NaN stays a quiet NaN of its sign."""
    u = np.asarray(values, dtype=np.float32).view(np.uint32)
    rounded = ((u + (np.uint32(0x7FFF) + ((u >> 16) & 1))) >> 16).astype(np.uint16)
    nan = (u & 0x7FFFFFFF) > 0x7F800000
    if np.any(nan):
        rounded = np.where(nan, ((u >> 16) | 0x0040).astype(np.uint16), rounded)
    return rounded


def _is_bf16(handle, tl) -> bool:
    return getattr(handle.dtype, "scalar", handle.dtype) == tl.bfloat16


def _needs_fix(interp, tl) -> bool:
    h = interp.TensorHandle
    a = h(f32_to_bf16(np.array([2.5], np.float32)), tl.bfloat16)
    b = h(f32_to_bf16(np.array([2.0], np.float32)), tl.bfloat16)
    try:
        out = interp.InterpreterBuilder.create_fadd(interp.interpreter_builder, a, b)
        return bf16_to_f32(np.asarray(out.data).view(np.uint16))[0] != 4.5
    except Exception:  # noqa: BLE001 - any failure of the probe means the interpreter needs it
        return True


def _on_values(original, interp, tl, arity):
    """``original`` (a builder method whose first ``arity`` arguments are handles: 1 for the
    unary ops, 2 for the binary ones and comparisons, 3 for fma and clamp) computing on float32
    values where any of those handles is bf16, its float32 result rounded back to bf16."""
    @functools.wraps(original)
    def op(self, *args):
        handles, rest = args[:arity], args[arity:]
        if not any(_is_bf16(h, tl) for h in handles):
            return original(self, *args)
        out = original(self, *(_as_f32(h, interp, tl) for h in handles), *rest)
        return _back(out, interp, tl)
    return op


def _as_f32(handle, interp, tl):
    if not _is_bf16(handle, tl):
        return handle
    return interp.TensorHandle(bf16_to_f32(handle.data), tl.float32)


def _back(out, interp, tl):
    """A float32 result becomes bf16 again; a comparison's bool result keeps its data."""
    data = np.asarray(out.data)
    if data.dtype == np.float32:
        return interp.TensorHandle(f32_to_bf16(data), tl.bfloat16)
    return out


def _wrap_dot(original, interp, tl):
    @functools.wraps(original)
    def create_dot(self, a, b, d, *rest):
        return original(self, _as_f32(a, interp, tl), _as_f32(b, interp, tl), d, *rest)
    return create_dot


def _wrap_cast(original, interp, tl):
    @functools.wraps(original)
    def cast_impl(self, src, dst_type):
        src_bf16 = _is_bf16(src, tl)
        dst_bf16 = dst_type.scalar == tl.bfloat16
        if src_bf16 == dst_bf16:
            return original(self, src, dst_type)
        if src_bf16:  # bf16 -> x: through its float32 value (exact)
            return original(self, _as_f32(src, interp, tl), dst_type)
        # x -> bf16: through float32, rounded to nearest even as the compiler's fptrunc rounds
        # (the interpreter's own fp32 -> bf16 cast truncates)
        f32 = src if src.dtype.scalar == tl.float32 else original(self, src, tl.float32)
        return interp.TensorHandle(f32_to_bf16(f32.data), tl.bfloat16)
    return cast_impl


def _wrap_fp_to_fp(original, interp, tl):
    rtne = interp._ir.ROUNDING_MODE.RTNE

    @functools.wraps(original)
    def create_fp_to_fp(self, src, dst_type, rounding_mode):
        # an explicit rtne downcast to bf16 (``x.to(tl.bfloat16, fp_downcast_rounding="rtne")``):
        # the interpreter's rounding adds the cut-off bit (ties away from zero, and a carry out
        # of the mantissa is lost); rtz and the other conversions stay as they are
        if dst_type.scalar == tl.bfloat16 and rounding_mode == rtne and not _is_bf16(src, tl):
            f32 = src if src.dtype.scalar == tl.float32 else self.cast_impl(src, tl.float32)
            return interp.TensorHandle(f32_to_bf16(f32.data), tl.bfloat16)
        return original(self, src, dst_type, rounding_mode)
    return create_fp_to_fp


def _wrap_reduce(original, interp, tl):
    """ReduceOps.sum / min_max and ScanOps.cumsum / cumprod: fp32 in, bf16 bits out."""
    @functools.wraps(original)
    def method(self, input, *args, **kwargs):
        t = input[0] if isinstance(input, tuple) else input
        if not (isinstance(t, tl.tensor) and t.dtype.scalar == tl.bfloat16):
            return original(self, input, *args, **kwargs)
        f32 = tl.tensor(interp.TensorHandle(bf16_to_f32(t.handle.data), tl.float32),
                        t.type.with_element_ty(tl.float32) if t.type.is_block() else tl.float32)
        out = original(self, f32, *args, **kwargs)
        return _retype(out, interp, tl)
    return method


def _retype(out, interp, tl):
    if isinstance(out, (list, tuple)):
        return type(out)(_retype(o, interp, tl) for o in out)
    if out.dtype.scalar != tl.float32:  # argmax's indices
        return out
    ty = out.type.with_element_ty(tl.bfloat16) if out.type.is_block() else tl.bfloat16
    bits = f32_to_bf16(out.handle.data).reshape(np.shape(out.handle.data))
    return tl.tensor(interp.TensorHandle(bits, tl.bfloat16), ty)


def install(interp, tl) -> bool:
    """Install the fix on ``interp`` (triton.runtime.interpreter) if it needs it."""
    if not _needs_fix(interp, tl):
        return False
    builder = interp.InterpreterBuilder
    for names, arity in ((_UNARY, 1), (_BINARY, 2), (("create_fma", "create_clampf"), 3)):
        for name in names:
            if hasattr(builder, name):
                setattr(builder, name, _on_values(getattr(builder, name), interp, tl, arity))
    builder.create_dot = _wrap_dot(builder.create_dot, interp, tl)
    builder.cast_impl = _wrap_cast(builder.cast_impl, interp, tl)
    builder.create_fp_to_fp = _wrap_fp_to_fp(builder.create_fp_to_fp, interp, tl)
    # the cast lambdas call self.cast_impl, so they follow; reductions and scans:
    for cls, names in ((interp.ReduceOps, ("sum", "min_max")),
                       (interp.ScanOps, ("cumsum", "cumprod"))):
        for name in names:
            setattr(cls, name, _wrap_reduce(getattr(cls, name), interp, tl))
    return True
