"""torch names that real clients reach for (Triton's tutorials, Liger-Kernel's test suite) and
that fit no other area: boolean-mask assignment over trailing dims, isposinf/isneginf.  Each
follows torch's semantics; the differential tests are tests/facade/test_clients_names.py, the
clients themselves tests/clients/."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: _softmax_backward_data are_deterministic_algorithms_enabled get_deterministic_debug_mode
        is_deterministic_algorithms_warn_only_enabled isneginf isposinf multiprocessing
        set_deterministic_debug_mode use_deterministic_algorithms
    torch.Tensor: __contains__ __getitem__ __setitem__ _make_subclass isneginf isposinf layout
    torch.multiprocessing: Array Barrier Condition Event JoinableQueue Lock Manager Pipe Pool
        Process Queue RLock Semaphore SimpleQueue Value active_children cpu_count current_process
        get_all_start_methods get_context get_start_method set_start_method
    torch.utils: checkpoint
    torch.utils.checkpoint: checkpoint
""")
CONDITIONAL = ("torch.Tensor.__getitem__",)  # Paddle 2.6 only (paddle_shims)

import paddle

from .. import paddle_shims as _shims
from ..paddle_shims import GETITEM_NEEDS_NORMAL_INDEX
from . import dtypes as _dt
from . import _aten_kernels
from ._opbase import op
from .registry import module, tensor_method, torch_function, value

_name = _dt.torch_name
_HALF = (_dt.DTYPES["float16"], _dt.DTYPES["bfloat16"])
_FLOATS = ("float16", "bfloat16", "float32", "float64")


# -- x[..., mask, ...] = v ---------------------------------------------------------------------
def _is_mask(i):
    return isinstance(i, paddle.Tensor) and i.dtype == paddle.bool and i.ndim >= 1


@tensor_method("__setitem__", note="a bool mask next to other indices becomes its nonzero "
                                   "positions (torch: p[:, :, M == 0] = v)")
def __setitem__(self, index, value):
    """torch: a boolean mask of k dims inside an index tuple selects over the k dims it covers
    (``p[:, :, M == 0] = -inf`` masks the last two dims).  Paddle's __setitem__ broadcasts the
    mask against the whole tensor instead (and fails); the mask is turned into its k nonzero
    index vectors (torch's own definition of boolean indexing), which Paddle's advanced
    indexing assigns through, autograd included.  Every other index goes to Paddle as is.
    First torch's refusals (tensor_methods.check_setitem_target: leaves, views of leaves,
    views of computed tensors under autograd, copies standing for views)."""
    from .tensor_methods import check_setitem_target
    rebase = check_setitem_target(self)
    if isinstance(index, tuple) and len(index) > 1 and any(_is_mask(i) for i in index):
        parts = []
        for i in index:
            if _is_mask(i):
                parts.extend(t.reshape([-1]) for t in paddle.nonzero(i, as_tuple=True))
            else:
                parts.append(i)
        index = tuple(parts)
    try:
        self[index] = value  # unscoped frame: Paddle's own __setitem__
    except RuntimeError:
        if not _shims.unsigned_wide(self):
            raise
        # uint32/uint64 on CPU: no set_value kernel; written on an int64 copy (exact casts)
        # and copied back into self's memory
        wide = self.astype(paddle.int64)
        wide[index] = value.astype(paddle.int64) if isinstance(value, paddle.Tensor) and \
            _shims.unsigned_wide(value) else value
        self.copy_(wide.astype(self.dtype), False)
    if rebase is not None:  # a reshape view's base takes the write (CopySlices)
        rebase(self.clone())


# -- x[index] on Paddle 2.6 -----------------------------------------------------------------------
def _normal_item(item, n):
    """One index entry over a dim of size ``n`` as torch reads it, written so Paddle 2.6 reads
    it the same: slices clamped (stop never before start), negative list/tensor entries
    counted from the end."""
    if isinstance(item, slice):
        if item.step is not None and not (isinstance(item.step, int) and item.step > 0):
            return item  # torch refuses these ("step must be greater than zero"): Paddle decides
        try:
            start, stop, step = item.indices(n)
        except TypeError:  # tensor bounds: as they are
            return item
        return slice(start, max(start, stop), step)
    if isinstance(item, list) and item and all(type(i) is int for i in item):
        return [i + n if i < 0 else i for i in item]
    if isinstance(item, paddle.Tensor) and item.ndim > 0 and \
            item.dtype in (paddle.int64, paddle.int32):
        return paddle.where(item < 0, item + n, item)
    return item


def _dims_used(item) -> int:
    if item is None:
        return 0
    if isinstance(item, paddle.Tensor) and item.dtype == paddle.bool:
        return max(item.ndim, 1)
    return 1


def _normal_index(shape, index):
    single = not isinstance(index, tuple)
    items = [index] if single else list(index)
    if any(i is Ellipsis for i in items):
        at = next(k for k, i in enumerate(items) if i is Ellipsis)
        used = sum(_dims_used(i) for i in items if i is not Ellipsis)
        items[at:at + 1] = [slice(None)] * max(len(shape) - used, 0)
    out, d = [], 0
    for item in items:
        k = _dims_used(item)
        out.append(_normal_item(item, shape[d]) if k == 1 and d < len(shape) else item)
        d += k
    return out[0] if single and len(out) == 1 else tuple(out)


if GETITEM_NEEDS_NORMAL_INDEX:
    @tensor_method("__getitem__", note="Paddle 2.6: the index is normalised first (negative "
                                       "list entries, unclamped slices); Paddle's indexing")
    def __getitem__(self, index):
        """torch's x[index] on Paddle 2.6 (paddle_shims.GETITEM_NEEDS_NORMAL_INDEX): the
        index normalised, then Paddle's own __getitem__ (registry.tensor_method gives a result
        with 0 elements its gradient edge: paddle_shims.cut_empty_grads)."""
        return self[_normal_index(self.shape, index)]  # unscoped frame: Paddle's __getitem__


# -- isposinf / isneginf ------------------------------------------------------------------------
def _signed_inf(input, sign):
    if _name(input.dtype) in _FLOATS:
        x = input.astype("float32") if input.dtype in _HALF else input
        return paddle.isinf(x) & ((x > 0) if sign > 0 else (x < 0))
    if _name(input.dtype).startswith("complex"):
        raise RuntimeError(f"isposinf does not support complex inputs.")
    return paddle.zeros(input.shape, dtype="bool")  # integers and bools are never infinite


@op("torch.isposinf", method=True, out=True)
def isposinf(input):
    return _signed_inf(input, 1)


@op("torch.isneginf", method=True, out=True)
def isneginf(input):
    return _signed_inf(input, -1)


# -- deterministic mode (Liger's test helpers toggle it around each test) ------------------------
_DETERMINISTIC = {"mode": False, "warn_only": False}


@torch_function("torch.use_deterministic_algorithms",
                note="records the mode; sets FLAGS_cudnn_deterministic where Paddle has it (GPU "
                     "builds); Paddle raises no error for nondeterministic ops")
def use_deterministic_algorithms(mode, *, warn_only=False):
    if not isinstance(mode, bool):
        raise TypeError(f"use_deterministic_algorithms(): argument 'mode' (position 1) must be "
                        f"bool, not {type(mode).__name__}")
    _DETERMINISTIC.update(mode=mode, warn_only=bool(warn_only))
    try:
        paddle.set_flags({"FLAGS_cudnn_deterministic": mode})
    except (ValueError, RuntimeError):  # CPU builds do not define the flag
        pass


@torch_function("torch.are_deterministic_algorithms_enabled")
def are_deterministic_algorithms_enabled():
    return _DETERMINISTIC["mode"]


@torch_function("torch.is_deterministic_algorithms_warn_only_enabled")
def is_deterministic_algorithms_warn_only_enabled():
    return _DETERMINISTIC["warn_only"]


# 0 default, 1 warn, 2 error: torch's debug-mode view of the same two settings
_DEBUG_MODES = ("default", "warn", "error")


@torch_function("torch.get_deterministic_debug_mode")
def get_deterministic_debug_mode() -> int:
    if not _DETERMINISTIC["mode"]:
        return 0
    return 1 if _DETERMINISTIC["warn_only"] else 2


@torch_function("torch.set_deterministic_debug_mode")
def set_deterministic_debug_mode(debug_mode) -> None:
    if isinstance(debug_mode, str):
        if debug_mode not in _DEBUG_MODES:
            raise RuntimeError(f"invalid value of debug_mode, expected one of `default`, `warn`, "
                               f"`error`, but got {debug_mode}")
        debug_mode = _DEBUG_MODES.index(debug_mode)
    elif isinstance(debug_mode, int) and not isinstance(debug_mode, bool):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got "
                               f"{debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(debug_mode > 0, warn_only=debug_mode == 1)


# -- `x in tensor` (Hugging Face: `pad_token_id in input_ids[:, [-1, 0]]`) -----------------------
@tensor_method("__contains__")
def __contains__(self, element):
    """torch's rule: any element equal to ``element`` (a scalar, or a tensor broadcast against
    ``self``); Paddle has no ``__contains__``, so Python iterated rows and failed on 2-D."""
    import numbers
    if isinstance(element, (paddle.Tensor, numbers.Number)):
        return bool((self == element).any().item())
    raise RuntimeError(f"Tensor.__contains__ only supports Tensor or scalar, but you passed in "
                       f"a {type(element)}.")


# -- Tensor.layout (safetensors refuses anything but torch.strided) ------------------------------
@tensor_method("layout", note="torch.strided for every dense tensor (Paddle's own .layout, the data "
                              "layout string 'NCHW', stays for unscoped callers)")
@property
def layout(self):
    from .creation import strided
    return strided


# -- private names Hugging Face transformers calls ---------------------------------------------


@torch_function("torch._softmax_backward_data")
def _softmax_backward_data(grad_output, output, dim, input_dtype):
    """torch._softmax_backward_data is aten::_softmax_backward_data: the one implementation,
    with torch's dtype rules, is torch.ops.aten's (facade/_aten_kernels.py)."""
    return _aten_kernels.softmax_backward_data(grad_output, output, dim, input_dtype)


@tensor_method("_make_subclass", note="Paddle's Tensor subclass over the same memory")
def _make_subclass(cls, data, require_grad=False, **kwargs):
    """``torch.Tensor._make_subclass(cls, data)``: an instance of the Tensor subclass ``cls``
    that shares ``data``'s memory (detached from its graph)."""
    if not (isinstance(cls, type) and issubclass(cls, paddle.Tensor)):
        raise TypeError(f"cls must be a type (got {cls})")
    obj = paddle.Tensor.__new__(cls)
    paddle.Tensor.__init__(obj, data.detach())
    obj.stop_gradient = not require_grad
    return obj


# -- torch.utils.checkpoint (Hugging Face's modeling_utils imports it at the top) ---------------
import warnings as _warnings  # noqa: E402

module("torch.utils.checkpoint")


@torch_function("torch.utils.checkpoint.checkpoint",
                note="runs the function once and keeps its activations: the same values and "
                     "gradients, without the memory saving (no recomputation in backward)")
def checkpoint(function, *args, use_reentrant=None, context_fn=None, determinism_check="default",
               debug=False, early_stop=True, **kwargs):
    if use_reentrant is None:
        _warnings.warn("torch.utils.checkpoint: the use_reentrant parameter should be passed "
                       "explicitly. Starting in PyTorch 2.9, calling checkpoint without "
                       "use_reentrant will raise an exception. use_reentrant=False is "
                       "recommended, but if you need to preserve the current default behavior, "
                       "you can pass use_reentrant=True. Refer to docs for more details on the "
                       "differences between the two variants.", stacklevel=2)
        use_reentrant = True
    if use_reentrant and kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    return function(*args, **kwargs)


# -- torch.multiprocessing (Liger's test modules import it at the top) ---------------------------
# torch.multiprocessing is Python's multiprocessing plus shared-memory reductions for tensors.
# The facade gives the standard library's objects: Paddle tensors cross process boundaries by
# pickling (copies), not through shared memory; torch.multiprocessing.spawn and the sharing
# strategies are torch's own (gaps.toml).  Paddle's shared-memory variant,
# paddle.incubate.multiprocessing, is not used: importing it registers its reductions for every
# multiprocessing user in the process, scoped or not.
import multiprocessing as _mp  # noqa: E402

module("torch.multiprocessing",
       note="Python's multiprocessing: tensors are pickled (copied), not shared")
for _n in ("Array", "Barrier", "Condition", "Event", "JoinableQueue", "Lock", "Manager", "Pipe",
           "Pool", "Process", "Queue", "RLock", "Semaphore", "SimpleQueue", "Value",
           "active_children", "cpu_count", "current_process", "get_all_start_methods",
           "get_context", "get_start_method", "set_start_method"):
    value(f"torch.multiprocessing.{_n}", getattr(_mp, _n))
