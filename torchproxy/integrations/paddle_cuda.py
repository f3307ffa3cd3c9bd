"""Paddle's CUDA runtime state, as the few fast functions a kernel launcher needs.

Triton asks for these on every launch (device, stream) or once per device (capability), so
they call Paddle's C++ bindings (``paddle.base.core``) directly instead of the Python wrappers
in ``paddle.device.cuda``, which build a Python ``Stream`` object per call.  They read
``core`` attributes at call time, so a test can stand in for the CUDA-only ones on a CPU build.
"""
from __future__ import annotations

import paddle
from paddle.base import core, framework

_expected_place = framework._current_expected_place
_CUDAPlace = core.CUDAPlace
_capability: dict[int, tuple[int, int]] = {}


def has_cuda() -> bool:
    """A CUDA build of Paddle that sees at least one GPU."""
    return paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0


_last_place = [None, 0]  # (Paddle's expected-place object, its device index)


def current_device() -> int:
    """Paddle's current GPU: the expected place when it is a GPU (``paddle.set_device``),
    else the CUDA runtime's current device."""
    # Triton asks on every launch.  paddle.set_device replaces the expected-place object, so
    # the object's identity says whether the cached answer still holds (one global read).
    place = framework._global_expected_place_
    if place is not None and place is _last_place[0]:
        return _last_place[1]
    idx = _gpu_index(_expected_place())
    if idx is None:  # the expected place is not a GPU: the CUDA runtime's own current device
        return core.get_cuda_current_device_id()
    _last_place[0], _last_place[1] = framework._global_expected_place_, idx
    return idx


def _gpu_index(place):
    if isinstance(place, _CUDAPlace):  # Paddle 2.6's CUDAPlace has only get_device_id()
        return place.get_device_id()
    if getattr(place, "is_gpu_place", None) is not None and place.is_gpu_place():
        return place.gpu_device_id()  # a generic core.Place (or any 3.x place)
    return None


def set_device(index: int) -> None:
    paddle.device.set_device(f"gpu:{int(index)}")


def current_stream_handle(device: int) -> int:
    """The raw ``cudaStream_t`` (an int) Paddle launches its own kernels on, for ``device``:
    the stream set by ``paddle.device.stream_guard``/``set_stream``, else the device
    context's stream.  Triton launches on what this returns."""
    return core._get_current_stream(device).cuda_stream


def capability(device: int) -> tuple[int, int]:
    cap = _capability.get(device)
    if cap is None:
        prop = paddle.device.cuda.get_device_properties(device)
        cap = _capability[device] = (prop.major, prop.minor)
    return cap


def synchronize(device: int | None = None) -> None:
    core._device_synchronize(current_device() if device is None else device)


def empty(numel: int, dtype: str = "uint8", device: int | None = None):
    """Uninitialised 1-D Paddle GPU tensor.  Allocation only: no Paddle kernel runs, so it
    works even where Paddle's build has no kernels for the GPU's architecture."""
    place = paddle.CUDAPlace(current_device() if device is None else device)
    with framework._dygraph_place_guard(place):
        return paddle.empty([int(numel)], dtype=dtype)
