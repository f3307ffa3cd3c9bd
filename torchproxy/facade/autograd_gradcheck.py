"""``torch.autograd.gradcheck``: torch's slow (default) mode, over Paddle's autograd.

As torch's ``_slow_gradcheck``: the analytical Jacobian of every differentiable output with
respect to every input that requires grad, one vector-Jacobian product per output element
(computed twice: a backward that gives other values the second time is "not reentrant"); the
numerical one by central differences, ``(f(x + eps) - f(x - eps)) / (2 eps)`` per input
element; both laid out as torch's (a row per input element, a column per output element) and
compared with ``allclose(analytical, numerical, rtol, atol)``.  Then, as torch's
``check_undefined_grad``, a backward from zero output gradients must give zero (or no) input
gradients.  A mismatch raises ``GradcheckError`` (a RuntimeError) with torch's message, or
returns False with ``raise_exception=False``.

Not provided (NotProvidedError names the option): ``fast_mode``, the batched and forward-mode
checks, ``masked``, ``check_grad_dtypes`` and complex inputs (torch checks their Wirtinger
derivatives).  Liger-Kernel's test_fused_linear_selected_log_probs calls it on float64 inputs.
Tests: tests/facade_runtime/test_gradcheck.py, against real torch.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.autograd: gradcheck
""")

import math
import warnings

import paddle

from ..errors import NotProvidedError
from .registry import torch_function
from .tensor_str import tensor_repr  # (torch's text of the Jacobians in the message)


class GradcheckError(RuntimeError):
    """torch.autograd.gradcheck.GradcheckError (what a failed check raises)."""


GradcheckError.__module__ = "torch.autograd.gradcheck"

_NOT_PROVIDED = ("check_batched_grad", "check_batched_forward_grad", "check_forward_ad",
                 "fast_mode", "check_grad_dtypes")


def _outputs(func, inputs):
    out = func(*inputs)
    return out if isinstance(out, (tuple, list)) else (out,)


def _differentiable(t) -> bool:
    return isinstance(t, paddle.Tensor) and (t.is_floating_point() or t.is_complex())


def _analytical(outputs, diff_inputs):
    """[input][output]: a Jacobian of shape (input numel, output numel), one backward per
    output element (torch's _compute_analytical_jacobian_rows)."""
    jac = [[None] * len(outputs) for _ in diff_inputs]
    for o, out in enumerate(outputs):
        n = math.prod(out.shape)
        cols = [paddle.zeros([math.prod(x.shape), n], dtype=x.dtype) for x in diff_inputs]
        if n and _differentiable(out) and not out.stop_gradient:
            flat_grad = paddle.zeros([n], dtype=out.dtype)
            for j in range(n):
                flat_grad[j] = 1.0
                grads = paddle.grad([out], diff_inputs, [flat_grad.reshape(out.shape)],
                                    retain_graph=True, allow_unused=True)
                flat_grad[j] = 0.0
                for i, g in enumerate(grads):
                    if g is not None:
                        cols[i][:, j] = g.reshape([-1]).astype(cols[i].dtype)
        for i in range(len(diff_inputs)):
            jac[i][o] = cols[i]
    return jac


def _numerical(func, inputs, diff_idx, outputs, eps):
    """[input][output] central differences, each input element perturbed in a copy."""
    jac = []
    for i in diff_idx:
        x = inputs[i]
        n_in = math.prod(x.shape)
        per_out = [paddle.zeros([n_in, math.prod(o.shape)], dtype=x.dtype) for o in outputs]
        for k in range(n_in):
            vals = []
            for sign in (1.0, -1.0):
                moved = x.detach().clone().reshape([-1])
                moved[k] = moved[k] + sign * eps
                args = list(inputs)
                args[i] = moved.reshape(x.shape)
                with paddle.no_grad():
                    vals.append(_outputs(func, args))
            for o, (plus, minus) in enumerate(zip(*vals)):
                if _differentiable(plus):
                    diff = (plus.astype(x.dtype) - minus.astype(x.dtype)) / (2 * eps)
                    per_out[o][k] = diff.reshape([-1])
        jac.append(per_out)
    return jac


def _fail(message, raise_exception):
    if raise_exception:
        raise GradcheckError(message)
    return False


@torch_function("torch.autograd.gradcheck")
def gradcheck(func, inputs, *, eps=1e-6, atol=1e-5, rtol=1e-3, raise_exception=True,
              nondet_tol=0.0, check_undefined_grad=True, check_grad_dtypes=False,
              check_batched_grad=False, check_batched_forward_grad=False,
              check_forward_ad=False, check_backward_ad=True, fast_mode=False, masked=None):
    given = dict(check_batched_grad=check_batched_grad,
                 check_batched_forward_grad=check_batched_forward_grad,
                 check_forward_ad=check_forward_ad, fast_mode=fast_mode,
                 check_grad_dtypes=check_grad_dtypes)
    for name in _NOT_PROVIDED:
        if given[name]:
            raise NotProvidedError(f"torch.autograd.gradcheck({name}=True)")
    if masked:
        raise NotProvidedError("torch.autograd.gradcheck(masked=True)")
    inputs = tuple(inputs) if isinstance(inputs, (tuple, list)) else (inputs,)
    diff_idx = [i for i, x in enumerate(inputs)
                if isinstance(x, paddle.Tensor) and not x.stop_gradient]
    if not diff_idx:
        raise ValueError("gradcheck expects at least one input tensor to require gradient, but "
                         "none of them have requires_grad=True.")
    for i in diff_idx:
        if inputs[i].is_complex():
            raise NotProvidedError("torch.autograd.gradcheck with complex inputs")
        if inputs[i].dtype != paddle.float64:
            warnings.warn(f"Input #{i} requires gradient and is not a double precision floating "
                          "point or complex. This check will likely fail if all the inputs are "
                          "not of double precision floating point or complex. ", UserWarning,
                          stacklevel=2)
    if not check_backward_ad:
        return True
    diff_inputs = [inputs[i] for i in diff_idx]
    outputs = _outputs(func, inputs)
    analytical = _analytical(outputs, diff_inputs)
    again = _analytical(outputs, diff_inputs)
    numerical = _numerical(func, inputs, diff_idx, outputs, eps)
    for i in range(len(diff_inputs)):
        for o in range(len(outputs)):
            a, n = analytical[i][o], numerical[i][o]
            if a.size and not bool(paddle.allclose(a, n.astype(a.dtype), rtol=rtol, atol=atol)):
                return _fail(f"Jacobian mismatch for output {o} with respect to input "
                             f"{diff_idx[i]},\nnumerical:{tensor_repr(n)}\nanalytical:"
                             f"{tensor_repr(a)}\n", raise_exception)
            if a.size and float((a - again[i][o]).abs().max()) > nondet_tol:
                return _fail("Backward is not reentrant, i.e., running backward with same input "
                             "and grad_output multiple times gives different values, although "
                             "analytical gradient matches numerical gradient.The tolerance for "
                             f"nondeterminism was {nondet_tol}.", raise_exception)
    if check_undefined_grad:
        for out in outputs:
            if not (_differentiable(out) and not out.stop_gradient):
                continue
            grads = paddle.grad([out], diff_inputs, [paddle.zeros_like(out)], retain_graph=True,
                                allow_unused=True)
            if any(g is not None and bool((g != 0).any()) for g in grads):
                return _fail('Expected backward function to handle undefined output grads. '
                             'Please look at "Notes about undefined output gradients" in '
                             '"tools/autograd/derivatives.yaml"', raise_exception)
    return True
