"""The facade's CPU float32 log_softmax (_opbase.log_softmax_kernel, composed of Paddle ops for
speed) is as accurate as torch's CPU kernel.  Its normalizer is a sum of exp over the whole
class dimension (32,000 vocabulary logits in Liger-Kernel's loss tests); Paddle's float32 sum
of that loses ~1e-5 relative, where torch's vectorized kernel stays near 1e-6, so the
cross-entropy gradient of the largest probabilities came out ~1e-5 off (Liger's
test_cross_entropy compares them at rtol 1e-6).  Measured here as each side's error against a
float64 reference: the facade's must not exceed torch's.  The same for F.kl_div's mean
(Paddle's CPU float32 mean), below."""
from __future__ import annotations

import numpy as np
import pytest

from difftest import run

pytest.importorskip("torch")

SRC = """
import torch
import torch.nn.functional as F
def f(x, t):
    x = x.clone().requires_grad_(True)
    loss = F.cross_entropy(x, t, reduction="sum")
    loss.backward()
    return F.log_softmax(x.detach(), -1), x.grad
"""


def test_cross_entropy_and_log_softmax_error_at_most_torchs():
    rng = np.random.default_rng(0)
    n, v = 256, 32000
    x = rng.standard_normal((n, v), dtype=np.float32)
    t = rng.integers(0, v, n)
    x64 = x.astype(np.float64)
    lse = x64.max(1, keepdims=True) + np.log(np.exp(x64 - x64.max(1, keepdims=True)).sum(
        1, keepdims=True))
    logp64 = x64 - lse
    grad64 = np.exp(logp64)
    grad64[np.arange(n), t] -= 1
    errors = {}
    for scoped in (False, True):
        logp, grad = (r.detach().numpy().astype(np.float64) for r in run(SRC, x, t,
                                                                         scoped=scoped))
        errors[scoped] = (np.max(np.abs(logp - logp64)),
                          np.max(np.abs(grad - grad64) / np.abs(grad64)))
    (torch_logp, torch_grad), (ours_logp, ours_grad) = errors[False], errors[True]
    assert ours_logp <= torch_logp, errors
    assert ours_grad <= torch_grad, errors


KL_SRC = """
import torch
def f(x, t):
    return torch.nn.functional.kl_div(torch.log_softmax(x, -1), torch.softmax(t, -1),
                                      reduction="mean")
"""


def test_kl_div_mean_error_at_most_torchs():
    """F.kl_div(reduction='mean') over 8.4M terms: Paddle 3.3.1's CPU float32 mean is ~1e-5
    off there (Liger's KL-div test compares at rtol 1e-6); the facade divides the sum."""
    rng = np.random.default_rng(0)
    x = rng.standard_normal((4096, 2048), dtype=np.float32)
    t = rng.standard_normal((4096, 2048), dtype=np.float32)
    x64, t64 = x.astype(np.float64), t.astype(np.float64)
    lx = x64 - x64.max(1, keepdims=True)
    lx -= np.log(np.exp(lx).sum(1, keepdims=True))
    pt = np.exp(t64 - t64.max(1, keepdims=True))
    pt /= pt.sum(1, keepdims=True)
    ref = (pt * (np.log(pt) - lx)).mean()
    err = {scoped: abs(float(run(KL_SRC, x, t, scoped=scoped).item()) - ref) / ref
           for scoped in (False, True)}
    # (or within 2e-7, about a float32 sum's rounding here, where torch's happens to land closer)
    assert err[True] <= max(err[False], 2e-7), err


LS_SRC = """
import torch
import torch.nn.functional as F
def f(x, t, w):
    x = x.clone().requires_grad_(True)
    F.cross_entropy(x, t, weight=w, label_smoothing=0.2, reduction="sum").backward()
    return x.grad
"""


def test_label_smoothing_gradient_error_at_most_torchs():
    """With label smoothing every class gets a gradient, and log_softmax's backward sums it over
    the 32,000-wide row; Paddle's sequential float32 sum there (the gradient of the broadcast
    normalizer) left the facade's gradients twice torch's distance from float64, enough to
    fail two of Liger's test_cross_entropy cases (rtol 1e-6): now a blocked sum."""
    rng = np.random.default_rng(3)
    n, v, ls = 128, 32000, 0.2
    x = rng.standard_normal((n, v), dtype=np.float32)
    t = rng.integers(0, v, n)
    w = rng.random(v, dtype=np.float32)
    x64, w64 = x.astype(np.float64), w.astype(np.float64)
    p = np.exp(x64 - x64.max(1, keepdims=True))
    p /= p.sum(1, keepdims=True)
    # d/dx of sum_i [(1-ls) w_t (-logp_t) + ls/V sum_c w_c (-logp_c)]
    g = -(ls / v) * w64[None, :].repeat(n, 0)
    g[np.arange(n), t] -= (1 - ls) * w64[t]
    grad64 = g - p * g.sum(1, keepdims=True)
    tol = 1e-8 + 1e-6 * np.abs(grad64)
    errs = {scoped: np.abs(run(LS_SRC, x, t, w, scoped=scoped).detach().numpy()
                           .astype(np.float64) - grad64) / tol for scoped in (False, True)}
    assert errs[True].mean() <= errs[False].mean(), (errs[True].mean(), errs[False].mean())
    assert errs[True].max() <= max(errs[False].max(), 0.3), (errs[True].max(), errs[False].max())
