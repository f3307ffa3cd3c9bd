"""torch's "Reduction Ops" and "Comparison Ops" (torch.html) beyond ops_reduce.py, from torch's
OpInfo database: aminmax, nansum, nanmean, kthvalue, msort, logcumsumexp, and searching and
counting (isin, bucketize, searchsorted, bincount, histc)."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: aminmax bincount bucketize histc isin kthvalue logcumsumexp msort nanmean nansum
        searchsorted std_mean var_mean
    torch.Tensor: aminmax bincount histc kthvalue logcumsumexp msort nanmean nansum std_mean
        var_mean
""")

import builtins

import paddle

from . import ops_reduce as _red
from . import ops_sorting as _sorting
from ._opbase import _INTS, _full, _name, _operands, op, wrap_dim, _return_type
from .ops_pointwise import _f, _is_complex, _is_float, _legacy, _shape_result  # shared helpers


# -- reductions --------------------------------------------------------------------------------
AminmaxResult = _return_type("aminmax", ("min", "max"))


AminmaxOutResult = _return_type("aminmax_out", ("min", "max"))  # torch's type with out=

# the C++ type names torch's aminmax out= message uses
_C_TYPE = {"float32": "float", "float64": "double", "int64": "long int", "int32": "int",
           "int16": "short int", "int8": "signed char", "uint8": "unsigned char", "bool": "bool",
           "float16": "c10::Half", "bfloat16": "c10::BFloat16",
           "complex64": "c10::complex<float>", "complex128": "c10::complex<double>"}


@op("torch.aminmax", method=True)
def aminmax(input, *, dim=None, keepdim=False, out=None):
    if out is not None:  # torch: each out must have the input's dtype exactly (no cast)
        for o in out:
            if o.dtype != input.dtype:
                n = _name(input.dtype)
                raise RuntimeError(f"Expected out tensor to have dtype {_C_TYPE.get(n, n)}, but "
                                   f"got {_C_TYPE.get(_name(o.dtype), _name(o.dtype))} instead")
    if input.size == 0 and dim is None:
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    x = input.astype("int32") if _name(input.dtype) == "bool" else input
    mn = _red.amin(x, () if dim is None else dim, keepdim)
    mx = _red.amax(x, () if dim is None else dim, keepdim)
    mn, mx = mn.astype(input.dtype), mx.astype(input.dtype)
    return _shape_result(AminmaxOutResult, mn, mx, out) if out is not None else \
        AminmaxResult(mn, mx)


def _stat_mean(torch_name, stat):
    def fn(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
        if isinstance(dim, bool):  # var_mean(x, True): the unbiased flag, positionally
            dim, unbiased = None, dim
        s = stat(input, dim, unbiased, keepdim, correction=correction)
        m = _red.mean(input, dim, keepdim)
        return s, m
    fn.__name__ = fn.__qualname__ = torch_name
    return op(f"torch.{torch_name}", method=True)(fn)


var_mean = _stat_mean("var_mean", _red.var)
std_mean = _stat_mean("std_mean", _red.std)


@op("torch.nansum", method=True, out=True)
def nansum(input, dim=None, keepdim=False, *, dtype=None):
    if _is_complex(input):
        raise RuntimeError("nansum does not support complex inputs")
    x = paddle.where(paddle.isnan(input), paddle.zeros_like(input), input) \
        if _is_float(input) else input
    return _red.sum(x, dim, keepdim, dtype=dtype)


@op("torch.nanmean", method=True, out=True)
def nanmean(input, dim=None, keepdim=False, *, dtype=None):
    if not _is_float(input) and not _is_complex(input):
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype "
                           f"but got {_legacy(input.dtype)}")
    keep = (~paddle.isnan(input)).astype(input.dtype)
    s = nansum(input, dim, keepdim, dtype=dtype)
    return s / _red.sum(keep, dim, keepdim, dtype=dtype)


@op("torch.kthvalue", method=True)
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d] if input.ndim else 1
    if input.ndim and n == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if k < 1 or k > n:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    if out is not None and builtins.any(o is input for o in out):
        raise RuntimeError("unsupported operation: some elements of the input tensor and the "
                           "written-to tensor refer to a single memory location. Please clone() "
                           "the tensor before performing the operation.")
    x = input.reshape([1]) if input.ndim == 0 else input
    i = _sorting.kth_index(x, k, d)  # torch's quickselect position among equal values
    v = paddle.take_along_axis(x, i, d)
    if not keepdim or input.ndim == 0:
        v, i = v.squeeze(d), i.squeeze(d)
    if input.ndim == 0:
        v, i = v.reshape([]), i.reshape([])
    return _shape_result(_red.KthResult if hasattr(_red, "KthResult") else
                         _return_type("kthvalue"), v, i, out)


@op("torch.msort", method=True, out=True)
def msort(input):
    return _sorting.sort(input, 0).values if input.ndim else input.clone()


@op("torch.logcumsumexp", method=True, out=True)
def logcumsumexp(input, dim):
    d = wrap_dim(dim, input.ndim)
    x = _f(input)
    if x.ndim == 0:
        return x.clone()
    if x.size == 0:
        return x.clone()
    return paddle.logcumsumexp(x, axis=d)


# -- batch 2: search / counting ----------------------------------------------------------------
@op("torch.isin", out=True)
def isin(elements, test_elements, *, assume_unique=False, invert=False):
    like = elements if isinstance(elements, paddle.Tensor) else test_elements
    e = elements if isinstance(elements, paddle.Tensor) else _full([], elements, like.dtype, like)
    t = test_elements if isinstance(test_elements, paddle.Tensor) else \
        _full([], test_elements, like.dtype, like)
    a, b = _operands(e, t)
    if b.size == 0:
        r = paddle.zeros(a.shape, "bool")
    else:
        r = (a.unsqueeze(-1) == b.reshape([-1])).any(-1)
    return paddle.logical_not(r) if invert else r


@op("torch.bucketize", out=True)
def bucketize(input, boundaries, *, out_int32=False, right=False):
    x = input if isinstance(input, paddle.Tensor) else _full([], input, boundaries.dtype,
                                                              boundaries)
    if boundaries.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries.ndim})")
    r = paddle.searchsorted(boundaries, x.astype(boundaries.dtype) if x.dtype != boundaries.dtype
                            else x, out_int32=out_int32, right=right)
    return r


@op("torch.searchsorted", out=True)
def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None):
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    seq = sorted_sequence
    if sorter is not None:
        seq = paddle.take_along_axis(seq, sorter, -1)
    x = input if isinstance(input, paddle.Tensor) else _full([], input, seq.dtype, seq)
    if x.ndim == 0 and seq.ndim == 1:
        return paddle.searchsorted(seq, x.reshape([1]), out_int32=out_int32,
                                   right=right).reshape([])
    if seq.ndim > 1 and list(seq.shape[:-1]) != list(x.shape[:-1]):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or the "
                           "first N-1 dimensions of boundaries tensor and input value tensor "
                           "must match")
    return paddle.searchsorted(seq, x.astype(seq.dtype) if x.dtype != seq.dtype else x,
                               out_int32=out_int32, right=right)


@op("torch.bincount", method=True)
def bincount(input, weights=None, minlength=0):
    if input.ndim != 1:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if _name(input.dtype) not in _INTS or _name(input.dtype) == "bool":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.size and int(input.min()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    n = builtins.max(minlength, int(input.max()) + 1 if input.size else 0)
    if weights is None:
        if input.size == 0:
            return paddle.zeros([n], "int64")
        return paddle.bincount(input.astype("int64"), minlength=n).astype("int64")
    wdt = "float32" if _name(weights.dtype) == "float32" else "float64"
    if input.size == 0:
        return paddle.zeros([n], wdt)
    return paddle.bincount(input.astype("int64"), weights.astype("float64"),
                           minlength=n).astype(wdt)


@op("torch.histc", method=True, out=True)
def histc(input, bins=100, min=0, max=0):  # noqa: A002 - torch's names
    if not _is_float(input):
        raise NotImplementedError(f'"histogram_cpu" not implemented for '
                                  f"'{_legacy(input.dtype)}'")
    if bins <= 0:
        raise RuntimeError("torch.histc(): bins must be > 0")
    lo, hi = float(min), float(max)
    if lo == hi and input.size:
        lo, hi = float(input.min()), float(input.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    if lo > hi:
        raise RuntimeError("torch.histc(): max must be larger than min")
    if input.size == 0:
        return paddle.zeros([bins], input.dtype)
    x = input.astype("float64").reshape([-1])
    # tensor operands: Paddle 2.6 applies Python scalars through a float32 attribute
    lo_t, hi_t, bins_t, width_t = (_full([], v, x.dtype, x) for v in (lo, hi, bins, hi - lo))
    inside = (x >= lo_t) & (x <= hi_t)
    idx = paddle.floor((x - lo_t) * bins_t / width_t).astype("int64")
    idx = paddle.clip(idx, 0, bins - 1)
    idx = paddle.masked_select(idx, inside)
    if idx.size == 0:
        return paddle.zeros([bins], input.dtype)
    return paddle.bincount(idx, minlength=bins).astype(input.dtype)
