"""``torch.accelerator`` (torch's device-agnostic view of "the" accelerator: CUDA where Paddle has
it, none on a CPU build) and ``torch.Stream`` on the CPU.

Probes for accelerators Paddle does not drive (``torch.npu``, ``torch.musa``, ``torch.hpu``,
``torch.mlu``) are deliberately absent: real torch without the vendor plug-in has no such
attribute, so ``hasattr(torch, "npu")`` is False on both (the facade's NotProvidedError is an
AttributeError), which is how Hugging Face transformers and accelerate probe them.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: Stream accelerator
    torch.accelerator: current_accelerator current_device_idx current_device_index device_count
        is_available set_device_idx set_device_index synchronize
""")

import paddle

from . import cuda as _cuda
from .device import device as _device
from ..errors import NotProvidedError
from .registry import module, torch_function, type_

module("torch.accelerator")

_NONE = "Cannot access accelerator device when none is available."  # torch's message


@torch_function("torch.accelerator.device_count")
def device_count() -> int:
    return _cuda.device_count()


@torch_function("torch.accelerator.is_available")
def is_available() -> bool:
    return device_count() > 0


@torch_function("torch.accelerator.current_accelerator",
                note="CUDA on Paddle's CUDA builds, None otherwise (Paddle's XPU/custom "
                     "devices are not reported)")
def current_accelerator(check_available: bool = False):
    if not paddle.is_compiled_with_cuda() or (check_available and not is_available()):
        return None
    return _device("cuda")


def _need_one():
    if not is_available():
        raise RuntimeError(_NONE)


@torch_function("torch.accelerator.current_device_index")
def current_device_index() -> int:
    _need_one()
    return _cuda.current_device()


@torch_function("torch.accelerator.set_device_index")
def set_device_index(device) -> None:
    _need_one()
    _cuda.set_device(device)


@torch_function("torch.accelerator.synchronize")
def synchronize(device=None) -> None:
    _need_one()
    _cuda.synchronize(device)


# torch's older spellings of the same two functions
torch_function("torch.accelerator.current_device_idx")(current_device_index)
torch_function("torch.accelerator.set_device_idx")(set_device_index)


class Stream:
    """torch.Stream on the CPU: CPU work runs in program order, so it is always idle
    (``query()`` True) and synchronizing or waiting on it has nothing to wait for.  An
    accelerator stream is ``torch.cuda.Stream``."""
    __slots__ = ()
    device_type, device_index, stream_id = 0, -1, 0  # device_type: c10::DeviceType, CPU = 0

    def __init__(self, device=None, *, priority: int = 0, **kwargs):
        kind = _device(device).type if device is not None else (
            "cuda" if is_available() else "cpu")
        if kind != "cpu":
            raise NotProvidedError(f"torch.Stream on {kind} (torch.cuda.Stream is provided)")

    @property
    def device(self):
        return _device("cpu")

    def query(self) -> bool:
        return True

    def synchronize(self) -> None:
        return None

    def wait_stream(self, stream) -> None:
        return None

    def __eq__(self, other):
        return isinstance(other, Stream)

    def __hash__(self):
        return hash(("cpu", -1, 0))

    def __repr__(self):
        return "torch.Stream device_type=cpu, device_index=-1, stream_id=0"


Stream.__module__ = "torch"
type_("torch.Stream", Stream,
      note="the CPU stream (always idle); on a CUDA machine torch.Stream() raises "
           "NotProvidedError: use torch.cuda.Stream")
