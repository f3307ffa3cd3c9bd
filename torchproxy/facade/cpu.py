"""``torch.cpu``: torch's device-agnostic CPU module (torch/cpu/__init__.py).

Code that picks ``getattr(torch, device)`` by the Triton backend's name (flash-linear-attention's
``fla.utils.hardware``: ``'cpu'`` under Triton's interpreter) calls ``current_device()``,
``device_count()``, ``is_available()`` and the stream helpers on it.  Torch's versions exist
"to facilitate device-agnostic code" and do nothing on the CPU; so do these, with torch's
values: one CPU device named ``"cpu"``, always available and initialised, a no-op
``synchronize`` (Paddle's CPU kernels finish before they return), a current-stream slot that
``stream()`` / ``StreamContext`` switch and restore, ``Event`` that is always complete.
``torch.cpu.get_capabilities`` (torch's cpuinfo flags) is in gaps.toml."""
from __future__ import annotations

from .registry import module, torch_function, type_

from .registry import manifest

NAMES = manifest("""
    torch: cpu
    torch.cpu: Event Stream StreamContext current_device current_stream device_count is_available
        is_initialized set_device stream synchronize
""")

module("torch.cpu")


@torch_function("torch.cpu.is_available")
def is_available() -> bool:
    """The CPU is always available."""
    return True


@torch_function("torch.cpu.is_initialized")
def is_initialized() -> bool:
    return True


@torch_function("torch.cpu.synchronize")
def synchronize(device=None) -> None:
    """Nothing to wait for: Paddle's CPU kernels have finished when they return (``device`` is
    ignored, as torch's: there is one CPU device)."""


@torch_function("torch.cpu.current_device")
def current_device() -> str:
    """``"cpu"`` (a string, as torch's: there is one CPU device)."""
    return "cpu"


@torch_function("torch.cpu.device_count")
def device_count() -> int:
    return 1


@torch_function("torch.cpu.set_device")
def set_device(device) -> None:
    """Torch's does nothing on the CPU (any argument)."""


class Stream:
    """torch.cpu.Stream: a placeholder stream (CPU work is not queued)."""

    def __init__(self, priority: int = -1) -> None:
        pass

    def wait_stream(self, stream) -> None:
        pass

    def record_event(self) -> None:
        pass

    def wait_event(self, event) -> None:
        pass


class Event:
    """torch.cpu.Event: always complete."""

    def query(self) -> bool:
        return True

    def record(self, stream=None) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, stream=None) -> None:
        pass


type_("torch.cpu.Stream", Stream)
type_("torch.cpu.Event", Event)

_default_cpu_stream = Stream()
_current_stream = _default_cpu_stream


@torch_function("torch.cpu.current_stream")
def current_stream(device=None) -> Stream:
    """The stream selected by ``torch.cpu.stream(...)``, else the default CPU stream."""
    return _current_stream


class StreamContext:
    """Selects ``stream`` as the current CPU stream inside the ``with`` block (None: no change)."""

    def __init__(self, stream):
        self.stream = stream
        self.prev_stream = _default_cpu_stream

    def __enter__(self):
        global _current_stream
        if self.stream is None:
            return None
        self.prev_stream = _current_stream
        _current_stream = self.stream
        return None

    def __exit__(self, *exc) -> None:
        global _current_stream
        if self.stream is None:
            return
        _current_stream = self.prev_stream


type_("torch.cpu.StreamContext", StreamContext)


@torch_function("torch.cpu.stream")
def stream(stream) -> StreamContext:
    return StreamContext(stream)
