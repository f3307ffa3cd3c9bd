"""Bounds on every size, stride and storage offset the facade hands to Paddle.

Paddle computes an allocation's byte count in int64 without overflow checks: ``paddle.empty
([2**62])`` (float32) multiplies to 0 mod 2**64 and returns a tensor over a tiny allocation;
reading it segfaults.  torch checks the same arithmetic first (aten/src/ATen/EmptyTensor.cpp
``computeStorageNbytes`` and ``computeStorageNbytesContiguous``: every product and sum in uint64,
a negative stride wraps to a huge unsigned value, and the total must fit in int64) and raises
``RuntimeError("Storage size calculation overflowed with sizes=[...]")``.  Everything that allocates or re-views memory
(creation, ``new_*``, ``resize_``, ``set_``, ``as_strided``, ``torch.load``) calls these functions
before Paddle sees the numbers.  They take plain Python ints and do exact arithmetic, so the
overflow test is exact, not a float heuristic.
"""
from __future__ import annotations

from .dtypes import torch_name as _torch_name

_U64 = 1 << 64
INT64_MIN, INT64_MAX = _INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
# c10 storage_max(): min(int64 max, size_t max) on 64-bit hosts
_STORAGE_MAX = _INT64_MAX

_ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
             "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "complex64": 8,
             "complex128": 16, "float8_e4m3fn": 1, "float8_e5m2": 1, "uint16": 2,
             "uint32": 4, "uint64": 8}

# integer dtypes c10's checked_convert range-checks (uint64 is unpacked as unsigned instead)
INT_RANGES = {"int8": (-(1 << 7), (1 << 7) - 1), "int16": (-(1 << 15), (1 << 15) - 1),
              "int32": (-(1 << 31), (1 << 31) - 1), "int64": (_INT64_MIN, _INT64_MAX),
              "uint8": (0, (1 << 8) - 1), "uint16": (0, (1 << 16) - 1),
              "uint32": (0, (1 << 32) - 1)}


def itemsize(dtype) -> int:
    """Bytes per element of a Paddle (or facade) dtype."""
    return _ITEMSIZE[_torch_name(dtype)]


def int_overflows(v: int, name: str) -> bool:
    """c10 ``overflows<To>(int64)``: an unsigned target lets negatives down to -max wrap
    (``torch.tensor([-1], dtype=torch.uint8)`` is 255, -256 is refused)."""
    lo, hi = INT_RANGES[name]
    if v > hi:
        return True
    if lo == 0:
        return v < 0 and -v > hi
    return v < lo


def float_overflows(v: float, name: str) -> bool:
    """c10 ``overflows<To>(double)`` for an integer target: NaN, or outside
    [lowest, max] compared in double (so 2.0**63 passes for int64: max rounds up to it)."""
    lo, hi = INT_RANGES[name]
    return v != v or v < float(lo) or v > float(hi)


def _fmt(xs) -> str:
    return "[" + ", ".join(str(int(x)) for x in xs) + "]"


def check_int64(values, fn: str, arg: str = "size") -> None:
    """torch's argument parser reads sizes/strides as int64: a Python int outside it is a
    TypeError before anything runs (torch appends a C++ stack trace to this message)."""
    for i, v in enumerate(values):
        if not _INT64_MIN <= int(v) <= _INT64_MAX:
            raise TypeError(f"{fn}(): argument '{arg}' failed to unpack the object at pos "
                            f"{i + 1} with error \"Overflow when unpacking long long\"")


def _u64(value, overflowed):
    """One step of torch's checked uint64 arithmetic: ``value`` wrapped to 64 bits, and the
    overflow flag, set once any step wrapped."""
    if value >= _U64:
        return value % _U64, True
    return value, overflowed


def contiguous_strides(sizes) -> list:
    """torch's contiguous strides for ``sizes`` (``c10::contiguous_strides``: a size-0 or size-1
    dimension counts as 1, so an empty tensor still gets the strides torch reports)."""
    strides, acc = [], 1
    for n in reversed(sizes):
        strides.append(acc)
        acc *= max(int(n), 1)
    return strides[::-1]


def nbytes_contiguous(sizes, itemsize: int, offset: int = 0) -> int:
    """torch's ``computeStorageNbytesContiguous``: bytes a contiguous tensor of ``sizes`` needs.

    The product is computed as torch's ``safe_multiplies_u64``: an overflow anywhere counts even
    when a later size is 0 (``(2**62, 2**62, 0)`` raises, ``(2**31, 2**31, 0)`` does not)."""
    prod, overflowed = 1, False
    for n in sizes:
        prod, overflowed = _u64(prod * int(n), overflowed)
    size, overflowed = _u64(prod + int(offset), overflowed)
    size, overflowed = _u64(size * int(itemsize), overflowed)
    if overflowed or size > _STORAGE_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={_fmt(sizes)}")
    return size


def nbytes_strided(sizes, strides, itemsize: int, offset: int = 0) -> int:
    """torch's ``computeStorageNbytes``: bytes from the storage's start to one past the last
    element of the view ``(sizes, strides, offset)``; 0 when a size is 0 (checked dimension by
    dimension, as torch does).  A negative stride on a dimension longer than 1 overflows (torch's
    unsigned arithmetic), so no view this accepts reaches before its storage's start."""
    size, overflowed = int(offset) + 1, False
    for n, s in zip(sizes, strides):
        n, s = int(n), int(s)
        if n == 0:
            return 0
        # uint64(stride) * uint64(size - 1)
        strided, overflowed = _u64((s % _U64) * (n - 1), overflowed)
        size, overflowed = _u64(size + strided, overflowed)
    size, overflowed = _u64(size * int(itemsize), overflowed)
    if overflowed or size > _STORAGE_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes={_fmt(sizes)} and "
                           f"strides={_fmt(strides)}")
    return size


def check_view(sizes, strides, offset: int, itemsize: int, storage_nbytes: int,
               past_end: str | None = None) -> int:
    """A strided view of a storage of ``storage_nbytes`` bytes: torch's checks (offset >= 0,
    ``nbytes_strided``, ``checkInBoundsForStorage``) with torch's messages; returns the bytes
    the view reaches (0 for an empty view, which fits any storage).  ``past_end``: the message
    when the view reaches past the storage, where torch's caller says something else than
    as_strided's (set_ on a storage that cannot grow)."""
    sizes, strides, offset = [int(n) for n in sizes], [int(s) for s in strides], int(offset)
    if len(sizes) != len(strides):
        raise RuntimeError(f"mismatch in length of strides and shape")
    if any(n < 0 for n in sizes):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: "
                           f"{_fmt(sizes)}")
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    need = nbytes_strided(sizes, strides, itemsize, offset)
    if need and need > int(storage_nbytes):
        if past_end:
            raise RuntimeError(past_end)
        raise RuntimeError(f"setStorage: sizes {_fmt(sizes)}, strides {_fmt(strides)}, storage "
                           f"offset {offset}, and itemsize {itemsize} requiring a storage size "
                           f"of {need} are out of bounds for storage of size {storage_nbytes}")
    return need


def _is_cpu(place) -> bool:
    return place is None or "cpu" in str(place).lower()


# below this many elements no itemsize (<= 16 bytes) can take a contiguous size past int64:
# the hot creation path skips the exact arithmetic (and the slow hash of a Paddle dtype)
_SAFE_ELEMS = 1 << 59


def check_overflow(shape, dtype) -> None:
    """torch's "Storage size calculation overflowed" check for a new contiguous tensor of
    ``shape`` (plain ints) and Paddle ``dtype``; the exact arithmetic runs only for sizes near
    the limit."""
    prod = 1
    for n in shape:
        prod *= n
        if prod >= _SAFE_ELEMS:  # an intermediate product counts, as in torch (sticky)
            nbytes_contiguous(shape, itemsize(dtype))
            break


def check_new(shape, dtype, place=None) -> "allocating":
    """:func:`check_overflow`, then the context manager that wraps the allocation (torch's
    out-of-memory error, with the byte count worked out only then)."""
    check_overflow(shape, dtype)
    return allocating(None, place, shape, dtype)


def raise_out_of_memory(place, shape, dtype, nbytes=None):
    """Raise torch's out-of-memory RuntimeError for a failed allocation (from the
    ``MemoryError`` being handled: Paddle's allocator failing)."""
    allocating(nbytes, place, shape, dtype).__exit__(MemoryError, None, None)
    raise AssertionError("unreachable: allocating.__exit__ raises for MemoryError")


class allocating:
    """``with allocating(nbytes, place):`` -- Paddle's allocator failing (``MemoryError``,
    Paddle's ResourceExhausted) becomes torch's out-of-memory error: a ``RuntimeError`` with the
    CPU allocator's message, or ``torch.OutOfMemoryError``'s text on a GPU (a RuntimeError
    subclass in torch).  A class, not a generator context manager: it wraps every creation."""

    __slots__ = ("nbytes", "place", "shape", "dtype")

    def __init__(self, nbytes, place=None, shape=None, dtype=None):
        self.nbytes, self.place, self.shape, self.dtype = nbytes, place, shape, dtype

    def __enter__(self):
        return self

    def __exit__(self, kind, exc, tb):
        if kind is None or not issubclass(kind, MemoryError):
            return False
        if self.nbytes is None:
            self.nbytes = nbytes_contiguous(self.shape, itemsize(self.dtype))
        if _is_cpu(self.place):
            msg = (f"[enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: can't "
                   f"allocate memory: you tried to allocate {self.nbytes} bytes. Error code 12 "
                   f"(Cannot allocate memory)")
        else:
            msg = f"CUDA out of memory. Tried to allocate {self.nbytes} bytes."
        raise RuntimeError(msg) from None
