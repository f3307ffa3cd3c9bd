"""torch.cuda.

Without a GPU (this CI): differential against torch's CPU build -- the same answers
(is_available False, device_count 0, memory counters 0) and the same exception types for calls
that need CUDA.  With a GPU build of Paddle: the tests at the bottom check the facade against
Paddle's own CUDA API (stream handles, devices, events, properties)."""
import numpy as np
import paddle
import pytest

from difftest import check

HAS_GPU = paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0
needs_no_cuda = pytest.mark.skipif(paddle.is_compiled_with_cuda(),
                                   reason="compares with torch's CPU build: needs a CPU Paddle")
needs_gpu = pytest.mark.skipif(not HAS_GPU, reason="needs Paddle with CUDA and a GPU")


@needs_no_cuda
@pytest.mark.parametrize("expr", [
    "torch.cuda.is_available()",
    "torch.cuda.device_count()",
    "torch.cuda.is_initialized()",
    "torch.cuda.current_device()",
    "torch.cuda.get_device_properties(0)",
    "torch.cuda.get_device_properties('cuda:0')",
    "torch.cuda.get_device_capability()",
    "torch.cuda.get_device_capability(0)",
    "torch.cuda.get_device_name()",
    "torch.cuda.current_stream()",
    "torch.cuda.default_stream()",
    "torch.cuda.Stream()",
    "torch.cuda.synchronize()",
    "torch.cuda.Event(enable_timing=True)",
    "torch.cuda.Event()",
    "torch.cuda.CUDAGraph()",
    "torch.cuda.memory_allocated()",
    "torch.cuda.max_memory_allocated()",
    "torch.cuda.memory_reserved()",
    "torch.cuda.max_memory_reserved()",
    "torch.cuda.empty_cache()",
    "torch.cuda.device(0).__enter__()",
    "torch.cuda.device(-1).__enter__()",
    "torch.cuda.stream(None).__enter__()",
    "torch.cuda.set_stream(None)",
    "torch.cuda._lazy_init()",
    "torch.cuda.init()",
    "torch.cuda.manual_seed(0)",
    "torch.cuda.manual_seed_all(0)",
    "torch.cuda.is_current_stream_capturing()",
    "torch.cuda.is_bf16_supported()",
    "torch.cuda.get_arch_list()",
    "torch.cuda.nvtx.range_push('a')",
    "torch.cuda.nvtx.range_pop()",
    "torch.cuda.nvtx.range('a').__enter__()",
    "torch.version.cuda",
    "torch.version.hip",
    "torch.cuda.is_available() and torch.version.hip is None",  # Triton's driver probe
    "torch.xpu.is_available()",
    "torch.mps.is_available()",
    "torch.backends.mps.is_available()",
    "torch.backends.cudnn.version()",
    "torch.backends.cudnn.is_available()",
    "torch.backends.cudnn.enabled",
    "torch.backends.cuda.matmul.allow_tf32",
    "torch.backends.cudnn.allow_tf32",
])
def test_without_cuda_like_torch_cpu_build(expr):
    check(f"""
import torch
def f():
    return {expr}
""")


@needs_no_cuda
def test_device_guard_with_negative_index_is_a_no_op_like_torch():
    check("""
import torch
def f():
    with torch.cuda.device(-1):
        return torch.cuda.is_available()
""")


@needs_no_cuda
@pytest.mark.parametrize("call", ["torch.cuda.set_device(0)", "torch.cuda.reset_peak_memory_stats()"])
def test_calls_torch_cpu_build_fails_on_by_accident(call):
    # torch's CPU build raises AttributeError here only because a torch._C symbol is missing;
    # the facade raises what torch's other CUDA entry points raise without CUDA.
    import torchproxy
    from torchproxy.facade import modules
    torchproxy.enable(scope={"difftest_scoped"})
    torch = modules.build()["torch"]
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        eval(call, {"torch": torch})


def test_device_index_parsing():
    from torchproxy.facade.cuda import _index
    assert _index(3) == 3
    assert _index("cuda:2") == 2
    assert _index("gpu:1") == 1
    if HAS_GPU:  # a CPU build of Paddle cannot construct a CUDAPlace
        assert _index(paddle.CUDAPlace(0)) == 0
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        _index("cpu")
    with pytest.raises(ValueError, match="Expected a cuda device"):
        _index(paddle.CPUPlace())
    with pytest.raises(ValueError, match="Expected a cuda device"):
        _index(paddle.ones([1]).cpu().place)  # a tensor's place (core.Place)
    if HAS_GPU:
        assert _index(paddle.ones([1]).cuda().place) == paddle.ones([1]).cuda().place.gpu_device_id()
    with pytest.raises(ValueError, match="specified index"):
        _index("cuda")  # no index and not optional


def test_device_index_of_facade_device():
    from torchproxy.facade import modules
    from torchproxy.facade.cuda import _index
    torch = modules.build()["torch"]
    assert _index(torch.device("cuda", 1)) == 1
    assert _index(torch.device("cuda:3")) == 3
    with pytest.raises(ValueError, match="Expected a cuda device"):
        _index(torch.device("cpu"))


def test_unreported_device_property_raises_not_provided():
    from torchproxy.errors import NotProvidedError
    from torchproxy.facade.cuda import _CudaDeviceProperties

    class PaddleProps:  # the fields Paddle's properties object reports
        name, major, minor, total_memory, multi_processor_count = "GPU", 9, 0, 80 << 30, 132

    p = _CudaDeviceProperties(PaddleProps())
    assert (p.name, p.major, p.minor, p.multi_processor_count) == ("GPU", 9, 0, 132)
    assert getattr(p, "gcnArchName", None) is None  # TileLang's probe
    with pytest.raises(NotProvidedError, match=r"torch\.cuda\._CudaDeviceProperties\.L2_cache_size"):
        p.L2_cache_size


# -- with a GPU: the facade against Paddle's own CUDA API ------------------------------------------
def _torch():
    import torchproxy
    from torchproxy.facade import modules
    torchproxy.enable(scope={"difftest_scoped"})
    return modules.build()["torch"]


@needs_gpu
def test_gpu_device_queries_match_paddle():
    torch = _torch()
    assert torch.cuda.is_available()
    assert torch.cuda.device_count() == paddle.device.cuda.device_count()
    p = torch.cuda.get_device_properties(0)
    q = paddle.device.cuda.get_device_properties(0)
    assert (p.name, p.major, p.minor, p.total_memory, p.multi_processor_count) == \
        (q.name, q.major, q.minor, q.total_memory, q.multi_processor_count)
    assert torch.cuda.get_device_capability(0) == paddle.device.cuda.get_device_capability(0)
    assert torch.cuda.get_device_name(0) == paddle.device.cuda.get_device_name(0)
    recorded = getattr(paddle.version, "compiled_cuda_archs", None)
    if recorded:
        archs = torch.cuda.get_arch_list()
        assert len(archs) == len(recorded)
        assert all(a.startswith("sm_") and a[3:].isdigit() for a in archs), archs
    else:
        with pytest.raises(NotImplementedError, match="get_arch_list"):
            torch.cuda.get_arch_list()


@needs_gpu
def test_gpu_current_stream_is_paddles_current_stream():
    torch = _torch()
    dev = torch.cuda.current_device()
    raw = paddle.device.current_stream(paddle.CUDAPlace(dev)).stream_base.cuda_stream
    assert torch.cuda.current_stream().cuda_stream == raw
    assert torch._C._cuda_getCurrentRawStream(dev) == raw
    s = torch.cuda.Stream()
    assert s.cuda_stream not in (0, raw)
    with torch.cuda.stream(s):
        assert torch.cuda.current_stream() == s
        assert paddle.device.current_stream(paddle.CUDAPlace(dev)).stream_base.cuda_stream == s.cuda_stream
    assert torch.cuda.current_stream().cuda_stream == raw
    assert torch.cuda.default_stream().cuda_stream == raw


@needs_gpu
def test_gpu_events_time_work():
    torch = _torch()
    a = paddle.randn([1024, 1024])
    start, end = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    start.record()
    for _ in range(10):
        a = a @ a / 1024
    end.record()
    torch.cuda.synchronize()
    assert end.query()
    ms = start.elapsed_time(end)
    assert isinstance(ms, float) and ms > 0


@needs_gpu
def test_gpu_device_guard_and_memory():
    torch = _torch()
    before = torch.cuda.current_device()
    last = torch.cuda.device_count() - 1
    runtime_before = paddle.base.core.get_cuda_current_device_id()
    with torch.cuda.device(last):
        assert torch.cuda.current_device() == last
        if hasattr(paddle.base.core, "set_cuda_current_device_id"):
            assert paddle.base.core.get_cuda_current_device_id() == last  # cudaSetDevice too
    assert torch.cuda.current_device() == before
    assert paddle.base.core.get_cuda_current_device_id() == runtime_before
    base = torch.cuda.memory_allocated()
    t = paddle.empty([256, 1024, 1024], dtype="float32")  # 1 GiB
    assert torch.cuda.memory_allocated() - base >= 1 << 30
    assert torch.cuda.max_memory_allocated() >= torch.cuda.memory_allocated()
    del t
    torch.cuda.empty_cache()
    if hasattr(paddle.base.core, "device_memory_stat_reset_peak_value"):
        torch.cuda.reset_peak_memory_stats()
        assert torch.cuda.max_memory_allocated() == torch.cuda.memory_allocated()


@needs_gpu
def test_gpu_nvtx_ranges_nest_without_error():
    torch = _torch()
    with torch.cuda.nvtx.range("outer"):
        torch.cuda.nvtx.range_push("inner")
        torch.cuda.nvtx.range_pop()

    @torch.cuda.nvtx.range("decorated {}", 1)
    def f(x):
        return x + 1
    assert f(1) == 2


def test_out_of_memory_error_catches_paddles_allocation_failure():
    torch = _torch()
    with pytest.raises(torch.cuda.OutOfMemoryError, match="ResourceExhausted"):
        paddle.empty([2 ** 42], dtype="float32").fill_(1.0)  # 16 TiB: Paddle's allocator refuses


@needs_gpu
def test_gpu_out_of_memory_is_caught():
    torch = _torch()
    free_plus = paddle.device.cuda.get_device_properties(0).total_memory * 2
    with pytest.raises(torch.cuda.OutOfMemoryError):
        paddle.empty([free_plus // 4], dtype="float32").fill_(1.0)


@needs_gpu
def test_gpu_cuda_graph_capture_and_replay():
    torch = _torch()
    x = paddle.ones([4096])
    y = x * 2                                   # warm-up outside the capture
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = x * 2 + 1
    torch.cuda.synchronize()
    x.fill_(3.0)
    g.replay()
    torch.cuda.synchronize()
    np.testing.assert_allclose(y.numpy(), np.full([4096], 7.0))
    g.reset()
