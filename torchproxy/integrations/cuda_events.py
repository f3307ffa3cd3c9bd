"""CUDA events through the driver API (libcuda), for Paddle builds whose event cannot time.

Paddle 2.6's ``core.CUDAEvent`` has record/query/synchronize but no ``elapsed_time``, and
``torch.cuda.Event(enable_timing=True).elapsed_time`` is what ``triton.testing.do_bench`` and
every kernel benchmark call.  The driver library ships with the GPU driver (``libcuda.so.1``),
so it is there wherever a GPU is; events are created in the current context (Paddle's runtime
made the device's primary context current), and recorded on the raw stream handle.
"""
from __future__ import annotations

import ctypes
import threading

_lib = None
_lock = threading.Lock()

CU_EVENT_DEFAULT = 0x0
CU_EVENT_BLOCKING_SYNC = 0x1
CU_EVENT_DISABLE_TIMING = 0x2
CUDA_ERROR_NOT_READY = 600


class CudaDriverError(RuntimeError):
    pass


def _driver():
    global _lib
    if _lib is None:
        with _lock:
            if _lib is None:
                try:
                    lib = ctypes.CDLL("libcuda.so.1")
                except OSError as e:
                    raise CudaDriverError(f"the CUDA driver library libcuda.so.1 is not loadable: {e}") from e
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
        _check(lib, lib.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev), "cuDevicePrimaryCtxRetain")
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
        _check(self._lib, self._lib.cuStreamWaitEvent(ctypes.c_void_p(stream_handle), self._event, 0),
               "cuStreamWaitEvent")

    def __del__(self):
        lib, ev = getattr(self, "_lib", None), getattr(self, "_event", None)
        if lib is not None and ev is not None and ev.value:
            lib.cuEventDestroy_v2(ev)
