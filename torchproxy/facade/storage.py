"""Tensor storage: ``untyped_storage()``, ``storage_offset()``, ``set_``, ``new_empty``.

Triton's interpreter (``TRITON_INTERPRET=1``, every Triton version from 3.0 to 3.9) moves each
tensor argument to the host like this (``GridExecutor._init_args_hst``)::

    storage = arg.untyped_storage().cpu()            # a host copy of the WHOLE allocation
    host = arg.new_empty(0, device="cpu")
    host.set_(storage, arg.storage_offset(), arg.size(), arg.stride())   # a view into it
    ... kernel reads and writes host.data_ptr() ...
    arg.untyped_storage().copy_(host.untyped_storage())                 # write back

So a storage here is a real alias of a Paddle allocation: its base address, its size in bytes
and a 1-D Paddle tensor ``_flat`` covering it (the owner's dtype), which keeps the memory alive.
``set_`` builds the requested strided view of ``_flat`` with ``paddle.as_strided`` and moves it
into the tensor with ``_share_underline_tensor_to`` (the same DenseTensor: no copy).

Paddle facts this relies on (tested in tests/triton/test_storage.py on 2.6.2, 3.0.0, 3.1.1, 3.2.2
and 3.3.1):
- ``x._offset()`` is the view's offset in BYTES from the start of its allocation;
- ``paddle.as_strided(t, shape, stride, offset)`` takes ``offset`` in BYTES, measured from the
  start of ``t``'s allocation (not from ``t``'s own offset);
- on 2.6.2 ``as_strided`` refuses a non-contiguous input; a one-element index ``x[0, ..., 0]``
  is a contiguous view of the same allocation, so a strided view starts from that;
- ``x._holder_size()`` (Paddle >= 3.1) is the allocation's size.  Paddle 2.6 and 3.0 do not
  expose it, so there a storage covers the allocation from its start to the end of this
  tensor's view (``nbytes()`` can be smaller than torch's); ``set_`` beyond it raises
  instead of reading past what we know is allocated.
"""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: UntypedStorage
    torch.Tensor: new_empty set_ storage_offset untyped_storage
""")

from sys import _getframe

import numpy as np
import paddle

from ..paddle_shims import byte_offset, place_guard, share_buffer
from . import _sizes
from .creation import require_strided
from ..errors import NotProvidedError
from .creation import checked_alloc, parse_size
from .device import device_of_place, to_place
from .dtypes import to_paddle
from .registry import tensor_method, type_


_ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
             "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "complex64": 8,
             "complex128": 16, "float8_e4m3fn": 1, "float8_e5m2": 1, "uint16": 2,
             "uint32": 4, "uint64": 8}


def _itemsize(dtype) -> int:
    return _ITEMSIZE[str(dtype).split(".")[-1]]  # "paddle.float16" on every Paddle version


# Paddle 3.x's uint32/uint64 tensors have a cast kernel and little else on the CPU (no empty,
# full, reshape, view_dtype or as_strided kernels): their storages cannot be re-viewed, only
# handed back whole (UntypedStorage._whole); remove when Paddle registers those kernels.
_BARE_DTYPES = ("uint32", "uint64")


def _bare(dtype) -> bool:
    return str(dtype).split(".")[-1] in _BARE_DTYPES


def _empty(shape, dtype, place):
    """paddle.empty on ``place`` (allocation only: no kernel runs, so it works everywhere)."""
    with place_guard(place):
        if _bare(dtype):  # no empty kernel: zeros made in int64 and cast (exact)
            return paddle.zeros(shape, dtype="int64").cast(dtype)
        return paddle.empty(shape, dtype=dtype)


def _extent_bytes(shape, strides, itemsize) -> int:
    """Bytes from a view's first element to one past its last (0 for an empty view)."""
    if any(s == 0 for s in shape):
        return 0
    return (1 + sum((n - 1) * st for n, st in zip(shape, strides))) * itemsize


class UntypedStorage:
    """torch.UntypedStorage over a Paddle allocation (bytes; ``element_size()`` is 1)."""

    __slots__ = ("_ptr", "_nbytes", "_flat", "_place", "_whole")

    def __init__(self, ptr: int, nbytes: int, flat, place, whole=None):
        self._ptr = ptr        # address of the allocation's first byte
        self._nbytes = nbytes
        self._flat = flat      # 1-D Paddle tensor over [ptr, ptr + nbytes), or None when empty
        self._place = place    # ... or when the dtype has no as_strided kernel (_bare): then
        self._whole = whole    # the tensor it came from, the only view set_() can give back

    @classmethod
    def of_tensor(cls, x) -> "UntypedStorage":
        itemsize = _itemsize(x.dtype)
        offset = byte_offset(x)
        ptr = x.data_ptr() - offset
        holder_size = getattr(x, "_holder_size", None)
        if holder_size is not None:
            nbytes = holder_size()
        else:  # Paddle 2.6 and 3.0: the allocation is at least this long
            nbytes = offset + _extent_bytes(list(x.shape), x.get_strides(), itemsize)
        numel = nbytes // itemsize
        nbytes = numel * itemsize  # what _flat covers (holders are itemsize multiples anyway)
        if numel == 0 or _numel(x) == 0:
            return cls(ptr, nbytes, None, x.place)
        # as_strided wants a contiguous input on Paddle 2.6; a one-element index of a strided
        # view is one (and a view, not a copy: checked below)
        if _bare(x.dtype):
            return cls(ptr, nbytes, None, x.place, whole=x)
        first = x if x.is_contiguous() or not len(x.shape) else x[(0,) * len(x.shape)]
        if first.data_ptr() != x.data_ptr():  # a copy, not a view: nothing below would alias
            raise RuntimeError("torchproxy: untyped_storage(): Paddle returned a copy for an "
                               "element view; cannot alias this tensor's allocation")
        flat = paddle.as_strided(first, [numel], [1], 0)
        if flat.data_ptr() != ptr:
            raise RuntimeError(f"torchproxy: untyped_storage(): expected the allocation at "
                               f"{ptr:#x}, Paddle's as_strided gave {flat.data_ptr():#x}")
        return cls(ptr, nbytes, flat, x.place)

    # -- torch.UntypedStorage API ------------------------------------------------------------
    def data_ptr(self) -> int:
        return self._ptr

    def nbytes(self) -> int:
        return self._nbytes

    def size(self) -> int:
        return self._nbytes

    __len__ = size

    def element_size(self) -> int:
        return 1

    @property
    def device(self):
        return device_of_place(self._place)

    @property
    def is_cuda(self) -> bool:
        return self._place.is_gpu_place() if hasattr(self._place, "is_gpu_place") else \
            isinstance(self._place, paddle.CUDAPlace)

    def _is_cpu(self) -> bool:
        return isinstance(self._place, paddle.CPUPlace) or (
            hasattr(self._place, "is_cpu_place") and self._place.is_cpu_place())

    def cpu(self) -> "UntypedStorage":
        """torch: self when already on the CPU, else a host copy of every byte."""
        if self._is_cpu():
            return self
        if self._nbytes == 0:
            return UntypedStorage(0, 0, None, paddle.CPUPlace())
        if self._flat is None:
            _refuse_bare(self._whole.dtype, "UntypedStorage.cpu()")
        host = self._flat.cpu()  # a device-to-host memcpy: no Paddle GPU kernel involved
        return UntypedStorage(host.data_ptr(), host.shape[0] * _itemsize(host.dtype), host,
                              paddle.CPUPlace())

    def copy_(self, src: "UntypedStorage", non_blocking: bool = False) -> "UntypedStorage":
        if not isinstance(src, UntypedStorage):
            raise TypeError(f"copy_(): expected an UntypedStorage, got {type(src).__name__}")
        if src._nbytes != self._nbytes:
            raise RuntimeError(f"size mismatch, got input ({src._nbytes}), "
                               f"output ({self._nbytes})")
        if self._nbytes == 0 or (src._ptr == self._ptr and src._is_cpu() == self._is_cpu()):
            return self  # empty, or the very same bytes (the interpreter on CPU tensors)
        if self._flat is None or src._flat is None:
            _refuse_bare((self._whole if self._flat is None else src._whole).dtype, "UntypedStorage.copy_()")
        if src._flat.dtype != self._flat.dtype:
            raise NotImplementedError("torchproxy: copy_ between storages of tensors of "
                                      "different dtypes is not supported")
        # Tensor.copy_(src, blocking): a memcpy across places, in place into our allocation
        self._flat.copy_(src._flat, not non_blocking)
        return self

    def __repr__(self):
        return (f"torchproxy UntypedStorage(data_ptr={self._ptr:#x}, nbytes={self._nbytes}, "
                f"place={self._place})")

    # -- reading checkpoints (safetensors' torch loader: from_file, untyped(), [a:b]) ----------
    @classmethod
    def from_file(cls, filename, shared=False, nbytes=0) -> "UntypedStorage":
        """The file's first ``nbytes`` bytes in host memory.  ``shared=True`` (writes reach
        the file through a shared mapping) is not provided: the bytes are read into memory,
        as torch's ``shared=False`` storage behaves."""
        if shared:
            raise NotProvidedError("torch.UntypedStorage.from_file(shared=True) (a storage "
                                   "mapped onto the file)")
        import os
        size = os.path.getsize(filename)
        if size < nbytes:
            raise RuntimeError(f"file <{filename}> size <{size}> is smaller than the required "
                               f"mapping size <{nbytes}>")
        with open(filename, "rb") as f:
            data = np.frombuffer(f.read(nbytes), dtype=np.uint8).copy()
        if nbytes == 0:
            return cls(0, 0, None, paddle.CPUPlace())
        flat = paddle.to_tensor(data, place=paddle.CPUPlace())
        return cls(flat.data_ptr(), nbytes, flat, paddle.CPUPlace())

    def untyped(self) -> "UntypedStorage":
        return self

    def _bytes(self):
        """Every byte of the storage, as a 1-D uint8 numpy array (host storages only)."""
        if self._nbytes == 0:
            return np.zeros([0], np.uint8)
        if self._flat is None:
            _refuse_bare(self._whole.dtype, "reading an UntypedStorage's bytes")
        host = self._flat if self._is_cpu() else self._flat.cpu()
        raw = host.numpy()
        return raw.reshape(-1).view(np.uint8) if raw.dtype != np.uint8 else raw.reshape(-1)

    def __getitem__(self, idx):
        """An int gives that byte's value; a slice (step 1) gives a storage over those bytes
        (its own copy of them: torch's shares them; reading is the same)."""
        if isinstance(idx, slice):
            start, stop, step = idx.indices(self._nbytes)
            if step != 1:
                raise RuntimeError("slices with steps other than 1 are not supported")
            data = self._bytes()[start:max(start, stop)].copy()
            if data.size == 0:
                return UntypedStorage(0, 0, None, self._place)
            flat = paddle.to_tensor(data, place=paddle.CPUPlace())
            return UntypedStorage(flat.data_ptr(), data.size, flat, paddle.CPUPlace())
        if not isinstance(idx, int) or isinstance(idx, bool):
            raise TypeError(f"can't index a torch.UntypedStorage with {type(idx).__name__}")
        if not -self._nbytes <= idx < self._nbytes:
            raise IndexError(f"index {idx} out of range for storage of size {self._nbytes}")
        return int(self._bytes()[idx])


type_("torch.UntypedStorage", UntypedStorage)


def _refuse_bare(dtype, what):
    raise NotImplementedError(f"torchproxy: {what} of a {dtype} tensor: Paddle "
                              f"{paddle.__version__} has no as_strided/view kernels for that dtype")


def _numel(x) -> int:
    n = 1
    for d in x.shape:
        n *= d
    return n


@tensor_method("untyped_storage")
def untyped_storage(self) -> UntypedStorage:
    if _getframe(1).f_globals.get("__name__") == "triton.runtime.interpreter":
        # Triton's interpreter goes on to call set_(), which only torch's meaning (in scope)
        # takes: out of scope, one line naming the fix instead of a Paddle error from set_
        from ..integrations.triton_messages import check_interpreter
        check_interpreter()
    return UntypedStorage.of_tensor(self)


@tensor_method("storage_offset")
def storage_offset(self) -> int:
    """Offset of the first element from the allocation's start, in elements."""
    return byte_offset(self) // _itemsize(self.dtype)


@tensor_method("set_")
def set_(self, source=None, storage_offset=0, size=None, stride=None):
    """torch ``set_()``, ``set_(tensor)``, ``set_(storage, offset, size, stride=None)``.

    The tensor becomes a view of ``source``'s memory, keeping its own dtype."""
    if source is None:
        share_buffer(_empty([0], self.dtype, self.place), self)
        return self
    if isinstance(source, paddle.Tensor):
        if source.dtype != self.dtype:
            raise RuntimeError(f"Could not set tensor of type {self.dtype} to a tensor of "
                               f"type {source.dtype}")
        share_buffer(source, self)
        return self
    if not isinstance(source, UntypedStorage):
        raise TypeError(f"set_(): source must be a Tensor or an UntypedStorage, got "
                        f"{type(source).__name__}")
    size = [int(n) for n in (size if size is not None else [source.nbytes()
                                                            // _itemsize(self.dtype)])]
    stride = [int(s) for s in stride] if stride is not None else _sizes.contiguous_strides(size)
    _sizes.check_int64(size, "set_", "size")
    _sizes.check_int64(stride, "set_", "stride")
    _sizes.check_int64([storage_offset], "set_", "storage_offset")
    if len(stride) != len(size):
        raise RuntimeError(f"mismatch in length of strides and shape: {len(stride)} vs "
                           f"{len(size)}")
    itemsize = _itemsize(self.dtype)
    if int(storage_offset) < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {int(storage_offset)}")
    start = int(storage_offset) * itemsize
    # torch's overflow-checked arithmetic: a negative stride (which would reach before the
    # allocation) or a size/offset past int64 raises before anything is viewed
    end = _sizes.nbytes_strided(size, stride, itemsize, int(storage_offset))
    if any(n == 0 for n in size):  # no bytes to alias: an empty tensor of that shape
        share_buffer(_empty(size, self.dtype, source._place), self)
        return self
    if end > source.nbytes():
        # torch would grow a resizable storage; a Paddle allocation cannot grow
        raise RuntimeError(f"torchproxy: set_(): the view needs bytes [{start}, {end}) of a "
                           f"storage of {source.nbytes()} bytes")
    flat = source._flat
    if flat is None:  # a _bare dtype: only the tensor the storage came from, as it was
        t = source._whole
        if (t.dtype == self.dtype and list(t.shape) == size and list(t.get_strides()) == stride
                and byte_offset(t) == start):
            share_buffer(t, self)
            return self
        _refuse_bare(t.dtype, "Tensor.set_() to another view")
    if flat.dtype != self.dtype:
        # Paddle 2.6's dtype view crashes the process (SIGFPE) for some pairs: refuse clearly
        raise NotImplementedError(f"torchproxy: set_(): viewing a {flat.dtype} storage as "
                                  f"{self.dtype} is not supported")
    share_buffer(paddle.as_strided(flat, size, stride, start), self)
    return self


@tensor_method("new_empty")
def new_empty(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    """torch: uninitialised, with self's dtype and device unless given (the interpreter calls
    ``arg.new_empty(0, device="cpu")``).  Allocation only: no kernel runs."""
    require_strided(layout, 'Tensor.new_empty')
    shape = parse_size(size, fn="new_empty")
    place = self.place if device is None else to_place(device)
    dt = self.dtype if dtype is None else to_paddle(dtype)
    with checked_alloc(shape, dt, place):  # torch's overflow check before Paddle's allocation
        out = _empty(list(shape), dt, place)
    out.stop_gradient = not requires_grad
    return out
