"""torch reductions: sum/mean/max/min/amax/argmax/softmax/sort/topk/quantile... (ops.py's
docstring lists what torch does differently from Paddle and we follow)."""
from __future__ import annotations

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = (
    "torch.Tensor.all", "torch.Tensor.amax", "torch.Tensor.amin", "torch.Tensor.any",
    "torch.Tensor.argmax", "torch.Tensor.argmin", "torch.Tensor.argsort", "torch.Tensor.count_nonzero", "torch.Tensor.cumsum",
    "torch.Tensor.log_softmax", "torch.Tensor.logsumexp", "torch.Tensor.max", "torch.Tensor.mean",
    "torch.Tensor.min", "torch.Tensor.norm", "torch.Tensor.prod", "torch.Tensor.softmax",
    "torch.Tensor.sort", "torch.Tensor.std", "torch.Tensor.sum", "torch.Tensor.topk",
    "torch.Tensor.var", "torch.all", "torch.amax", "torch.amin", "torch.any", "torch.argmax",
    "torch.argmin", "torch.argsort", "torch.count_nonzero", "torch.cummax", "torch.cummin",
    "torch.cumprod", "torch.cumsum", "torch.log_softmax", "torch.logsumexp", "torch.max",
    "torch.mean", "torch.median", "torch.min", "torch.norm", "torch.prod", "torch.quantile",
    "torch.return_types", "torch.return_types.cummax", "torch.return_types.cummin",
    "torch.return_types.kthvalue", "torch.return_types.max", "torch.return_types.median",
    "torch.return_types.min", "torch.return_types.mode", "torch.return_types.sort",
    "torch.return_types.topk", "torch.softmax", "torch.sort", "torch.std", "torch.sum",
    "torch.topk", "torch.var",
)

import builtins  # this module shadows builtins (sum, max, any...)

import paddle

from . import dtypes as _dt
from ._opbase import (CummaxResult, CumminResult, KthResult, MaxResult, MedianResult, MinResult,
                      ModeResult, SortResult, TopkResult, kernel_empty, _FLOATS, _INTS, _dims,
                      _float_input, _float_kernel, _full, _name, _prod, _reduced_shape,
                      _register_adapter, _to_dtype, _write_out, adapter, op, wrap_dim)
from ..paddle_shims import ARGSORT_HAS_STABLE
from .registry import module, type_


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
    if x.size == 0:  # torch: the empty sum is 0 (Paddle 2.6 rejects 0-size reductions)
        return _write_out(_full(_reduced_shape(x.shape, axis, keepdim), 0, x.dtype, x), out)
    return _write_out(paddle.sum(x, axis=axis, keepdim=keepdim), out)


@op("torch.prod", method=True)
def prod(input, dim=None, keepdim=False, *, dtype=None):
    x = _reduce_dtype(input, dtype)
    axis = None if dim is None else wrap_dim(dim, x.ndim)
    return paddle.prod(x, axis=axis, keepdim=keepdim)


@op("torch.mean", method=True)
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    x = input if dtype is None else input.astype(_to_dtype(dtype))
    n = _name(x.dtype)
    if n not in _FLOATS and not n.startswith("complex"):
        raise RuntimeError(f"mean(): could not infer output dtype. Input dtype must be either "
                           f"a floating point or complex dtype. Got: {n.capitalize()}")
    axis = _dims(dim, x.ndim)
    if x.size == 0:  # torch: the empty mean is nan
        return _write_out(_full(_reduced_shape(x.shape, axis, keepdim), float("nan"), x.dtype,
                                x), out)
    return _write_out(paddle.mean(x, axis=axis, keepdim=keepdim), out)


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
    m = paddle.mean(input, axis=axis, keepdim=True)
    n = input.size if axis is None else _prod([input.shape[d] for d in axis])
    s = paddle.sum((input - m) ** 2, axis=axis, keepdim=keepdim)
    return s / (n - c) if n - c > 0 else s / 0.0  # torch: inf/nan when n <= correction


@op("torch.std", method=True)
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return paddle.sqrt(var(input, dim, unbiased, keepdim, correction=correction))


def _minmax(torch_name, reduce_all, reduce_dim, elementwise, result_cls):
    def fn(input, dim=None, keepdim=False, *, out=None):
        if isinstance(dim, paddle.Tensor):  # torch.max(a, b)
            from . import ops  # torch.max(a, b): the elementwise op (ops.py imports us)
            return _write_out(ops.BINARY[elementwise](input, dim), out)
        if dim is None:
            if keepdim:
                raise TypeError(f"{torch_name}() received an invalid combination of arguments")
            if input.size == 0:
                raise RuntimeError(f"{torch_name}(): Expected reduction dim to be specified for "
                                   "input.numel() == 0. Specify the reduction dim with the "
                                   "'dim' argument.")
            return reduce_all(input)
        d = wrap_dim(dim, input.ndim)
        if input.ndim == 0:
            return result_cls(input.clone(), _full([], 0, _dt.DTYPES["int64"], input))
        if input.shape[d] == 0:
            raise IndexError(f"{torch_name}(): Expected reduction dim {d} to have non-zero size.")
        values = reduce_dim(input, axis=d, keepdim=keepdim)
        indices = (paddle.argmax if torch_name == "max" else paddle.argmin)(
            input, axis=d, keepdim=keepdim)
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
            _check_empty_reduce(input, axis, torch_name)
            return _write_out(kernel_empty(_reduced_shape(input.shape, axis, keepdim),
                                           input.dtype, input.place), out)
        return _write_out(paddle_fn(input, axis=axis, keepdim=keepdim), out)
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
    x = _float_input(input)
    return paddle.logsumexp(x, axis=_dims(dim, x.ndim), keepdim=keepdim)


@op("torch.cumsum", method=True)
def cumsum(input, dim, *, dtype=None, out=None):
    x = _reduce_dtype(input, dtype)
    return _write_out(paddle.cumsum(x, axis=wrap_dim(dim, x.ndim)), out)


@adapter("torch.cumprod")
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


@op("torch.softmax", method=True)
def softmax(input, dim=None, dtype=None, *, axis=None):
    dim = _dim_or_axis(dim, axis, "softmax")
    x = input if dtype is None else input.astype(_to_dtype(dtype))
    _float_kernel(x, "softmax")
    return paddle.nn.functional.softmax(x, axis=wrap_dim(dim, x.ndim))


@op("torch.log_softmax", method=True)
def log_softmax(input, dim=None, dtype=None, *, axis=None):
    dim = _dim_or_axis(dim, axis, "log_softmax")
    x = input if dtype is None else input.astype(_to_dtype(dtype))
    _float_kernel(x, "log_softmax")
    return paddle.nn.functional.log_softmax(x, axis=wrap_dim(dim, x.ndim))


def _norm_method(self, p="fro", dim=None, keepdim=False, dtype=None):
    """Tensor.norm(p, dim, keepdim, dtype): no out= (its 4th argument is dtype)."""
    return norm(self, p, dim, keepdim, dtype=dtype)


@op("torch.norm", method=_norm_method)
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """torch.functional.norm's rule: "fro" (over at most 2 dims) and numbers are vector norms,
    other strings ("nuc", or "fro" over more dims) matrix norms (facade/linalg.py)."""
    from .linalg import matrix_norm, vector_norm
    _dim = [dim] if isinstance(dim, int) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, int) or len(dim) <= 2):
            return vector_norm(input, 2, _dim, keepdim, dtype=dtype, out=out)
        if _dim is None:
            _dim = list(range(input.ndim))
        return matrix_norm(input, p, _dim, keepdim, dtype=dtype, out=out)
    return vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype=dtype, out=out)


@op("torch.sort", method=True)
def sort(input, dim=-1, descending=False, stable=False):
    d = wrap_dim(dim, input.ndim)
    idx = paddle.argsort(input, axis=d, descending=descending, stable=True) \
        if ARGSORT_HAS_STABLE else paddle.argsort(input, axis=d, descending=descending)
    return SortResult(paddle.take_along_axis(input, idx, d), idx.astype("int64"))


@op("torch.argsort", method=True)
def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable).indices


@op("torch.topk", method=True)
def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    d = wrap_dim(dim, input.ndim)
    v, i = paddle.topk(input, k, axis=d, largest=largest, sorted=True)
    return TopkResult(v, i.astype("int64"))


@op("torch.count_nonzero", method=True)
def count_nonzero(input, dim=None):
    return paddle.sum((input != 0).astype("int64"), axis=_dims(dim, input.ndim))


@adapter("torch.quantile")
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """torch's quantile (Triton's do_bench uses it): sort, then interpolate between ranks."""
    _float_kernel(input, "quantile")
    scalar_q = not isinstance(q, paddle.Tensor) or q.ndim == 0
    qs = [float(q)] if not isinstance(q, paddle.Tensor) else [float(v) for v in
                                                             q.reshape([-1]).tolist()]
    if builtins.any(v < 0 or v > 1 for v in qs):
        raise RuntimeError("quantile() q values must be in the range [0, 1]")
    x = input.reshape([-1]) if dim is None else input
    d = 0 if dim is None else wrap_dim(dim, input.ndim)
    n = x.shape[d]
    s = paddle.sort(x, axis=d)
    outs = []
    for v in qs:
        pos = v * (n - 1)
        lo, hi = int(pos // 1), -int(-pos // 1)
        a = paddle.slice(s, [d], [lo], [lo + 1])
        b = paddle.slice(s, [d], [hi], [hi + 1])
        frac = pos - lo
        if interpolation == "linear":
            r = a + (b - a) * frac
        elif interpolation == "lower":
            r = a
        elif interpolation == "higher":
            r = b
        elif interpolation == "midpoint":
            r = (a + b) / 2
        elif interpolation == "nearest":
            r = b if frac > 0.5 or (frac == 0.5 and hi % 2 == 0) else a  # round half to even
        else:
            raise ValueError(f"quantile() interpolation must be one of linear, lower, higher, "
                             f"midpoint or nearest. Got {interpolation}")
        if dim is None:
            r = r.reshape([1] * input.ndim if keepdim else [])
        elif not keepdim:
            r = r.squeeze(d)
        outs.append(r)
    result = outs[0] if scalar_q else paddle.stack(outs, axis=0)
    return _write_out(result, out)


@adapter("torch.median")
def median(input, dim=None, keepdim=False):
    """torch: the lower median (no interpolation); with dim, (values, indices)."""
    if dim is None:
        flat = input.reshape([-1])
        if flat.size == 0:
            return _full([], float("nan"), input.dtype, input)
        s = paddle.sort(flat)
        return s[(flat.shape[0] - 1) // 2]
    d = wrap_dim(dim, input.ndim)
    idx = paddle.argsort(input, axis=d)
    k = (input.shape[d] - 1) // 2
    i = paddle.slice(idx, [d], [k], [k + 1])
    v = paddle.take_along_axis(input, i, d)
    if not keepdim:
        v, i = v.squeeze(d), i.squeeze(d)
    return MedianResult(v, i.astype("int64"))


_register_adapter("torch.cummax")(lambda input, dim: _cum(input, dim, paddle.cummax, CummaxResult))


def _cum(input, dim, fn, cls):
    v, i = fn(input, axis=wrap_dim(dim, input.ndim))
    return cls(v, i.astype("int64"))


_register_adapter("torch.cummin")(lambda input, dim: _cum(input, dim, paddle.cummin, CumminResult))


# torch's named result tuples (defined in _opbase, shared by the op modules)
module("torch.return_types")


for _cls in (MaxResult, MinResult, SortResult, TopkResult, KthResult, ModeResult, MedianResult,
             CummaxResult, CumminResult):
    type_(f"torch.return_types.{_cls.__name__}", _cls)
