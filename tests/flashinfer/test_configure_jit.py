"""torchproxy.integrations.flashinfer.configure_jit on fake toolkits (no nvcc, no FlashInfer)."""
import os

import pytest

from torchproxy.integrations import flashinfer as fi

VARS = ("CUDA_HOME", "CUDA_PATH", "FLASHINFER_CUDA_ARCH_LIST", "FLASHINFER_WORKSPACE_BASE",
        "FLASHINFER_EXTRA_CUDAFLAGS", "FLASHINFER_EXTRA_LDFLAGS", "TORCHPROXY_CUDA_EXTRA")


@pytest.fixture
def clean_env(monkeypatch):
    # configure_jit writes os.environ itself: put the whole environment back afterwards
    saved = dict(os.environ)
    for v in VARS:
        os.environ.pop(v, None)
    monkeypatch.setattr(fi, "SYSTEM_LIB_DIRS", [])       # this machine's driver (if any) aside
    monkeypatch.setattr(fi, "_site_dirs", lambda extra=(): list(extra))  # and its pip packages
    yield monkeypatch
    os.environ.clear()
    os.environ.update(saved)


def _touch(path):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    open(path, "w").close()
    return path


def _toolkit(tmp_path, headers=(), libs=()):
    home = tmp_path / "cuda"
    _touch(str(home / "include" / "cuda_runtime.h"))
    for h in headers:
        _touch(str(home / "include" / h))
    for lib in libs:
        _touch(str(home / "lib64" / lib))
    return str(home)


def test_complete_toolkit_sets_only_what_is_missing(tmp_path, clean_env):
    home = _toolkit(tmp_path, headers=fi.HEADERS, libs=("libcudart.so", "libcuda.so"))
    clean_env.setenv("CUDA_HOME", home)
    clean_env.setenv("FLASHINFER_WORKSPACE_BASE", "/user/choice")
    out = fi.configure_jit(arch="9.0a", workspace="/ignored", link_dir=str(tmp_path / "links"),
                           search=[])
    assert out["problems"] == []
    assert out["set"] == {"FLASHINFER_CUDA_ARCH_LIST": "9.0a"}   # the user's workspace is kept
    assert os.environ["FLASHINFER_WORKSPACE_BASE"] == "/user/choice"
    assert "FLASHINFER_EXTRA_CUDAFLAGS" not in os.environ        # headers are in the toolkit
    assert "FLASHINFER_EXTRA_LDFLAGS" not in os.environ          # libs are in $CUDA_HOME/lib64


def test_pip_headers_stub_and_versioned_libs(tmp_path, clean_env):
    home = _toolkit(tmp_path, libs=("libcudart.so.13",))           # only a versioned cudart
    extra = tmp_path / "extra"
    for h in fi.HEADERS:
        _touch(str(extra / "nvidia" / "cu13" / "include" / h))
    _touch(str(extra / "stubs" / "libcuda.so"))
    clean_env.setenv("CUDA_HOME", home)
    clean_env.setenv("TORCHPROXY_CUDA_EXTRA", str(extra))
    links = tmp_path / "links"
    out = fi.configure_jit(arch="9.0a", workspace=str(tmp_path / "ws"), link_dir=str(links))
    assert out["problems"] == []
    inc = str(extra / "nvidia" / "cu13" / "include")
    assert out["found"]["cublasLt.h"] == inc and out["found"]["curand_kernel.h"] == inc
    assert os.environ["FLASHINFER_EXTRA_CUDAFLAGS"] == f"-I{inc}"
    # the linker wants libcudart.so: a link to the versioned file, in link_dir
    assert os.path.realpath(links / "libcudart.so") == os.path.join(home, "lib64", "libcudart.so.13")
    ld = os.environ["FLASHINFER_EXTRA_LDFLAGS"].split()
    assert f"-L{links}" in ld and f"-L{extra / 'stubs'}" in ld


def test_missing_pieces_are_named(tmp_path, clean_env):
    home = _toolkit(tmp_path)
    clean_env.setenv("CUDA_HOME", home)
    out = fi.configure_jit(arch="9.0a", workspace=str(tmp_path / "ws"), search=[])
    text = " | ".join(out["problems"])
    assert "cublasLt.h" in text and "curand_kernel.h" in text
    assert "libcudart.so not found" in text and "libcuda.so not found" in text
