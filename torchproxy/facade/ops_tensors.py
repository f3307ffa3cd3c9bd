"""torch docs "Tensors", "Creation Ops" and "Utilities" additions: ``torch.is_nonzero``,
``set_default_tensor_type``, ``frombuffer``, ``from_dlpack``, ``can_cast``, ``_assert`` and
``vander`` (the "Other Operations" Vandermonde matrix, torch's decreasing powers)."""
from __future__ import annotations

import warnings

import numpy as np
import paddle

from . import dtypes as _dt
from ..errors import NotProvidedError
from .creation import _finish
from .registry import tensor_method, torch_function

from .registry import manifest

NAMES = manifest("""
    torch: _assert can_cast from_dlpack frombuffer is_nonzero set_default_tensor_type vander
    torch.Tensor: is_nonzero
""")


@torch_function("torch._assert")
def _assert(condition, message):
    # torch: a plain `assert` that symbolic tracing can see; tensors answer through bool()
    assert condition, message


@torch_function("torch.is_nonzero")
def is_nonzero(input):
    n = input.size  # (Paddle's element count)
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(input.reshape([]).item())


tensor_method("is_nonzero")(is_nonzero)


@torch_function("torch.set_default_tensor_type",
                note="CPU tensor types only (the default device stays the CPU)")
def set_default_tensor_type(t):
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.",
                  UserWarning, stacklevel=2)
    if isinstance(t, str):
        import importlib
        from .modules import MODULES  # noqa: F401 (the facade's tree answers torch.* names)
        mod, _, cls = t.rpartition(".")
        if mod in ("torch", "torch.cuda"):
            from . import registry
            entry = registry.TABLE.get(t)
            if entry is None:
                if mod == "torch.cuda" and not paddle.is_compiled_with_cuda():
                    raise TypeError(f"type {t} not available. Torch not compiled with CUDA "
                                    "enabled.")
                raise TypeError(f"invalid type: '{t}'")
            t = entry.impl
        else:
            t = getattr(importlib.import_module(mod), cls)  # torch: ModuleNotFoundError
    dtype = getattr(t, "_dtype", None) if isinstance(t, type) else None
    if dtype is None:
        raise TypeError("invalid type object: only floating-point types are supported as the "
                        "default type")
    if getattr(t, "_cuda", False):
        raise NotProvidedError("torch.set_default_tensor_type (CUDA tensor types)")
    if dtype not in ("float16", "bfloat16", "float32", "float64"):
        raise TypeError("only floating-point types are supported as the default type")
    paddle.set_default_dtype(dtype)


def _np_dtype(dt):
    name = _dt.torch_name(dt)
    if name == "bfloat16":
        return np.dtype(np.int16), name  # bits, reinterpreted below (Paddle views int16)
    if name == "bool":
        return np.dtype(np.uint8), name  # (Paddle 2.6's DLPack import refuses bool)
    if name in ("float8_e4m3fn", "float8_e5m2") or name.startswith("uint") and name != "uint8":
        raise NotProvidedError(f"torch.frombuffer (dtype=torch.{name})")
    return np.dtype(name), name


@torch_function("torch.frombuffer",
                note="shares the buffer's memory on Paddle 3.x (a writable buffer); Paddle 2.6 "
                     "and read-only buffers get a copy")
def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    try:
        view = memoryview(buffer)
    except TypeError:
        raise ValueError("object does not implement Python buffer protocol.") from None
    length = view.nbytes
    npdt, name = _np_dtype(_dt.to_paddle(dtype))
    size = npdt.itemsize
    if length <= 0 or count == 0:
        raise ValueError(f"both buffer length ({length}) and count ({count}) must not be 0")
    if offset < 0 or offset >= length:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({length} bytes) minus 1")
    if count < 0 and (length - offset) % size != 0:
        raise ValueError(f"buffer length ({length - offset} bytes) after offset ({offset} bytes) "
                         f"must be a multiple of element size ({size})")
    if count < 0:
        count = (length - offset) // size
    elif offset + count * size > length:
        raise ValueError(f"requested buffer length ({count} * {size} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({length} bytes)")
    arr = np.frombuffer(view.cast("B"), dtype=npdt, count=count, offset=offset)
    if arr.flags.writeable:
        # zero-copy where Paddle's DLPack import is (3.x): writes reach the buffer, as torch's
        t = paddle.utils.dlpack.from_dlpack(arr.__dlpack__())
    else:
        t = paddle.to_tensor(arr.copy())
    if name in ("bfloat16", "bool"):
        t = t.view(_dt.to_paddle(dtype))
    return _finish(t, requires_grad)


@torch_function("torch.from_dlpack",
                note="see torch.utils.dlpack.from_dlpack (zero-copy on Paddle 3.x)")
def from_dlpack(ext_tensor):
    from .misc import from_dlpack as _impl
    return _impl(ext_tensor)


def _kind(name):
    """torch's cast ladder: bool < integral < floating < complex."""
    if name == "bool":
        return 0
    if name.startswith("complex"):
        return 3
    return 2 if name.startswith(("float", "bfloat")) else 1


@torch_function("torch.can_cast")
def can_cast(from_, to):
    for arg, pos, v in (("from_", 1, from_), ("to", 2, to)):
        if not isinstance(v, _dt.DTYPE_TYPE):
            raise TypeError(f"can_cast(): argument '{arg}' (position {pos}) must be torch.dtype, "
                            f"not {type(v).__name__}")
    f = _kind(_dt.torch_name(_dt.to_paddle(from_)))
    t = _kind(_dt.torch_name(_dt.to_paddle(to)))
    # torch's canCast: no complex -> real, no float -> integral, only bool -> bool
    return f == 0 if t == 0 else f <= t


@torch_function("torch.vander")
def vander(x, N=None, increasing=False):
    if x.ndim != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    name = _dt.torch_name(x.dtype)
    if name == "bool" or not (name.startswith(("float", "bfloat", "complex"))):
        x = x.astype("int64")  # torch: promote_types(x, long)
    if n == 0:
        return paddle.zeros([x.shape[0], 0], dtype=x.dtype)
    cols = [paddle.ones_like(x)]
    for _ in range(1, n):
        cols.append(cols[-1] * x)  # torch's cumprod of [1, x, x, ...]
    if not increasing:
        cols.reverse()
    return paddle.stack(cols, axis=1)
