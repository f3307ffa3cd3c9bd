"""The autotuned matmul under the CPU interpreter, on Paddle (proxy) and on real torch.

Triton's autotuner asks ``driver.active.get_benchmarker()`` for a timer, and with no GPU there
is no active driver at all -- for real torch as much as for Paddle.  The test installs a
wall-clock benchmarker as the active driver for its duration, so the autotuner really runs
every config on these tensors, picks one, and the result is checked against numpy."""
from __future__ import annotations

import time

import numpy as np
import pytest

import kernel_loader as kl
from kernels.triton import reference as ref

paddle = pytest.importorskip("paddle")
torch = pytest.importorskip("torch")
triton = pytest.importorskip("triton")


class WallClockDriver:
    """Just what the autotuner reads from a driver under the interpreter."""

    def __init__(self):
        self.timed = 0

    def get_benchmarker(self):
        def bench(kernel_call, quantiles=None, **_):
            t0 = time.perf_counter()
            kernel_call()
            ms = (time.perf_counter() - t0) * 1e3
            self.timed += 1
            return [ms] * len(quantiles) if quantiles else ms
        return bench


@pytest.fixture
def wall_clock_driver():
    from torchproxy.integrations.triton import _config, _slots
    d, active, _ = _slots(_config()[0])  # Triton 3.3 and 3.4+ keep the slot differently
    saved = d[active]
    drv = WallClockDriver()
    d[active] = drv
    try:
        yield drv
    finally:
        d[active] = saved


@pytest.mark.parametrize("scoped", [True, False], ids=["proxy-paddle", "real-torch"])
def test_autotuned_matmul_relu(scoped, wall_clock_driver):
    m = kl.load_autotuned("matmul", scoped)
    rng = np.random.default_rng(1)
    a = rng.standard_normal((20, 24)).astype("float32")
    b = rng.standard_normal((24, 18)).astype("float32")
    conv = paddle.to_tensor if scoped else (lambda v: torch.from_numpy(v.copy()))
    c = m.matmul_relu_autotuned(conv(a), conv(b))
    assert isinstance(c, paddle.Tensor if scoped else torch.Tensor)
    np.testing.assert_allclose(np.asarray(c.numpy()), ref.matmul_relu(a, b), rtol=1e-5, atol=1e-5)
    kernel = m.matmul_relu_autotuned_kernel
    assert wall_clock_driver.timed >= len(m.AUTOTUNE_CONFIGS)  # every config was run and timed
    assert kernel.best_config in m.AUTOTUNE_CONFIGS
