"""torch's "Other Operations" (torch.html) from torch's OpInfo database: meshgrid,
cartesian_prod, combinations, block_diag, tril/triu_indices, distances and statistics (cdist,
dist, renorm, cov, corrcoef, trapezoid), tensordot, diag/diag_embed/diagflat."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: block_diag cartesian_prod cdist combinations corrcoef cov cumulative_trapezoid diag
        diag_embed diagflat dist meshgrid renorm tensordot trapezoid trapz tril_indices
        triu_indices
    torch.Tensor: corrcoef cov diag diag_embed diagflat dist renorm renorm_
""")

from . import creation as _cr
from .ops import result_type_n
import builtins
import math

import paddle

from .. import paddle_shims as _shims
from . import dtypes as _dt
from ._opbase import _name, _operands, opmath_function, op, wrap_dim
from .creation import default_float, require_strided
from .ops_pointwise import _DEFAULT_INT, _f, _is_complex, _is_float, _legacy  # shared helpers
from .ops_slicing_joining import diff


@opmath_function("torch.meshgrid")
def meshgrid(*tensors, indexing=None):
    ts = list(tensors[0]) if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)) \
        else list(tensors)
    if indexing is None:
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but "
                           f"received: {indexing}")
    for x in ts:
        if x.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got: {x.ndim}D")
    ts = [x.reshape([-1]) for x in ts]
    axis = list(range(len(ts)))
    if indexing == "xy" and len(ts) >= 2:  # the first two axes swap places
        axis[0], axis[1] = 1, 0
    shape = [0] * len(ts)
    for i, x in enumerate(ts):
        shape[axis[i]] = int(x.shape[0])
    out = []
    for i, x in enumerate(ts):
        view = [1] * len(ts)
        view[axis[i]] = -1
        out.append(paddle.broadcast_to(x.reshape(view), shape))
    return tuple(out)


@opmath_function("torch.cartesian_prod")
def cartesian_prod(*tensors):
    if len(tensors) == 1:
        return tensors[0]
    grids = meshgrid(*tensors, indexing="ij")
    return paddle.stack([g.reshape([-1]) for g in grids], 1)


@opmath_function("torch.combinations")
def combinations(input, r=2, with_replacement=False):
    import itertools
    if input.ndim != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return paddle.zeros([0], input.dtype)
    n = int(input.shape[0])
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = list(gen(range(n), r))
    if not idx:
        return paddle.zeros([0, r] if r > 1 else [0], input.dtype)
    t = paddle.to_tensor(idx, dtype="int64")
    x = input.astype("int32") if _name(input.dtype) == "bool" else input  # no bool gather (2.6)
    return paddle.gather(x, t.reshape([-1])).reshape([len(idx), r]).astype(input.dtype)


@opmath_function("torch.block_diag")
def block_diag(*tensors):
    ts = [x.reshape([1, 1]) if x.ndim == 0 else x.reshape([1, -1]) if x.ndim == 1 else x
          for x in tensors]
    for x in ts:
        if x.ndim != 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. "
                               f"Input {ts.index(x)} has {x.ndim} dimensions")
    if not ts:
        return paddle.zeros([1, 0], default_float())
    dt = result_type_n(*ts)
    rows, cols = builtins.sum(int(x.shape[0]) for x in ts), builtins.sum(
        int(x.shape[1]) for x in ts)
    out = paddle.zeros([rows, cols], dt)
    r = c = 0
    for x in ts:
        h, w = int(x.shape[0]), int(x.shape[1])
        if h and w:
            out[r:r + h, c:c + w] = x.astype(dt)
        r, c = r + h, c + w
    return out


def _tri_indices(fn, row, col, offset, dtype, device):
    import numpy as np
    r, c = fn(row, offset, col)
    dt = _dt.to_paddle(dtype) if dtype is not None else _DEFAULT_INT
    return _cr.tensor(np.stack([r, c]).astype("int64"), dtype=dt, device=device)


@opmath_function("torch.tril_indices")
def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    require_strided(layout, 'tril_indices')
    import numpy as np
    return _tri_indices(np.tril_indices, row, col, offset, dtype, device)


@opmath_function("torch.triu_indices")
def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    require_strided(layout, 'triu_indices')
    import numpy as np
    return _tri_indices(np.triu_indices, row, col, offset, dtype, device)


# -- batch 2: distances / statistics -----------------------------------------------------------
def _pnorm(d, p, axis):
    if p == 0:
        return (d != 0).astype(d.dtype).sum(axis)
    if p == math.inf:
        return paddle.abs(d).max(axis)
    if p == 1:
        return paddle.abs(d).sum(axis)
    if p == 2:
        return paddle.sqrt((d * d).sum(axis))
    return paddle.pow(paddle.pow(paddle.abs(d), p).sum(axis), 1.0 / p)


@opmath_function("torch.cdist")
def cdist(x1, x2, p=2.0, compute_mode=None):
    if x1.ndim < 2 or x2.ndim < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.ndim}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    if p < 0:
        raise RuntimeError(f"cdist only supports non-negative p values")
    if not _is_float(x1):
        raise RuntimeError(f"cdist only supports floating-point dtypes, X1 got: "
                           f"{_legacy(x1.dtype)}")
    d = x1.unsqueeze(-2) - x2.unsqueeze(-3)
    if d.size == 0:
        return paddle.zeros(d.shape[:-1], x1.dtype)
    return _pnorm(d, p, -1)


@op("torch.dist", method=True)
def dist(input, other, p=2):
    a, b = _operands(input, other)
    d = (a - b).reshape([-1])
    if d.size == 0:
        return _shims.constant_result(paddle.zeros([], a.dtype), (a, b))
    return _pnorm(d, float(p), 0)


@op("torch.renorm", method=True, inplace=True, out=True)
def renorm(input, p, dim, maxnorm):
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.ndim <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.ndim} "
                           "dimensions")
    d = wrap_dim(dim, input.ndim)
    axes = [i for i in range(input.ndim) if i != d]
    norms = _pnorm(input, float(p), axes)
    factor = paddle.where(norms > maxnorm, maxnorm / (norms + 1e-7), paddle.ones_like(norms))
    view = [1] * input.ndim
    view[d] = -1
    return input * factor.reshape(view).astype(input.dtype)


@op("torch.cov", method=True)
def cov(input, *, correction=1, fweights=None, aweights=None):
    """ATen's cov (Correlation.cpp): the weights keep their own dtype, so w.sum() and the
    normalization factor are computed in it (float32 aweights round there, as in torch)."""
    if input.ndim > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.ndim} dimensions")
    x = input.reshape([1, -1]) if input.ndim < 2 else input
    x = _f(x) if not _is_complex(x) else x
    n = int(x.shape[1])
    for name, wt, integral in (("fweights", fweights, True), ("aweights", aweights, False)):
        if wt is None:
            continue
        if wt.ndim > 1:
            raise RuntimeError(f"cov(): expected {name} to have one or fewer dimensions but got "
                               f"{name} with {wt.ndim} dimensions")
        is_int = _name(wt.dtype) in ("uint8", "int8", "int16", "int32", "int64")
        if integral and not is_int:
            raise RuntimeError(f"cov(): expected fweights to have integral dtype but got "
                               f"fweights with {_name(wt.dtype).capitalize()} dtype")
        if not integral and _name(wt.dtype) not in ("float16", "bfloat16", "float32", "float64"):
            raise RuntimeError(f"cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {_name(wt.dtype).capitalize()} dtype")
        if wt.size != n:
            raise RuntimeError(f"cov(): expected {name} to have the same numel as there are "
                               f"observations in the input but got {wt.size} != {n}")
        if n and bool((wt.min() < 0).item()):
            raise RuntimeError(f"cov(): {name} cannot be negative")
    w = fweights
    if aweights is not None:
        w = aweights if w is None else w.astype(aweights.dtype) * aweights
    if w is None:
        avg = x.mean(1, keepdim=True) if n else paddle.full([x.shape[0], 1], math.nan, x.dtype)
        norm = builtins.max(float(n) - correction, 0.0)
        xm = x - avg
        c = paddle.matmul(xm, paddle.conj(xm).t() if _is_complex(xm) else xm.t())
        c = c / norm if norm else c / 0.0
    else:
        w_sum = w.sum()  # in w's dtype, as torch
        avg = (x * w.astype(x.dtype)).sum(1, keepdim=True) / w_sum.astype(x.dtype)
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
        if _name(norm.dtype) in ("int64", "int32"):
            norm = norm.astype(x.dtype)
        norm = paddle.clip(norm, min=0)
        xm = x - avg
        xw = xm * w.astype(x.dtype)
        c = paddle.matmul(xm, paddle.conj(xw).t() if _is_complex(xw) else xw.t())
        c = c / norm.astype(c.dtype if not _is_complex(c) else x.real().dtype)
    return c.reshape([]) if input.ndim < 2 or x.shape[0] == 1 else c


@op("torch.corrcoef", method=True)
def corrcoef(input):
    c = cov(input)
    if c.ndim == 0:
        return c / c
    d = paddle.diagonal(c)
    std = paddle.sqrt(d)
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    return paddle.clip(c, -1, 1) if not _is_complex(c) else c


def _trapezoids(y, x, dx, dim):
    """(dim, y in its computation dtype, the areas of the trapezoids between neighbours along
    dim, or None for a dim of size 0), spaced ``dx`` (default 1) or by the differences of ``x``
    (1-D: along dim)."""
    d = wrap_dim(dim, y.ndim)
    n = y.shape[d]
    yf = _f(y)
    if n == 0:
        return d, yf, None
    lo, hi = paddle.slice(yf, [d], [0], [n - 1]), paddle.slice(yf, [d], [1], [n])
    if x is None:
        return d, yf, (lo + hi) * ((1.0 if dx is None else dx) / 2.0)
    xd = _f(diff(x, dim=-1 if x.ndim == 1 else d))
    if x.ndim == 1:
        view = [1] * y.ndim
        view[d] = -1
        xd = xd.reshape(view)
    return d, yf, (lo + hi) * xd / 2.0


@opmath_function("torch.trapezoid")
def trapezoid(y, x=None, *, dx=None, dim=-1):
    d, yf, parts = _trapezoids(y, x, dx, dim)
    return yf.sum(d) if parts is None else parts.sum(d)


opmath_function("torch.trapz")(trapezoid)


@opmath_function("torch.cumulative_trapezoid")
def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    d, yf, parts = _trapezoids(y, x, dx, dim)
    if parts is None:
        return yf.clone()
    return paddle.cumsum(parts, d) if parts.shape[d] else parts


@op("torch.tensordot", out=True)
def tensordot(a, b, dims=2):
    if isinstance(dims, paddle.Tensor):
        dims = dims.tolist()
    if isinstance(dims, int):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        axes = [list(range(a.ndim - dims, a.ndim)), list(range(dims))]
    else:
        axes = [list(dims[0]) if isinstance(dims[0], (list, tuple)) else [dims[0]],
                list(dims[1]) if isinstance(dims[1], (list, tuple)) else [dims[1]]]
    if a.dtype != b.dtype:
        raise RuntimeError(f"expected both inputs to have same dtype")
    return paddle.tensordot(a, b, axes=axes)


@op("torch.diag", method=True, out=True)
def diag(input, diagonal=0):
    if input.ndim not in (1, 2):
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.ndim}D")
    x = input.astype("int32") if _name(input.dtype) == "bool" else input
    return paddle.diag(x, offset=diagonal).astype(input.dtype)


@op("torch.diag_embed", method=True, out=True)
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    nd = input.ndim + 1
    d1, d2 = wrap_dim(dim1, nd), wrap_dim(dim2, nd)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = int(input.shape[-1]) + builtins.abs(offset) if input.ndim else 1 + builtins.abs(offset)
    x = input.reshape([1]) if input.ndim == 0 else input
    # out[..., i, i + offset] = x[..., i]: build the matrix from x and an index mask
    m = int(x.shape[-1])
    rows = paddle.arange(n).reshape([n, 1])
    cols = paddle.arange(n).reshape([1, n])
    mask = (cols - rows) == offset
    pos = paddle.where(mask, paddle.minimum(rows, cols), paddle.zeros_like(rows + cols))
    pos = paddle.clip(pos, 0, builtins.max(m - 1, 0))
    base = x.astype("int32") if _name(x.dtype) == "bool" else x
    vals = paddle.gather(base, pos.reshape([-1]), axis=base.ndim - 1).reshape(
        list(base.shape[:-1]) + [n, n])
    out = paddle.where(mask, vals, paddle.zeros_like(vals)).astype(input.dtype)
    # the two new dims are the last two: move them to dim1, dim2
    src = list(range(nd - 2))
    perm = [0] * nd
    it = iter(src)
    for i in range(nd):
        if i == d1:
            perm[i] = nd - 2
        elif i == d2:
            perm[i] = nd - 1
        else:
            perm[i] = next(it)
    return out.transpose(perm)


@op("torch.diagflat", method=True, out=True)
def diagflat(input, offset=0):
    return diag(input.reshape([-1]), offset)
