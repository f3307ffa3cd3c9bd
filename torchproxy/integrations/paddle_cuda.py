"""Paddle's CUDA runtime state, as the few fast functions a kernel launcher needs (Triton asks
for device and stream on every launch, for the capability once per device).

They live in the one Paddle layer, :mod:`torchproxy.paddle_shims` (they call Paddle's C++
bindings directly instead of the Python wrappers in ``paddle.device.cuda``, which build a
Python ``Stream`` object per call); this module re-exports them for the launchers.
"""
from __future__ import annotations

from ..paddle_shims import (cached_stream_handle, capability, current_device,  # noqa: F401
                            current_stream_handle, empty, gpu_index, has_cuda, set_device,
                            synchronize)
