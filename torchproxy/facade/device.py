"""torch.device: a real type of ours, and the conversions to and from Paddle places.

``torch.device`` must be a class (``isinstance(x.device, torch.device)``, ``int | torch.device``
annotations, hashing, equality), and Paddle has no such value type (a ``Place`` is mutable and
compares with ``_equals``).  Each device caches the Paddle place it stands for, so a creation
call with ``device=x.device`` converts in one attribute read.  ``"cuda"`` without an index means
the *current* device when a place is needed, as in torch; the object itself keeps
``index=None``.
"""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: device get_default_device
    torch.Tensor: device is_cuda is_meta is_xpu
""")

import paddle

from ..paddle_shims import UNDEFINED_PLACE_TYPE, expected_place, generic_place, is_meta
from .registry import torch_function, tensor_method, type_

# torch's list (the RuntimeError text names them all, as torch's does)
_TYPES = ("cpu", "cuda", "ipu", "xpu", "mkldnn", "opengl", "opencl", "ideep", "hip", "ve",
          "fpga", "maia", "xla", "lazy", "vulkan", "mps", "meta", "hpu", "mtia", "privateuseone")


def _has_cuda() -> bool:
    return paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0


class device:
    """torch.device(type[, index]) / torch.device("cuda:1") / torch.device(other_device)."""

    __slots__ = ("type", "index", "_place")

    def __init__(self, type=None, index=None):  # noqa: A002 - torch's parameter names
        if isinstance(type, device):
            if index is not None:
                raise TypeError("torch.device(device) takes no index")
            self.type, self.index, self._place = type.type, type.index, type._place
            return
        if _is_place(type):
            d = device_of_place(type)
            self.type, self.index, self._place = d.type, d.index, None
            return
        if isinstance(type, int) and not isinstance(type, bool) and index is None:
            # torch.device(0): the current accelerator's device 0
            if not _has_cuda():
                raise RuntimeError("Cannot access accelerator device when none is available.")
            type, index = "cuda", type
        if not isinstance(type, str):
            raise TypeError(f"device() received an invalid combination of arguments - got "
                            f"({type.__class__.__name__})")
        kind, sep, idx = type.partition(":")
        if kind not in _TYPES:
            raise RuntimeError(f"Expected one of {', '.join(_TYPES)} device type at start of "
                               f"device string: {type}")
        if sep:
            if index is not None:
                raise RuntimeError("type (string) must not include an index because index was "
                                   f"passed explicitly: {type}")
            if not idx.isdigit() or (len(idx) > 1 and idx[0] == "0"):
                raise RuntimeError(f"Invalid device string: '{type}'")
            index = int(idx)
        if index is not None:
            if isinstance(index, bool) or not isinstance(index, int):
                raise TypeError(f"device(): argument 'index' must be int, not "
                                f"{index.__class__.__name__}")
            if index < 0:
                raise RuntimeError("Device index must not be negative")
        self.type, self.index, self._place = kind, index, None

    def __eq__(self, other):
        if other.__class__ is not device:
            return NotImplemented
        return self.type == other.type and self.index == other.index

    def __hash__(self):
        return hash((self.type, self.index))

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __repr__(self):
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __reduce__(self):
        return (device, (self.type, self.index))


type_("torch.device", device)

_PLACE_TYPES = tuple(t for t in (getattr(paddle, n, None) for n in (
    "CPUPlace", "CUDAPlace", "CUDAPinnedPlace", "XPUPlace", "CustomPlace", "IPUPlace"))
    if isinstance(t, type))


def _is_place(obj) -> bool:
    return isinstance(obj, _PLACE_TYPES) or type(obj).__name__ == "Place"


CPU = device("cpu")
META = device("meta")
_CUDA: dict[int, device] = {}


def _cuda(i: int) -> device:
    d = _CUDA.get(i)
    if d is None:
        d = _CUDA[i] = device("cuda", i)
    return d


_KIND_OF_TYPE: dict = {}  # Place._type() number -> "cpu" / "cuda", learnt by device_of_place


def device_of_place(place) -> device:
    """A Paddle place -> torch.device (pinned host memory is a CPU device, as in torch)."""
    # fast path: one pybind call (``_type()``, Paddle's AllocationType number) instead of up
    # to three is_*_place() calls; the numbers are learnt from the slow path below, not
    # assumed, so a Paddle that renumbers them only loses the fast path
    kind = _KIND_OF_TYPE.get(place._type()) if hasattr(place, "_type") else None
    if kind is not None:
        if kind == "cpu":
            return CPU
        # a generic Place answers gpu_device_id(); a paddle.CUDAPlace (what .cuda() and
        # to("cuda") build) only get_device_id()
        index = getattr(place, "gpu_device_id", None) or place.get_device_id
        return _cuda(index())
    if kind is None and hasattr(place, "_type") and place._type() == UNDEFINED_PLACE_TYPE:
        return META  # a storage-less tensor (paddle_shims.meta_tensor)
    if not hasattr(place, "is_gpu_place"):  # paddle.CPUPlace() etc.: make a generic Place
        place = generic_place(place)
    if place.is_gpu_place():
        _KIND_OF_TYPE[place._type()] = "cuda"
        return _cuda(place.gpu_device_id())
    if place.is_cpu_place() or place.is_cuda_pinned_place():
        _KIND_OF_TYPE[place._type()] = "cpu"
        return CPU
    if place.is_xpu_place():
        return device("xpu", place.xpu_device_id())
    if place.is_custom_place():
        return device(place.custom_device_type(), place.custom_device_id())
    raise RuntimeError(f"no torch device for Paddle place {place}")


def current_cuda_index() -> int:
    if not _has_cuda():
        # torch's CPU build raises AssertionError from torch.cuda._lazy_init
        raise AssertionError("Torch not compiled with CUDA enabled")
    p = expected_place()
    # added for Triton: Paddle 2.6's CUDAPlace/CPUPlace (what this returns there) have no
    # is_gpu_place(); only 3.x's places and the generic core.Place do.
    if isinstance(p, paddle.CUDAPlace):
        return p.get_device_id()
    is_gpu = getattr(p, "is_gpu_place", None)
    return p.gpu_device_id() if is_gpu is not None and is_gpu() else 0


def to_place(dev):
    """A device argument of a torch call (torch.device, "cuda:0", 0, Place) -> Paddle place."""
    if dev.__class__ is not device:
        if dev is None:
            return paddle.CPUPlace()  # torch's default device is the CPU
        if _is_place(dev):
            return dev
        if isinstance(dev, str) and dev.startswith("gpu"):  # Paddle spelling from Paddle callers
            dev = "cuda" + dev[3:]
        dev = device(dev)
    place = dev._place
    if place is not None:
        return place
    if dev.type == "cpu":
        place = paddle.CPUPlace()
    elif dev.type == "cuda":
        if dev.index is None:
            return paddle.CUDAPlace(current_cuda_index())  # current device: never cached
        current_cuda_index()  # raises on CPU-only builds, as torch does
        place = paddle.CUDAPlace(dev.index)
    elif dev.type == "xpu":
        place = paddle.XPUPlace(dev.index or 0)
    elif dev.type == "meta":
        # meta tensors are storage-less Paddle tensors made by the few calls that check
        # is_meta_device first (torch.empty/empty_like, Tensor.to, Module.to_empty...); every
        # other call that needs a place for one says so
        raise RuntimeError("torchproxy: this operation does not support the meta device (meta "
                           "tensors come from torch.empty, torch.empty_like and Tensor.to only)")
    else:
        place = paddle.CustomPlace(dev.type, dev.index or 0)
    dev._place = place
    return place


@tensor_method("device")
@property
def device_(self):
    """torch: a torch.device (Paddle 3.3: a string; Paddle 2.6 and 3.0 to 3.2: absent)."""
    place = self.place
    kind = _KIND_OF_TYPE.get(place._type())  # device_of_place's fast path, inline
    if kind == "cpu":
        return CPU
    if kind == "cuda":
        # one torch.device per GPU index (immutable; _CUDA only grows by device count):
        # no second _type() call, no hasattr, no function frame (issue 26: x.device on GPU
        # was 1.40 us against 0.66 on CPU)
        d = _CUDA.get(place.gpu_device_id())
        if d is not None:
            return d
    return device_of_place(place)


def is_meta_device(dev) -> bool:
    """``dev`` (a creation call's ``device=``) names torch's meta device."""
    if dev.__class__ is device:
        return dev.type == "meta"
    return isinstance(dev, str) and dev == "meta"


@tensor_method("is_meta")
@property
def is_meta_(self):
    """torch: the tensor lives on the meta device (here: has no storage, paddle_shims.meta_tensor)."""
    return is_meta(self)


@tensor_method("is_cuda")
@property
def is_cuda(self):
    return self.place.is_gpu_place()


@tensor_method("is_xpu")
@property
def is_xpu(self):
    """pytorch/examples dcgan reads ``input.is_cuda or input.is_xpu`` in every forward."""
    return self.place.is_xpu_place()


@torch_function("torch.get_default_device")
def get_default_device():
    return CPU
