"""CUDA events through the driver API (libcuda), for Paddle builds whose event cannot time
(Paddle 2.6).  They live in the one Paddle layer, :mod:`torchproxy.paddle_shims` (removed with
Paddle 2.6 support); this module re-exports them."""
from __future__ import annotations

from ..paddle_shims import (CU_EVENT_BLOCKING_SYNC, CU_EVENT_DEFAULT,  # noqa: F401
                            CU_EVENT_DISABLE_TIMING, CUDA_ERROR_NOT_READY, CudaDriverError,
                            DriverEvent)
