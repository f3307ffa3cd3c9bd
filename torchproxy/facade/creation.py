"""Tensor creation with torch signatures: varargs or tuple sizes, ``dtype=``, ``device=``,
``requires_grad=``, torch's dtype inference, and torch's default device (the CPU).

The hot ones (``empty``, ``empty_like``, ``zeros``...) call Paddle's kernels directly (paddle_shims): the
public ``paddle.empty`` spends most of its 4-5 us in Python argument checking that the facade
has already done.
"""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: BFloat16Tensor BoolTensor ByteTensor CharTensor DoubleTensor FloatTensor HalfTensor
        IntTensor LongTensor ShortTensor _mkldnn arange as_tensor contiguous_format empty
        empty_like empty_permuted empty_strided eye from_numpy full full_like jagged layout
        linspace memory_format ones ones_like preserve_format sparse_bsc sparse_bsr sparse_coo
        sparse_csc sparse_csr strided tensor zero_ zeros zeros_like
""")

import math

import numpy as np
import paddle

from ..paddle_shims import EMPTY_LIKE_OWN_DTYPE as _OWN_DTYPE
from ..paddle_shims import EMPTY_LIKE_OWN_PLACE as _OWN_PLACE
from .fast_dtype import place_reader as _place_reader
from ..paddle_shims import astype_exact, is_meta, meta_tensor
from ..paddle_shims import (copy_to, kernel_empty, kernel_empty_like, kernel_full, same_place,
                            tensor_from_numpy_zero_copy)
from ..errors import NotProvidedError
from ..paddle_shims import META_TENSORS_SAFE
from . import _sizes
from . import dtypes as _dt
from . import zero_size as _zero_size
from .core import Size as _Size
from .device import is_meta_device, to_place
from .pinned import check, pin
from .registry import torch_function, type_, value

_to_dtype = _dt.to_paddle
DTYPES = _dt.DTYPES
_FLOAT32 = DTYPES["float32"]
_INT64 = DTYPES["int64"]
_BOOL = DTYPES["bool"]
# x.place for empty_like's hot path where it must be passed (GPU builds): one Place object per
# device once the facade is enabled (fast_dtype.install_device_reading), Paddle's read before
_place_of = _place_reader()
_FLOAT8 = frozenset(DTYPES[n] for n in ("float8_e4m3fn", "float8_e5m2") if n in DTYPES)


def default_float():
    return DTYPES[paddle.get_default_dtype()]


class _TorchConstant:
    """A named torch constant object (torch.contiguous_format, torch.strided...): compared by
    identity, printed as ``torch.<name>``."""

    __slots__ = ("name",)

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"torch.{self.name}"


class memory_format(_TorchConstant):
    """torch.contiguous_format / preserve_format / channels_last (accepted; see gaps.toml)."""

    __slots__ = ()


type_("torch.memory_format", memory_format)
contiguous_format = memory_format("contiguous_format")
preserve_format = memory_format("preserve_format")
value("torch.contiguous_format", contiguous_format)
value("torch.preserve_format", preserve_format)


def _check_memory_format(fmt):
    if fmt is not None and fmt is not contiguous_format and fmt is not preserve_format:
        raise NotImplementedError(f"torchproxy: memory_format={fmt!r} (only contiguous / "
                                  "preserve) is not provided")


_INT64_MAX = (1 << 63) - 1


def _plain_shape(a):
    """``a`` as a list when it is a tuple, list or torch.Size of plain ints in [0, 2**63) --
    the form kernel wrappers pass (``(n_rows, n_cols)``, ``x.shape``) -- else None, and
    :func:`parse_size`'s general path decides (and raises torch's errors).  Exact classes
    only: a bool, a NumPy integer or an int subclass takes the general path."""
    cls = a.__class__
    if cls is not tuple and cls is not list and cls is not _Size:
        return None
    for d in a:
        if d.__class__ is not int or d < 0 or d > _INT64_MAX:
            return None
    return list(a)


def parse_size(args, kw_size=None, fn="empty"):
    """torch's size forms: f(2, 3), f((2, 3)), f([2, 3]), f(torch.Size), f(size=(2, 3))."""
    if kw_size is None and len(args) == 1:
        shape = _plain_shape(args[0])
        if shape is not None:
            return shape
    if kw_size is not None:
        if args:
            raise TypeError(f"{fn}() got multiple values for argument 'size'")
        args = (kw_size,)
    if len(args) == 1 and not isinstance(args[0], int):
        a = args[0]
        if isinstance(a, paddle.Tensor):
            a = a.tolist()
        args = a if isinstance(a, (list, tuple)) else (a,)
    shape = []
    for d in args:
        if isinstance(d, bool) or not isinstance(d, (int, np.integer)):
            if isinstance(d, paddle.Tensor) and d.size == 1 and not d.is_floating_point():
                d = int(d)
            else:
                raise TypeError(f"{fn}(): argument 'size' must be tuple of ints, but found "
                                f"element of type {type(d).__name__}")
        shape.append(int(d))
    # torch reads each size as an int64 first (a TypeError naming its position), then refuses
    # negative ones
    _sizes.check_int64(shape, fn)
    for d in shape:
        if d < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {d}: "
                               f"{shape}")
    return shape


def checked_alloc(shape, dtype, place=None):
    """The bytes a new contiguous tensor of ``shape`` and Paddle ``dtype`` needs, by torch's
    overflow-checked arithmetic (Paddle's own wraps: 2**62 float32 elements became a 0-byte
    allocation); a context manager that turns Paddle's allocation failure into torch's
    out-of-memory RuntimeError wraps the allocation: ``with checked_alloc(...): kernel(...)``."""
    return _sizes.check_new(shape, dtype, place)


def _finish(t, requires_grad):
    if requires_grad:
        if not _dt.torch_name(t.dtype) in ("float16", "bfloat16", "float32", "float64",
                                           "complex64", "complex128"):
            raise RuntimeError("Only Tensors of floating point and complex dtype can require "
                               "gradients")
        t.stop_gradient = False
    return t


def _write_out(result, out):
    """torch's ``out=``: the result cast to out's dtype (RuntimeError where torch refuses the
    cast: float into an integer out, complex into a real one, anything but bool into a bool
    one), out resized when its shape differs (silently when it is empty; torch warns for a
    non-empty one, and so do we), written in place; returns out."""
    if out is None:
        return result
    if not isinstance(out, paddle.Tensor):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    if 0 in out.strides and any(n > 1 and st == 0 for n, st in zip(out.shape, out.strides)):
        # an expanded out (torch's assert_no_internal_overlap on every written-to tensor)
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    if result.dtype != out.dtype:
        _check_cast(result.dtype, out.dtype)
        result = result.astype(out.dtype)
    shape, want = list(out.shape), list(result.shape)
    if shape != want and math.prod(shape) != 0:
        import warnings
        warnings.warn(f"An output with one or more elements was resized since it had shape "
                      f"{shape}, which does not match the required output shape {want}. This "
                      "behavior is deprecated, and in a future PyTorch release outputs will not "
                      "be resized unless they have zero elements.", UserWarning, stacklevel=3)
    paddle.assign(result, output=out)  # resizes out in place when the shapes differ
    return out


_zero_size.provide_out_writer(_write_out)  # Paddle 2.6's recovered results meet out= too


_CAST_LEGACY = {"int64": "Long", "int32": "Int", "int16": "Short", "int8": "Char",
                "uint8": "Byte", "bool": "Bool", "float32": "Float", "float64": "Double",
                "float16": "Half", "bfloat16": "BFloat16", "complex64": "ComplexFloat",
                "complex128": "ComplexDouble"}


def _cast_kind(dt):
    n = _dt.torch_name(dt)
    return 0 if n == "bool" else 3 if n.startswith("complex") else 2 if "float" in n else 1


def _check_cast(result_dtype, target_dtype):
    """torch's canCast: no float -> integer, complex -> real, or non-bool -> bool writes."""
    if _cast_kind(result_dtype) > _cast_kind(target_dtype):
        a, b = _dt.torch_name(result_dtype), _dt.torch_name(target_dtype)
        raise RuntimeError(f"result type {_CAST_LEGACY.get(a, a)} can't be cast to the desired "
                           f"output type {_CAST_LEGACY.get(b, b)}")


def _dtype_or_default(dtype):
    return default_float() if dtype is None else _to_dtype(dtype)


@torch_function("torch.empty")
def empty(*sizes, size=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False, memory_format=None):
    require_strided(layout, 'empty')
    if pin_memory is not False and _check_pin_memory(pin_memory, 'empty', device, out):
        return pin(empty(*sizes, size=size, dtype=dtype, layout=layout, device=device,
                         requires_grad=requires_grad, memory_format=memory_format))
    if device is not None and is_meta_device(device):
        return _meta_empty(parse_size(sizes, size, fn="empty"), dtype, requires_grad, out)
    if sizes and size is None and out is None and not requires_grad and memory_format is None:
        # the kernel wrappers' call, torch.empty((n, m), device=x.device, dtype=x.dtype), or
        # with the sizes spread out, torch.empty(n, m, ...) (TileLang's adapter allocates every
        # output so): the same checks as below, without the general parser and the context
        # manager (issue 26; bench/host_cost.py's torch.empty rows).  One plain int alone
        # (torch.empty(5)) takes the general path, as does any non-int size.
        shape = _plain_shape(sizes[0] if len(sizes) == 1 else sizes)
        if shape is not None:
            dt, place = _dtype_or_default(dtype), to_place(device)
            _sizes.check_overflow(shape, dt)
            try:
                return kernel_empty(shape, dt, place)
            except MemoryError:
                _sizes.raise_out_of_memory(place, shape, dt)
    _check_memory_format(memory_format)
    shape = parse_size(sizes, size, fn="empty")
    dt, place = _dtype_or_default(dtype), to_place(device)
    with checked_alloc(shape, dt, place):
        t = kernel_empty(shape, dt, place)
    return _write_out(_finish(t, requires_grad), out)


def require_meta_tensors() -> None:
    """Meta tensors only where Paddle keeps them safe (paddle_shims.META_TENSORS_SAFE)."""
    if not META_TENSORS_SAFE:
        raise NotProvidedError("torch.device('meta') tensors on Paddle 2.6 (its numpy()/tolist() "
                               "read a storage-less tensor instead of raising; Paddle >= 3.0 "
                               "has them)")


def _meta_empty(shape, dtype, requires_grad, out=None):
    """torch.empty(..., device="meta"): shape and dtype, no storage (paddle_shims.meta_tensor)."""
    require_meta_tensors()
    if out is not None:
        raise RuntimeError("torchproxy: torch.empty(out=...) on the meta device is not supported")
    return _finish(meta_tensor(shape, _dtype_or_default(dtype)), requires_grad)


def _like(x, dtype, device):
    return (x.dtype if dtype is None else _to_dtype(dtype),
            x.place if device is None else to_place(device))


@torch_function("torch.empty_like")
def empty_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               pin_memory=False, memory_format=None):
    if (dtype is None and device is None and not requires_grad and memory_format is None
            and layout is None and pin_memory is False):
        # the hot path (kernel wrappers' torch.empty_like(x)): Paddle takes input's dtype
        # itself, no dtype object is read or hashed here, and no Place object is built: none
        # on CPU-only builds (paddle_shims.EMPTY_LIKE_OWN_PLACE), one per device on others
        place = _OWN_PLACE
        if place is None:
            place = _place_of(input)  # None for a GPU-pinned input: the general path
        if place is None:
            pass
        elif not _FLOAT8:  # Paddle 2.6: no float8 dtypes
            # 2.6's kernel gives a meta input (no storage, paddle_shims.meta_tensor) a CPU
            # result: storage-less inputs (meta and 0-size ones) take the general path
            if input._is_initialized():
                return kernel_empty_like(input, _OWN_DTYPE, place)
        else:
            try:
                return kernel_empty_like(input, _OWN_DTYPE, place)
            except Exception:
                # Paddle's CPU empty_like has no float8 kernel ("kernel ... is not
                # registered"): float8 inputs take the general path below, and so do meta
                # inputs (no kernel takes their undefined place); any other failure is Paddle's
                if input.dtype not in _FLOAT8 and not is_meta(input):
                    raise
    require_strided(layout, 'empty_like')
    if pin_memory is not False and _check_pin_memory(
            pin_memory, 'empty_like', input.place if device is None else device):
        return pin(empty_like(input, dtype=dtype, layout=layout, device=device,
                              requires_grad=requires_grad, memory_format=memory_format))
    _check_memory_format(memory_format)
    if device is None and is_meta(input) or device is not None and is_meta_device(device):
        return _meta_empty(list(input.shape), input.dtype if dtype is None else dtype,
                           requires_grad)
    dt, place = _like(input, dtype, device)
    if is_meta(input):  # a meta input materialised on a real device: only its shape is read
        return _finish(kernel_empty(list(input.shape), dt, place), requires_grad)
    if device is None and place.is_cuda_pinned_place():
        # torch's result is an ordinary CPU tensor (pinning is not a device); Paddle 2.6.2's
        # CUDA build cannot run empty_like on a pinned input ("Place(undefined:0) is not
        # supported", H100 lease of round ten): only the shape is read
        return _finish(kernel_empty(list(input.shape), dt, paddle.CPUPlace()), requires_grad)
    if dt in _FLOAT8 or input.dtype in _FLOAT8:
        # Paddle's CPU empty_like has no float8 kernel (its empty has one)
        return _finish(kernel_empty(list(input.shape), dt, place), requires_grad)
    return _finish(kernel_empty_like(input, dt, place), requires_grad)


@torch_function("torch.empty_strided")
def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    require_strided(layout, 'empty_strided')
    pinning = _check_pin_memory(pin_memory, 'empty_strided', device)
    shape = parse_size((size,), fn="empty_strided")
    stride = [int(s) for s in stride]
    _sizes.check_int64(stride, "empty_strided", "stride")
    if len(stride) != len(shape):
        raise RuntimeError(f"mismatch in length of strides and shape")
    dt, place = _dtype_or_default(dtype), to_place(device)
    # the storage a strided tensor needs (torch's overflow-checked computeStorageNbytes: a
    # negative stride is refused there), 0 when any size is 0
    item = _sizes.itemsize(dt)
    nbytes = _sizes.nbytes_strided(shape, stride, item)
    if pinning:
        # Paddle computes on pinned tensors with GPU kernels: a strided view of pinned storage
        # (paddle.as_strided) is a GPU tensor (H100 lease, round eleven), so only row-major
        # strides, which need no view, are pinned
        if not _row_major(shape, stride):
            raise NotProvidedError("torch.empty_strided(pin_memory=True) with strides other "
                                   "than row-major (a view of pinned memory is a GPU tensor "
                                   "in Paddle)")
        with _sizes.allocating(nbytes, place):
            return _finish(pin(kernel_empty(shape, dt, place)), requires_grad)
    with _sizes.allocating(nbytes, place):
        base = kernel_empty([nbytes // item], dt, place)
    return _finish(paddle.as_strided(base, shape, stride), requires_grad)


def _row_major(shape, stride) -> bool:
    """Strides of a contiguous row-major tensor of ``shape`` (those of size-1 dims are free,
    as torch's is_contiguous treats them)."""
    expected = 1
    for n, s in zip(reversed(shape), reversed(stride)):
        if n != 1 and s != expected:
            return False
        expected *= n
    return True


def _full(shape, fill, dtype, device, requires_grad, out):
    place = to_place(device)
    fill = check_fill(fill, dtype)
    with checked_alloc(shape, dtype, place):
        t = kernel_full(shape, fill, dtype, place)
    return _write_out(_finish(t, requires_grad), out)


# c10's Scalar::to<T>() names the C++ type it converts to in its overflow message
_SCALAR_CTYPE = {"int64": "int64_t", "int32": "int", "int16": "int16_t", "int8": "int8_t",
                 "uint8": "uint8_t", "uint16": "uint16_t", "uint32": "uint32_t",
                 "float32": "float", "complex64": "c10::complex<float>"}
_FLOAT32_MAX = float(np.finfo(np.float32).max)


def check_fill(value, dtype):
    """A fill value as torch's ``Scalar`` converts it to ``dtype`` (full, fill_, new_full,
    full_like): a Python int is an int64 or, from 2**63 on, a uint64 Scalar (OverflowError past
    that); converting it to an integer dtype refuses what does not fit (unsigned dtypes take
    negatives down to -max, which wrap), a float into an integer dtype must lie within its range
    (NaN refused), a float into float32/complex64 within float32's (infinities pass); float16,
    bfloat16 and float64 take anything.  Returns the value Paddle is given: an int that fits
    the dtype (Paddle raised SystemError on 2**63), a float for floating dtypes."""
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer,
                                                                     np.floating)):
        return value
    name = _dt.torch_name(dtype)
    ctype = _SCALAR_CTYPE.get(name, name)
    if isinstance(value, (int, np.integer)):
        v = int(value)
        if v < _sizes.INT64_MIN:
            raise OverflowError("can't convert negative int to unsigned")
        if v >= 1 << 64:
            raise OverflowError("int too big to convert")
        if name in _sizes.INT_RANGES:
            if _sizes.int_overflows(v, name):
                raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
            lo, hi = _sizes.INT_RANGES[name]
            return v % (hi + 1) if lo == 0 and v < 0 else v  # unsigned: wraps as torch's
        if name in _FLOAT_NAMES or name.startswith("complex"):
            return float(v)
        return v
    v = float(value)
    if name in _sizes.INT_RANGES:
        if _sizes.float_overflows(v, name):
            raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
        return int(np.array(v).astype(name))  # truncated (2.0**63 -> int64 min, as torch)
    if name in ("float32", "complex64") and math.isfinite(v) and abs(v) > _FLOAT32_MAX:
        raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
    return value


@torch_function("torch.zeros")
def zeros(*sizes, size=None, out=None, dtype=None, layout=None, device=None,
          requires_grad=False, pin_memory=False):
    require_strided(layout, 'zeros')
    if pin_memory is not False and _check_pin_memory(pin_memory, 'zeros', device, out):
        return pin(zeros(*sizes, size=size, dtype=dtype, layout=layout, device=device,
                       requires_grad=requires_grad))
    return _full(parse_size(sizes, size, fn="zeros"), 0, _dtype_or_default(dtype), device,
                 requires_grad, out)


@torch_function("torch.ones")
def ones(*sizes, size=None, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    require_strided(layout, 'ones')
    if pin_memory is not False and _check_pin_memory(pin_memory, 'ones', device, out):
        return pin(ones(*sizes, size=size, dtype=dtype, layout=layout, device=device,
                       requires_grad=requires_grad))
    return _full(parse_size(sizes, size, fn="ones"), 1, _dtype_or_default(dtype), device,
                 requires_grad, out)


def _scalar_dtype(v):
    """torch's dtype for a Python scalar fill value."""
    if isinstance(v, bool):
        return _BOOL
    if isinstance(v, (int, np.integer)):
        return _INT64
    if isinstance(v, complex):
        return DTYPES["complex128"] if paddle.get_default_dtype() == "float64" \
            else DTYPES["complex64"]
    if isinstance(v, paddle.Tensor):
        return v.dtype
    return default_float()


@torch_function("torch.full")
def full(size, fill_value, *, out=None, dtype=None, layout=None, device=None,
         requires_grad=False, pin_memory=False):
    require_strided(layout, 'full')
    if pin_memory is not False and _check_pin_memory(pin_memory, 'full', device, out):
        return pin(full(size, fill_value, dtype=dtype, layout=layout, device=device,
                        requires_grad=requires_grad))
    dt = _scalar_dtype(fill_value) if dtype is None else _to_dtype(dtype)
    if isinstance(fill_value, paddle.Tensor):
        fill_value = fill_value.item()
    return _full(parse_size((size,), fn="full"), fill_value, dt, device, requires_grad, out)


def _full_like(x, fill, dtype, device, requires_grad):
    dt, place = _like(x, dtype, device)
    return _finish(kernel_full(list(x.shape), check_fill(fill, dt), dt, place), requires_grad)


@torch_function("torch.zeros_like")
def zeros_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
               memory_format=None):
    require_strided(layout, 'zeros_like')
    _check_memory_format(memory_format)
    return _full_like(input, 0, dtype, device, requires_grad)


@torch_function("torch.ones_like")
def ones_like(input, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    require_strided(layout, 'ones_like')
    _check_memory_format(memory_format)
    return _full_like(input, 1, dtype, device, requires_grad)


@torch_function("torch.full_like")
def full_like(input, fill_value, *, dtype=None, layout=None, device=None, requires_grad=False,
              memory_format=None):
    require_strided(layout, 'full_like')
    _check_memory_format(memory_format)
    if isinstance(fill_value, paddle.Tensor):
        fill_value = fill_value.item()
    return _full_like(input, fill_value, dtype, device, requires_grad)


def _num(v):
    return v.item() if isinstance(v, paddle.Tensor) else v


_FLOAT_NAMES = ("float16", "bfloat16", "float32", "float64")


def _bound(v, fn, start, end):
    """linspace/logspace's start/end: a number or a 0-d tensor (torch's RuntimeError else)."""
    if isinstance(v, paddle.Tensor) and v.ndim != 0:
        dims = [x.ndim if isinstance(x, paddle.Tensor) else 0 for x in (start, end)]
        raise RuntimeError(f"{fn} only supports 0-dimensional start and end tensors, but got "
                           f"start with {dims[0]} dimension(s) and end with {dims[1]} "
                           "dimension(s).")
    return _num(v)


def _check_steps(steps, fn, start, end):
    if isinstance(steps, bool) or not isinstance(steps, (int, np.integer)):
        kinds = ", ".join(type(v).__name__ for v in (start, end, steps))
        raise TypeError(f"{fn}() received an invalid combination of arguments - got ({kinds})")


def _trunc_int(v):
    """A Python scalar as torch's ``Scalar.to<int64_t>()`` reads it (toward zero)."""
    return int(v)


@torch_function("torch.arange")
def arange(start, end=None, step=1, *, out=None, dtype=None, layout=None, device=None,
           requires_grad=False):
    require_strided(layout, 'arange')
    if end is None:
        start, end = 0, start
    start, end, step = _num(start), _num(end), _num(step)
    if not all(math.isfinite(float(v)) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    is_int = all(isinstance(v, (int, np.integer)) for v in (start, end, step))
    if dtype is None and isinstance(out, paddle.Tensor):
        dtype = out.dtype  # torch computes in out's dtype
    dt = (_INT64 if is_int else default_float()) if dtype is None else _to_dtype(dtype)
    if _dt.torch_name(dt) in _FLOAT_NAMES:
        # torch (CPU): the bounds and step in double, size ceil((end - start) / step)
        xs, xe, xst = float(start), float(end), float(step)
    else:  # integer dtypes: the bounds and step read as int64 (truncated toward zero) first
        xs, xe, xst = _trunc_int(start), _trunc_int(end), _trunc_int(step)
    if float(step) == 0:
        raise RuntimeError("step must be nonzero")
    if xst == 0:  # a fractional step truncated to 0 for an integer dtype: torch's ValueError
        raise ValueError("step must be nonzero")
    if not ((xst > 0 and xe >= xs) or (xst < 0 and xe <= xs)):
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if _dt.torch_name(dt) == "int64":
        # int64 arithmetic: ceil((end - start + step - sgn(step)) / step) with C's division
        num = xe - xs + xst - (1 if xst > 0 else -1)
        n = abs(num) // abs(xst) * (1 if (num >= 0) == (xst > 0) else -1)
    else:
        n = math.ceil((float(end) - float(start)) / float(step))
    n = max(0, n)
    with checked_alloc([n], dt, to_place(device)):  # torch's size checks first
        if isinstance(xs, int):
            vals = xs + np.arange(n, dtype=np.int64) * xst
        else:
            vals = xs + np.arange(n, dtype=np.float64) * xst
        return _write_out(_finish(_from_numpy_as(vals, dt, device), requires_grad), out)


def _two_product_sum(a, b, c):
    """``a * b + c`` in float64 as a fused multiply-add rounds it (numpy has no fma): the
    exact product by Dekker's split, summed with TwoSum (torch's CPU linspace kernel is
    compiled with contracted multiply-adds, which decides values truncated to integers)."""
    a, b, c = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                  np.asarray(c, np.float64))
    p = a * b
    ca, cb = 134217729.0 * a, 134217729.0 * b
    ah, bh = ca - (ca - a), cb - (cb - b)
    al, bl = a - ah, b - bh
    err = ((ah * bh - p) + ah * bl + al * bh) + al * bl
    s = c + p
    bb = s - c
    t = (c - (s - bb)) + (p - bb)
    return s + (t + err)


@torch_function("torch.linspace")
def linspace(start, end, steps, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    require_strided(layout, 'linspace')
    _check_steps(steps, "linspace", start, end)
    start, end = _bound(start, "linspace", start, end), _bound(end, "linspace", start, end)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = default_float() if dtype is None else _to_dtype(dtype)
    with checked_alloc([steps], dt, to_place(device)):  # torch's size checks first
        return _linspace_values(start, end, steps, dt, out, device, requires_grad)


def _linspace_values(start, end, steps, dt, out, device, requires_grad):
    if _dt.torch_name(dt) in _FLOAT_NAMES or steps == 0:
        vals = np.linspace(start, end, steps, dtype=np.float64)
    elif steps == 1:
        vals = np.array([_trunc_int(start)], dtype=np.int64)
    else:
        # torch (CPU) for integer dtypes: start and end truncated to the dtype, the step in
        # double; the first half counts up from start, the second half down from end, and
        # each value is truncated toward zero
        s, e = _trunc_int(start), _trunc_int(end)
        step = (float(e) - float(s)) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        v = np.where(i < steps // 2, _two_product_sum(step, i, float(s)),
                     _two_product_sum(-step, steps - i - 1, float(e)))
        vals = np.trunc(v).astype(np.int64)
    return _write_out(_finish(_from_numpy_as(vals, dt, device), requires_grad), out)


def logspace_values(start, end, steps, base, dt):
    """torch.logspace's values (CPU kernel) as a numpy array for Paddle dtype ``dt``: the
    exponents as torch's linspace computes them (in the float dtype's precision; in double
    from truncated bounds for integer dtypes) and ``base ** exponent``."""
    _check_steps(steps, "logspace", start, end)
    start, end = _bound(start, "logspace", start, end), _bound(end, "logspace", start, end)
    base = float(_num(base))
    name = _dt.torch_name(dt)
    if steps == 0:
        return np.zeros([0], dtype=np.float64)
    if name.startswith("complex"):
        raise NotImplementedError("torchproxy: logspace with a complex dtype is not supported")
    if name in _FLOAT_NAMES:
        f = np.float64 if name == "float64" else np.float32
        s, e = f(start), f(end)
        if steps == 1:
            return np.power(f(base), s, dtype=f).reshape([1])
        step = (e - s) / f(steps - 1)
        i = np.arange(steps, dtype=f)
        exps = np.where(i < steps // 2, s + step * i, e - step * (f(steps - 1) - i))
        return np.power(f(base), exps.astype(f), dtype=f)
    with np.errstate(over="ignore", invalid="ignore"):
        if steps == 1:
            return np.trunc(np.array([math.pow(base, float(start))]))
        s, e = _trunc_int(start), _trunc_int(end)
        step = float(e - s) / (steps - 1)
        i = np.arange(steps, dtype=np.float64)
        exps = np.where(i < steps // 2, float(s) + step * i, float(e) - step * (steps - i - 1))
        return np.trunc(np.power(base, exps))


@torch_function("torch.eye")
def eye(n, m=None, *, out=None, dtype=None, layout=None, device=None, requires_grad=False):
    require_strided(layout, 'eye')
    m = n if m is None else m
    if n < 0 or m < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n if n < 0 else m}")
    dt = _dtype_or_default(dtype)
    with checked_alloc([n, m], dt, to_place(device)):  # torch's size checks first
        return _write_out(_finish(_from_numpy_as(np.eye(n, m), dt, device), requires_grad), out)


def _from_numpy_as(arr, dt, device):
    """numpy values -> a tensor of Paddle dtype ``dt`` on ``device`` (bf16 via float32)."""
    name = _dt.torch_name(dt)
    if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):
        t = paddle.to_tensor(np.asarray(arr, dtype=np.float32), place=to_place(device))
        return astype_exact(t, dt)  # (Paddle 2.6's cast to bfloat16 truncates)
    return paddle.to_tensor(np.asarray(arr, dtype=name), place=to_place(device))


@torch_function("torch.empty_permuted")
def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """Uninitialised, of shape ``size``, laid out in memory in ``physical_layout``'s order
    (the tensor is a permuted view of a contiguous allocation, so its strides are torch's)."""
    require_strided(layout, 'empty_permuted')
    if _check_pin_memory(pin_memory, 'empty_permuted', device):
        # a permuted view of pinned storage: Paddle's transpose has no pinned-place kernel
        raise NotProvidedError("torch.empty_permuted(pin_memory=True)")
    shape = parse_size((size,), fn="empty_permuted")
    order = [int(d) for d in physical_layout]
    nd = len(shape)
    if len(order) != nd:
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {nd} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    for i, d in enumerate(order):
        if d < 0 or d >= nd:
            raise RuntimeError(f"Dimension out of range (expected to be between 0 and {nd - 1}, "
                               f"but got {d} at index {i}).  NB: negative dims not currently "
                               "supported; file an issue if you want it.")
    if len(set(order)) != len(order):
        raise RuntimeError("Duplicate dim not allowed")
    dt, place = _dtype_or_default(dtype), to_place(device)
    physical = [shape[d] for d in order]
    with checked_alloc(physical, dt, place):  # torch names the physical sizes
        t = kernel_empty(physical, dt, place)
    if nd > 1 and order != list(range(nd)):
        inverse = [order.index(i) for i in range(nd)]
        t = t.transpose(inverse)
    return _finish(t, requires_grad)


@torch_function("torch.zero_")
def zero_(input):
    """torch.zero_: fills ``input`` with zeros in place and returns it."""
    if not isinstance(input, paddle.Tensor):
        raise TypeError(f"zero_(): argument 'input' must be Tensor, not {type(input).__name__}")
    if math.prod(input.shape) == 0:
        return input
    paddle.assign(paddle.zeros(list(input.shape), dtype="int64").astype(input.dtype),
                  output=input)
    return input


# -- from data ---------------------------------------------------------------------------------
def _infer(data):
    """Python data -> (numpy array, torch dtype) by torch's rules (floats -> default dtype)."""
    arr = np.asarray(data)
    k = arr.dtype.kind
    if k == "f":
        return arr, default_float()
    if k in "iu":
        return arr, _INT64
    if k == "b":
        return arr, _BOOL
    if k == "c":
        return arr, _scalar_dtype(1j)
    raise TypeError(f"Could not infer dtype of {type(data).__name__}")


def _flatten_tensors(data):
    """Lists holding 0-d/1-d Paddle tensors (torch.tensor([t.item(), ...]) style) -> values."""
    if isinstance(data, paddle.Tensor):
        return data.numpy() if _dt.torch_name(data.dtype) != "bfloat16" \
            else data.astype("float32").numpy()
    if isinstance(data, (list, tuple)):
        return [_flatten_tensors(d) for d in data]
    return data


def _first_tensor(data):
    if isinstance(data, paddle.Tensor):
        return data
    if isinstance(data, (list, tuple)):
        for d in data:
            t = _first_tensor(d)
            if t is not None:
                return t
    return None


def _leaves(data):
    """The scalars of nested Python data, in row-major order (arrays from tensors too)."""
    if isinstance(data, (list, tuple)):
        for d in data:
            yield from _leaves(d)
    elif isinstance(data, np.ndarray):
        yield from (v.item() for v in data.reshape(-1))
    else:
        yield data


def _leaf_kind(v) -> int:
    # torch's scalar type inference order: bool < integer < floating < complex
    if isinstance(v, (bool, np.bool_)):
        return 0
    if isinstance(v, (int, np.integer)):
        return 1
    if isinstance(v, (complex, np.complexfloating)):
        return 3
    return 2


def _store_check(v, name):
    """torch's ``store_scalar`` of one Python scalar into dtype ``name``: integers are read as
    int64 (ValueError past it), then range-checked (c10 checked_convert); floats into an
    integer dtype must fit its range; ints into a floating dtype go through float()."""
    if name in _sizes.INT_RANGES:
        if isinstance(v, (float, np.floating)):
            if _sizes.float_overflows(float(v), name):
                raise RuntimeError(f"value cannot be converted to type {name} without overflow")
            return
        if isinstance(v, (complex, np.complexfloating)):
            raise TypeError("'complex' object cannot be interpreted as an integer")
        v = int(v)
        if not _sizes.INT64_MIN <= v <= _sizes.INT64_MAX:
            raise ValueError("Overflow when unpacking long long")
        if _sizes.int_overflows(v, name):
            raise RuntimeError(f"value cannot be converted to type {name} without overflow")
    elif name == "uint64" and isinstance(v, int) and not isinstance(v, bool):
        if v < 0:
            raise OverflowError("can't convert negative int to unsigned")
        if v >= 1 << 64:
            raise OverflowError("int too big to convert")
    elif name != "bool" and isinstance(v, int) and not isinstance(v, bool):
        float(v)  # OverflowError "int too large to convert to float", as torch's


def _suspect(arr, name, inferred) -> bool:
    """Whether numpy's conversion may have hidden a value torch refuses (then every scalar is
    checked in order; the common case costs a few vectorised comparisons)."""
    k = arr.dtype.kind
    if k in "uOc":
        return k != "c" or name in _sizes.INT_RANGES
    if name in _sizes.INT_RANGES:
        lo, hi = _sizes.INT_RANGES[name]
        if k == "f":
            return bool(np.any(np.isnan(arr) | (arr < float(lo)) | (arr > float(hi))))
        if k in "ib":
            a = arr.astype(np.int64)
            return bool(np.any((a > hi) | ((a < -hi) if lo == 0 else (a < lo))))
    # ints beyond int64 mixed with negatives make numpy choose float64
    return inferred and k == "f" and arr.size > 0 and float(np.max(np.abs(arr))) >= 2.0 ** 63


@torch_function("torch.tensor")
def tensor(data, *, dtype=None, device=None, requires_grad=False, pin_memory=False):
    if pin_memory is not False and _check_pin_memory(pin_memory, 'tensor'):
        # torch makes the data pinned, then moves it to ``device`` (a pinned result only on
        # the CPU)
        t = tensor(data, dtype=dtype, device=device, requires_grad=requires_grad)
        return pin(t) if t.place.is_cpu_place() else t
    if isinstance(data, paddle.Tensor):
        t = data.detach().clone()
        if dtype is not None:
            t = t.astype(_to_dtype(dtype))
        if device is not None:
            t = copy_to(t, to_place(device), True)
        return _finish(t, requires_grad)
    if isinstance(data, np.ndarray):
        # torch: the array's values converted (wrapping, as numpy's cast), and its memory
        # layout kept where it is dense (a Fortran-order array gives strides (1, 2))
        dt = _dt.to_paddle(str(data.dtype)) if dtype is None else _to_dtype(dtype)
        return _finish(_from_array_keeping_layout(data, dt, device), requires_grad)
    flat = _flatten_tensors(data)
    try:
        arr = np.asarray(flat)
    except OverflowError:  # numpy refuses some mixes of huge ints and floats
        arr = np.asarray(flat, dtype=object)
    first = _first_tensor(data)
    if dtype is not None:
        dt = _to_dtype(dtype)
    elif first is not None:  # torch: a list of tensors keeps their dtype
        dt = first.dtype
    else:
        dt = None
    name = None if dt is None else _dt.torch_name(dt)
    if _suspect(arr, name, dt is None):
        if dt is None:
            kind = max((_leaf_kind(v) for v in _leaves(flat)), default=2)
            dt = (_BOOL, _INT64, default_float(), _scalar_dtype(1j))[kind]
            name = _dt.torch_name(dt)
        for v in _leaves(flat):
            _store_check(v, name)
        if arr.dtype.kind in "uO":
            arr = arr.astype(np.float64 if name in _FLOAT_NAMES else
                             np.complex128 if name.startswith("complex") else
                             bool if name == "bool" else np.uint64 if name == "uint64" else
                             np.int64)
    if dt is None:
        arr, dt = _infer(arr)
    return _finish(_from_numpy_as(arr, dt, device), requires_grad)


def _dense_layout(arr) -> bool:
    """torch's is_non_overlapping_and_dense for an array's (byte) strides."""
    if arr.ndim < 2 or arr.flags.c_contiguous or arr.flags.f_contiguous:
        return True
    dims = sorted((s, n) for s, n in zip(arr.strides, arr.shape) if n != 1)
    expect = arr.itemsize
    for s, n in dims:
        if s != expect:
            return False
        expect *= n
    return True


def _from_array_keeping_layout(arr, dt, device):
    """torch.tensor(ndarray): a copy with the array's layout where it is dense and not
    C-contiguous (torch copies with preserve_format), else a contiguous copy."""
    name = _dt.torch_name(dt)
    keep = (arr.ndim >= 2 and not arr.flags.c_contiguous and _dense_layout(arr)
            and all(s >= 0 for s in arr.strides) and name in _NUMPY_COPYABLE
            and isinstance(to_place(device), paddle.CPUPlace))
    if not keep:
        return _from_numpy_as(arr, dt, device)
    copy = np.array(arr, dtype=name, order="K", copy=True)  # same layout, own memory
    return _strided_from_numpy(copy)


_NUMPY_COPYABLE = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                   "float64", "complex64", "complex128")


def _strided_from_numpy(arr):
    """A CPU tensor sharing ``arr``'s memory with its strides (non-negative, whole elements):
    Paddle's zero-copy constructor over the span the array covers, viewed with as_strided."""
    item = arr.itemsize
    if any(s % item for s in arr.strides):
        raise ValueError("given numpy array strides not a multiple of the element byte size. "
                         "Copy the numpy array to reallocate the memory.")
    if any(s < 0 for s in arr.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors "
                         "with negative strides are not currently supported. (You can probably "
                         "work around this by making a copy of your array  with array.copy().) ")
    strides = [s // item for s in arr.strides]
    span = _sizes.nbytes_strided(list(arr.shape), strides, item) // item
    if span == 0:
        return paddle.to_tensor(arr, place=paddle.CPUPlace())
    # a 1-D C-contiguous array over exactly the bytes the view reaches (same memory)
    base = np.lib.stride_tricks.as_strided(arr, shape=(span,), strides=(item,),
                                           writeable=arr.flags.writeable)
    flat = tensor_from_numpy_zero_copy(base)
    return paddle.as_strided(flat, list(arr.shape), strides, 0)


@torch_function("torch.as_tensor")
def as_tensor(data, dtype=None, device=None):
    """torch: no copy when data is already a tensor of that dtype and device."""
    if isinstance(data, paddle.Tensor):
        t = data
        if dtype is not None and _to_dtype(dtype) != t.dtype:
            t = t.astype(_to_dtype(dtype))
        if device is not None:
            place = to_place(device)
            if not same_place(t.place, place):
                t = copy_to(t, place, True)
        return t
    if isinstance(data, np.ndarray) and dtype is None and device is None:
        return from_numpy(data)
    return tensor(data, dtype=dtype, device=device)


@torch_function("torch.from_numpy")
def from_numpy(ndarray):
    """Shares memory with the array, as torch does (Paddle's zero-copy constructor)."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    if not ndarray.flags.writeable or ndarray.dtype.kind not in "biufc" or ndarray.ndim == 0:
        # Paddle's zero-copy path needs a writable array (gaps.toml: from_numpy)
        return paddle.to_tensor(ndarray, place=paddle.CPUPlace())  # torch: a CPU tensor
    if not ndarray.flags.c_contiguous:
        # torch keeps the array's strides and shares its memory (a Triton kernel given
        # x.stride() writes through them): a strided view of the same bytes
        return _strided_from_numpy(ndarray)
    return tensor_from_numpy_zero_copy(ndarray)


# -- legacy tensor types (annotations such as Optional[torch.LongTensor], isinstance) --------
class _LegacyTensorMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, paddle.Tensor) and obj.dtype == DTYPES[cls._dtype] and \
            obj.place.is_gpu_place() == cls._cuda


def _legacy_type(name, dtype, cuda=False):
    def __new__(cls, *args):
        # torch.FloatTensor(2, 3): uninitialised; torch.FloatTensor([1, 2]): from data
        if len(args) == 1 and isinstance(args[0], (list, tuple)):
            return tensor(args[0], dtype=DTYPES[dtype], device="cuda" if cuda else "cpu")
        # torch.FloatTensor() is an empty 1-D tensor, not a 0-d one
        return empty(*(args or (0,)), dtype=DTYPES[dtype], device="cuda" if cuda else "cpu")
    cls = _LegacyTensorMeta(name, (), {"__new__": __new__, "_dtype": dtype, "_cuda": cuda,
                                       "__doc__": f"torch.{'cuda.' if cuda else ''}{name}"})
    return cls


for _legacy, _dtype in (("FloatTensor", "float32"), ("DoubleTensor", "float64"),
                        ("HalfTensor", "float16"), ("BFloat16Tensor", "bfloat16"),
                        ("LongTensor", "int64"), ("IntTensor", "int32"), ("ShortTensor", "int16"),
                        ("CharTensor", "int8"), ("ByteTensor", "uint8"), ("BoolTensor", "bool")):
    type_(f"torch.{_legacy}", _legacy_type(_legacy, _dtype))


class layout(_TorchConstant):
    """torch.layout.  Every layout torch names exists (code compares against them, and OpInfo
    passes them to be refused), but only torch.strided makes tensors here: Paddle's sparse
    tensors are another type, so a sparse layout is refused by every creation function
    (:func:`require_strided`), never silently made dense."""

    __slots__ = ()


type_("torch.layout", layout)
strided = layout("strided")
value("torch.strided", strided)
for _name in ("sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc", "_mkldnn",
              "jagged"):
    value(f"torch.{_name}", layout(_name))


def _check_pin_memory(pin_memory, fn: str, device=None, out=None) -> bool:
    """``pin_memory=`` as torch takes it: True where the result is to be pinned (pinned.pin),
    False to leave it alone, torch's errors otherwise (pinned.check: a CPU-only build, a device
    other than the CPU).  ``out=`` with pin_memory=True: torch's out= forms take no
    pin_memory (its TypeError is not reproduced: refused here by name)."""
    if not check(pin_memory, fn, device):
        return False
    if out is not None:
        raise NotProvidedError(f"torch.{fn}(out=..., pin_memory=True)")
    return True


def require_strided(layout_, fn: str) -> None:
    """Creation functions' ``layout=`` check (None and torch.strided make dense tensors)."""
    if layout_ is not None and layout_ is not strided:
        if isinstance(layout_, layout):
            raise NotProvidedError(f"torch.{fn}(layout={layout_!r}) (sparse and other non-strided "
                                   f"layouts; Paddle's sparse tensors are paddle.sparse)")
        raise TypeError(f"{fn}(): argument 'layout' must be torch.layout, not "
                        f"{type(layout_).__name__}")
