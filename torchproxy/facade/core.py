"""Core torch names: the top-level package, ``torch.Tensor``, ``torch.Size`` and the few
Tensor methods whose torch meaning every wrapper relies on (``numel``, ``size``, ``shape``,
``stride``, ``dim``).  Wider areas live in their own modules (see ``registry.AREAS``)."""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: Size Tensor __version__ e inf nan newaxis nn pi
    torch.Tensor: dim ndim numel shape size
    torch.nn: functional
""")

from .registry import alias, module, tensor_method, type_, value

# The torch API level the facade claims: torch 2.6's Python API -- torch.library.custom_op /
# triton_op / wrap_triton, torch.amp.custom_fwd(device_type=), torch.compiler.* -- which is what
# the runtime areas implement.  Libraries gate code paths on it (Liger-Kernel: torch >= 2.4 picks
# torch.amp.custom_fwd; FlashInfer: >= 2.4 its custom-op path).  The "+torchproxy" local tag
# keeps it from passing for a real torch build.
TORCH_VERSION = "2.6.0+torchproxy"

value("torch.__version__", TORCH_VERSION)
# math constants torch exports (torch.__all__): Python floats, as torch's
import math as _math  # noqa: E402
value("torch.e", _math.e)
value("torch.pi", _math.pi)
value("torch.inf", _math.inf)
value("torch.nan", _math.nan)
value("torch.newaxis", None)
alias("torch.Tensor", "paddle.Tensor")
module("torch.nn")
module("torch.nn.functional")


class Size(tuple):
    """torch.Size: a tuple of ints with ``numel()``."""

    __slots__ = ()

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n

    def __repr__(self):
        return f"torch.Size({list(self)})"

    def __getitem__(self, item):
        out = tuple.__getitem__(self, item)
        return Size(out) if isinstance(item, slice) else out


type_("torch.Size", Size)

# issue 26 (sixth round): x.shape[i] for an int i answered in C (_dispatch.c size_item: tuple
# indexing, no Python frame); the function above stays the definition and answers the rest
from .dispatch import _C as _cdispatch  # noqa: E402

if _cdispatch is not None and hasattr(_cdispatch, "size_item_method"):
    Size.__getitem__ = _cdispatch.size_item_method(Size, Size.__dict__["__getitem__"])


# Paddle's own shape getter, bound once: inside these implementations ``self.shape`` would go
# through the scope dispatcher again (a frame read per call) only to land here.
from math import prod as _prod  # noqa: E402

from .tensor import original as _original  # noqa: E402

_shape = _original("shape").__get__


@tensor_method("numel")
def numel(self) -> int:
    """torch: a Python int (Paddle: a 0-d Tensor)."""
    return _prod(_shape(self))


@tensor_method("dim")
def dim(self) -> int:
    return len(_shape(self))


@tensor_method("ndim")
@property
def ndim(self) -> int:
    """torch: the number of dimensions.  Paddle's property answers the same int (its body is
    ``len(self.shape)``); dispatched so the C dispatcher serves both sides from C without a
    Python frame (``same`` in torchproxy/_dispatch.c): unscoped ``x.ndim`` no longer pays the
    shape dispatcher from inside Paddle's property."""
    return len(_shape(self))


@tensor_method("size")
def size(self, dim=None):
    """torch: ``x.size()`` -> torch.Size, ``x.size(d)`` -> int (Paddle 3.x: ``x.size`` is an int)."""
    if dim is None:
        return Size(_shape(self))
    return _shape(self)[dim]


@tensor_method("shape")
@property
def shape(self):
    """torch: torch.Size (a tuple); Paddle: a list."""
    return Size(_shape(self))
