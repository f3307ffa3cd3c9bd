"""FlashInfer under the proxy on a machine without a GPU: import, and the norm JIT build.

Needs the `flashinfer` package (flashinfer-python-paddle 0.4.1.1, or upstream
flashinfer-python) and apache-tvm-ffi; skipped with the reason otherwise.  The build test
needs nvcc plus cuBLAS/cuRAND headers and a libcuda (or stub) to link; see
tests/flashinfer/setup_env.sh for the exact set-up.  The GPU run is gpu/flashinfer_check.py.
Each test runs FlashInfer in a subprocess: enabling scope {"flashinfer"} and importing it
would otherwise stay in the pytest process.
"""
import importlib.util
import json
import os
import subprocess
import sys

import numpy as np
import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
HAVE_FI = importlib.util.find_spec("flashinfer") is not None
HAVE_TVM = importlib.util.find_spec("tvm_ffi") is not None
needs_fi = pytest.mark.skipif(
    not (HAVE_FI and HAVE_TVM),
    reason="flashinfer / tvm_ffi not installed (bash tests/flashinfer/setup_env.sh)")
EXTRA = os.environ.get("TORCHPROXY_CUDA_EXTRA", "/opt/cuda-extra")  # headers + libcuda stub


def _run(code: str, env=None, timeout=600):
    env = dict(os.environ, **(env or {}))
    env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                       env=env, timeout=timeout, cwd=ROOT)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert p.returncode == 0 and lines, f"rc={p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-5000:]}"
    return json.loads(lines[-1][7:])


@needs_fi
def test_import_under_proxy(tmp_path):
    res = _run(f"""
import json, sys, paddle, torchproxy
from torchproxy.integrations.flashinfer import configure_jit
configure_jit(arch="9.0a", workspace={str(tmp_path)!r})
torchproxy.enable(scope={{"flashinfer"}})
with torchproxy.trace() as t:
    import flashinfer, flashinfer.norm
print("RESULT " + json.dumps({{
    "version": flashinfer.__version__,
    "facade": getattr(flashinfer.norm.torch, "__torchproxy__", False),
    "real_torch_loaded_by_flashinfer": "torch" in sys.modules and not getattr(sys.modules["torch"], "__torchproxy__", False) and "flashinfer" in str(getattr(sys.modules["torch"], "__file__", "")),
    "has_rmsnorm": callable(flashinfer.norm.rmsnorm),
    "missing": t.summary()["missing"],
    "used": len(t.summary()["used"])}}))
""")
    assert res["facade"] is True
    assert res["has_rmsnorm"]
    # names FlashInfer looks up defensively at import (upstream 0.7: `hasattr(torch,
    # "float4_e2m1fn_x2")` in utils.py, `torch.cuda.CUDAGraph` under contextlib.suppress in
    # api_logging.py); the Paddle port 0.4.1.1 touches no missing name at all
    assert set(res["missing"]) <= {"torch.float4_e2m1fn_x2", "torch.cuda.CUDAGraph"}, res["missing"]
    assert res["used"] >= 10  # the trace saw flashinfer reading facade names


def _jit_ready():
    import shutil
    if shutil.which("nvcc") is None:
        return "nvcc not on PATH"
    sys.path.insert(0, ROOT)
    from torchproxy.integrations.flashinfer import configure_jit
    saved = dict(os.environ)
    try:
        cfg = configure_jit(arch="9.0a", workspace="/tmp/unused", search=[EXTRA])
    finally:
        os.environ.clear()
        os.environ.update(saved)
    return "; ".join(cfg["problems"])


@needs_fi
def test_norm_module_builds_for_sm90(tmp_path):
    problem = _jit_ready()
    if problem:
        pytest.skip(f"JIT toolchain incomplete: {problem} (bash tests/flashinfer/setup_env.sh)")
    res = _run(f"""
import json, os, re, time, paddle, torchproxy
from torchproxy.integrations.flashinfer import configure_jit
cfg = configure_jit(arch="9.0a", workspace={str(tmp_path)!r}, search=[{EXTRA!r}])
torchproxy.enable(scope={{"flashinfer"}})
import flashinfer
spec = flashinfer.jit.norm.gen_norm_module()
t = time.time()
spec.build(verbose=False)
so = spec.get_library_path()
data = open(so, "rb").read()
print("RESULT " + json.dumps({{"so": str(so), "seconds": time.time() - t,
    "archs": sorted({{m.decode() for m in re.findall(rb"sm_[0-9]+a?", data)}}),
    "symbols": [s for s in ("__tvm_ffi_rmsnorm", "__tvm_ffi_fused_add_rmsnorm") if s.encode() in data],
    "ninja": open(spec.ninja_path).read()}}))
""", env={"MAX_JOBS": "1"}, timeout=900)
    assert os.path.exists(res["so"]) and str(tmp_path) in res["so"]
    assert res["archs"] == ["sm_90a"], res["archs"]
    assert res["symbols"] == ["__tvm_ffi_rmsnorm", "__tvm_ffi_fused_add_rmsnorm"]
    # the ABI flag came from the facade's torch._C._GLIBCXX_USE_CXX11_ABI
    assert "-D_GLIBCXX_USE_CXX11_ABI=1" in res["ninja"]


def test_dlpack_methods_paddle26_path(monkeypatch):
    """Tensor.__dlpack__ / __dlpack_device__ as built for Paddle 2.6 (no native ones)."""
    import paddle
    from torchproxy.facade import cpp_extension as ce
    monkeypatch.setattr(ce, "_NATIVE_DLPACK", None)
    monkeypatch.setattr(ce, "_NATIVE_DLPACK_DEVICE", None)
    x = paddle.to_tensor(np.arange(12, dtype=np.float32).reshape(3, 4))
    assert ce.__dlpack_device__(x) == (1, 0)

    class Producer:  # what a DLPack consumer sees: the torch methods, bound to x
        def __dlpack__(self, **kw):
            return ce.__dlpack__(x, **kw)

        def __dlpack_device__(self):
            return ce.__dlpack_device__(x)

    y = np.from_dlpack(Producer())
    np.testing.assert_array_equal(y, np.arange(12, dtype=np.float32).reshape(3, 4))
    with pytest.raises(BufferError):
        ce.__dlpack__(x, dl_device=(2, 0))
    with pytest.raises(BufferError):
        ce.__dlpack__(x, copy=True)


def test_toolchain_names_match_real_torch():
    from torchproxy.facade import cpp_extension as ce
    real = pytest.importorskip("torch.utils.cpp_extension")
    for compiler in ("c++", "gcc", "/no/such/compiler"):
        assert ce.check_compiler_is_gcc(compiler) == real.check_compiler_is_gcc(compiler)
    assert ce.get_cxx_compiler() == real.get_cxx_compiler()


_TVM_CPU = r'''
import json, os, sys, numpy as np
import paddle
if os.environ.get("STRIP_NATIVE_DLPACK"):
    # play Paddle 2.6 (no DLPack methods, no tvm-ffi exchange API) on a newer Paddle
    for n in ("__dlpack__", "__dlpack_device__", "__dlpack_c_exchange_api__", "__tvm_ffi_env_stream__"):
        if n in paddle.Tensor.__dict__:
            delattr(paddle.Tensor, n)
import torchproxy
torchproxy.enable(scope={"__main__"})
import tvm_ffi, tvm_ffi.cpp
src = """
#include <tvm/ffi/container/tensor.h>
#include <tvm/ffi/function.h>
void add_one(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  const float* a = static_cast<const float*>(x.data_ptr());
  float* b = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.size(0); ++i) b[i] = a[i] + 1;
}
TVM_FFI_DLL_EXPORT_TYPED_FUNC(add_one, add_one);
"""
mod = tvm_ffi.cpp.load_inline(name="tp_add_one", cpp_sources=src, build_directory=sys.argv[1])
x = paddle.to_tensor(np.arange(5, dtype=np.float32))
y = paddle.empty([5], dtype="float32")
mod.add_one(x, y)   # Paddle tensors in, written in place through DLPack
from torchproxy.facade import dispatch  # the installed attribute is the dispatcher: ask it
impl = (dispatch.info(paddle.Tensor.__dict__["__dlpack__"]) or (None, None))[1]
print("RESULT " + json.dumps({"y": y.numpy().tolist(),
      "facade_dlpack": getattr(impl, "__module__", "") == "torchproxy.facade.cpp_extension"}))
'''


@pytest.fixture(scope="module")
def tvm_build_dir(tmp_path_factory):
    # one build of the kernel for both paths (the source is the same; tvm-ffi's ninja build
    # skips an up-to-date one): the compile was most of each case's time
    return str(tmp_path_factory.mktemp("tvm_ffi_build"))


@pytest.mark.skipif(not HAVE_TVM, reason="apache-tvm-ffi not installed")
@pytest.mark.parametrize("strip", [False, True], ids=["paddle-native", "paddle26-path"])
def test_tvm_ffi_kernel_reads_and_writes_paddle_tensors(tmp_path, tvm_build_dir, strip):
    """What FlashInfer's kernels rely on, on CPU: a tvm-ffi function called with Paddle
    tensors reads one and writes the other in place (the 2.6 path: the facade's __dlpack__)."""
    import shutil
    if shutil.which(os.environ.get("CXX", "c++")) is None:
        pytest.skip("no C++ compiler")
    script = tmp_path / "t.py"
    script.write_text(_TVM_CPU)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    if strip:
        env["STRIP_NATIVE_DLPACK"] = "1"
    p = subprocess.run([sys.executable, str(script), tvm_build_dir], capture_output=True,
                       text=True, env=env, timeout=600)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert p.returncode == 0 and lines, p.stderr[-4000:]
    res = json.loads(lines[-1][7:])
    assert res["y"] == [1.0, 2.0, 3.0, 4.0, 5.0]
    if strip:
        assert res["facade_dlpack"] is True


_WRAPPERS = r'''
import json, sys
import numpy as np, paddle, torchproxy
from torchproxy.integrations.flashinfer import configure_jit
configure_jit(arch="9.0a", workspace=sys.argv[1])
torchproxy.enable(scope={"flashinfer"})
import flashinfer, flashinfer.norm, flashinfer.activation
calls = []

class RecordingModule:
    """Stands in for the compiled tvm-ffi module (no GPU here): records what FlashInfer's
    Python wrapper hands the kernel."""
    def __getattr__(self, name):
        def kernel(*args):
            calls.append([name] + [[list(a.shape), str(a.dtype), a.place.is_cpu_place()]
                                   if isinstance(a, paddle.Tensor) else a for a in args])
        return kernel

flashinfer.norm.get_norm_module = lambda: RecordingModule()
flashinfer.activation.get_act_and_mul_module = lambda name: RecordingModule()
f16 = lambda *s: paddle.to_tensor(np.ones(s, np.float16))
x, r, w = f16(99, 1024), f16(99, 1024), f16(1024)
y = flashinfer.norm.rmsnorm(x, w, enable_pdl=False)
flashinfer.norm.fused_add_rmsnorm(x, r, w, eps=1e-6, enable_pdl=False)
z = flashinfer.activation.silu_and_mul(f16(99, 2048), enable_pdl=False)
print("RESULT " + json.dumps({"y": [type(y).__module__, list(y.shape), str(y.dtype)],
                              "z": [list(z.shape), str(z.dtype)], "calls": calls}))
'''


@needs_fi
def test_wrappers_hand_kernels_paddle_tensors(tmp_path):
    """FlashInfer's Python wrappers under the proxy: outputs allocated by the facade with the
    shape/dtype/device the kernel expects (torch.Size arithmetic, dtype.itemsize, .device)."""
    script = tmp_path / "w.py"
    script.write_text(_WRAPPERS)
    env = dict(os.environ, PYTHONPATH=ROOT + os.pathsep + os.environ.get("PYTHONPATH", ""))
    p = subprocess.run([sys.executable, str(script), str(tmp_path / "ws")], capture_output=True,
                       text=True, env=env, timeout=600)
    lines = [ln for ln in p.stdout.splitlines() if ln.startswith("RESULT ")]
    assert p.returncode == 0 and lines, p.stderr[-4000:]
    res = json.loads(lines[-1][7:])
    assert res["y"][1:] == [[99, 1024], "paddle.float16"] and res["y"][0].startswith("paddle")
    assert res["z"] == [[99, 1024], "paddle.float16"]
    t16 = lambda *s: [list(s), "paddle.float16", True]
    assert res["calls"] == [
        ["rmsnorm", t16(99, 1024), t16(99, 1024), t16(1024), 1e-06, False],
        ["fused_add_rmsnorm", t16(99, 1024), t16(99, 1024), t16(1024), 1e-06, False],
        ["silu_and_mul", t16(99, 1024), t16(99, 2048), False],
    ]
