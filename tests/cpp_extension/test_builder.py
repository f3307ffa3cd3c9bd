"""torch.utils.cpp_extension's builder on Paddle: include/library paths, Extension objects,
the error on Paddle without the compat C++ API, load_inline (functions=, is_python_module=),
torch.ops.load_library."""
import os

import numpy as np
import pytest
import setuptools

import torchproxy
from cppext_shared import CACHE, compat_available, needs_compat
from torchproxy.facade import cpp_extension as ce


def facade_torch():
    torchproxy.enable(scope={"tpx_cpp_builder_tests"})
    from torchproxy.facade import modules
    return modules.build()["torch"]


@needs_compat
def test_include_paths_put_torchproxy_headers_first():
    torch = facade_torch()
    paths = torch.utils.cpp_extension.include_paths()
    assert paths[0] == ce.INCLUDE_DIR
    assert os.path.isfile(os.path.join(paths[0], "torchproxy", "at_tensor_caster.h"))
    assert any(os.path.isfile(os.path.join(p, "torch", "extension.h")) for p in paths[1:])
    if ce.compat_available():  # then the generated at::Tensor overlay, before Paddle's headers
        assert paths[1] == ce.overlay_include_dir()
        assert os.path.isfile(os.path.join(paths[1], "ATen", "core", "TensorBody.h"))
    libs = torch.utils.cpp_extension.library_paths()
    assert any(os.path.isfile(os.path.join(p, "libpaddle.so")) for p in libs)


@needs_compat
def test_cpp_extension_is_a_setuptools_extension_against_paddle():
    torch = facade_torch()
    args = {"cxx": ["-O2"]}
    ext = torch.utils.cpp_extension.CppExtension("pkg._C", ["a.cpp"], extra_compile_args=args,
                                                 py_limited_api=True)
    assert isinstance(ext, setuptools.Extension)
    assert ext.name == "pkg._C" and ext.sources == ["a.cpp"] and ext.py_limited_api
    assert ext.include_dirs[0] == ce.INCLUDE_DIR
    assert "-l:libpaddle.so" in ext.extra_link_args
    assert args == {"cxx": ["-O2"]}, "the caller's dict must not be modified"
    assert issubclass(torch.utils.cpp_extension.BuildExtension, setuptools.Command)


def test_clear_error_without_the_compat_api(monkeypatch):
    torch = facade_torch()
    monkeypatch.setattr(ce, "compat_available", lambda: False)
    for call in (lambda: torch.utils.cpp_extension.load("x", ["x.cpp"]),
                 lambda: torch.utils.cpp_extension.load_inline("x", ""),
                 lambda: torch.utils.cpp_extension.CppExtension("x", ["x.cpp"]),
                 lambda: torch.utils.cpp_extension.include_paths()):
        with pytest.raises(ce.CppExtensionUnavailable, match=r"needs Paddle >= 3\.3\.0"):
            call()


@pytest.mark.skipif(compat_available(), reason="this Paddle ships the compat C++ API")
def test_old_paddle_refuses_with_the_minimum_version():
    torch = facade_torch()
    with pytest.raises(ce.CppExtensionUnavailable, match=r"Paddle >= 3\.3\.0.*does not ship"):
        torch.utils.cpp_extension.load("x", ["x.cpp"])


@needs_compat
def test_load_missing_source_and_bad_arguments():
    torch = facade_torch()
    with pytest.raises(FileNotFoundError, match="no source file"):
        torch.utils.cpp_extension.load("tpx_missing", ["/nonexistent/x.cpp"])
    with pytest.raises(ValueError, match="mutually exclusive"):
        torch.utils.cpp_extension.load("x", ["x.cpp"], is_python_module=True,
                                       is_standalone=True)
    with pytest.raises(ValueError, match="functions"):
        torch.utils.cpp_extension.load_inline("tpx_badfn", "", functions=3,
                                              build_directory=CACHE)


def test_load_library_missing_file_is_oserror():
    torch = facade_torch()
    with pytest.raises(OSError):
        torch.ops.load_library("/nonexistent/libnothing.so")


# the builds below are about load_inline's behaviour, not the code: no debug info, no
# optimisation (setuptools' default "-g -O3" was most of these tests' time)
FAST = ["-O0", "-g0"]

INLINE = """
at::Tensor twice(const at::Tensor& x) {
  TORCH_CHECK(x.scalar_type() == at::kFloat, "twice: expected float32, got another dtype");
  at::Tensor c = x.contiguous();
  at::Tensor r = torch::empty(c.sizes(), c.options());
  const float* p = c.data_ptr<float>();
  float* q = r.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); i++) q[i] = 2 * p[i];
  return r;
}
TORCH_LIBRARY(tpxinline, m) { m.def("twice(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(tpxinline, CPU, m) { m.impl("twice", &twice); }
"""


@needs_compat
def test_load_inline_functions_and_library_mode():
    """One build (cached): load_inline(functions=) gives a pybind11 module whose functions take
    paddle.Tensor (the CPU caster); the same library loaded with is_python_module=False
    returns its path and its TORCH_LIBRARY operator is torch.ops.tpxinline.twice."""
    torch = facade_torch()
    build = os.path.join(CACHE, "load_inline")
    os.makedirs(build, exist_ok=True)
    m = torch.utils.cpp_extension.load_inline("tpx_inline", INLINE, functions=["twice"],
                                              build_directory=build, extra_cflags=FAST)
    x = torch.tensor([[1.0, -2.0], [3.5, 4.0]])
    np.testing.assert_array_equal(m.twice(x).numpy(), 2 * x.numpy())
    np.testing.assert_array_equal(m.twice(x.t()).numpy(), 2 * x.numpy().T)
    assert m.twice.__doc__ and "twice" in m.twice.__doc__
    with pytest.raises(RuntimeError, match="twice: expected float32"):
        m.twice(x.double())
    path = torch.utils.cpp_extension.load_inline("tpx_inline", INLINE, functions=["twice"],
                                                 build_directory=build, is_python_module=False,
                                                 extra_cflags=FAST)
    assert path == os.path.join(build, "tpx_inline.so")
    assert os.path.realpath(path) in torch.ops.loaded_libraries
    np.testing.assert_array_equal(torch.ops.tpxinline.twice.default(x).numpy(), 2 * x.numpy())
    with pytest.raises(RuntimeError, match="^twice: expected float32"):
        torch.ops.tpxinline.twice(x.double())


RELOAD = """
#include <torch/extension.h>
int64_t f(int64_t x) { return x + %d; }
"""


@needs_compat
def test_load_inline_again_with_new_source_runs_the_new_code(tmp_path):
    """Issue 19 item 21: the same name with new source in one process is rebuilt AND loaded (real
    torch 2.13 names the rebuild <name>_v1: dlopen of the old path would return the old code);
    the same source again reuses that build."""
    torch = facade_torch()
    build = str(tmp_path)
    name = f"tpx_reload_{os.getpid()}"
    m1 = torch.utils.cpp_extension.load_inline(name, RELOAD % 1, functions=["f"],
                                               build_directory=build, extra_cflags=FAST)
    assert (m1.__name__, m1.f(10)) == (name, 11)
    m2 = torch.utils.cpp_extension.load_inline(name, RELOAD % 2, functions=["f"],
                                               build_directory=build, extra_cflags=FAST)
    assert (m2.__name__, m2.f(10)) == (f"{name}_v1", 12)
    assert m1.f(10) == 11  # the first module keeps its own code
    m3 = torch.utils.cpp_extension.load_inline(name, RELOAD % 2, functions=["f"],
                                               build_directory=build, extra_cflags=FAST)
    assert (m3.__name__, m3.f(10)) == (f"{name}_v1", 12)
