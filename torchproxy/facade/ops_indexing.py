"""torch strided views and indexed writes Paddle spells differently or lacks: as_strided (and
its in-place, copy and scatter forms), put, masked_scatter, index_put, nonzero_static, tile,
Tensor.mT, in-place transposes and squeeze_, resize_/resize_as_,
view_copy/unfold_copy and the masked-index helpers Inductor's decompositions call.

Views: ``as_strided`` is a real view of the input's allocation (``paddle.as_strided``, whose
offset is in bytes from the allocation's start, as torch's storage_offset is in elements from
the storage's start; see storage.py).

The in-place view ops (``t_``, ``transpose_``, ``squeeze_``, ``unsqueeze_``, ``as_strided_``,
``resize_``...) change ``self``'s geometry only, as torch's do: ``self`` is re-seated onto a new
DenseTensor viewing the same memory (``become_view``).  Writing the new layout into ``self``'s
memory instead (paddle.assign, before) rewrote the base of a view in the new order
(``b.view(2, 3).t_()`` transposed ``b``'s data), and changing the shared DenseTensor changed
every alias with it (``x.detach()``, ``x.data``: Paddle's detach shares the DenseTensor).
"""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: _unsafe_masked_index _unsafe_masked_index_put_accumulate as_strided as_strided_
        as_strided_copy as_strided_scatter index_put masked_scatter nonzero_static put resize_as_
        tile unfold_copy view_copy
    torch.Tensor: as_strided as_strided_ as_strided_scatter mT masked_scatter masked_scatter_
        nonzero_static put put_ resize_ resize_as_ squeeze_ swapaxes swapaxes_ swapdims_ tile
        transpose_ unfold unsqueeze_ view_as
""")

import paddle

from ..paddle_shims import empty_view, strided_view
from . import dtypes as _dt
from ._opbase import _legacy, _name, view_op, wrap_dim
from .registry import torch_function, op, tensor_method
from . import ops_shape as _shape
from ._sizes import check_view, nbytes_strided
from .creation import checked_alloc, parse_size
from .storage import UntypedStorage, set_, storage_offset as _offset_of
from .storage import _empty, untyped_storage as _untyped_storage
from ..paddle_shims import autograd_view_root, share_buffer
from ._inplace_checks import mark_copied_view
from ._sizes import contiguous_strides
from .storage import _itemsize as _storage_itemsize
from .tensor_views import stride as _torch_stride, view

_INT64 = _dt.DTYPES["int64"]


def _shape_of(x):
    return [int(n) for n in x.shape]


def _numel(shape):
    n = 1
    for d in shape:
        n *= int(d)
    return n


def _bool_safe(x):
    """Paddle's CPU scatter/gather/index kernels lack bool: such values travel as int32."""
    return x.astype("int32") if _name(x.dtype) == "bool" else x


def _restore(r, dtype):
    return r.astype(dtype) if r.dtype != dtype else r


def _copy(x):
    """x.clone(), also for a zero-size x (Paddle 2.6's clone refuses an uninitialised one)."""
    if _numel(_shape_of(x)) == 0:
        return paddle.zeros(_shape_of(x), dtype="int64").astype(x.dtype)
    return x.clone()


def _assign_into(self, result):
    """``self`` takes ``result``'s values (in-place writes of self's shape: put_,
    masked_scatter_)."""
    result = _copy(result)  # never read from a view of the memory being written
    paddle.assign(result, output=self)
    return self


def become_view(self, make_view, op):
    """torch's in-place view op ``op``: ``self`` becomes ``make_view(self)`` (a view of its own
    memory), keeping its identity; its aliases and its base keep their geometry and values.
    Under autograd torch refuses a leaf that requires grad (and a view of one); a computed
    tensor gets the view's gradient: here ``self`` then holds a copy of the view (Paddle has no
    way to give an existing tensor another tensor's view node and memory), marked so that an
    in-place write into it raises instead of missing the base."""
    if not self.stop_gradient and paddle.is_grad_enabled():
        if self.is_leaf:
            raise RuntimeError("a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        if autograd_view_root(self) == "leaf":
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in "
                               "an in-place operation.")
        view = make_view(self)
        share_buffer(_empty(_shape_of(view), self.dtype, self.place), self)  # leave the old memory
        paddle.assign(view, output=self)  # values, shape and the view's gradient
        mark_copied_view(self, f"Tensor.{op}")
        return self
    with paddle.no_grad():
        view = make_view(self)
    share_buffer(view, self)
    return self


# -- as_strided --------------------------------------------------------------------------------
def _check_geometry(size, stride, fn="as_strided"):
    size, stride = [int(n) for n in size], [int(s) for s in stride]
    if len(size) != len(stride):
        raise RuntimeError(f"mismatch in length of strides and shape")
    if any(s < 0 for s in stride):
        raise RuntimeError(f"{fn}: Negative strides are not supported at the moment, got "
                           f"strides: {stride}")
    if any(n < 0 for n in size):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(size)}: {size}")
    return size, stride


def _extent(size, stride):
    """Elements a strided view spans from its first element (0 when empty)."""
    if any(n == 0 for n in size):
        return 0
    return 1 + sum((n - 1) * s for n, s in zip(size, stride))


def _storage_numel(x, itemsize):
    if x.data_ptr() is None:  # Paddle 2.6: a 0-size tensor (even a view) owns no allocation
        raise RuntimeError("torchproxy: as_strided of a 0-element tensor needs its storage, and "
                           "Paddle 2.6 gives 0-element tensors (views included) none; take the "
                           "view from a tensor with elements")
    return UntypedStorage.of_tensor(x).nbytes() // itemsize


def _itemsize(x):
    return _storage_itemsize(x.dtype)


@op("torch.as_strided", method=True)
@view_op("torch.as_strided")
def as_strided(input, size, stride, storage_offset=None):
    """torch.as_strided: a view of ``input``'s storage with the given geometry (storage_offset
    defaults to input's own, counted from the storage's start)."""
    size, stride = _check_geometry(size, stride)
    offset = _offset_of(input) if storage_offset is None else int(storage_offset)
    if offset < 0:
        raise RuntimeError(f"Tensor: invalid storage offset {offset}")
    item = _itemsize(input)
    # torch's overflow-checked size arithmetic (a size or stride near 2**63 wrapped here) and
    # its bounds message: the one shared check (facade/_sizes.py)
    need = nbytes_strided(size, stride, item, offset) // item
    if need:
        check_view(size, stride, offset, item, _storage_numel(input, item) * item)
    if need == 0:  # no elements: nothing to alias, but torch's zero gradient to input
        return empty_view(input, size)
    return strided_geometry_view(input, size, stride, offset)


def strided_geometry_view(input, size, stride, offset):
    """A view of ``input``'s storage (``offset`` in elements) with torch's as_strided gradient:
    the incoming gradient summed at each storage element it views, read back through
    ``input``'s own geometry (divided where ``input`` itself views an element more than once).
    Paddle's as_strided backward is wrong here (paddle_shims.strided_view), and so is its
    unfold backward (overlapping windows: the last one wins instead of the sum)."""
    in_geom = (_shape_of(input), list(_torch_stride(input)), _offset_of(input))
    out_geom = (list(size), list(stride), int(offset))

    def grad_of(g):
        return _as_strided_grad(g, in_geom, out_geom)

    return strided_view(input, size, stride, offset * _itemsize(input), grad_of)


def _as_strided_grad(g, in_geom, out_geom):
    name = _name(g.dtype)
    if name.startswith("complex"):  # scatter_nd_add has no complex kernel: the parts apart
        parts = [_as_strided_grad(p, in_geom, out_geom) for p in (paddle.real(g), paddle.imag(g))]
        return paddle.complex(*parts)
    if name in ("float16", "bfloat16"):  # nor half ones on the CPU: sums in float32
        return _as_strided_grad(g.astype("float32"), in_geom, out_geom).astype(g.dtype)
    lo = min(in_geom[2], out_geom[2])
    n = max(geom[2] + _extent(geom[0], geom[1]) for geom in (in_geom, out_geom)) - lo
    out_idx = _strided_index(out_geom[0], out_geom[1], out_geom[2] - lo).reshape([-1, 1])
    in_idx = _strided_index(in_geom[0], in_geom[1], in_geom[2] - lo).reshape([-1])
    buf = paddle.scatter_nd_add(paddle.zeros([n], g.dtype), out_idx, g.reshape([-1]))
    count = paddle.scatter_nd_add(paddle.zeros([n], g.dtype), in_idx.reshape([-1, 1]),
                                  paddle.ones(in_idx.shape, g.dtype))
    buf = buf / paddle.clip(count, min=1)
    return paddle.gather(buf, in_idx).reshape(in_geom[0])


@tensor_method("as_strided_")
def as_strided_(self, size, stride, storage_offset=None):
    """In place: ``self`` becomes that view of its own storage (torch's metadata change)."""
    size, stride = _check_geometry(size, stride)
    offset = _offset_of(self) if storage_offset is None else int(storage_offset)
    return become_view(self, lambda t: as_strided(t, size, stride, offset), "as_strided_")


torch_function("torch.as_strided_")(as_strided_)


@op("torch.as_strided_copy", out=True)
def as_strided_copy(input, size, stride, storage_offset=None):
    return as_strided(input, size, stride, storage_offset).clone()


def _strided_index(size, stride, offset):
    """int64 tensor of ``size``: the storage position of each element of that view."""
    idx = paddle.full([1] * len(size), offset, dtype="int64")
    for d, (n, s) in enumerate(zip(size, stride)):
        shape = [1] * len(size)
        shape[d] = n
        idx = idx + (paddle.arange(n, dtype="int64") * s).reshape(shape)
    return idx.reshape(size)


@op("torch.as_strided_scatter", method=True, out=True)
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """A copy of ``input`` (contiguous) with ``src`` written where input.as_strided(size,
    stride, storage_offset) would view it."""
    size, stride = _check_geometry(size, stride, "as_strided_scatter")
    offset = 0 if storage_offset is None else int(storage_offset)
    if _shape_of(src) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {_shape_of(src)}, slice size = {size}")
    n = _numel(_shape_of(input))
    need = offset + _extent(size, stride) if _extent(size, stride) else 0
    if need > n:
        item = _itemsize(input)
        raise RuntimeError(f"setStorage: sizes {size}, strides {stride}, storage offset "
                           f"{offset}, and itemsize {item} requiring a storage size of "
                           f"{need * item} are out of bounds for storage of size {n * item}")
    if src.dtype != input.dtype:
        src = src.astype(input.dtype)
    flat = input.reshape([-1])
    if need == 0:
        return _copy(flat).reshape(_shape_of(input))
    idx = _strided_index(size, stride, offset).reshape([-1])
    out = paddle.scatter(_bool_safe(flat), idx, _bool_safe(src).reshape([-1]), overwrite=True)
    return _restore(out, input.dtype).reshape(_shape_of(input))


@op("torch.view_copy", out=True)
def view_copy(input, size):
    if isinstance(size, int):
        size = [size]
    return _shape.reshape(input, list(size)).clone()


def _check_unfold(d, n, size, step):
    """torch's unfold argument checks, in its order (``n``: the length of dimension ``d``)."""
    if size > n:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {n} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")


def _unfold(input, dimension, size, step):
    """torch's Tensor.unfold (the windows along ``dimension`` become a last dim of ``size``)."""
    nd = input.ndim
    d = wrap_dim(dimension, nd)
    n = int(input.shape[d]) if nd else 1
    _check_unfold(d, n, size, step)
    if nd == 0:
        return input.reshape([1]) if size == 1 else input.reshape([0])
    count = (n - size) // step + 1
    idx = (paddle.arange(count, dtype="int64").reshape([count, 1]) * step
           + paddle.arange(size, dtype="int64").reshape([1, size])).reshape([-1])
    win = paddle.index_select(_bool_safe(input), idx, axis=d)
    shape = _shape_of(input)
    win = win.reshape(shape[:d] + [count, size] + shape[d + 1:])
    perm = list(range(win.ndim))
    perm.append(perm.pop(d + 1))
    return _restore(win.transpose(perm), input.dtype)


@tensor_method("unfold")
def unfold(self, dimension, size, step):
    """torch's Tensor.unfold: a view whose windows along ``dimension`` are a new last dim of
    ``size`` (Paddle's own unfold is that view too, but its backward keeps one window's
    gradient where windows overlap instead of their sum)."""
    nd = self.ndim
    d = wrap_dim(dimension, nd) if nd else 0
    n = int(self.shape[d]) if nd else 1
    _check_unfold(d, n, size, step)
    shape, strides = _shape_of(self), list(_torch_stride(self))
    if not nd:
        shape, strides = [1], [1]
    count = (n - size) // step + 1
    out_shape = shape[:d] + [count] + shape[d + 1:] + [size]
    out_strides = strides[:d] + [strides[d] * step] + strides[d + 1:] + [strides[d]]
    if not nd:
        out_shape, out_strides = out_shape[1:], out_strides[1:]
    if 0 in out_shape or 0 in shape:  # nothing to alias (Paddle 2.6's unfold of 0-size
        return empty_view(self, out_shape)  # tensors gave other shapes: fuzzer, 2.6 100k run)
    return strided_geometry_view(self, out_shape, out_strides, _offset_of(self))


@op("torch.unfold_copy", out=True)
def unfold_copy(input, dimension, size, step):
    return _unfold(input, dimension, size, step).clone()


# -- indexed writes ----------------------------------------------------------------------------
@op("torch.put", method=True)
def put(input, index, source, accumulate=False):
    """torch.put: ``input`` viewed as 1-D, ``source`` written (or added) at ``index``."""
    if _name(index.dtype) != "int64":
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{_legacy(index.dtype)}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_legacy(input.dtype)} and source.dtype = "
                           f"{_legacy(source.dtype)}")
    k, n = _numel(_shape_of(index)), _numel(_shape_of(input))
    if _numel(_shape_of(source)) != k:
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                           f"elements, but got source.numel() = {_numel(_shape_of(source))}, "
                           f"index.numel() = {k}")
    if k == 0:
        return _copy(input)
    idx = index.reshape([-1])
    lo, hi = int(idx.min()), int(idx.max())
    if lo < -n or hi >= n:
        bad = hi if hi >= n else lo
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} "
                         "elements.")
    idx = paddle.where(idx < 0, idx + n, idx)
    flat, src = _bool_safe(input.reshape([-1])), _bool_safe(source.reshape([-1]))
    if accumulate:
        out = paddle.index_add(flat, idx, 0, src)
    else:
        out = paddle.scatter(flat, idx, src, overwrite=True)
    return _restore(out, input.dtype).reshape(_shape_of(input))


@tensor_method("put_")
def put_(self, index, source, accumulate=False):
    return _assign_into(self, put(self, index, source, accumulate))


@op("torch.masked_scatter", method=True)
def masked_scatter(input, mask, source):
    """torch.masked_scatter: where ``mask`` (broadcast with input) is True, the next element of
    ``source`` (read in row-major order)."""
    if _name(mask.dtype) != "bool":
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {_name(mask.dtype)}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"masked_scatter: expected self and source to have same dtypes but "
                           f"got {_legacy(input.dtype)} and {_legacy(source.dtype)}")
    shape = list(paddle.broadcast_shape(_shape_of(input), _shape_of(mask)))
    x = paddle.broadcast_to(input, shape) if _shape_of(input) != shape else input
    m = paddle.broadcast_to(mask, shape) if _shape_of(mask) != shape else mask
    n = _numel(shape)
    if n == 0:
        return _copy(x)
    m = m.reshape([-1])
    pos = paddle.cumsum(m.astype("int64"), axis=0) - 1
    count = int(pos[-1]) + 1
    src = source.reshape([-1])
    if count > _numel(_shape_of(source)):
        raise RuntimeError("masked_scatter: expected source to have at least as many elements "
                           "as the ones in mask")
    if count == 0:
        return x.clone()
    taken = paddle.gather(_bool_safe(src), paddle.clip(pos, min=0))
    out = paddle.where(m, taken, _bool_safe(x.reshape([-1])))
    return _restore(out, input.dtype).reshape(shape)


@tensor_method("masked_scatter_")
def masked_scatter_(self, mask, source):
    shape = list(paddle.broadcast_shape(_shape_of(self), _shape_of(mask)))
    if shape != _shape_of(self):
        raise RuntimeError(f"masked_scatter_: expected mask to be broadcastable to self's "
                           f"shape {_shape_of(self)}, got {_shape_of(mask)}")
    return _assign_into(self, masked_scatter(self, mask, source))


def _no_none(indices, arg):
    """torch's argument parser takes index lists of Tensors only (None is refused before the
    op runs, with this TypeError; ``arg``: the list's argument position)."""
    for k, i in enumerate(indices):
        if i is None:
            raise TypeError(f"expected Tensor as element {k} in argument {arg}, but got NoneType")


def _index_tensors(indices, arg):
    _no_none(indices, arg)
    out = []
    for i in indices:
        if _name(i.dtype) not in ("int64", "int32", "bool", "uint8"):
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        out.append(i)
    return out


@op("torch.index_put")
def index_put(input, indices, values, accumulate=False):
    """torch.index_put: ``input[indices] = values`` (``+=`` with accumulate) on a copy."""
    idx = _index_tensors(indices, 1)
    if len(idx) > input.ndim:
        raise IndexError(f"too many indices for tensor of dimension {input.ndim} (got "
                         f"{len(idx)})")
    if values.dtype != input.dtype:
        raise RuntimeError(f"Index put requires the source and destination dtypes match, got "
                           f"{_legacy(input.dtype)} for the destination and "
                           f"{_legacy(values.dtype)} for the source.")
    idx = [i.astype("bool") if _name(i.dtype) == "uint8" else i for i in idx]
    return _restore(paddle.index_put(_bool_safe(input), tuple(idx), _bool_safe(values),
                                     accumulate=bool(accumulate)), input.dtype)


def _clamped(x, indices):
    """Indices clamped into [-size, size - 1] and wrapped (torch's CPU kernels)."""
    out = []
    for d, i in enumerate(indices):
        if i is None:
            out.append(None)
            continue
        if _name(i.dtype) not in ("int64", "int32"):
            raise RuntimeError("tensors used as indices must be long or int tensors")
        n = int(x.shape[d])
        i = paddle.clip(i.astype("int64"), min=-n, max=n - 1)
        out.append(paddle.where(i < 0, i + n, i))
    return out


def _gather_index(x, indices):
    """``x[indices]`` for int64 index tensors over x's leading dims (numpy's rules)."""
    key = tuple(slice(None) if i is None else i for i in indices)
    return x[key]


@torch_function("torch._unsafe_masked_index")
def _unsafe_masked_index(x, mask, indices, fill):
    """Inductor's decomposition: ``x[indices clamped into range]`` with ``fill`` where ``mask``
    is False."""
    _no_none(indices, 2)
    if _name(mask.dtype) != "bool":
        raise RuntimeError("tensors used as masks must be bool tensors")
    if isinstance(fill, paddle.Tensor):
        fill = fill.item()
    if _numel(_shape_of(x)) == 0:
        # torch (TensorAdvancedIndexing.cpp): index a stand-in full of ``fill`` whose indexed
        # 0-size dims are 1 and whose dims past the indices are 0; the mask is not applied
        shape = _shape_of(x)
        sizes = [1 if d < len(indices) and n == 0 else (n if d < len(indices) else 0)
                 for d, n in enumerate(shape)]
        base = paddle.full(sizes, fill, dtype=_bool_safe(x).dtype)
        return _restore(_gather_index(base, _clamped(base, list(indices))), x.dtype)
    idx = _clamped(x, list(indices))
    got = _gather_index(_bool_safe(x), idx)
    fillt = paddle.full([], fill, dtype=got.dtype)
    return _restore(paddle.where(mask, got, fillt), x.dtype)


@torch_function("torch._unsafe_masked_index_put_accumulate")
def _unsafe_masked_index_put_accumulate(x, mask, indices, values):
    _no_none(indices, 2)
    if _name(mask.dtype) != "bool":
        raise RuntimeError("tensors used as masks must be bool tensors")
    idx = _clamped(x, list(indices))
    if _numel(_shape_of(x)) == 0:
        return _copy(x)
    v = _bool_safe(values)
    v = paddle.where(mask, v, paddle.zeros([], dtype=v.dtype))
    shape = []
    for i in idx:
        shape = list(paddle.broadcast_shape(shape, _shape_of(i)))
    idx = [paddle.broadcast_to(i, shape) for i in idx]
    want = shape + _shape_of(x)[len(idx):]
    v = paddle.broadcast_to(v, want) if _shape_of(v) != want else v
    return _restore(paddle.index_put(_bool_safe(x), tuple(idx), v, accumulate=True), x.dtype)


@op("torch.nonzero_static", method=True)
def nonzero_static(input, *, size, fill_value=-1):
    """The first ``size`` rows of torch.nonzero(input), padded with ``fill_value``."""
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got "
                           f"{size}")
    nd = input.ndim
    if nd == 0:  # rows of no columns: only the row count shows
        return paddle.zeros([size, 0], dtype="int64")
    if _numel(_shape_of(input)) == 0:
        nz = paddle.zeros([0, nd], dtype="int64")
    else:
        nz = paddle.nonzero(input.astype("bool")).reshape([-1, nd])
    k = int(nz.shape[0])
    if k >= size:
        return _copy(nz[:size].astype("int64")) if size else paddle.zeros([0, nd], dtype="int64")
    pad = paddle.full([size - k, nd], fill_value, dtype="int64")
    return paddle.concat([nz.astype("int64"), pad], axis=0) if k else pad


# -- shapes ------------------------------------------------------------------------------------
@op("torch.tile", method=True)
def tile(input, dims, *more):
    """torch.tile: dims shorter than input.ndim are padded with leading 1s."""
    reps = [dims, *more] if more or isinstance(dims, int) else list(dims)
    reps = [int(r) for r in reps]
    if any(r < 0 for r in reps):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(reps)}: "
                           f"{reps}")
    shape = _shape_of(input)
    if len(reps) < len(shape):
        reps = [1] * (len(shape) - len(reps)) + reps
    shape = [1] * (len(reps) - len(shape)) + shape
    out_shape = [s * r for s, r in zip(shape, reps)]
    if 0 in out_shape:
        return paddle.zeros(out_shape, dtype="int64").astype(input.dtype)
    x = input.reshape(shape)
    if not reps:
        return x.clone()
    return _restore(paddle.tile(_bool_safe(x), reps), input.dtype)


@tensor_method("transpose_")
def transpose_(self, dim0, dim1):
    return become_view(self, lambda t: _shape.transpose(t, dim0, dim1), "transpose_")


tensor_method("swapdims_")(transpose_)
tensor_method("swapaxes_")(transpose_)
tensor_method("swapaxes")(_shape.transpose)


@tensor_method("squeeze_")
def squeeze_(self, dim=None):
    return become_view(self, lambda t: _shape.squeeze(t, dim), "squeeze_")


@tensor_method("unsqueeze_")
def unsqueeze_(self, dim):
    return become_view(self, lambda t: _shape.unsqueeze(t, dim), "unsqueeze_")


def _mT(self):
    if self.ndim < 2:
        raise RuntimeError(f"tensor.mT is only supported on matrices or batches of matrices. "
                           f"Got {self.ndim}-D tensor.")
    return _shape.transpose(self, -2, -1)


tensor_method("mT")(property(_mT))


@tensor_method("view_as")
def view_as(self, other):
    return view(self, list(other.shape))


def _resize(self, shape):
    """torch's resize_: ``self`` becomes the contiguous ``shape`` starting at its storage offset
    (storage order, whatever ``self``'s strides were).  Within the storage it is a view of it
    (aliases keep theirs); past its end torch grows the storage itself, which a Paddle
    allocation cannot: ``self`` then gets new memory holding the old storage's elements from
    its offset on, zeros after them (torch leaves them uninitialised), and its aliases keep
    the old memory."""
    shape = [int(n) for n in shape]
    if any(n < 0 for n in shape):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(shape)}: "
                           f"{shape}")
    if not self.stop_gradient:  # whatever the grad mode, as torch
        raise RuntimeError("cannot resize variables that require grad")
    n, offset, have = _numel(shape), 0, None  # have: the old storage's elements
    if _numel(_shape_of(self)):
        storage, offset = _untyped_storage(self), _offset_of(self)
        size = storage.nbytes() // _storage_itemsize(self.dtype)
        if offset + n <= size:
            return set_(self, storage, offset, shape, contiguous_strides(shape))
        have = _empty([0], self.dtype, self.place)
        set_(have, storage, 0, [size])
    with checked_alloc(shape, self.dtype, self.place):  # torch's overflow check, then OOM
        grown = paddle.zeros([offset + n], dtype="int64").astype(self.dtype)
    if have is not None:
        paddle.assign(have, output=grown[:_numel(_shape_of(have))])
    return set_(self, _untyped_storage(grown), offset, shape, contiguous_strides(shape))


@tensor_method("resize_")
def resize_(self, *sizes, memory_format=None):
    return _resize(self, parse_size(sizes, fn="resize_"))


@tensor_method("resize_as_")
def resize_as_(self, the_template, memory_format=None):
    return _resize(self, _shape_of(the_template))


torch_function("torch.resize_as_")(resize_as_)
