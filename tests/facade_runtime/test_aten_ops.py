"""torch.ops.aten: the facade's declared table (facade/_aten.py) against real torch 2.13: the
operator objects (overload names, schemas, names, str/repr, is_view), every declared overload
differentially (values, dtypes, in-place updates, views, gradients, errors and their
messages), and NotProvidedError for every aten name or overload the table does not declare."""
import inspect

import numpy as np
import pytest
import torch as real_torch

from difftest import check
from torchproxy.errors import NotProvidedError
from torchproxy.facade import _aten, modules

rng = np.random.default_rng(0)
X3 = rng.standard_normal((2, 3, 4)).astype("float32")
IMG = rng.standard_normal((2, 3, 10, 20)).astype("float32")


def facade_torch():
    return modules.build()["torch"]


# -- the operator objects ----------------------------------------------------------------------
@pytest.mark.parametrize("name", sorted(_aten.ATEN))
def test_declared_operator_objects_match_torch(name):
    real, ours = getattr(real_torch.ops.aten, name), getattr(facade_torch().ops.aten, name)
    assert ours is getattr(facade_torch().ops.aten, name)  # one object per name, as torch's
    assert ours.overloads() == real.overloads()
    assert (ours.__name__, str(ours), repr(ours)) == (real.__name__, str(real), repr(real))
    declared = _aten.ATEN[name].impls
    assert declared, name
    for schema in declared:
        o = getattr(ours, _aten.parse_schema(schema)[2])
        r = getattr(real, o._overloadname)
        assert str(r._schema) == o._schema  # the table's schema is torch's, verbatim
        assert (o.__name__, str(o), repr(o), o.name(), o.is_view) == \
            (r.__name__, str(r), repr(r), r.name(), r.is_view)
        assert o.overloadpacket is ours
        # the implementation takes the schema's arguments by name (they are passed as keywords)
        assert list(inspect.signature(o._impl).parameters) == [a.name for a in o._args]


def test_every_other_aten_name_raises_not_provided_naming_it():
    aten = facade_torch().ops.aten
    for name in ("convolution_backward", "add", "mm", "_softmax"):
        assert hasattr(real_torch.ops.aten, name)
        with pytest.raises(NotProvidedError, match=rf"torch\.ops\.aten\.{name} is not provided"):
            getattr(aten, name)
    # overloads torch has that the table does not declare
    for name, overload in (("slice", "t"), ("slice", "str"), ("_softmax_backward_data", "out"),
                           ("_batch_norm_with_update", "out"), ("_upsample_bilinear2d_aa", "out")):
        assert overload in getattr(real_torch.ops.aten, name).overloads()
        with pytest.raises(NotProvidedError, match=rf"torch\.ops\.aten\.{name}\.{overload} "):
            getattr(getattr(aten, name), overload)
    # an overload torch does not have: torch's AttributeError
    with pytest.raises(AttributeError) as ours:
        aten.slice.nope
    with pytest.raises(AttributeError) as theirs:
        real_torch.ops.aten.slice.nope
    assert str(ours.value) == str(theirs.value)
    assert not isinstance(ours.value, NotProvidedError)


def test_argument_binding_errors_are_torchs():
    check("""
import torch
def f(x):
    out = []
    for call in (lambda: torch.ops.aten.slice.Tensor("x"),
                 lambda: torch.ops.aten.slice.Tensor(x, foo=1),
                 lambda: torch.ops.aten.slice.Tensor(x, 0, 0, 1, 1, 1),
                 lambda: torch.ops.aten._safe_softmax.default(x),
                 lambda: torch.ops.aten.slice.Tensor(x, 1.5),
                 lambda: torch.ops.aten._safe_softmax(x, 0, "float32"),
                 lambda: torch.ops.aten._upsample_bilinear2d_aa.vec(x[None], None, False, 2.0),
                 lambda: torch.ops.aten._upsample_bilinear2d_aa(x[None], [2, 2, 2], False),
                 lambda: torch.ops.aten.native_dropout_backward(2.0, x > 0, 2.0)):
        try:
            call()
            out.append("no error")
        except RuntimeError as e:
            out.append(str(e).splitlines()[0])
    return out
""", X3)


def test_arguments_torch_s_parser_takes():
    check("""
import numpy as np
import torch
def f(x):
    return (torch.ops.aten.slice.Tensor(x, True, 1), torch.ops.aten.slice(x, np.int64(2), 1),
            torch.ops.aten.slice(x, torch.tensor(1), torch.tensor(0), 2),
            torch.ops.aten.native_dropout_backward(x, x > 0, 2),
            torch.ops.aten.native_dropout_backward(x, x > 0, True),
            torch.ops.aten.native_dropout_backward(x, x > 0, torch.tensor(0.5)),
            torch.ops.aten._upsample_bilinear2d_aa(x[None], (2, 3), 1),
            torch.ops.aten._upsample_bilinear2d_aa.vec(x[None], None, False, [2, 1]))
""", X3)


# -- slice.Tensor --------------------------------------------------------------------------------
@pytest.mark.parametrize("args", ["", "0", "1, 1, -2", "1, 1, -2, 3", "0, -10, -2, 2",
                                  "2, -100, 100",
                                  "2, 3, 1", "-1, None, 2", "1, 5, 100, 2", "dim=2, step=3"])
def test_slice(args):
    check(f"""
import torch
def f(x):
    return torch.ops.aten.slice(x, {args}), torch.ops.aten.slice.Tensor(x, {args})
""", X3)


def test_slice_is_a_view_and_keeps_dtypes():
    check("""
import torch
def f(x):
    y = torch.ops.aten.slice.Tensor(x, 1, 0, None, 2)
    y.mul_(10)
    return x, y, torch.ops.aten.slice(x.to(torch.int64), -1, 1, 3), \
        torch.ops.aten.slice(x > 0, 0, 1)
""", X3)


@pytest.mark.parametrize("src", ["torch.ops.aten.slice(x, 1, 0, 2, 0)",
                                 "torch.ops.aten.slice(x, 3)",
                                 "torch.ops.aten.slice(x.sum(), 0)"])
def test_slice_errors(src):
    check(f"""
import torch
def f(x):
    return {src}
""", X3)


# -- softmax family ------------------------------------------------------------------------------
@pytest.mark.parametrize("dim", [0, 1, -1])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_softmax_backward_data(dim, dtype):
    check(f"""
import torch
def f(g, x):
    out = torch.softmax(x, {dim})
    return torch.ops.aten._softmax_backward_data(g, out, {dim}, torch.{dtype}), \\
        torch.ops.aten._softmax_backward_data.default(g, out, dim={dim}, input_dtype=x.dtype)
""", rng.standard_normal((2, 3, 4)).astype(dtype), X3.astype(dtype))


def test_softmax_backward_data_dtype_rules():
    # torch's CPU kernel: grad and output alike; input_dtype free except float32 -> float16
    check("""
import torch
def f(g, o):
    out = []
    for gd, od, idt in [("float16", "float16", "float32"), ("float32", "float32", "float16"),
                        ("float16", "float16", "float16"), ("bfloat16", "bfloat16", "float32"),
                        ("float64", "float64", "float32"), ("float32", "float64", "float32"),
                        ("float32", "float32", "float64")]:
        try:
            out.append(torch.ops.aten._softmax_backward_data(
                g.to(getattr(torch, gd)), o.to(getattr(torch, od)), 1, getattr(torch, idt)))
        except RuntimeError as e:
            out.append(str(e))
    return out
""", X3, np.abs(X3) / 3)


def test_softmax_backward_data_is_softmax_s_gradient_and_its_errors():
    check("""
import torch
def f(x):
    x = x.clone().requires_grad_()
    out = torch.softmax(x, 1)
    g = torch.ones_like(out) * torch.arange(4.0)
    (out * g).sum().backward()
    mine = torch.ops.aten._softmax_backward_data(g, out.detach(), 1, torch.float32)
    errors = []
    for call in (lambda: torch.ops.aten._softmax_backward_data(g, out[0], 1, torch.float32),
                 lambda: torch.ops.aten._softmax_backward_data(g, out.double(), 1, torch.float32),
                 lambda: torch.ops.aten._softmax_backward_data(g, out, 1, torch.float16),
                 lambda: torch.ops.aten._softmax_backward_data(g, out, 3, torch.float32)):
        try:
            call()
        except (RuntimeError, IndexError) as e:
            errors.append((type(e).__name__, str(e)))
    return x.grad, mine, torch.ops.aten._softmax_backward_data(g.sum(), out.sum(), 0,
                                                               torch.float64), errors
""", X3)
    check("""
import torch
def f(x):
    i = x.to(torch.int64)
    return torch.ops.aten._softmax_backward_data(i, i, 0, torch.int64)
""", X3)


def test_safe_softmax():
    x = X3.copy()
    x[0, :, 1] = -np.inf   # a fully masked slice along dim 1: zeros, where softmax gives NaN
    x[1, 2, :] = -np.inf
    check("""
import torch
def f(x):
    return (torch.ops.aten._safe_softmax(x, 1), torch.ops.aten._safe_softmax.default(x, -1),
            torch.ops.aten._safe_softmax(x, 0, dtype=torch.float64), torch.softmax(x, 1))
""", x)
    check("""
import torch
def f(x):
    return torch.ops.aten._safe_softmax(x.to(torch.int64), 0)
""", X3)


# -- native_dropout_backward --------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool"])
@pytest.mark.parametrize("scale", [0.0, 1.0, 2.5])
def test_native_dropout_backward(dtype, scale):
    check(f"""
import torch
def f(g, m):
    return torch.ops.aten.native_dropout_backward(g.to(torch.{dtype}), m, {scale}), \\
        torch.ops.aten.native_dropout_backward.default(g, m, scale={scale})
""", (X3 * 3).astype("float32"), X3 > 0)


# -- _batch_norm_with_update -------------------------------------------------------------------
@pytest.mark.parametrize("shape,momentum,eps,affine", [((5, 3, 4), 0.1, 1e-5, True),
                                                       ((4, 3), -1.2, 0.5, False),
                                                       ((2, 3, 2, 2), 0.0, 1e-5, True)])
def test_batch_norm_with_update_updates_running_stats(shape, momentum, eps, affine):
    x = rng.standard_normal(shape).astype("float32")
    check(f"""
import torch
def f(x):
    rm, rv = torch.arange(3.0), torch.ones(3) * 2
    w, b = (torch.tensor([1.0, -2.0, 0.5]), torch.tensor([0.1, 0.2, 0.3])) if {affine} \\
        else (None, None)
    out = torch.ops.aten._batch_norm_with_update(x, w, b, rm, rv, {momentum}, {eps})
    return out, rm, rv
""", x)


def test_batch_norm_with_update_gradients():
    check("""
import torch
def f(x):
    x = x.clone().requires_grad_()
    w = torch.tensor([1.0, -2.0, 0.5], requires_grad=True)
    out, mean, invstd, reserve = torch.ops.aten._batch_norm_with_update.default(
        x, w, None, torch.zeros(3), torch.ones(3), 0.1, 1e-5)
    (out * torch.arange(out.numel()).reshape(out.shape)).sum().backward()
    return x.grad, w.grad, reserve
""", rng.standard_normal((4, 3, 2)).astype("float32"), rtol=1e-4, atol=1e-5)


# -- _upsample_bilinear2d_aa -------------------------------------------------------------------
@pytest.mark.parametrize("call", [
    "(x, [3, 3], False)", "(x, [5, 7], True)", "(x, [23, 41], False)",
    "(x, [4, 4], False, 1.7, 0.9)",
    "(x, [3, 3], True, 1.7, 0.9)", "(x, 6, False)",
    "(x, output_size=[3, 3], align_corners=False, scale_factors=None)",
    "(x, None, False, [1.7, 0.9])", "(x, None, True, [0.8, 1.0])", "(x, None, False, [0.33, 2.5])",
    ".default(x, [7, 9], False, scales_h=0.5, scales_w=None)",
    ".vec(x, [2, 30], False, None)", ".vec(x, None, False, (0.5, 0.25))",
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_upsample_bilinear2d_aa(call, dtype):
    check(f"""
import torch
def f(x):
    return torch.ops.aten._upsample_bilinear2d_aa{call}
""", IMG.astype(dtype), rtol=1e-5 if dtype == "float32" else 1e-7, atol=1e-6)


def test_upsample_bilinear2d_aa_is_interpolate_antialias_with_its_gradient():
    check("""
import torch
def f(x):
    x = x.clone().requires_grad_()
    y = torch.ops.aten._upsample_bilinear2d_aa(x, [4, 7], False)
    (y * torch.arange(y.numel()).reshape(y.shape)).sum().backward()
    return y, x.grad
""", IMG, rtol=1e-5, atol=1e-4)
    x = real_torch.from_numpy(IMG)
    assert real_torch.allclose(real_torch.ops.aten._upsample_bilinear2d_aa(x, [4, 7], False),
                               real_torch.nn.functional.interpolate(
                                   x, size=(4, 7), mode="bilinear", antialias=True))


@pytest.mark.parametrize("src", ["aa(x.to(torch.int64), [2, 2], False)",
                                 "aa(x.to(torch.float16), [2, 2], False)",
                                 "aa(x[0], [2, 2], False)",
                                 "aa(x, [0, 2], False)",
                                 "aa(x, None, False, None)",
                                 "aa(x, None, False, [2.0])",
                                 "aa.vec(x, [2, 2], False, [1.0, 2.0])"])
def test_upsample_bilinear2d_aa_errors(src):
    check(f"""
import torch
aa = torch.ops.aten._upsample_bilinear2d_aa
def f(x):
    try:
        {src}
    except RuntimeError as e:
        return type(e).__name__, str(e).splitlines()[0]
""", IMG)
