"""``torch.nn.functional`` pooling functions: max/avg/lp/adaptive/fractional pooling, the
unpools, with torch's windows (``ceil_mode``, the average pool's divisor, padding rules).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: adaptive_avg_pool1d adaptive_max_pool1d avg_pool1d max_pool1d max_pool1d_with_indices
        max_pool2d max_pool3d
    torch.nn.functional: adaptive_avg_pool1d adaptive_avg_pool2d adaptive_avg_pool3d
        adaptive_max_pool1d adaptive_max_pool1d_with_indices adaptive_max_pool2d
        adaptive_max_pool2d_with_indices adaptive_max_pool3d adaptive_max_pool3d_with_indices
        avg_pool1d avg_pool2d avg_pool3d fractional_max_pool2d fractional_max_pool2d_with_indices
        fractional_max_pool3d fractional_max_pool3d_with_indices lp_pool1d lp_pool2d lp_pool3d
        max_pool1d max_pool1d_with_indices max_pool2d max_pool2d_with_indices max_pool3d
        max_pool3d_with_indices max_unpool1d max_unpool2d max_unpool3d
""")

import itertools
import math

import paddle
import paddle.nn.functional as PF

from .nn_functional import _is_int, _ntuple, F
from .registry import torch_function


# -- pooling ----------------------------------------------------------------------------------------
def _batched(input, d, name):
    """(input with a batch dim, unbatched?) for a d-dimensional spatial op."""
    if input.ndim == d + 1:
        return input.unsqueeze(0), True
    if input.ndim == d + 2:
        return input, False
    raise RuntimeError(f"{name}: Expected {d + 1}D or {d + 2}D input, but got "
                       f"{input.ndim}D input")


def _out_len(L, k, s, p, d, ceil_mode):
    num = L + 2 * p - d * (k - 1) - 1
    if ceil_mode:
        out = -(-num // s) + 1
        if (out - 1) * s >= L + p:
            out -= 1
    else:
        out = num // s + 1
    return out


def _windows(x, ks, ss, ps, ds, ceil_mode, fill):
    """Every kernel offset's strided view of ``x`` ([N, C, *spatial]) padded with ``fill``:
    ([K, N, C, *out] stacked views, [K, *out] flat input indices, out sizes)."""
    nd = len(ks)
    sp = x.shape[2:]
    outs = [_out_len(L, k, s, p, d, ceil_mode) for L, k, s, p, d in zip(sp, ks, ss, ps, ds)]
    if any(o <= 0 for o in outs):
        raise RuntimeError(f"Given input size: {tuple(x.shape[1:])}. Calculated output size: "
                           f"{tuple([x.shape[1]] + outs)}. Output size is too small")
    pads = []
    for L, k, s, p, d, o in zip(sp, ks, ss, ps, ds, outs):
        right = max((o - 1) * s + d * (k - 1) + 1 - (L + p), 0)
        pads.append((p, right))
    if any(a or b for a, b in pads):
        flat = []
        for a, b in reversed(pads):  # Paddle (as torch) lists the last dim first
            flat += [a, b]
        xp = PF.pad(x, flat, mode="constant", value=fill,
                    data_format={1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd])
    else:
        xp = x
    views, idxs = [], []
    grids = paddle.meshgrid(*[paddle.arange(o, dtype="int64") for o in outs]) if nd > 1 \
        else [paddle.arange(outs[0], dtype="int64")]
    for off in itertools.product(*[range(k) for k in ks]):
        sl = [slice(None), slice(None)]
        flat_idx = None
        for dim, (o, s, d, p, L) in enumerate(zip(off, ss, ds, ps, sp)):
            start = o * d
            sl.append(slice(start, start + (outs[dim] - 1) * s + 1, s))
            coord = grids[dim] * s + start - p
            flat_idx = coord if flat_idx is None else flat_idx * L + coord
        views.append(xp[tuple(sl)])
        idxs.append(flat_idx)
    return paddle.stack(views), paddle.stack(idxs), outs, pads


def _check_pool_input(input, nd):
    """torch's max_pool shape check: every non-batch dimension non-empty (the batch may be)."""
    shape = list(input.shape)
    if len(shape) not in (nd + 1, nd + 2):
        return  # _batched reports the rank
    first = len(shape) - nd - 1  # the channel dim: unbatched inputs have no batch dim
    empty = next((i for i in range(first, len(shape)) if shape[i] == 0), None)
    if empty is None:
        return
    if nd == 3:
        raise RuntimeError("max_pool3d_with_indices_out_cpu_template(): Expected input's "
                           f"non-batch dimensions to have positive length, but input has a shape "
                           f"of {shape} and non-batch dimension {empty} has length zero!")
    prefix = "max_pool1d: " if nd == 1 else ""
    raise RuntimeError(f"{prefix}Expected {nd + 1}D or {nd + 2}D (batch mode) tensor with optional "
                       f"0 dim batch size for input, but got:{shape}")


def _window(kernel_size, stride, padding, nd):
    """Kernel, stride (torch: none given -> the kernel size) and padding as nd-tuples."""
    ks = _ntuple(kernel_size, nd)
    ss = _ntuple(stride if stride not in (None, []) and stride != () else kernel_size, nd)
    return ks, ss, _ntuple(padding, nd)


def _check_half_pad(ks, ps, too_large):
    """torch's pooling padding rule: 0 <= pad <= kernel / 2; ``too_large(pad, kernel)`` is
    the message of the op (max and avg pooling word it differently)."""
    for k, p in zip(ks, ps):
        if p < 0:
            raise RuntimeError("pad must be non-negative")
        if p * 2 > k:
            raise RuntimeError(too_large(p, k))


def _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices, nd, name):
    _check_pool_input(input, nd)
    x, unb = _batched(input, nd, name)
    ks, ss, ps = _window(kernel_size, stride, padding, nd)
    ds = _ntuple(dilation, nd)
    for st in ss:
        if st <= 0:
            raise RuntimeError(f"stride must be greater than zero, but got {st}")
    _check_half_pad(ks, ps, lambda p, k: "pad should be at most half of effective kernel size, "
                    f"but got pad={p}, kernel_size={k} and dilation=1")
    if any(d <= 0 for d in ds):  # (Paddle's window code would index with them)
        if nd == 1:
            raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {ds[0]}")
        raise RuntimeError("dilation should be greater than zero, but got " + " ".join(
            f"dilation{a}: {d}" for a, d in zip("THW"[3 - nd:], ds)))
    w, idx, outs, _ = _windows(x, ks, ss, ps, ds, ceil_mode, float("-inf"))
    am = paddle.argmax(w, axis=0, keepdim=True)  # first max (ties: the first offset, as torch)
    out = paddle.take_along_axis(w, am, axis=0).squeeze(0)
    if unb:
        out = out.squeeze(0)
    if not return_indices:
        return out
    ind = paddle.take_along_axis(idx.reshape([idx.shape[0], 1, 1] + outs).expand(w.shape), am,
                                 axis=0).squeeze(0)
    if unb:
        ind = ind.squeeze(0)
    return out, ind


def _avg_divisor(x, ks, ss, ps, outs, count_include_pad):
    nd = len(ks)
    div = None
    for dim, (L, k, s, p, o) in enumerate(zip(x.shape[2:], ks, ss, ps, outs)):
        cnt = []
        for j in range(o):
            start = j * s - p
            end = min(start + k, L + p)
            cnt.append((end - start) if count_include_pad else (min(end, L) - max(start, 0)))
        shape = [1] * nd
        shape[dim] = o
        c = paddle.to_tensor(cnt, dtype=x.dtype if not _is_int(x) else "int64").reshape(shape)
        div = c if div is None else div * c
    return div


def _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, divisor_override,
              nd, name):
    x, unb = _batched(input, nd, name)
    ks, ss, ps = _window(kernel_size, stride, padding, nd)
    _check_half_pad(ks, ps, lambda p, k: "pad should be at most half of kernel size, but got "
                    f"pad={p} and kernel_size={k}")
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    w, _, outs, _ = _windows(x, ks, ss, ps, (1,) * nd, ceil_mode, 0.0)
    total = w.sum(axis=0)
    if _is_int(x):  # torch keeps the dtype: C++ integer division (truncation toward zero)
        if divisor_override is not None:
            div = paddle.full([], int(divisor_override), dtype=x.dtype)
        else:
            div = _avg_divisor(x, ks, ss, ps, outs, count_include_pad).astype(x.dtype)
        q = paddle.abs(total) // paddle.abs(div)
        out = paddle.where((total < 0) != (div < 0), -q, q)
    elif divisor_override is not None:
        out = total / divisor_override
    else:
        out = total / _avg_divisor(x, ks, ss, ps, outs, count_include_pad)
    return out.squeeze(0) if unb else out


def _mp(nd):
    def max_pool(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                 return_indices=False):
        return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                         nd, f"max_pool{nd}d")

    def with_indices(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
                     return_indices=True):
        return _max_pool(input, kernel_size, stride, padding, dilation, ceil_mode, True, nd,
                         f"max_pool{nd}d")
    max_pool.__name__ = f"max_pool{nd}d"
    torch_function(F + f"max_pool{nd}d")(max_pool)
    torch_function(F + f"max_pool{nd}d_with_indices")(with_indices)
    return max_pool


max_pool1d, max_pool2d, max_pool3d = _mp(1), _mp(2), _mp(3)


@torch_function(F + "avg_pool1d")
def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad, None, 1,
                     "avg_pool1d")


@torch_function(F + "avg_pool2d")
def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 2, "avg_pool2d")


@torch_function(F + "avg_pool3d")
def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    return _avg_pool(input, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, 3, "avg_pool3d")


def _unpool_output_size(input, ks, ss, ps, output_size):
    nd = len(ks)
    default = [(input.shape[input.ndim - nd + d] - 1) * ss[d] + ks[d] - 2 * ps[d]
               for d in range(nd)]
    if output_size is None:
        return default
    output_size = [int(v) for v in output_size]
    if len(output_size) == nd + 2:
        output_size = output_size[2:]
    if len(output_size) != nd:
        raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} "
                         f"elements, but it has a length of '{len(output_size)}'")
    for d in range(nd):
        lo, hi = default[d] - ss[d], default[d] + ss[d]
        if not lo < output_size[d] < hi:
            raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between '
                             f'{lo} and {hi})')
    return output_size


def _max_unpool(input, indices, kernel_size, stride, padding, output_size, nd):
    """torch's max_unpool: every value written at its flat index in its (N, C) plane of the
    output (zeros elsewhere); gradients flow back to the values by the same indices."""
    name = f"max_unpool{nd}d"
    ks = _ntuple(kernel_size, nd)
    ss = _ntuple(stride if stride is not None else kernel_size, nd)
    ps = _ntuple(padding, nd)
    out = _unpool_output_size(input, ks, ss, ps, output_size)
    if list(indices.shape) != list(input.shape):
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    if indices.dtype != paddle.int64:
        raise RuntimeError(f"elements in indices should be type int64 but got: {indices.dtype}")
    x, unb = _batched(input, nd, name)
    idx = indices.unsqueeze(0) if unb else indices
    n, c = x.shape[0], x.shape[1]
    total = math.prod(out)
    flat_idx = idx.reshape([n, c, math.prod(idx.shape[2:])])
    vals = x.reshape([n, c, math.prod(x.shape[2:])])
    res = paddle.zeros([n, c, total], dtype=x.dtype)
    if math.prod(flat_idx.shape):
        lo, hi = int(flat_idx.min()), int(flat_idx.max())
        if lo < 0 or hi >= total:
            bad = lo if lo < 0 else hi
            raise RuntimeError(f"Found an invalid max index: {bad} (output volumes are of size "
                               f"{'x'.join(map(str, out))}")
        if vals.stop_gradient:
            res = paddle.put_along_axis(res, flat_idx, vals, axis=2)
        else:  # values by assignment, gradient to every value (a repeated index included)
            add = paddle.put_along_axis(res, flat_idx, vals, axis=2, reduce="add")
            res = paddle.put_along_axis(res, flat_idx, vals.detach(), axis=2) + (add - add.detach())
    res = res.reshape([n, c] + out)
    return res.squeeze(0) if unb else res


def _mu(nd):
    def max_unpool(input, indices, kernel_size, stride=None, padding=0, output_size=None):
        return _max_unpool(input, indices, kernel_size, stride, padding, output_size, nd)
    max_unpool.__name__ = f"max_unpool{nd}d"
    torch_function(F + f"max_unpool{nd}d")(max_unpool)
    return max_unpool


max_unpool1d, max_unpool2d, max_unpool3d = _mu(1), _mu(2), _mu(3)


def _fractional_intervals(sample, in_size, out_size, pool):
    import numpy as np
    seq = np.empty(out_size, dtype=np.int64)
    ft = np.float64 if isinstance(sample, np.float64) else np.float32  # torch: scalar_t
    if out_size > 1:
        alpha = ft(in_size - pool) / ft(out_size - 1)
        for i in range(out_size - 1):
            seq[i] = int(ft((ft(i) + sample) * alpha)) - int(ft(sample * alpha))
    seq[out_size - 1] = in_size - pool
    return seq


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                         _random_samples, nd):
    import numpy as np
    name = f"fractional_max_pool{nd}d"
    x, unb = _batched(input, nd, name)
    ks = _ntuple(kernel_size, nd)
    sp = x.shape[2:]
    if output_size is None:
        if output_ratio is None:
            raise ValueError(f"{name} requires specifying either an output_size or an "
                             "output_ratio")
        ratios = list(output_ratio) if isinstance(output_ratio, (list, tuple)) else [output_ratio] * nd
        outs = [int(L * r) for L, r in zip(sp, ratios)]
    else:
        outs = list(_ntuple(output_size, nd))
    for L, k, o in zip(sp, ks, outs):
        if o + k - 1 > L:
            raise RuntimeError(f"{name}(): pool size {k} too large relative to input size {L} "
                               f"for output size {o}")
    n, c = x.shape[0], x.shape[1]
    if _random_samples is None:
        samples = paddle.rand([n, c, nd], dtype=x.dtype)
    else:
        samples = _random_samples
        if samples.dtype != x.dtype:  # torch checks it before pooling
            raise RuntimeError("Expect _random_samples to have the same dtype as input")
    smp = samples.astype("float64" if x.dtype == paddle.float64 else "float32").numpy()
    # torch's order of the samples per plane: 2-d (w, h); 3-d (t, h, w)
    order = [1, 0] if nd == 2 else list(range(nd))
    strides = [int(np.prod(sp[d + 1:])) for d in range(nd)]
    K = int(np.prod(ks))
    offs = np.stack(np.meshgrid(*[np.arange(k) for k in ks], indexing="ij"), -1).reshape(K, nd)
    idx = np.empty((n, c, int(np.prod(outs)), K), dtype=np.int64)
    for b in range(n):
        for ch in range(c):
            seqs = [_fractional_intervals(smp[b, ch, order[d]], sp[d], outs[d], ks[d])
                    for d in range(nd)]
            starts = np.stack(np.meshgrid(*seqs, indexing="ij"), -1).reshape(-1, 1, nd)
            pos = starts + offs[None]  # [O, K, nd]
            idx[b, ch] = (pos * np.array(strides)).sum(-1)
    flat_idx = paddle.to_tensor(idx)
    xf = x.reshape([n, c, -1])
    w = paddle.take_along_axis(xf, flat_idx.reshape([n, c, -1]), axis=2).reshape(idx.shape)
    am = paddle.argmax(w, axis=3, keepdim=True)
    out = paddle.take_along_axis(w, am, axis=3).squeeze(3).reshape([n, c] + outs)
    ind = paddle.take_along_axis(flat_idx, am, axis=3).squeeze(3).reshape([n, c] + outs)
    if unb:
        out, ind = out.squeeze(0), ind.squeeze(0)
    return (out, ind) if return_indices else out


def _fmp(nd):
    def fmp(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
            _random_samples=None):
        return _fractional_max_pool(input, kernel_size, output_size, output_ratio,
                                    return_indices, _random_samples, nd)

    def fmpi(input, kernel_size, output_size=None, output_ratio=None, return_indices=False,
             _random_samples=None):
        return _fractional_max_pool(input, kernel_size, output_size, output_ratio, True,
                                    _random_samples, nd)
    torch_function(F + f"fractional_max_pool{nd}d")(fmp)
    torch_function(F + f"fractional_max_pool{nd}d_with_indices")(fmpi)
    return fmp


fractional_max_pool2d, fractional_max_pool3d = _fmp(2), _fmp(3)


def _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, nd):
    ks = _ntuple(kernel_size, nd)
    out = _avg_pool(paddle.pow(input, norm_type), ks, stride, 0, ceil_mode, True, None, nd,
                    f"lp_pool{nd}d")
    n = math.prod(ks)
    return paddle.pow(paddle.sign(out) * PF.relu(paddle.abs(out)) * n, 1.0 / norm_type)


@torch_function(F + "lp_pool1d")
def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 1)


@torch_function(F + "lp_pool2d")
def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 2)


@torch_function(F + "lp_pool3d")
def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    return _lp_pool(input, norm_type, kernel_size, stride, ceil_mode, 3)


def _adaptive_sizes(output_size, spatial):
    out = list(output_size) if isinstance(output_size, (list, tuple)) else [output_size] * len(spatial)
    if len(out) == 1 and len(spatial) > 1:
        out = out * len(spatial)
    return [int(L) if o is None else int(o) for o, L in zip(out, spatial)]


def _adaptive(input, output_size, nd, kind, return_indices=False):
    name = f"adaptive_{kind}_pool{nd}d"
    if nd > 1 and isinstance(output_size, (list, tuple)) and output_size and \
            input.ndim <= len(output_size):  # torch's Python-level _list_with_default
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")
    if isinstance(output_size, (list, tuple)) and len(output_size) not in (1, nd):
        raise RuntimeError(f"{name}: 'output_size' should contain one int"
                           f"{'' if nd == 1 else f' or {nd} ints'}")
    x, unb = _batched(input, nd, name)
    outs = _adaptive_sizes(output_size, x.shape[2:])
    if any(o < 0 for o in outs):
        raise RuntimeError(f"Trying to create tensor with negative dimension {min(outs)}: "
                           f"{list(x.shape[:2]) + outs}")
    sp = x.shape[2:]
    # one window per output index and dim: [start, end) = [floor(i L / o), ceil((i + 1) L / o))
    bounds = [[(i * L // o, -(-(i + 1) * L // o)) for i in range(o)] for L, o in zip(sp, outs)]
    fmt = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd]
    regular = all(L % o == 0 for L, o in zip(sp, outs))
    if kind == "avg" and regular:
        ks = [L // o for L, o in zip(sp, outs)]
        r = _avg_pool(x, ks, ks, 0, False, True, None, nd, name)
        return r.squeeze(0) if unb else r
    cells, idx_cells = [], []
    for combo in itertools.product(*bounds):
        sl = (slice(None), slice(None)) + tuple(slice(a, b) for a, b in combo)
        win = x[sl].reshape(x.shape[:2] + [-1])
        if kind == "avg":
            cells.append(win.mean(axis=2))
        else:
            am = paddle.argmax(win, axis=2, keepdim=True)
            cells.append(paddle.take_along_axis(win, am, axis=2).squeeze(2))
            if return_indices:
                # flat index inside the window -> flat index in the input's spatial dims
                sizes = [b - a for a, b in combo]
                rem = am.squeeze(2)
                coords = []
                for s_ in reversed(sizes):
                    coords.append(rem % s_)
                    rem = rem // s_
                coords = coords[::-1]
                flat = None
                for (a, _), c, L in zip(combo, coords, sp):
                    c = c + a
                    flat = c if flat is None else flat * L + c
                idx_cells.append(flat)
    out = paddle.stack(cells, axis=2).reshape(x.shape[:2] + outs)
    if unb:
        out = out.squeeze(0)
    if kind == "max" and return_indices:
        ind = paddle.stack(idx_cells, axis=2).reshape(x.shape[:2] + outs)
        return out, (ind.squeeze(0) if unb else ind)
    return out


def _ad(nd):
    def avg(input, output_size):
        return _adaptive(input, output_size, nd, "avg")

    def mx(input, output_size, return_indices=False):
        return _adaptive(input, output_size, nd, "max", return_indices)

    def mxi(input, output_size, return_indices=True):
        return _adaptive(input, output_size, nd, "max", True)
    torch_function(F + f"adaptive_avg_pool{nd}d")(avg)
    torch_function(F + f"adaptive_max_pool{nd}d")(mx)
    torch_function(F + f"adaptive_max_pool{nd}d_with_indices")(mxi)
    return avg, mx


(adaptive_avg_pool1d, adaptive_max_pool1d), (adaptive_avg_pool2d, adaptive_max_pool2d), \
    (adaptive_avg_pool3d, adaptive_max_pool3d) = _ad(1), _ad(2), _ad(3)


# -- the torch.* (ATen) forms: stride=[] means the kernel size, no return_indices= (the
#    *_with_indices and adaptive max forms return (values, indices)) --------------------------
def _aten_stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and not stride) else stride


def _aten_mp(fn, name):
    def aten_max_pool(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
        return fn(input, kernel_size, _aten_stride(stride), padding, dilation, ceil_mode)
    aten_max_pool.__name__ = name
    return torch_function("torch." + name)(aten_max_pool)


for _nd, _fn in ((1, max_pool1d), (2, max_pool2d), (3, max_pool3d)):
    _aten_mp(_fn, f"max_pool{_nd}d")


@torch_function("torch.max_pool1d_with_indices")
def aten_max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                                 ceil_mode=False):
    return tuple(max_pool1d(input, kernel_size, _aten_stride(stride), padding, dilation,
                            ceil_mode, True))


@torch_function("torch.avg_pool1d")
def aten_avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
                    count_include_pad=True):
    return avg_pool1d(input, kernel_size, _aten_stride(stride), padding, ceil_mode,
                      count_include_pad)


@torch_function("torch.adaptive_avg_pool1d")
def aten_adaptive_avg_pool1d(input, output_size):
    return adaptive_avg_pool1d(input, output_size)


@torch_function("torch.adaptive_max_pool1d")
def aten_adaptive_max_pool1d(input, output_size):
    return tuple(adaptive_max_pool1d(input, output_size, True))
