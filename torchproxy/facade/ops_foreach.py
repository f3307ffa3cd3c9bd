"""``torch._foreach_*``: the list-of-tensors ops optimizers and gradient utilities call
(``_foreach_add``, ``_foreach_mul``, ``_foreach_addcmul``, ``_foreach_lerp``, ``_foreach_norm``,
``_foreach_zero_``...).  torch fuses them into multi-tensor kernels; here each is a loop over the
facade's own single-tensor op (``torch.add``, ``Tensor.add_``...), so values, dtypes, promotion
and in-place cast errors are those ops'.  The out-of-place forms return a tuple; the in-place
forms (``_``) update the tensors and return ``self`` (the list given), the others a tuple, as
torch 2.13's."""
from __future__ import annotations

import paddle

from . import registry
from .registry import torch_function

_BINARY = ("add", "sub", "mul", "div", "maximum", "minimum", "pow", "clamp_min", "clamp_max")
_TERNARY = ("addcmul", "addcdiv", "lerp")
_UNARY = ("sqrt", "rsqrt", "neg", "abs", "exp", "log", "reciprocal", "sign", "sigmoid", "tanh")

from .registry import manifest

NAMES = manifest("""
    torch: _foreach_abs _foreach_abs_ _foreach_add _foreach_add_ _foreach_addcdiv _foreach_addcdiv_
        _foreach_addcmul _foreach_addcmul_ _foreach_clamp_max _foreach_clamp_max_
        _foreach_clamp_min _foreach_clamp_min_ _foreach_copy_ _foreach_div _foreach_div_
        _foreach_exp _foreach_exp_ _foreach_lerp _foreach_lerp_ _foreach_log _foreach_log_
        _foreach_maximum _foreach_maximum_ _foreach_minimum _foreach_minimum_ _foreach_mul
        _foreach_mul_ _foreach_neg _foreach_neg_ _foreach_norm _foreach_pow _foreach_pow_
        _foreach_reciprocal _foreach_reciprocal_ _foreach_rsqrt _foreach_rsqrt_ _foreach_sigmoid
        _foreach_sigmoid_ _foreach_sign _foreach_sign_ _foreach_sqrt _foreach_sqrt_ _foreach_sub
        _foreach_sub_ _foreach_tanh _foreach_tanh_ _foreach_zero_
""")


def _fn(name):
    return registry.TABLE[f"torch.{name}"].impl


def _inplace(name):
    """Tensor.<name>_ (torch's in-place cast rules); where the table has none, the
    out-of-place result written back through Tensor.copy_."""
    entry = registry.TENSOR_TABLE.get(f"torch.Tensor.{name}_")
    if entry is not None:
        return entry.impl
    fn, copy_ = _fn(name), registry.TENSOR_TABLE["torch.Tensor.copy_"].impl

    def ip(x, *args, **kwargs):
        return copy_(x, fn(x, *args, **kwargs))
    return ip


def _list(xs, what="self"):
    if isinstance(xs, paddle.Tensor) or not isinstance(xs, (list, tuple)):
        raise TypeError(f"_foreach op: argument '{what}' must be a list of tensors, not "
                        f"{type(xs).__name__}")
    if not xs:
        raise RuntimeError("Tensor list must have at least one tensor.")
    return list(xs)


def _per_tensor(xs, other, what="other"):
    """``other`` spread over the list: a list (of tensors or scalars) pairs up, anything else
    (a scalar, one tensor) goes to every tensor."""
    if isinstance(other, (list, tuple)):
        if len(other) != len(xs):
            raise RuntimeError(f"Tensor lists must have the same number of tensors, got "
                               f"{len(xs)} and {len(other)}")
        return list(other)
    return [other] * len(xs)


# maximum/minimum with scalars: torch's clamp_min/clamp_max
_SCALAR_FORM = {"maximum": "clamp_min", "minimum": "clamp_max"}


def _scalar_other(other):
    return not isinstance(other, paddle.Tensor) and not (
        isinstance(other, (list, tuple)) and other and isinstance(other[0], paddle.Tensor))


def _binary(name):
    alpha = name in ("add", "sub")

    def op_for(other):
        return _SCALAR_FORM.get(name, name) if _scalar_other(other) else name

    def out_of_place(self, other, **kw):
        xs = _list(self)
        fn = _fn(op_for(other))
        return tuple(fn(x, o, **kw) for x, o in zip(xs, _per_tensor(xs, other)))

    def in_place(self, other, **kw):
        xs = _list(self)
        fn = _inplace(op_for(other))
        for x, o in zip(xs, _per_tensor(xs, other)):
            fn(x, o, **kw)
        return self

    def _alpha(other, alpha):
        if alpha is None:
            return {}
        if _scalar_other(other):  # torch: alpha= only beside tensors
            raise TypeError(f"_foreach_{name}() received an invalid combination of arguments: "
                            "alpha= with a scalar")
        return {"alpha": alpha}

    if alpha:
        def fwd(self, other, *, alpha=None):
            return out_of_place(self, other, **_alpha(other, alpha))

        def fwd_(self, other, *, alpha=None):
            return in_place(self, other, **_alpha(other, alpha))
    else:
        def fwd(self, other):
            return out_of_place(self, other)

        def fwd_(self, other):
            return in_place(self, other)
    fwd.__name__, fwd_.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
    torch_function(f"torch._foreach_{name}")(fwd)
    torch_function(f"torch._foreach_{name}_")(fwd_)


def _ternary(name):
    # addcmul/addcdiv(self, tensor1, tensor2, value=scalar | scalars | Tensor of scalars);
    # lerp(self, tensors1, weight=scalar | tensors)
    def pairs(self, a, b):
        xs = _list(self)
        return xs, _per_tensor(xs, a, "tensor1"), b

    if name == "lerp":
        def fwd(self, tensors1, weight):
            xs, t1, _ = pairs(self, tensors1, None)
            fn = _fn("lerp")
            return tuple(fn(x, a, w) for x, a, w in zip(xs, t1, _per_tensor(xs, weight, "weight")))

        def fwd_(self, tensors1, weight):
            xs, t1, _ = pairs(self, tensors1, None)
            fn = _inplace("lerp")
            for x, a, w in zip(xs, t1, _per_tensor(xs, weight, "weight")):
                fn(x, a, w)
            return self
    else:
        def _values(xs, value):
            if isinstance(value, paddle.Tensor):  # torch: a 1-D tensor of per-tensor scalars
                value = [v for v in value.tolist()]
            return _per_tensor(xs, value, "scalars")

        def fwd(self, tensor1, tensor2, value=1):
            xs, t1, _ = pairs(self, tensor1, None)
            t2, fn = _per_tensor(xs, tensor2, "tensor2"), _fn(name)
            return tuple(fn(x, a, b, value=v) for x, a, b, v in zip(xs, t1, t2, _values(xs, value)))

        def fwd_(self, tensor1, tensor2, value=1):
            xs, t1, _ = pairs(self, tensor1, None)
            t2, fn = _per_tensor(xs, tensor2, "tensor2"), _inplace(name)
            for x, a, b, v in zip(xs, t1, t2, _values(xs, value)):
                fn(x, a, b, value=v)
            return self
    fwd.__name__, fwd_.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
    torch_function(f"torch._foreach_{name}")(fwd)
    torch_function(f"torch._foreach_{name}_")(fwd_)


def _unary(name):
    def fwd(self):
        fn = _fn(name)
        return tuple(fn(x) for x in _list(self))

    def fwd_(self):
        fn = _inplace(name)
        for x in _list(self):
            fn(x)
        return self
    fwd.__name__, fwd_.__name__ = f"_foreach_{name}", f"_foreach_{name}_"
    torch_function(f"torch._foreach_{name}")(fwd)
    torch_function(f"torch._foreach_{name}_")(fwd_)


for _n in _BINARY:
    _binary(_n)
for _n in _TERNARY:
    _ternary(_n)
for _n in _UNARY:
    _unary(_n)


@torch_function("torch._foreach_zero_")
def _foreach_zero_(self):
    fn = _fn("zero_")
    for x in _list(self):
        fn(x)
    return self


@torch_function("torch._foreach_copy_")
def _foreach_copy_(self, src, non_blocking=False):
    copy_ = registry.TENSOR_TABLE["torch.Tensor.copy_"].impl
    xs = _list(self)
    for x, s in zip(xs, _per_tensor(xs, _list(src, "src"), "src")):
        copy_(x, s)
    return self


@torch_function("torch._foreach_norm")
def _foreach_norm(self, ord=2, dtype=None):  # noqa: A002 - torch's name
    fn = _fn("linalg.vector_norm")
    return tuple(fn(x, ord, dtype=dtype) for x in _list(self))
