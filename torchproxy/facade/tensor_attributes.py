"""torch docs "Tensor Attributes" and the Tensor predicates Paddle lacks: ``is_cpu``,
``nbytes``, ``itemsize``, ``is_inference()``, ``is_signed()``, ``is_conj()``, ``is_neg()``,
``is_same_size()`` (and their ``torch.*`` functions).

Paddle has no inference tensors (``torch.inference_mode`` is ``no_grad`` here) and no lazy
conjugate/negative bits (``conj()``/neg views are materialised), so ``is_inference``,
``is_conj`` and ``is_neg`` answer False: true of every Paddle tensor."""
from __future__ import annotations

from . import dtypes as _dt
from .registry import tensor_method, torch_function

from .registry import manifest

NAMES = manifest("""
    torch: is_conj is_inference is_neg is_same_size is_signed
    torch.Tensor: is_conj is_cpu is_inference is_neg is_same_size is_signed itemsize nbytes
""")

_UNSIGNED = ("bool", "uint8", "uint16", "uint32", "uint64")


@tensor_method("is_cpu")
@property
def is_cpu(self):
    return self.place.is_cpu_place()


@tensor_method("itemsize")
@property
def itemsize(self):
    return self.element_size()


@tensor_method("nbytes")
@property
def nbytes(self):
    n = 1
    for d in self.shape:  # (Paddle's shape inside the facade)
        n *= d
    return n * self.element_size()


@torch_function("torch.is_inference", note="always False: Paddle has no inference tensors "
                                           "(torch.inference_mode is no_grad)")
def is_inference(input):
    return False


tensor_method("is_inference", note="see torch.is_inference")(is_inference)


@torch_function("torch.is_conj", note="always False: Paddle's conj() is materialised")
def is_conj(input):
    return False


tensor_method("is_conj", note="see torch.is_conj")(is_conj)


@torch_function("torch.is_neg", note="always False: Paddle has no lazy negative views")
def is_neg(input):
    return False


tensor_method("is_neg", note="see torch.is_neg")(is_neg)


@torch_function("torch.is_signed")
def is_signed(input):
    return _dt.torch_name(input.dtype) not in _UNSIGNED


tensor_method("is_signed")(is_signed)


@torch_function("torch.is_same_size")
def is_same_size(input, other):
    return list(input.shape) == list(other.shape)


tensor_method("is_same_size")(is_same_size)
