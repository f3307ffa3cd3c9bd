"""``torch.autocast`` / ``torch.amp`` (autocast, custom_fwd/custom_bwd) and torch's autocast state
functions, on the facade's own autocast (facade/_autocast.py: the state and torch's per-op CPU
casting lists, applied where ops are registered).

torch's rules kept here (torch/amp/autocast_mode.py): ``autocast(device_type, dtype=None,
enabled=True, cache_enabled=None)`` is a context manager and a decorator; the default dtype is
``get_autocast_dtype(device_type)`` (bfloat16 on the CPU, float16 on CUDA); entering saves and
sets the device's enabled flag, dtype and the cache flag, and exiting restores them, so regions
nest; a CPU dtype other than bfloat16/float16 warns and disables; ``autocast("cuda")`` without
CUDA warns "CUDA is not available or torch_xla is imported. Disabling autocast.";
``torch.cpu.amp.autocast`` / ``torch.cuda.amp.autocast`` are the deprecated spellings (a
FutureWarning at construction).  The weight cache (``cache_enabled``) is kept as a flag only: it
saves re-casting a weight within one region and changes no value.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: amp autocast_decrement_nesting autocast_increment_nesting clear_autocast_cache
        get_autocast_cpu_dtype get_autocast_dtype get_autocast_gpu_dtype is_autocast_cache_enabled
        is_autocast_cpu_enabled is_autocast_enabled set_autocast_cache_enabled
        set_autocast_cpu_dtype set_autocast_cpu_enabled set_autocast_dtype set_autocast_enabled
        set_autocast_gpu_dtype
    torch.amp: autocast custom_bwd custom_fwd is_autocast_available
    torch.amp.autocast_mode: autocast_decorator
    torch.cpu: amp
    torch.cpu.amp: autocast
    torch.cuda: amp
    torch.cuda.amp: autocast custom_bwd custom_fwd
""")

import collections.abc
import functools
import warnings

import numpy as np
import paddle

from . import _autocast
from ..errors import NotProvidedError
from .registry import module, torch_function, type_

_STATE = _autocast.STATE

# torch's device-type names (c10::DeviceType); autocast state is kept for each, ops are cast
# for the CPU (and CUDA, see autocast.__init__)
_DEVICE_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip",
                 "ve", "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia",
                 "privateuseone")
_OTHER_ENABLED: dict = {}   # per device types the facade never casts for: (thread-shared) flags
_OTHER_DTYPE: dict = {}


def _check_device_type(device_type, fn):
    if not isinstance(device_type, str):
        raise TypeError(f"{fn}(): argument 'device_type' (position 1) must be str, not "
                        f"{type(device_type).__name__}")
    if device_type.split(":")[0] not in _DEVICE_TYPES:
        raise RuntimeError(f"Expected one of {', '.join(_DEVICE_TYPES[:-1])}, privateuseone "
                           f"device type at start of device string: {device_type}")
    return device_type.split(":")[0]


def _check_bool(value, fn, name, pos):
    if not isinstance(value, bool):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be bool, not "
                        f"{type(value).__name__}")


def _check_dtype(dtype, fn):
    from .dtypes import DTYPE_TYPE
    if not isinstance(dtype, DTYPE_TYPE):
        raise TypeError(f"{fn}(): argument 'dtype' (position 2) must be torch.dtype, not "
                        f"{type(dtype).__name__}")


# -- the state functions (torch/csrc/autograd/init.cpp) ----------------------------------------
@torch_function("torch.is_autocast_enabled")
def is_autocast_enabled(device_type="cuda") -> bool:
    d = _check_device_type(device_type, "is_autocast_enabled")
    if d in _autocast.DEVICE_TYPES:
        return _STATE.enabled[d]
    return _OTHER_ENABLED.get(d, False)


@torch_function("torch.set_autocast_enabled")
def set_autocast_enabled(device_type, enabled=None):
    if enabled is None:  # the legacy form set_autocast_enabled(enabled): CUDA's
        device_type, enabled = "cuda", device_type
        _check_bool(enabled, "set_autocast_enabled", "enabled", 1)
    else:
        _check_bool(enabled, "set_autocast_enabled", "enabled", 2)
    d = _check_device_type(device_type, "set_autocast_enabled")
    if d in _autocast.DEVICE_TYPES:
        _autocast.set_enabled(d, enabled)
    else:
        _OTHER_ENABLED[d] = enabled


@torch_function("torch.get_autocast_dtype")
def get_autocast_dtype(device_type):
    d = _check_device_type(device_type, "get_autocast_dtype")
    if d in _autocast.DEVICE_TYPES:
        return _STATE.dtype[d]
    return _OTHER_DTYPE.get(d, paddle.float16 if d != "xla" else paddle.bfloat16)


@torch_function("torch.set_autocast_dtype")
def set_autocast_dtype(device_type, dtype):
    d = _check_device_type(device_type, "set_autocast_dtype")
    _check_dtype(dtype, "set_autocast_dtype")
    if d in _autocast.DEVICE_TYPES:
        _STATE.dtype[d] = dtype
    else:
        _OTHER_DTYPE[d] = dtype


def _deprecated(old, new, stacklevel=3):
    # stacklevel: the frame of the torch function's caller (4 from the _legacy_* helpers)
    warnings.warn(f"torch.{old}() is deprecated. Please use torch.{new} instead.",
                  DeprecationWarning, stacklevel=stacklevel)


@torch_function("torch.is_autocast_cpu_enabled")
def is_autocast_cpu_enabled() -> bool:
    _deprecated("is_autocast_cpu_enabled", "is_autocast_enabled('cpu')")
    return _STATE.enabled["cpu"]


@torch_function("torch.set_autocast_cpu_enabled")
def set_autocast_cpu_enabled(enabled):
    _deprecated("set_autocast_cpu_enabled", "set_autocast_enabled('cpu', enabled)")
    _check_bool(enabled, "set_autocast_cpu_enabled", "enabled", 1)
    _autocast.set_enabled("cpu", enabled)


def _legacy_get_dtype(device, fn):
    """The deprecated per-device getters (torch.get_autocast_cpu_dtype/_gpu_dtype)."""
    _deprecated(fn, f"get_autocast_dtype('{device}')", stacklevel=4)
    return _STATE.dtype[device]


def _legacy_set_dtype(device, dtype, fn):
    """The deprecated per-device setters (torch.set_autocast_cpu_dtype/_gpu_dtype)."""
    _deprecated(fn, f"set_autocast_dtype('{device}', dtype)", stacklevel=4)
    _check_dtype(dtype, fn)
    _STATE.dtype[device] = dtype


@torch_function("torch.get_autocast_cpu_dtype")
def get_autocast_cpu_dtype():
    return _legacy_get_dtype("cpu", "get_autocast_cpu_dtype")


@torch_function("torch.set_autocast_cpu_dtype")
def set_autocast_cpu_dtype(dtype):
    _legacy_set_dtype("cpu", dtype, "set_autocast_cpu_dtype")


@torch_function("torch.get_autocast_gpu_dtype")
def get_autocast_gpu_dtype():
    return _legacy_get_dtype("cuda", "get_autocast_gpu_dtype")


@torch_function("torch.set_autocast_gpu_dtype")
def set_autocast_gpu_dtype(dtype):
    _legacy_set_dtype("cuda", dtype, "set_autocast_gpu_dtype")


@torch_function("torch.is_autocast_cache_enabled")
def is_autocast_cache_enabled() -> bool:
    return _STATE.cache_enabled


@torch_function("torch.set_autocast_cache_enabled")
def set_autocast_cache_enabled(enabled):
    _check_bool(enabled, "set_autocast_cache_enabled", "enabled", 1)
    _STATE.cache_enabled = enabled


@torch_function("torch.clear_autocast_cache")
def clear_autocast_cache():
    """torch drops its cast-weight cache; the facade keeps none."""


@torch_function("torch.autocast_increment_nesting")
def autocast_increment_nesting() -> int:
    _STATE.nesting += 1
    return _STATE.nesting


@torch_function("torch.autocast_decrement_nesting")
def autocast_decrement_nesting() -> int:
    _STATE.nesting -= 1
    return _STATE.nesting


module("torch.amp")


@torch_function("torch.amp.is_autocast_available")
def is_autocast_available(device_type: str) -> bool:
    _check_device_type(device_type, "_is_autocast_available")
    return True


# -- torch.autocast ----------------------------------------------------------------------------
def _cuda_available() -> bool:
    from .cuda import is_available
    return is_available()


@torch_function("torch.amp.autocast_mode.autocast_decorator")
def autocast_decorator(autocast_instance, func):
    @functools.wraps(func)
    def decorate_autocast(*args, **kwargs):
        with autocast_instance:
            return func(*args, **kwargs)
    return decorate_autocast


class autocast:
    """torch.autocast: see the module docstring."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True,
                 cache_enabled: bool | None = None):
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        self.fast_dtype = get_autocast_dtype(device_type) if dtype is None else dtype
        self.device = device_type
        self._cache_enabled = (is_autocast_cache_enabled() if cache_enabled is None
                               else cache_enabled)
        device_supported_dtypes = [paddle.bfloat16, paddle.float16]
        if enabled:
            if self.device == "cuda":
                if not _cuda_available():
                    warnings.warn("CUDA is not available or torch_xla is imported. Disabling "
                                  "autocast.", stacklevel=2)
                    enabled = False
                else:
                    # the per-op lists are torch's CPU ones; CUDA's differ (softmax, layer_norm,
                    # pow... run in float32 there) and are not data here yet
                    raise NotProvidedError("torch.autocast(device_type='cuda') with CUDA "
                                           "available (the facade has torch's CPU op lists only)")
            elif self.device != "cpu":
                raise NotProvidedError(f"torch.autocast(device_type={self.device!r})")
            elif self.fast_dtype not in device_supported_dtypes:
                warnings.warn(
                    "In CPU autocast, but the target dtype is not supported. Disabling autocast.\n"
                    "CPU Autocast only supports dtypes of torch.bfloat16, torch.float16 "
                    "currently.", stacklevel=2)
                enabled = False
        self._enabled = enabled

    def __enter__(self):
        self.prev_cache_enabled = is_autocast_cache_enabled()
        self.prev = is_autocast_enabled(self.device)
        self.prev_fastdtype = get_autocast_dtype(self.device)
        set_autocast_enabled(self.device, self._enabled)
        set_autocast_dtype(self.device, self.fast_dtype)
        autocast_increment_nesting()
        set_autocast_cache_enabled(self._cache_enabled)
        return self

    def __exit__(self, exc_type, exc_val, exc_tb):
        if autocast_decrement_nesting() == 0:
            clear_autocast_cache()
        set_autocast_enabled(self.device, self.prev)
        set_autocast_dtype(self.device, self.prev_fastdtype)
        set_autocast_cache_enabled(self.prev_cache_enabled)
        return False

    def __call__(self, func):
        if not callable(func):
            raise TypeError(
                f"autocast()(func) requires a callable, but got {type(func).__name__}. "
                f"Did you mean to use autocast as a context manager? For example:\n"
                f"    with torch.autocast(device_type=...):\n"
                f"        output = model(input)")
        return autocast_decorator(self, func)


type_("torch.amp.autocast", autocast,
      note="torch's CPU op lists; device_type='cuda' with CUDA present raises NotProvidedError "
           "(CUDA's lists are not data yet); the cast-weight cache is a flag only")


class _DeprecatedAutocast(autocast):
    _DEVICE = ""

    def __init__(self, enabled: bool = True, dtype=None, cache_enabled: bool = True):
        warnings.warn(f"`torch.{self._DEVICE}.amp.autocast(args...)` is deprecated. Please use "
                      f"`torch.amp.autocast('{self._DEVICE}', args...)` instead.",
                      FutureWarning, stacklevel=2)
        super().__init__(self._DEVICE, enabled=enabled, dtype=dtype,
                         cache_enabled=cache_enabled)


class CpuAutocast(_DeprecatedAutocast):
    """torch.cpu.amp.autocast (deprecated): ``torch.amp.autocast("cpu", ...)``."""
    _DEVICE = "cpu"

    def __init__(self, enabled: bool = True, dtype=paddle.bfloat16, cache_enabled: bool = True):
        super().__init__(enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


class CudaAutocast(_DeprecatedAutocast):
    """torch.cuda.amp.autocast (deprecated): ``torch.amp.autocast("cuda", ...)``."""
    _DEVICE = "cuda"

    def __init__(self, enabled: bool = True, dtype=paddle.float16, cache_enabled: bool = True):
        super().__init__(enabled=enabled, dtype=dtype, cache_enabled=cache_enabled)


CpuAutocast.__name__ = CpuAutocast.__qualname__ = "autocast"
CudaAutocast.__name__ = CudaAutocast.__qualname__ = "autocast"
module("torch.cpu.amp")
type_("torch.cpu.amp.autocast", CpuAutocast)
module("torch.cuda.amp")
type_("torch.cuda.amp.autocast", CudaAutocast)


# -- torch.amp.custom_fwd / custom_bwd (torch's code, on the state above) ----------------------
def _cast(value, device_type, dtype):
    if isinstance(value, paddle.Tensor):
        eligible = (value.is_floating_point() and _autocast._device_type(value) == device_type
                    and value.dtype != paddle.float64)
        return value.astype(dtype) if eligible else value
    if isinstance(value, (str, bytes, np.ndarray)):
        return value
    if isinstance(value, collections.abc.Mapping):
        return {_cast(k, device_type, dtype): _cast(v, device_type, dtype)
                for k, v in value.items()}
    if isinstance(value, collections.abc.Iterable):
        iterable = (_cast(v, device_type, dtype) for v in value)
        return type(value)(iterable) if isinstance(value, (list, tuple)) else iterable
    return value


@torch_function("torch.amp.custom_fwd")
def custom_fwd(fwd=None, *, device_type, cast_inputs=None):
    """forward runs under the caller's autocast state, or, with ``cast_inputs`` inside an
    autocast region, on inputs cast to that dtype with autocast off."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if fwd is None:
        return functools.partial(custom_fwd, device_type=device_type, cast_inputs=cast_inputs)

    @functools.wraps(fwd)
    def decorate_fwd(*args, **kwargs):
        args[0]._dtype = get_autocast_dtype(device_type)
        if cast_inputs is None:
            args[0]._fwd_used_autocast = is_autocast_enabled(device_type)
            return fwd(*args, **kwargs)
        autocast_context = is_autocast_enabled(device_type)
        args[0]._fwd_used_autocast = False
        if autocast_context:
            with autocast(device_type=device_type, enabled=False):
                return fwd(*_cast(args, device_type, cast_inputs),
                           **_cast(kwargs, device_type, cast_inputs))
        return fwd(*args, **kwargs)
    return decorate_fwd


@torch_function("torch.amp.custom_bwd")
def custom_bwd(bwd=None, *, device_type):
    """backward runs under the autocast state its forward saw."""
    if not isinstance(device_type, str):
        raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
    if bwd is None:
        return functools.partial(custom_bwd, device_type=device_type)

    @functools.wraps(bwd)
    def decorate_bwd(*args, **kwargs):
        with autocast(device_type=device_type, enabled=args[0]._fwd_used_autocast,
                      dtype=args[0]._dtype):
            return bwd(*args, **kwargs)
    return decorate_bwd


@torch_function("torch.cuda.amp.custom_fwd", note="= torch.amp.custom_fwd(device_type='cuda')")
def cuda_custom_fwd(fwd=None, *, cast_inputs=None):
    warnings.warn("`torch.cuda.amp.custom_fwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_fwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return custom_fwd(fwd, device_type="cuda", cast_inputs=cast_inputs)


@torch_function("torch.cuda.amp.custom_bwd", note="= torch.amp.custom_bwd(device_type='cuda')")
def cuda_custom_bwd(bwd):
    warnings.warn("`torch.cuda.amp.custom_bwd(args...)` is deprecated. Please use "
                  "`torch.amp.custom_bwd(args..., device_type='cuda')` instead.",
                  FutureWarning, stacklevel=2)
    return custom_bwd(bwd, device_type="cuda")
