"""torch's refusals before an in-place write (``x.add_(y)``, ``x *= 2``, ``x[i] = v``): leaves
that require grad and views of them, expanded views, copies standing in for torch's views
(tensor_views.view_or_marked_copy marks them in ``_COPIED_VIEWS``), views of computed tensors
under autograd.  Below _opbase (its in-place forms check their target) and tensor_methods."""
from __future__ import annotations

import functools
import inspect

import paddle

from ..paddle_shims import VERSION as PADDLE_VERSION
from ..paddle_shims import TensorSideTable, autograd_view_root, reshape_rebase
from .tensor import original as _original

_shape = _original("shape").__get__  # Paddle's getter, not the scope dispatcher


# Results that torch returns as views but this Paddle can only copy (gaps.toml lists the ops):
# id -> (weak reference, op name).  An in-place write into one raises instead of silently not
# reaching the base.
_COPIED_VIEWS = TensorSideTable()  # copy -> the torch view op it stands for


def mark_copied_view(t, op):
    """Remember ``t`` as a copy standing in for torch's view ``op``."""
    _COPIED_VIEWS.put(t, op)
    return t


def check_inplace_target(self, overlap=True, views=True):
    """torch's refusals before an in-place write into ``self``: a leaf that requires grad, or
    a view of one (while grad mode is on), and, with ``overlap``, a tensor whose elements share
    memory through a zero stride (an expanded view: torch's assert_no_internal_overlap).  Also
    a copy standing in for a view (view_or_marked_copy): the write would not reach the base.
    With ``views`` (True, or a function answering it, called only for such a view), a view of
    a computed tensor that requires grad is refused too: Paddle would not carry the write into
    the base's gradient (gaps.toml).  The in-place operators refuse unless
``augmented_subscript()``:
    ``a[i] *= 2`` is ``a.__setitem__(i, a[i].__imul__(2))``, whose set_value on ``a`` gives
    the right gradient (when ``a`` is no view itself: __setitem__ checks that).
    Returns None, except for a view made by reshape of a computed tensor (view, reshape,
    flatten...), where the write is allowed: then the function the caller calls with the
    written value once it is written, to carry it into the base (paddle_shims.reshape_rebase,
    torch's CopySlices)."""
    copied = _COPIED_VIEWS.get(self)
    if copied is not None:
        raise RuntimeError(f"torchproxy: this tensor is a copy where torch's {copied} returns "
                           f"a view (Paddle {PADDLE_VERSION} cannot alias it here), so an "
                           "in-place write would not reach its base; write into the base, or "
                           "clone() first if a separate tensor is meant")
    if not self.stop_gradient and paddle.is_grad_enabled():
        if self.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        root = autograd_view_root(self)
        if root == "leaf":
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        if root == "graph" and (views() if callable(views) else views):
            rebase = reshape_rebase(self)
            if rebase is not None:  # carried into the base after the write (the caller's)
                return rebase
            raise RuntimeError("torchproxy: in-place operation on a view of a tensor that "
                               "requires grad: Paddle cannot carry the write into the base's "
                               "gradient (gaps.toml 'torch.Tensor (in-place through a view under "
                               "autograd)'); assign through indexing (base[index] = value) or "
                               "compute out of place")
    if overlap and 0 in self.strides:
        if any(n > 1 and st == 0 for n, st in zip(_shape(self), self.strides)):
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.")


def inplace_result(input, out, inplace):
    """``out`` (an op computed out of place), or with ``inplace`` (F.relu(x, inplace=True),
    nn.SiLU(inplace=True)...) written into ``input``: torch's refusals first, and for a view
    made by reshape the write carried into its base (CopySlices).  (Written with a bare
    paddle.assign, a write into a view was silently missing from the base's gradient.)"""
    if not inplace:
        return out
    rebase = check_inplace_target(input)
    paddle.assign(out, output=input)
    if rebase is not None:
        rebase(out)
    return input


def inplace_form(fn):
    """``fn(input, ..., inplace=False)``, an activation computed out of place and written with
    inplace_result, made safe under autograd: with ``inplace`` and an ``input`` that requires
    grad, ``fn`` computes from a clone of ``input``, so what its Paddle ops save for backward
    is not the tensor then written (torch's silu_/elu_/hardtanh_ have backward formulas that
    allow the write; Paddle's saved input would fail its version check at backward:
    nn.SiLU(inplace=True), nn.ReLU6(inplace=True), nn.Hardswish(inplace=True) could not be
    trained).  Without grad nothing is cloned."""
    at = list(inspect.signature(fn).parameters).index("inplace")  # after input: args[at - 1]

    @functools.wraps(fn)
    def run(input, *args, **kwargs):
        keyword = "inplace" in kwargs
        inplace = kwargs["inplace"] if keyword else len(args) >= at and args[at - 1]
        if not inplace or input.stop_gradient or not paddle.is_grad_enabled():
            return fn(input, *args, **kwargs)
        if keyword:
            kwargs["inplace"] = False
        else:
            args = args[:at - 1] + (False,) + args[at:]
        return inplace_result(input, fn(input.clone(), *args, **kwargs), True)
    return run


# the instructions between an in-place operator and the store of its result (CPython 3.10:
# ROT_THREE; 3.11+: SWAP 3, SWAP 2) that do not decide where the result goes
_STACK_SHUFFLES = frozenset(("ROT_TWO", "ROT_THREE", "ROT_FOUR", "SWAP", "COPY", "DUP_TOP",
                             "DUP_TOP_TWO", "EXTENDED_ARG", "CACHE", "NOP"))


def augmented_subscript() -> bool:
    """Is the running in-place operator (``__imul__``...) the middle of ``a[i] op= y``, whose
    result CPython stores back with ``a.__setitem__`` (STORE_SUBSCR)?  Read from the caller's
    bytecode: the first frame outside torchproxy, the instruction after its current one.
    ``v = a[:, 0]; v *= 3`` (STORE_FAST follows) gets False: nothing rebases ``a`` then."""
    import dis
    import sys
    frame = sys._getframe(1)
    while frame is not None and frame.f_globals.get("__name__", "").startswith("torchproxy"):
        frame = frame.f_back
    if frame is None:
        return False
    after = False
    for ins in dis.get_instructions(frame.f_code):
        if ins.offset == frame.f_lasti:
            after = True
        elif after and ins.opname not in _STACK_SHUFFLES:
            return ins.opname == "STORE_SUBSCR"
    return False


def check_setitem_target(self):
    """torch's refusals before an indexed assignment ``self[index] = value``.  torch writes
    through a view of ``self`` (``self[index].copy_(value)``), hence its message for a leaf
    too; Paddle's set_value gives ``self`` torch's gradient when ``self`` is no view, but into
    a view of a computed tensor the write would not reach the base's gradient: refused
    (check_inplace_target, gaps.toml), as is a write into a copy standing for a view."""
    if not self.stop_gradient and paddle.is_grad_enabled() and \
            (self.is_leaf or autograd_view_root(self) == "leaf"):
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")
    return check_inplace_target(self, overlap=False)
