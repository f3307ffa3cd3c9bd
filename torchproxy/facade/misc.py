"""``torch.testing.assert_close`` (torch's default tolerances per dtype and its message shape) and
``torch.utils.dlpack`` (zero-copy exchange through Paddle's DLPack support)."""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: testing utils
    torch.distributed: tensor
    torch.distributed.tensor: DTensor
    torch.testing: assert_close
    torch.utils: dlpack
    torch.utils.dlpack: from_dlpack to_dlpack
""")

import math

import numpy as np
import paddle

from .registry import module, torch_function, type_

module("torch.testing")
module("torch.utils")
module("torch.utils.dlpack")

# torch.testing._comparison: default (rtol, atol) per dtype
_TOLERANCES = {
    "float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
    "float64": (1e-7, 1e-7), "complex64": (1.3e-6, 1e-5), "complex128": (1e-7, 1e-7),
}


def _dtype_name(dtype) -> str:
    s = str(dtype).split(".")[-1].lower()
    return {"fp16": "float16", "bf16": "bfloat16", "fp32": "float32", "fp64": "float64",
            "int64": "int64", "int32": "int32", "bool": "bool"}.get(s, s)


def _torch_size(shape) -> str:
    return f"torch.Size({list(shape)})"


def _as_numpy(t):
    v = t.detach()
    if _dtype_name(v.dtype) == "bfloat16":
        v = v.astype("float32")
    return v.cpu().numpy()


class _Mismatch(Exception):
    """A failed comparison; the message gets its item path before it becomes AssertionError."""


def _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype):
    if tuple(actual.shape) != tuple(expected.shape):
        raise _Mismatch(f"The values for attribute 'shape' do not match: "
                        f"{_torch_size(actual.shape)} != {_torch_size(expected.shape)}.")
    if check_device and str(actual.place) != str(expected.place):
        raise _Mismatch(f"The values for attribute 'device' do not match: "
                        f"{actual.place} != {expected.place}.")
    adt, edt = _dtype_name(actual.dtype), _dtype_name(expected.dtype)
    if check_dtype and adt != edt:
        raise _Mismatch(f"The values for attribute 'dtype' do not match: torch.{adt} != torch.{edt}.")
    if rtol is None:
        # torch: the looser tolerance of the two dtypes
        ra, aa = _TOLERANCES.get(adt, (0.0, 0.0))
        re_, ae = _TOLERANCES.get(edt, (0.0, 0.0))
        rtol, atol = max(ra, re_), max(aa, ae)
    a, e = _as_numpy(actual), _as_numpy(expected)
    if a.dtype != e.dtype:  # compared in the promoted dtype, as torch does
        common = np.promote_types(a.dtype, e.dtype)
        a, e = a.astype(common), e.astype(common)
    shape = a.shape
    a, e = a.reshape(-1), e.reshape(-1)
    if a.dtype == np.bool_:
        close = a == e
    else:
        close = np.isclose(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan)
    if close.all():
        return
    if not shape:  # torch reports 0-d tensors as scalars (Python values of the items)
        av, ev = a[0].item(), e[0].item()
        diff = abs(av - ev)
        rel = diff / abs(ev) if ev != 0 else math.inf
        raise _Mismatch(_mismatch_msg("Scalars", f"Expected {ev} but got {av}.", diff, None, atol,
                                      rel, None, rtol))
    # torch.testing._comparison.make_tensor_mismatch_msg: differences in the compared dtype
    # (integers upcast to int64), mismatches only, first greatest element
    if a.dtype.kind not in "fc":
        a, e = a.astype(np.int64), e.astype(np.int64)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        abs_diff = np.abs(a - e)
        abs_diff[close] = 0
        rel_diff = abs_diff / np.abs(e)
        rel_diff[close] = 0
    ia, ir = int(np.argmax(abs_diff)), int(np.argmax(rel_diff))
    n_bad = int((~close).sum())
    extra = f"Mismatched elements: {n_bad} / {close.size} ({n_bad / close.size:.1%})"

    def idx(flat):
        return tuple(int(i) for i in np.unravel_index(flat, shape)) if shape else ()
    raise _Mismatch(_mismatch_msg("Tensor-likes", extra, abs_diff[ia].item(), idx(ia), atol,
                                  rel_diff[ir].item(), idx(ir), rtol))


def _mismatch_msg(identifier, extra, abs_diff, abs_idx, atol, rel_diff, rel_idx, rtol):
    """torch.testing._comparison._make_mismatch_msg."""
    equality = rtol == 0 and atol == 0

    def diff_msg(kind, diff, index, tol):
        if index is None:
            msg = f"{kind.title()} difference: {diff}"
        else:
            msg = f"Greatest {kind} difference: {diff} at index {index}"
        if not equality:
            msg += f" (up to {tol} allowed)"
        return msg + "\n"
    msg = f"{identifier} are not {'equal' if equality else 'close'}!\n\n"
    if extra:
        msg += f"{extra.strip()}\n"
    msg += diff_msg("absolute", abs_diff, abs_idx, atol)
    msg += diff_msg("relative", rel_diff, rel_idx, rtol)
    return msg.strip()


def _compare_scalars(actual, expected, rtol, atol, equal_nan):
    if isinstance(actual, bool) or isinstance(expected, bool):
        if actual != expected:
            raise _Mismatch(f"Booleans mismatch: {actual} is not {expected}")
        return
    if rtol is None:  # Python floats are float64 to torch; ints compare exactly
        rtol, atol = (1e-7, 1e-7) if isinstance(expected, float) or isinstance(actual, float) \
            else (0, 0)
    if equal_nan and math.isnan(actual) and math.isnan(expected):
        return
    diff = abs(actual - expected)
    if diff <= atol + rtol * abs(expected):
        return
    rel = diff / abs(expected) if expected != 0 else math.inf
    raise _Mismatch(_mismatch_msg("Scalars", f"Expected {expected} but got {actual}.", diff, None,
                                  atol, rel, None, rtol))


@torch_function("torch.testing.assert_close",
                note="torch's default tolerances per dtype; message text of torch 2.x")
def assert_close(actual, expected, *, allow_subclasses=True, rtol=None, atol=None,
                 equal_nan=False, check_device=True, check_dtype=True, check_layout=True,
                 check_stride=False, msg=None):
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no "
                         f"{'rtol' if rtol is None else 'atol'}.")
    try:
        _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, "")
    except _Mismatch as m:
        text = str(m)
        if isinstance(msg, str):
            text = msg
        elif callable(msg):
            text = msg(text)
        raise AssertionError(text) from None


def _compare(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, path):
    try:
        _compare_one(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, path)
    except _Mismatch as m:
        if path and "The failure occurred for item" not in str(m):
            raise _Mismatch(f"{m}\n\nThe failure occurred for item {path}") from None
        raise


def _compare_one(actual, expected, rtol, atol, equal_nan, check_device, check_dtype, path):
    if actual is None or expected is None:  # torch's NonePair, the first pair it tries
        if actual is None and expected is None:  # (Liger compares two non-leaves' .grad)
            return
        raise _Mismatch(f"None mismatch: {actual} is not {expected}")
    if isinstance(actual, paddle.Tensor) and isinstance(expected, paddle.Tensor):
        return _compare_tensors(actual, expected, rtol, atol, equal_nan, check_device, check_dtype)
    if isinstance(actual, dict) and isinstance(expected, dict):
        if set(actual) != set(expected):
            raise _Mismatch(f"The keys of the mappings do not match:\n"
                            f"Missing keys in the actual mapping: {sorted(set(expected) - set(actual))}\n"
                            f"Additional keys in the actual mapping: {sorted(set(actual) - set(expected))}")
        for k in expected:
            _compare(actual[k], expected[k], rtol, atol, equal_nan, check_device, check_dtype,
                     f"{path}[{k!r}]")
        return
    seq = (list, tuple)
    if isinstance(actual, seq) and isinstance(expected, seq):
        if len(actual) != len(expected):
            raise _Mismatch(f"The length of the sequences mismatch: {len(actual)} != {len(expected)}")
        for i, (a, e) in enumerate(zip(actual, expected)):
            _compare(a, e, rtol, atol, equal_nan, check_device, check_dtype, f"{path}[{i}]")
        return
    num = (int, float, bool)
    if isinstance(actual, num) and isinstance(expected, num):
        if check_dtype and type(actual) is not type(expected):
            raise _Mismatch(f"The values for attribute 'dtype' do not match: "
                            f"{type(actual)} != {type(expected)}.")
        return _compare_scalars(actual, expected, rtol, atol, equal_nan)
    # torch pairs a tensor only with a tensor (a Python number or list next to one is refused)
    raise TypeError(f"No comparison pair was able to handle inputs of type {type(actual)} and "
                    f"{type(expected)}.")


# -- torch.utils.dlpack -------------------------------------------------------------------------
@torch_function("torch.utils.dlpack.to_dlpack", note="Paddle's DLPack capsule (zero-copy)")
def to_dlpack(tensor):
    return paddle.utils.dlpack.to_dlpack(tensor)


@torch_function("torch.utils.dlpack.from_dlpack",
                note="capsules and objects with __dlpack__; zero-copy on Paddle 3.x, while Paddle "
                     "2.6 "
                     "copies CPU tensors")
def from_dlpack(ext_tensor):
    if hasattr(ext_tensor, "__dlpack__") and not isinstance(ext_tensor, paddle.Tensor):
        # Paddle 2.6 takes capsules only: ask the producer for one (on the current stream
        # for GPU producers, as torch does)
        kw = {}
        dev = getattr(ext_tensor, "__dlpack_device__", None)
        if dev is not None and dev()[0] in (2, 10):  # kDLCUDA, kDLROCM
            from .cuda import current_stream
            kw["stream"] = current_stream(dev()[1]).cuda_stream or 1
        return paddle.utils.dlpack.from_dlpack(ext_tensor.__dlpack__(**kw))
    if isinstance(ext_tensor, paddle.Tensor):
        return paddle.utils.dlpack.from_dlpack(paddle.utils.dlpack.to_dlpack(ext_tensor))
    return paddle.utils.dlpack.from_dlpack(ext_tensor)


# -- torch.distributed.tensor.DTensor (torch.distributed itself: distributed.py) ----------------
# Kernel libraries (Liger-Kernel) test `isinstance(x, torch.distributed.tensor.DTensor)` on their
# main paths; no Paddle tensor is a torch DTensor, so that test is truthfully False.
module("torch.distributed.tensor")


class DTensor:
    """torch.distributed.tensor.DTensor: no Paddle tensor is one (isinstance answers False);
    making one is not provided."""

    def __new__(cls, *args, **kwargs):
        from ..errors import NotProvidedError
        raise NotProvidedError("torch.distributed.tensor.DTensor (constructing one)")


type_("torch.distributed.tensor.DTensor", DTensor,
      note="isinstance(x, DTensor) is False for every Paddle tensor; DTensors cannot be made")
