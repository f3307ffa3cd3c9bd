"""torch names from OpInfo's "other" group, with torch's semantics on Paddle ops:
``torch.unravel_index`` (torch/functional.py's code: floor division by the row-major
coefficients, modulo the shape, one int64 tensor per dimension), ``torch.constant_pad_nd``
(ATen's pad: pairs from the last dimension, negative pads crop, any dtype incl. bool),
``torch._chunk_cat`` (torch's decomposition: each tensor padded with zeros to a multiple of
``num_chunks`` along ``dim``, viewed as ``(..., num_chunks, -1)`` and concatenated) and
``torch.gradient`` (ATen's central differences with uniform or coordinate spacing and
first/second-order edges).  All differentiable where torch's are."""
from __future__ import annotations

import itertools
import math
import numbers
import operator

import paddle

from ._opbase import _name, wrap_dim
from .registry import TABLE, torch_function

from .registry import manifest

NAMES = manifest("""
    torch: _chunk_cat _segment_reduce constant_pad_nd gradient unravel_index
""")

_INTS = ("uint8", "int8", "int16", "int32", "int64")


def _t(name):
    return TABLE[name].impl


@torch_function("torch.unravel_index")
def unravel_index(indices, shape):
    if not isinstance(indices, paddle.Tensor):  # torch's Python code fails on is_complex()
        raise AttributeError(f"unravel_index(): indices must be a Tensor, not "
                             f"{type(indices).__name__} (it has no attribute 'is_complex')")
    if _name(indices.dtype) not in _INTS:
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, bool) or not isinstance(shape, (int, list, tuple)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if isinstance(shape, int):
        shape = [shape]
    for d in shape:
        if not isinstance(d, int) or isinstance(d, bool):
            raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(d)}")
    if any(d < 0 for d in shape):
        raise ValueError(f"'shape' cannot have negative values, but got {tuple(shape)}")
    coefs = list(reversed(list(itertools.accumulate(reversed(list(shape[1:]) + [1]),
                                                    func=operator.mul))))
    idx = indices.astype("int64").unsqueeze(-1)
    c = paddle.to_tensor(coefs, dtype="int64", place=indices.place)
    s = paddle.to_tensor(list(shape), dtype="int64", place=indices.place)
    if idx.size == 0:
        res = paddle.zeros(idx.shape[:-1] + [len(shape)], dtype="int64")
    else:
        res = _t("torch.remainder")(_t("torch.floor_divide")(idx, c), s)
    return tuple(res[..., i] for i in range(len(shape)))


def _fill(shape, value, like):
    return paddle.full(shape, value, dtype=like.dtype)


@torch_function("torch.constant_pad_nd")
def constant_pad_nd(input, pad, value=0):
    if not isinstance(input, paddle.Tensor):
        raise TypeError(f"constant_pad_nd(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    pad = list(pad)
    if len(pad) % 2:
        raise RuntimeError(f"Length of pad must be even but instead it equals {len(pad)}")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions "
                           f"of the input. Pad length is {len(pad)} while the input has "
                           f"{input.ndim} dimensions.")
    new_shape = list(input.shape)
    for i in range(len(pad) // 2):
        d = input.ndim - 1 - i
        new_shape[d] += pad[2 * i] + pad[2 * i + 1]
        if new_shape[d] < 0:
            raise RuntimeError(f"The input size {input.shape[d]}, plus negative padding "
                               f"{pad[2 * i]} and {pad[2 * i + 1]} resulted in a negative output "
                               f"size, which is invalid. Check dimension {d} of your input.")
    x = input
    if isinstance(value, bool) or _name(x.dtype) == "bool":
        value = bool(value)
    elif _name(x.dtype) in _INTS:
        value = int(value)
    for i in range(len(pad) // 2):
        d = x.ndim - 1 - i
        left, right = pad[2 * i], pad[2 * i + 1]
        n = x.shape[d]
        start, stop = max(-left, 0), n - max(-right, 0)
        if start or stop != n:  # negative pads crop
            x = paddle.slice(x, [d], [start], [max(stop, start)])
        if left > 0 or right > 0:
            target = x.shape[:d] + [x.shape[d] + max(left, 0) + max(right, 0)] + x.shape[d + 1:]
            parts = [p for p in (_fill(x.shape[:d] + [left] + x.shape[d + 1:], value, x)
                                 if left > 0 else None, x,
                                 _fill(x.shape[:d] + [right] + x.shape[d + 1:], value, x)
                                 if right > 0 else None) if p is not None and p.size]
            x = paddle.concat(parts, axis=d) if len(parts) > 1 else parts[0] if parts else \
                _fill(target, value, x)
    return x


@torch_function("torch._chunk_cat")
def _chunk_cat(tensors, dim, num_chunks, *, out=None):
    from ._opbase import write_out
    tensors = list(tensors)
    if num_chunks < 1:
        raise RuntimeError("_chunk_cat expects positive num_chunks")
    if not tensors:
        raise RuntimeError("_chunk_cat expects a non-empty input tensor list")
    for t in tensors:
        if t.size == 0:
            raise RuntimeError("_chunk_cat expects non-empty tensor")
        if t.dtype != tensors[0].dtype:
            raise RuntimeError("_chunk_cat expects all input tensors with the same dtype")
    if all(t.ndim == tensors[0].ndim for t in tensors):
        dim = wrap_dim(dim, tensors[0].ndim)
    else:
        if dim < 0:
            raise RuntimeError("_chunk_cat expects non-negative dim when input tensors have "
                               "different ndims")
        for t in tensors:
            if dim >= t.ndim:
                raise RuntimeError("_chunk_cat expects dim < ndim for all input tensors")
    lead = list(tensors[0].shape[:dim])
    for t in tensors:
        if list(t.shape[:dim]) != lead:
            raise RuntimeError("_chunk_cat expects same sizes of 0,...,dim-1 dimensions for all "
                               "tensors")
    padded = []
    for t in tensors:
        n = t.shape[dim]
        full = (n + num_chunks - 1) // num_chunks * num_chunks
        if full != n:
            t = constant_pad_nd(t, [0] * 2 * (t.ndim - dim - 1) + [0, full - n], 0)
        padded.append(t.reshape(lead + [num_chunks, -1]))
    return write_out(paddle.concat(padded, axis=dim + 1), out)


# -- torch.gradient (ATen's gradient: central differences, edge_order 1 or 2) ------------------
def _gradient_dims(input, spacing, dim, edge_order):
    if dim is None:
        dims = list(range(input.ndim))
    elif isinstance(dim, int):
        dims = [wrap_dim(dim, input.ndim)]
    else:
        dims = [wrap_dim(d, input.ndim) for d in dim]
        if len(set(dims)) != len(dims):
            raise RuntimeError("dim appears multiple times in the list of dims")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if spacing is None:
        spacing = 1.0
    if isinstance(spacing, numbers.Number) and not isinstance(spacing, bool):
        sp = [spacing] * len(dims)
    elif isinstance(spacing, (list, tuple)):
        sp = list(spacing)
        if len(sp) != len(dims):
            raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar or "
                               f"it's spacing and dim arguments to have the same length, but got "
                               f"a spacing argument of length {len(sp)} and a dim argument of "
                               f"length {len(dims)}.")
    else:
        raise TypeError(f"gradient(): argument 'spacing' must be a number or a sequence, not "
                        f"{type(spacing).__name__}")
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    return dims, sp


def _sl(x, d, start, stop):
    return paddle.slice(x, [d], [start], [stop])


def _bshape(v, ndim, d):
    shape = [1] * ndim
    shape[d] = -1
    return v.reshape(shape)


def _grad_uniform(x, d, h, edge_order):
    n = x.shape[d]
    center = (_sl(x, d, 2, n) - _sl(x, d, 0, n - 2)) / (2 * h)
    if edge_order == 1:
        first = (_sl(x, d, 1, 2) - _sl(x, d, 0, 1)) / h
        last = (_sl(x, d, n - 1, n) - _sl(x, d, n - 2, n - 1)) / h
    else:
        a, b, c = -1.5 / h, 2.0 / h, -0.5 / h
        first = a * _sl(x, d, 0, 1) + b * _sl(x, d, 1, 2) + c * _sl(x, d, 2, 3)
        last = -c * _sl(x, d, n - 3, n - 2) - b * _sl(x, d, n - 2, n - 1) - a * _sl(x, d, n - 1, n)
    return paddle.concat([first, center, last], axis=d)


def _grad_coords(x, d, coords, edge_order):
    n = x.shape[d]
    ax = coords.astype(x.dtype) if _name(coords.dtype) in _INTS else coords
    dx = ax[1:] - ax[:-1]
    a = -dx[1:] / (dx[:-1] * (dx[:-1] + dx[1:]))
    b = (dx[1:] - dx[:-1]) / (dx[:-1] * dx[1:])
    c = dx[:-1] / (dx[1:] * (dx[:-1] + dx[1:]))
    nd = x.ndim
    center = _bshape(a, nd, d) * _sl(x, d, 0, n - 2) + _bshape(b, nd, d) * _sl(x, d, 1, n - 1) + \
        _bshape(c, nd, d) * _sl(x, d, 2, n)
    if edge_order == 1:
        first = (_sl(x, d, 1, 2) - _sl(x, d, 0, 1)) / dx[0]
        last = (_sl(x, d, n - 1, n) - _sl(x, d, n - 2, n - 1)) / dx[-1]
    else:
        d1, d2 = dx[0], dx[1]
        a0 = -(2. * d1 + d2) / (d1 * (d1 + d2))
        b0 = (d1 + d2) / (d1 * d2)
        c0 = -d1 / (d2 * (d1 + d2))
        first = a0 * _sl(x, d, 0, 1) + b0 * _sl(x, d, 1, 2) + c0 * _sl(x, d, 2, 3)
        d1, d2 = dx[-2], dx[-1]
        a1 = d2 / (d1 * (d1 + d2))
        b1 = -(d2 + d1) / (d1 * d2)
        c1 = (2. * d2 + d1) / (d2 * (d1 + d2))
        last = a1 * _sl(x, d, n - 3, n - 2) + b1 * _sl(x, d, n - 2, n - 1) + \
            c1 * _sl(x, d, n - 1, n)
    return paddle.concat([first, center, last], axis=d)


@torch_function("torch.gradient")
def gradient(input, *, spacing=1, dim=None, edge_order=1):
    if not isinstance(input, paddle.Tensor):
        raise TypeError(f"gradient(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    dims, sp = _gradient_dims(input, spacing, dim, edge_order)
    x = input
    if _name(x.dtype) in _INTS + ("bool",):
        from .creation import default_float
        x = x.astype(default_float())
    out = []
    for d, h in zip(dims, sp):
        if isinstance(h, paddle.Tensor) and h.ndim == 1:
            if h.shape[0] != input.shape[d]:
                raise RuntimeError(f"torch.gradient expected each tensor to be on the same device "
                                   f"and have the same size as dimension {d} of input")
            out.append(_grad_coords(x, d, h, edge_order))
        else:
            hv = h.item() if isinstance(h, paddle.Tensor) else h
            out.append(_grad_uniform(x, d, hv, edge_order))
    return tuple(out)


# -- torch._segment_reduce (ATen's SegmentReduce.cpp: lengths or offsets along `axis`) ---------
_SEG_START = {"max": -math.inf, "min": math.inf, "sum": 0.0, "mean": 0.0, "prod": 1.0}


@torch_function("torch._segment_reduce")
def _segment_reduce(data, reduce, *, lengths=None, indices=None, offsets=None, axis=0,
                    unsafe=False, initial=None):
    if not isinstance(data, paddle.Tensor):
        raise TypeError(f"segment_reduce(): argument 'data' (position 1) must be Tensor, not "
                        f"{type(data).__name__}")
    if reduce not in _SEG_START:
        raise RuntimeError(f"reduce argument must be either sum, prod, max, min or mean, got "
                           f"{reduce}")
    if indices is not None:
        raise RuntimeError("segment_reduce(): indices based reduction is not supported yet.")
    if (lengths is None) == (offsets is None):
        raise RuntimeError("segment_reduce(): Either lengths or offsets must be defined")
    axis = wrap_dim(axis, data.ndim)
    if lengths is None:
        lengths = offsets[..., 1:] - offsets[..., :-1]
    lengths = lengths.astype("int64")
    if lengths.ndim != axis + 1:
        raise RuntimeError("Expected lengths/offsets to have axis + 1 dimensions")
    n = data.shape[axis]
    if not unsafe:
        if bool((lengths < 0).any()):
            raise RuntimeError("lengths contains negative value!")
        if lengths.size and bool((lengths.sum(-1) != n).any()):
            raise RuntimeError("Expected all rows of lengths along axis to sum to "
                               "data.size(lengths.dim()-1) when !unsafe.")
    nseg = lengths.shape[-1]
    ends = paddle.cumsum(lengths, axis=-1)
    starts = ends - lengths
    pos = paddle.arange(n, dtype="int64")
    # member[..., k, p]: position p of `axis` lies in segment k
    member = (starts.unsqueeze(-1) <= pos) & (pos < ends.unsqueeze(-1))
    trail = data.ndim - axis - 1
    member = member.reshape(member.shape + [1] * trail)
    x = data.unsqueeze(axis)  # lead + [1, n] + trail
    start = _SEG_START[reduce] if initial is None else float(initial)
    full = member.expand(member.shape[:axis + 2] + x.shape[axis + 2:])
    x = x.expand(full.shape)
    if reduce in ("sum", "mean"):
        r = paddle.where(full, x, paddle.zeros_like(x)).sum(axis + 1) + start
    elif reduce == "prod":
        r = paddle.where(full, x, paddle.ones_like(x)).prod(axis + 1) * start
    else:
        fill = math.inf if reduce == "min" else -math.inf
        vals = paddle.where(full, x, paddle.full_like(x, fill))
        r = (vals.min(axis + 1) if reduce == "min" else vals.max(axis + 1))
        r = paddle.minimum(r, paddle.full_like(r, start)) if reduce == "min" else \
            paddle.maximum(r, paddle.full_like(r, start))
        has_nan = (paddle.isnan(x) & full).any(axis + 1)
        r = paddle.where(has_nan, paddle.full_like(r, math.nan), r)
    if reduce == "mean":
        cnt = lengths.astype(data.dtype).reshape(lengths.shape + [1] * trail)
        empty = cnt == 0
        r = paddle.where(empty, paddle.full_like(r, math.nan if initial is None else start),
                         r / paddle.where(empty, paddle.ones_like(cnt), cnt))
    return r
