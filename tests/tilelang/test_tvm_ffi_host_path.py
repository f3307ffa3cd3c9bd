"""Issue 26's per-call paths to tvm-ffi, checked without a GPU: the DLPack capsule Paddle 2.6
tensors are handed over as (paddle_shims.dlpack_capsule, what paddle.utils.dlpack.to_dlpack
returns minus its @dygraph_only wrapper), and TileLang's launch wrapper setting tvm-ffi's
environment stream to Paddle's current one around the call and back after, on error too."""
import numpy as np
import paddle
import pytest

from torchproxy import paddle_shims
from torchproxy.integrations import tilelang as tp_tilelang
from torchproxy.integrations import tvm_ffi as tp_tvm_ffi


def test_capsule_is_to_dlpacks_and_shares_memory():
    x = paddle.to_tensor(np.arange(12, dtype="float32").reshape(3, 4))
    ours = paddle.utils.dlpack.from_dlpack(paddle_shims.dlpack_capsule(x))
    theirs = paddle.utils.dlpack.from_dlpack(paddle.utils.dlpack.to_dlpack(x))
    assert ours.shape == theirs.shape == [3, 4] and ours.dtype == theirs.dtype
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    if not paddle_shims.IS_PADDLE_2:  # 2.6's from_dlpack copies; 3.x views, as to_dlpack's
        assert ours.data_ptr() == theirs.data_ptr() == x.data_ptr()


def test_capsule_of_a_slice_keeps_its_offset():
    base = paddle.to_tensor(np.arange(20, dtype="float32"))
    x = base[5:9]
    np.testing.assert_array_equal(
        paddle.utils.dlpack.from_dlpack(paddle_shims.dlpack_capsule(x)).numpy(),
        np.arange(5, 9, dtype="float32"))


@pytest.fixture
def fake_env(monkeypatch):
    """tvm-ffi's stream setter and Paddle's stream lookup replaced by recorders."""
    calls, env = [], {}

    def setter(device_type, index, stream):
        calls.append((device_type, index, stream))
        prev = env.get((device_type, index), 0)
        env[(device_type, index)] = stream
        return prev

    monkeypatch.setattr(tp_tvm_ffi, "_SETTER", [setter])
    monkeypatch.setattr(tp_tvm_ffi, "_stream_handle", lambda index: 0xABC0 + index)
    return calls, env


def test_call_on_paddle_stream_sets_and_restores(fake_env):
    calls, env = fake_env
    env[(2, 1)] = 0x77
    seen = []
    out = tp_tvm_ffi.call_on_paddle_stream(1, lambda a, b=0: seen.append(env[(2, 1)]) or a + b,
                                           3, b=4)
    assert out == 7 and seen == [0xABC1]
    assert calls == [(2, 1, 0xABC1), (2, 1, 0x77)] and env[(2, 1)] == 0x77


def test_call_on_paddle_stream_restores_on_error(fake_env):
    calls, env = fake_env

    def boom():
        raise ValueError("kernel failed")
    with pytest.raises(ValueError, match="kernel failed"):
        tp_tvm_ffi.call_on_paddle_stream(0, boom)
    assert calls == [(2, 0, 0xABC0), (2, 0, 0)] and env[(2, 0)] == 0


def test_first_gpu_index_skips_cpu_tensors_and_non_tensors():
    x = paddle.to_tensor([1.0])  # CPU here
    assert tp_tilelang._first_gpu_index((1, "a", x, None), paddle.Tensor) == -1
    assert tp_tilelang._first_gpu_index((), paddle.Tensor) == -1
