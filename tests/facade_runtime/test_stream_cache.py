"""Paddle's current stream handle cached per stream switch (issue 26: tvm-ffi launches read it
once per switch, not once per launch), checked on CPU with fakes for Paddle's stream getter
and setter; the real switching paths are checked by reading Paddle's own source (they must
reach ``core._set_current_stream`` at call time, which is what gets wrapped), and on a GPU by
gpu/facade_cuda_check.py."""
import inspect
import threading
import types

import paddle
import pytest

import torchproxy
from torchproxy import paddle_shims
from torchproxy.integrations import tvm_ffi as tp_tvm_ffi


class FakePaddle:
    """A device context's current stream per device, with Paddle's getter/setter shapes."""

    def __init__(self):
        self.current = {0: 0x100, 1: 0x200}
        self.reads = 0

    def read(self, device):
        self.reads += 1
        return self.current[device]

    def core(self):
        def _set_current_stream(stream):
            prev = self.current[stream.device]
            self.current[stream.device] = stream.handle
            return prev
        return types.SimpleNamespace(_set_current_stream=_set_current_stream)


def _stream(device, handle):
    return types.SimpleNamespace(device=device, handle=handle)


@pytest.fixture
def fake():
    f = FakePaddle()
    cache = paddle_shims.StreamHandleCache(f.read)
    core = f.core()
    original = core._set_current_stream
    assert paddle_shims.track_stream_changes(core, cache)
    yield f, cache, core
    paddle_shims.untrack_stream_changes()
    assert core._set_current_stream is original  # restored


def test_reads_paddle_once_per_switch(fake):
    f, cache, core = fake
    assert [cache.get(0) for _ in range(5)] == [0x100] * 5 and f.reads == 1
    assert cache.get(1) == 0x200 and f.reads == 2
    core._set_current_stream(_stream(0, 0x111))   # a switch through the wrapped setter
    assert cache.get(0) == 0x111 and f.reads == 3
    assert cache.get(1) == 0x200 and f.reads == 4  # every device re-read after any switch
    assert cache.get(0) == 0x111 and f.reads == 4


def test_tracking_is_idempotent_and_wraps_once(fake):
    f, cache, core = fake
    wrapped = core._set_current_stream
    assert paddle_shims.track_stream_changes(core, cache)
    assert core._set_current_stream is wrapped and wrapped.__torchproxy__


def test_failed_switch_still_invalidates(fake):
    f, cache, core = fake
    cache.get(0)
    with pytest.raises(KeyError):
        core._set_current_stream(_stream(7, 0x700))  # no device 7
    f.current[0] = 0x123   # changed behind the cache; the failed call invalidated anyway
    assert cache.get(0) == 0x123


def test_a_read_racing_a_switch_is_not_cached():
    """The switch lands (and invalidates) while a get() is between reading Paddle and storing:
    the old handle must not be stored."""
    f = FakePaddle()
    cache = paddle_shims.StreamHandleCache(None)

    def read(device):
        h = f.read(device)
        f.current[device] = 0x999   # the switch happens after the read...
        cache.invalidate()          # ...and invalidates after it took effect
        return h
    cache._read = read
    assert cache.get(0) == 0x100    # this call's answer is the stream current when it read
    cache._read = f.read
    assert cache.get(0) == 0x999    # not the stale 0x100


def test_concurrent_gets_and_switches_never_end_stale():
    f = FakePaddle()
    cache = paddle_shims.StreamHandleCache(f.read)
    core = f.core()
    paddle_shims.track_stream_changes(core, cache)
    try:
        stop = threading.Event()

        def reader():
            while not stop.is_set():
                cache.get(0)
        threads = [threading.Thread(target=reader) for _ in range(4)]
        for t in threads:
            t.start()
        for i in range(2000):
            core._set_current_stream(_stream(0, 0x1000 + i))
            assert cache.get(0) == 0x1000 + i   # after a switch returns, never the old one
        stop.set()
        for t in threads:
            t.join()
    finally:
        paddle_shims.untrack_stream_changes()


def test_bounded():
    cache = paddle_shims.StreamHandleCache(lambda d: d + 1)
    for d in range(1000):
        assert cache.get(d) == d + 1
    assert len(cache._handles) == paddle_shims.StreamHandleCache.MAX_DEVICES


def test_call_on_paddle_stream_uses_the_cached_handle(monkeypatch):
    f = FakePaddle()
    cache = paddle_shims.StreamHandleCache(f.read)
    core = f.core()
    paddle_shims.track_stream_changes(core, cache)
    calls, env = [], {}

    def setter(device_type, index, stream):
        calls.append(stream)
        prev, env[index] = env.get(index, 0), stream
        return prev
    monkeypatch.setattr(tp_tvm_ffi, "_SETTER", [setter])
    monkeypatch.setattr(tp_tvm_ffi, "_stream_handle", cache.get)
    try:
        for _ in range(3):
            tp_tvm_ffi.call_on_paddle_stream(0, lambda: None)
        core._set_current_stream(_stream(0, 0x5A))  # e.g. torch.cuda.set_stream in the facade
        tp_tvm_ffi.call_on_paddle_stream(0, lambda: None)
    finally:
        paddle_shims.untrack_stream_changes()
    assert calls == [0x100, 0, 0x100, 0, 0x100, 0, 0x5A, 0] and f.reads == 2


def test_the_integration_reads_through_the_cache():
    assert tp_tvm_ffi._stream_handle is paddle_shims.cached_stream_handle


def test_paddles_switching_paths_reach_core_set_current_stream():
    """What the wrapper relies on: Paddle's Python switches streams only through
    ``core._set_current_stream`` looked up at call time (2.6.2 and 3.3.1)."""
    from paddle.device import cuda as pcuda
    assert "core._set_current_stream(" in inspect.getsource(paddle.device.set_stream)
    assert "set_stream(" in inspect.getsource(paddle.device.stream_guard)
    assert "core._set_current_stream(" in inspect.getsource(pcuda._set_current_stream)
    assert "_set_current_stream(" in inspect.getsource(pcuda.stream_guard)
    # the facade's switches go through paddle.device
    from torchproxy.facade import cuda as fcuda
    assert "paddle.device.set_stream(" in inspect.getsource(fcuda.set_stream)
    assert "paddle.device.stream_guard(" in inspect.getsource(fcuda.StreamContext)


def test_disable_restores_paddles_setter():
    core = paddle_shims._core
    original = core.__dict__.get("_set_current_stream")
    if original is None:
        pytest.skip("this Paddle has no _set_current_stream")
    torchproxy.enable(scope={"stream_cache_test"})
    try:
        assert paddle_shims.track_stream_changes()
        assert core._set_current_stream is not original
    finally:
        torchproxy.disable()
    assert core._set_current_stream is original
