"""torch's "Creation Ops" (torch.html) beyond creation.py, from torch's OpInfo database:
logspace, scalar_tensor, Tensor.new_empty_strided, and the channels_last memory formats."""
from __future__ import annotations

NAMES = (
    "torch.Tensor.new_empty_strided", "torch.channels_last", "torch.channels_last_3d",
    "torch.logspace", "torch.scalar_tensor",
)

from . import creation as _cr
from . import dtypes as _dt
from ._opbase import _write_out, opmath_function
from .creation import default_float, memory_format as _memory_format, require_strided
from .registry import tensor_method, value as _value


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
    dt = _dt.to_paddle(dtype) if dtype is not None else default_float()
    return _cr.tensor(s, dtype=dt, device=device, requires_grad=requires_grad)


@tensor_method("new_empty_strided")
def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False,
                      layout=None, pin_memory=False):
    require_strided(layout, 'Tensor.new_empty_strided')
    return _cr.empty_strided(size, stride, dtype=dtype if dtype is not None else self.dtype,
                             device=device if device is not None else self.place,
                             requires_grad=requires_grad)
