"""Triton's CUDA driver with everything it takes from torch bound to Paddle instead.

Triton's ``CudaDriver`` gets the current device, current stream and capability from torch
(Triton <= 3.7 always; 3.8+ when ``torch`` is in ``sys.modules``, else from the CUDA driver
API with the device's *default* stream), its benchmark device interface from ``torch.cuda``,
and its L2-flush buffer from ``torch.empty`` / ``zero_()``.  ``PaddleCudaDriver`` keeps
Triton's compiler, loader (``utils``) and launcher, and answers those questions from Paddle:
kernels launch on Paddle's current stream, on Paddle's current device.

The cache flush and scratch zeroing use a Triton kernel, not a Paddle op: a Paddle build
without kernels for the GPU's architecture (paddlepaddle-gpu 2.6.2 on sm_90) would silently
do nothing there.
"""
from __future__ import annotations

from functools import cached_property

from triton.backends.nvidia.driver import CudaDriver, CudaLauncher

from . import paddle_cuda


def _zero(buf) -> None:
    from ._triton_zero import zero
    zero(buf)


class PaddleCudaDriver(CudaDriver):
    """Triton's CUDA driver, bound to Paddle's device, stream, allocator and events."""

    def __init__(self):
        # Not CudaDriver.__init__: it binds torch (Triton <= 3.7) or, without torch in
        # sys.modules, the device's default stream (3.8+).  Same attributes, Paddle's answers.
        self.launcher_cls = CudaLauncher
        self.get_current_device = paddle_cuda.current_device
        self.set_current_device = paddle_cuda.set_device
        # asked on every launch: Paddle's handle read once per stream switch
        # (paddle_shims.STREAMS; 0.77 us per read on an H100 host, torch's 0.07)
        self.get_current_stream = paddle_cuda.cached_stream_handle
        self.get_device_capability = paddle_cuda.capability

    @cached_property
    def utils(self):
        # Triton compiles its small CUDA helper module on first use; created on demand so the
        # driver object itself can be built (and tested) on a machine without CUDA.
        from triton.backends.nvidia.driver import CudaUtils
        return CudaUtils()

    @staticmethod
    def is_active():
        return paddle_cuda.has_cuda()

    def get_active_torch_device(self):
        from ..facade.device import device
        return device("cuda", self.get_current_device())

    def get_device_interface(self):
        # the facade's torch.cuda: synchronize/Event/Stream/stream() over Paddle's own
        from ..facade import modules
        return modules.build()["torch.cuda"]

    def get_empty_cache_for_benchmark(self):
        # 256 MB, as Triton's own: larger than any L2, rewritten before each timed run
        return paddle_cuda.empty(256 * 1024 * 1024 // 4, "int32")

    def clear_cache(self, cache):
        _zero(cache)

    def allocate_default_profile_scratch(self, size: int, alignment: int, stream):
        buf = paddle_cuda.empty((int(size) + 3) // 4, "int32")
        _zero(buf)
        return buf

    def __repr__(self):
        return "<torchproxy PaddleCudaDriver>"
