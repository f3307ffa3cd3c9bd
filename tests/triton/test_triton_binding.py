"""Triton's GPU runtime bound to Paddle (torchproxy/integrations/triton*.py), tested on CPU.

No GPU here, so no kernel launches: these exercise the driver logic itself -- which Paddle
functions answer Triton's questions, which driver holds Triton's active slot when, and that
unbind() restores Triton exactly.  gpu/triton_check.py runs the real thing on a GPU."""
from __future__ import annotations

import sys
import types

import numpy as np
import pytest

paddle = pytest.importorskip("paddle")
triton = pytest.importorskip("triton")

import torchproxy  # noqa: E402
from torchproxy.hook import is_facade  # noqa: E402
from torchproxy import paddle_shims  # noqa: E402
from torchproxy.integrations import paddle_cuda  # noqa: E402
from torchproxy.integrations import triton as binding  # noqa: E402
from torchproxy.integrations.triton_driver import PaddleCudaDriver  # noqa: E402
from triton.backends.nvidia.driver import CudaDriver  # noqa: E402
from triton.runtime.driver import DriverConfig  # noqa: E402


class FakeGpuPlace:
    def __init__(self, idx):
        self.idx = idx

    def is_gpu_place(self):
        return True

    def gpu_device_id(self):
        return self.idx


@pytest.fixture
def fake_paddle_gpu(monkeypatch):
    """Stand-ins for the CUDA-only Paddle bindings: current place GPU 1, a stream per device,
    sm_90.  Records what the driver asked Paddle."""
    calls = []

    def get_stream(device):
        calls.append(("stream", device))
        return types.SimpleNamespace(cuda_stream=0x7000 + device)

    def props(device):
        calls.append(("props", device))
        return types.SimpleNamespace(major=9, minor=0)

    monkeypatch.setattr(paddle_shims, "expected_place", lambda: FakeGpuPlace(1))
    monkeypatch.setattr(paddle_shims, "_last_place", [None, 0])
    monkeypatch.setattr(paddle_shims._core, "_get_current_stream", get_stream, raising=False)
    # the stream cache must not answer from another test's stand-in (a fake getter is a switch
    # no _set_current_stream call announced)
    paddle_shims.STREAMS.invalidate()
    monkeypatch.setattr(paddle.device.cuda, "get_device_properties", props)
    monkeypatch.setattr(paddle_shims, "_capability", {})
    return calls


def test_driver_is_tritons_cuda_driver_answering_from_paddle(fake_paddle_gpu):
    drv = PaddleCudaDriver()
    assert isinstance(drv, CudaDriver)
    assert drv.get_current_device() == 1
    assert drv.get_current_stream(1) == 0x7001          # Paddle's current stream handle
    assert fake_paddle_gpu[-1] == ("stream", 1)
    target = drv.get_current_target()                   # Triton's own code on our answers
    assert (target.backend, target.arch, target.warp_size) == ("cuda", 90, 32)
    drv.get_current_target()
    assert fake_paddle_gpu.count(("props", 1)) == 1     # capability read once per device


def test_current_device_follows_paddle_set_device(monkeypatch):
    """Cached per expected-place object: a new place (what paddle.set_device installs) is
    seen at once."""
    from paddle.base import framework
    monkeypatch.setattr(paddle_shims, "_last_place", [None, 0])
    for idx in (1, 3, 1):
        place = FakeGpuPlace(idx)
        monkeypatch.setattr(framework, "_global_expected_place_", place)
        monkeypatch.setattr(paddle_shims, "expected_place", lambda p=place: p)
        assert paddle_cuda.current_device() == idx
        assert paddle_cuda.current_device() == idx  # the cached answer


def test_driver_is_inactive_without_a_paddle_gpu():
    assert PaddleCudaDriver.is_active() == (paddle.is_compiled_with_cuda()
                                            and paddle.device.cuda.device_count() > 0)


def test_device_interface_is_the_facades_torch_cuda():
    iface = PaddleCudaDriver().get_device_interface()
    assert iface.__name__ == "torch.cuda" and is_facade(iface)
    for name in ("synchronize", "Event", "Stream", "current_stream", "stream"):
        assert callable(getattr(iface, name)), name


def active(cfg):
    d, key, _ = binding._slots(cfg)
    return d[key]


def default(cfg):
    d, _, key = binding._slots(cfg)
    return d[key]


def set_active(cfg, drv):
    d, key, _ = binding._slots(cfg)
    d[key] = drv


def test_clear_cache_zeroes_with_a_triton_kernel():
    """The cache flush is a Triton kernel (Paddle's own fill does nothing on GPUs its build
    lacks kernels for); here it runs under the interpreter on a Paddle CPU tensor."""
    torchproxy.enable(scope={"triton"})  # the interpreter moves Paddle tensors via storage
    buf = paddle.to_tensor(np.arange(1, 10001, dtype="int32"))
    PaddleCudaDriver().clear_cache(buf)
    assert not buf.numpy().any()


class Recorder:
    """A run() that records which driver was active while it ran."""

    def __init__(self, cfg, fail=False):
        self.cfg, self.fail, self.seen = cfg, fail, []

    def __call__(self, kernel, *args, **kwargs):
        self.seen.append(active(self.cfg))
        if self.fail:
            raise RuntimeError("launch failed")
        return "launched"


def test_paddle_launches_run_with_paddle_driver_and_restore():
    import torch
    from triton.runtime.jit import TensorWrapper
    torchproxy.enable(scope={"triton"})  # Triton 3.9's TensorWrapper reads base.device
    cfg, drv, torch_drv = DriverConfig(), object(), object()
    set_active(cfg, torch_drv)
    rec = Recorder(cfg)
    run = binding.switching_run(rec, cfg, drv)
    pt = paddle.to_tensor(np.zeros(4, "float32"))
    assert run("k", pt, 4, grid=(1,), warmup=False) == "launched"
    run("k", torch.zeros(4), 4, grid=(1,), warmup=False)
    run("k", 4, out=pt, grid=(1,), warmup=False)
    run("k", TensorWrapper(pt, triton.language.int32), grid=(1,), warmup=False)
    assert rec.seen == [drv, torch_drv, drv, drv]
    assert active(cfg) is torch_drv


def test_failed_paddle_launch_restores_previous_driver():
    cfg, drv, torch_drv = DriverConfig(), object(), object()
    set_active(cfg, torch_drv)
    run = binding.switching_run(Recorder(cfg, fail=True), cfg, drv)
    with pytest.raises(RuntimeError, match="launch failed"):
        run("k", paddle.to_tensor([1.0]), grid=(1,), warmup=False)
    assert active(cfg) is torch_drv


def test_do_bench_from_scope_uses_paddle_driver():
    cfg, drv, torch_drv = DriverConfig(), object(), object()
    set_active(cfg, torch_drv)
    seen = []
    bench = binding.scoped_bench(lambda fn: seen.append(active(cfg)) or 1.0, cfg, drv,
                                 wants=lambda name: name == "scoped_user")
    for modname in ("scoped_user", "torch_user", "triton.runtime.autotuner"):
        user = types.ModuleType(modname)
        exec("def call(bench):\n    return bench(lambda: None)\n", user.__dict__)
        assert user.call(bench) == 1.0
    # Triton's own autotuner (in scope too) keeps whatever driver Autotuner.run chose
    bench_all = binding.scoped_bench(lambda fn: seen.append(active(cfg)) or 1.0, cfg, drv,
                                     wants=lambda name: True)
    user.call(bench_all)
    assert seen == [drv, torch_drv, torch_drv, torch_drv] and active(cfg) is torch_drv


def test_paddle_driver_context_restores_on_error():
    cfg, _ = binding._config()
    before = active(cfg)
    with pytest.raises(KeyError):
        with binding.paddle_driver() as drv:
            assert active(cfg) is drv and isinstance(drv, PaddleCudaDriver)
            raise KeyError("x")
    assert active(cfg) is before


def test_default_driver_is_created_with_real_torch_while_triton_is_in_scope():
    """Triton's own default driver (for real torch launches) must not get the facade from
    its `import torch`, even with "triton" in scope."""
    torchproxy.enable(scope={"fake_triton_pkg"})
    mod = types.ModuleType("fake_triton_pkg.driver")
    exec("def _create_driver():\n    import torch\n    return torch\n", mod.__dict__)
    assert is_facade(mod._create_driver())                  # in scope: the facade
    real = binding.real_torch_default(mod._create_driver)()
    assert not is_facade(real) and hasattr(real, "from_numpy")
    assert torchproxy.is_enabled()                                     # proxy back on after


def test_bind_default_mode_then_unbind_restores_triton():
    cfg, _ = binding._config()
    before = (default(cfg), active(cfg), binding.current_allocator())
    assert binding.bind("default") == "default"
    try:
        assert triton.runtime.driver.active is binding.paddle_driver_instance()
        assert default(cfg) is binding.paddle_driver_instance()
        assert binding.current_allocator() is binding.paddle_allocator
    finally:
        binding.unbind()
    assert (default(cfg), active(cfg), binding.current_allocator()) == before
    assert binding.bound_mode() is None


def test_bind_per_launch_then_unbind_restores_triton():
    import triton.testing
    from triton.runtime.autotuner import Autotuner
    from triton.runtime.jit import JITFunction
    driver_mod = sys.modules["triton.runtime.driver"]
    originals = (JITFunction.run, Autotuner.run, triton.testing.do_bench,
                 driver_mod._create_driver)
    binding.bind("per-launch", allocator=False)
    try:
        assert JITFunction.run.__wrapped__ is originals[0]
        assert Autotuner.run.__wrapped__ is originals[1]
        assert triton.testing.do_bench.__wrapped__ is originals[2]
        assert driver_mod._create_driver.__wrapped__ is originals[3]
        with pytest.raises(RuntimeError, match="already bound"):
            binding.bind("default")
    finally:
        binding.unbind()
    assert (JITFunction.run, Autotuner.run, triton.testing.do_bench,
            driver_mod._create_driver) == originals


def test_allocator_alignment():
    t = paddle.to_tensor(np.zeros(4096, "uint8"))
    ptr = t.data_ptr()
    assert binding.aligned(t, 1) is t
    natural = ptr & -ptr                       # largest power of two dividing the address
    buf = binding.aligned(t, natural * 2)      # forces an offset into the allocation
    assert buf.data_ptr() % (natural * 2) == 0 and ptr < buf.data_ptr() < ptr + natural * 2
    assert buf.tensor is t
