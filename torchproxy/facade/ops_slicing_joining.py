"""torch's "Indexing, Slicing, Joining, Mutating Ops" (torch.html) beyond ops_shape.py and
ops_indexing.py, from torch's OpInfo database: atleast_*d, the stacks and directional splits,
tensor_split, rot90, select, swapdims, unflatten, argwhere, the scatter/index reductions
(scatter_reduce, index_reduce, index_copy, take...), the slice scatters and the ``*_copy`` forms,
split_with_sizes."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: alias_copy argwhere atleast_1d atleast_3d column_stack diagonal_copy diagonal_scatter
        diff dsplit dstack expand_copy fliplr flipud hsplit hstack index_copy index_fill
        index_reduce masked_select narrow_copy permute_copy ravel rot90 row_stack scatter_reduce
        select select_scatter slice_scatter split_with_sizes split_with_sizes_copy squeeze_copy
        swapdims t_copy take take_along_dim tensor_split transpose_copy unbind_copy unflatten
        unsafe_split unsqueeze_copy vsplit vstack
    torch.Tensor: argwhere diagonal_scatter diff dsplit fliplr flipud hsplit index_copy index_copy_
        index_fill index_fill_ index_reduce index_reduce_ masked_select narrow_copy ravel rot90
        scatter_reduce scatter_reduce_ select select_scatter slice_scatter split_with_sizes
        sum_to_size swapdims take take_along_dim tensor_split unflatten unsafe_split vsplit
""")

import builtins

import paddle

from .. import paddle_shims as _shims
from . import ops as _ops
from . import ops_reduce as _red
from . import ops_shape as _shape
from ._opbase import _INTS, _full, _name, _register_op, opmath_function, op, wrap_dim, OutRule
from .tensor_views import expand as _expand
from .registry import tensor_method
from .ops_pointwise import _legacy  # shared helpers
from .ops_blas_lapack import t


# -- shape -------------------------------------------------------------------------------------
@opmath_function("torch.atleast_1d")
def atleast_1d(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors
    out = tuple(x.reshape([1]) if x.ndim == 0 else x for x in ts)
    return out[0] if len(tensors) == 1 and isinstance(tensors[0], paddle.Tensor) else out


@opmath_function("torch.atleast_3d")
def atleast_3d(*tensors):
    ts = tensors[0] if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) else tensors

    def one(x):
        if x.ndim == 0:
            return x.reshape([1, 1, 1])
        if x.ndim == 1:
            return x.reshape([1, x.shape[0], 1])
        if x.ndim == 2:
            return x.unsqueeze(-1)
        return x
    out = tuple(one(x) for x in ts)
    return out[0] if len(tensors) == 1 and isinstance(tensors[0], paddle.Tensor) else out


def _stack_like(torch_name, prep, dim):
    def fn(tensors, *, out=None):
        if isinstance(tensors, paddle.Tensor):
            raise TypeError(f"{torch_name}(): argument 'tensors' must be tuple of Tensors, "
                            "not Tensor")
        if len(tensors) == 0:
            raise RuntimeError(f"{torch_name} expects a non-empty TensorList")
        ts = [prep(x) for x in tensors]
        d = dim(ts)
        return _shape.cat(ts, d, out=out)
    fn.__name__ = fn.__qualname__ = torch_name
    return opmath_function(f"torch.{torch_name}")(fn)


def _2d(x):
    return x.reshape([1, -1]) if x.ndim < 2 else x


vstack = _stack_like("vstack", _2d, lambda ts: 0)
opmath_function("torch.row_stack")(vstack)
hstack = _stack_like("hstack", lambda x: x.reshape([1]) if x.ndim == 0 else x,
                     lambda ts: 0 if ts[0].ndim == 1 else 1)
dstack = _stack_like("dstack", lambda x: atleast_3d(x), lambda ts: 2)
column_stack = _stack_like("column_stack",
                           lambda x: x.reshape([-1, 1]) if x.ndim <= 1 else x, lambda ts: 1)


@_register_op("torch.tensor_split", method=True)
def tensor_split(input, indices_or_sections=None, dim=0, *, sections=None, indices=None,
                 tensor_indices_or_sections=None):
    # torch's three overloads name the split argument sections= (int), indices= (sequence)
    # or tensor_indices_or_sections= (Tensor)
    given = [v for v in (indices_or_sections, sections, indices, tensor_indices_or_sections)
             if v is not None]
    if len(given) != 1 or (sections is not None and not isinstance(sections, int)) or (
            indices is not None and not isinstance(indices, (list, tuple))) or (
            tensor_indices_or_sections is not None and
            not isinstance(tensor_indices_or_sections, paddle.Tensor)):
        raise TypeError("tensor_split() received an invalid combination of arguments")
    indices_or_sections = given[0]
    if input.ndim == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    ios = indices_or_sections
    if isinstance(ios, paddle.Tensor):
        if ios.ndim > 1 or _name(ios.dtype) != "int64":
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have a "
                               "dtype of long and to be 0-D or 1-D")
        ios = int(ios.item()) if ios.ndim == 0 else [int(v) for v in ios.tolist()]
    if isinstance(ios, int):
        if ios <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {ios}")
        q, r = divmod(n, ios)
        bounds, s = [], 0
        for i in range(ios):
            s += q + (1 if i < r else 0)
            bounds.append(s)
        bounds = bounds[:-1]
    else:
        bounds = list(ios)
    out, prev = [], 0
    for b in bounds + [n]:
        b = builtins.min(builtins.max(b if b >= 0 else b + n, 0), n)
        lo = builtins.min(prev, n)
        hi = builtins.max(b, lo)
        out.append(paddle.slice(input, [d], [lo], [hi]))
        prev = hi if b >= lo else lo
        prev = b if b >= lo else prev
    return tuple(out)


def _dir_split(torch_name, dim, min_dim):
    def fn(input, indices_or_sections):
        if input.ndim < min_dim:
            raise RuntimeError(f"torch.{torch_name} requires a tensor with at least {min_dim} "
                               f"dimension, but got a tensor with {input.ndim} dimensions!")
        d = dim(input)
        if isinstance(indices_or_sections, int) and indices_or_sections == 0:
            raise RuntimeError(f"torch.{torch_name} attempted to split along dimension {d}, "
                               "but the split_size is 0")
        if isinstance(indices_or_sections, int) and input.shape[d] % indices_or_sections:
            raise RuntimeError(f"torch.{torch_name} attempted to split along dimension {d}, "
                               f"but the size of the dimension {input.shape[d]} is not divisible "
                               f"by the split_size {indices_or_sections}!")
        return tensor_split(input, indices_or_sections, d)
    fn.__name__ = fn.__qualname__ = torch_name
    return op(f"torch.{torch_name}", method=True)(fn)


vsplit = _dir_split("vsplit", lambda x: 0, 2)
hsplit = _dir_split("hsplit", lambda x: 0 if x.ndim == 1 else 1, 1)
dsplit = _dir_split("dsplit", lambda x: 2, 3)


@op("torch.fliplr", method=True)
def fliplr(input):
    if input.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return paddle.flip(input, [1])


@op("torch.flipud", method=True)
def flipud(input):
    if input.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return paddle.flip(input, [0])


@op("torch.rot90", method=True)
def rot90(input, k=1, dims=(0, 1)):
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.ndim < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.ndim}")
    d0, d1 = wrap_dim(dims[0], input.ndim), wrap_dim(dims[1], input.ndim)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    k = k % 4
    if k == 0:
        return input.clone()
    return paddle.rot90(input, k, [d0, d1])


@op("torch.ravel", method=True)
def ravel(input):
    return input.reshape([-1])


@_register_op("torch.select", method=True)
def select(input, dim, index):
    if input.ndim == 0:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if index < -n or index >= n:
        raise IndexError(f"select(): index {index} out of range for tensor of size "
                         f"{list(input.shape)} at dimension {dim}")
    i = index + n if index < 0 else index
    return paddle.slice(input, [d], [i], [i + 1]).squeeze(d)


@_register_op("torch.swapdims", method=True)
def swapdims(input, dim0, dim1):
    return _shape.transpose(input, dim0, dim1)


@tensor_method("sum_to_size")
def sum_to_size(self, *size):
    size = list(size[0]) if len(size) == 1 and isinstance(size[0], (list, tuple)) else \
        list(size)
    shape = list(self.shape)
    if len(size) > len(shape) or builtins.any(
            s != 1 and s != d for s, d in zip(size[::-1], shape[::-1])):
        raise RuntimeError(f"size {{{size}}} is not expandable to size {{{shape}}}.")
    lead = len(shape) - len(size)
    axes = list(range(lead)) + [lead + i for i, s in enumerate(size)
                                if s == 1 and shape[lead + i] != 1]
    if not axes:  # torch sums a 0-d tensor to size () (a bool one becomes int64)
        return _red.sum(self) if self.ndim == 0 else self
    return _red.sum(self, axes, True).reshape(size)


@op("torch.diff", method=True, out=True)
def diff(input, n=1, dim=-1, prepend=None, append=None):
    if input.ndim == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = wrap_dim(dim, input.ndim)
    for p in (prepend, append):
        if p is None or p.ndim == 0:
            continue
        if p.ndim != input.ndim:
            raise RuntimeError("diff expects prepend or append to be the same dimension as input")
        for i in range(input.ndim):
            if i != d and p.shape[i] != input.shape[i]:
                raise RuntimeError(
                    f"diff expects the shape of tensor to prepend or append to match that of "
                    f"input except along the differencing dimension; input.size({i}) = "
                    f"{input.shape[i]}, but got tensor.size({i}) = {p.shape[i]}")
    if n == 0:  # torch: a copy of the input; prepend/append are not applied
        return input.clone()
    parts = [p for p in (prepend, input, append) if p is not None]
    parts = [p if p.ndim else paddle.broadcast_to(
        p.reshape([1] * input.ndim), [1 if i == d else s for i, s in enumerate(input.shape)])
        for p in parts]
    x = paddle.concat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        m = x.shape[d]
        if m == 0:
            break
        hi = paddle.slice(x, [d], [1], [m])
        lo = paddle.slice(x, [d], [0], [m - 1])
        x = (hi != lo) if _name(x.dtype) == "bool" else hi - lo
    return x


# -- batch 2: indexing / scatter forms ---------------------------------------------------------
_REDUCE = {"sum": "add", "prod": "mul", "mean": "mean", "amax": "amax", "amin": "amin"}


def _scatter_reduce(input, d, index, src, reduce, include_self):
    if reduce not in _REDUCE:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got "
                           f"{reduce}")
    if index.size == 0:
        return input.clone()
    if index.ndim and list(index.shape) != list(src.shape):
        src = src[tuple(slice(0, s) for s in index.shape)]
    x, s = input, src.astype(input.dtype)
    is_bool = _name(x.dtype) == "bool"
    if is_bool:
        x, s = x.astype("int32"), s.astype("int32")
    r = paddle.put_along_axis(x, index, s, d, reduce=_REDUCE[reduce], include_self=include_self,
                              broadcast=False)
    if reduce == "mean" and _name(x.dtype) in _INTS:  # torch: integer mean rounds down
        cnt = paddle.put_along_axis(paddle.full(x.shape, 1 if include_self else 0, "int64"),
                                    index, paddle.ones(index.shape, "int64"), d, reduce="add",
                                    broadcast=False)
        tot = paddle.put_along_axis(x.astype("int64"), index, s.astype("int64"), d,
                                    reduce="add", include_self=include_self, broadcast=False)
        mean = paddle.floor_divide(tot, paddle.maximum(cnt, paddle.ones_like(cnt)))
        r = paddle.where(cnt > 0, mean, x.astype("int64")).astype(x.dtype)
    return r.astype("bool") if is_bool else r


def _check_index(index, name):
    if _name(index.dtype) != "int64":
        raise RuntimeError(f"{name}(): Expected dtype int64 for index")


@op("torch.scatter_reduce", method=True, inplace=True, out=True)
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True):
    _check_index(index, "scatter_reduce")
    if input.dtype != src.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype")
    d = wrap_dim(dim, input.ndim)
    if input.ndim == 0:
        return _scatter_reduce(input.reshape([1]), 0, index.reshape([1]), src.reshape([1]),
                               reduce, include_self).reshape([])
    return _scatter_reduce(input, d, index, src, reduce, include_self)


def _along(index, d, shape):
    view = [1] * len(shape)
    view[d] = -1
    return paddle.broadcast_to(index.reshape(view), shape)


@op("torch.index_reduce", method=True, inplace=True, out=True)
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    if reduce not in ("prod", "mean", "amax", "amin"):
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    if index.ndim > 1:
        raise IndexError("index_reduce_(): Index is supposed to be a vector")
    if input.ndim == 0:
        return index_reduce(input.reshape([1]), 0, index.reshape([-1]), source.reshape([-1]),
                            reduce, include_self=include_self).reshape([])
    d = wrap_dim(dim, input.ndim)
    src = source.reshape([1]) if source.ndim == 0 else source
    return _scatter_reduce(input, d, _along(index.reshape([-1]), d, src.shape), src, reduce,
                           include_self)


@op("torch.index_copy", method=True, inplace=True, out=True)
def index_copy(input, dim, index, source):
    if input.dtype != source.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, "
                           f"but got (self) {_legacy(input.dtype)} and (source) "
                           f"{_legacy(source.dtype)}")
    if input.ndim == 0:
        return source.reshape([]).clone() if index.size else input.clone()
    d = wrap_dim(dim, input.ndim)
    src = source.reshape([1]) if source.ndim == 0 else source
    x = input.astype("int32") if _name(input.dtype) == "bool" else input
    r = paddle.put_along_axis(x, _along(index.reshape([-1]), d, src.shape), src.astype(x.dtype),
                              d, broadcast=False)
    return r.astype(input.dtype)


@op("torch.index_fill", method=True, inplace=True)
def index_fill(input, dim, index, value):
    if isinstance(value, paddle.Tensor):
        if value.ndim:
            raise RuntimeError(f"index_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        value = value.item()
    if input.ndim == 0:
        return _full([], value, input.dtype, input) if index.size else input.clone()
    d = wrap_dim(dim, input.ndim)
    idx = index.reshape([-1])
    idx = paddle.where(idx < 0, idx + input.shape[d], idx)
    mask_shape = [1] * input.ndim
    mask_shape[d] = input.shape[d]
    hit = paddle.zeros([input.shape[d]], "int32")
    if idx.size:
        hit = paddle.scatter(hit, idx, paddle.ones(idx.shape, "int32"))
    hit = hit.reshape(mask_shape) > 0
    x = input.astype("int32") if _name(input.dtype) == "bool" else input  # no bool kernel (2.6)
    return paddle.where(hit, _full([], value, x.dtype, input), x).astype(input.dtype)


@op("torch.take", method=True, out=OutRule(
    no_overlap=True, same_dtype="take(): self and out expected to have the same dtype, but got "
                                "self.dtype = {self} and out.dtype = {out}"))
def take(input, index):
    if _name(index.dtype) != "int64":
        raise RuntimeError("take(): Expected a long tensor for index, but got "
                           f"{_legacy(index.dtype)}")
    n = int(input.size)
    flat = input.reshape([-1])
    if index.size == 0:
        return paddle.zeros(index.shape, input.dtype)
    lo, hi = int(index.min()), int(index.max())
    if lo < -n or hi >= n:
        raise IndexError(f"out of range: tried to access index {hi if hi >= n else lo} on a "
                         f"tensor of {n} elements.")
    idx = paddle.where(index < 0, index + n, index)
    x = flat.astype("int32") if _name(input.dtype) == "bool" else flat  # no bool gather (2.6)
    return paddle.gather(x, idx.reshape([-1])).reshape(index.shape).astype(input.dtype)


@op("torch.take_along_dim", method=True, out=True)
def take_along_dim(input, indices, dim=None):
    if _name(input.dtype) == "bool":  # Paddle has no bool take_along_axis kernel
        return take_along_dim(input.astype("int32"), indices, dim).astype("bool")
    if dim is None:
        n, flat = int(input.size), indices.reshape([-1])
        if flat.size:  # torch gathers from the flattened input: no negative indices
            lo, hi = int(flat.min()), int(flat.max())
            if lo < 0 or hi >= n:
                raise RuntimeError(f"index {lo if lo < 0 else hi} is out of bounds for "
                                   f"dimension 0 with size {n}")
        return paddle.take_along_axis(input.reshape([-1]), flat, 0)
    d = wrap_dim(dim, input.ndim)
    indices = paddle.where(indices < 0, indices + input.shape[d], indices)
    shp = [builtins.max(a, b) if i != d else b for i, (a, b) in
           enumerate(zip(input.shape, indices.shape))]
    in_shape = [s if i != d else input.shape[d] for i, s in enumerate(shp)]
    return paddle.take_along_axis(paddle.broadcast_to(input, in_shape),
                                  paddle.broadcast_to(indices, shp), d, broadcast=False)


@op("torch.masked_select", method=True, out=OutRule(
    no_overlap=True, same_dtype="masked_select(): self and result must have the same scalar type"))
def masked_select(input, mask):
    if _name(mask.dtype) != "bool":
        raise RuntimeError(f"masked_select: expected BoolTensor for mask")
    shape = paddle.broadcast_shape(list(input.shape), list(mask.shape))
    x = input.astype("int32") if _name(input.dtype) == "bool" else input  # no bool kernel (2.6)
    return paddle.masked_select(paddle.broadcast_to(x, shape),
                                paddle.broadcast_to(mask, shape)).astype(input.dtype)


# -- batch 2: scatters of slices ---------------------------------------------------------------
def _slices(ndim, d, s):
    return tuple(s if i == d else slice(None) for i in range(ndim))


@op("torch.slice_scatter", method=True, out=True)
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    d = wrap_dim(dim, input.ndim)
    out = input.clone()
    out[_slices(input.ndim, d, slice(start, end, step))] = src.astype(input.dtype)
    return out


@op("torch.select_scatter", method=True, out=True)
def select_scatter(input, src, dim, index):
    d = wrap_dim(dim, input.ndim)
    out = input.clone()
    out[_slices(input.ndim, d, index)] = src.astype(input.dtype)
    return out


@op("torch.diagonal_scatter", method=True, out=True)
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    return paddle.diagonal_scatter(input, src.astype(input.dtype), offset,
                                   wrap_dim(dim1, input.ndim), wrap_dim(dim2, input.ndim))


# -- batch 2: *_copy forms ---------------------------------------------------------------------
@op("torch.expand_copy", out=True)
def expand_copy(input, size, *, implicit=False):
    return _expand(input, *size).clone() if isinstance(size, (list, tuple)) else \
        _expand(input, size).clone()


@op("torch.t_copy", out=True)
def t_copy(input):
    return t(input).clone()


@op("torch.unbind_copy")
def unbind_copy(input, dim=0):
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    return tuple(x.clone() for x in _shape.unbind(input, dim))


@op("torch.narrow_copy", method=True, out=True)
def narrow_copy(input, dim, start, length):
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(dim, int) and dim >= input.ndim:  # narrow_copy: a TORCH_CHECK, not IndexError
        raise RuntimeError("Expected dim < static_cast<int64_t>(self_sizes.size()) to be true, "
                           "but got false.  (Could this error message be improved?  If so, please "
                           "report an enhancement request to PyTorch.)")
    return _shape.narrow(input, dim, start, length).clone()


@op("torch.diagonal_copy", out=True)
def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    if wrap_dim(dim1, input.ndim) == wrap_dim(dim2, input.ndim):
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _shape.diagonal(input, offset, dim1, dim2).clone()


@op("torch.permute_copy", out=True)
def permute_copy(input, dims):
    return _shape.permute(input, dims).clone()


@op("torch.transpose_copy", out=True)
def transpose_copy(input, dim0, dim1):
    return _shape.transpose(input, dim0, dim1).clone()


@op("torch.squeeze_copy", out=True)
def squeeze_copy(input, dim=None):
    return _shape.squeeze(input, dim).clone()


@op("torch.unsqueeze_copy", out=True)
def unsqueeze_copy(input, dim):
    return _shape.unsqueeze(input, dim).clone()


@op("torch.alias_copy", out=True)
def alias_copy(input):
    return input.clone()


@op("torch.split_with_sizes_copy")
def split_with_sizes_copy(input, split_sizes, dim=0):
    return tuple(x.clone() for x in split_with_sizes(input, split_sizes, dim))


# -- batch 2: shape / creation -----------------------------------------------------------------
@_register_op("torch.unflatten", method=True)
def unflatten(input, dim, sizes):
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    sizes = list(sizes)
    if len(sizes) == 0:
        raise RuntimeError("unflatten: sizes must be non-empty")
    shape = list(input.shape)
    known = _prod([s for s in sizes if s != -1])
    if sizes.count(-1) > 1:
        raise RuntimeError("only one dimension can be inferred")
    if -1 in sizes:
        sizes[sizes.index(-1)] = shape[d] // known if known else 0
    if _prod(sizes) != shape[d]:
        raise RuntimeError(f"unflatten: Provided sizes {list(sizes)} don't multiply up to the "
                           f"size of dim {dim} ({shape[d]}) in the input tensor")
    return _shims.reshape_exact(input, shape[:d] + sizes + shape[d + 1:])


def _prod(xs):
    r = 1
    for v in xs:
        r *= v
    return r



@op("torch.argwhere", method=True)
def argwhere(input):
    return _ops.nonzero(input)


@_register_op("torch.split_with_sizes", method=True)
def split_with_sizes(input, split_sizes, dim=0):
    d = wrap_dim(dim, input.ndim)
    if builtins.sum(split_sizes) != input.shape[d]:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to "
                           f"{input.shape[d]} (input tensor's size at dimension {dim}), but got "
                           f"split_sizes={list(split_sizes)}")
    out, s = [], 0
    for n in split_sizes:
        out.append(paddle.slice(input, [d], [s], [s + n]))
        s += n
    return tuple(out)


@_register_op("torch.unsafe_split", method=True)
def unsafe_split(input, split_size, dim=0):
    return tuple(_shape.split(input, split_size, dim))
