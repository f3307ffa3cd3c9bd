"""torch joining, shape and indexing ops: cat/stack/reshape/transpose/split/chunk/gather/scatter...
(ops.py's docstring lists what torch does differently from Paddle and we follow)."""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: atleast_2d broadcast_shapes broadcast_tensors broadcast_to cat chunk clone concat
        concatenate diagonal fill flatten flip gather index_add index_select masked_fill moveaxis
        movedim narrow numel permute repeat_interleave reshape roll scatter scatter_add split
        squeeze stack swapaxes transpose tril triu unbind unsafe_chunk unsqueeze view_as_complex
        view_as_real
    torch.Tensor: broadcast_to chunk diagonal flip gather index_add index_add_ index_select
        masked_fill masked_fill_ narrow repeat_interleave roll scatter scatter_ scatter_add
        scatter_add_ unbind unsafe_chunk
""")

import paddle

from ..paddle_shims import TAKE_ALONG_AXIS_HAS_BROADCAST, ZERO_SIZE_KERNELS_FAIL, reshape_exact
from ..paddle_shims import fresh_view
from ..paddle_shims import widen_for_kernel
from . import dtypes as _dt
from ..paddle_shims import (AS_REAL_NEEDS_CONTIGUOUS, as_complex_strided, as_real_strided,
                            as_real_view)
from .core import Size
from .storage import storage_offset
from .tensor_views import (_infer_shape, _legacy_scalar, expand, reshape_view, same_storage,
                           stride, strided, view_or_marked_copy, with_layout)
from .registry import tensor_method, torch_function
from ._opbase import (OutRule, _dims, _full, _name, _prod, _write_out, builtins_sum,
                      check_no_overlap, op, opmath_function, view_op, wrap_dim)


# -- joining and shape ops ---------------------------------------------------------------------
def _common(tensors, op):
    tensors = list(tensors)
    if not tensors:
        raise RuntimeError(f"{op}(): expected a non-empty list of Tensors")
    dt = tensors[0].dtype
    for t in tensors[1:]:
        if t.dtype != dt:
            dt = _dt.promote_types(dt, t.dtype)
    return [t if t.dtype == dt else t.astype(dt) for t in tensors]


@opmath_function("torch.cat")
def cat(tensors, dim=0, *, out=None):
    if isinstance(tensors, (list, tuple)) and not tensors:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    ts = _common(tensors, "cat")
    if out is not None:
        check_no_overlap(out, ts)
    # torch skips legacy 1-D empty tensors (shape [0]) when joining others
    kept = [t for t in ts if not (t.ndim == 1 and t.shape[0] == 0)] or ts[:1]
    d = wrap_dim(dim, kept[0].ndim)
    ref = list(kept[0].shape)
    for i, t in enumerate(kept[1:], 1):
        shape = list(t.shape)
        if len(shape) != len(ref):
            raise RuntimeError(f"Tensors must have same number of dimensions: got {len(ref)} "
                               f"and {len(shape)}")
        for j, (p, q) in enumerate(zip(ref, shape)):
            if j != d and p != q:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {p} but got size {q} for tensor number {i} "
                                   "in the list.")
    return _write_out(paddle.concat(kept, axis=d), out)


opmath_function("torch.concat")(cat)


opmath_function("torch.concatenate")(cat)


@opmath_function("torch.stack")
def stack(tensors, dim=0, *, out=None):
    ts = _common(tensors, "stack")
    shapes = {tuple(t.shape) for t in ts}
    if len(shapes) > 1:
        raise RuntimeError("stack expects each tensor to be equal size")
    d = wrap_dim(dim, ts[0].ndim + 1)
    return _write_out(paddle.stack(ts, axis=d), out)


@opmath_function("torch.reshape")
@view_op("torch.reshape")
def reshape(input, shape):
    new = _infer_shape([int(d) for d in shape], _prod(input.shape))
    if ZERO_SIZE_KERNELS_FAIL and 0 in new and new != list(input.shape):
        # Paddle 2.6 reads a 0 in the target as "copy this dimension": an empty tensor of
        # the shape (Paddle 2.6 gives 0-size tensors no gradient anyway)
        return paddle.zeros(new, dtype="int64").astype(input.dtype)
    return reshape_view(input, new)


@opmath_function("torch.transpose")
@view_op("torch.transpose")
def transpose(input, dim0, dim1):
    nd = input.ndim
    d0, d1 = wrap_dim(dim0, nd), wrap_dim(dim1, nd)
    if nd < 2:
        return input.view(input.shape) if nd else input.reshape([])
    perm = list(range(nd))
    perm[d0], perm[d1] = perm[d1], perm[d0]
    return input.transpose(perm)


opmath_function("torch.swapaxes")(transpose)


@opmath_function("torch.permute")
@view_op("torch.permute")
def permute(input, dims):
    nd = input.ndim
    perm = [wrap_dim(d, nd) for d in dims]
    if len(perm) != nd or sorted(perm) != list(range(nd)):
        raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                           f"not match the length of the desired ordering of dimensions i.e. "
                           f"input.dim() = {nd} is not equal to len(dims) = {len(perm)}")
    return input.transpose(perm) if nd else fresh_view(input)


@opmath_function("torch.flatten")
@view_op("torch.flatten")
def flatten(input, start_dim=0, end_dim=-1):
    nd = input.ndim
    if nd == 0:  # torch: a (1,) view
        return strided(input, [1], [1])
    s, e = wrap_dim(start_dim, nd), wrap_dim(end_dim, nd)
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    shape = list(input.shape)
    if 0 in shape:  # nothing to alias
        return reshape_exact(input, shape[:s] + [_prod(shape[s:e + 1])] + shape[e + 1:])
    return reshape_view(input, shape[:s] + [_prod(shape[s:e + 1])] + shape[e + 1:])


@opmath_function("torch.squeeze")
@view_op("torch.squeeze")
def squeeze(input, dim=None):
    nd = input.ndim
    shape = list(input.shape)
    dims = range(nd) if dim is None else (_dims(dim, nd) or [])
    keep = [i for i in range(nd) if not (i in dims and shape[i] == 1)]
    if len(keep) == nd:
        return fresh_view(input)  # torch: a new view even when nothing is squeezed
    new = [shape[i] for i in keep]
    if not input.is_contiguous():  # torch drops the squeezed dims' strides, keeps the others
        own = stride(input)
        return with_layout(input, reshape_exact(input, new), new, [own[i] for i in keep])
    return reshape_exact(input, new)


@opmath_function("torch.unsqueeze")
@view_op("torch.unsqueeze")
def unsqueeze(input, dim):
    nd = input.ndim
    d = wrap_dim(dim, nd + 1)
    shape = list(input.shape)
    new = shape[:d] + [1] + shape[d:]
    if nd and input.is_contiguous():
        return reshape_exact(input, new)  # Paddle's contiguous strides are torch's here
    # torch's rule for the new dim's stride: size * stride of the dim it goes before (1 at
    # the end); Paddle's reshape copies a 0-d tensor and strides size-1 dims its own way
    own = list(stride(input))
    st = shape[d] * own[d] if d < nd else 1
    return with_layout(input, reshape_exact(input, new) if nd else None, new,
                       own[:d] + [st] + own[d:])


@opmath_function("torch.split")
@view_op("torch.split")
def split(tensor, split_size_or_sections, dim=0):
    """torch: an int is the size of each chunk (the last may be smaller)."""
    d = wrap_dim(dim, tensor.ndim)
    n = tensor.shape[d]
    if isinstance(split_size_or_sections, int):
        s = split_size_or_sections
        if s <= 0 and not (s == 0 and n == 0):
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                               f"dimension size of {n}")
        sizes = [s] * (n // s) + ([n % s] if n % s else []) if s else [0]
    else:
        sizes = [int(v) for v in split_size_or_sections]
        if builtins_sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} "
                               f"(input tensor's size at dimension {d}), but got "
                               f"split_sizes={sizes}")
    return tuple(_narrow(tensor, d, sizes))


def _narrow(t, d, sizes):
    out, start = [], 0
    for s in sizes:
        out.append(paddle.slice(t, [d], [start], [start + s]))
        start += s
    return out


@op("torch.chunk", method=True)
@view_op("torch.chunk")
def chunk(input, chunks, dim=0):
    if chunks <= 0:
        raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    size = -(-n // chunks) if n else 0
    if size == 0:
        return tuple(_narrow(input, d, [0] * (chunks if n == 0 else 1)))
    return split(input, size, d)


@op("torch.unsafe_chunk", method=True)
@view_op("torch.unsafe_chunk")
def unsafe_chunk(input, chunks, dim=0):
    """torch.unsafe_chunk: torch.chunk's pieces (torch skips the autograd view checks)."""
    return chunk(input, chunks, dim)


@op("torch.unbind", method=True)
@view_op("torch.unbind")
def unbind(input, dim=0):
    if input.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, input.ndim)
    return tuple(paddle.unbind(input, axis=d))


@op("torch.narrow", method=True)
@view_op("torch.narrow")
def narrow(input, dim, start, length):
    if input.ndim == 0:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if isinstance(start, paddle.Tensor):
        if start.ndim != 0 or start.dtype == paddle.bool or "int" not in str(start.dtype):
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start)
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if not -n <= start <= n:
        raise IndexError(f"start out of range (expected to be in range of [{-n}, {n}], but got "
                         f"{start})")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    if start < 0:
        start += n
    if start < 0 or start + length > n or length < 0:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({n}).")
    return paddle.slice(input, [d], [start], [start + length])


def _bool_safe(x):
    """Paddle's CPU gather/scatter/roll/where kernels lack bool: such values travel as int32."""
    return x.astype("int32") if x.dtype == paddle.bool else x


def _back(r, dtype):
    return r.astype(dtype) if r.dtype != dtype else r


@op("torch.gather", method=True, out=OutRule(
    no_overlap=True, same_dtype="Expected out tensor to have dtype {self_lower}, but got "
                                "{out_lower} instead"))
def gather(input, dim, index, *, sparse_grad=False):
    wrap_dim(dim, input.ndim)
    if index.size == 0:  # torch checks nothing more for an empty index
        return paddle.zeros(list(index.shape), dtype=input.dtype).astype(input.dtype)
    if input.ndim == 0 or index.ndim == 0:
        if input.ndim != index.ndim and not (input.size == 1 and index.size == 1):
            raise RuntimeError("Index tensor must have the same number of dimensions as input "
                               "tensor")
        r = gather(input.reshape([1]), 0, index.reshape([1]))
        return r.reshape(list(index.shape))
    if input.ndim != index.ndim:
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    if input.dtype == paddle.bool:
        return _back(gather(_bool_safe(input), dim, index), input.dtype)
    d = wrap_dim(dim, input.ndim)
    lo, hi = int(index.min()), int(index.max())  # torch refuses what Paddle 3.x would wrap
    if lo < 0 or hi >= input.shape[d]:
        raise RuntimeError(f"index {lo if lo < 0 else hi} is out of bounds for dimension {d} "
                           f"with size {input.shape[d]}")
    return paddle.take_along_axis(input, index, wrap_dim(dim, input.ndim),
                                  broadcast=False) if TAKE_ALONG_AXIS_HAS_BROADCAST else \
        paddle.take_along_axis(input, index, wrap_dim(dim, input.ndim))


@op("torch.index_select", method=True, out=OutRule(
    no_overlap=True, same_dtype="index_select(): self and result must have the same scalar type"))
def index_select(input, dim, index):
    if input.ndim == 0:  # a 0-d input is its own only row
        wrap_dim(dim, 0)
        if index.size != 1:
            raise IndexError("index_select(): Index is supposed to be a vector")
        i = int(index.reshape([]))
        if i not in (0, -1):
            raise IndexError(f"index out of range in self")
        return input.clone()
    x = widen_for_kernel("index_select", _bool_safe(input))  # (int8/16, uint8, float16)
    return _back(paddle.index_select(x, index, axis=wrap_dim(dim, input.ndim)), input.dtype)


@op("torch.masked_fill", method=True, inplace=True)
def masked_fill(input, mask, value):
    if isinstance(value, paddle.Tensor):
        if value.ndim:
            raise RuntimeError(f"masked_fill_ only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.ndim} dimension(s).")
        value = value.item()
    if isinstance(value, complex) and not _name(input.dtype).startswith("complex"):
        raise RuntimeError(f"value cannot be converted to type {_name(input.dtype)} without "
                           "overflow")
    x = _bool_safe(input)
    fill = _full([], value, x.dtype, input)
    return _back(paddle.where(mask.astype("bool"), fill, x), input.dtype)


@opmath_function("torch.tril")
def tril(input, diagonal=0, *, out=None):
    if input.ndim < 2:
        raise RuntimeError("tril: input tensor must have at least 2 dimensions")
    return _write_out(paddle.tril(input, diagonal), out)


@opmath_function("torch.triu")
def triu(input, diagonal=0, *, out=None):
    if input.ndim < 2:
        raise RuntimeError("triu: input tensor must have at least 2 dimensions")
    return _write_out(paddle.triu(input, diagonal), out)


def _flip_method(self, *dims_args, dims=None):
    """torch's Tensor.flip: ``x.flip(0, 1)``, ``x.flip((0, 1))`` or ``x.flip(dims=(0, 1))``."""
    if dims_args and dims is not None:
        raise TypeError("flip() got multiple values for argument 'dims'")
    if dims is None:
        if not dims_args:
            raise TypeError("flip() missing 1 required positional arguments: \"dims\"")
        dims = dims_args[0] if len(dims_args) == 1 else dims_args
    return flip(self, dims)


@op("torch.flip", method=_flip_method)
def flip(input, dims):
    """torch.flip: ``dims`` an int or a sequence of ints (negative ones wrap; duplicates are an
    error)."""
    dims = [dims] if isinstance(dims, int) else list(dims)
    axes = [wrap_dim(d, input.ndim) for d in dims]
    if len(set(axes)) != len(axes):
        raise RuntimeError(f"dims has duplicates, original flip dims size={len(axes)}, but "
                           f"unique flip dims size={len(set(axes))}")
    if not axes or input.ndim == 0:
        return input.clone()
    return paddle.flip(input, axis=axes)


@op("torch.roll", method=True)
def roll(input, shifts, dims=None):
    sh = [shifts] if isinstance(shifts, int) else list(shifts)
    dm = [] if dims is None else [dims] if isinstance(dims, int) else list(dims)
    if not sh:
        raise RuntimeError("`shifts` required")
    if dm and len(sh) != len(dm) or not dm and len(sh) != 1:
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:"
                           f"{len(dm)}")
    if input.ndim == 0 and dm:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    for d in dm:
        wrap_dim(d, input.ndim)
    # plain ints and lists: Paddle 2.6's IntArray arguments refuse tuple subclasses
    # (torch.Size: "roll(): argument (position 2) must be list or int, but got Size")
    return _back(paddle.roll(_bool_safe(input), sh if dm else sh[0], axis=dm or None),
                 input.dtype)


@opmath_function("torch.broadcast_to")
@view_op("torch.broadcast_to")
def broadcast_to(input, size):
    """torch: ``input.expand(size)`` (a zero-stride view; Paddle's broadcast_to copies)."""
    return expand(input, *[int(n) for n in size])


@tensor_method("broadcast_to")
def broadcast_to_method(self, size):
    """torch's ``Tensor.broadcast_to``.  Paddle has a method of that name, so without this
    entry scoped callers got Paddle's: a copy, and on Paddle 2.6 a ValueError for a torch.Size
    ("expand(): argument (position 2) must be list or int, but got Size"; Liger-Kernel's
    fused_linear_jsd passes ``x.shape``)."""
    return broadcast_to(self, size)


@opmath_function("torch.numel")
def numel(input) -> int:
    return _prod(input.shape)


@opmath_function("torch.clone")
def clone(input, *, memory_format=None):
    return input.clone()


@op("torch.repeat_interleave", method=True)
def repeat_interleave(input, repeats, dim=None, *, output_size=None):
    if dim is None:
        input, dim = input.reshape([-1]), 0
    return _back(paddle.repeat_interleave(_bool_safe(input), repeats,
                                          axis=wrap_dim(dim, input.ndim)), input.dtype)


@op("torch.scatter", method=True, inplace=True)
def scatter(input, dim, index, src=None, *, value=None, reduce=None):
    """torch: out[i][index[i][j]] = src[i][j] along ``dim`` (paddle.scatter is row-wise)."""
    if src is None:
        src = value
    if isinstance(src, paddle.Tensor) and src.dtype != input.dtype:
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype")
    if index.ndim != input.ndim and index.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as self tensor")
    if isinstance(src, paddle.Tensor) and index.ndim != src.ndim and index.size:
        raise RuntimeError("Index tensor must have the same number of dimensions as src tensor")
    if index.size and input.ndim:
        d = wrap_dim(dim, input.ndim)
        lo, hi = int(index.min()), int(index.max())
        if lo < 0 or hi >= input.shape[d]:
            raise RuntimeError(f"index {hi if hi >= input.shape[d] else lo} is out of bounds for "
                               f"dimension {d} with size {input.shape[d]}")
    if isinstance(src, paddle.Tensor) and list(src.shape) != list(index.shape):
        src = paddle.slice(src, list(range(index.ndim)), [0] * index.ndim, list(index.shape))
    if reduce not in (None, "add", "multiply"):
        raise RuntimeError(f"reduce argument must be either add or multiply, got {reduce}")
    mode = {"add": "add", "multiply": "mul", None: "assign"}[reduce]
    if not isinstance(src, paddle.Tensor):
        src = _full(list(index.shape), src, input.dtype, input)
    if index.size == 0:
        return input.clone()
    if input.ndim == 0:
        return scatter(input.reshape([1]), 0, index.reshape([1]), src.reshape([1]),
                       reduce=reduce).reshape([])
    x = _bool_safe(input)
    # broadcast=False: torch's rule (index may be smaller than input in the other dims)
    return _back(paddle.put_along_axis(x, index, src.astype(x.dtype), wrap_dim(dim, input.ndim),
                                       reduce=mode, broadcast=False), input.dtype)


@op("torch.scatter_add", method=True, inplace=True)
def scatter_add(input, dim, index, src):
    return scatter(input, dim, index, src, reduce="add")


@op("torch.index_add", method=True, inplace=True)
def index_add(input, dim, index, source, *, alpha=1):
    if input.ndim and source.ndim != input.ndim and not (input.ndim == 1 and source.ndim == 0):
        raise RuntimeError(f"index_add_(): source tensor shape must match self tensor shape, "
                           f"excluding the specified dimension. Got self.shape = "
                           f"{list(input.shape)} source.shape = {list(source.shape)}")
    src = source * alpha if alpha != 1 else source
    if input.ndim == 0:
        wrap_dim(dim, 0)
        return index_add(input.reshape([1]), 0, index.reshape([-1]),
                         src.reshape([-1]) if src.ndim == 0 else src).reshape([])
    x = _bool_safe(input)
    return _back(paddle.index_add(x, index, wrap_dim(dim, input.ndim), src.astype(x.dtype)),
                 input.dtype)


@opmath_function("torch.view_as_real")
@view_op("torch.view_as_real")
def view_as_real(input):
    """torch's view (Paddle's as_real aliases except over non-contiguous inputs on Paddle 2.6,
    where it reads the wrong elements: paddle_shims.as_real_strided builds the view there; a
    result that still does not alias with torch's geometry is a marked copy into which in-place
    writes raise: tensor_views.view_or_marked_copy)."""
    if not _name(input.dtype).startswith("complex"):
        raise RuntimeError("view_as_real is only supported for complex tensors")
    strides, offset = [2 * st for st in stride(input)] + [1], 2 * storage_offset(input)
    if AS_REAL_NEEDS_CONTIGUOUS and 0 not in input.shape and not input.is_contiguous():
        # Paddle 2.6: as_real over a contiguous alias of the allocation, then torch's strides
        return as_real_strided(input, list(input.shape) + [2], strides, offset)
    r = as_real_view(input)
    if same_storage(r, input) and list(stride(r)) != strides:
        # Paddle 2.6 over a non-contiguous input: the allocation with contiguous strides, which
        # reads the wrong elements; the values come from a contiguous copy instead
        r = as_real_view(input.clone())  # (Paddle's contiguous() would change input itself)
    return view_or_marked_copy(r, input, "view_as_real", strides, offset)


@opmath_function("torch.view_as_complex")
@view_op("torch.view_as_complex")
def view_as_complex(input):
    """torch's checks (RuntimeError), then Paddle's as_complex (a view where Paddle aliases;
    else a copy refusing in-place writes, as view_as_real)."""
    if _name(input.dtype) not in ("float32", "float64", "float16"):
        raise RuntimeError(f"view_as_complex is only supported for half, float and double "
                           f"tensors, but got a tensor of scalar type: "
                           f"{_legacy_scalar(input.dtype)}")
    shape, strides = list(input.shape), list(stride(input))
    if not shape or shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if strides[-1] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    # torch checks the strides of dims with more than one element only (a size-1 dim's stride
    # st becomes st // 2: permute of a (3, 3, 2, 1) tensor to (0, 3, 1, 2) is accepted)
    if any(st % 2 for n, st in zip(shape[:-1], strides[:-1]) if n != 1):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if storage_offset(input) % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    if 0 in shape and _name(input.dtype) != "float16":
        # Paddle 3.3.1's as_complex of a 0-element tensor gives a tensor whose strides getter
        # aborts the process (std::length_error; fuzzer finding F31); with no element to alias,
        # an empty complex tensor built from the two (empty) parts is torch's result
        return paddle.complex(input[..., 0], input[..., 1])
    if AS_REAL_NEEDS_CONTIGUOUS and _name(input.dtype) != "float16" and not input.is_contiguous():
        # Paddle 2.6: as_complex over a contiguous alias of the allocation, then torch's strides
        return as_complex_strided(input, shape[:-1], [st // 2 for st in strides[:-1]],
                                  storage_offset(input) // 2)
    return view_or_marked_copy(paddle.as_complex(input), input, "view_as_complex",
                               [st // 2 for st in strides[:-1]], storage_offset(input) // 2)


@opmath_function("torch.movedim")
@view_op("torch.movedim")
def movedim(input, source, destination):
    nd = input.ndim
    src = [wrap_dim(d, nd) for d in (source if isinstance(source, (list, tuple)) else [source])]
    dst = [wrap_dim(d, nd) for d in (destination if isinstance(destination, (list, tuple))
                                     else [destination])]
    if len(src) != len(dst):
        raw = [list(v) if isinstance(v, (list, tuple)) else [v] for v in (source, destination)]
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({raw[0]} "
                           f"dims) should contain the same number of dims as destination "
                           f"({raw[1]} dims)")
    for name, given, wrapped in (("source", source, src), ("destination", destination, dst)):
        if len(set(wrapped)) != len(wrapped):
            raw = list(given) if isinstance(given, (list, tuple)) else [given]
            raise RuntimeError(f"movedim: repeated dim in `{name}` ({raw})")
    perm = [-1] * nd
    for s, d in zip(src, dst):
        perm[d] = s
    rest = iter(i for i in range(nd) if i not in src)
    perm = [p if p >= 0 else next(rest) for p in perm]
    return input.transpose(perm) if nd else fresh_view(input)


opmath_function("torch.moveaxis")(movedim)


@op("torch.diagonal", method=True)
@view_op("torch.diagonal")
def diagonal(input, offset=0, dim1=0, dim2=1):
    nd = input.ndim
    if wrap_dim(dim1, nd) == wrap_dim(dim2, nd):
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return paddle.diagonal(input, offset=offset, axis1=wrap_dim(dim1, nd),
                           axis2=wrap_dim(dim2, nd))


@torch_function("torch.broadcast_shapes")
def broadcast_shapes(*shapes):
    """torch's rule in Python (Paddle 2.6's broadcast_shape turns a 0 into -1)."""
    out = []
    for s in shapes:
        s = [int(s)] if isinstance(s, int) else [int(n) for n in s]
        if any(n < 0 for n in s):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(s)}: {s}")
        a, b = [1] * (len(s) - len(out)) + out, [1] * (len(out) - len(s)) + s
        if any(p != q and p != 1 and q != 1 for p, q in zip(a, b)):
            raise RuntimeError(f"Shape mismatch: objects cannot be broadcast to a single shape. "
                               f"Mismatch is between {out} and {s}.")
        out = [q if p == 1 else p for p, q in zip(a, b)]
    return Size(out)


@opmath_function("torch.broadcast_tensors")
@view_op("torch.broadcast_tensors")
def broadcast_tensors(*tensors):
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape = list(broadcast_shapes(*[t.shape for t in tensors]))
    # torch: expand views (paddle.broadcast_tensors' backward segfaults when an operand does
    # not require grad: paddle_shims.broadcast_tensors)
    return tuple(broadcast_to(t, shape) for t in tensors)


@opmath_function("torch.atleast_2d")
def atleast_2d(*tensors):
    def one(t):
        return t.reshape([1, 1]) if t.ndim == 0 else t.reshape([1, t.shape[0]]) \
            if t.ndim == 1 else t
    if len(tensors) == 1 and isinstance(tensors[0], paddle.Tensor):
        return one(tensors[0])
    ts = tensors[0] if len(tensors) == 1 else tensors
    return tuple(one(t) for t in ts)


@opmath_function("torch.fill")
def fill(input, value):
    if isinstance(value, paddle.Tensor):
        value = value.item()
    return _full(list(input.shape), value, input.dtype, input)
