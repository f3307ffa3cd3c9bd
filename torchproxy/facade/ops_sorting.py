"""torch's sorting and selection: sort, argsort, topk (torch.html's "Comparison Ops"), and
torch's CPU selection/sort algorithms that decide the index reported among equal values
(reproduced on the host for small CPU inputs): sort here, kthvalue, median and mode in
ops_reduce.py and ops_reduction_comparison.py."""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: argsort sort topk
    torch.Tensor: argsort sort topk
""")

import paddle

from . import dtypes as _dt
from ._opbase import (SortResult, TopkResult, kernel_empty, _FLOATS, _INTS, _full, _name, op,
                      wrap_dim)
from ..paddle_shims import ARGSORT_HAS_STABLE, widen_for_kernel


def _nobool(x):
    """Paddle registers no bool kernels for max/min/amax/amin/prod/cummax/cummin/argsort/
    searchsorted: bools run on int32 (exact for 0/1); callers cast the values back."""
    return x.astype("int32") if x.dtype == paddle.bool else x


def _stable_argsort(x, axis, descending=False):
    """torch's CPU sort order: stable (equal values keep their order, in both directions), NaN
    after every number (before them when descending).  ``x`` must not be bool (_nobool)."""
    if ARGSORT_HAS_STABLE:
        return paddle.argsort(x, axis=axis, descending=descending, stable=True)
    if x.size == 0:
        return kernel_empty(list(x.shape), _dt.DTYPES["int64"], x.place)
    # Paddle 2.6's argsort has no stable= and returns ties in any order: sort by the key
    # (rank of the value, position), which has no ties.  Remove with Paddle 2.6 support.
    last = x.ndim - 1
    xt = paddle.moveaxis(x, axis, -1) if axis != last else x
    n = xt.shape[-1]
    s = paddle.sort(xt, axis=-1)
    rank = paddle.searchsorted(s, xt)  # the first sorted position of an equal value
    if _name(x.dtype) in _FLOATS:
        rank = paddle.where(paddle.isnan(xt), paddle.full_like(rank, n), rank)
    pos = paddle.arange(n, dtype="int64").expand(xt.shape)
    key = (-rank if descending else rank) * (n + 1) + pos
    order = paddle.argsort(key, axis=-1)
    return paddle.moveaxis(order, -1, axis) if axis != last else order


def _copy(x):
    """x.clone(), or a new empty tensor for a 0-size ``x`` (Paddle 2.6 cannot clone those)."""
    return kernel_empty(list(x.shape), x.dtype, x.place) if x.size == 0 else x.clone()


def _zero_index(like):
    return _full([], 0, _dt.DTYPES["int64"], like)


@op("torch.sort", method=True)
def sort(input, dim=-1, descending=False, stable=False):
    """torch's CPU sort: ``stable=True``, rows of up to 16 entries, and large 1-D integer
    inputs (radix sort) keep equal values in position order; other rows with equal values come
    in the order libstdc++'s std::sort leaves them, reproduced here up to
    _UNSTABLE_ORDER_LIMIT elements."""
    if input.ndim == 0:  # torch: the 0-d tensor itself, index 0 (dim must be -1 or 0)
        wrap_dim(dim, 0)
        return SortResult(input.clone(), _zero_index(input))
    d = wrap_dim(dim, input.ndim)
    if input.size == 0:
        return SortResult(_copy(input), kernel_empty(list(input.shape), _dt.DTYPES["int64"],
                                                      input.place))
    x = widen_for_kernel("argsort", _nobool(input))  # (int8: no CPU kernel)
    idx = _stable_argsort(x, d, descending)
    v = paddle.take_along_axis(x, idx, d)  # Paddle has no bool take_along_axis either
    n = x.shape[d]
    # torch radix-sorts (stably) large 1-D integer inputs, but not bool ones (run on int32 here)
    radix = (x.ndim == 1 and x.size >= 32768 and _name(x.dtype) in _INTS
             and input.dtype != paddle.bool)
    if not stable and n > 16 and not radix and _host_order_ok(x):
        # torch sorts rows of more than 16 entries with std::sort: equal values come out in
        # the order its introsort leaves them (rows without ties have one order anyway)
        a, b = paddle.slice(v, [d], [1], [n]), paddle.slice(v, [d], [0], [n - 1])
        eq = a == b
        if _name(x.dtype) in _FLOATS:
            eq = eq | (paddle.isnan(a) & paddle.isnan(b))
        tied = eq.any(d, keepdim=True)
        if bool(tied.any()):
            flags, host = _rows(tied, d), _rows(idx, d)
            idx = _from_rows([_torch_unstable_order(r, descending) if f[0] else h
                              for r, f, h in zip(_rows(x, d), flags, host)], x, d)
            v = paddle.take_along_axis(x, idx, d)
    return SortResult(v.astype(input.dtype) if x is not input else v, idx.astype("int64"))


@op("torch.argsort", method=True)
def argsort(input, dim=-1, descending=False, stable=False):
    return sort(input, dim, descending, stable).indices


@op("torch.topk", method=True)
def topk(input, k, dim=-1, largest=True, sorted=True):  # noqa: A002
    d = wrap_dim(dim, input.ndim)
    v, i = paddle.topk(input, k, axis=d, largest=largest, sorted=True)
    return TopkResult(v, i.astype("int64"))


# -- torch's CPU selection/sort algorithms, for the index among equal values ------------------
# kthvalue (quick_select_template in aten/src/ATen/native/Sorting.cpp) and mode (std::sort of
# (value, position) pairs compared by value only, libstdc++'s introsort) return positions that
# depend on the algorithm when the selected value occurs more than once.  These reproduce the
# algorithms on the host for such rows only.
def _gt_or_nan(a, b):
    return (a != a and b == b) or a > b


def _torch_quickselect_index(vals, k):
    """The position torch's kthvalue reports for the (0-based) ``k``-th smallest of ``vals``."""
    vals = list(vals)
    idx = list(range(len(vals)))

    def swap(i, j):
        vals[i], vals[j] = vals[j], vals[i]
        idx[i], idx[j] = idx[j], idx[i]
    gt = _gt_or_nan
    lo, hi = 0, len(vals) - 1
    while hi > lo:
        if hi == lo + 1:
            if gt(vals[lo], vals[hi]):
                swap(lo, hi)
            break
        swap((lo + hi) >> 1, lo + 1)  # median of three
        if gt(vals[lo + 1], vals[hi]):
            swap(lo + 1, hi)
        if gt(vals[lo], vals[hi]):
            swap(lo, hi)
        if gt(vals[lo + 1], vals[lo]):
            swap(lo + 1, lo)
        i, j, piv = lo + 1, hi, vals[lo]
        while True:
            i += 1
            while gt(piv, vals[i]):
                i += 1
            j -= 1
            while gt(vals[j], piv):
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
    return idx[k]


def _libstdcxx_sort(a):
    """libstdc++'s std::sort of ``a`` (a list of (value, position) pairs) in place, comparing
    values with ``<`` only: introsort (median of three to first, unguarded partition, heapsort
    past 2*lg(n) levels) down to 16-element runs, then insertion sort."""
    def less(x, y):
        return x[0] < y[0]

    def adjust_heap(first, hole, length, value):
        top, child = hole, hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if less(a[first + child], a[first + child - 1]):
                child -= 1
            a[first + hole] = a[first + child]
            hole = child
        if length % 2 == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            a[first + hole] = a[first + child - 1]
            hole = child - 1
        parent = (hole - 1) // 2
        while hole > top and less(a[first + parent], value):
            a[first + hole] = a[first + parent]
            hole = parent
            parent = (hole - 1) // 2
        a[first + hole] = value

    def heap_sort(first, last):
        length = last - first
        if length >= 2:
            parent = (length - 2) // 2
            while True:
                adjust_heap(first, parent, length, a[first + parent])
                if parent == 0:
                    break
                parent -= 1
        while last - first > 1:
            last -= 1
            value = a[last]
            a[last] = a[first]
            adjust_heap(first, 0, last - first, value)

    def move_median_to_first(result, x, y, z):
        if less(a[x], a[y]):
            m = y if less(a[y], a[z]) else z if less(a[x], a[z]) else x
        elif less(a[x], a[z]):
            m = x
        elif less(a[y], a[z]):
            m = z
        else:
            m = y
        a[result], a[m] = a[m], a[result]

    def introsort(first, last, depth):
        while last - first > 16:
            if depth == 0:
                heap_sort(first, last)
                return
            depth -= 1
            move_median_to_first(first, first + 1, first + (last - first) // 2, last - 1)
            lo, hi = first + 1, last
            while True:  # unguarded partition around a[first]
                while less(a[lo], a[first]):
                    lo += 1
                hi -= 1
                while less(a[first], a[hi]):
                    hi -= 1
                if not lo < hi:
                    break
                a[lo], a[hi] = a[hi], a[lo]
                lo += 1
            introsort(lo, last, depth)
            last = lo

    def linear_insert(i):
        val, j = a[i], i - 1
        while less(val, a[j]):
            a[j + 1] = a[j]
            j -= 1
        a[j + 1] = val

    def insertion_sort(first, last):
        for i in range(first + 1, last):
            if less(a[i], a[first]):
                val = a[i]
                a[first + 1:i + 1] = a[first:i]
                a[first] = val
            else:
                linear_insert(i)

    n = len(a)
    if n > 1:
        introsort(0, n, 2 * (n.bit_length() - 1))
        if n > 16:
            insertion_sort(0, 16)
            for i in range(16, n):
                linear_insert(i)
        else:
            insertion_sort(0, n)


def _torch_mode_row(vals):
    """(value, position) torch's CPU mode kernel reports for one row."""
    pairs = [(v, i) for i, v in enumerate(vals)]
    _libstdcxx_sort(pairs)
    best, freq, run = None, 0, 0
    for i, (v, p) in enumerate(pairs):
        run += 1
        if i == len(pairs) - 1 or pairs[i][0] != pairs[i + 1][0]:
            if run > freq:
                best, freq = p, run
            run = 0
    return best


def _rows(x, d):
    """``x`` with dim ``d`` last, as host rows [-1, n] (Python values)."""
    xt = paddle.moveaxis(x, d, -1) if d != x.ndim - 1 else x
    return xt.reshape([-1, x.shape[d]]).numpy().tolist()


def _from_rows(rows, x, d):
    """Host rows of positions (one row per row of _rows, each of the same length L) -> an
    int64 index tensor shaped as ``x`` with dim ``d`` of size L."""
    width = len(rows[0]) if rows else 1
    t = paddle.to_tensor(rows, dtype="int64", place=x.place)
    t = t.reshape([s for i, s in enumerate(x.shape) if i != d] + [width])
    return paddle.moveaxis(t, -1, d) if d != x.ndim - 1 else t


def _sort_key(v, descending):
    """A key whose ``<`` is torch's KeyValueCompAsc / KeyValueCompDesc (NaN largest)."""
    if v != v:
        return (0, 0) if descending else (1, 0)
    return (1, -v) if descending else (0, v)


def _torch_unstable_order(row, descending):
    """The positions std::sort leaves, torch's CPU sort with ``stable=False``."""
    pairs = [(_sort_key(v, descending), i) for i, v in enumerate(row)]
    _libstdcxx_sort(pairs)
    return [p[1] for p in pairs]


# Reproducing torch's unstable order runs on the host, in Python: only for CPU tensors (torch's
# CUDA sort leaves another order, and a host round trip would stall the device) and up to this
# many elements, which bounds the cost (it grows as n log n: 8192 costs about twice 4096, the
# limit before; 256x256 ints with ties took 0.2 s at 1 << 16).  8192 covers torch's own OpInfo
# sort/argsort samples (8000 elements: the bool one holds 7999 equal values).
# Other inputs get the stable order: one valid result of an unstable sort.
_UNSTABLE_ORDER_LIMIT = 8192


def _host_order_ok(x):
    """Whether torch's order among equal values (sort, mode, kthvalue) is reproduced for ``x``."""
    return x.size <= _UNSTABLE_ORDER_LIMIT and x.place.is_cpu_place()


def kth_index(input, k, d):
    """torch's kthvalue positions (dim ``d`` kept, size 1) for the 1-based ``k``: the stable
    order's, except in rows where the selected value occurs more than once, where torch's
    quickselect decides."""
    if input.dtype == paddle.bool:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    x = input
    idx = paddle.take_along_axis(_stable_argsort(x, d),
                                 _full([1] * x.ndim, k - 1, _dt.DTYPES["int64"], x).expand(
                                     [s if i != d else 1 for i, s in enumerate(x.shape)]), d)
    v = paddle.take_along_axis(x, idx, d)
    same = (x == v)
    if _name(x.dtype) in _FLOATS:
        same = same | (paddle.isnan(x) & paddle.isnan(v))
    tied = same.astype("int64").sum(d, keepdim=True) > 1
    if _host_order_ok(x) and bool(tied.any()):
        rows, flags = _rows(x, d), _rows(tied, d)
        host = _rows(idx, d)
        positions = [[_torch_quickselect_index(r, k - 1)] if f[0] else h
                     for r, f, h in zip(rows, flags, host)]
        idx = _from_rows(positions, x, d)
    return idx
