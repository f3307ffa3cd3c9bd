"""torch.autograd.Function, grad modes and autograd.grad: real torch vs the facade, grads compared."""
import numpy as np
import paddle
import pytest

from difftest import check

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4)).astype("float32")
W = rng.standard_normal((4,)).astype("float32")

MUL = """
import torch
class Mul(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w, scale):
        ctx.save_for_backward(x, w)
        ctx.scale = scale                      # arbitrary attribute
        ctx.flags = ctx.needs_input_grad
        return x * w * scale
    @staticmethod
    def backward(ctx, dy):
        x, w = ctx.saved_tensors
        dx = dy * w * ctx.scale if ctx.needs_input_grad[0] else None
        dw = (dy * x * ctx.scale).sum(0) if ctx.needs_input_grad[1] else None
        return dx, dw, None                   # None for the non-tensor input
"""


@pytest.mark.parametrize("scale", [2.0, -0.5])
def test_function_grads_match_torch(scale):
    check(MUL + f"""
def f(x, w):
    x = x.requires_grad_()
    w = w.requires_grad_()
    y = Mul.apply(x, w, {scale})
    (y * y).sum().backward()
    return y, x.grad, w.grad
""", X, W)


def test_needs_input_grad_and_partial_requires_grad():
    check(MUL + """
seen = []
class Probe(Mul):
    @staticmethod
    def forward(ctx, x, w, scale):
        out = Mul.forward(ctx, x, w, scale)
        seen.append(ctx.needs_input_grad)
        return out
def f(x, w):
    x = x.requires_grad_()
    y = Probe.apply(x, w, 3.0)                # w does not require grad
    y.sum().backward()
    return x.grad, w.grad is None, list(seen[0]), y.requires_grad
""", X, W)


def test_no_input_requires_grad_gives_no_grad_output():
    check(MUL + """
def f(x, w):
    y = Mul.apply(x, w, 1.0)
    return y, y.requires_grad
""", X, W)


def test_apply_binds_keyword_and_default_arguments():
    check("""
import torch
class Scale(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, factor=3.0, shift=0.0):
        ctx.factor = factor
        return x * factor + shift
    @staticmethod
    def backward(ctx, dy):
        return dy * ctx.factor, None, None
# (torch's C++ argument parser rejects apply(x, shift=1.0), skipping a defaulted positional;
#  that quirk is not reproduced)
def f(x):
    x = x.requires_grad_()
    a = Scale.apply(x)
    b = Scale.apply(x, 2.0, shift=1.0)
    c = Scale.apply(x, factor=0.5)
    (a + b + c).sum().backward()
    return a, b, c, x.grad
""", X)


def test_multiple_outputs_and_mark_non_differentiable():
    check("""
import torch
class SortLike(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        y = x * 2
        idx = (x > 0).to(torch.int64) if hasattr(torch, "int64") else (x > 0)
        ctx.mark_non_differentiable(idx)
        return y, idx
    @staticmethod
    def backward(ctx, dy, didx):
        return dy * 2
def f(x):
    x = x.requires_grad_()
    y, idx = SortLike.apply(x)
    y.sum().backward()
    return y, x.grad, idx.requires_grad
""", X)


def test_set_materialize_grads_false_passes_none():
    check("""
import torch
got = []
class Two(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        return x * 1, x * 2
    @staticmethod
    def backward(ctx, g1, g2):
        got.append((g1 is None, g2 is None))
        return g1 * 1
def f(x):
    x = x.requires_grad_()
    a, b = Two.apply(x)
    a.sum().backward()
    return x.grad, list(got[0])
""", X)


def test_setup_context_style():
    check("""
import torch
class Sq(torch.autograd.Function):
    @staticmethod
    def forward(x, k):
        return x * x * k
    @staticmethod
    def setup_context(ctx, inputs, output):
        x, k = inputs
        ctx.save_for_backward(x)
        ctx.k = k
    @staticmethod
    def backward(ctx, dy):
        (x,) = ctx.saved_tensors
        return 2 * x * dy * ctx.k, None
def f(x):
    x = x.requires_grad_()
    y = Sq.apply(x, 1.5)
    y.sum().backward()
    return y, x.grad
""", X)


def test_backward_with_wrong_gradient_count_raises_runtime_error():
    check("""
import torch
class Bad(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        return x * w
    @staticmethod
    def backward(ctx, dy):
        return dy
def f(x, w):
    x = x.requires_grad_()
    Bad.apply(x, w).sum().backward()
""", X, W)


def test_mark_dirty_is_refused_by_name():
    from torchproxy.errors import NotProvidedError
    from torchproxy.facade.autograd import FunctionCtx
    with pytest.raises(NotProvidedError, match="FunctionCtx.mark_dirty"):
        FunctionCtx(None, ()).mark_dirty()


def test_unprovided_grad_forms_are_refused_by_name():
    """Forms real torch supports and the facade does not: NotProvidedError naming the form."""
    from torchproxy.errors import NotProvidedError
    from torchproxy.facade import autograd
    x = paddle.ones([3])
    x.stop_gradient = False
    with pytest.raises(NotProvidedError, match=r"torch.autograd.grad\(is_grads_batched=True\)"):
        autograd.grad(x * 2, x, paddle.eye(3), is_grads_batched=True)

    def gen():
        yield 1
    with pytest.raises(NotProvidedError, match="torch.no_grad as a decorator of a generator"):
        autograd.no_grad()(gen)


# -- grad modes -----------------------------------------------------------------------------------
@pytest.mark.parametrize("form", [
    "with torch.no_grad():\n        y = x * 2",
    "y = torch.no_grad()(lambda t: t * 2)(x)",
    "y = torch.no_grad(lambda t: t * 2)(x)",
    "with torch.inference_mode():\n        y = x * 2",
    "with torch.inference_mode(False):\n        y = x * 2",
    "with torch.set_grad_enabled(False):\n        y = x * 2",
    "with torch.no_grad():\n        with torch.enable_grad():\n            y = x * 2",
    "y = torch.enable_grad()(lambda t: t * 2)(x)",
])
def test_grad_modes(form):
    check(f"""
import torch
def f(x):
    x = x.requires_grad_()
    before = torch.is_grad_enabled()
    {form}
    return y.requires_grad, before, torch.is_grad_enabled()
""", X)


def test_no_grad_bare_decorator_and_set_grad_enabled_call():
    check("""
import torch
@torch.no_grad
def double(t):
    return t * 2, torch.is_grad_enabled()
@torch.no_grad()
def triple(t):
    return t * 3
def f(x):
    x = x.requires_grad_()
    y, inside = double(x)
    z = triple(x)
    torch.set_grad_enabled(False)             # a plain call sets the mode
    off = torch.is_grad_enabled()
    torch.set_grad_enabled(True)
    return y.requires_grad, inside, z.requires_grad, off, torch.is_grad_enabled()
""", X)


def test_grad_mode_restored_after_exception():
    check("""
import torch
def f(x):
    try:
        with torch.no_grad():
            raise KeyError("boom")
    except KeyError:
        pass
    return torch.is_grad_enabled()
""", X)


# -- torch.autograd.grad / backward -----------------------------------------------------------------
def test_autograd_grad_basic_and_grad_outputs():
    check("""
import torch
def f(x, w):
    x = x.requires_grad_()
    w = w.requires_grad_()
    y = (x * w).sum(1)
    gx, gw = torch.autograd.grad(y, (x, w), grad_outputs=torch.ones_like(y) * 2, retain_graph=True)
    (g2,) = torch.autograd.grad([y.sum()], [x])
    return gx, gw, g2
""", X, W)


def test_autograd_grad_unused_input():
    src = """
import torch
def f(x, w):
    x = x.requires_grad_()
    w = w.requires_grad_()
    y = (x * 3).sum()
    return torch.autograd.grad(y, [x, w], allow_unused={au}, materialize_grads={mg})
"""
    check(src.format(au=True, mg=False), X, W)
    check(src.format(au=None, mg=True), X, W)
    check(src.format(au=False, mg=False), X, W)  # torch raises RuntimeError: so must we


def test_autograd_backward_with_grad_tensors():
    check("""
import torch
def f(x):
    x = x.requires_grad_()
    y = x * x
    torch.autograd.backward([y], [torch.ones_like(y) * 0.5])
    return x.grad
""", X)


def test_requires_grad_property_and_setter():
    check("""
import torch
def f(x):
    a = x.requires_grad
    x.requires_grad = True
    b = x.requires_grad
    x.requires_grad_(False)
    return a, b, x.requires_grad
""", X)


def test_paddle_semantics_outside_scope_unchanged():
    x = paddle.to_tensor(X)
    assert x.stop_gradient is True
    with paddle.no_grad():
        assert paddle.is_grad_enabled() is False
    assert paddle.is_grad_enabled() is True


def test_grad_reset_to_none_and_accumulation():
    # triton.testing.do_bench resets grads with `x.grad = None` between runs
    check("""
import torch
def f(x):
    x = x.requires_grad_()
    (x * x).sum().backward()
    (x * x).sum().backward()                  # accumulates
    g1 = x.grad * 1
    x.grad = None
    cleared = x.grad is None
    (x * 3).sum().backward()
    return g1, cleared, x.grad, x.grad.requires_grad
""", X)


def test_backward_of_non_scalar_needs_gradient():
    check("""
import torch
def f(x):
    x = x.requires_grad_()
    (x * 2).backward()
""", X)


def test_autograd_namespace_forms_and_inference_mode_flag():
    check("""
import torch
from torch.autograd.function import Function, FunctionCtx
class Neg(Function):
    @staticmethod
    def forward(ctx: FunctionCtx, x):
        return -x
    @staticmethod
    def backward(ctx: FunctionCtx, dy):
        return -dy
def f(x):
    x = x.requires_grad_()
    Neg.apply(x).sum().backward()
    flags = [torch.is_inference_mode_enabled()]
    with torch.inference_mode():
        flags.append(torch.is_inference_mode_enabled())
        with torch.inference_mode(False):
            flags.append(torch.is_inference_mode_enabled())
        flags.append(torch.is_inference_mode_enabled())
    flags.append(torch.is_inference_mode_enabled())
    with torch.autograd.no_grad():
        a = (x * 2).requires_grad
    with torch.autograd.enable_grad():
        b = (x * 2).requires_grad
    with torch.autograd.set_grad_enabled(False):
        c = (x * 2).requires_grad
    with torch.autograd.inference_mode():
        d = (x * 2).requires_grad
    return x.grad, flags, a, b, c, d, isinstance(Neg(), torch.autograd.Function)
""", X)


# Function edge cases where Paddle's PyLayer and torch's Function disagree by default:
# non-tensor outputs (torch passes None grads for them), an input returned as output,
# None in save_for_backward, apply under no_grad, grad mode inside forward/backward,
# tensors inside list arguments (torch does not look into containers), int tensor inputs.
EDGE_CASES = {
"mixed_outputs": """
import torch
class F1(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2, 3
    @staticmethod
    def backward(ctx, dy, dn):
        return dy * 2
def f(x):
    x = x.requires_grad_()
    y, n = F1.apply(x)
    y.sum().backward()
    return y, n, x.grad
""",
"identity_return": """
import torch
class F2(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x
    @staticmethod
    def backward(ctx, dy):
        return dy * 5
def f(x):
    x = x.requires_grad_()
    y = F2.apply(x) * 1
    y.sum().backward()
    return x.grad
""",
"save_none": """
import torch
class F3(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, b):
        ctx.save_for_backward(x, None)
        return x * 2
    @staticmethod
    def backward(ctx, dy):
        x, b = ctx.saved_tensors
        return dy * 2 + (0 if b is None else 1), None
def f(x):
    x = x.requires_grad_()
    F3.apply(x, None).sum().backward()
    return x.grad
""",
"under_no_grad": """
import torch
class F4(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2
    @staticmethod
    def backward(ctx, dy):
        return dy * 2
def f(x):
    x = x.requires_grad_()
    with torch.no_grad():
        y = F4.apply(x)
    z = F4.apply(x)
    return y.requires_grad, z.requires_grad
""",
"grad_enabled_in_forward": """
import torch
seen = []
class F5(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        seen.append(torch.is_grad_enabled())
        return x * 2
    @staticmethod
    def backward(ctx, dy):
        seen.append(torch.is_grad_enabled())
        return dy * 2
def f(x):
    x = x.requires_grad_()
    F5.apply(x).sum().backward()
    return seen
""",
"list_input": """
import torch
class F6(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, lst):
        return x * len(lst)
    @staticmethod
    def backward(ctx, dy):
        return dy * 2, None
def f(x):
    x = x.requires_grad_()
    F6.apply(x, [x, x]).sum().backward()
    return x.grad
""",
"int_tensor_input": """
import torch
class F7(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, idx):
        ctx.save_for_backward(idx)
        return x * 2
    @staticmethod
    def backward(ctx, dy):
        (idx,) = ctx.saved_tensors
        return dy * idx.float().sum(), None
def f(x):
    x = x.requires_grad_()
    F7.apply(x, torch.tensor([1, 2])).sum().backward()
    return x.grad
""",
"no_input_requires_grad": """
import torch
seen = []
class F10(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, scale, opts):
        seen.append((ctx.needs_input_grad, len(opts)))
        ctx.save_for_backward(x)
        return x, x * scale, 5, (x,)[0]
    @staticmethod
    def backward(ctx, a, b, c, d):
        return a, None, None
def f(x):
    a, b, n, d = F10.apply(x, 3.0, (1, 2))
    return (a, b, n, d, a is x, d is x, a is d, a.requires_grad, b.requires_grad,
            [s for s in seen])
""",
"grad_cast_to_input_dtype": """
import torch
class F11(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        ctx.save_for_backward(w)
        return x * w
    @staticmethod
    def backward(ctx, dy):
        (w,) = ctx.saved_tensors
        return (dy * w).float(), None
def f(x):
    x = x.double().requires_grad_()
    F11.apply(x, torch.ones_like(x) * 2).sum().backward()
    return x.grad, x.grad.dtype
""",
}


@pytest.mark.parametrize("case", sorted(EDGE_CASES))
def test_function_edge_cases(case):
    check(EDGE_CASES[case], X)


# two inputs: a None gradient for an input that requires grad (torch: no contribution);
# backward through only one of two outputs (the other's gradient materialised as zeros)
EDGE_CASES_2 = {"none_grad_for_required": """
import torch
class F8(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, w):
        return x * w
    @staticmethod
    def backward(ctx, dy):
        return dy * 2, None
def f(x, w):
    x = x.requires_grad_()
    w = w.requires_grad_()
    (F8.apply(x, w) * 1).sum().backward()
    return x.grad, w.grad
""", "grad_dtype_int_input_requires": """
import torch
class F9(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x):
        return x.sum(), x * 2
    @staticmethod
    def backward(ctx, ds, dy):
        return ds + dy
def f(x, w):
    x = x.requires_grad_()
    s, y = F9.apply(x)
    s.backward()
    return x.grad
"""}


# outputs that are views of the inputs' memory (not the inputs themselves), written in place
# inside forward: Liger's rope kernel; the input changes as in torch, the gradients match
EDGE_CASES_2["view_of_input_returned"] = """
import torch
class F10(torch.autograd.Function):
    @staticmethod
    def forward(ctx, q, k):
        q = q.reshape(1, 3, 4).transpose(0, 1).contiguous()   # q's memory: only a size-1 dim moves
        q.mul_(2)
        return q.transpose(0, 1).reshape(3, 4), k[1:] * 3
    @staticmethod
    def backward(ctx, dq, dk):
        gk = torch.zeros(3, 4)
        gk[1:] = dk * 3
        return dq * 2, gk
def f(x, w):
    x = x.clone().requires_grad_()
    w = w.clone().requires_grad_()
    q, k = F10.apply(x, w)
    gq, gk = torch.autograd.grad((q, k), (x, w), (torch.ones_like(q), k * 0 + 0.5))
    return q, k, gq, gk, x.detach()
"""


@pytest.mark.parametrize("case", sorted(EDGE_CASES_2))
def test_function_edge_cases_two_inputs(case):
    check(EDGE_CASES_2[case], X, X.copy())


def test_set_grad_enabled_as_decorator_and_nested_modes():
    check("""
import torch
@torch.set_grad_enabled(False)
def frozen(t):
    return t * 2, torch.is_grad_enabled()
@torch.inference_mode()
def infer(t):
    return t * 3, torch.is_grad_enabled(), torch.is_inference_mode_enabled()
def f(x):
    after_decoration = torch.is_grad_enabled()   # decorating must not switch the mode
    x = x.requires_grad_()
    y, inside = frozen(x)
    z, inside2, inf = infer(x)
    with torch.no_grad():
        with torch.set_grad_enabled(True):
            w = x * 4
        v = x * 5
    return after_decoration, y.requires_grad, inside, z.requires_grad, inside2, inf, \\
        w.requires_grad, v.requires_grad, torch.is_grad_enabled()
""", X)


def test_paddle_backward_and_grad_unchanged_outside_scope():
    # the torch versions (scalar-only implicit gradient, grad without stop_gradient=False)
    # apply to scoped callers only; this test module is not in scope
    x = paddle.to_tensor(X)
    x.stop_gradient = False
    (x * 2).backward()                       # Paddle: non-scalar output, implicit ones
    np.testing.assert_allclose(x.grad.numpy(), np.full(X.shape, 2.0))
    assert x.grad.stop_gradient is False     # Paddle's own grad tensor, not a detached view
    x.clear_gradient()
