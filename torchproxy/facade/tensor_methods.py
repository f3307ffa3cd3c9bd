"""Tensor methods with torch semantics, for callers in scope (see tensor.py for the policy).

Inside these functions ``self.shape``, ``self.reshape`` etc. are Paddle's (torchproxy is never in
scope).  Names whose Paddle meaning is already torch's on every supported Paddle version
(``data_ptr``, ``element_size``, ``is_contiguous``, ``contiguous``, ``clone``, ``detach``,
``item``, ``zero_``, ``T``, ``t``...) are deliberately NOT registered: a registered name costs
Paddle's own callers a scope check on every call.

Memory layout truth (both Paddle 2.6.2 and 3.3.1 run with FLAGS_use_stride_kernel on;
tests/facade/test_memory_truth.py reads raw memory through ``data_ptr()``/``stride()``):
- ``transpose``/``permute``/slicing/``split``/``narrow``/``unbind`` return strided views that
  share memory, and ``data_ptr()`` already includes the view's byte offset, so
  ``data_ptr() + stride()`` addresses exactly the elements torch would;
- ``expand`` is a copy in Paddle (contiguous strides, new memory): consistent, only not a
  zero-stride view as in torch;
- Paddle's ``is_contiguous()`` is stricter than torch's (it checks the strides of size-1 dims
  and calls 0-size slices non-contiguous), so ``is_contiguous``/``contiguous`` are registered
  with torch's rule: otherwise kernel wrappers would copy, or assert, for nothing;
- Paddle reports a 0-size tensor's dims as its strides: ``stride()`` returns torch's
  contiguous strides for those;
- ``view()`` of a non-contiguous tensor is a true view (torch's computeStride, then
  ``as_strided`` at the view's byte offset) on Paddle 3.x; Paddle 2.6's ``as_strided``
  accepts contiguous inputs only, so there it raises RuntimeError (gaps.toml).
"""
from __future__ import annotations

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = (
    "torch.Tensor.bfloat16", "torch.Tensor.bool", "torch.Tensor.byte", "torch.Tensor.char",
    "torch.Tensor.contiguous", "torch.Tensor.copy_", "torch.Tensor.cpu", "torch.Tensor.cuda",
    "torch.Tensor.data_ptr", "torch.Tensor.double", "torch.Tensor.expand",
    "torch.Tensor.expand_as", "torch.Tensor.fill_",
    "torch.Tensor.flatten", "torch.Tensor.float", "torch.Tensor.half", "torch.Tensor.int",
    "torch.Tensor.is_contiguous", "torch.Tensor.is_floating_point", "torch.Tensor.long",
    "torch.Tensor.ndimension", "torch.Tensor.nelement", "torch.Tensor.new_full",
    "torch.Tensor.new_ones", "torch.Tensor.new_tensor", "torch.Tensor.new_zeros",
    "torch.Tensor.permute", "torch.Tensor.repeat", "torch.Tensor.reshape", "torch.Tensor.reshape_as",
    "torch.Tensor.short",
    "torch.Tensor.split", "torch.Tensor.squeeze", "torch.Tensor.stride", "torch.Tensor.to",
    "torch.Tensor.transpose", "torch.Tensor.type", "torch.Tensor.type_as",
    "torch.Tensor.unsqueeze", "torch.Tensor.view", "torch.Tensor.where",
)
# registered on some Paddle versions only: data_ptr on 2.6 (0-size tensors: None there)
CONDITIONAL = ("torch.Tensor.data_ptr",)

import paddle

from ..paddle_shims import (DATA_PTR_NONE_FOR_EMPTY, HAS_VIEW_DTYPE, byte_offset, copy_to,
                            same_place, strided_view)
from . import dtypes as _dt
from . import ops
from .creation import kernel_full, _finish, _from_numpy_as, _scalar_dtype, parse_size, tensor
from .device import CPU, device, device_of_place, to_place
from .registry import tensor_method
from .tensor import original as _original

_shape = _original("shape").__get__  # Paddle's getter, not the scope dispatcher

_name = _dt.torch_name
_to_dtype = _dt.to_paddle


def _shape_args(args, fn):
    """x.view(2, 3) / x.view((2, 3)) / x.view([2, 3]) / x.view(torch.Size) -> list (-1 kept)."""
    if len(args) == 1 and isinstance(args[0], (list, tuple)):
        args = args[0]
    out = []
    for d in args:
        if isinstance(d, paddle.Tensor):
            d = int(d)
        if isinstance(d, bool) or not isinstance(d, int):
            raise TypeError(f"{fn}(): argument 'size' must be tuple of ints, but found element "
                            f"of type {type(d).__name__}")
        out.append(d)
    return out


def _infer_shape(shape, numel):
    """torch's -1 inference and size check (RuntimeError on mismatch)."""
    known, neg = 1, None
    for i, d in enumerate(shape):
        if d == -1:
            if neg is not None:
                raise RuntimeError("only one dimension can be inferred")
            neg = i
        elif d < 0:
            raise RuntimeError(f"invalid shape dimension {d}")
        else:
            known *= d
    if neg is not None:
        if known == 0 or numel % known:
            raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
        shape = list(shape)
        shape[neg] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(shape)}' is invalid for input of size {numel}")
    return list(shape)


def _numel(shape):
    n = 1
    for d in shape:
        n *= d
    return n


def _view_strides(oldshape, oldstride, newshape):
    """torch's computeStride (aten/src/ATen/TensorUtils.cpp): the strides that let ``newshape``
    view the same memory, or None when the view would span non-contiguous chunks."""
    if _numel(oldshape) == 0:
        return list(_contiguous_strides(newshape))
    newstride = [0] * len(newshape)
    view_d = len(newshape) - 1
    chunk_base = oldstride[-1] if oldstride else 1
    tensor_numel, view_numel = 1, 1
    for tensor_d in range(len(oldshape) - 1, -1, -1):
        tensor_numel *= oldshape[tensor_d]
        if tensor_d == 0 or (oldshape[tensor_d - 1] != 1 and
                             oldstride[tensor_d - 1] != tensor_numel * chunk_base):
            while view_d >= 0 and (view_numel < tensor_numel or newshape[view_d] == 1):
                newstride[view_d] = view_numel * chunk_base
                view_numel *= newshape[view_d]
                view_d -= 1
            if view_numel != tensor_numel:
                return None
            if tensor_d > 0:
                chunk_base = oldstride[tensor_d - 1]
                tensor_numel, view_numel = 1, 1
    if view_d != -1:
        return None
    return newstride


def _contiguous_strides(shape):
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d
    return tuple(reversed(out))


def _empty_strides(shape):
    out, acc = [], 1
    for d in reversed(shape):
        out.append(acc)
        acc *= d if d > 1 else 1
    return out[::-1]


@tensor_method("stride")
def stride(self, dim=None):
    """torch: a tuple of element strides (Paddle 3.x: a list; 2.6: absent)."""
    s = self.strides
    if 0 in s and 0 in _shape(self):
        # Paddle reports a 0-size tensor's dims as its strides; torch gives contiguous strides
        # computed with sizes clamped to 1 (no memory is addressed either way)
        s = _empty_strides(_shape(self))
    if dim is None:
        return tuple(s)
    return s[ops.wrap_dim(dim, len(s))] if s else 1


_paddle_is_contiguous = _original("is_contiguous")
_paddle_contiguous = _original("contiguous")


def _torch_contiguous(self) -> bool:
    """torch's rule: strides of size-1 dims do not matter, 0-size tensors are contiguous.
    Paddle's is_contiguous() is stricter (a transposed [1, n] is not contiguous for it), and
    only ever says False where torch might say True, so its True is taken as is."""
    if _paddle_is_contiguous(self):
        return True
    shape = _shape(self)
    if 0 in shape:
        return True
    expected = 1
    for size, st in zip(reversed(shape), reversed(self.strides)):
        if size != 1:
            if st != expected:
                return False
            expected *= size
    return True


@tensor_method("is_contiguous")
def is_contiguous(self, memory_format=None) -> bool:
    if memory_format is not None and getattr(memory_format, "name", None) != "contiguous_format":
        raise NotImplementedError(f"torchproxy: is_contiguous(memory_format={memory_format!r})")
    if _paddle_is_contiguous(self):  # the common answer, without a second Python call
        return True
    return _torch_contiguous(self)


@tensor_method("contiguous")
def contiguous(self, memory_format=None):
    """torch: self when already contiguous by torch's rule (no copy), else a contiguous copy."""
    if _torch_contiguous(self):
        return self
    return _paddle_contiguous(self)


@tensor_method("view")
def view(self, *shape, dtype=None):
    if dtype is not None or (len(shape) == 1 and _is_dtype(shape[0])):
        return _view_dtype(self, dtype if dtype is not None else shape[0])
    old = list(_shape(self))
    new = _infer_shape(_shape_args(shape, "view"), _numel(old))
    if _paddle_is_contiguous(self):
        return self.reshape(new)  # a view in Paddle for contiguous tensors (shares memory)
    strides = _view_strides(old, list(self.strides), new)
    if strides is None:
        raise RuntimeError("view size is not compatible with input tensor's size and stride "
                           "(at least one dimension spans across two contiguous subspaces). "
                           "Use .reshape(...) instead.")
    return strided(self, new, strides)


def strided(self, shape, strides):
    """A view of ``self`` in torch's logical order (``view``/``reshape``/``flatten``... where
    torch's computeStride finds strides): an alias of the same memory whose gradient is the
    incoming gradient reshaped to ``self``'s shape (paddle_shims.strided_view; Paddle's
    as_strided backward is wrong over slices)."""
    if 0 in shape or 0 in _shape(self):
        return self.reshape(shape)
    old = list(_shape(self))
    return strided_view(self, shape, strides, byte_offset(self), lambda g: g.reshape(old))


def _is_dtype(obj):
    return isinstance(obj, _dt.DTYPE_TYPE)


def _view_dtype(self, dtype):
    dt = _to_dtype(dtype)
    if dt == self.dtype:
        return self
    if not HAS_VIEW_DTYPE:
        raise RuntimeError("torchproxy: view(dtype) needs Paddle >= 3.0")
    return paddle.Tensor.view(self, dt)


@tensor_method("reshape")
def reshape(self, *shape):
    return self.reshape(_infer_shape(_shape_args(shape, "reshape"), _numel(self.shape)))


@tensor_method("reshape_as")
def reshape_as(self, other):
    """torch: ``self.reshape(other.shape)`` (a view where reshape gives one)."""
    if not isinstance(other, paddle.Tensor):
        raise TypeError(f"reshape_as(): argument 'other' (position 1) must be Tensor, not "
                        f"{type(other).__name__}")
    return reshape(self, *other.shape)


@tensor_method("transpose")
def transpose(self, dim0, dim1):
    return ops.transpose(self, dim0, dim1)


@tensor_method("permute")
def permute(self, *dims):
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    return ops.permute(self, dims)


@tensor_method("expand")
def expand(self, *sizes):
    sizes = _shape_args(sizes, "expand")
    nd = self.ndim
    if len(sizes) < nd:
        raise RuntimeError(f"expand(torch.FloatTensor{{{list(self.shape)}}}, size={sizes}): "
                           "the number of sizes provided ({}) must be greater or equal to the "
                           "number of dimensions in the tensor ({})".format(len(sizes), nd))
    shape = list(self.shape)
    lead = len(sizes) - nd
    target = []
    for i, s in enumerate(sizes):
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a "
                                   "leading, non-existing dimension 0")
            target.append(s)
            continue
        cur = shape[i - lead]
        if s == -1:
            target.append(cur)
        elif cur != s and cur != 1:
            raise RuntimeError(f"The expanded size of the tensor ({s}) must match the existing "
                               f"size ({cur}) at non-singleton dimension {i}.  Target sizes: "
                               f"{sizes}.  Tensor sizes: {shape}")
        else:
            target.append(s)
    if target == shape:
        return self
    return expand_view(self, target)


def expand_view(self, target):
    """torch's expand: a view with stride 0 along each new or broadcast dim (Paddle's expand
    copies); its gradient sums over those dims."""
    shape = list(_shape(self))
    if 0 in target or 0 in shape:
        return paddle.expand(self, target)  # nothing to alias
    lead = len(target) - len(shape)
    own = stride(self)
    strides = [0] * lead + [0 if n == 1 and t != 1 else s
                            for n, t, s in zip(shape, target[lead:], own)]
    summed = [lead + i for i, (n, t) in enumerate(zip(shape, target[lead:])) if n == 1 and t != 1]

    def grad_of(g):
        if summed:
            g = g.sum(axis=summed, keepdim=True)
        if lead:
            g = g.sum(axis=list(range(lead)))
        return g

    return strided_view(self, target, strides, byte_offset(self), grad_of)


@tensor_method("expand_as")
def expand_as(self, other):
    """torch: ``self.expand(other.size())`` (a zero-stride view; Paddle's expand_as copies)."""
    return expand(self, *_shape(other))


@tensor_method("flatten")
def flatten(self, start_dim=0, end_dim=-1):
    return ops.flatten(self, start_dim, end_dim)


@tensor_method("unsqueeze")
def unsqueeze(self, dim):
    return ops.unsqueeze(self, dim)


@tensor_method("squeeze")
def squeeze(self, dim=None):
    return ops.squeeze(self, dim)


# -- to / casts --------------------------------------------------------------------------------
_DIFFERENTIABLE = frozenset(_dt.DTYPES[n] for n in ("float16", "bfloat16", "float32", "float64",
                                                    "complex64", "complex128") if n in _dt.DTYPES)


def _astype(x, dt):
    """x.astype(dt) with torch's autograd rule: an integer or bool result never requires grad
    (Paddle's cast passes gradients through it: x.long() fed 1 per element back into x.grad)."""
    r = x.astype(dt)
    if not x.stop_gradient and dt not in _DIFFERENTIABLE:
        r = r.detach()
    return r


def _cast(self, dt, copy=False):
    cur = self.dtype
    if cur is dt or cur == dt:
        return self.clone() if copy else self  # torch returns self when nothing changes
    return _astype(self, dt)


def _parse_to(args, kwargs):
    dev, dt, non_blocking, copy = (kwargs.pop("device", None), kwargs.pop("dtype", None),
                                   kwargs.pop("non_blocking", False), kwargs.pop("copy", False))
    kwargs.pop("memory_format", None)
    if kwargs:
        raise TypeError(f"to() got an unexpected keyword argument '{next(iter(kwargs))}'")
    args = list(args)
    if args and isinstance(args[0], paddle.Tensor):
        other = args.pop(0)
        dev, dt = device_of_place(other.place), other.dtype
    elif args and _is_dtype(args[0]):
        dt = args.pop(0)
    elif args and (args[0] is None or isinstance(args[0], (str, int, device))):
        dev = args.pop(0)
        if args and (_is_dtype(args[0]) or args[0] is None):
            dt = args.pop(0)
    if args:
        non_blocking = args.pop(0)
    if args:
        copy = args.pop(0)
    if args:
        raise TypeError("to() received an invalid combination of arguments")
    return dev, dt, non_blocking, copy


_DTYPE_TYPE = _dt.DTYPE_TYPE


@tensor_method("to")
def to(self, *args, **kwargs):
    if not kwargs and len(args) == 1 and type(args[0]) is _DTYPE_TYPE:
        # the common x.to(torch.float32): Paddle 3.x dtypes are singletons, so ``is`` answers
        # most calls without pybind's slow enum ``==``
        cur, dt = self.dtype, args[0]
        return self if cur is dt or cur == dt else _astype(self, dt)
    dev, dt, non_blocking, copy = _parse_to(args, kwargs)
    out = self
    if dev is not None:
        place = to_place(dev)
        if device_of_place(place) != device_of_place(self.place):
            out = copy_to(self, place, not non_blocking)
            copy = False
    if dt is not None:
        out = _cast(out, _to_dtype(dt), copy)
        copy = False
    if copy:
        out = out.clone()
    return out


def _caster(name, torch_dtype):
    def cast(self, memory_format=None):
        return _cast(self, _dt.DTYPES[torch_dtype])
    cast.__name__ = name
    tensor_method(name)(cast)


for _m, _d in (("float", "float32"), ("half", "float16"), ("bfloat16", "bfloat16"),
               ("double", "float64"), ("int", "int32"), ("long", "int64"), ("short", "int16"),
               ("char", "int8"), ("byte", "uint8"), ("bool", "bool")):
    _caster(_m, _d)


@tensor_method("type")
def type_(self, dtype=None, non_blocking=False):
    """x.type() -> 'torch.FloatTensor'; x.type(torch.float16) / x.type('torch.HalfTensor')."""
    if dtype is None:
        prefix = "torch.cuda." if self.place.is_gpu_place() else "torch."
        return prefix + _LEGACY[_name(self.dtype)]
    if isinstance(dtype, str):
        legacy = dtype.rsplit(".", 1)[-1]
        for k, v in _LEGACY.items():
            if v == legacy:
                out = _cast(self, _dt.DTYPES[k])
                return out.cuda() if ".cuda." in dtype else out
        raise ValueError(f"invalid type: '{dtype}'")
    return _cast(self, _to_dtype(dtype))


_LEGACY = {"float32": "FloatTensor", "float64": "DoubleTensor", "float16": "HalfTensor",
           "bfloat16": "BFloat16Tensor", "int64": "LongTensor", "int32": "IntTensor",
           "int16": "ShortTensor", "int8": "CharTensor", "uint8": "ByteTensor",
           "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
           "complex128": "ComplexDoubleTensor"}


@tensor_method("cuda")
def cuda(self, device=None, non_blocking=False, memory_format=None):
    dev = "cuda" if device is None else (device if not isinstance(device, int)
                                         else f"cuda:{device}")
    return to(self, dev, non_blocking=non_blocking)


@tensor_method("cpu")
def cpu(self, memory_format=None):
    if self.place.is_cpu_place():
        return self
    return copy_to(self, paddle.CPUPlace(), True)


# -- new_* -------------------------------------------------------------------------------------
def _new_args(self, dtype, device):
    return (self.dtype if dtype is None else _to_dtype(dtype),
            self.place if device is None else to_place(device))


def _new_full(self, size, fill, dtype, device, requires_grad, fn):
    from .creation import check_fill, checked_alloc  # torch's size and Scalar overflow checks
    dt, place = _new_args(self, dtype, device)
    shape = parse_size(size, fn=fn)
    with checked_alloc(shape, dt, place):
        return _finish(kernel_full(shape, check_fill(fill, dt), dt, place), requires_grad)


@tensor_method("new_zeros")
def new_zeros(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
              pin_memory=False):
    return _new_full(self, size, 0, dtype, device, requires_grad, "new_zeros")


@tensor_method("new_ones")
def new_ones(self, *size, dtype=None, device=None, requires_grad=False, layout=None,
             pin_memory=False):
    return _new_full(self, size, 1, dtype, device, requires_grad, "new_ones")


@tensor_method("new_full")
def new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    if isinstance(fill_value, paddle.Tensor):
        fill_value = fill_value.item()
    return _new_full(self, (size,), fill_value, dtype, device, requires_grad, "new_full")


@tensor_method("new_tensor")
def new_tensor(self, data, *, dtype=None, device=None, requires_grad=False, layout=None,
               pin_memory=False):
    """torch: the data's values with self's dtype and device unless given."""
    dt, _ = _new_args(self, dtype, None)
    dev = device_of_place(self.place) if device is None else device
    return tensor(data, dtype=dt, device=dev, requires_grad=requires_grad)


# -- reductions and friends --------------------------------------------------------------------
# Tensor.sum / Tensor.add / Tensor.add_ ... are registered where the function is, by
# ``@op("torch.sum", method=True)`` / ``@op("torch.add", method=True, inplace=True)`` in the
# op modules: one declaration per name (registry.op).


@tensor_method("where")
def where(self, condition, other):
    """torch: ``x.where(cond, y)`` is ``torch.where(cond, x, y)``."""
    return ops.where(condition, self, other)


@tensor_method("split")
def split(self, split_size, dim=0):
    return ops.split(self, split_size, dim)


@tensor_method("repeat")
def repeat(self, *sizes):
    """torch: tile (Paddle 3.x's Tensor.repeat follows torch too, 2.6 lacks it)."""
    sizes = _shape_args(sizes, "repeat")
    if len(sizes) < self.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number "
                           "of dimensions of tensor")
    from .ops_indexing import tile  # zero repeats (Paddle 2.6's tile refuses them), bools
    return tile(self, sizes)


@tensor_method("copy_")
def copy_(self, src, non_blocking=False):
    """torch: broadcast ``src`` to self's shape, cast to self's dtype, write in place (through
    views too; Paddle 2.6's copy_ writes wrong elements of strided views, so assign())."""
    if not isinstance(src, paddle.Tensor):
        raise TypeError(f"copy_(): argument 'src' must be Tensor, not {type(src).__name__}")
    if src.dtype != self.dtype:
        src = src.astype(self.dtype)
    shape = list(self.shape)
    if list(src.shape) != shape:
        src = paddle.broadcast_to(src, shape)
    if not same_place(src.place, self.place):
        src = copy_to(src, self.place, not non_blocking)
    paddle.assign(src, output=self)
    return self


@tensor_method("fill_")
def fill_(self, value):
    if isinstance(value, paddle.Tensor):
        if value.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor "
                               f"with {value.ndim} dimensions.")
        value = value.item()
    from .creation import check_fill  # torch's Scalar overflow rules (Paddle: SystemError)
    paddle.Tensor.fill_(self, check_fill(value, self.dtype))  # Paddle's (never in scope)
    return self


@tensor_method("type_as")
def type_as(self, other):
    return _cast(self, other.dtype)


@tensor_method("nelement")
def nelement(self) -> int:
    return _numel(self.shape)


@tensor_method("ndimension")
def ndimension(self) -> int:
    return len(self.shape)


@tensor_method("is_floating_point")
def is_floating_point(self) -> bool:
    return _name(self.dtype) in ("float16", "bfloat16", "float32", "float64",
                                 "float8_e4m3fn", "float8_e5m2")


if DATA_PTR_NONE_FOR_EMPTY:
    # Paddle 2.6 returns None for a 0-size tensor's data_ptr(); torch returns 0.  Registered
    # on 2.6 only, where it differs: on 3.x Paddle's own data_ptr() is torch's.
    @tensor_method("data_ptr")
    def data_ptr(self) -> int:
        p = _paddle_data_ptr(self)
        return 0 if p is None else p

    _paddle_data_ptr = _original("data_ptr")
