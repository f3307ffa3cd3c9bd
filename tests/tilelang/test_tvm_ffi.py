"""Paddle tensors into tvm-ffi functions, zero-copy; tvm_ffi never gets the facade.

Needs apache-tvm-ffi and a C++ compiler (load_inline builds a tiny library, cached in
a temporary directory per session)."""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

tvm_ffi = pytest.importorskip("tvm_ffi")
import tvm_ffi.cpp  # noqa: E402

import paddle  # noqa: E402

from torchproxy.integrations import tvm_ffi as tp_tvm_ffi  # noqa: E402

PADDLE3 = int(paddle.__version__.split(".")[0]) >= 3 or paddle.__version__.startswith("0.0")

# y[i] = 2 * x[i] + i, written through the raw data pointers: if the tvm-ffi tensor were a
# copy, the Paddle output would keep its initial values.
_SRC = r"""
#include <tvm/ffi/container/tensor.h>
void axpi(tvm::ffi::TensorView x, tvm::ffi::TensorView y) {
  TVM_FFI_ICHECK(x.ndim() == 1 && y.ndim() == 1 && x.size(0) == y.size(0));
  DLDataType f32{kDLFloat, 32, 1};
  TVM_FFI_ICHECK(x.dtype() == f32 && y.dtype() == f32);
  const float* xp = static_cast<const float*>(x.data_ptr());
  float* yp = static_cast<float*>(y.data_ptr());
  for (int64_t i = 0; i < x.size(0); ++i) yp[i] = 2.0f * xp[i] + static_cast<float>(i);
}
"""


@pytest.fixture(scope="module")
def axpi(tmp_path_factory):
    mod = tvm_ffi.cpp.load_inline("torchproxy_axpi", cpp_sources=_SRC, functions=["axpi"],
                                  build_directory=str(tmp_path_factory.mktemp("tvm_ffi_build")))
    return mod.axpi


def test_paddle_tensor_view_shares_memory():
    x = paddle.to_tensor(np.arange(6, dtype="float32"))
    t = tp_tvm_ffi.to_tvm_ffi(x)
    # tvm_ffi.Tensor has no data_ptr in Python: numpy reads the address through DLPack
    assert np.from_dlpack(t).ctypes.data == x.data_ptr()
    assert tuple(t.shape) == (6,) and str(t.dtype) == "float32"
    back = tp_tvm_ffi.from_tvm_ffi(t)
    assert isinstance(back, paddle.Tensor)
    np.testing.assert_array_equal(back.numpy(), np.arange(6, dtype="float32"))
    if PADDLE3:  # the way back is a view too (2.6's from_dlpack copies)
        assert back.data_ptr() == x.data_ptr()


def test_function_writes_into_paddle_memory(axpi):
    x_np = np.random.default_rng(0).standard_normal(37).astype("float32")
    x = paddle.to_tensor(x_np)
    y = paddle.full([37], -1.0, dtype="float32")
    ptr = y.data_ptr()
    tp_tvm_ffi.call(axpi, x, y)
    assert y.data_ptr() == ptr
    np.testing.assert_allclose(y.numpy(), 2 * x_np + np.arange(37, dtype="float32"), rtol=1e-6)


def test_paddle3_tensor_passes_directly(axpi):
    """Paddle >= 3 tensors have __dlpack__: tvm-ffi takes them with no helper at all; so do
    Paddle 2.6 tensors once torchproxy's DLPack C exchange table is on paddle.Tensor."""
    if not hasattr(paddle.Tensor, "__dlpack__") and not tp_tvm_ffi.install_exchange_api():
        pytest.skip("Paddle < 3 has no Tensor.__dlpack__ and torchproxy._cdlpack is not built "
                    "(use torchproxy.integrations.tvm_ffi.call)")
    x = paddle.to_tensor(np.ones(4, "float32"))
    y = paddle.zeros([4], dtype="float32")
    axpi(x, y)
    np.testing.assert_array_equal(y.numpy(), [2, 3, 4, 5])


def test_paddle_stream_is_a_no_op_on_cpu():
    x = paddle.to_tensor(np.ones(2, "float32"))
    with tp_tvm_ffi.paddle_stream(x):
        pass


_BLOCKED_PROBE = textwrap.dedent("""
    import sys, types
    import torchproxy
    torchproxy.enable(scope={"tvm_ffi", "probe_pkg"})   # even named in scope: blocked wins
    from torchproxy.facade.modules import FacadeModule
    import paddle
    import tvm_ffi
    # a module inside tvm_ffi imports torch: it must get real torch or ImportError
    code = "try:\\n    import torch\\n    got = torch\\nexcept ImportError as e:\\n    got = e\\n"
    ns = {"__name__": "tvm_ffi._probe"}
    exec(code, ns)
    got = ns["got"]
    facade = isinstance(got, FacadeModule)
    # the scoped probe gets the facade, for contrast
    ns2 = {"__name__": "probe_pkg.m"}
    exec("import torch\\n", ns2)
    print("TVMFFI", type(got).__name__, bool(facade), getattr(got, "__file__", None) is not None)
    print("SCOPED", isinstance(ns2["torch"], FacadeModule))

""")


def test_tvm_ffi_is_blocked_from_the_facade():
    out = subprocess.run([sys.executable, "-c", _BLOCKED_PROBE], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr[-3000:]
    lines = dict(line.split(" ", 1) for line in out.stdout.splitlines() if " " in line)
    kind, facade, has_file = lines["TVMFFI"].split()
    assert facade == "False"
    # real torch (a module with a file) when it is installed, ImportError when it is not
    assert (kind == "module" and has_file == "True") or kind in ("ImportError", "ModuleNotFoundError")
    assert lines["SCOPED"] == "True"

