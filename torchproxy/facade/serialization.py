"""``torch.save`` / ``torch.load`` in torch's own file format, with no torch installed.

The format (torch/serialization.py ``_save`` / ``_load``, torch >= 1.6): a zip archive (stored,
not compressed) whose records sit under one folder (``archive/``):

- ``data.pkl``: the object, pickled with protocol 2.  A tensor is
  ``torch._utils._rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad,
  backward_hooks)``; its storage is a *persistent id* ``("storage", torch.FloatStorage, key,
  location, numel)`` (the legacy typed-storage class names the element type; dtypes without
  one -- float8, uint16/32/64 -- are ``torch.storage.UntypedStorage`` with
  ``_rebuild_tensor_v3(..., dtype)``).  A parameter wraps a tensor in
  ``torch._utils._rebuild_parameter(tensor, requires_grad, hooks)``; dtypes and ``torch.device``
  / ``torch.Size`` are globals of module ``torch``.
- ``data/<key>``: the raw bytes of each storage (little endian, as ``byteorder`` says).
- ``byteorder``, ``version`` (3), ``.format_version``, ``.storage_alignment``,
  ``.data/serialization_id``.

Loading maps those globals to Paddle (a custom ``pickle.Unpickler`` whose ``find_class`` and
``persistent_load`` build Paddle tensors); views of one storage become ``paddle.as_strided``
views of one Paddle allocation, so tensors that shared memory in torch share it here.  Saving
(serialization_save.py) writes the same records with a pickler that emits torch's global names
for Paddle tensors, dtypes, devices and sizes.  ``weights_only=True`` (torch's default since 2.6) uses torch's
allow-list: only the globals torch's ``_weights_only_unpickler`` allows, plus those added with
``torch.serialization.add_safe_globals``; anything else raises ``pickle.UnpicklingError`` as torch
does.  The allow-list alone does not make a load safe (pickle's own BUILD ``setattr()``s on a
class): weights-only loads run ``_WeightsOnlyUnpickler``, a port of torch's opcode loop, and
every view is checked against its storage with torch's arithmetic (``_sizes``) before Paddle
sees it.  Saving writes exactly the values of every view (a Paddle view with a negative stride
is written as its values, in a storage of its own: torch has no negative strides).
"""
from __future__ import annotations

import _compat_pickle
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
from ..paddle_shims import copy_to
from . import _sizes
from . import dtypes as _dt
from . import pickling as _pickling
from .registry import module, torch_function, type_

from .registry import manifest

NAMES = manifest("""
    torch: load serialization
    torch.serialization: add_safe_globals clear_safe_globals default_restore_location
        get_safe_globals load safe_globals
""")

module("torch.serialization")

# legacy typed-storage class names -> torch dtype names (torch/storage.py
# _dtype_to_storage_type_map); quantized ones have no Paddle counterpart
_STORAGE_DTYPES = {
    "DoubleStorage": "float64", "FloatStorage": "float32", "HalfStorage": "float16",
    "LongStorage": "int64", "IntStorage": "int32", "ShortStorage": "int16",
    "CharStorage": "int8", "ByteStorage": "uint8", "BoolStorage": "bool",
    "BFloat16Storage": "bfloat16", "ComplexDoubleStorage": "complex128",
    "ComplexFloatStorage": "complex64",
}
_STORAGE_OF = {v: k for k, v in _STORAGE_DTYPES.items()}
_QUANTIZED_STORAGES = ("QInt8Storage", "QInt32Storage", "QUInt8Storage", "QUInt4x2Storage",
                       "QUInt2x4Storage")
_ITEMSIZE = {"bool": 1, "uint8": 1, "int8": 1, "int16": 2, "int32": 4, "int64": 8,
             "float16": 2, "bfloat16": 2, "float32": 4, "float64": 8, "complex64": 8,
             "complex128": 16, "float8_e4m3fn": 1, "float8_e5m2": 1, "uint16": 2,
             "uint32": 4, "uint64": 8}
_NUMPY_NATIVE = {"bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                 "float64", "complex64", "complex128"}


class _StorageType:
    """What ``torch.FloatStorage`` & co. unpickle to: only its dtype name matters."""

    __slots__ = ("name", "dtype")

    def __init__(self, name, dtype):
        self.name, self.dtype = name, dtype

    def __repr__(self):
        return f"torch.{self.name}"


_UNTYPED = _StorageType("UntypedStorage", "uint8")


# -- loading -----------------------------------------------------------------------------------
class CheckpointStorage:
    """A storage read from a checkpoint: its bytes and the device it goes to.

    This is what a ``map_location`` callable receives (``storage, location``) and may return,
    as torch's storages: ``storage`` (keep on the CPU), ``storage.cuda(i)``, ``storage.cpu()``,
    ``storage.to(device)``."""

    def __init__(self, raw: np.ndarray, dtype: str, place):
        self._raw = raw          # numpy uint8, native byte order
        self.dtype_name = dtype  # the legacy storage's element type ("uint8" when untyped)
        self._place = place
        self._flat = {}          # dtype name -> 1-D Paddle tensor on _place (shared by views)

    def nbytes(self) -> int:
        return int(self._raw.size)

    def size(self) -> int:
        return self.nbytes() // _ITEMSIZE[self.dtype_name]

    __len__ = size

    @property
    def device(self):
        from .device import device_of_place
        return device_of_place(self._place)

    @property
    def is_cuda(self) -> bool:
        return not isinstance(self._place, paddle.CPUPlace) and "gpu" in str(self._place).lower()

    def _moved(self, place):
        return CheckpointStorage(self._raw, self.dtype_name, place)

    def cpu(self):
        return self if isinstance(self._place, paddle.CPUPlace) else self._moved(paddle.CPUPlace())

    def cuda(self, device=None, non_blocking=False):
        from .device import to_place
        return self._moved(to_place("cuda" if device is None else
                                    device if not isinstance(device, int) else f"cuda:{device}"))

    def to(self, device=None, non_blocking=False):
        from .device import to_place
        return self._moved(to_place(device))

    def __repr__(self):
        return f"torchproxy CheckpointStorage({self.dtype_name}, {self.nbytes()} bytes, {self._place})"

    def flat(self, dtype: str):
        """A 1-D Paddle tensor of ``dtype`` over all the bytes (made once per dtype)."""
        t = self._flat.get(dtype)
        if t is None:
            t = _tensor_from_bytes(self._raw, dtype, self._place)
            self._flat[dtype] = t
        return t


def _tensor_from_bytes(raw: np.ndarray, dtype: str, place):
    size = _ITEMSIZE[dtype]
    if raw.size % size:
        raise RuntimeError(f"torch.load: a storage of {raw.size} bytes is not a whole number "
                           f"of {dtype} elements")
    if dtype in _NUMPY_NATIVE:
        arr = raw.view(dtype)
        return paddle.to_tensor(arr.copy(), place=place)
    if dtype == "bfloat16":
        # bfloat16 is the top half of a float32: widening is exact, and so is the cast back
        wide = (raw.view(np.uint16).astype(np.uint32) << 16).view(np.float32)
        return paddle.to_tensor(wide, place=place).astype(_dt.require("bfloat16"))
    if dtype in ("float8_e4m3fn", "float8_e5m2"):
        target = _dt.require(dtype)
        wide = _F8_DECODE[dtype][raw]
        return paddle.to_tensor(wide, place=place).astype(target)
    raise NotProvidedError(f"torch.{dtype}")


def _f8_table(mant, bias, fn):
    """float8 bit patterns -> float32 values (e4m3fn: no infinities, 0x7f/0xff are NaN)."""
    out = np.empty(256, np.float32)
    for b in range(256):
        s = -1.0 if b & 0x80 else 1.0
        e = (b >> mant) & ((1 << (7 - mant)) - 1)
        m = b & ((1 << mant) - 1)
        emax = (1 << (7 - mant)) - 1
        if fn and e == emax and m == (1 << mant) - 1:
            out[b] = np.nan
        elif not fn and e == emax:
            out[b] = s * np.inf if m == 0 else np.nan
        elif e == 0:
            out[b] = s * m * 2.0 ** (1 - bias - mant)
        else:
            out[b] = s * (1 + m / (1 << mant)) * 2.0 ** (e - bias)
    return out


_F8_DECODE = {"float8_e4m3fn": _f8_table(3, 7, True), "float8_e5m2": _f8_table(2, 15, False)}


def _place_of_location(location: str):
    """torch's default_restore_location: 'cpu', 'cuda', 'cuda:1' -> a Paddle place."""
    from .device import to_place
    loc = str(location)
    if loc.startswith("cuda"):
        if not paddle.is_compiled_with_cuda() or paddle.device.cuda.device_count() == 0:
            raise RuntimeError(
                "Attempting to deserialize object on a CUDA device but torch.cuda.is_available() "
                "is False. If you are running on a CPU-only machine, please use torch.load with "
                "map_location=torch.device('cpu') to map your storages to the CPU.")
        return to_place(loc)
    if loc.startswith("cpu"):
        return paddle.CPUPlace()
    try:
        return to_place(loc)
    except Exception:
        raise RuntimeError(f"don't know how to restore data location of {loc}") from None


def default_restore_location(storage, location):
    return storage._moved(_place_of_location(location))


def _restore_function(map_location):
    from .device import device as _device
    if map_location is None:
        return default_restore_location
    if isinstance(map_location, dict):
        def restore(storage, location):
            return default_restore_location(storage, map_location.get(location, location))
        return restore
    if isinstance(map_location, (str, bytes)):
        loc = map_location.decode() if isinstance(map_location, bytes) else map_location
        return lambda storage, location: default_restore_location(storage, loc)
    if isinstance(map_location, _device):
        return lambda storage, location: default_restore_location(storage, str(map_location))
    if _is_place(map_location):
        return lambda storage, location: storage._moved(map_location)
    if callable(map_location):
        def restore(storage, location):
            result = map_location(storage, location)
            if result is None:
                result = default_restore_location(storage, location)
            if not isinstance(result, CheckpointStorage):
                raise TypeError(f"torch.load: map_location returned {type(result).__name__}; "
                                "expected the storage it was given (or storage.cpu() / .cuda())")
            return result
        return restore
    raise TypeError(f"torch.load: map_location must be a str, torch.device, dict or callable, "
                    f"got {type(map_location).__name__}")


def _is_place(obj) -> bool:
    return type(obj).__name__.endswith("Place")


def _rebuild_tensor_v2(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       metadata=None):
    return _view(storage, storage.dtype_name, storage_offset, size, stride, requires_grad,
                 metadata)


def _rebuild_tensor_v3(storage, storage_offset, size, stride, requires_grad, backward_hooks,
                       dtype, metadata=None):
    if isinstance(dtype, _dt.UnavailableDtype):
        raise NotProvidedError(f"torch.{dtype.name} (torch.load: {dtype.reason})")
    if type(dtype) is not _dt.DTYPE_TYPE:  # a string would name any record type
        raise TypeError(f"_rebuild_tensor_v3(): dtype must be a torch.dtype, not "
                        f"{type(dtype).__name__}")
    return _view(storage, _dt.torch_name(dtype), storage_offset, size, stride, requires_grad,
                 metadata)


def _rebuild_tensor(storage, storage_offset, size, stride):
    return _view(storage, storage.dtype_name, storage_offset, size, stride, False, None)


def _ints(values, what):
    """A checkpoint's size/stride: a tuple (or list, torch.Size) of Python ints."""
    if not isinstance(values, (tuple, list)):
        raise TypeError(f"torch.load: a tensor's {what} must be a tuple of ints, got "
                        f"{type(values).__name__}")
    out = []
    for v in values:
        if isinstance(v, bool) or not isinstance(v, int):
            raise TypeError(f"torch.load: a tensor's {what} must be a tuple of ints, found "
                            f"{type(v).__name__}")
        out.append(v)
    _sizes.check_int64(out, "set_", what)
    if any(v < _SYMINT_MIN for v in out):
        # torch stores sizes and strides as c10::SymInt, whose int64 values below -2**62 are
        # reserved (symbolic ints): set_ refuses them, even for a tensor of 0 elements
        raise RuntimeError("SymIntArrayRef expected to contain only concrete integers")
    return out


_SYMINT_MIN = -(2 ** 62)


def _view(storage, dtype, offset, size, stride, requires_grad, metadata):
    if not isinstance(storage, CheckpointStorage):
        raise TypeError(f"torch.load: a tensor's storage must be a checkpoint storage, got "
                        f"{type(storage).__name__}")
    if metadata is not None and not isinstance(metadata, dict):
        raise TypeError(f"torch.load: tensor metadata must be a dict, got "
                        f"{type(metadata).__name__}")
    if metadata and any(metadata.values()):
        raise NotProvidedError("torch.load of a tensor with conj/neg bits set")
    if dtype not in _ITEMSIZE:
        raise NotProvidedError(f"torch.{dtype} (torch.load)")
    size, stride = _ints(size, "size"), _ints(stride, "stride")
    if isinstance(offset, bool) or not isinstance(offset, int):
        raise TypeError(f"torch.load: a tensor's storage offset must be an int, got "
                        f"{type(offset).__name__}")
    _sizes.check_int64([offset], "set_", "storage_offset")
    # torch's tensor.requires_grad = requires_grad in _rebuild_tensor_v2
    if not isinstance(requires_grad, bool):
        raise RuntimeError("requires_grad must be a bool")
    if requires_grad and not (dtype.startswith("float") or dtype.startswith("complex")
                              or dtype == "bfloat16"):
        raise RuntimeError("only Tensors of floating point and complex dtype can require "
                           "gradients")
    # torch's checks (_rebuild_tensor -> set_): offset >= 0, overflow-checked size arithmetic
    # in which a negative stride overflows, and the view inside the storage's bytes -- before
    # Paddle is handed anything (its as_strided checks only the far end, forwards)
    item = _ITEMSIZE[dtype]
    # past the storage's end: torch's set_() tries to grow the checkpoint's storage, which is
    # not resizable
    _sizes.check_view(size, stride, offset, item, storage.nbytes() // item * item,
                      "Trying to resize storage that is not resizable")
    flat = storage.flat(dtype)
    numel = int(np.prod(size)) if size else 1
    n = flat.shape[0]
    if numel == 0:
        t = _on_place(paddle.zeros(size, dtype=flat.dtype), storage._place)
    elif offset == 0 and numel == n and stride == _sizes.contiguous_strides(size):
        t = flat.reshape(size)  # the whole storage, contiguous: a reshape of it
    else:
        # a view of the same allocation (offset in bytes): tensors that shared a storage in
        # torch share memory here too
        t = paddle.as_strided(flat, size, stride, int(offset) * _ITEMSIZE[dtype])
    t.stop_gradient = not requires_grad
    return t


def _on_place(t, place):
    if isinstance(place, paddle.CPUPlace):
        return t.cpu()
    return copy_to(t, place, True)


def _rebuild_parameter(data, requires_grad, backward_hooks):
    from .nn import Parameter
    return Parameter(data, requires_grad)


def _rebuild_parameter_with_state(data, requires_grad, backward_hooks, state):
    p = _rebuild_parameter(data, requires_grad, backward_hooks)
    if state is None:
        return p
    if not isinstance(state, dict):
        raise TypeError(f"torch.load: a parameter's state must be a dict, got "
                        f"{type(state).__name__}")
    for k, v in state.items():
        # torch setattr()s the saved attributes on the new parameter; here only names that
        # are no attribute of the class (Paddle's properties such as data/grad, dunders) are
        # set, so a checkpoint reaches this instance's own __dict__ and nothing else
        if not isinstance(k, str) or k.startswith("__") or hasattr(type(p), k):
            raise pickle.UnpicklingError(f"torch.load: refusing to set attribute {k!r} of a "
                                         f"parameter from a checkpoint")
        setattr(p, k, v)
    return p


def _rebuild_from_type_v2(func, new_type, args, state):
    # tensor subclasses: the facade's tensors are paddle.Tensor; keep the tensor, drop the type
    # (and its state). ``func`` comes from the pickle: only the rebuild functions are called.
    if not any(func is f for f in _UTILS.values()):
        raise pickle.UnpicklingError(f"torch.load: _rebuild_from_type_v2 of {func!r}: only "
                                     f"torch._utils rebuild functions are provided")
    if not isinstance(args, tuple):
        raise TypeError(f"torch.load: _rebuild_from_type_v2 args must be a tuple, got "
                        f"{type(args).__name__}")
    return func(*args)


def _not_provided(what):
    def fn(*args, **kwargs):
        raise NotProvidedError(f"torch.load of {what}")
    return fn


_UTILS = {
    "_rebuild_tensor": _rebuild_tensor,
    "_rebuild_tensor_v2": _rebuild_tensor_v2,
    "_rebuild_tensor_v3": _rebuild_tensor_v3,
    "_rebuild_parameter": _rebuild_parameter,
    "_rebuild_parameter_with_state": _rebuild_parameter_with_state,
    "_rebuild_qtensor": _not_provided("quantized tensors (torch._utils._rebuild_qtensor)"),
    "_rebuild_sparse_tensor": _not_provided("sparse tensors (torch._utils._rebuild_sparse_tensor)"),
    "_rebuild_meta_tensor_no_storage": _not_provided("meta tensors"),
    "_rebuild_nested_tensor": _not_provided("nested tensors"),
    "_rebuild_wrapper_subclass": _not_provided("tensor wrapper subclasses"),
    "_rebuild_device_tensor_from_numpy": _not_provided("tensors on devices without storage"),
    "_rebuild_device_tensor_from_cpu_tensor": _not_provided("tensors on devices without storage"),
}


def _get_layout(name):
    from . import creation
    if name == "torch.strided":
        return creation.strided
    raise NotProvidedError(name)


def _torch_global(mod: str, name: str):
    """A global named in a checkpoint, in module torch.*: the facade's object."""
    if "Storage" in name:
        if name in _STORAGE_DTYPES:
            return _StorageType(name, _STORAGE_DTYPES[name])
        if name in ("UntypedStorage", "TypedStorage"):
            return _UNTYPED
        if name in _QUANTIZED_STORAGES:
            raise NotProvidedError(f"torch.{name} (quantized tensors)")
    if mod == "torch._utils" and name in _UTILS:
        return _UTILS[name]
    if mod in ("torch._tensor", "torch.tensor") and name == "_rebuild_from_type_v2":
        return _rebuild_from_type_v2
    if mod == "torch.serialization" and name == "_get_layout":
        return _get_layout
    from . import modules
    tree = modules.build()
    obj = tree.get(mod)
    if obj is None:
        raise NotProvidedError(f"{mod}.{name} (torch.load: the checkpoint pickles it; the facade "
                               f"has no {mod})")
    found = getattr(obj, name)  # NotProvidedError naming it when the facade lacks it
    from .nn import Module
    if isinstance(found, type) and issubclass(found, Module):
        # torch.nn.modules.* classes exist at torch's paths now, but a pickled torch module
        # carries torch's internal state (_modules, _parameters, hook dicts), which the
        # facade's Paddle-based Module cannot adopt (gaps.toml: torch.load, pickled nn.Module)
        raise NotProvidedError(f"{mod}.{name} (torch.load of a pickled nn.Module object: save "
                               "and load its state_dict)")
    return found


# torch/_weights_only_unpickler.py _get_allowed_globals(), by full name
_ALLOWED_TORCH = {"torch.nn.parameter.Parameter", "torch.serialization._get_layout", "torch.Size",
                  "torch.Tensor", "torch.device", "torch._tensor._rebuild_from_type_v2"}
_ALLOWED_TORCH |= {f"torch._utils.{n}" for n in _UTILS}
_ALLOWED_TORCH |= {f"torch.{n}" for n in _STORAGE_DTYPES} | {f"torch.{n}" for n in _QUANTIZED_STORAGES}
_ALLOWED_TORCH |= {"torch.storage.UntypedStorage", "torch.storage.TypedStorage"}
_ALLOWED_TORCH |= {f"torch.{n}" for n in (
    "float64", "float32", "float16", "int64", "int32", "int16", "int8", "uint8", "bool",
    "bfloat16", "complex128", "complex64", "qint8", "qint32", "quint8", "quint4x2", "quint2x4",
    "float8_e5m2", "float8_e4m3fn", "float8_e5m2fnuz", "float8_e4m3fnuz", "float8_e8m0fnu",
    "float4_e2m1fn_x2", "bits8", "bits16", "bits1x8", "bits2x4", "bits4x2", "complex32",
    "uint16", "uint32", "uint64", "uint1", "uint2", "uint3", "uint4", "uint5", "uint6", "uint7",
    "int1", "int2", "int3", "int4", "int5", "int6", "int7",
    "per_tensor_affine", "per_tensor_symmetric", "per_channel_affine", "per_channel_symmetric",
    "per_channel_affine_float_qparams")}
_ALLOWED_TORCH |= {f"torch.{n}" for n in (
    "DoubleTensor", "FloatTensor", "HalfTensor", "LongTensor", "IntTensor", "ShortTensor",
    "CharTensor", "ByteTensor", "BoolTensor", "BFloat16Tensor")}
_ALLOWED_OTHER = {("collections", "OrderedDict"): collections.OrderedDict,
                  ("collections", "Counter"): collections.Counter,
                  ("_codecs", "encode"): __import__("_codecs").encode,
                  ("builtins", "bytearray"): bytearray, ("builtins", "set"): set,
                  ("builtins", "complex"): complex}
_BLOCKED_MODULES = ("sys", "os", "posix", "nt")

_safe_globals: list = []  # torch.serialization.add_safe_globals


def _user_allowed() -> dict:
    out = {}
    for f in _safe_globals:
        if isinstance(f, tuple):
            if len(f) != 2:
                raise ValueError(f"Expected tuple of length 2 (global, str of callable full "
                                 f"path), but got tuple of length: {len(f)}")
            out[f[1]] = f[0]
        else:
            out[f"{f.__module__}.{f.__qualname__}"] = f
    return out


@torch_function("torch.serialization.add_safe_globals")
def add_safe_globals(safe_globals):
    for g in safe_globals:
        if g not in _safe_globals:
            _safe_globals.append(g)


@torch_function("torch.serialization.get_safe_globals")
def get_safe_globals():
    return list(_safe_globals)


@torch_function("torch.serialization.clear_safe_globals")
def clear_safe_globals():
    _safe_globals.clear()


class safe_globals:
    """``with torch.serialization.safe_globals([...]):`` allow them inside the block."""

    def __init__(self, safe_globals):
        self.safe_globals = list(safe_globals)

    def __enter__(self):
        self._added = [g for g in self.safe_globals if g not in _safe_globals]
        _safe_globals.extend(self._added)

    def __exit__(self, *exc):
        for g in self._added:
            if g in _safe_globals:
                _safe_globals.remove(g)


type_("torch.serialization.safe_globals", safe_globals)
torch_function("torch.serialization.default_restore_location")(default_restore_location)


def _refuse_global(mod, name):
    full = f"{mod}.{name}"
    shown = name if mod == "builtins" else full
    raise pickle.UnpicklingError(
        f"Unsupported global: GLOBAL {shown} was not an allowed global by default. Please use "
        f"`torch.serialization.add_safe_globals([{shown}])` or the "
        f"`torch.serialization.safe_globals([{shown}])` context manager to allowlist this "
        "global if you trust this class/function.")


class _Unpickler(pickle.Unpickler):
    def __init__(self, file, restore, archive, prefix, weights_only, **kwargs):
        super().__init__(file, **kwargs)
        self._file, self._encoding = file, kwargs.get("encoding", "ASCII")
        self._restore, self._archive, self._prefix = restore, archive, prefix
        self._weights_only = weights_only
        self._byteswap = False
        self._loaded = {}

    def load(self):
        if self._weights_only:
            # never pickle's own load: its BUILD setattr()s on whatever is on the stack
            # (a class included), its REDUCE calls anything a GLOBAL pushed
            return _WeightsOnlyUnpickler(self._file, self, self._encoding).load()
        return super().load()

    def find_class(self, mod, name):
        # protocol 2 names Python 2 modules (__builtin__.set): Python's mapping, as torch's
        if (mod, name) in _compat_pickle.NAME_MAPPING:
            mod, name = _compat_pickle.NAME_MAPPING[(mod, name)]
        elif mod in _compat_pickle.IMPORT_MAPPING:
            mod = _compat_pickle.IMPORT_MAPPING[mod]
        if self._weights_only:
            return self._find_allowed(mod, name)
        if mod == "torch" or mod.startswith("torch."):
            return _torch_global(mod, name)
        return super().find_class(mod, name)

    def _find_allowed(self, mod, name):
        full = f"{mod}.{name}"
        if mod in _BLOCKED_MODULES:
            raise pickle.UnpicklingError(f"Trying to load unsupported GLOBAL {full} whose module "
                                         f"{mod} is blocked.")
        if full in _ALLOWED_TORCH:
            return _torch_global(mod, name)
        if (mod, name) in _ALLOWED_OTHER:
            return _ALLOWED_OTHER[(mod, name)]
        user = _user_allowed()
        if full in user:
            return user[full]
        if full == "torchproxy.facade.pickling.new_instance":
            # how an instance of a facade class with a torch name (torch.nn.Conv2d, whose
            # __module__ is torch.nn.modules.conv) is pickled: new_instance(torch name); the
            # REDUCE checks that name against the allow-list as torch checks its GLOBAL
            return _pickling.new_instance
        _refuse_global(mod, name)

    def allowed_new_instance(self, full: str):
        """new_instance's class argument, allowed as torch allows GLOBAL ``full``."""
        mod, _, name = full.rpartition(".")
        if full not in _ALLOWED_TORCH and full not in _user_allowed():
            _refuse_global(mod, name)
        return _pickling.new_instance(full)

    def persistent_load(self, pid):
        if not isinstance(pid, tuple) or not pid:
            raise pickle.UnpicklingError(f"persistent_load id must be a tuple, got {type(pid)}")
        kind = pid[0].decode("ascii") if isinstance(pid[0], bytes) else pid[0]
        if kind != "storage":
            raise pickle.UnpicklingError(f"Only persistent_load of storage is allowed, but got "
                                         f"{kind!r}")
        storage_type, key, location, numel = pid[1:]
        key = key.decode("ascii") if isinstance(key, bytes) else str(key)
        location = location.decode("ascii") if isinstance(location, bytes) else location
        if key in self._loaded:
            return self._loaded[key]
        if not isinstance(storage_type, _StorageType):
            raise pickle.UnpicklingError(f"unknown storage type {storage_type!r}")
        dtype = storage_type.dtype
        nbytes = int(numel) * _ITEMSIZE[dtype]
        name = f"{self._prefix}data/{key}"
        try:
            data = self._archive.read(name)
        except KeyError:
            raise RuntimeError(f"torch.load: the archive has no record {name}") from None
        if len(data) != nbytes:
            raise RuntimeError(f"torch.load: record {name} has {len(data)} bytes, expected {nbytes}")
        raw = np.frombuffer(data, dtype=np.uint8)
        if self._byteswap and _ITEMSIZE[dtype] > 1:
            k = _ITEMSIZE[dtype] // (2 if dtype.startswith("complex") else 1)
            raw = raw.view(f"u{k}").byteswap().view(np.uint8)
        storage = self._restore(CheckpointStorage(raw, dtype, paddle.CPUPlace()), location)
        self._loaded[key] = storage
        return storage


def _tensor_new(*args):
    """``torch.Tensor(*args)`` as torch's legacy constructor reads it: sizes -> an uninitialised
    tensor of the default dtype, one sequence -> its values; what a weights-only checkpoint's
    REDUCE/NEWOBJ of ``torch.Tensor`` runs (never Paddle's Tensor constructor with pickled
    arguments)."""
    from . import creation
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        return creation.tensor(args[0], dtype=creation.default_float())
    return creation.empty(*(args or (0,)))  # torch.Tensor(): an empty 1-D tensor


class _WeightsOnlyUnpickler:
    """torch/_weights_only_unpickler.py's ``Unpickler`` (torch 2.13), on the facade's objects.

    A hand-written opcode loop instead of ``pickle.Unpickler``: the allow-list of globals says
    which names a pickle may push, and this loop says what may be done with them -- only
    torch's opcodes (protocol 2; anything else raises ``Unsupported operand``); REDUCE and
    NEWOBJ only of objects a GLOBAL pushed (the allowed globals); BUILD only on an instance of
    OrderedDict/Counter (its own ``__dict__``) or of a class the user allow-listed, never on a
    class and never by ``setattr`` on Paddle/facade objects (torch also allows BUILD on
    Tensor/Parameter instances: refused here, torch's own files never use it); APPEND(S) only
    to lists, SETITEM(S) only into dict/OrderedDict/Counter; persistent ids only for storages.
    """

    def __init__(self, file, loader, encoding="utf-8"):
        self.read, self.readline = file.read, file.readline
        self.encoding = encoding
        self.memo: dict = {}
        self._loader = loader           # the _Unpickler: allow-list and storages
        self._callable: dict = {}       # id -> object, for every global a GLOBAL pushed

    def _is_global(self, obj) -> bool:
        return self._callable.get(id(obj)) is obj

    def load(self):
        from .nn import Parameter
        read, unpack = self.read, struct.unpack
        self.metastack, self.stack = [], []
        while True:
            key = read(1)
            if not key:
                raise EOFError
            op = key[0]
            if op == pickle.GLOBAL[0]:
                mod = self.readline()[:-1].decode("utf-8")
                name = self.readline()[:-1].decode("utf-8")
                obj = self._loader.find_class(mod, name)
                self._callable[id(obj)] = obj
                self.stack.append(obj)
            elif op == pickle.NEWOBJ[0]:
                args, cls = self.stack.pop(), self.stack.pop()
                if not isinstance(args, tuple):
                    raise pickle.UnpicklingError("NEWOBJ expected an argument tuple")
                if not self._is_global(cls) or not isinstance(cls, type):
                    raise pickle.UnpicklingError(
                        "Can only create new object for nn.Parameter or classes allowlisted "
                        f"via `add_safe_globals` but got {cls}")
                if cls is Parameter:
                    self.stack.append(Parameter(*args))
                elif cls is paddle.Tensor:
                    self.stack.append(_tensor_new(*args))
                elif cls.__module__.startswith("torchproxy."):
                    self.stack.append(cls(*args))  # facade classes: torch's __new__ builds
                else:
                    self.stack.append(cls.__new__(cls, *args))
            elif op == pickle.REDUCE[0]:
                args = self.stack.pop()
                func = self.stack[-1]
                if not self._is_global(func):
                    msg = f"Trying to call reduce for unrecognized function {func}"
                    if hasattr(func, "__self__"):
                        msg += f" which belongs to {func.__self__}"
                    raise pickle.UnpicklingError(msg)
                if not isinstance(args, tuple):
                    raise pickle.UnpicklingError("REDUCE expected an argument tuple")
                if type(func) is _dt.DTYPE_TYPE or isinstance(func, _StorageType):
                    raise TypeError(f"'{type(func).__name__}' object is not callable")
                if func is _pickling.new_instance:
                    if len(args) != 1 or not isinstance(args[0], str):
                        raise pickle.UnpicklingError("new_instance expected one class name")
                    self.stack[-1] = self._loader.allowed_new_instance(args[0])
                    continue
                self.stack[-1] = _tensor_new(*args) if func is paddle.Tensor else func(*args)
            elif op == pickle.BUILD[0]:
                state = self.stack.pop()
                self._build(self.stack[-1], state)
            elif op == pickle.APPEND[0]:
                item = self.stack.pop()
                if type(self.stack[-1]) is not list:
                    raise pickle.UnpicklingError(
                        f"Can only append to lists, but got {type(self.stack[-1])}")
                self.stack[-1].append(item)
            elif op == pickle.APPENDS[0]:
                items = self._pop_mark()
                if type(self.stack[-1]) is not list:
                    raise pickle.UnpicklingError(
                        f"Can only extend lists, but got {type(self.stack[-1])}")
                self.stack[-1].extend(items)
            elif op == pickle.SETITEM[0]:
                v, k = self.stack.pop(), self.stack.pop()
                self._check_set_item_target("SETITEM")
                self.stack[-1][k] = v
            elif op == pickle.SETITEMS[0]:
                items = self._pop_mark()
                self._check_set_item_target("SETITEMS")
                if len(items) % 2:
                    raise pickle.UnpicklingError("SETITEMS expected key/value pairs")
                target = self.stack[-1]
                for i in range(0, len(items), 2):
                    target[items[i]] = items[i + 1]
            elif op == pickle.MARK[0]:
                self.metastack.append(self.stack)
                self.stack = []
            elif op == pickle.TUPLE[0]:
                items = tuple(self._pop_mark())  # (before self.stack is read again)
                self.stack.append(items)
            elif op == pickle.TUPLE1[0]:
                self.stack[-1] = (self.stack[-1],)
            elif op == pickle.TUPLE2[0]:
                if len(self.stack) < 2:
                    raise IndexError("pop from empty list")
                self.stack[-2:] = [(self.stack[-2], self.stack[-1])]
            elif op == pickle.TUPLE3[0]:
                if len(self.stack) < 3:
                    raise IndexError("pop from empty list")
                self.stack[-3:] = [(self.stack[-3], self.stack[-2], self.stack[-1])]
            elif op == pickle.NONE[0]:
                self.stack.append(None)
            elif op == pickle.NEWFALSE[0]:
                self.stack.append(False)
            elif op == pickle.NEWTRUE[0]:
                self.stack.append(True)
            elif op == pickle.EMPTY_TUPLE[0]:
                self.stack.append(())
            elif op == pickle.EMPTY_LIST[0]:
                self.stack.append([])
            elif op == pickle.EMPTY_DICT[0]:
                self.stack.append({})
            elif op == pickle.EMPTY_SET[0]:
                self.stack.append(set())
            elif op == pickle.BININT[0]:
                self.stack.append(unpack("<i", read(4))[0])
            elif op == pickle.BININT1[0]:
                self.stack.append(self._byte())
            elif op == pickle.BININT2[0]:
                self.stack.append(unpack("<H", read(2))[0])
            elif op == pickle.BINFLOAT[0]:
                self.stack.append(unpack(">d", read(8))[0])
            elif op == pickle.BINUNICODE[0]:
                n = unpack("<I", read(4))[0]
                self.stack.append(str(self._exactly(n), "utf-8", "surrogatepass"))
            elif op == pickle.SHORT_BINSTRING[0]:
                data = self._exactly(self._byte())
                self.stack.append(data if self.encoding == "bytes"
                                  else data.decode(self.encoding, "strict"))
            elif op == pickle.BINPERSID[0]:
                pid = self.stack.pop()
                if type(pid) is not tuple and type(pid) is not int:
                    raise pickle.UnpicklingError(
                        f"persistent_load id must be tuple or int, but got {type(pid)}")
                self.stack.append(self._loader.persistent_load(pid))
            elif op in (pickle.BINGET[0], pickle.LONG_BINGET[0]):
                i = self._byte() if op == pickle.BINGET[0] else unpack("<I", read(4))[0]
                self.stack.append(self.memo[i])
            elif op in (pickle.BINPUT[0], pickle.LONG_BINPUT[0]):
                i = self._byte() if op == pickle.BINPUT[0] else unpack("<I", read(4))[0]
                self.memo[i] = self.stack[-1]
            elif op == pickle.LONG1[0]:
                self.stack.append(pickle.decode_long(self._exactly(self._byte())))
            elif op == pickle.PROTO[0]:
                proto = self._byte()
                if proto != 2:
                    import warnings
                    warnings.warn(
                        f"Detected pickle protocol {proto} in the checkpoint, which was not "
                        "the default pickle protocol used by `torch.load` (2). The "
                        "weights_only Unpickler might not support all instructions "
                        "implemented by this protocol, please file an issue for adding "
                        "support if you encounter this.", stacklevel=2)
            elif op == pickle.STOP[0]:
                return self.stack.pop()
            else:
                raise pickle.UnpicklingError(f"Unsupported operand {op}")

    def _byte(self) -> int:
        b = self.read(1)
        if not b:
            raise EOFError
        return b[0]

    def _exactly(self, n: int) -> bytes:
        data = self.read(n)
        if len(data) != n:
            raise pickle.UnpicklingError("pickle data was truncated")
        return data

    def _pop_mark(self):
        items = self.stack
        self.stack = self.metastack.pop()
        return items

    def _check_set_item_target(self, opcode):
        if type(self.stack[-1]) not in (dict, collections.OrderedDict, collections.Counter):
            raise pickle.UnpicklingError(
                f"Can only {opcode} for dict, collections.OrderedDict, collections.Counter, "
                f"but got {type(self.stack[-1])}")

    def _build(self, inst, state):
        kind = type(inst)
        if kind in (collections.OrderedDict, collections.Counter):
            # torch: inst.__dict__.update(state) -- the instance's own attributes (a
            # state_dict's _metadata)
            if state is not None and not isinstance(state, dict):
                raise pickle.UnpicklingError(f"BUILD state of a {kind.__name__} must be a dict")
            if state:
                inst.__dict__.update(state)
            return
        user = list(_user_allowed().values())
        if not isinstance(inst, type) and any(kind is u for u in user):
            if hasattr(inst, "__setstate__"):
                inst.__setstate__(state)
                return
            slotstate = None
            if isinstance(state, tuple) and len(state) == 2:
                state, slotstate = state
            if state:
                inst.__dict__.update(state)
            if slotstate:
                for k, v in slotstate.items():
                    setattr(inst, k, v)
            return
        raise pickle.UnpicklingError(
            "Can only build Tensor, Parameter, OrderedDict or types allowlisted via "
            f"`add_safe_globals`, but got {kind}")


_CORRUPT = ("PytorchStreamReader failed reading zip archive: invalid header or archive is "
            "corrupted")


def _check_zip_directory(fh, start: int) -> None:
    """What torch's zip reader (miniz) checks before reading and Python's zipfile lets pass: the
    end record's counts, every central-directory entry where the previous one ends (a comment
    or name length flipped in one hides the entries after it from zipfile), ending exactly
    where the directory does, on disk 0, a stored record's two sizes equal, and each local
    header naming the same record.  Zip64 archives (torch writes them past 4 GiB) are left to
    zipfile."""
    fh.seek(0, os.SEEK_END)
    end = fh.tell()
    fh.seek(max(start, end - 22 - 65535))
    tail = fh.read()
    at = tail.rfind(b"PK\x05\x06")
    if at < 0 or len(tail) - at < 22:
        raise RuntimeError(_CORRUPT)
    disk, cd_disk, n_disk, n_total, cd_size, cd_offset, _ = struct.unpack(
        "<4H2LH", tail[at + 4:at + 22])
    eocd = end - len(tail) + at
    if at >= 76 and tail[at - 20:at - 16] == b"PK\x06\x07":
        # torch's writer always adds the zip64 end record (56 bytes) and its locator (20):
        # the directory ends where that record starts
        rec = tail[at - 76:at - 20]
        if rec[:4] != b"PK\x06\x06":
            raise RuntimeError(_CORRUPT)
        disk, cd_disk, n_disk, n_total, cd_size, cd_offset = struct.unpack("<2L4Q", rec[16:56])
        eocd -= 76
    if n_total > 65535 or cd_size > 0xFFFFFFFF:
        return  # a real zip64 archive: left to zipfile
    concat = eocd - cd_size - cd_offset  # bytes before the archive (zipfile's rule)
    if disk or cd_disk or n_disk != n_total or concat < start:
        raise RuntimeError(_CORRUPT)
    fh.seek(concat + cd_offset)
    directory = fh.read(cd_size)
    pos, entries = 0, []
    for _ in range(n_total):
        head = directory[pos:pos + 46]
        if len(head) < 46 or head[:4] != b"PK\x01\x02":
            raise RuntimeError(_CORRUPT)
        (method, csize, usize, nlen, xlen, clen, disk_start, rel) = (
            struct.unpack("<H", head[10:12])[0], *struct.unpack("<2L", head[20:28]),
            *struct.unpack("<4H", head[28:36]), struct.unpack("<L", head[42:46])[0])
        name = directory[pos + 46:pos + 46 + nlen]
        pos += 46 + nlen + xlen + clen
        if pos > cd_size or disk_start or (method == 0 and csize != usize):
            raise RuntimeError(_CORRUPT)
        entries.append((rel, name))
    if pos != cd_size:
        raise RuntimeError(_CORRUPT)
    for rel, name in entries:
        fh.seek(concat + rel)
        local = fh.read(30 + len(name))
        if local[:4] != b"PK\x03\x04" or local[30:] != name or \
                struct.unpack("<H", local[26:28])[0] != len(name):
            raise RuntimeError(_CORRUPT)


def _open_read(f):
    if isinstance(f, (str, bytes, os.PathLike)):
        return open(f, "rb"), True
    if not hasattr(f, "read"):
        raise TypeError(f"torch.load: expected a path or a file-like object, got {type(f).__name__}")
    return f, False


@torch_function("torch.load",
                note="torch's zip format, onto Paddle tensors; weights_only=True by default "
                     "as torch >= 2.6; map_location str/device/dict/callable")
def load(f, map_location=None, pickle_module=None, *, weights_only=None, mmap=None,
         **pickle_load_args):
    if pickle_module is not None and pickle_module is not pickle:
        raise NotProvidedError("torch.load(pickle_module=) other than pickle")
    if weights_only is None:
        weights_only = os.environ.get("TORCH_FORCE_NO_WEIGHTS_ONLY_LOAD", "0") in ("0", "")
    if os.environ.get("TORCH_FORCE_WEIGHTS_ONLY_LOAD", "0") not in ("0", ""):
        weights_only = True
    pickle_load_args.setdefault("encoding", "utf-8")
    restore = _restore_function(map_location)
    fh, owned = _open_read(f)
    try:
        if not fh.seekable() if hasattr(fh, "seekable") else False:
            fh = io.BytesIO(fh.read())
        start = fh.tell()
        if not zipfile.is_zipfile(fh):
            raise RuntimeError("torch.load: this file is not in torch's zip format (torch >= 1.6 "
                               "default); the legacy tar/pickle format is not provided")
        _check_zip_directory(fh, start)
        fh.seek(start)
        with zipfile.ZipFile(fh) as archive:
            names = archive.namelist()
            pkl = [n for n in names if n.endswith("data.pkl") and n.count("/") == 1]
            if not pkl:
                if any(n.endswith("constants.pkl") for n in names):
                    raise NotProvidedError("torch.jit.load (this is a TorchScript archive)")
                raise RuntimeError("torch.load: the archive has no <folder>/data.pkl record")
            prefix = pkl[0][: -len("data.pkl")]
            # every record but the storages (read, CRC-checked, when the pickle names them):
            # torch's reader refuses an archive whose directory disagrees with a record
            for info in archive.infolist():
                # what torch's zip reader (miniz) refuses and Python's zipfile lets pass: a
                # record on another disk, a stored record whose two sizes differ
                if info.volume != 0 or (info.compress_type == zipfile.ZIP_STORED
                                        and info.compress_size != info.file_size):
                    raise RuntimeError(f"{_CORRUPT} (record {info.filename})")
                if not info.filename.startswith(prefix + "data/"):
                    archive.read(info)
            byteorder = "little"
            if prefix + "byteorder" in names:
                byteorder = archive.read(prefix + "byteorder").decode()
                if byteorder not in ("little", "big"):
                    raise ValueError("Unknown endianness type: " + byteorder)
            unpickler = _Unpickler(io.BytesIO(archive.read(pkl[0])), restore, archive, prefix,
                                   weights_only, **pickle_load_args)
            unpickler._byteswap = byteorder != sys.byteorder
            try:
                return unpickler.load()
            except pickle.UnpicklingError as e:
                if not weights_only:
                    raise
                raise pickle.UnpicklingError(
                    "Weights only load failed. This file can still be loaded, to do so you have "
                    "two options, do those steps only if you trust the source of the checkpoint."
                    "\n\t(1) Re-running `torch.load` with `weights_only` set to `False` will "
                    "likely succeed, but it can result in arbitrary code execution.\n\t(2) "
                    "Alternatively, to load with `weights_only=True` please check the recommended "
                    f"steps in the following error message.\n\tWeightsUnpickler error: {e}"
                ) from None
    finally:
        if owned:
            fh.close()


torch_function("torch.serialization.load")(load)
