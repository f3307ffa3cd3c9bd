"""torch's results for operands with a 0-size dimension where Paddle 2.6's kernels refuse them.

Paddle 2.6 raises on 0-size tensors in broadcasting elementwise kernels, clone, matmul and
every reduction (``paddle_shims.is_zero_size_failure`` lists the messages; Paddle 3.x computes
them).  The op wrapper of ``_opbase`` (every ``opmath_function``/``op`` registered there) calls
:func:`recover` when its op raised one of these failures while an operand has a 0-size
dimension; nothing happens on the success path, outside facade calls, or on Paddle 3.x.

How the result is found without Paddle computing on the empty operand:

1. The op runs twice on stand-ins: each 0-size operand replaced by a tensor of its dtype and
   place whose 0-size dimensions are 2 (first run) and 3 (second run).  2 and 3, not 1: a size-1
   dimension broadcasts against anything, which would hide torch's size-mismatch errors.
2. A result dimension that differs between the runs grows with the stand-in size, as ``c * s**k``
   (checked), so it is 0 for the real operands: the result is an empty tensor of that shape and
   of the stand-in result's dtype (an empty tensor has no values to get wrong).  A dimension
   that grows any other way (``cat`` of an empty and a full tensor) is refused.
3. A result with no such dimension reduced over the empty dimension: its values are the op's
   value over no elements, which only the op knows.  :data:`EMPTY_REDUCTIONS` names the ops
   whose stand-in run gives exactly that value (an empty sum is 0: stand-ins of zeros, an empty
   product is 1: stand-ins of ones; both runs must agree) or whose value is NaN (torch's
   mean/var/std of nothing).  Other ops keep Paddle's error.

Results that are stand-ins themselves (in-place ops return their input) map back to the real
operand.  Autograd: an empty result requires grad when a floating operand does (as in torch);
Paddle 2.6 gives no gradient to 0-size tensors (None where torch has an empty zero tensor).

Remove with ``paddle_shims.ZERO_SIZE_KERNELS_FAIL`` (when Paddle 2.6 support is dropped).
"""
from __future__ import annotations

import math
import types

import numpy as np
import paddle

from ..paddle_shims import (ZERO_SIZE_GRAD_CRASHES, ZERO_SIZE_KERNELS_FAIL, cut_empty_grads,
                            is_zero_size_failure, kernel_empty, kernel_full)

# torch name -> the stand-in fill whose result is torch's value over no elements, or NAN (the
# result is NaN, as torch's mean/var/std of nothing).  Each entry is checked against real torch
# in tests/facade/test_zero_size.py.
NAN = "nan"
EMPTY_REDUCTIONS = {
    # contractions over an empty dimension: sums of no products are 0 (plus the bias/input term)
    "torch.mm": 0, "torch.matmul": 0, "torch.linalg.matmul": 0, "torch.addmm": 0,
    "torch.bmm": 0, "torch.mv": 0, "torch.addmv": 0, "torch.dot": 0,
    "torch.vdot": 0, "torch.inner": 0, "torch.outer": 0, "torch.linalg.multi_dot": 0,
    "torch.linalg.vecdot": 0,
    "torch.nn.functional.linear": 0, "torch.nn.functional.bilinear": 0,
    "torch.sum": 0, "torch.nansum": 0,
    "torch.prod": 1,
    "torch.mean": NAN, "torch.nanmean": NAN, "torch.var": NAN, "torch.std": NAN,
    "torch.var_mean": NAN, "torch.std_mean": NAN,
}

_SIZES = (2, 3)


class _Refused(Exception):
    """The stand-in runs do not determine torch's result: Paddle's own error stays."""


# areas whose torch.* functions make or describe tensors rather than compute on operands: their
# adapters are not guarded (no 0-size failure to recover; no extra call on their hot paths)
_UNGUARDED_AREAS = frozenset("torchproxy.facade." + m for m in (
    "core", "dtypes", "device", "creation", "creation_ops", "cuda", "cpu", "runtime", "autograd", "library",
    "misc", "testing_internal", "distributed_tensor", "storage", "cpp_extension",
    "serialization", "serialization_save", "data", "optim"))


def guard(fn, torch_name):
    """``fn`` with :func:`recover` on Paddle 2.6 (``registry.torch_function`` applies it to every
    torch.* function of the computing areas; ``_opbase``'s op wrapper has it built in).  On
    Paddle 3.x, for non-functions and for already guarded ones: ``fn`` itself."""
    if not ZERO_SIZE_KERNELS_FAIL or not isinstance(fn, types.FunctionType) or \
            getattr(fn, "zero_size_guarded", False) or fn.__module__ in _UNGUARDED_AREAS:
        return fn

    def run(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            return recover(e, run, torch_name, args, kwargs)
    for attr in ("__module__", "__name__", "__qualname__", "__doc__"):
        setattr(run, attr, getattr(fn, attr))
    run.__wrapped__ = fn  # inspect.signature(run) is fn's
    run.zero_size_guarded = True
    run = cutting_empty_grads(run)
    run.zero_size_guard_of = fn
    return run


def cutting_empty_grads(run):
    """``run`` whose results with 0 elements that require grad get their gradient edge from
    ``paddle_shims.cut_empty_grads`` (Paddle 2.6's backward kernels crash on 0-size gradients);
    ``run`` itself on Paddle 3.x.  Wraps the op wrappers of _opbase and :func:`guard`."""
    if not ZERO_SIZE_GRAD_CRASHES or getattr(run, "cuts_empty_grads", False):
        return run

    def cut(*args, **kwargs):
        return cut_empty_grads(run(*args, **kwargs), args, kwargs)
    for attr in ("__module__", "__name__", "__qualname__", "__doc__", "__wrapped__",
                 "zero_size_guarded"):
        if hasattr(run, attr):
            setattr(cut, attr, getattr(run, attr))
    if not hasattr(cut, "__wrapped__"):
        cut.__wrapped__ = run  # inspect.signature(cut) is run's
    cut.cuts_empty_grads = True
    return cut


def has_zero_size(values) -> bool:
    for v in values:
        if isinstance(v, paddle.Tensor):
            if 0 in v.shape:
                return True
        elif isinstance(v, (list, tuple)) and v and has_zero_size(v):
            return True
    return False


def recover(exc: BaseException, fn, name, args, kwargs):
    """torch's result of ``fn(*args, **kwargs)`` after it raised ``exc``; re-raises ``exc``
    unless ``exc`` is a Paddle 2.6 zero-size failure and the stand-in runs settle the result."""
    if not is_zero_size_failure(exc) or not (has_zero_size(args) or
                                             has_zero_size(kwargs.values())):
        raise exc
    if name is not None and name.endswith("_") and _has_full_tensor(args):
        raise exc  # an in-place function would write stand-in results into a real operand
    out = kwargs.get("out")
    if out is not None:  # computed without it, then written by torch's out= rules
        if not isinstance(out, paddle.Tensor):
            raise exc
        kwargs = {k: v for k, v in kwargs.items() if k != "out"}
    fill = EMPTY_REDUCTIONS.get(name, 1)
    fill = 0 if fill == NAN else fill
    runs = []
    try:
        for size in _SIZES:
            subst = {}
            a = _stand_in(args, size, fill, subst)
            k = {key: _stand_in(v, size, fill, subst) for key, v in kwargs.items()}
            runs.append((fn(*a, **k), subst))
        grad = paddle.is_grad_enabled() and _any_requires_grad((args, kwargs))
        result = _combine(runs[0][0], runs[1][0], runs[0][1], name, grad)
    except _Refused:
        raise exc from None
    except Exception:  # the op refuses the stand-ins too (their values, their sizes)
        raise exc from None
    if out is None:
        return result
    if not isinstance(result, paddle.Tensor):
        raise exc
    return _OUT_WRITER[0](result, out)


# torch's out= writing (creation._write_out: its cast check needs dtypes, which stand above this
# module: registry imports it to guard what it registers).  Registered late, by creation when it
# loads; recover() runs only after a facade op ran, so the facade is loaded by then.
_OUT_WRITER: list = []


def provide_out_writer(write_out) -> None:
    """Called once by ``creation``: the function that writes a recovered result into ``out=``."""
    _OUT_WRITER[:] = [write_out]


def _has_full_tensor(values) -> bool:
    for v in values:
        if isinstance(v, paddle.Tensor):
            if 0 not in v.shape:
                return True
        elif isinstance(v, (list, tuple)) and _has_full_tensor(v):
            return True
    return False


def _stand_in(v, size, fill, subst):
    if isinstance(v, paddle.Tensor):
        shape = list(v.shape)
        if 0 not in shape:
            return v
        s = kernel_full([d if d else size for d in shape], fill, v.dtype, v.place)
        subst[id(s)] = v
        return s
    if isinstance(v, (list, tuple)) and not hasattr(v, "_fields"):
        return type(v)(_stand_in(b, size, fill, subst) for b in v)
    return v


def _any_requires_grad(v) -> bool:
    if isinstance(v, paddle.Tensor):
        return not v.stop_gradient
    if isinstance(v, (list, tuple)):
        return any(_any_requires_grad(b) for b in v)
    if isinstance(v, dict):
        return any(_any_requires_grad(b) for b in v.values())
    return False


def _combine(r2, r3, subst, name, grad):
    if isinstance(r2, paddle.Tensor) and isinstance(r3, paddle.Tensor):
        if id(r2) in subst:  # an in-place op returned its operand
            return subst[id(r2)]
        return _tensor(r2, r3, name, grad)
    if isinstance(r2, tuple) and isinstance(r3, tuple) and len(r2) == len(r3):
        items = [_combine(a, b, subst, name, grad) for a, b in zip(r2, r3)]
        return type(r2)(*items) if hasattr(r2, "_fields") else tuple(items)
    if isinstance(r2, list) and isinstance(r3, list) and len(r2) == len(r3):
        return [_combine(a, b, subst, name, grad) for a, b in zip(r2, r3)]
    if r2 is None and r3 is None:
        return None
    raise _Refused


def _tensor(r2, r3, name, grad):
    s2, s3 = list(r2.shape), list(r3.shape)
    if len(s2) != len(s3) or r2.dtype != r3.dtype:
        raise _Refused
    shape, empty = [], False
    for d2, d3 in zip(s2, s3):
        if d2 == d3:
            shape.append(d2)
        elif _grows(d2, d3):
            shape.append(0)
            empty = True
        else:
            raise _Refused
    floating = r2.is_floating_point() or r2.is_complex()
    if empty:
        out = kernel_empty(shape, r2.dtype, r2.place)
    else:
        mode = EMPTY_REDUCTIONS.get(name)
        if mode is None:
            raise _Refused
        if mode == NAN:
            if not floating:
                raise _Refused
            out = kernel_full(shape, math.nan, r2.dtype, r2.place)
        else:
            if not np.array_equal(r2.numpy(), r3.numpy(), equal_nan=True):
                raise _Refused
            out = r2
    if grad and floating and out.stop_gradient:
        out.stop_gradient = False
    return out


def _grows(d2, d3) -> bool:
    """d2 = c * 2**k and d3 = c * 3**k for some c >= 1, k >= 1 (a dimension made of the
    stand-in's sizes: 0 for the real operands)."""
    for k in range(1, 8):
        c, rem = divmod(d2, 2 ** k)
        if rem == 0 and c >= 1 and c * 3 ** k == d3:
            return True
    return False
