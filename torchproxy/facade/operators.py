"""Arithmetic operators (``x * m``, ``1 - x``, ``i / 2``) with torch's type promotion.

Paddle's operators refuse or differ on mixed dtypes that torch promotes (``int64 * bool`` is a
TypeError in Paddle; Liger-Kernel's cross-entropy host code does exactly that).  In scope the
operators go through the same adapters as ``torch.add``/``torch.mul``/... (ops.py: torch's
promotion); outside the scope Paddle's own operators are untouched (tensor.py dispatches).
Operands that are neither tensors nor Python numbers go to Paddle's own operator unchanged.
"""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch.Tensor: __abs__ __add__ __and__ __eq__ __ge__ __gt__ __le__ __lshift__ __lt__ __matmul__
        __mod__ __mul__ __ne__ __or__ __pow__ __radd__ __rand__ __rdiv__ __rlshift__ __rmatmul__
        __rmod__ __rmul__ __ror__ __rpow__ __rrshift__ __rshift__ __rsub__ __rtruediv__ __rxor__
        __sub__ __truediv__ __xor__
    # in-place operators (x += y mutates x in scope; dispatch.INPLACE_OPERATORS)
    torch.Tensor: __iadd__ __iand__ __ifloordiv__ __ilshift__ __imod__ __imul__ __ior__ __ipow__
        __irshift__ __isub__ __itruediv__ __ixor__
""")

import numbers

import paddle

from . import ops
from ._opbase import check_cast, make_inplace, result_type
from .registry import tensor_method
from .tensor import original

_SCALARS = (bool, numbers.Number)

# What torch answers when an operator is called unbound on something that is not a Tensor
# (`torch.Tensor.__radd__(2, t)`, as OpInfo's error inputs do): most are C descriptors of
# TensorBase (TypeError); these are Python functions in torch/_tensor.py that answer
# NotImplemented (the reflected ones compute when `other` is a Tensor), or (the division
# pair) call `self.reciprocal()`.
_PYTHON_LEVEL_NOT_IMPLEMENTED = {"__rsub__", "__rmod__", "__rpow__", "__pow__", "__rlshift__",
                                 "__rrshift__"}
_CALLS_RECIPROCAL = {"__rtruediv__", "__rdiv__"}
# ... of which these call a torch function with the operands swapped (`torch.remainder(other,
# self)`), valid when `other` is a Tensor (__rsub__ calls rsub(self, other): never valid)
_SWAPPED_CALL = {"__rmod__", "__rpow__", "__rlshift__", "__rrshift__"}


def _not_a_tensor(name, self):
    if name in _PYTHON_LEVEL_NOT_IMPLEMENTED:
        return NotImplemented
    if name in _CALLS_RECIPROCAL:
        raise AttributeError(f"'{type(self).__name__}' object has no attribute 'reciprocal'")
    raise TypeError(f"descriptor '{name}' for 'torch._C.TensorBase' objects doesn't apply to a "
                    f"'{type(self).__name__}' object")


def _operator(name, torch_fn, reflected=False, foreign_paddle=True):
    """``foreign_paddle``: other operands go to Paddle's own operator (when it has one);
    otherwise NotImplemented, as torch answers (``x == None`` is then False)."""
    def op(self, other):
        if not isinstance(self, paddle.Tensor):
            if not (name in _SWAPPED_CALL and isinstance(other, paddle.Tensor)):
                return _not_a_tensor(name, self)
            # torch/_tensor.py's `torch.remainder(other, self)`: a valid call with a scalar self
        if not isinstance(other, (paddle.Tensor, *_SCALARS)):
            own = original(name) if foreign_paddle else None
            return NotImplemented if own is None else own(self, other)
        return torch_fn(other, self) if reflected else torch_fn(self, other)
    op.__name__ = name
    tensor_method(name, note="torch's type promotion")(op)
    return op


# each arithmetic/bitwise operator and its reflected twin (``x - y`` and ``2 - x``)
for _name, _fn in (("add", ops.add), ("sub", ops.sub), ("mul", ops.BINARY["mul"]),
                   ("truediv", ops.div), ("and", ops.BINARY["bitwise_and"]),
                   ("or", ops.BINARY["bitwise_or"]), ("xor", ops.BINARY["bitwise_xor"]),
                   ("lshift", ops.bitwise_left_shift), ("rshift", ops.bitwise_right_shift),
                   ("mod", ops.BINARY["remainder"])):
    _operator(f"__{_name}__", _fn)
    _operator(f"__r{_name}__", _fn, reflected=True)
for _name in ("eq", "ne", "lt", "le", "gt", "ge"):
    _operator(f"__{_name}__", ops.BINARY[_name], foreign_paddle=False)
_operator("__pow__", ops.pow)
_operator("__rpow__", ops.pow, reflected=True)
_operator("__rdiv__", ops.div, reflected=True)  # torch's Python 2 name of __rtruediv__


def _inplace_operator(name, torch_fn):
    """``x += y`` in scope: torch mutates x and returns it (the result cast to x's dtype, with
    torch's cast error where it refuses, and its error for a result that broadcasts beyond x's
    shape).  Other operands: NotImplemented (then the binary operator, as for Paddle).
    Outside the scope the dispatcher answers NotImplemented: Paddle's rebinding, unchanged."""
    inplace = make_inplace(name, torch_fn)

    def op(self, other):
        if not isinstance(other, (paddle.Tensor, *_SCALARS)):
            return NotImplemented
        check_cast(result_type(self, other), self.dtype)  # torch: before the kernel runs
        return inplace(self, other)
    op.__name__ = name
    tensor_method(name, note="torch's in-place rules (x += y mutates x)")(op)
    return op


_inplace_operator("__iadd__", ops.add)
_inplace_operator("__isub__", ops.sub)
_inplace_operator("__imul__", ops.BINARY["mul"])
_inplace_operator("__itruediv__", ops.div)
_inplace_operator("__imod__", ops.BINARY["remainder"])
_inplace_operator("__ipow__", ops.pow)
_inplace_operator("__iand__", ops.BINARY["bitwise_and"])
_inplace_operator("__ior__", ops.BINARY["bitwise_or"])
_inplace_operator("__ixor__", ops.BINARY["bitwise_xor"])
_inplace_operator("__ilshift__", ops.bitwise_left_shift)
_inplace_operator("__irshift__", ops.bitwise_right_shift)
# torch's x //= y is floor_divide_ (floor rounding, torch.floor_divide)
_inplace_operator("__ifloordiv__", lambda a, b: ops.div(a, b, rounding_mode="floor"))


@tensor_method("__abs__", note="torch.abs")
def __abs__(self):  # Paddle 2.6's Tensor has no __abs__: abs(x) was a TypeError
    return ops.UNARY["abs"](self)


@tensor_method("__matmul__", note="torch.matmul")
def __matmul__(self, other):
    if not isinstance(other, paddle.Tensor):
        return NotImplemented  # torch: x @ 2 is a TypeError
    return ops.matmul(self, other)


@tensor_method("__rmatmul__", note="torch.matmul")
def __rmatmul__(self, other):  # Paddle 2.6's Tensor has no __rmatmul__
    if not isinstance(other, paddle.Tensor):
        return NotImplemented
    return ops.matmul(other, self)
