"""The CUDA part of the one Paddle layer (torchproxy/paddle_shims.py re-exports every name here;
import them from paddle_shims): the CUDA runtime's core bindings, and CUDA events through the
driver library (libcuda) for Paddle 2.6.  The same rules as paddle_shims.py: each shim says why
it is needed and when it can go; tests/facade_runtime/test_paddle_shims.py treats this module as
part of that layer.  Split from paddle_shims.py to keep the layer's files readable (issue 21).
"""
from __future__ import annotations

import ctypes
import threading

from paddle.base import core as _core


# ================================================================================================
# CUDA runtime (core bindings; Paddle's paddle.device.cuda wrappers build Python objects per call)
# Each reads the binding at call time: CPU builds lack them (and tests stand in for them).
# ================================================================================================
def cuda_device_count() -> int:
    return _core.get_cuda_device_count()


def cuda_current_device_id() -> int:
    return _core.get_cuda_current_device_id()


def set_cuda_current_device_id(index: int) -> bool:
    """cudaSetDevice through Paddle (GPU builds); False where the build has no such binding."""
    fn = getattr(_core, "set_cuda_current_device_id", None)
    if fn is None:
        return False
    fn(int(index))
    return True


def cuda_device_properties(index: int):
    return _core.get_device_properties(index)


def current_stream(index: int):
    """Paddle's current CUDA stream object of device ``index`` (``core._get_current_stream``):
    the one ``paddle.device.stream_guard`` set, else the device context's."""
    return _core._get_current_stream(index)


def dlpack_capsule(x):
    """A legacy DLPack capsule of a Paddle tensor: what ``paddle.utils.dlpack.to_dlpack(x)``
    returns in dygraph mode, without its wrapping: Paddle 2.6's ``to_dlpack`` calls
    ``x.value()``, which returns ``x`` but is wrapped by ``@dygraph_only`` (the ``decorator``
    package binds the signature on every call: 3.4 of the 5.9 us per tensor measured on an
    H100 host).  ``Tensor.get_tensor()._to_dlpack()`` is the call it ends in (2.6 and 3.x).
    Remove with 2.6 support (3.x tensors have ``__dlpack__``)."""
    return x.get_tensor()._to_dlpack()


def device_synchronize(index: int) -> None:
    _core._device_synchronize(index)


def cuda_event(enable_timing: bool, blocking: bool, interprocess: bool):
    """Paddle's CUDA event (``core.CUDAEvent``; the same constructor on 2.6 and 3.x)."""
    return _core.CUDAEvent(bool(enable_timing), bool(blocking), bool(interprocess))


def cuda_event_can_time() -> bool:
    """Paddle 2.6's CUDAEvent has no elapsed_time (torch.cuda.Event then uses DriverEvent
    below).  Remove, with DriverEvent, when 2.6 support is dropped."""
    return hasattr(_core.CUDAEvent, "elapsed_time")


def cuda_empty_cache() -> None:
    _core.cuda_empty_cache()


def reset_peak_memory(index: int) -> bool:
    """Reset Paddle's peak allocated/reserved counters of a device; False where the build has
    no such binding (Paddle < 3.0).  Remove the fallback when 2.6 support is dropped."""
    reset = getattr(_core, "device_memory_stat_reset_peak_value", None)
    if reset is None:
        return False
    for stat in ("Allocated", "Reserved"):
        reset(stat, int(index))
    return True


def is_cuda_graph_capturing() -> bool:
    return bool(_core.is_cuda_graph_capturing())


def nvtx(name: str):
    """``core.nvprof_nvtx_push`` / ``nvprof_nvtx_pop`` (GPU builds), else None."""
    return getattr(_core, name, None)


# ================================================================================================
# CUDA events through the driver API (libcuda), for Paddle 2.6 whose CUDAEvent cannot time.
# torch.cuda.Event(enable_timing=True).elapsed_time is what triton.testing.do_bench and every
# kernel benchmark call.  The driver library ships with the GPU driver (libcuda.so.1); events
# are created in the current context and recorded on the raw stream handle.  Formerly
# torchproxy/integrations/cuda_events.py (which re-exports them).
# Remove when Paddle 2.6 support is dropped (3.x's CUDAEvent has elapsed_time).
# ================================================================================================
_lib = None
_lib_lock = threading.Lock()

CU_EVENT_DEFAULT = 0x0
CU_EVENT_BLOCKING_SYNC = 0x1
CU_EVENT_DISABLE_TIMING = 0x2
CUDA_ERROR_NOT_READY = 600


class CudaDriverError(RuntimeError):
    pass


def _driver():
    global _lib
    if _lib is None:
        with _lib_lock:
            if _lib is None:
                try:
                    lib = ctypes.CDLL("libcuda.so.1")
                except OSError as e:
                    raise CudaDriverError(
                        f"the CUDA driver library libcuda.so.1 is not loadable: {e}") from e
                _check(lib, lib.cuInit(0), "cuInit")
                _lib = lib
    return _lib


def _check(lib, code: int, what: str) -> None:
    if code != 0:
        name = ctypes.c_char_p()
        lib.cuGetErrorName(code, ctypes.byref(name))
        raise CudaDriverError(f"{what} failed: {name.value.decode() if name.value else code}")


def _ensure_context(device_index: int) -> None:
    """Make the device's primary context current if no context is (what cudart does)."""
    lib = _driver()
    ctx = ctypes.c_void_p()
    _check(lib, lib.cuCtxGetCurrent(ctypes.byref(ctx)), "cuCtxGetCurrent")
    if not ctx.value:
        dev = ctypes.c_int()
        _check(lib, lib.cuDeviceGet(ctypes.byref(dev), device_index), "cuDeviceGet")
        _check(lib, lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev),
               "cuDevicePrimaryCtxRetain")
        _check(lib, lib.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")


class DriverEvent:
    """One CUevent: record(stream_handle), query, synchronize, elapsed_ms(end), wait_by(stream)."""

    def __init__(self, device_index: int, enable_timing: bool, blocking: bool):
        lib = _driver()
        _ensure_context(device_index)
        flags = (0 if enable_timing else CU_EVENT_DISABLE_TIMING) | (
            CU_EVENT_BLOCKING_SYNC if blocking else 0)
        self._event = ctypes.c_void_p()
        _check(lib, lib.cuEventCreate(ctypes.byref(self._event), flags), "cuEventCreate")
        self._lib = lib

    def record(self, stream_handle: int) -> None:
        _check(self._lib, self._lib.cuEventRecord(self._event, ctypes.c_void_p(stream_handle)),
               "cuEventRecord")

    def query(self) -> bool:
        code = self._lib.cuEventQuery(self._event)
        if code == CUDA_ERROR_NOT_READY:
            return False
        _check(self._lib, code, "cuEventQuery")
        return True

    def synchronize(self) -> None:
        _check(self._lib, self._lib.cuEventSynchronize(self._event), "cuEventSynchronize")

    def elapsed_ms(self, end: "DriverEvent") -> float:
        ms = ctypes.c_float()
        _check(self._lib, self._lib.cuEventElapsedTime(ctypes.byref(ms), self._event, end._event),
               "cuEventElapsedTime")
        return float(ms.value)

    def wait_by(self, stream_handle: int) -> None:
        _check(self._lib, self._lib.cuStreamWaitEvent(ctypes.c_void_p(stream_handle),
                                                      self._event, 0), "cuStreamWaitEvent")

    def __del__(self):
        lib, ev = getattr(self, "_lib", None), getattr(self, "_event", None)
        if lib is not None and ev is not None and ev.value:
            lib.cuEventDestroy_v2(ev)
