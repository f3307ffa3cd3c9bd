"""torch._foreach_* (facade/ops_foreach.py) vs real torch 2.13: out-of-place results, in-place
updates (and their None result), scalar / scalar-list / tensor-list / tensor operands, alpha=,
value= forms, norms, and torch's errors (empty lists, length mismatches, in-place casts)."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

rng = np.random.default_rng(11)
A = [np.asarray(rng.standard_normal(s) + 2, "float32") for s in [(3,), (2, 2), ()]]
B = [np.asarray(rng.standard_normal(s) + 2, "float32") for s in [(3,), (2, 2), ()]]
C = [np.asarray(rng.standard_normal(s) + 2, "float32") for s in [(3,), (2, 2), ()]]

SRC = """
import torch
def f(a0, a1, a2, b0, b1, b2, c0, c1, c2):
    a, b, c = [a0, a1, a2], [b0, b1, b2], [c0, c1, c2]
    out = torch.{call}
    return out, a
"""


def _check(call):
    check(SRC.format(call=call), *A, *B, *C)


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "maximum", "minimum", "pow",
                                  "clamp_min", "clamp_max"])
@pytest.mark.parametrize("other", ["b", "2.0", "[1.0, 2, 3.5]", "torch.tensor(1.5)"])
@pytest.mark.parametrize("inplace", ["", "_"])
def test_binary(name, other, inplace):
    if name in ("clamp_min", "clamp_max", "pow", "maximum", "minimum") and \
            other == "torch.tensor(1.5)":
        pytest.skip("torch has no Tensor overload of this op")
    _check(f"_foreach_{name}{inplace}(a, {other})")


@pytest.mark.parametrize("call", ["_foreach_add(a, b, alpha=-0.5)", "_foreach_sub_(a, b, alpha=2)",
                                  "_foreach_add(a, 3, alpha=2)"])
def test_alpha(call):
    _check(call)


@pytest.mark.parametrize("name", ["addcmul", "addcdiv"])
@pytest.mark.parametrize("value", ["", ", 0.5", ", value=-2", ", [1.0, 2.0, 0.5]",
                                   ", torch.tensor([1.0, 2.0, 0.5])"])
@pytest.mark.parametrize("inplace", ["", "_"])
def test_addc(name, value, inplace):
    _check(f"_foreach_{name}{inplace}(a, b, c{value})")


@pytest.mark.parametrize("weight", ["0.25", "c", "[0.1, 0.5, 0.9]"])
@pytest.mark.parametrize("inplace", ["", "_"])
def test_lerp(weight, inplace):
    if weight.startswith("["):
        pytest.skip("torch 2.13's _foreach_lerp takes a scalar or tensors only")
    _check(f"_foreach_lerp{inplace}(a, b, {weight})")


@pytest.mark.parametrize("name", ["sqrt", "rsqrt", "neg", "abs", "exp", "log", "reciprocal",
                                  "sign", "sigmoid", "tanh"])
@pytest.mark.parametrize("inplace", ["", "_"])
def test_unary(name, inplace):
    _check(f"_foreach_{name}{inplace}(a)")


@pytest.mark.parametrize("call", ["_foreach_zero_(a)", "_foreach_copy_(a, b)",
                                  "_foreach_norm(a)", "_foreach_norm(a, 1)",
                                  "_foreach_norm(a, float('inf'))",
                                  "_foreach_norm(a, dtype=torch.float64)"])
def test_misc(call):
    _check(call)


@pytest.mark.parametrize("call", ["_foreach_add([], 1)", "_foreach_add(a, [1.0, 2.0])",
                                  "_foreach_mul(a, b[:2])", "_foreach_maximum(a, torch.tensor(1.0))",
                                  "_foreach_add_([x.long() for x in a], 1.5)",
                                  "_foreach_addcmul(a, b, c[:1])"])
def test_errors(call):
    _check(call)


def test_optimizer_style_update():
    # the step torch's multi-tensor Adam runs (exp_avg/exp_avg_sq updates, bias-corrected step)
    _check("""_foreach_mul_(a, 0.9) or torch._foreach_add_(a, b, alpha=0.1) or \\
        torch._foreach_addcdiv_(a, b, torch._foreach_add(torch._foreach_sqrt(c), 1e-8), -0.01)""")
