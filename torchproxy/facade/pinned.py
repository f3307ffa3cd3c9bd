"""Page-locked (pinned) host memory as torch's builds make it: ``pin_memory=`` of the creation
functions (checked and applied through ``check``/``pin``), ``Tensor.pin_memory()`` and
``Tensor.is_pinned()``.

torch's pinned tensors are CPU tensors (``x.device`` is cpu, ``x.is_pinned()`` True) whose
storage comes from the CUDA host allocator; Paddle's live in ``CUDAPinnedPlace``, which the facade
already reads as the CPU device (device.device_of_place).  A CUDA build of Paddle that sees a GPU
pins as torch's CUDA build does; without one, ``pin_memory=True`` is refused with the RuntimeError
of torch's CPU build (it has no pinned allocator).  Pinning copies: Paddle has no pinned
allocation kernels (empty/full/random) to make the result in place, so the creation functions
make their CPU result and copy it into pinned memory (Paddle's ``Tensor.pin_memory``), a cost
paid only by ``pin_memory=True`` calls.  torch's own checks come first (a device other than the
CPU: "Only dense CPU tensors can be pinned"), so nothing is drawn or allocated before them.

What differs (gaps.toml): Paddle computes on pinned tensors with GPU kernels and returns GPU
tensors (``pinned * 2`` is a CUDA tensor; torch's is a CPU one), and moves the pinned input itself
to the GPU as it does so (Paddle 2.6.2 alone does the same: docs/results/
gpu-h100-pinned-session13.txt); a view of pinned memory (``paddle.as_strided``, a transpose,
slicing, reshape) is a GPU tensor too, so empty_strided with other than row-major
strides and empty_permuted refuse pin_memory=True by name.  Pinned tensors are for what torch
code uses them for: staging host data for (non-blocking) copies to the GPU.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.Tensor: is_pinned pin_memory
""")

import paddle

from ..paddle_shims import has_cuda
from .device import device_of_place, to_place
from .registry import tensor_method
from .tensor import original as _original

_paddle_pin_memory = _original("pin_memory")

# torch's messages: its CPU build (no accelerator) and empty_cuda's refusal of a pinned result
NO_ALLOCATOR = ("pin_memory=True requires a CUDA or other accelerator backend; no pinned memory "
                "allocator is available on this system.")
NOT_CPU = "Only dense CPU tensors can be pinned"


def check(pin_memory, fn: str, device=None) -> bool:
    """``pin_memory=`` as torch takes it (bool or None): False to leave the result alone, True
    where it is to be pinned (``pin``); torch's errors otherwise.  ``device``: the call's device
    argument where torch refuses a pinned result off the CPU (None: the CPU, torch's default)."""
    if pin_memory is None or pin_memory is False:
        return False
    if pin_memory is not True:
        raise TypeError(f"{fn}(): argument 'pin_memory' must be bool, not "
                        f"{type(pin_memory).__name__}")
    if not has_cuda():
        raise RuntimeError(NO_ALLOCATOR)
    if device is not None:
        if device_of_place(to_place(device)).type != "cpu":  # (a pinned place reads as the CPU)
            raise RuntimeError(NOT_CPU)
    return True


def pin(t):
    """``t``, a CPU tensor a creation function just made, copied into pinned memory: a leaf with
    t's requires_grad, as torch's pinned creation results are."""
    if t.place.is_cuda_pinned_place():
        return t
    p = _paddle_pin_memory(t.detach())
    p.stop_gradient = t.stop_gradient
    return p


@tensor_method("is_pinned")
def is_pinned(self, device=None):
    return self.place.is_cuda_pinned_place()


_LEGACY = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
           "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
           "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
           "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
           "complex128": "ComplexDoubleTensor"}


class _Pin(paddle.autograd.PyLayer):
    """The pinned copy of a tensor that records a graph: torch's pin_memory is differentiable
    (the gradient reaches the source as it is)."""

    @staticmethod
    def forward(ctx, x):
        return _paddle_pin_memory(x.detach())

    @staticmethod
    def backward(ctx, g):
        return g if g.place.is_cpu_place() else g.cpu()


@tensor_method("pin_memory", note="a copy in Paddle's CUDAPinnedPlace (a CPU tensor to torch)")
def pin_memory(self, device=None):
    if not has_cuda():
        # torch's CPU build: pinning needs an accelerator
        raise RuntimeError("Cannot access accelerator device when none is available.")
    place = self.place
    if place.is_cuda_pinned_place():
        return self  # torch returns the tensor itself
    if not place.is_cpu_place():
        name = str(self.dtype).rsplit(".", 1)[-1]
        raise RuntimeError(f"cannot pin 'torch.cuda.{_LEGACY.get(name, name)}' only dense CPU "
                           f"tensors can be pinned")
    if not self.stop_gradient and paddle.is_grad_enabled():
        return _Pin.apply(self)
    return _paddle_pin_memory(self)
