"""torch's "Creation Ops" (torch.html) beyond creation.py: logspace, scalar_tensor,
Tensor.new_empty_strided and the channels_last memory formats (from torch's OpInfo database),
and torch.asarray, which reads storages and views dtypes (storage.py and tensor_views.py sit
above creation.py, below this module)."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: asarray channels_last channels_last_3d logspace scalar_tensor
    torch.Tensor: new_empty_strided
""")

import numpy as np
import paddle

from ..paddle_shims import copy_to
from . import creation as _cr
from . import dtypes as _dt
from ._opbase import _write_out, opmath_function
from .creation import (_finish, _to_dtype, default_float, from_numpy, require_strided, tensor)
from .creation import memory_format as _memory_format
from .device import device as _device, device_of_place, to_place
from .registry import tensor_method, torch_function, value as _value
from .storage import UntypedStorage
from .tensor_views import _view_dtype


# -- creation ----------------------------------------------------------------------------------
@opmath_function("torch.logspace")
def logspace(start, end, steps, base=10.0, *, out=None, dtype=None, layout=None, device=None,
             requires_grad=False):
    require_strided(layout, 'logspace')
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dt.to_paddle(dtype) if dtype is not None else default_float()
    vals = _cr.logspace_values(start, end, steps, base, dt)  # torch's CPU kernel's arithmetic
    r = _cr._finish(_cr._from_numpy_as(vals, dt, device), requires_grad)
    return _write_out(r, out)


# -- memory formats ----------------------------------------------------------------------------
# torch.channels_last / channels_last_3d are values of torch.memory_format; conversions that
# take one (x.to(memory_format=...), x.float(memory_format=...)) keep the values (Paddle tensors
# have one row-major layout; torch's channels-last tensors hold the same values).

channels_last = _memory_format("channels_last")
channels_last_3d = _memory_format("channels_last_3d")
_value("torch.channels_last", channels_last,
       note="accepted by conversions (x.to/x.float(memory_format=...)): values as torch's; "
            "the layout stays row-major (stride() differs); empty(memory_format=) refuses it")
_value("torch.channels_last_3d", channels_last_3d,
       note="as torch.channels_last")


@opmath_function("torch.scalar_tensor")
def scalar_tensor(s, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    require_strided(layout, 'scalar_tensor')
    pinning = _cr._check_pin_memory(pin_memory, 'scalar_tensor', device)
    dt = _dt.to_paddle(dtype) if dtype is not None else default_float()
    return _cr.tensor(s, dtype=dt, device=device, requires_grad=requires_grad,
                      pin_memory=pinning)


@tensor_method("new_empty_strided")
def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                      layout=None, pin_memory=False):
    require_strided(layout, 'Tensor.new_empty_strided')
    device = device if device is not None else self.place
    pinning = _cr._check_pin_memory(pin_memory, 'Tensor.new_empty_strided', device)
    return _cr.empty_strided(size, stride, dtype=dtype if dtype is not None else self.dtype,
                             device=device, requires_grad=requires_grad, pin_memory=pinning)


# -- torch.asarray (safetensors' torch loader: asarray(storage[a:b], dtype=uint8, device=...)) ---
@torch_function("torch.asarray",
                note="(storages): the tensor holds its own copy of the storage's bytes "
                     "(torch's aliases them); tensors and writable numpy arrays are "
                     "shared as in torch")
def asarray(obj, *, dtype=None, device=None, copy=None, requires_grad=False):
    if isinstance(obj, UntypedStorage):
        # the bytes read as dtype (int64 when none is given, as torch); a partial last
        # element is dropped, as torch does
        want = _to_dtype(dtype if dtype is not None else "int64")
        item = _dt._ITEMSIZE[_dt.torch_name(want)]
        raw = obj._bytes()
        if len(raw) < item:
            return _finish(paddle.zeros([0], want).to(to_place(device or "cpu")), requires_grad)
        raw = raw[:len(raw) // item * item].copy()
        name = _dt.torch_name(want)
        if name in ("bfloat16", "float8_e4m3fn", "float8_e5m2"):  # numpy has no such dtype
            t = _view_dtype(from_numpy(raw), want)
        else:
            t = from_numpy(raw.view(np.bool_ if name == "bool" else np.dtype(name)))
        if device is not None:
            t = copy_to(t, to_place(device), True)
        return _finish(t, requires_grad)
    if isinstance(obj, np.ndarray) and copy is not True and obj.ndim and obj.flags.writeable:
        obj = from_numpy(obj)  # shares the array's memory, as torch does
    if not isinstance(obj, paddle.Tensor):
        if copy is False:
            raise ValueError(f"can't alias {type(obj).__name__} into a tensor: copy=False")
        return tensor(obj, dtype=dtype, device=device, requires_grad=requires_grad)
    t = obj
    want = t.dtype if dtype is None else _to_dtype(dtype)
    if want != t.dtype:
        if copy is False:
            raise ValueError("can't alias tensor with dtype "
                             f"'{_SCALAR_NAMES.get(_dt.torch_name(t.dtype))}' "
                             f"into dtype '{_SCALAR_NAMES.get(_dt.torch_name(want))}'.")
        t = t.astype(want)
    if device is not None:
        if device_of_place(t.place) != _device(device):
            if copy is False:
                raise ValueError("can't alias tensor from device "
                                 f"'{device_of_place(t.place)}' to '{_device(device)}'.")
            t = copy_to(t, to_place(device), True)
    if copy and t is obj:
        t = t.clone()
    return _finish(t, requires_grad) if requires_grad else t


# torch's ScalarType names (its error messages name dtypes this way)
_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
                 "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                 "int8": "Char", "uint8": "Byte", "bool": "Bool", "complex64": "ComplexFloat",
                 "complex128": "ComplexDouble"}
