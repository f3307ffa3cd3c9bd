"""torch's "BLAS and LAPACK Operations" (torch.html) beyond ops.py and linalg.py: dot, vdot,
inner, ger, mv, addmv, addr, baddbmm, addbmm... with torch's checks, beta/alpha rules and ``out=``
(from torch's OpInfo database)."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: addbmm addmv addr baddbmm dot ger inner kron mv t trace vdot
    torch.Tensor: addbmm addbmm_ addmv addmv_ addr addr_ baddbmm baddbmm_ dot ger inner kron mv t
        t_ trace vdot
""")

import builtins

import paddle

from .. import paddle_shims as _shims
from . import ops as _ops
from ._opbase import _INTS, _full, _name, _operands, _register_op, op
from .ops_pointwise import _is_complex, _legacy  # shared helpers


# -- linear algebra ----------------------------------------------------------------------------
def _vec_check(a, b, name):
    if a.ndim != 1 or b.ndim != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.ndim}D and {b.ndim}D tensors")
    if a.dtype != b.dtype:
        raise RuntimeError(f"{name} : expected both vectors to have same dtype, but found "
                           f"{_legacy(a.dtype)} and {_legacy(b.dtype)}")
    if a.shape[0] != b.shape[0]:
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")


@op("torch.dot", method=True, out=True)
def dot(input, tensor):
    _vec_check(input, tensor, "dot")
    r = (input * tensor).sum()
    return r.astype(input.dtype)


@op("torch.vdot", method=True, out=True)
def vdot(input, other):
    _vec_check(input, other, "vdot")
    a = paddle.conj(input) if _is_complex(input) else input
    return (a * other).sum().astype(input.dtype)


@op("torch.inner", method=True, out=True)
def inner(input, other):
    if input.ndim == 0 or other.ndim == 0:
        return _ops.BINARY["mul"](input, other)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected both inputs to have same dtype, but found "
                           f"{_legacy(input.dtype)} and {_legacy(other.dtype)}")
    return paddle.tensordot(input, other, axes=[[input.ndim - 1], [other.ndim - 1]])


@op("torch.ger", method=True, out=True)
def ger(input, vec2):
    if input.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.ndim}-D")
    return _ops.outer(input, vec2)


def _beta_alpha(input, prod, beta, alpha, name):
    if _name(prod.dtype) in _INTS:  # torch casts the scalars to the integer type
        beta, alpha = int(beta), int(alpha)
    if _name(prod.dtype) == "bool":
        prod = prod.astype("bool")
    if beta == 0:
        res = _ops.BINARY["mul"](prod, alpha) if alpha != 1 else prod
        return paddle.broadcast_to(res, prod.shape) if list(res.shape) != list(prod.shape) else res
    a = _ops.BINARY["mul"](input, beta) if beta != 1 else input
    b = _ops.BINARY["mul"](prod, alpha) if alpha != 1 else prod
    return _ops.add(a, b).astype(prod.dtype)


def _dtypes_match(*ts):
    d = ts[0].dtype
    for t in ts[1:]:
        if t.dtype != d:
            raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                               f"{_ops._cpp_name(d)} != {_ops._cpp_name(t.dtype)}")


@op("torch.mv", method=True, out=True)
def mv(input, vec):
    if input.ndim != 2 or vec.ndim != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.ndim}, {vec.ndim}")
    if input.shape[1] != vec.shape[0]:
        raise RuntimeError(f"size mismatch, got input ({input.shape[0]}), mat "
                           f"({input.shape[0]}x{input.shape[1]}), vec ({vec.shape[0]})")
    _dtypes_match(input, vec)
    if _name(input.dtype) in _INTS:
        return (input * vec).sum(-1).astype(input.dtype)
    return paddle.matmul(input, vec)


@op("torch.addmv", method=True, inplace=True, out=True)
def addmv(input, mat, vec, *, beta=1, alpha=1):
    return _beta_alpha(input, mv(mat, vec), beta, alpha, "addmv")


@op("torch.addr", method=True, inplace=True, out=True)
def addr(input, vec1, vec2, *, beta=1, alpha=1):
    if vec1.ndim != 1 or vec2.ndim != 1:
        raise RuntimeError(f"addr: Expected 1-D argument vec1, but got {vec1.ndim}-D")
    prod = paddle.outer(vec1, vec2) if _name(vec1.dtype) != "bool" else \
        (vec1.unsqueeze(1) & vec2.unsqueeze(0))
    if _name(vec1.dtype) == "bool":
        p = prod if alpha else paddle.zeros_like(prod)
        r = p if not beta else paddle.logical_or(
            paddle.broadcast_to(input.astype("bool"), prod.shape), p)
        return r
    return _beta_alpha(input, prod, beta, alpha, "addr")


def _bmm(a, b):
    if a.ndim != 3 or b.ndim != 3:
        raise RuntimeError(f"batch1 must be a 3D tensor")
    if a.shape[0] != b.shape[0] or a.shape[2] != b.shape[1]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _dtypes_match(a, b)
    if _name(a.dtype) in _INTS:
        return (a.unsqueeze(-1) * b.unsqueeze(1)).sum(-2).astype(a.dtype)
    # (paddle.matmul, not paddle.bmm: bmm over an empty contraction (k == 0) returns
    # uninitialised memory on Paddle 2.6 and 3.x; matmul gives torch's zeros, except on 2.6,
    # whose matmul refuses 0-size operands)
    if a.shape[2] == 0 and _shims.ZERO_SIZE_KERNELS_FAIL:
        return _full([a.shape[0], a.shape[1], b.shape[2]], 0, a.dtype, a)
    return paddle.matmul(a, b)


@op("torch.baddbmm", method=True, inplace=True, out=True)
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1):
    return _beta_alpha(input, _bmm(batch1, batch2), beta, alpha, "baddbmm")


@op("torch.addbmm", method=True, inplace=True, out=True)
def addbmm(input, batch1, batch2, *, beta=1, alpha=1):
    p = _bmm(batch1, batch2)
    p = p.sum(0).astype(p.dtype) if p.shape[0] else paddle.zeros(
        [batch1.shape[1], batch2.shape[2]], dtype=p.dtype)
    return _beta_alpha(input, p, beta, alpha, "addbmm")


@op("torch.kron", method=True, out=True)
def kron(input, other):
    a, b = _operands(input, other)
    nd = builtins.max(a.ndim, b.ndim)
    a = a.reshape([1] * (nd - a.ndim) + list(a.shape))
    b = b.reshape([1] * (nd - b.ndim) + list(b.shape))
    r = a.reshape([s for d in a.shape for s in (d, 1)]) * b.reshape(
        [s for d in b.shape for s in (1, d)])
    return r.reshape([x * y for x, y in zip(a.shape, b.shape)])


@op("torch.trace", method=True)
def trace(input):
    if input.ndim != 2:
        raise RuntimeError("trace: expected a matrix, but got tensor with dim "
                           f"{input.ndim}")
    d = paddle.diagonal(input)
    if _name(input.dtype) in _INTS:
        return d.astype("int64").sum() if d.shape[0] else paddle.zeros([], "int64")
    return d.sum() if d.shape[0] else paddle.zeros([], input.dtype)


# view ops register without the CPU half "opmath" wrapper (_opbase.op): rounding a
# float32 copy back to half would turn the view into a copy (x.t() of a half tensor)
@_register_op("torch.t", method=True, inplace=lambda self: _t_(self))
def t(input):
    if input.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is "
                           f"{input.ndim}D")
    return input.t() if input.ndim == 2 else _shims.fresh_view(input)


def _t_(self):
    from .ops_indexing import become_view  # lazy: ops_indexing imports this area's neighbours
    return become_view(self, t, "t_")
