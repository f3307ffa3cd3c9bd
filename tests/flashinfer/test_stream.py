"""FlashInfer's kernels on Paddle's current stream (issue 26), checked without a GPU.

FlashInfer's kernels launch on tvm-ffi's environment stream, which tvm-ffi sets only for torch
tensors; for Paddle tensors it stayed 0 while Paddle's work was queued on Paddle's current
stream.  torchproxy wraps the modules FlashInfer's JIT loads
(``integrations.flashinfer.install_stream_wrapping``): a call with a Paddle GPU tensor sets the
environment stream to Paddle's current handle for the call.  Here the GPU is faked at the two
points that need one (which argument is a GPU tensor, Paddle's stream handle); tvm-ffi's own
stream setter and getter are real.  gpu/flashinfer_check.py checks the real thing (a kernel on
a busy non-default Paddle stream)."""
import importlib.util
import json
import os
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HAVE_TVM = importlib.util.find_spec("tvm_ffi") is not None
# a real package, not this tests/flashinfer folder seen as a namespace package (origin None)
HAVE_FI = getattr(importlib.util.find_spec("flashinfer"), "origin", None) is not None
needs_tvm = pytest.mark.skipif(not HAVE_TVM, reason="apache-tvm-ffi not installed")

KDL_CUDA = 2
FAKE = 0x5EED00


@pytest.fixture
def fake_gpu(monkeypatch):
    """Every call looks as if its first argument were a Paddle tensor on GPU 1 whose current
    Paddle stream is FAKE + 1."""
    from torchproxy.integrations import tvm_ffi as tp
    monkeypatch.setattr(tp, "first_gpu_index", lambda args, PT=None: 1 if args else -1)
    monkeypatch.setattr(tp, "_stream_handle", lambda index: FAKE + index)
    return tp


def _seen_stream_fn(seen):
    import tvm_ffi
    get = tvm_ffi.core._env_get_current_stream

    def body(*args):
        seen.append(get(KDL_CUDA, 1))
        return len(args)
    return tvm_ffi.convert(body)  # a real tvm_ffi.Function


@needs_tvm
def test_plain_tvm_ffi_call_leaves_stream_zero_the_defect(fake_gpu):
    seen = []
    fn = _seen_stream_fn(seen)
    assert fn(1, 2) == 2 and seen == [0]  # what FlashInfer's launches saw before the fix


@needs_tvm
def test_wrapped_call_runs_on_paddles_stream_and_restores(fake_gpu):
    import tvm_ffi
    seen = []
    fn = fake_gpu.on_paddle_stream(_seen_stream_fn(seen))
    assert fn(1, 2, 3) == 3
    assert seen == [FAKE + 1]
    assert tvm_ffi.core._env_get_current_stream(KDL_CUDA, 1) == 0  # restored after the call
    assert fn() == 0 and seen == [FAKE + 1, 0]  # no GPU tensor: the function's own call


@needs_tvm
def test_wrapped_call_restores_on_error(fake_gpu):
    import tvm_ffi

    def boom(*args):
        raise ValueError("kernel failed")
    fn = fake_gpu.on_paddle_stream(tvm_ffi.convert(boom))
    with pytest.raises(ValueError, match="kernel failed"):
        fn(1)
    assert tvm_ffi.core._env_get_current_stream(KDL_CUDA, 1) == 0


@needs_tvm
def test_module_wraps_functions_once_and_passes_other_attributes(fake_gpu):
    import types
    seen = []
    f = _seen_stream_fn(seen)
    mod = fake_gpu.PaddleStreamModule(types.SimpleNamespace(rmsnorm=f, version=3))
    w = mod.rmsnorm
    assert w is mod.rmsnorm and w.__wrapped__ is f and mod.version == 3
    w(1)
    assert seen == [FAKE + 1]
    with pytest.raises(AttributeError):
        mod.missing
    assert list(mod._functions) == ["rmsnorm"]


@pytest.mark.skipif(not (HAVE_FI and HAVE_TVM), reason="flashinfer / tvm_ffi not installed")
def test_flashinfer_jit_loader_is_wrapped_under_the_proxy():
    """``torchproxy.enable(scope={"flashinfer"})`` + ``import flashinfer``: the hook installs
    the wrapper; a module FlashInfer's JitSpec.load returns runs its functions on Paddle's
    stream (tvm_ffi.load_module replaced by a module of one Python-made tvm-ffi function)."""
    code = f"""
import json, types, paddle, torchproxy, tvm_ffi
torchproxy.enable(scope={{"flashinfer"}})
import flashinfer, flashinfer.jit.core as core
from torchproxy.integrations import tvm_ffi as tp
installed = getattr(core.JitSpec.load, "__torchproxy__", False)
seen = []
get = tvm_ffi.core._env_get_current_stream
f = tvm_ffi.convert(lambda *a: seen.append(get(2, 0)) or 0)
core.tvm_ffi.load_module = lambda path: types.SimpleNamespace(rmsnorm=f)
mod = core.JitSpec.load(None, "norm.so")
tp.first_gpu_index = lambda args, PT=None: 0
tp._stream_handle = lambda index: {FAKE}
mod.rmsnorm(paddle.ones([2]))
print("RESULT " + json.dumps({{"installed": installed, "type": type(mod).__name__,
                              "seen": seen, "after": get(2, 0)}}))
"""
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                       timeout=600, cwd=ROOT)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert p.returncode == 0 and lines, f"{p.stdout[-2000:]}\n{p.stderr[-4000:]}"
    res = json.loads(lines[-1][7:])
    assert res == {"installed": True, "type": "PaddleStreamModule", "seen": [FAKE],
                   "after": 0}
