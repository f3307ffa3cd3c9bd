"""The OpInfo-breadth modules (facade/ops_pointwise, ops_blas_lapack, ops_slicing_joining,
ops_reduction_comparison, ops_other_operations, creation_ops; once ops_more.py) vs real torch
2.13: arc* aliases and Tensor unary methods with torch's int/bool promotion, in-place forms
(and torch's cast error), special unary math, binary math, small linear algebra,
splitting/stacking, reductions, logspace and channels_last conversions."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

RNG = np.random.default_rng(0)
X = RNG.uniform(-0.9, 0.9, (3, 4)).astype("float32")
P = RNG.uniform(0.5, 3.0, (3, 4)).astype("float32")
I = RNG.integers(-5, 6, (3, 4)).astype("int64")
B = RNG.integers(0, 2, (3, 4)).astype("bool")


def test_unary_methods_promote_ints_and_bools():
    check("""
import torch
def f(x, i, b):
    out = []
    for n in ("acos", "arccos", "asin", "arcsin", "atan", "arctan", "exp", "sqrt", "sigmoid",
              "erf", "erfc", "lgamma", "digamma", "sinc", "deg2rad", "rad2deg", "i0", "expm1"):
        out += [getattr(x, n)(), getattr(i, n)(), getattr(b, n)(), getattr(torch, n)(i)]
    out += [torch.acosh(x.abs() + 1), x.asinh(), torch.arctanh(x), x.frac(), i.fix(), x.sgn(),
            torch.signbit(torch.tensor([-0.0, 0.0, -1.0])), x.logit(), x.logit(eps=0.1),
            i.positive(), torch.angle(i), x.nan_to_num(), b.square(), x.absolute()]
    return out
""", X, I, B, rtol=1e-5, atol=1e-6)


def test_inplace_forms_and_cast_error():
    check("""
import torch
def f(x, i):
    y = x.clone(); y.arccos_(); z = x.clone(); z.erfc_(); w = x.clone(); w.eq_(0.5)
    g = i.clone(); g.ge_(0); d = x.clone(); d.deg2rad_()
    return y, z, w, g, d
""", X, I, rtol=1e-5, atol=1e-6)
    check("""
import torch
def f(i):
    return i.clone().acos_()
""", I)  # torch: result type Float can't be cast to the desired output type Long


def test_binary_math():
    check("""
import torch
def f(x, p, i):
    return [torch.xlogy(x, p), x.xlogy(2.0), torch.hypot(x, p), torch.logaddexp(x, p),
            torch.logaddexp2(x, p), torch.fmax(x, p), torch.fmin(i, i.flip(0)),
            torch.copysign(p, x), torch.nextafter(x, p), torch.heaviside(x, p),
            torch.gcd(i, i + 7), torch.lcm(i, i + 7), torch.ldexp(x, i), i.floor_divide(3),
            torch.float_power(i, 2), torch.rsub(x, p, alpha=2), torch.greater(x, p),
            torch.not_equal(i, 0), torch.polygamma(1, p), p.polygamma(2), torch.mvlgamma(p + 2, 3)]
""", X, P, I, rtol=1e-5, atol=1e-5)


def test_binary_errors():
    check("""
import torch
def f(i):
    return torch.gcd(i.float(), i.float())
""", I)
    check("""
import torch
def f(x):
    return torch.mvlgamma(x, 3)
""", X, rtol=1e-4, atol=1e-5)  # torch 2.13 no longer checks x > (p-1)/2


def test_linear_algebra():
    v = RNG.standard_normal(4).astype("float32")
    m = RNG.standard_normal((3, 4)).astype("float32")
    b1 = RNG.standard_normal((2, 3, 4)).astype("float32")
    b2 = RNG.standard_normal((2, 4, 5)).astype("float32")
    check("""
import torch
def f(v, m, b1, b2, i):
    c = torch.zeros(3, 5)
    return [torch.dot(v, v), torch.vdot(v, v), torch.inner(m, m), torch.ger(v, v),
            torch.addr(torch.ones(4, 4), v, v, beta=2, alpha=0.5), torch.mv(m, v),
            torch.addmv(torch.ones(3), m, v), torch.addbmm(c, b1, b2), torch.baddbmm(
                torch.ones(2, 3, 5), b1, b2, alpha=2), torch.kron(m, m[:2, :2]), torch.trace(m),
            torch.trace(i), m.t(), torch.mv(i, i[0])]
""", v, m, b1, b2, I, rtol=1e-4, atol=1e-5)
    check("""
import torch
def f(v):
    return torch.dot(v, v.double())
""", v)


def test_shapes():
    check("""
import torch
def f(x):
    return [torch.vstack([x, x]), torch.hstack([x, x]), torch.dstack([x, x]),
            torch.column_stack([x[0], x[1]]), torch.row_stack([x[0], x[1]]),
            list(torch.tensor_split(x, 3, dim=1)), list(torch.tensor_split(x, [1, 3], 1)),
            list(x.hsplit(2)), list(torch.vsplit(x, [1])), torch.fliplr(x), x.flipud(),
            torch.rot90(x, 3), x.ravel(), torch.select(x, 1, -1), x.swapdims(0, 1),
            x.sum_to_size(1, 4), torch.diff(x, n=2, dim=1), torch.diff(x, prepend=x[:1], dim=0),
            torch.atleast_3d(x[0]), torch.atleast_1d(x[0, 0]), x.movedim(0, 1)]
""", X)
    check("""
import torch
def f(x):
    return torch.hsplit(x, 3)
""", X)  # not divisible: RuntimeError


def test_reductions():
    check("""
import torch
def f(x, i, b):
    n = x.clone(); n[0, 1] = float("nan")
    return [tuple(torch.aminmax(x)), tuple(x.aminmax(dim=1)), tuple(torch.aminmax(b, dim=0)),
            tuple(torch.var_mean(x, 1)), tuple(torch.std_mean(x, dim=0, correction=0)),
            torch.nansum(n), n.nanmean(dim=1), tuple(torch.kthvalue(x, 2, 1)),
            torch.msort(x), torch.logcumsumexp(x, 1), torch.nansum(i)]
""", X, I, B, rtol=1e-5, atol=1e-6)


def test_logspace_and_channels_last():
    check("""
import torch
def f(x):
    return [torch.logspace(0, 2, 5), torch.logspace(-1, 1, 3, base=2.0, dtype=torch.float64),
            torch.logspace(0, 3, 4, dtype=torch.int64), x.float(memory_format=torch.channels_last),
            x.to(torch.float64, memory_format=torch.channels_last)]
""", RNG.standard_normal((1, 2, 3, 3)).astype("float32"), rtol=1e-5, atol=1e-6)


def test_scatter_and_index_reduce():
    idx = np.array([[0, 1, 0, 2], [2, 0, 1, 1]], "int64")
    check("""
import torch
def f(x, i, idx):
    out = []
    for red in ("sum", "prod", "mean", "amax", "amin"):
        out += [torch.scatter_reduce(x, 0, idx, x[:2], red),
                x.scatter_reduce(0, idx, x[:2], red, include_self=False),
                i.scatter_reduce(0, idx, i[:2], red)]
    y = x.clone(); y.scatter_reduce_(1, idx[:, :2], x[:2, :2], "amax")
    for red in ("prod", "mean", "amax", "amin"):
        out += [x.index_reduce(0, torch.tensor([2, 0]), x[:2], red),
                i.index_reduce(1, torch.tensor([3, 3, 0, 1]), i, red, include_self=False)]
    return out + [y, x.index_copy(1, torch.tensor([3, 0]), x[:, :2]),
                  x.index_fill(1, torch.tensor([0, -1]), -2.0), torch.take(x, idx),
                  torch.take_along_dim(x[:2], idx[:, :2], 1), torch.masked_select(x, x > 0)]
""", X, I, idx, rtol=1e-5, atol=1e-6)


def test_slices_copies_and_grids():
    check("""
import torch
def f(x):
    return [torch.slice_scatter(x, torch.zeros(3, 2), 1, 0, 4, 2),
            torch.select_scatter(x, torch.ones(4), 0, 1),
            torch.diagonal_scatter(x, torch.ones(3), 1), torch.expand_copy(x[:1], (2, 4)),
            torch.diagonal_copy(x), torch.permute_copy(x, (1, 0)), torch.t_copy(x),
            x.narrow_copy(1, 1, 2), x.unflatten(1, (2, -1)), list(torch.meshgrid(x[0], x[1, :2])),
            list(torch.meshgrid(x[0], x[1, :2], x[2, :3], indexing="xy")),
            torch.cartesian_prod(x[0, :2], x[1, :3]), torch.combinations(x[0], 3),
            torch.combinations(x[0, :2], with_replacement=True), torch.block_diag(x, x[0], x[0, 0]),
            torch.tril_indices(3, 4, 1), torch.triu_indices(4, 3, -1), torch.argwhere(x > 0),
            list(torch.split_with_sizes(x, [1, 2])), torch.diag(x), torch.diag(x[0], -1),
            torch.diag_embed(x, 1, 0, 2), torch.diagflat(x[:2, :2]), torch.frexp(x).mantissa,
            torch.frexp(x).exponent]
""", X)


def test_search_count_statistics():
    check("""
import torch
def f(x, i):
    s = torch.sort(x.flatten()).values
    return [torch.isin(i, torch.tensor([0, 3, -5])), torch.isin(i, 2, invert=True),
            torch.bucketize(x, s[::3]), torch.bucketize(x, s[::3], right=True, out_int32=True),
            torch.searchsorted(s, x), torch.searchsorted(s, 0.1, side="right"),
            torch.bincount(i.flatten() + 5), torch.bincount(i.flatten() + 5, x.flatten(), 20),
            torch.histc(x, 5), torch.histc(x, 4, -0.5, 0.5), torch.cdist(x, x[:2]),
            torch.cdist(x, x, p=1), torch.dist(x, x.flip(0), 3), torch.renorm(x, 2, 0, 0.5),
            torch.cov(x), torch.cov(x, correction=0, fweights=torch.tensor([1, 2, 1, 3])),
            torch.corrcoef(x), torch.trapezoid(x), torch.trapezoid(i, dx=0.5, dim=0),
            torch.cumulative_trapezoid(x, torch.arange(4.0) ** 2), torch.tensordot(x, x, ([1], [1]))]
""", X, I, rtol=1e-5, atol=1e-5)
    check("""
import torch
def f(i):
    return torch.bincount(i.flatten())
""", I)  # negative values: RuntimeError
