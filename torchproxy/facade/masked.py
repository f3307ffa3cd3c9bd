"""``torch.masked`` (the functional masked reductions and normalizations) for strided tensors.

Each function is torch's own strided code path (torch/masked/_ops.py) written on the facade's
torch functions, so torch's rules carry over: the mask is broadcast to the input (a mask with
more dimensions is an IndexError) and turned to bool; masked-out elements are replaced by the
operation's identity (0 for sum/cumsum/norm, 1 for prod/cumprod, -inf / the integer minimum for
amax/argmax/logsumexp/logaddexp/softmax, +inf / the integer maximum for amin/argmin/softmin,
NaN for median) and the plain operation runs; mean/var/std divide by the masked-in count (NaN
where everything is masked out); ``dim=()`` or ``None`` reduces over all dimensions; ``dtype=``
casts as torch does (the sum/prod of bool and small integers is int64; ``argmax``/``argmin``
return the *input's* dtype, as torch's do); ``median`` of an integer input with a fully
masked-out row raises torch's ValueError.  Results are Paddle ops, so gradients flow to
``input`` where torch's do.  MaskedTensor and the sparse layouts are not provided (gaps.toml).
"""
from __future__ import annotations

import math

import paddle

from ._opbase import _float_input, _name
from .registry import module, resolve_paddle, TABLE, TENSOR_TABLE, torch_function

from .registry import manifest

NAMES = manifest("""
    torch: masked
    torch.masked: amax amin argmax argmin cumprod cumsum log_softmax logaddexp logsumexp mean
        median norm normalize prod softmax softmin std sum var
""")

module("torch.masked")

_SMALL_INTS = ("bool", "uint8", "int8", "int16", "int32")
_INT_RANGE = {"uint8": (0, 255), "int8": (-128, 127), "int16": (-32768, 32767),
              "int32": (-2**31, 2**31 - 1), "int64": (-2**63, 2**63 - 1)}


def _t(name):
    """The facade's implementation of a torch name (looked up at call time: later areas)."""
    e = TABLE[name]
    return resolve_paddle(e.impl) if e.kind == "alias" else e.impl


def _is_float(dt):
    return _name(dt) in ("float16", "bfloat16", "float32", "float64")


def _is_complex(dt):
    return _name(dt).startswith("complex")


def _to(x, dtype):
    return x if dtype is None or x.dtype == dtype else TENSOR_TABLE["torch.Tensor.to"].impl(
        x, dtype=dtype)


def _canonical_dim(dim, ndim):
    """torch's masked._canonical_dim: a sorted tuple of non-negative dims (None/() = all)."""
    if dim == () or dim is None:
        return tuple(range(ndim))
    ndim = max(ndim, 1)
    dims = []
    for d in ((dim,) if isinstance(dim, int) else dim):
        if d in dims:
            raise RuntimeError(f"dim={d} appears multiple times in the list of dims")
        if d >= ndim or d < -ndim:
            raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                             f"{ndim - 1}], but got {d})")
        dims.append(d % ndim)
    return tuple(sorted(dims))


def _input_mask(input, mask):
    if mask is None:
        raise ValueError("_input_mask requires explicit mask")
    if list(mask.shape) != list(input.shape):
        if mask.ndim > input.ndim:
            raise IndexError("_input_mask expected broadcastable mask (got mask dimensionality "
                             "higher than of the input)")
        if input.size == 0:
            return mask
        mask = _t("torch.broadcast_to")(mask, list(input.shape))
    return mask if _name(mask.dtype) == "bool" else mask.astype("bool")


def _identity(op, input, ord=2):
    n = _name(input.dtype)
    if op in ("sum", "cumsum"):
        return 0
    if op in ("prod", "cumprod"):
        return 1
    if op in ("amax", "argmax", "logaddexp", "logsumexp"):
        if _is_float(input.dtype) or (op == "logsumexp" and _is_complex(input.dtype)):
            return -math.inf
        if n in _INT_RANGE:
            return _INT_RANGE[n][0]
    elif op in ("amin", "argmin"):
        if _is_float(input.dtype):
            return math.inf
        if n in _INT_RANGE:
            return _INT_RANGE[n][1]
    elif op == "norm":
        if ord == -math.inf:
            if not _is_float(input.dtype):
                raise AssertionError(f"input must be floating point, got {input.dtype}")
            return math.inf
        return 0
    elif op == "median":
        return math.nan
    raise NotImplementedError(f"identity of {op} on {input.dtype} input")


def _combine(op, input, mask, ord=2):
    """Masked-out elements replaced by the identity of ``op`` (torch's _combine_input_and_mask)."""
    if mask is None:
        return input
    m = _input_mask(input, mask)
    if input.size == 0:  # nothing to replace (Paddle 2.6 cannot expand/where 0-size tensors)
        return input
    # a 0-d tensor, not full_like: Paddle's full_like turns int64 extremes into -2**63
    fill = paddle.to_tensor(_identity(op, input, ord), dtype=input.dtype, place=input.place)
    if _name(input.dtype) == "bool":  # Paddle 2.6 has no bool where kernel
        return paddle.logical_or(paddle.logical_and(m, input),
                                 paddle.logical_and(paddle.logical_not(m), fill))
    wide = {"uint8": "int32", "int8": "int32", "int16": "int32", "float16": "float32",
            "bfloat16": "float32"}.get(_name(input.dtype))
    if wide:  # Paddle's CPU where has no kernel for these: exact in the wider dtype
        return paddle.where(m, input.astype(wide), fill.astype(wide).expand(input.shape)).astype(
            input.dtype)
    return paddle.where(m, input, fill.expand(input.shape))


def _check_input(input, fn):
    if not isinstance(input, paddle.Tensor):
        # torch's masked ops read input.layout first: an AttributeError there too
        raise AttributeError(f"torch.masked.{fn}(): input must be a Tensor, not "
                             f"{type(input).__name__} (it has no attribute 'layout')")


def _dim_arg(dims, ndim):
    """A canonical dim tuple as the facade's reductions take it (all dims: None)."""
    return None if len(dims) == 0 or len(dims) == ndim else list(dims)


def _int64_default(input, dtype):
    if dtype is None:
        return paddle.int64 if _name(input.dtype) in _SMALL_INTS else input.dtype
    return dtype


@torch_function("torch.masked.sum")
def sum(input, dim=None, *, keepdim=False, dtype=None, mask=None):  # noqa: A001
    _check_input(input, "sum")
    dtype = _int64_default(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    x = _combine("sum", input, mask)
    if input.ndim == 0:
        return _to(x, dtype)
    return _t("torch.sum")(x, _dim_arg(dims, x.ndim), bool(keepdim), dtype=dtype)


@torch_function("torch.masked.prod")
def prod(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    _check_input(input, "prod")
    dtype = _int64_default(input, dtype)
    dims = _canonical_dim(dim, input.ndim)
    r = _to(_combine("prod", input, mask), dtype)
    for d in reversed(dims):
        r = _t("torch.prod")(r, d, bool(keepdim))
    return r


def _cum(op, input, dim, dtype, mask):
    _check_input(input, f"cum{op}")
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    x = _combine(op, input, mask)
    return _to(_t(f"torch.cum{op}")(x, d, dtype=dtype), dtype)


@torch_function("torch.masked.cumsum")
def cumsum(input, dim, *, dtype=None, mask=None):
    return _cum("sum", input, dim, dtype, mask)


@torch_function("torch.masked.cumprod")
def cumprod(input, dim, *, dtype=None, mask=None):
    return _cum("prod", input, dim, dtype, mask)


def _amaxmin(op, input, dim, keepdim, dtype, mask):
    _check_input(input, op)
    if dtype is None:
        dtype = input.dtype
    x = _combine(op, input, mask)
    dims = _canonical_dim(dim, x.ndim)
    if x.ndim == 0:
        return _to(x.clone(), dtype)
    r = _t(f"torch.{op}")(x, list(dims), bool(keepdim))
    return _to(_nan_propagate(x, r, dims, keepdim), dtype)


def _nan_propagate(x, r, dims, keepdim):
    """torch's max/min reductions propagate NaN (Paddle 2.6's amax/amin skip it)."""
    if not _is_float(x.dtype) or x.size == 0:
        return r
    has = paddle.any(paddle.isnan(x), axis=list(dims) if dims else None, keepdim=bool(keepdim))
    return paddle.where(has.reshape(r.shape), paddle.full_like(r, math.nan), r)


def _extremum(op, impl):
    """torch.masked.amax/amin/argmax/argmin: one signature, computed by ``impl(op, ...)``."""
    def fn(input, dim=None, *, keepdim=False, dtype=None, mask=None):
        return impl(op, input, dim, keepdim, dtype, mask)
    fn.__name__ = fn.__qualname__ = op
    return torch_function(f"torch.masked.{op}")(fn)


amax = _extremum("amax", _amaxmin)
amin = _extremum("amin", _amaxmin)


def _arg(op, input, dim, keepdim, dtype, mask):
    _check_input(input, op)
    if dtype is None:
        dtype = input.dtype
    x = _combine(op, input, mask)
    r = _t(f"torch.{op}")(x, dim, bool(keepdim))
    if _is_float(x.dtype) and x.size:  # torch: NaN is both the max and the min (first one)
        isn = paddle.isnan(x)
        first_nan = _t("torch.argmax")(isn.astype("int32"), dim, bool(keepdim))
        has = paddle.any(isn) if dim is None else paddle.any(
            isn, axis=dim % max(x.ndim, 1), keepdim=bool(keepdim)) if x.ndim else isn
        r = paddle.where(has, first_nan, r)
    return _to(r, dtype)


argmax = _extremum("argmax", _arg)
argmin = _extremum("argmin", _arg)


def _count(inmask, dim, keepdim):
    dims = _canonical_dim(dim, inmask.ndim)
    if inmask.ndim == 0:
        return inmask.astype("int64")
    return _t("torch.sum")(inmask, _dim_arg(dims, inmask.ndim), bool(keepdim))


def _count_and_sum(input, dim, keepdim, dtype, mask):
    """The number of elements taken (all, or the mask's) and their sum over ``dim``, with the
    input mask (None without a mask): what masked mean and var divide."""
    if mask is None:
        count = _count(paddle.ones(input.shape, dtype="bool"), dim, keepdim)
        return count, sum(input, dim, keepdim=keepdim, dtype=dtype), None
    inmask = _input_mask(input, mask)
    count = _count(inmask, dim, keepdim)
    return count, sum(input, dim, keepdim=keepdim, dtype=dtype, mask=inmask), inmask


@torch_function("torch.masked.mean")
def mean(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    _check_input(input, "mean")
    source = "Optional"
    if dtype is None:
        dtype, source = input.dtype, "Input"
    if not (_is_float(dtype) or _is_complex(dtype)):
        raise ValueError(f"mean(): Could not infer output dtype. {source} dtype must be either "
                         f"a floating point or complex dtype. Got: {dtype}")
    count, total, _ = _count_and_sum(input, dim, keepdim, dtype, mask)
    return _t("torch.div")(total, count)


def _nanmedian(x, d, keepdim):
    """torch.nanmedian(x, d).values: the lower median of the non-NaN values (NaN if none)."""
    if x.ndim == 0:
        return x.clone()
    nan = paddle.isnan(x)
    cnt = paddle.sum((~nan).astype("int64"), axis=d, keepdim=True)
    filled = paddle.where(nan, paddle.full_like(x, math.inf), x)
    srt = paddle.sort(filled, axis=d)
    k = paddle.clip((cnt - 1) // 2, min=0)
    r = paddle.take_along_axis(srt, k, axis=d)
    r = paddle.where(cnt == 0, paddle.full_like(r, math.nan), r)
    return r if keepdim else paddle.squeeze(r, axis=d)


@torch_function("torch.masked.median")
def median(input, dim=-1, *, keepdim=False, dtype=None, mask=None):
    _check_input(input, "median")
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    is_float = _is_float(input.dtype)
    if not is_float:
        input = input.astype("float32")
    x = _combine("median", input, mask)
    if x.size == 0:
        raise IndexError(f"median(): Expected reduction dim {d} to have non-zero size.")
    out = _nanmedian(x, d, bool(keepdim))
    if is_float:
        return out
    if not bool(paddle.isnan(out).any()):
        return _to(out, dtype)
    raise ValueError("masked median expects no fully masked out rows if dtype is not floating "
                     "point")


@torch_function("torch.masked.logsumexp")
def logsumexp(input, dim=None, *, keepdim=False, dtype=None, mask=None):
    _check_input(input, "logsumexp")
    if dtype is None:
        dtype = input.dtype
    dims = _canonical_dim(dim, input.ndim)
    x = _combine("logsumexp", input, mask)
    return _to(_logsumexp(x, dims, bool(keepdim)), dtype)


def _exp(z):
    """exp with exp(-inf) = 0: Paddle's vectorized CPU exp gives 2.9e-39 for -inf lanes (so
    log(sum(exp)) of a fully masked row read -88.03 instead of -inf)."""
    return paddle.where(z == -math.inf, paddle.zeros_like(z), paddle.exp(z))


def _logsumexp(x, dims, keepdim):
    """torch's logsumexp (ReduceOps.cpp): the max is taken out, an infinite max counts as 0
    (so a +inf element gives +inf, not inf - inf = NaN as Paddle's kernel does)."""
    x = _float_input(x)
    if x.size == 0:  # log(sum(exp(empty))) = -inf (Paddle 2.6's kernel refuses 0-size input)
        shape = [1 if d in dims else n for d, n in enumerate(x.shape)] if keepdim else [
            n for d, n in enumerate(x.shape) if d not in dims]
        return paddle.full(shape, -math.inf, dtype=x.dtype)
    if x.ndim == 0:
        return _t("torch.logsumexp")(x, list(dims), keepdim=keepdim)
    axis = list(dims) if dims else None
    m = paddle.max(x, axis=axis, keepdim=True)
    m = paddle.where(paddle.isinf(m), paddle.zeros_like(m), m)
    r = paddle.log(paddle.sum(_exp(x - m), axis=axis, keepdim=keepdim))
    return r + (m if keepdim else m.reshape(r.shape))


@torch_function("torch.masked.logaddexp")
def logaddexp(input, other, *, dtype=None, input_mask=None, other_mask=None):
    _check_input(input, "logaddexp")
    _check_input(other, "logaddexp")
    if dtype is None:
        dtype = input.dtype
    a = _combine("logaddexp", input, input_mask)
    b = _combine("logaddexp", other, other_mask)
    return _to(_t("torch.logaddexp")(a, b), dtype)


@torch_function("torch.masked.norm")
def norm(input, ord=2.0, dim=None, *, keepdim=False, dtype=None, mask=None):
    _check_input(input, "norm")
    if dtype is None:
        dtype = input.dtype
    x = _combine("norm", input, mask, ord)
    dims = _canonical_dim(dim, input.ndim)
    if ord == 0 and _is_float(x.dtype):  # the count of nonzeros (inf counts: torch's rule)
        r = paddle.sum((x != 0).astype(dtype), axis=list(dims) if dims else None,
                       keepdim=bool(keepdim))
        return r
    r = _t("torch.linalg.vector_norm")(x, ord, list(dims) if dims else None, bool(keepdim),
                                        dtype=dtype)
    return _nan_propagate(x, r, dims, keepdim) if ord in (math.inf, -math.inf) else r


def _std_var(input, dim, unbiased, correction_opt, keepdim, dtype, mask, take_sqrt):
    _check_input(input, "std" if take_sqrt else "var")
    if unbiased is not None and correction_opt is not None:
        raise AssertionError("Only one of unbiased and correction may be given")
    correction = 1.0
    if unbiased is not None:
        correction = 1.0 if unbiased else 0.0
    if correction_opt is not None:
        correction = float(correction_opt)
    if dtype is None:
        dtype = input.dtype
        if not (_is_float(dtype) or _is_complex(dtype)):
            dtype = paddle.float32
    compute_dtype = dtype
    if not (_is_float(compute_dtype) or _is_complex(compute_dtype)):
        compute_dtype = paddle.float32
    count, sample_total, inmask = _count_and_sum(input, dim, True, dtype, mask)
    sample_mean = _t("torch.div")(sample_total, count)
    x = _t("torch.sub")(input, sample_mean)
    total = sum(x * x.conj() if _is_complex(x.dtype) else x * x, dim, keepdim=keepdim,
                dtype=compute_dtype, mask=inmask)
    if not keepdim:
        count = count.reshape(total.shape)
    if correction != 0:
        real = {"complex64": paddle.float32, "complex128": paddle.float64}.get(
            _name(compute_dtype), compute_dtype)
        count = count.astype(real) - correction
        count = paddle.maximum(count, paddle.zeros_like(count))
    out = _to(_t("torch.div")(total, count), dtype)
    return paddle.sqrt(out) if take_sqrt else out


@torch_function("torch.masked.var")
def var(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, False)


@torch_function("torch.masked.std")
def std(input, dim=None, unbiased=None, *, correction=None, keepdim=False, dtype=None,
        mask=None):
    return _std_var(input, dim, unbiased, correction, keepdim, dtype, mask, True)


def _softmax(fn, identity, input, dim, dtype, mask):
    _check_input(input, fn)
    if dtype is None:
        dtype = input.dtype
    d = _canonical_dim(dim, input.ndim)[0]
    x = _combine(identity, input, mask)
    if fn == "log_softmax" and _is_float(dtype) and x.size:
        # torch's x - max - log(sum(exp(x - max))): Paddle's kernel turns -inf into -64
        x = _to(x, dtype)
        m = paddle.max(x, axis=d, keepdim=True)
        return x - m - paddle.log(paddle.sum(_exp(x - m), axis=d, keepdim=True))
    return _t(f"torch.nn.functional.{fn}")(x, d, dtype=dtype)


@torch_function("torch.masked.softmax")
def softmax(input, dim, *, dtype=None, mask=None):
    return _softmax("softmax", "amax", input, dim, dtype, mask)


@torch_function("torch.masked.log_softmax")
def log_softmax(input, dim, *, dtype=None, mask=None):
    return _softmax("log_softmax", "amax", input, dim, dtype, mask)


@torch_function("torch.masked.softmin")
def softmin(input, dim, *, dtype=None, mask=None):
    return _softmax("softmin", "amin", input, dim, dtype, mask)


@torch_function("torch.masked.normalize")
def normalize(input, ord, dim, *, eps=1e-12, dtype=None, mask=None):
    _check_input(input, "normalize")
    if dtype is None:
        dtype = input.dtype
    x = _combine("sum", input, mask)
    nrm = norm(input, ord, dim, keepdim=True, dtype=dtype, mask=mask)
    denom = paddle.maximum(nrm, paddle.full([], eps, dtype=nrm.dtype))
    return _t("torch.div")(x, denom)
