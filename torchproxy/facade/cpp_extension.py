"""``torch.utils.cpp_extension`` and the other names JIT-built extensions ask torch for.

Libraries such as FlashInfer (>= 0.4) JIT-compile their CUDA code with their own ninja files
against tvm-ffi / DLPack, not libtorch; what they ask torch for is the toolchain
(``CUDA_HOME``, ``get_cxx_compiler``, ``check_compiler_is_gcc``), the C++ ABI to compile with
(``torch._C._GLIBCXX_USE_CXX11_ABI``) and, at call time, a DLPack view of each tensor
(``Tensor.__dlpack__`` / ``__dlpack_device__``, which tvm-ffi reads).

What is NOT here, on purpose: ``load``, ``load_inline``, ``CppExtension``, ``CUDAExtension``,
``BuildExtension``, ``include_paths``, ``library_paths``.  They build against libtorch's C++
API (``torch/extension.h``, ATen), which Paddle does not have; handing out Paddle's include
paths under torch's name would only move the failure into the C++ compiler.  Scoped code that
uses them gets ``NotProvidedError`` (see ``gaps.toml``); the way out is a tvm-ffi / DLPack
extension, or ``paddle.utils.cpp_extension`` for a Paddle custom op.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import paddle

from .registry import module, tensor_method, value, adapter

module("torch.utils")
module("torch.utils.cpp_extension")


def _find_cuda_home():
    """torch's search order: $CUDA_HOME / $CUDA_PATH, then nvcc on PATH, then /usr/local/cuda."""
    home = os.environ.get("CUDA_HOME") or os.environ.get("CUDA_PATH")
    if home is None:
        nvcc = shutil.which("nvcc")
        if nvcc is not None:
            home = os.path.dirname(os.path.dirname(nvcc))
        else:
            home = "/usr/local/cuda"
            if not os.path.exists(home):
                home = None
    return home


# torch sets CUDA_HOME only in CUDA builds (a CPU wheel says None even with nvcc installed);
# the same rule with Paddle's build: paddlepaddle (CPU) -> None, paddlepaddle-gpu -> found.
value("torch.utils.cpp_extension.CUDA_HOME",
      _find_cuda_home() if paddle.is_compiled_with_cuda() else None,
      note="found as torch does, when Paddle is a CUDA build; None on a CPU build")
value("torch.utils.cpp_extension.ROCM_HOME",
      (os.environ.get("ROCM_HOME") or os.environ.get("ROCM_PATH") or "/opt/rocm")
      if paddle.is_compiled_with_rocm() else None)


@adapter("torch.utils.cpp_extension.get_cxx_compiler")
def get_cxx_compiler() -> str:
    if sys.platform == "win32":
        return os.environ.get("CXX", "cl")
    return os.environ.get("CXX", "c++")


@adapter("torch.utils.cpp_extension.check_compiler_is_gcc")
def check_compiler_is_gcc(compiler) -> bool:
    """True when ``compiler -v`` reports GCC (both ``COLLECT_GCC=`` and ``gcc version``)."""
    if not sys.platform.startswith("linux"):
        return False
    env = dict(os.environ, LC_ALL="C")  # unlocalized output
    text = None
    for flag in ("-v", "--version"):
        try:
            text = subprocess.check_output([compiler, flag], stderr=subprocess.STDOUT,
                                           env=env).decode("utf-8", "ignore")
            break
        except (subprocess.CalledProcessError, OSError):
            continue
    if text is None:
        return False
    return re.search(r"^COLLECT_GCC=(.*)$", text, re.MULTILINE) is not None \
        and "gcc version" in text


# Paddle (>= 2.0) and its extensions use the C++11 ABI: paddle.utils.cpp_extension compiles
# with -D_GLIBCXX_USE_CXX11_ABI=1, and libtvm_ffi exports __cxx11 symbols.  Extensions that
# copy torch's flag into their build get the ABI that links with what is loaded here.
value("torch._C._GLIBCXX_USE_CXX11_ABI", True,
      note="Paddle's C++ ABI (always the C++11 ABI), not a libtorch build's")


# -- DLPack: how tvm-ffi (and any DLPack consumer) reads a tensor ----------------------------
# Paddle >= 3 has __dlpack__ / __dlpack_device__ (and tvm-ffi's faster C exchange API); 2.6
# has only paddle.utils.dlpack.to_dlpack.  These entries are the torch methods: on Paddle 3
# they defer to Paddle's own, on 2.6 they are built from to_dlpack.
_NATIVE_DLPACK = paddle.Tensor.__dict__.get("__dlpack__")
_NATIVE_DLPACK_DEVICE = paddle.Tensor.__dict__.get("__dlpack_device__")

_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST = 1, 2, 3


@tensor_method("__dlpack_device__")
def __dlpack_device__(self):
    """(DLDeviceType, device index), as torch's: CPU (1, 0), CUDA (2, i), pinned (3, 0)."""
    if _NATIVE_DLPACK_DEVICE is not None:
        kind, index = _NATIVE_DLPACK_DEVICE(self)
        return int(kind), int(index)
    place = self.place
    if place.is_gpu_place():
        return _KDL_CUDA, place.gpu_device_id()
    if place.is_cuda_pinned_place():
        return _KDL_CUDA_HOST, 0
    if place.is_cpu_place():
        return _KDL_CPU, 0
    raise BufferError(f"__dlpack_device__: Paddle place {place} has no DLPack device type")


@tensor_method("__dlpack__", note="Paddle 2.6: a legacy (unversioned) capsule from "
                                  "paddle.utils.dlpack.to_dlpack; a consumer stream= waits for "
                                  "Paddle's current stream")
def __dlpack__(self, *, stream=None, max_version=None, dl_device=None, copy=None):
    if _NATIVE_DLPACK is not None:
        kwargs = {k: v for k, v in (("stream", stream), ("max_version", max_version),
                                    ("dl_device", dl_device), ("copy", copy)) if v is not None}
        return _NATIVE_DLPACK(self, **kwargs)
    if dl_device is not None and tuple(dl_device) != __dlpack_device__(self):
        raise BufferError(f"__dlpack__: cross-device export to {dl_device} is not supported")
    if copy:
        raise BufferError("__dlpack__(copy=True) is not supported on Paddle 2.6")
    if stream is not None and stream != -1 and self.place.is_gpu_place():
        # torch: make the data ready for the consumer's stream.  Paddle 2.6 cannot record an
        # event on a foreign stream from Python, so wait for Paddle's stream on the host.
        paddle.device.cuda.current_stream(self.place.gpu_device_id()).synchronize()
    return paddle.utils.dlpack.to_dlpack(self)
