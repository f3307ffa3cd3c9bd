"""torch reductions: sum/mean/max/min/amax/argmax/softmax/quantile/median/mode/unique/
histograms... (ops.py's docstring lists what torch does differently from Paddle and we follow;
sort/argsort/topk and the order among equal values that median/mode use: ops_sorting.py)."""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: all amax amin any argmax argmin count_nonzero cummax cummin cumprod cumsum hash_tensor
        histogram histogramdd log_softmax logsumexp max mean median min mode nanmedian nanquantile
        norm prod quantile return_types softmax std sum unique unique_consecutive var
    torch.Tensor: all amax amin any argmax argmin count_nonzero cummax cummin cumprod cumprod_
        cumsum cumsum_ hash_tensor histogram log_softmax logsumexp max mean median min mode
        nanmedian nanquantile norm prod quantile softmax std sum unique unique_consecutive var
    torch.return_types: cummax cummin histogram histogramdd kthvalue max median min mode nanmedian
        sort topk
""")

import builtins  # this module shadows builtins (sum, max, any...)
import math

import paddle

from . import dtypes as _dt
from . import ops  # torch.max(a, b): the elementwise op
from ._accurate_sum import accurate_mean, accurate_sum
from ..errors import NotProvidedError
from .linalg import matrix_norm, vector_norm
from ._opbase import log_softmax_kernel
from ._opbase import (_LEGACY_NAMES, CummaxResult, CumminResult, KthResult, MaxResult, MedianResult, MinResult,
                      ModeResult, SortResult, TopkResult, kernel_empty, _FLOATS, _INTS, _dims,
                      _float_input, _float_kernel, _full, _name, _prod, _reduced_shape,
                      _return_type, _to_dtype, _write_out, opmath_function, op,
                      wrap_dim)
from ..paddle_shims import HAS_VIEW_DTYPE, IS_PADDLE_2
from .ops_sorting import (_copy, _from_rows, _host_order_ok, _nobool, _rows, _stable_argsort,
                          _torch_mode_row, _zero_index)
from .registry import module, type_


# Paddle 2.6 rejects reductions of 0-size tensors ("Tensor need be reduced must not empty"):
# there the empty results are made with torch's identity values (no autograd graph; 3.x reduces
# empty tensors itself and keeps the graph).  Remove with Paddle 2.6 support.
_EMPTY_REDUCE_FAILS = IS_PADDLE_2


def _empty_reduced(r, x):
    """An identity-valued result standing for a reduction of the empty ``x`` on Paddle 2.6:
    it requires grad when a floating ``x`` does (torch's does; ``loss.backward()`` must run,
    not raise 'does not require grad').  No gradient reaches ``x`` (Paddle 2.6 segfaults on
    0-size gradients in slice_grad: docs/memory-model.md)."""
    if not x.stop_gradient and paddle.is_grad_enabled() and \
            (x.is_floating_point() or x.is_complex()):
        r.stop_gradient = False
    return r


# -- reductions --------------------------------------------------------------------------------
def _reduce_dtype(x, dtype, int_to_int64=True):
    if dtype is not None:
        return x.astype(_to_dtype(dtype))
    if int_to_int64 and _name(x.dtype) in _INTS:
        return x.astype("int64")
    return x


@op("torch.sum", method=True)
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):  # noqa: A001
    x = _reduce_dtype(input, dtype)
    axis = _dims(dim, x.ndim)
    if x.size == 0 and _EMPTY_REDUCE_FAILS:  # torch: the empty sum is 0
        return _write_out(_empty_reduced(_full(_reduced_shape(x.shape, axis, keepdim), 0,
                                               x.dtype, x), x), out)
    if x.dtype == paddle.bool:  # sum(dtype=torch.bool): any
        return _write_out(paddle.any(x, axis=axis, keepdim=keepdim), out)
    return _write_out(accurate_sum(x, axis, keepdim), out)  # (torch's accuracy)


@op("torch.prod", method=True)
def prod(input, dim=None, keepdim=False, *, dtype=None):
    x = _reduce_dtype(input, dtype)
    axis = None if dim is None else wrap_dim(dim, x.ndim)
    if x.size == 0 and _EMPTY_REDUCE_FAILS:  # torch: the empty product is 1
        return _empty_reduced(_full(_reduced_shape(x.shape, None if axis is None else [axis],
                                                   keepdim), 1, x.dtype, x), x)
    r = paddle.prod(_nobool(x), axis=axis, keepdim=keepdim)
    return r.astype(x.dtype) if r.dtype != x.dtype else r


@op("torch.mean", method=True)
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    x = input if dtype is None else input.astype(_to_dtype(dtype))
    n = _name(x.dtype)
    if n not in _FLOATS and not n.startswith("complex"):
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {n.capitalize()}")
    axis = _dims(dim, x.ndim)
    if x.size == 0 and _EMPTY_REDUCE_FAILS:  # torch: the empty mean is nan
        return _write_out(_empty_reduced(_full(_reduced_shape(x.shape, axis, keepdim),
                                               float("nan"), x.dtype, x), x), out)
    return _write_out(accurate_mean(x, axis, keepdim), out)  # (torch's accuracy)


def _var_correction(unbiased, correction):
    if correction is not None:
        return correction
    return 1 if unbiased is None or unbiased else 0


@op("torch.var", method=True)
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    if isinstance(dim, bool):  # torch.var(x, False): the old unbiased positional
        dim, unbiased = None, dim
    c = _var_correction(unbiased, correction)
    axis = _dims(dim, input.ndim)
    m = mean(input, axis, True)
    n = input.size if axis is None else _prod([input.shape[d] for d in axis])
    s = sum((input - m) ** 2, axis, keepdim)
    return s / (n - c) if n - c > 0 else s / 0.0  # torch: inf/nan when n <= correction


@op("torch.std", method=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return paddle.sqrt(var(input, dim, unbiased, keepdim, correction=correction))


def _minmax(torch_name, reduce_all, reduce_dim, elementwise, result_cls):
    def fn(input, dim=None, keepdim=False, *, out=None):
        if isinstance(dim, paddle.Tensor):  # torch.max(a, b)
            return _write_out(ops.BINARY[elementwise](input, dim), out)
        if dim is None:
            if keepdim:
                raise TypeError(f"{torch_name}() received an invalid combination of arguments")
            if input.size == 0:
                raise RuntimeError(f"{torch_name}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            return reduce_all(_nobool(input)).astype(input.dtype)
        d = wrap_dim(dim, input.ndim)
        if input.ndim == 0:
            return result_cls(input.clone(), _full([], 0, _dt.DTYPES["int64"], input))
        if input.shape[d] == 0:
            raise IndexError(f"{torch_name}(): Expected reduction dim {d} to have non-zero size.")
        x = _nobool(input)
        values = reduce_dim(x, axis=d, keepdim=keepdim).astype(input.dtype)
        indices = (paddle.argmax if torch_name == "max" else paddle.argmin)(
            x, axis=d, keepdim=True)
        if not input.stop_gradient and paddle.is_grad_enabled():
            # torch's gradient goes to the returned index only (Paddle's max/min split it
            # among ties: 0.5 each on 3.3).  The gathered values equal the reduced ones, so
            # adding their detached difference keeps the values (NaN included) exactly
            picked = paddle.take_along_axis(input, indices, axis=d)
            if not keepdim:
                picked = picked.squeeze(d)
            values = picked + (values - picked).detach()
        if not keepdim:
            indices = indices.squeeze(d)
        return result_cls(values, indices.astype("int64"))
    fn.__name__ = torch_name
    return op(f"torch.{torch_name}", method=True)(fn)


max = _minmax("max", paddle.max, paddle.max, "maximum", MaxResult)  # noqa: A001


min = _minmax("min", paddle.min, paddle.min, "minimum", MinResult)  # noqa: A001


def _check_empty_reduce(x, axis, op):
    for i in (range(x.ndim) if axis is None else axis):
        if x.shape[i] == 0:
            raise IndexError(f"{op}(): Expected reduction dim {i} to have non-zero size.")


def _extreme(torch_name, paddle_fn):
    """torch.amax / torch.amin: an empty input reduces to an empty result (or IndexError when
    a reduced dim is 0), where Paddle would raise."""
    def fn(input, dim=(), keepdim=False, *, out=None):
        axis = _dims(dim, input.ndim)
        if input.size == 0:
            if axis is None:
                raise RuntimeError(f"{torch_name}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            _check_empty_reduce(input, axis, torch_name)
            if _EMPTY_REDUCE_FAILS:  # an empty result (Paddle 3 reduces it in the graph)
                return _write_out(_empty_reduced(kernel_empty(
                    _reduced_shape(input.shape, axis, keepdim), input.dtype, input.place),
                    input), out)
        r = paddle_fn(_nobool(input), axis=axis, keepdim=keepdim)
        return _write_out(r.astype(input.dtype) if r.dtype != input.dtype else r, out)
    fn.__name__ = torch_name
    return op(f"torch.{torch_name}", method=True)(fn)


amax = _extreme("amax", paddle.amax)
amin = _extreme("amin", paddle.amin)


def _arg(torch_name, paddle_fn):
    def fn(input, dim=None, keepdim=False):
        if input.ndim == 0:  # Paddle gives shape [1]; torch a 0-d index (after its dim check)
            if dim is not None:
                wrap_dim(dim, 0)
            return _full([], 0, _dt.DTYPES["int64"], input)
        if dim is None:
            r = paddle_fn(input.reshape([-1]), axis=0)
            return r.reshape([1] * input.ndim) if keepdim else r.reshape([])
        return paddle_fn(input, axis=wrap_dim(dim, input.ndim), keepdim=keepdim).astype("int64")
    fn.__name__ = torch_name
    return op(f"torch.{torch_name}", method=True)(fn)


argmax = _arg("argmax", paddle.argmax)


argmin = _arg("argmin", paddle.argmin)


@op("torch.all", method=True)
def all(input, dim=None, keepdim=False):  # noqa: A001
    x = input.astype("bool")
    r = paddle.all(x, axis=_dims(dim, x.ndim), keepdim=keepdim)
    return r.astype("uint8") if _name(input.dtype) == "uint8" else r


@op("torch.any", method=True)
def any(input, dim=None, keepdim=False):  # noqa: A001
    x = input.astype("bool")
    r = paddle.any(x, axis=_dims(dim, x.ndim), keepdim=keepdim)
    return r.astype("uint8") if _name(input.dtype) == "uint8" else r


@op("torch.logsumexp", method=True)
def logsumexp(input, dim, keepdim=False):
    """torch's formula: the max is taken out only where it is finite, so all -inf gives -inf
    and an inf gives inf (not nan); an empty reduction is -inf."""
    x = _float_input(input)
    axis = _dims(dim, x.ndim)
    if x.size == 0:
        if _EMPTY_REDUCE_FAILS:
            return _empty_reduced(_full(_reduced_shape(x.shape, axis, keepdim), float("-inf"),
                                        x.dtype, x), x)
        return paddle.log(paddle.sum(paddle.exp(x), axis=axis, keepdim=keepdim))
    m = paddle.amax(x, axis=axis, keepdim=True).detach()
    m = paddle.where(paddle.isinf(m), paddle.zeros_like(m), m)
    r = paddle.log(paddle.sum(paddle.exp(x - m), axis=axis, keepdim=keepdim))
    return r + (m if keepdim else m.reshape(r.shape))


@op("torch.cumsum", method=True, inplace=True)
def cumsum(input, dim, *, dtype=None, out=None):
    x = _reduce_dtype(input, dtype)
    return _write_out(paddle.cumsum(x, axis=wrap_dim(dim, x.ndim)), out)


@op("torch.cumprod", method=True, inplace=True, out=True)
def cumprod(input, dim, *, dtype=None):
    x = _reduce_dtype(input, dtype)
    return paddle.cumprod(x, dim=wrap_dim(dim, x.ndim))


def _dim_or_axis(dim, axis, fn):
    """torch's argument parser takes ``axis=`` as an alias of ``dim=`` (numpy style)."""
    if axis is not None:
        if dim is not None:
            raise TypeError(f"{fn}() got multiple values for argument 'dim'")
        return axis
    if dim is None:
        raise TypeError(f"{fn}() missing 1 required positional arguments: \"dim\"")
    return dim


def _softmax_like(kernel, name, input, dim, dtype, axis):
    """softmax/log_softmax: ``dtype=`` casts the input first; float kernels only."""
    dim = _dim_or_axis(dim, axis, name)
    x = input if dtype is None else input.astype(_to_dtype(dtype))
    _float_kernel(x, name)
    return kernel(x, axis=wrap_dim(dim, x.ndim))


@op("torch.softmax", method=True)
def softmax(input, dim=None, dtype=None, *, axis=None):
    return _softmax_like(paddle.nn.functional.softmax, "softmax", input, dim, dtype, axis)


@op("torch.log_softmax", method=True)
def log_softmax(input, dim=None, dtype=None, *, axis=None):
    return _softmax_like(log_softmax_kernel, "log_softmax", input, dim, dtype, axis)


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    """Tensor.norm(p, dim, keepdim, dtype): no out= (its 4th argument is dtype)."""
    return norm(self, p, dim, keepdim, dtype=dtype)


@op("torch.norm", method=_norm_method)
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.functional.norm's rule: "fro" (over at most 2 dims) and numbers are vector norms,
    other strings ("nuc", or "fro" over more dims) matrix norms (facade/linalg.py)."""
    _dim = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, _dim, keepdim, dtype=dtype, out=out)
        if _dim is None:
            _dim = list(range(input.ndim))
        return matrix_norm(input, p, _dim, keepdim, dtype=dtype, out=out)
    return vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype=dtype, out=out)


@op("torch.count_nonzero", method=True)
def count_nonzero(input, dim=None):
    return sum((input != 0).astype("int64"), _dims(dim, input.ndim))


# -- order statistics: quantile, median, mode, kth value ----------------------------------------
_INTERPOLATIONS = ("linear", "lower", "higher", "midpoint", "nearest")


def _round_half_even(r):
    f = paddle.floor(r)
    diff = r - f
    odd = paddle.remainder(f, paddle.full_like(f, 2)) != 0
    up = (diff > 0.5) | ((diff == 0.5) & odd)
    return paddle.where(up, f + 1, f)


def _lerp(a, b, w):
    """torch's lerp formula (exact at both ends)."""
    return paddle.where(w < 0.5, a + w * (b - a), b - (b - a) * (1 - w))


def _quantile(name, input, q, dim, keepdim, interpolation, ignore_nan):
    """torch's quantile_impl: sort along the reduced dim, ranks q * (n - 1) in the input dtype
    (NaN rows: the last rank, so NaN; nanquantile: ranks among the non-NaN values), then
    gather and interpolate."""
    if interpolation not in _INTERPOLATIONS:
        raise RuntimeError(f"{name}() interpolation must be one of linear, lower, higher, "
                           f"midpoint or nearest. Got {interpolation}")
    if input.size == 0:
        raise RuntimeError("quantile() input tensor must be non-empty")
    if isinstance(q, paddle.Tensor):
        if q.ndim > 1:
            raise RuntimeError("quantile() q must be a scalar or 1D tensor")
    if _name(input.dtype) not in ("float32", "float64"):
        raise RuntimeError("quantile() input tensor must be either float or double dtype")
    if isinstance(q, paddle.Tensor):
        if q.dtype != input.dtype:
            raise RuntimeError("quantile() q tensor must be same dtype as the input tensor")
        if q.size and not bool(paddle.all((q >= 0) & (q <= 1))):
            raise RuntimeError("quantile() q values must be in the range [0, 1]")
        qv, scalar_q = q.reshape([-1]), q.ndim == 0
    else:
        if not 0 <= q <= 1:
            raise RuntimeError(f"quantile() q must be in the range [0, 1] but got {q:g}")
        qv, scalar_q = _full([1], q, input.dtype, input), True
    if dim is None:
        s = paddle.sort(input.reshape([-1]))
        d = None
    else:
        d = wrap_dim(dim, input.ndim)
        x = input.reshape([1]) if input.ndim == 0 else input
        s = paddle.sort(paddle.moveaxis(x, d, -1) if d != x.ndim - 1 else x, axis=-1)
    n = s.shape[-1]
    lead = list(s.shape[:-1])
    m = qv.shape[0]
    nan = paddle.isnan(s)
    if ignore_nan:
        cnt = (~nan).astype("int64").sum(-1, keepdim=True).astype(s.dtype)
        ranks = qv * (cnt - 1)
        ranks = paddle.where(ranks < 0, paddle.zeros_like(ranks), ranks)
    else:
        ranks = (qv * (n - 1)).expand(lead + [m])
        last = paddle.full_like(ranks, n - 1)
        ranks = paddle.where(nan.any(-1, keepdim=True).expand(lead + [m]), last, ranks)
    ranks = ranks.expand(lead + [m])
    if interpolation == "lower":
        ranks = paddle.floor(ranks)
    elif interpolation == "higher":
        ranks = paddle.ceil(ranks)
    elif interpolation == "nearest":
        ranks = _round_half_even(ranks)
    below = ranks.astype("int64")
    r = paddle.take_along_axis(s, below, -1)
    if interpolation in ("linear", "midpoint"):
        w = paddle.full_like(ranks, 0.5) if interpolation == "midpoint" else \
            ranks - below.astype(ranks.dtype)
        above = paddle.take_along_axis(s, paddle.ceil(ranks).astype("int64"), -1)
        r = _lerp(r, above, w)
    # r: reduced dims + [m] -> [m] + the result's shape
    if d is None:
        r = r.reshape([m] + ([1] * input.ndim if keepdim else []))
    else:
        r = paddle.moveaxis(r, -1, 0) if r.ndim > 1 else r
        if keepdim and input.ndim > 0:
            r = r.unsqueeze(d + 1)
    return r.squeeze(0) if scalar_q else r


@op("torch.quantile", method=True, out=True)
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    """torch's quantile (Triton's do_bench uses it)."""
    return _quantile("quantile", input, q, dim, keepdim, interpolation, False)


@op("torch.nanquantile", method=True, out=True)
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear"):
    return _quantile("nanquantile", input, q, dim, keepdim, interpolation, True)


NanmedianResult = _return_type("nanmedian")


def _median(name, cls, input, dim, keepdim, ignore_nan):
    """torch's median_impl / median_with_indices_impl: the lower median in (value, position)
    order -- ties resolve to the earlier position; median: NaN (the first one) when a NaN is
    present; nanmedian: the median of the non-NaN values."""
    floats = _name(input.dtype) in _FLOATS
    if input.dtype == paddle.bool:
        raise NotImplementedError(f'"{"median_cpu" if dim is None else "median_out"}" not '
                                  "implemented for 'Bool'")
    if dim is None:
        x = input.reshape([-1])
        if x.shape[0] == 0:
            return _full([], float("nan"), input.dtype, input)
        d = 0
    else:
        if input.ndim == 0:
            wrap_dim(dim, 0)
            return cls(input.clone(), _zero_index(input))
        d = wrap_dim(dim, input.ndim)
        if input.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
        x = input
        if x.size == 0:
            shape = _reduced_shape(x.shape, [d], keepdim)
            return cls(kernel_empty(shape, x.dtype, x.place),
                       kernel_empty(shape, _dt.DTYPES["int64"], x.place))
    n = x.shape[d]
    order = _stable_argsort(_nobool(x), d)
    one = list(x.shape)
    one[d] = 1
    if floats:
        isnan = paddle.isnan(x)
        nnan = isnan.astype("int64").sum(d, keepdim=True)
    if ignore_nan and floats:
        k = paddle.clip(n - nnan - 1, min=0) // 2
    else:
        k = _full(one, (n - 1) // 2, _dt.DTYPES["int64"], x)
    idx = paddle.take_along_axis(order, k, d)
    if floats and not ignore_nan:  # torch: the first NaN of the row
        first_nan = paddle.argmax(isnan.astype("int32"), axis=d, keepdim=True).astype("int64")
        idx = paddle.where(nnan > 0, first_nan, idx)
    v = paddle.take_along_axis(x, idx, d)
    if dim is None:
        return v.reshape([])
    if not keepdim:
        v, idx = v.squeeze(d), idx.squeeze(d)
    return cls(v, idx)


@op("torch.median", method=True)
def median(input, dim=None, keepdim=False):
    return _median("median", MedianResult, input, dim, keepdim, False)


@op("torch.nanmedian", method=True)
def nanmedian(input, dim=None, keepdim=False):
    return _median("nanmedian", NanmedianResult, input, dim, keepdim, True)


@op("torch.mode", method=True)
def mode(input, dim=-1, keepdim=False):
    """torch's CPU mode: values sorted with their positions, the longest run wins (the smallest
    value among equally long runs), its index is the run's last entry.  torch sorts with
    std::sort, which keeps equal values in position order for rows of up to 16 entries (its
    insertion-sort stage); for longer rows torch's index among equal values is whatever
    libstdc++'s introsort leaves, while this returns the largest position."""
    if input.ndim == 0:
        wrap_dim(dim, 0)
        return ModeResult(input.clone(), _zero_index(input))
    d = wrap_dim(dim, input.ndim)
    n = input.shape[d]
    if n == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    if input.size == 0:
        shape = _reduced_shape(input.shape, [d], keepdim)
        return ModeResult(kernel_empty(shape, input.dtype, input.place),
                          kernel_empty(shape, _dt.DTYPES["int64"], input.place))
    x = _nobool(input)
    if (n > 16 and _host_order_ok(x)) or (_name(x.dtype) in _FLOATS and
                                          bool(paddle.isnan(x).any())):
        idx = _from_rows([[_torch_mode_row(r)] for r in _rows(x, d)], x, d)
        v = paddle.take_along_axis(x, idx, d).astype(input.dtype)
        if not keepdim:
            v, idx = v.squeeze(d), idx.squeeze(d)
        return ModeResult(v, idx)
    order = _stable_argsort(x, d)
    s = paddle.take_along_axis(x, order, d)
    pos_shape = [1] * x.ndim
    pos_shape[d] = n
    pos = paddle.arange(n, dtype="int64").reshape(pos_shape).expand(x.shape)
    if n > 1:
        differs = paddle.slice(s, [d], [1], [n]) != paddle.slice(s, [d], [0], [n - 1])
        one = list(x.shape)
        one[d] = 1
        true = _full(one, True, paddle.bool, x)
        starts = paddle.concat([true, differs], d)
        ends = paddle.concat([differs, true], d)
    else:
        starts = ends = _full(list(x.shape), True, paddle.bool, x)
    run_start = paddle.cummax(paddle.where(starts, pos, paddle.zeros_like(pos)), axis=d)[0]
    length = paddle.where(ends, pos - run_start + 1, paddle.zeros_like(pos))
    best = paddle.argmax(length, axis=d, keepdim=True)  # the first longest run: smallest value
    idx = paddle.take_along_axis(order, best, d).astype("int64")
    v = paddle.take_along_axis(x, idx, d).astype(input.dtype)  # no bool take_along_axis
    if not keepdim:
        v, idx = v.squeeze(d), idx.squeeze(d)
    return ModeResult(v, idx)


def _cum(name, cls, paddle_fn):
    def fn(input, dim):
        d = wrap_dim(dim, input.ndim)
        if input.ndim == 0:
            return cls(input.clone(), _zero_index(input))
        if input.size == 0:
            return cls(_copy(input), kernel_empty(list(input.shape), _dt.DTYPES["int64"],
                                                   input.place))
        v, i = paddle_fn(_nobool(input), axis=d)
        if input.dtype == paddle.bool:  # values from the input keep the graph elsewhere
            v = v.astype(paddle.bool)
        return cls(v, i.astype("int64"))
    fn.__name__ = fn.__qualname__ = name
    return op(f"torch.{name}", method=True, out=True)(fn)


cummax = _cum("cummax", CummaxResult, paddle.cummax)
cummin = _cum("cummin", CumminResult, paddle.cummin)


# -- unique ---------------------------------------------------------------------------------------
def _index_select(x, index, d):
    r = paddle.index_select(_nobool(x), index, axis=d)  # Paddle has no bool index_select
    return r.astype(x.dtype) if r.dtype != x.dtype else r


def _unique_result(out, inverse, counts, return_inverse, return_counts):
    if not return_inverse and not return_counts:
        return out
    res = [out]
    if return_inverse:
        res.append(inverse)
    if return_counts:
        res.append(counts)
    return tuple(res)


def _slices_differ(s, d, n):
    """Along dim ``d`` of ``s``: whether slice i+1 differs from slice i (n - 1 flags)."""
    a = paddle.slice(s, [d], [1], [n])
    b = paddle.slice(s, [d], [0], [n - 1])
    ne = a != b
    if s.ndim > 1:
        rest = s.size // n
        if rest == 0 or n == 1:  # empty slices are all equal
            return _full([n - 1], False, paddle.bool, s)
        ne = paddle.moveaxis(ne, d, 0).reshape([n - 1, rest]).any(axis=1)
    return ne


def _runs(s, d, n, like):
    """Run ids (inverse of the consecutive-unique) and run lengths along dim ``d``."""
    if n == 0:
        z = kernel_empty([0], _dt.DTYPES["int64"], like.place)
        return z, z, z
    differs = _slices_differ(s, d, n).astype("int64")
    ids = paddle.concat([_full([1], 0, _dt.DTYPES["int64"], like), paddle.cumsum(differs)])
    starts = paddle.concat([_full([1], True, paddle.bool, like), differs.astype("bool")])
    first = paddle.masked_select(paddle.arange(n, dtype="int64"), starts)
    counts = paddle.diff(paddle.concat([first, _full([1], n, _dt.DTYPES["int64"], like)]))
    return ids, first, counts


@op("torch.unique_consecutive", method=True)
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    if dim is None:
        x = input.reshape([-1])
        d = 0
    else:
        d = wrap_dim(dim, input.ndim)
        x = input
    n = x.shape[d] if x.ndim else 1
    ids, first, counts = _runs(x, d, n, input)
    out = _index_select(x, first, d) if n and x.size else _copy(x)
    inverse = ids.reshape(list(input.shape)) if dim is None else ids
    return _unique_result(out, inverse, counts, return_inverse, return_counts)


@op("torch.unique", method=True)
def unique(input, sorted=True, return_inverse=False, return_counts=False,  # noqa: A002
           dim=None):
    """torch's CPU unique: always sorted (``sorted=False`` gives the sorted result too); with
    ``dim``, slices are compared lexicographically."""
    if dim is None:
        x = input.reshape([-1])
        n = x.shape[0]
        order = _stable_argsort(_nobool(x), 0) if n else kernel_empty(
            [0], _dt.DTYPES["int64"], x.place)
        s = _index_select(x, order, 0) if n else x
        d = 0
    else:
        d = wrap_dim(dim, input.ndim)
        x = input
        n = x.shape[d]
        if input.size == 0 and n:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique "
                               "cannot be applied ")
        order = _lex_order(x, d) if n else kernel_empty([0], _dt.DTYPES["int64"], x.place)
        s = _index_select(x, order, d) if n else x
    ids, first, counts = _runs(s, d, n, input)
    out = _index_select(s, first, d) if n and s.size else \
        kernel_empty(list(s.shape[:d]) + [first.shape[0]] +
                     list(s.shape[d + 1:]), s.dtype, s.place)
    inverse = paddle.scatter(paddle.zeros([n], "int64"), order, ids) if n else ids
    if dim is None:
        inverse = inverse.reshape(list(input.shape))
    return _unique_result(out, inverse, counts, return_inverse, return_counts)


def _lex_order(x, d):
    """The order of the slices of ``x`` along ``d`` in lexicographic order (stable)."""
    flat = paddle.moveaxis(x, d, 0).reshape([x.shape[d], x.size // x.shape[d]])
    flat = _nobool(flat)
    order = paddle.arange(flat.shape[0], dtype="int64")
    for c in range(flat.shape[1] - 1, -1, -1):  # least significant column first (radix)
        col = paddle.gather(flat[:, c], order)
        order = paddle.gather(order, _stable_argsort(col, 0))
    return order


# -- histograms -------------------------------------------------------------------------------
HistogramResult = _return_type("histogram", ("hist", "bin_edges"))
HistogramddResult = _return_type("histogramdd", ("hist", "bin_edges"))


def _bin_edges(name, x, bins, rng, dim_index):
    """torch's outer bin edges: the range, else the data's min/max (empty: [0, 1]), widened by 0.5
    each way when equal; then linspace(bins + 1) in the input dtype."""
    if rng is not None:
        lo, hi = float(rng[0]), float(rng[1])
    elif x.size:
        lo, hi = float(x.min()), float(x.max())
    else:  # torch: an empty input without a range spans [0, 1]
        lo, hi = 0.0, 1.0
    if not (math.isfinite(lo) and math.isfinite(hi)):
        raise RuntimeError(f"torch.histogramdd: dimension {dim_index}'s range [{lo:g}, {hi:g}] "
                           "is not finite")
    if lo > hi:
        raise RuntimeError(f"torch.histogramdd: min should not exceed max, but got min {lo:g} "
                           f"max {hi:g} for dimension {dim_index}")
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5
    return paddle.linspace(lo, hi, bins + 1, dtype=x.dtype)


def _bin_index(x, edges):
    """The bin of each value (torch: upper_bound - 1; the last edge belongs to the last bin),
    -1 for values outside the edges."""
    nb = edges.shape[0] - 1
    pos = paddle.searchsorted(edges, x, right=True) - 1
    pos = paddle.where(x == edges[-1], paddle.full_like(pos, nb - 1), pos)
    inside = (x >= edges[0]) & (x <= edges[-1])
    return paddle.where(inside, pos, paddle.full_like(pos, -1))


def _histogramdd(name, x, edges, weight, density):
    """``x``: [N, D] values, ``edges``: D edge tensors -> the D-dimensional histogram."""
    nbins = [int(e.shape[0]) - 1 for e in edges]
    total = _prod(nbins)
    flat = paddle.zeros([x.shape[0]], "int64")
    keep = paddle.ones([x.shape[0]], "bool")
    for j, e in enumerate(edges):
        b = _bin_index(x[:, j], e) if x.shape[0] else paddle.zeros([0], "int64")
        keep = keep & (b >= 0)
        flat = flat * nbins[j] + paddle.clip(b, min=0)
    w = weight.reshape([-1]).astype("float64") if weight is not None else \
        paddle.ones([x.shape[0]], "float64")
    if x.shape[0]:
        w = paddle.where(keep, w, paddle.zeros_like(w))
        hist = paddle.bincount(flat, weights=w, minlength=total)
    else:
        hist = paddle.zeros([total], "float64")
    hist = hist.reshape(nbins)
    if density:
        s = hist.sum()
        hist = hist / s
        for j, e in enumerate(edges):
            shape = [1] * len(nbins)
            shape[j] = nbins[j]
            hist = hist / (e[1:] - e[:-1]).astype("float64").reshape(shape)
    return hist.astype(x.dtype)


def _check_hist_input(name, input, weight):
    if _name(input.dtype) not in _FLOATS:
        raise NotImplementedError(f'"histogramdd" not implemented for '
                                  f"'{_LEGACY_NAMES.get(_name(input.dtype), _name(input.dtype))}'")
    if weight is not None and list(weight.shape) != list(input.shape[:-1] if name ==
                                                          "torch.histogramdd" else input.shape):
        raise RuntimeError(f"{name}: if weight tensor is provided it should have the same "
                           "shape as the input tensor excluding its innermost dimension")


@op("torch.histogram", method=True)
def histogram(input, bins=100, *, range=None, weight=None, density=False):  # noqa: A002
    """torch.histogram: ``bins`` a count (equal-width edges over ``range`` or the data) or a
    1-D tensor of edges; (hist, bin_edges) in the input dtype.  Not differentiable (as in
    torch)."""
    _check_hist_input("torch.histogram", input, weight)
    x = input.reshape([-1, 1])
    if isinstance(bins, paddle.Tensor):
        if bins.ndim != 1:
            raise RuntimeError(f"torch.histogram(): bins tensor should have one dimension, but "
                               f"got {bins.ndim} dimensions.")
        edges = bins.astype(input.dtype)
    else:
        if bins <= 0:
            raise RuntimeError(f"torch.histogram(): bins must be > 0, but got {bins} for "
                               "dimension 0")
        edges = _bin_edges("torch.histogram", x, int(bins), range, 0)
    w = weight.reshape([-1]) if weight is not None else None
    return HistogramResult(_histogramdd("torch.histogram", x, [edges], w, density), edges)


@opmath_function("torch.histogramdd")
def histogramdd(input, bins=10, *, range=None, weight=None, density=False):  # noqa: A002
    if input.ndim < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions, "
                           f"but got {input.ndim}")
    _check_hist_input("torch.histogramdd", input, weight)
    D = input.shape[-1]
    x = input.reshape([-1, D])
    if isinstance(bins, (list, tuple)) and bins and isinstance(bins[0], paddle.Tensor):
        if len(bins) != D:
            raise RuntimeError(f"torch.histogramdd: expected {D} sequences of bin edges for each "
                               f"of the {D} input dimensions, but got {len(bins)} bin sequences")
        edges = [b.astype(input.dtype) for b in bins]
    else:
        counts = list(bins) if isinstance(bins, (list, tuple)) else [int(bins)] * D
        if len(counts) != D:
            raise RuntimeError(f"torch.histogramdd: expected {D} bin counts, but got "
                               f"{len(counts)}")
        if range is not None and len(range) != 2 * D:
            raise RuntimeError(f"torch.histogramdd: for a {D}-dimensional histogram range "
                               f"should have {2 * D} elements, but got {len(range)}")
        edges = []
        for j, c in enumerate(counts):
            if c <= 0:
                raise RuntimeError(f"torch.histogramdd(): bins must be > 0, but got {c} for "
                                   f"dimension {j}")
            rj = None if range is None else (range[2 * j], range[2 * j + 1])
            edges.append(_bin_edges("torch.histogramdd", x[:, j], int(c), rj, j))
    w = weight.reshape([-1]) if weight is not None else None
    return HistogramddResult(_histogramdd("torch.histogramdd", x, edges, w, density),
                             tuple(edges))


# torch's named result tuples (defined in _opbase, shared by the op modules)
module("torch.return_types")


for _cls in (MaxResult, MinResult, SortResult, TopkResult, KthResult, ModeResult, MedianResult,
             CummaxResult, CumminResult, NanmedianResult, HistogramResult, HistogramddResult):
    type_(f"torch.return_types.{_cls.__name__}", _cls)


# -- torch.hash_tensor ------------------------------------------------------------------------
def _xor_fold(x):
    """XOR of ``x`` (int64) along its last dim, by halving (XOR has no Paddle reduction)."""
    while x.shape[-1] > 1:
        m = x.shape[-1]
        if m % 2:  # pad with 0, XOR's identity
            x = paddle.concat([x, paddle.zeros(list(x.shape[:-1]) + [1], "int64")], -1)
            m += 1
        x = paddle.bitwise_xor(x[..., :m // 2], x[..., m // 2:])
    return x[..., 0]


@op("torch.hash_tensor", method=True)
def hash_tensor(input, dim=(), *, keepdim=False, mode=0):
    """torch's xor hash: each element widened to its 64-bit float/integer type, its bits read
    as uint64, XOR-reduced.  Needs uint64 tensors (Paddle 3)."""
    if not HAS_VIEW_DTYPE:  # Paddle 2.6: no uint64 dtype, no bit casts
        raise NotProvidedError("torch.hash_tensor (needs uint64 tensors: Paddle 3)")
    if mode != 0:
        raise RuntimeError(f"hash_tensor: Expected mode to be 0 (xor_sum) but got {mode}")
    axis = _dims(dim, input.ndim)
    if input.size == 0 and axis is None:
        raise RuntimeError("hash_tensor: Expected reduction dim to be specified for "
                           "input.numel() == 0. Specify the reduction dim with the 'dim' "
                           "argument.")
    if input.size == 0:
        _check_empty_reduce(input, axis, "hash_tensor")
    n = _name(input.dtype)
    if n in _FLOATS:
        bits = input.astype("float64").view(paddle.int64)
    else:
        bits = input.astype("int64")
    axes = list(range(input.ndim)) if axis is None else axis
    keep = [i for i in range(input.ndim) if i not in axes]
    lead = [input.shape[i] for i in keep]
    if input.ndim:
        bits = paddle.transpose(bits, keep + axes).reshape(lead + [_prod(
            [input.shape[i] for i in axes])])
    else:
        bits = bits.reshape([1])
    if bits.shape[-1] == 0:
        r = paddle.zeros(lead, "int64")
    else:
        r = _xor_fold(bits)
    if keepdim:
        r = r.reshape(_reduced_shape(input.shape, axes, True))
    return r.view(paddle.uint64)
