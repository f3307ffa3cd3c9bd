"""``torch.save`` in torch's own file format (serialization.py has the format's description and
``torch.load``): a pickler that writes torch's global names for Paddle tensors, dtypes, devices
and sizes, two passes (the first finds how far the saved views reach into each storage), and
the zip records with torch's 64-byte storage alignment.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: save
    torch.serialization: save
""")

import collections
import io
import os
import pickle
import struct
import sys
import zipfile

import numpy as np
import paddle

from ..errors import NotProvidedError
from ..paddle_shims import byte_offset
from . import _sizes
from . import dtypes as _dt
from .registry import torch_function
# the format's tables (storage class names, item sizes, float8 decoding) are the loader's
from .serialization import _F8_DECODE, _ITEMSIZE, _STORAGE_OF


# -- saving ------------------------------------------------------------------------------------
class _Global:
    """A global name written into the pickle as is (``GLOBAL module\\nname``)."""

    __slots__ = ("module", "name")

    def __init__(self, module, name):
        self.module, self.name = module, name

    def __call__(self, *args):  # pickle checks that a reduce callable is callable
        raise TypeError(f"{self.module}.{self.name} is a name written into a checkpoint")


_G_V2 = _Global("torch._utils", "_rebuild_tensor_v2")
_G_V3 = _Global("torch._utils", "_rebuild_tensor_v3")
_G_PARAM = _Global("torch._utils", "_rebuild_parameter")
_G_DEVICE = _Global("torch", "device")
_G_SIZE = _Global("torch", "Size")
_G_ORDERED = collections.OrderedDict


class _SavedStorage:
    __slots__ = ("key", "dtype", "flat", "location", "used")

    def __init__(self, key, dtype, flat, location):
        self.key, self.dtype, self.flat, self.location = key, dtype, flat, location
        self.used = 0  # elements up to the furthest one a saved view reaches


def _location_of(place) -> str:
    s = str(place).lower()
    if "cpu" in s:
        return "cpu"
    if "gpu" in s or "cuda" in s:
        idx = place.gpu_device_id() if hasattr(place, "gpu_device_id") else \
            place.get_device_id()
        return f"cuda:{idx}"
    return s


class _Pickler(pickle._Pickler):
    """Protocol 2 pickler that writes torch's globals for Paddle tensors and facade types."""

    def __init__(self, file, final_used=None):
        super().__init__(file, protocol=2)
        self.storages: dict[str, _SavedStorage] = {}
        self._by_alloc: dict = {}
        # storage key -> its final element count, from a first pass (a storage's persistent
        # id is written at its first view, before later views may reach further into it)
        self._final_used = final_used or {}

    def persistent_id(self, obj):
        if isinstance(obj, _SavedStorage):
            legacy = _STORAGE_OF.get(obj.dtype)
            stype = _Global("torch", legacy) if legacy else _Global("torch.storage", "UntypedStorage")
            used = max(obj.used, self._final_used.get(obj.key, 0))
            numel = used if legacy else used * _ITEMSIZE[obj.dtype]
            return ("storage", stype, obj.key, obj.location, int(numel))
        return None

    def save(self, obj, save_persistent_id=True):
        if isinstance(obj, _Global):
            x = self.memo.get(id(obj))
            if x is not None:
                self.write(self.get(x[0]))
                return
            self.write(pickle.GLOBAL + obj.module.encode() + b"\n" + obj.name.encode() + b"\n")
            self.memoize(obj)
            return
        if isinstance(obj, paddle.Tensor) and id(obj) not in self.memo:
            self._save_tensor(obj)
            return
        if type(obj) is _dt.DTYPE_TYPE and id(obj) not in self.memo:
            self.save(_Global("torch", _dt.torch_name(obj)))
            return
        from .device import device as _device
        from .core import Size
        if isinstance(obj, _device):
            self.save_reduce(_G_DEVICE, (str(obj),), obj=obj)
            return
        if isinstance(obj, Size):
            self.save_reduce(_G_SIZE, (tuple(int(d) for d in obj),), obj=obj)
            return
        super().save(obj, save_persistent_id)

    def _storage_for(self, t, dtype):
        """The storage a tensor is saved in: one per Paddle allocation (views share it)."""
        from .storage import UntypedStorage
        location = _location_of(t.place)
        shape, stride = list(t.shape), [int(s) for s in t.get_strides()]
        numel = int(np.prod(shape)) if shape else 1
        try:
            # a view with a negative stride (Paddle's x[::-1], which torch cannot represent:
            # its storage-extent formula gave 1 element of 6) is saved as its values, in a
            # storage of its own
            alloc = UntypedStorage.of_tensor(t) if numel and not any(
                s < 0 and d > 1 for d, s in zip(shape, stride)) else None
        except Exception:
            alloc = None
        if alloc is None or alloc._flat is None:
            # clone, not Paddle's contiguous(): that one rewrites t ITSELF into contiguous
            # memory, so saving a view would cut it off from its base
            # (a 0-element tensor: nothing to copy, and Paddle 2.6 cannot clone an empty one)
            flat = (t.reshape([1]) if not t.ndim else t.reshape([0]) if not numel
                    else t.detach().clone().reshape([-1]))
            st = _SavedStorage(str(len(self.storages)), dtype, flat, location)
            st.used = int(flat.shape[0]) if int(np.prod(t.shape)) else 0
            self.storages[st.key] = st
            return st, 0, list(t.shape), _sizes.contiguous_strides(t.shape), True
        key = (alloc._ptr, dtype, location)
        base = alloc._flat  # 1-D over the allocation, in t's dtype
        size = _ITEMSIZE[dtype]
        offset = byte_offset(t) // size
        stride = [0 if d == 1 else s for d, s in zip(shape, stride)]  # unused if length 1
        st = self._by_alloc.get(key)
        if st is None:
            st = _SavedStorage(str(len(self.storages)), dtype, base, location)
            self.storages[st.key] = st
            self._by_alloc[key] = st
        elif base.shape[0] > st.flat.shape[0]:
            st.flat = base
        # elements up to one past the furthest the view reaches (strides are >= 0 here)
        reach = _sizes.nbytes_strided(shape, stride, 1, offset)
        st.used = max(st.used, reach)
        if reach > base.shape[0]:  # (base: this view's knowledge of its allocation)
            raise RuntimeError(f"torch.save: a view (offset {offset}, size {shape}, stride "
                               f"{stride}) reaches past its allocation of {base.shape[0]} "
                               "elements")
        return st, offset, shape, stride, False

    def _save_tensor(self, t):
        from ..paddle_shims import EagerParamBase
        dtype = _dt.torch_name(t.dtype)
        if dtype not in _ITEMSIZE or dtype == "uint16":
            raise NotProvidedError(f"torch.save of a {dtype} tensor")
        is_param = isinstance(t, EagerParamBase)
        st, offset, shape, stride, _ = self._storage_for(t, dtype)
        args = (st, int(offset), tuple(shape), tuple(stride),
                False if is_param else not t.stop_gradient, collections.OrderedDict())
        if dtype in _STORAGE_OF:
            inner = (_G_V2, args)
        else:
            inner = (_G_V3, args + (_Global("torch", dtype),))
        if is_param:
            self.save(_G_PARAM)
            self.write(pickle.MARK)
            self.save_reduce(*inner)  # the tensor (not memoized under the parameter's id)
            self.save(not t.stop_gradient)
            self.save(collections.OrderedDict())
            self.write(pickle.TUPLE)
            self.write(pickle.REDUCE)
            self.memoize(t)
        else:
            self.save_reduce(*inner, obj=t)


def _storage_bytes(st: _SavedStorage, used_elems: int) -> bytes:
    flat = st.flat[:used_elems] if used_elems < st.flat.shape[0] else st.flat
    if flat.place is not None and not isinstance(flat.place, paddle.CPUPlace) and \
            "cpu" not in str(flat.place).lower():
        flat = flat.cpu()
    if st.dtype == "bfloat16":
        return flat.numpy().view(np.uint16).tobytes()  # Paddle hands bf16 out as its bits
    if st.dtype in ("float8_e4m3fn", "float8_e5m2"):
        vals = flat.astype("float32").numpy()
        table = _F8_DECODE[st.dtype]
        # the value -> bits inverse of the decode table (exact: the values are float8 values)
        order = np.argsort(table, kind="stable")
        finite = ~np.isnan(table[order])
        order = order[finite]
        idx = np.searchsorted(table[order], vals)
        idx = np.clip(idx, 0, len(order) - 1)
        bits = order[idx].astype(np.uint8)
        bits[vals == 0] = np.where(np.signbit(vals[vals == 0]), 0x80, 0)
        bits[np.isnan(vals)] = 0x7F
        return bits.tobytes()
    return np.ascontiguousarray(flat.numpy()).tobytes()


_ALIGN = 64


def _write_record(zf: zipfile.ZipFile, name: str, data: bytes, align: bool):
    info = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
    info.compress_type = zipfile.ZIP_STORED
    info.external_attr = 0o600 << 16
    if align:
        # pad the local header's extra field (id "FB", as torch's writer does) so the data
        # starts on a 64-byte boundary (torch.load(mmap=True) maps it in place)
        start = zf.fp.tell() + 30 + len(name.encode())
        pad = (-(start + 4)) % _ALIGN
        info.extra = b"FB" + struct.pack("<H", pad) + b"Z" * pad
    zf.writestr(info, data)


@torch_function("torch.save",
                note="torch's zip format: the file loads in real torch (weights_only too)")
def save(obj, f, pickle_module=None, pickle_protocol=2, _use_new_zipfile_serialization=True,
         _disable_byteorder_record=False):
    if pickle_module is not None and pickle_module is not pickle:
        raise NotProvidedError("torch.save(pickle_module=) other than pickle")
    if pickle_protocol != 2:
        raise NotProvidedError("torch.save(pickle_protocol=) other than 2")
    if not _use_new_zipfile_serialization:
        raise NotProvidedError("torch.save(_use_new_zipfile_serialization=False) (legacy format)")
    # two passes: the first finds how far the saved views reach into each storage
    first = _Pickler(io.BytesIO())
    first.dump(obj)
    buf = io.BytesIO()
    pickler = _Pickler(buf, {k: st.used for k, st in first.storages.items()})
    pickler.dump(obj)
    owned = isinstance(f, (str, bytes, os.PathLike))
    if not owned and not hasattr(f, "write"):
        raise AttributeError(f"'{type(f).__name__}' object has no attribute 'write'")
    fh = open(f, "wb") if owned else f
    try:
        prefix = "archive/"
        with zipfile.ZipFile(fh, "w", zipfile.ZIP_STORED) as zf:
            _write_record(zf, prefix + "data.pkl", buf.getvalue(), False)
            _write_record(zf, prefix + ".format_version", b"1", False)
            _write_record(zf, prefix + ".storage_alignment", str(_ALIGN).encode(), False)
            if not _disable_byteorder_record:
                _write_record(zf, prefix + "byteorder", sys.byteorder.encode(), False)
            for key, st in pickler.storages.items():
                _write_record(zf, f"{prefix}data/{key}", _storage_bytes(st, st.used),
                              True)
            _write_record(zf, prefix + "version", b"3\n", False)
            _write_record(zf, prefix + ".data/serialization_id",
                          str(int.from_bytes(os.urandom(16), "little")).zfill(40).encode(), False)
    finally:
        if owned:
            fh.close()


torch_function("torch.serialization.save")(save)
