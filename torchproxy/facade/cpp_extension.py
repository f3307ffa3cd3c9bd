"""``torch.utils.cpp_extension`` and the other names extensions ask torch for.

Two kinds of extension reach this module:

- torch C++/CUDA extensions (``#include <torch/extension.h>``, ``at::Tensor``,
  ``TORCH_LIBRARY``, ``PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)``).  Paddle >= 3.3 ships a
  torch-compatible C++ API under ``paddle/include/paddle/phi/api/include/compat/``
  (``torch/extension.h``, ``torch/library.h``, ``ATen/``, ``c10/``); ``CppExtension``,
  ``CUDAExtension``, ``BuildExtension``, ``load``, ``load_inline``, ``include_paths`` and
  ``library_paths`` build against it through ``paddle.utils.cpp_extension``'s compiler setup,
  with torch's naming and return conventions.  torchproxy's own include directory
  (``torchproxy/include``) comes first on every include path: it adds the pybind11 caster
  ``at::Tensor`` <-> ``paddle.Tensor`` that Paddle defines only in CUDA builds, and headers
  torch has and the compat API lacks (``ATen/Operators.h``).  Detected by feature (the file
  ``compat/torch/extension.h``), not by version; on older Paddle every builder raises
  :class:`CppExtensionUnavailable` naming the minimum version.  See docs/cpp-extensions.md.
- JIT-built extensions on tvm-ffi / DLPack (FlashInfer >= 0.4) ask only for the toolchain
  (``CUDA_HOME``, ``get_cxx_compiler``, ``check_compiler_is_gcc``), the C++ ABI
  (``torch._C._GLIBCXX_USE_CXX11_ABI``) and, at call time, a DLPack view of each tensor
  (``Tensor.__dlpack__`` / ``__dlpack_device__``).
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys

import paddle

from ..paddle_shims import core_library_dir, dlpack_capsule
from .registry import module, tensor_method, torch_function, type_, value

module("torch.utils.cpp_extension")  # torch.utils itself: facade/misc.py


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


@torch_function("torch.utils.cpp_extension.get_cxx_compiler")
def get_cxx_compiler() -> str:
    if sys.platform == "win32":
        return os.environ.get("CXX", "cl")
    return os.environ.get("CXX", "c++")


@torch_function("torch.utils.cpp_extension.check_compiler_is_gcc")
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
    # paddle.utils.dlpack.to_dlpack's own capsule, without its @dygraph_only-wrapped
    # x.value() (3.4 us of 5.9 per tensor handed to tvm-ffi; paddle_shims.dlpack_capsule)
    return dlpack_capsule(self)


# -- torch C++/CUDA extensions on Paddle's torch-compatible C++ API ---------------------------
import copy
import hashlib
import importlib.util
import warnings

import setuptools
from setuptools.command.build_ext import build_ext as _setuptools_build_ext

with warnings.catch_warnings():  # Paddle warns at import when ccache is not installed
    warnings.simplefilter("ignore")
    from paddle.utils import cpp_extension as _pd_cpp
    from paddle.utils.cpp_extension import extension_utils as _pd_utils

#: the first Paddle release whose wheels ship compat/torch/extension.h (3.2.x ship 63 compat
#: headers but neither torch/extension.h nor torch/python.h; 3.0 and 3.1 ship none)
MIN_PADDLE = "3.3.0"
#: torchproxy's headers: the CPU at::Tensor pybind11 caster and headers the compat API lacks
INCLUDE_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                           "include")
_COMPAT_REL = os.path.join("paddle", "phi", "api", "include", "compat")


def compat_include_dir() -> str:
    return os.path.join(paddle.sysconfig.get_include(), _COMPAT_REL)


def compat_available() -> bool:
    """True when the installed Paddle ships the torch-compatible C++ API (by feature)."""
    return os.path.isfile(os.path.join(compat_include_dir(), "torch", "extension.h"))


# -- the at::Tensor overlay ---------------------------------------------------------------------
# Paddle's compat at::Tensor is a class in its own header (ATen/core/TensorBody.h), and C++ cannot
# add methods to a class from outside it.  torchproxy therefore generates, from the installed
# Paddle's header, a copy with <torchproxy/aten/tensor_methods.inc> (declarations) included inside
# the class body and <torchproxy/aten/ops.h> (the ATen supplement, definitions) after it, in a
# directory placed on the include path ahead of Paddle's.  Generated, not committed: it is always
# the installed Paddle's class (nothing to keep in sync by hand), and the generator refuses a
# header it cannot read the way it expects (docs/cpp-extensions.md, "How at::Tensor is extended").
_TENSOR_METHODS_INC = os.path.join(INCLUDE_DIR, "torchproxy", "aten", "tensor_methods.inc")
_CLASS_RE = re.compile(r"\bclass\s+Tensor\s*:\s*public\s+TensorBase\s*\{")


# Paddle 3.3's at::Tensor::slice fails without an end ("The length of axes (1) and length of ends
# (0) should be same": LLTM's d_X.slice(1, state_size)), ignores step, and is not const; the
# overlay replaces it with torch's semantics (negative and out-of-range bounds clamped as torch
# does).  The generator requires exactly one such method, so a Paddle that changes it is noticed.
_PADDLE_SLICE_RE = re.compile(r"at::Tensor\s+slice\s*\(\s*int64_t\s+dim\s*=\s*0\s*,")
_SLICE = """at::Tensor slice(int64_t dim = 0,
                   ::std::optional<int64_t> start = ::std::nullopt,
                   ::std::optional<int64_t> end = ::std::nullopt,
                   int64_t step = 1) const {
    // torchproxy (facade/cpp_extension.py, _SLICE): torch's Tensor::slice
    int64_t n = static_cast<int64_t>(tensor_.dims().size());
    TORCH_CHECK(n > 0, "slice() cannot be applied to a 0-dim tensor.");
    TORCH_CHECK(step > 0, "slice step must be positive");
    if (dim < 0) dim += n;
    int64_t size = tensor_.dims()[dim];
    int64_t s = start.value_or(0), e = end.value_or(size);
    if (s < 0) s += size;
    if (e < 0) e += size;
    s = s < 0 ? 0 : (s > size ? size : s);
    e = e < s ? s : (e > size ? size : e);
    if (step == 1)
      return Tensor(paddle::experimental::slice(tensor_, {dim}, {s}, {e}, {1}, {}));
    return Tensor(paddle::experimental::strided_slice(
        tensor_, {static_cast<int>(dim)}, {s}, {e}, {step}));
  }"""


class OverlayError(RuntimeError):
    """The installed Paddle's ATen/core/TensorBody.h is not what the overlay generator expects."""


def supplement_method_names() -> list[str]:
    """The at::Tensor methods tensor_methods.inc adds (its ``// tpx-methods:`` line)."""
    with open(_TENSOR_METHODS_INC) as f:
        for line in f:
            if line.startswith("// tpx-methods:"):
                return line.split("tpx-methods:", 1)[1].split()
    raise OverlayError(f"{_TENSOR_METHODS_INC} has no 'tpx-methods:' line")


def tensor_body_overlay(paddle_text: str) -> str:
    """The overlay of Paddle's ATen/core/TensorBody.h (its text given): the supplement's member
    declarations inside ``class Tensor``, its definitions after the header.  OverlayError when
    the class is not found once, its braces do not balance, or it already declares one of the
    supplement's methods (Paddle caught up: the supplement must drop that name)."""
    found = list(_CLASS_RE.finditer(paddle_text))
    if len(found) != 1:
        raise OverlayError(f"expected one 'class Tensor : public TensorBase {{' in Paddle's "
                           f"ATen/core/TensorBody.h, found {len(found)}")
    start = found[0].end()
    depth, i = 1, start
    while depth and i < len(paddle_text):  # the class's closing brace (bodies nest braces)
        depth += {"{": 1, "}": -1}.get(paddle_text[i], 0)
        i += 1
    if depth:
        raise OverlayError("unbalanced braces after 'class Tensor' in Paddle's TensorBody.h")
    close = i - 1
    body = paddle_text[start:close]
    # Paddle's own Tensor::slice, replaced (torch's semantics): see _SLICE below
    found = list(_PADDLE_SLICE_RE.finditer(body))
    if len(found) != 1:
        raise OverlayError(f"expected one 'at::Tensor slice(int64_t dim = 0, ...)' method in "
                           f"Paddle's at::Tensor, found {len(found)}")
    s0 = start + found[0].start()
    depth, j = 0, paddle_text.index("{", start + found[0].end())
    while True:  # the method's closing brace
        depth += {"{": 1, "}": -1}.get(paddle_text[j], 0)
        j += 1
        if depth == 0:
            break
    paddle_text = paddle_text[:s0] + _SLICE + paddle_text[j:]
    close += len(_SLICE) - (j - s0)
    body = paddle_text[start:close]
    clash = [n for n in supplement_method_names() if re.search(rf"\b{re.escape(n)}\s*\(", body)]
    if clash:
        raise OverlayError("Paddle's at::Tensor already declares " + ", ".join(clash) + ": remove "
                           "them from torchproxy/include/torchproxy/aten/tensor_methods.inc "
                           "and ops.h")
    head = paddle_text.find("#pragma once")
    head = 0 if head < 0 else head + len("#pragma once")
    return ("// generated by torchproxy (facade/cpp_extension.py, tensor_body_overlay) from "
            "Paddle's\n// ATen/core/TensorBody.h: do not edit\n"
            + paddle_text[:head] + "\n#include <torchproxy/aten/tensor_methods_prelude.h>\n"
            + paddle_text[head:close] + "\n#include <torchproxy/aten/tensor_methods.inc>\n"
            + paddle_text[close:] + "\n#include <torchproxy/aten/ops.h>\n")


def overlay_include_dir() -> str | None:
    """The directory holding the generated ATen/core/TensorBody.h for the installed Paddle
    (created once per Paddle header and supplement version), or None when Paddle has no such
    header.  Under $TORCHPROXY_CACHE_DIR (default ~/.cache/torchproxy)/cpp-overlay/."""
    src = os.path.join(compat_include_dir(), "ATen", "core", "TensorBody.h")
    if not os.path.isfile(src):
        return None
    with open(src) as f:
        text = f.read()
    with open(_TENSOR_METHODS_INC, "rb") as f:
        # the generator's own replacement text is part of what it generates
        digest = hashlib.sha256(text.encode() + b"\0" + f.read() + b"\0"
                                + _SLICE.encode()).hexdigest()[:16]
    root = os.environ.get("TORCHPROXY_CACHE_DIR") or os.path.join(
        os.path.expanduser("~"), ".cache", "torchproxy")
    out_dir = os.path.join(root, "cpp-overlay", digest)
    target = os.path.join(out_dir, "ATen", "core", "TensorBody.h")
    if not os.path.isfile(target):
        overlay = tensor_body_overlay(text)
        os.makedirs(os.path.dirname(target), exist_ok=True)
        tmp = f"{target}.{os.getpid()}.tmp"
        with open(tmp, "w") as f:
            f.write(overlay)
        os.replace(tmp, target)  # atomic: concurrent builds see the whole file or none
    return out_dir


def _torchproxy_includes() -> list[str]:
    """torchproxy's include directories, first on every extension's include path."""
    overlay = overlay_include_dir()
    return [INCLUDE_DIR] + ([overlay] if overlay else [])


class CppExtensionUnavailable(RuntimeError):
    """torch C++ extensions need a Paddle that ships the torch-compatible C++ API."""


def _require(what: str) -> None:
    if not compat_available():
        raise CppExtensionUnavailable(
            f"torch.utils.cpp_extension.{what} needs Paddle >= {MIN_PADDLE}: building a torch "
            f"C++ extension on Paddle uses its torch-compatible C++ API ({_COMPAT_REL}/"
            f"torch/extension.h), which Paddle {paddle.__version__} does not ship. Upgrade "
            f"(pip install 'paddlepaddle>={MIN_PADDLE}'), or port the extension to tvm-ffi/"
            "DLPack or to a Paddle custom op (paddle.utils.cpp_extension).")


def _wants_cuda(device_type) -> bool:
    if isinstance(device_type, bool):  # torch < 2.6: include_paths(cuda: bool = False)
        return device_type
    if device_type in ("cpu", None):
        return False
    if device_type == "cuda":
        return True
    raise ValueError(f"torchproxy: include_paths/library_paths device_type can be 'cpu' or "
                     f"'cuda' on Paddle, got {device_type!r}")


@torch_function("torch.utils.cpp_extension.include_paths",
                note="torchproxy/include, then Paddle's include dirs (with the compat "
                     "torch/ATen/c10 "
                     "headers); Paddle >= 3.3")
def include_paths(device_type="cpu", torch_include_dirs=True, *, cuda=None) -> list[str]:
    _require("include_paths")
    use_cuda = _wants_cuda(cuda if cuda is not None else device_type)
    return _torchproxy_includes() + list(_pd_utils.find_paddle_includes(use_cuda))


@torch_function("torch.utils.cpp_extension.library_paths",
                note="Paddle's library dirs (libpaddle.so); Paddle >= 3.3")
def library_paths(device_type="cpu", torch_include_dirs=True, cross_target_platform=None, *,
                  cuda=None) -> list[str]:
    _require("library_paths")
    return list(_pd_utils.find_paddle_libraries(_wants_cuda(cuda if cuda is not None
                                                            else device_type)))


def _extension(what, name, sources, args, kwargs, cuda):
    _require(what)
    if not isinstance(name, str):
        raise TypeError(f"{what}(name, sources, ...): name must be a str, got {name!r}")
    kwargs = dict(kwargs)
    for torch_only in ("dlink", "dlink_libraries"):  # torch CUDAExtension's device-link options
        if kwargs.pop(torch_only, None):
            raise NotImplementedError(f"torchproxy: {what}({torch_only}=...) is not provided")
    kwargs["include_dirs"] = _torchproxy_includes() + [os.fsdecode(d)
                                                       for d in kwargs.get("include_dirs", [])]
    kwargs["library_dirs"] = list(kwargs.get("library_dirs", []))
    kwargs["extra_link_args"] = list(kwargs.get("extra_link_args", []))
    extra = kwargs.get("extra_compile_args")
    if extra is None:
        extra = {"cxx": [], "nvcc": []} if cuda else []
    kwargs["extra_compile_args"] = copy.deepcopy(extra)  # Paddle appends to it in place
    kwargs = _pd_utils.normalize_extension_kwargs(kwargs, use_cuda=cuda)
    return setuptools.Extension(name, list(sources), *args, **kwargs)


@torch_function("torch.utils.cpp_extension.CppExtension",
                note="a setuptools.Extension against Paddle's compat C++ API and libpaddle; Paddle "
                     ">= 3.3")
def CppExtension(name, sources, *args, **kwargs):
    return _extension("CppExtension", name, sources, args, kwargs, cuda=False)


@torch_function("torch.utils.cpp_extension.CUDAExtension",
                note="as CppExtension, compiled with nvcc; needs a Paddle CUDA build >= 3.3")
def CUDAExtension(name, sources, *args, **kwargs):
    if not paddle.is_compiled_with_cuda():
        _require("CUDAExtension")
        raise RuntimeError("torch.utils.cpp_extension.CUDAExtension: this Paddle is a CPU build "
                           "(paddle.is_compiled_with_cuda() is False); install paddlepaddle-gpu")
    return _extension("CUDAExtension", name, sources, args, kwargs, cuda=True)


def _add_flags(ext, flags):
    if isinstance(ext.extra_compile_args, dict):
        for v in ext.extra_compile_args.values():
            v.extend(flags)
    else:
        ext.extra_compile_args.extend(flags)


class BuildExtension(_pd_cpp.BuildExtension):
    """torch's ``BuildExtension`` on Paddle's: Paddle's compiler setup (nvcc for .cu, the C++11
    ABI, ``-DPADDLE_EXTENSION_NAME``) with torch's outputs: module file names keep the Python
    ABI suffix (``no_python_abi_suffix=False`` as in torch), several extensions per setup(),
    no Paddle custom-op Python stubs, no ``_pd_`` renaming."""

    @classmethod
    def with_options(cls, **options):
        class cls_with_options(cls):
            def __init__(self, *args, **kwargs):
                kwargs.update(options)
                cls.__init__(self, *args, **kwargs)
        return cls_with_options

    def __init__(self, *args, **kwargs):
        _require("BuildExtension")
        no_suffix = kwargs.pop("no_python_abi_suffix", False)
        kwargs.pop("use_ninja", None)  # setuptools' compiler is used; torch's ninja is not
        _setuptools_build_ext.__init__(self, *args, **kwargs)
        self.no_python_abi_suffix = no_suffix
        self.output_dir = None
        self.contain_cuda_file = False

    def build_extensions(self):
        for ext in self.extensions:
            short = ext.name.split(".")[-1]
            _add_flags(ext, [f"-DTORCH_EXTENSION_NAME={short}", "-DTORCH_API_INCLUDE_EXTENSION_H"])
        super().build_extensions()

    def _record_op_info(self):  # Paddle's registers custom-op stubs (one extension only)
        self.contain_cuda_file = any(_pd_utils.is_cuda_file(os.path.abspath(s))
                                     for ext in self.extensions for s in ext.sources)

    def run(self):  # Paddle's adds a Python stub, renames to *_pd_.so and deletes the objects
        _setuptools_build_ext.run(self)


type_("torch.utils.cpp_extension.BuildExtension", BuildExtension,
      note="Paddle's BuildExtension with torch's output names; Paddle >= 3.3")


# -- JIT: load / load_inline ---------------------------------------------------------------------
# --force: load() runs this only when its hash of sources, flags and torchproxy's headers
# changed, and setuptools alone would skip objects newer than their .cpp (it does not track
# headers), keeping a stale library
_SETUP_TEMPLATE = """\
# written by torchproxy.facade.cpp_extension.load: builds {name} against Paddle
import sys
from setuptools import setup
from torchproxy.facade.cpp_extension import BuildExtension, CppExtension, CUDAExtension
ext = ({ctor})({name!r}, {sources!r},
    extra_compile_args={{"cxx": {cflags!r}, "nvcc": {cuda_cflags!r}}},
    extra_link_args={ldflags!r}, include_dirs={includes!r})
setup(name={name!r}, ext_modules=[ext],
      cmdclass={{"build_ext": BuildExtension.with_options(no_python_abi_suffix=True)}},
      script_args=["build_ext", "--force", "--build-lib", {build!r}, "--build-temp",
                   {temp!r}])
"""


def _default_build_root() -> str:
    root = os.environ.get("TORCH_EXTENSIONS_DIR")
    if root is None:
        root = os.path.join(os.path.expanduser("~"), ".cache", "torch_extensions")
    # never the directory real torch uses: a libtorch build there would not load on Paddle
    cu = "cu" if paddle.is_compiled_with_cuda() else "cpu"
    return os.path.join(root, f"py{sys.version_info.major}{sys.version_info.minor}_"
                              f"paddle{paddle.__version__}_{cu}")


def _build_hash(sources, parts) -> str:
    h = hashlib.sha256()
    for src in sources:
        with open(src, "rb") as f:
            h.update(src.encode() + b"\0" + f.read() + b"\0")
    for root, _, files in sorted(os.walk(INCLUDE_DIR)):
        for fn in sorted(files):
            with open(os.path.join(root, fn), "rb") as f:
                h.update(f.read())
    # the overlay's directory name is the hash of what it was generated from
    h.update(repr((parts, paddle.__version__, paddle.version.commit,
                   overlay_include_dir())).encode())
    return h.hexdigest()


def _jit(name, sources, extra_cflags, extra_cuda_cflags, extra_ldflags, extra_include_paths,
         build_directory, verbose, with_cuda, is_python_module, is_standalone, what):
    _require(what)
    if is_python_module and is_standalone:
        raise ValueError("`is_python_module` and `is_standalone` are mutually exclusive.")
    if is_standalone:
        raise NotImplementedError("torchproxy: load(is_standalone=True) (an executable linked "
                                  "against libtorch) is not provided")
    if isinstance(sources, str):
        sources = [sources]
    sources = [os.path.abspath(s) for s in sources]
    for s in sources:
        if not os.path.isfile(s):
            raise FileNotFoundError(f"torch.utils.cpp_extension.{what}: no source file {s}")
    if with_cuda is None:
        with_cuda = any(_pd_utils.is_cuda_file(s) for s in sources)
    if with_cuda and not paddle.is_compiled_with_cuda():
        raise RuntimeError(f"torch.utils.cpp_extension.{what}: CUDA sources need a Paddle CUDA "
                           "build; this Paddle is a CPU build")
    build_directory = os.path.abspath(build_directory or os.path.join(_default_build_root(), name))
    os.makedirs(build_directory, exist_ok=True)
    flags = [list(extra_cflags or []), list(extra_cuda_cflags or []), list(extra_ldflags or []),
             [os.path.abspath(p) for p in (extra_include_paths or [])]]
    digest = _build_hash(sources, (name, flags, bool(with_cuda)))
    name = _versioned_name(name, digest + build_directory)
    lib = os.path.join(build_directory, f"{name}.so")
    stamp = os.path.join(build_directory, f".torchproxy-build-hash-{name}")
    fresh = os.path.exists(lib) and os.path.exists(stamp) and open(stamp).read() == digest
    if not fresh:
        script = os.path.join(build_directory, f"{name}_setup.py")
        with open(script, "w") as f:
            f.write(_SETUP_TEMPLATE.format(
                name=name, sources=sources, ctor="CUDAExtension" if with_cuda else "CppExtension",
                cflags=flags[0], cuda_cflags=flags[1], ldflags=flags[2], includes=flags[3],
                build=build_directory, temp=os.path.join(build_directory, "build")))
        if verbose:
            print(f"torchproxy: building extension {name} in {build_directory} against Paddle "
                  f"{paddle.__version__}", file=sys.stderr)
        env = dict(os.environ)
        # the subprocess imports torchproxy from wherever this process does
        pkg_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
        env["PYTHONPATH"] = os.pathsep.join([pkg_root] + ([env["PYTHONPATH"]]
                                                          if env.get("PYTHONPATH") else []))
        proc = subprocess.run([sys.executable, script], cwd=build_directory, env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if verbose:
            print(proc.stdout, file=sys.stderr)
        if proc.returncode != 0 or not os.path.exists(lib):
            raise RuntimeError(f"Error building extension '{name}':\n"
                               + _compiler_errors(proc.stdout))
        with open(stamp, "w") as f:
            f.write(digest)
    if is_python_module:
        return _import_module(name, lib)
    from .library import load_library
    load_library(lib)
    return lib


# extension name -> (hash of sources, flags and build directory, version) last built here
_LOADED_VERSIONS: dict[str, tuple] = {}


def _versioned_name(name, digest):
    """torch's JIT versioning (torch/utils/_cpp_extension_versioner.py): a process cannot load a
    changed library at the path it loaded before (dlopen hands back the loaded one, so new source
    would silently run the old code); as in torch, a rebuild of ``name`` with other sources,
    flags or build directory in the same process gets the next name, ``<name>_v1``,
    ``<name>_v2``..., which is also its TORCH_EXTENSION_NAME.  (torch also bumps the version
    when only ``is_python_module`` changes; here the same library serves both modes.)"""
    last = _LOADED_VERSIONS.get(name)
    version = 0 if last is None else last[1] + (last[0] != digest)
    _LOADED_VERSIONS[name] = (digest, version)
    return name if version == 0 else f"{name}_v{version}"


def _compiler_errors(output: str) -> str:
    """The compiler's diagnostics without setuptools' command echo."""
    keep = [ln for ln in output.splitlines()
            if not ln.startswith(("running ", "copying ", "creating ", "Compiling user custom"))
            and "UserWarning" not in ln and "warnings.warn(" not in ln
            and "ccache" not in ln]
    text = "\n".join(keep)
    return text[-8000:] if len(text) > 8000 else text


def _import_module(name, lib):
    spec = importlib.util.spec_from_file_location(name, lib)
    module = importlib.util.module_from_spec(spec)
    try:
        spec.loader.exec_module(module)
    except ImportError as e:
        raise ImportError(f"torch.utils.cpp_extension.load: {lib} has no Python module "
                          f"initializer (PYBIND11_MODULE(TORCH_EXTENSION_NAME, m)); pass "
                          f"is_python_module=False for a TORCH_LIBRARY-only library ({e})") from e
    return module


@torch_function("torch.utils.cpp_extension.load",
                note="built with setuptools and Paddle's compiler flags in a subprocess (no "
                     "ninja); "
                     "cached per source/flag hash under $TORCH_EXTENSIONS_DIR/py3X_paddle<ver>_cpu")
def load(name, sources, extra_cflags=None, extra_cuda_cflags=None, extra_sycl_cflags=None,
         extra_ldflags=None, extra_include_paths=None, build_directory=None, verbose=False,
         with_cuda=None, with_sycl=None, is_python_module=True, is_standalone=False,
         keep_intermediates=True):
    if extra_sycl_cflags or with_sycl:
        raise NotImplementedError("torchproxy: SYCL extensions are not provided on Paddle")
    return _jit(name, sources, extra_cflags, extra_cuda_cflags, extra_ldflags,
                extra_include_paths, build_directory, verbose, with_cuda, is_python_module,
                is_standalone, "load")


@torch_function("torch.utils.cpp_extension.load_inline",
                note="as load; functions= binds with plain m.def (no torch::wrap_pybind_function "
                     "on Paddle)")
def load_inline(name, cpp_sources, cuda_sources=None, sycl_sources=None, functions=None,
                extra_cflags=None, extra_cuda_cflags=None, extra_sycl_cflags=None,
                extra_ldflags=None, extra_include_paths=None, build_directory=None,
                verbose=False, with_cuda=None, with_sycl=None, is_python_module=True,
                with_pytorch_error_handling=True, keep_intermediates=True, use_pch=False,
                no_implicit_headers=False):
    _require("load_inline")
    if sycl_sources or extra_sycl_cflags or with_sycl:
        raise NotImplementedError("torchproxy: SYCL extensions are not provided on Paddle")
    build_directory = os.path.abspath(build_directory or os.path.join(_default_build_root(), name))
    os.makedirs(build_directory, exist_ok=True)
    cpp_sources = [cpp_sources] if isinstance(cpp_sources, str) else list(cpp_sources)
    cuda_sources = [cuda_sources] if isinstance(cuda_sources, str) else list(cuda_sources or [])
    if not no_implicit_headers:
        cpp_sources.insert(0, "#include <torch/extension.h>")
    if functions is not None:
        if isinstance(functions, str):
            functions = [functions]
        if isinstance(functions, list):
            functions = {f: f for f in functions}
        elif not isinstance(functions, dict):
            raise ValueError(f"Expected 'functions' to be a list or dict, but was {type(functions)}")
        cpp_sources.append("PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {")
        for fn, doc in functions.items():
            cpp_sources.append(f'm.def("{fn}", {fn}, "{doc}");')
        cpp_sources.append("}")
    sources = [os.path.join(build_directory, "main.cpp")]
    _write_if_changed(sources[0], "\n".join(cpp_sources))
    if cuda_sources:
        if not no_implicit_headers:
            cuda_sources = ["#include <torch/types.h>", "#include <cuda.h>",
                            "#include <cuda_runtime.h>"] + cuda_sources
        sources.append(os.path.join(build_directory, "cuda.cu"))
        _write_if_changed(sources[1], "\n".join(cuda_sources))
    return _jit(name, sources, extra_cflags, extra_cuda_cflags, extra_ldflags,
                extra_include_paths, build_directory, verbose, with_cuda, is_python_module,
                False, "load_inline")


def _write_if_changed(path, text):
    if os.path.exists(path):
        with open(path) as f:
            if f.read() == text:
                return
    with open(path, "w") as f:
        f.write(text)


@torch_function("torch.utils.cpp_extension.get_default_build_root")
def get_default_build_root() -> str:
    return _default_build_root()


value("torch.utils.cpp_extension.TORCH_LIB_PATH",
      os.path.dirname(core_library_dir() or paddle.__file__),
      note="Paddle's base directory (libpaddle.so), not libtorch's lib/")


@torch_function("torch.utils.cpp_extension.verify_ninja_availability")
def verify_ninja_availability():
    if shutil.which("ninja") is None:
        raise RuntimeError("Ninja is required to load C++ extensions")


@torch_function("torch.utils.cpp_extension.is_ninja_available")
def is_ninja_available() -> bool:
    return shutil.which("ninja") is not None


from .registry import manifest

NAMES = manifest("""
    torch.Tensor: __dlpack__ __dlpack_device__
    torch._C: _GLIBCXX_USE_CXX11_ABI
    torch.utils: cpp_extension
    torch.utils.cpp_extension: BuildExtension CUDAExtension CUDA_HOME CppExtension ROCM_HOME
        TORCH_LIB_PATH check_compiler_is_gcc get_cxx_compiler get_default_build_root include_paths
        is_ninja_available library_paths load load_inline verify_ninja_availability
""")


# -- building an unmodified torch-extension package (setup.py imports torch) ------------------
_SITECUSTOMIZE = """\
# written by torchproxy (torch.utils.cpp_extension build environment): every Python process
# started with this directory on PYTHONPATH imports torchproxy, which enables the facade for
# the modules named in TORCHPROXY_SCOPE (a setup.py run by pip/setuptools is __main__).
import torchproxy  # noqa: F401
"""


def build_environment(scope: str = "__main__", env=None) -> dict:
    """The environment for ``pip install --no-build-isolation .`` (or ``python setup.py ...``)
    of a package whose setup.py does ``import torch``: its ``torch`` is the facade, so
    ``CppExtension`` / ``BuildExtension`` build against Paddle.  See docs/cpp-extensions.md."""
    env = dict(os.environ if env is None else env)
    d = os.path.join(os.path.expanduser("~"), ".cache", "torchproxy", "build-env")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "sitecustomize.py")
    if not os.path.exists(path) or open(path).read() != _SITECUSTOMIZE:
        with open(path, "w") as f:
            f.write(_SITECUSTOMIZE)
    pkg_root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env["PYTHONPATH"] = os.pathsep.join([d, pkg_root] + ([env["PYTHONPATH"]]
                                                         if env.get("PYTHONPATH") else []))
    env["TORCHPROXY_SCOPE"] = ",".join(x for x in (env.get("TORCHPROXY_SCOPE", ""), scope) if x)
    return env


def _main(argv) -> int:
    """``python -m torchproxy.facade.cpp_extension [--scope S] -- CMD ...``: run CMD in
    :func:`build_environment` (e.g. ``pip install --no-build-isolation .``)."""
    scope = "__main__"
    if argv[:1] == ["--scope"] and len(argv) >= 2:
        scope, argv = argv[1], argv[2:]
    if argv[:1] == ["--"]:
        argv = argv[1:]
    if not argv:
        print("usage: python -m torchproxy.facade.cpp_extension [--scope MODS] -- COMMAND ...",
              file=sys.stderr)
        return 2
    _require("build_environment")
    return subprocess.call(argv, env=build_environment(scope))


if __name__ == "__main__":
    sys.exit(_main(sys.argv[1:]))
