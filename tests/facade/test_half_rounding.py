"""Casts to bfloat16 and float16 round to nearest even, as torch's (Paddle 2.6's CPU casts
truncate: 2380.0 became 2368.0 in bfloat16, 242.34375 became 242.25 in float16;
paddle_shims.astype_exact), and half-precision gradients of broadcast views are summed in float32
and rounded once (memory-model fuzzer F35)."""
import numpy as np
import pytest

from difftest import check

from torchproxy import paddle_shims

R = np.random.RandomState(0)
# every float32 exponent range, the exact midpoints between bfloat16 and between float16
# neighbours (ties, normal and subnormal), the overflow edges, signed zeros, subnormals,
# infinities and NaN
_BF16_TIES = (R.randn(500).astype(np.float32).view(np.uint32) & 0xFFFF0000) | 0x8000
_F16 = R.randn(500).astype(np.float16)
_F16_TIES = (_F16.astype(np.float32) + np.spacing(_F16).astype(np.float32) / 2)
_F16_SUB = np.arange(1, 400, dtype=np.float32) * 2.0 ** -25  # subnormal quanta and halves
VALUES = np.concatenate([
    (R.randn(4000) * 10.0 ** R.randint(-38, 38, 4000)).astype(np.float32),
    (R.randn(2000) * 10.0 ** R.randint(-9, 6, 2000)).astype(np.float32),
    _BF16_TIES.astype(np.uint32).view(np.float32), _F16_TIES, _F16_SUB, -_F16_SUB,
    np.array([65504.0, 65519.99, 65520.0, -65520.0, 2.0 ** -14, 2.0 ** -24, 2.0 ** -25,
              3 * 2.0 ** -26], np.float32),
    np.array([0x7F7F8000, 0x7F7F7FFF, 0xFF7F8000, 0x00000001, 0x80000001, 0x007FFFFF],
             np.uint32).view(np.float32),
    np.array([2380.0, 0.0, -0.0, np.inf, -np.inf, np.nan, 3.4e38, -3.4e38], np.float32),
]).astype(np.float32)


@pytest.mark.parametrize("expr", ["x.to(torch.{dt})", "x.{dt}()", "x.double().to(torch.{dt})",
                                  "x.type(torch.{dt})",
                                  "torch.tensor(x.tolist(), dtype=torch.{dt})"])
@pytest.mark.parametrize("dt", ["bfloat16", "half"])
def test_cast_to_half_dtypes_rounds_to_nearest_even(expr, dt):
    check(f"""
import torch
def f(x):
    return ({expr.format(dt=dt)}).float()
""", VALUES)


@pytest.mark.parametrize("dt", ["bfloat16", "float16"])
def test_cast_gradient_is_one(dt):
    check(f"""
import torch
def f(x):
    a = x[:64].clone().requires_grad_()
    (a.to(torch.{dt}).float() * 3).sum().backward()
    return a.grad
""", VALUES[np.isfinite(VALUES) & (np.abs(VALUES) < 1e4)])


@pytest.mark.parametrize("dtype", ["bfloat16", "float16"])
def test_expanded_half_gradient_is_summed_in_float32(dtype):
    check(f"""
import torch
def f():
    b = torch.tensor([[1.0], [2.0]], dtype=torch.{dtype}).requires_grad_()
    w = torch.arange(80).reshape(2, 40).to(torch.{dtype})
    (b.expand(2, 40) * w).sum().backward()
    c = torch.tensor([3.0], dtype=torch.{dtype}).requires_grad_()
    (c.reshape(1, 1, 1).expand(2, 3, 40).unfold(2, 1, 1) * 1.01).sum().backward()
    return b.grad.float(), c.grad.float()
""")


def test_the_probe_matches_this_paddle():
    # the rounding runs only where Paddle's own cast truncates (2.6.2), never on 3.x
    assert paddle_shims.cast_truncates("bfloat16") == paddle_shims.IS_PADDLE_2
    assert paddle_shims.cast_truncates("float16") == paddle_shims.IS_PADDLE_2
    # Paddle 3.3.1 garbles float32 magnitudes of 2**-89..2**-78 cast to float16 (2.6.2 does not)
    assert paddle_shims.tiny_to_float16_garbled() == (not paddle_shims.IS_PADDLE_2)


def test_gradient_through_a_widening_cast_is_rounded_as_torch():
    """The backward of ``half.float()`` (and of the float32 compute of CPU halves) rounds the
    float32 gradient to the half dtype as torch does: Paddle's cast backward truncates (2.6) or
    turns values far below float16's smallest subnormal into nonzero ones (3.3.1), and a
    cross-entropy gradient of widely spread logits holds such values (Liger's test_amp)."""
    rng = np.random.default_rng(5)
    x = (rng.standard_normal((6, 40)) * 8).astype(np.float32)
    t = rng.integers(0, 40, 6)
    check("""
import torch
import torch.nn.functional as F
def f(x, t):
    out = []
    for dt in (torch.float16,):  # (bfloat16 holds float32's range: nothing to garble)
        h = x.to(dt).requires_grad_(True)
        F.cross_entropy(h.float() * 3, t).backward()
        k = x.to(dt).requires_grad_(True)
        F.cross_entropy((k * 3).float(), t).backward()      # the float32 compute of CPU halves
        # (the counts of nonzero entries too: the garbled ones are a few subnormal quanta)
        out += [h.grad, k.grad, int((h.grad != 0).sum()), int((k.grad != 0).sum())]
    return out
""", x, t, rtol=0, atol=0)
