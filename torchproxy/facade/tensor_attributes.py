"""torch docs "Tensor Attributes" and the Tensor predicates Paddle lacks: ``is_cpu``,
``nbytes``, ``itemsize``, ``is_inference()``, ``is_signed()``, ``is_conj()``, ``is_neg()``,
``is_same_size()`` (and their ``torch.*`` functions), and ``Tensor.data`` with torch's meaning.

Paddle has no inference tensors (``torch.inference_mode`` is ``no_grad`` here) and no lazy
conjugate/negative bits (``conj()``/neg views are materialised), so ``is_inference``,
``is_conj`` and ``is_neg`` answer False: true of every Paddle tensor."""
from __future__ import annotations

import paddle

from ..paddle_shims import IS_PADDLE_2, share_buffer
from . import dtypes as _dt
from .registry import tensor_method, torch_function
from .tensor import original as _original

from .registry import manifest

NAMES = manifest("""
    torch: is_conj is_inference is_neg is_same_size is_signed
    torch.Tensor: data is_conj is_cpu is_inference is_neg is_same_size is_signed itemsize nbytes
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


# Tensor.data: torch's is an alias of the same memory that does not require grad, with its own
# version counter (so ``p.data.add_(p.grad, alpha=-lr)``, word_language_model's SGD step, is an
# untracked write to a leaf).  Paddle 3.x's getter is that (a detached alias); Paddle 2.6's
# returns the tensor itself, requiring grad, and the update raises torch's leaf error.
# Paddle's detach() is the same alias; unlike torch's .data it shares the tensor's in-place
# version counter (tests/facade/test_tensor_data.py: a strict xfail).  Setting: torch keeps the
# tensor's requires_grad (Paddle 2.6 clears it), takes only a tensor, and only a floating or
# complex one while the tensor requires grad (Paddle takes an int64 tensor into a grad leaf).
_paddle_data = _original("data")


def _get_data(self):
    return self.detach() if IS_PADDLE_2 else _paddle_data.__get__(self)


def _set_data(self, value):
    if not isinstance(value, paddle.Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    requires = not self.stop_gradient
    if requires and not (value.is_floating_point() or value.is_complex()):
        raise RuntimeError("data set to a tensor that requires gradients must be floating point "
                           "or complex dtype")
    # through a fresh alias: Paddle 2.6's setter shares the value's autograd state too (setting
    # one's requires_grad then set the other's), and drops the tensor's .grad (torch keeps it,
    # and a held x.grad stays x.grad: found by tests/memory/gradfuzz.py); sharing the value's
    # DenseTensor alone keeps the leaf's autograd state there
    if IS_PADDLE_2:
        share_buffer(value.detach(), self)
    else:
        _paddle_data.__set__(self, value.detach())
    self.stop_gradient = not requires


tensor_method("data", note="an alias without requires_grad; x.data = y keeps x.requires_grad "
                      "(Paddle 2.6: the tensor itself, and the setter cleared it)"
              )(property(_get_data, _set_data))
