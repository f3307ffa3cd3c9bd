"""ABI shim: Paddle 3.4 C++ symbols on top of Paddle 3.3.1's, for prebuilt binaries.

``paddlecodec`` 0.2.0 (PaddlePaddle's TorchCodec port, ``import torchcodec``) ships
``libtorchcodec_*.so`` built against Paddle 3.4's torch-compatible C++ API.  On the Paddle
3.3.1 the registry has, they need symbols 3.3.1 does not export (``c10::get_default_dtype()``
returning ``caffe2::TypeMeta``, ``caffe2::TypeMeta::typeMetaDatas()``, ``torch::Library`` /
``OperatorRegistry::register_implementation`` taking ``c10::DispatchKey``; with a libstdc++
older than 13 also ``std::ios_base_library_init()``), and some that 3.3.1 exports under the
same name with another layout (``c10::Device``'s string constructor, ``str()``,
``operator<<``); their boxed values (``IValue``: 3.4's ``at::Tensor`` is 80 bytes, 3.3.1's 64)
differ too.  ``paddle34_on_331.cpp`` defines all of them on top of Paddle 3.3.1 (how and why:
its comments; evidence: docs/torchcodec.md).

:func:`load` compiles it once per set of target libraries and Paddle build (g++, cached),
linked against those libraries (DT_NEEDED) and loaded RTLD_LOCAL *before* them, so they
resolve their symbols in the shim first while Paddle and every other library keep Paddle's
own definitions.  :func:`load_torchcodec` does that for the installed paddlecodec; call it
once before ``import torchcodec`` (the compatibility matrix's torchcodec row does so in its
set-up hook).  Both raise :class:`ShimUnavailable` naming what is missing: a Paddle without the
compat C++ API (2.6 .. 3.2), no C++ compiler, no paddlecodec, no FFmpeg libraries it supports.
"""
from __future__ import annotations

import ctypes
import hashlib
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile

SOURCE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "paddle34_on_331.cpp")

_loaded: dict[tuple, ctypes.CDLL] = {}   # target libraries -> the shim serving them


class ShimUnavailable(RuntimeError):
    """The ABI shim cannot be built or used here (named in the message)."""


def _paddle_build():
    """(include dirs, library dirs, version string) of the installed Paddle's C++ API."""
    import paddle
    from paddle.utils.cpp_extension import extension_utils
    includes = list(extension_utils.find_paddle_includes(False))
    compat = [d for d in includes if d.rstrip(os.sep).endswith(os.path.join("include", "compat"))]
    if not compat or not os.path.isfile(os.path.join(compat[0], "torch", "library.h")):
        raise ShimUnavailable(
            f"torchproxy.abi_shim needs Paddle's torch-compatible C++ API (Paddle >= 3.3.0: "
            f"paddle/phi/api/include/compat/torch/library.h); Paddle {paddle.__version__} "
            "does not ship it, so libraries built on it (paddlecodec) cannot load here")
    libs = list(extension_utils.find_paddle_libraries(False))
    return includes, libs, f"{paddle.__version__}+{paddle.version.commit}"


def _libstdcxx_has(symbol: str) -> bool:
    try:
        return hasattr(ctypes.CDLL("libstdc++.so.6"), symbol)
    except OSError:
        return False


def _cache_root() -> str:
    root = os.environ.get("TORCHPROXY_CACHE_DIR")
    if not root:
        root = os.path.join(os.environ.get("XDG_CACHE_HOME")
                            or os.path.join(os.path.expanduser("~"), ".cache"), "torchproxy")
    return os.path.join(root, "abi_shim")


def build(libraries, verbose: bool = False) -> str:
    """Compile the shim for ``libraries`` (paths; once per source, libraries and Paddle build)
    and return its path."""
    libraries = [os.path.realpath(p) for p in libraries]
    includes, libdirs, paddle_build = _paddle_build()
    cxx = os.environ.get("CXX") or shutil.which("g++") or shutil.which("c++")
    if cxx is None:
        raise ShimUnavailable("torchproxy.abi_shim needs a C++ compiler (g++) to build its "
                              "shim library: install g++ (apt-get install -y g++)")
    defines = [] if _libstdcxx_has("_ZSt21ios_base_library_initv") else [
        "-DTORCHPROXY_DEFINE_IOS_BASE_LIBRARY_INIT"]
    flags = (["-std=c++17", "-O2", "-fPIC", "-shared", "-D_GLIBCXX_USE_CXX11_ABI=1"]
             + defines + [f"-I{d}" for d in includes])
    # the served libraries first in DT_NEEDED (kept although the shim uses none of their
    # symbols), then Paddle's: torch::Library / OperatorRegistry live in libphi_core.so
    link = ["-Wl,--no-as-needed"]
    for lib in libraries:
        d = os.path.dirname(lib)
        link += [f"-L{d}", f"-Wl,-rpath,{d}", f"-l:{os.path.basename(lib)}"]
    for d in libdirs:
        link += [f"-L{d}", f"-Wl,-rpath,{d}"]
    if any(os.path.isfile(os.path.join(d, "libphi_core.so")) for d in libdirs):
        link.append("-l:libphi_core.so")
    link.append("-l:libpaddle.so")
    stamp = [(lib, os.stat(lib).st_size, os.stat(lib).st_mtime_ns) for lib in libraries]
    with open(SOURCE, "rb") as f:
        digest = hashlib.sha256(f.read() + repr((flags, link, stamp, paddle_build, cxx)).encode())
    out_dir = os.path.join(_cache_root(), digest.hexdigest()[:16])
    out = os.path.join(out_dir, "libtorchproxy_abi_paddle34.so")
    if os.path.isfile(out):
        return out
    os.makedirs(out_dir, exist_ok=True)
    fd, tmp = tempfile.mkstemp(suffix=".so", dir=out_dir)  # atomic under concurrent builders
    os.close(fd)
    cmd = [cxx, SOURCE, "-o", tmp] + flags + link
    proc = subprocess.run(cmd, capture_output=True, text=True)
    if verbose:
        sys.stderr.write(" ".join(cmd) + "\n" + proc.stdout + proc.stderr)
    if proc.returncode != 0:
        os.unlink(tmp)
        raise RuntimeError(f"torchproxy.abi_shim: building the shim failed ({' '.join(cmd)}):"
                           f"\n{proc.stderr[-4000:]}")
    os.replace(tmp, out)
    return out


def load(libraries, verbose: bool = False) -> str:
    """Build (if needed) the shim for ``libraries`` and load it, which loads them with their
    Paddle 3.4 symbols resolved to it.  Idempotent; returns the shim's path.  Later
    ``torch.ops.load_library``/imports of those paths find them already loaded."""
    key = tuple(os.path.realpath(p) for p in libraries)
    if key not in _loaded:
        path = build(key, verbose=verbose)
        import paddle  # noqa: F401  (Paddle's libraries first: the shim forwards to them)
        _loaded[key] = ctypes.CDLL(path, mode=os.RTLD_NOW | os.RTLD_LOCAL)
    return _loaded[key]._name


#: FFmpeg major version -> libavcodec's soname major (the libraries paddlecodec builds per
#: FFmpeg release: libtorchcodec_core{N}.so and friends)
_AVCODEC_SONAME = {8: 62, 7: 61, 6: 60, 5: 59, 4: 58}


def torchcodec_libraries() -> list[str]:
    """The installed paddlecodec's three libraries for the FFmpeg this system has (newest
    first, as torchcodec itself tries them)."""
    spec = importlib.util.find_spec("torchcodec")
    if spec is None or not spec.submodule_search_locations:
        raise ShimUnavailable("torchproxy.abi_shim.load_torchcodec: paddlecodec is not "
                              "installed (pip install --no-deps paddlecodec==0.2.0)")
    root = list(spec.submodule_search_locations)[0]
    tried = []
    for major, soname in _AVCODEC_SONAME.items():
        libs = [os.path.join(root, f"libtorchcodec_{part}{major}.so")
                for part in ("core", "custom_ops", "pybind_ops")]
        if not all(os.path.isfile(p) for p in libs):
            continue
        tried.append(f"libavcodec.so.{soname} (FFmpeg {major})")
        try:
            ctypes.CDLL(f"libavcodec.so.{soname}")
        except OSError:
            continue
        return libs
    raise ShimUnavailable("torchproxy.abi_shim.load_torchcodec: none of the FFmpeg libraries "
                          f"paddlecodec supports could be loaded (tried {', '.join(tried)}); "
                          "install FFmpeg (apt-get install -y ffmpeg)")


def load_torchcodec(verbose: bool = False) -> str:
    """:func:`load` for the installed paddlecodec (call before ``import torchcodec``)."""
    _paddle_build()  # a Paddle without the compat C++ API: say so before anything else
    return load(torchcodec_libraries(), verbose=verbose)


# -- calling TORCH_LIBRARY operators by their schema -------------------------------------------
# Paddle 3.3.1's torch_compat._get_operation passes positional arguments, then keyword
# arguments in call order, and fills no defaults; a kernel takes them by position.  torch binds
# a call to the operator's schema (names, keyword-only marker, defaults).  The shim can read the
# schema an operator was registered with, so calls are bound here the way torch binds them.

_MISSING = object()
_SCHEMAS: dict[str, "tuple | None"] = {}


def operator_schema(qualname: str) -> str | None:
    """The schema ``ns::op`` was registered with (``m.def``), or None: no schema, or the shim
    is not loaded (then nothing is known beyond what Paddle does)."""
    for shim in _loaded.values():  # one registry: any loaded shim reads it
        fn = shim.torchproxy_operator_schema
        fn.restype, fn.argtypes = ctypes.c_char_p, [ctypes.c_char_p]
        raw = fn(qualname.encode())
        return raw.decode() if raw else None
    return None


def _split_top(text: str) -> list[str]:
    """Split at commas outside brackets and quotes."""
    parts, depth, quote, cur = [], 0, None, []
    for ch in text:
        if quote:
            quote = None if ch == quote else quote
        elif ch in "\"'":
            quote = ch
        elif ch in "([":
            depth += 1
        elif ch in ")]":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(cur).strip())
            cur = []
            continue
        cur.append(ch)
    if "".join(cur).strip():
        parts.append("".join(cur).strip())
    return parts


def _default(text: str):
    import ast
    if text in ("None", "True", "False"):
        return {"None": None, "True": True, "False": False}[text]
    try:
        return ast.literal_eval(text)  # ints, floats, "strings", [lists]
    except (ValueError, SyntaxError):
        raise ValueError(f"torchproxy: schema default {text!r} is not understood") from None


def parse_schema(schema: str):
    """``name(T a, *, T? b=None) -> R`` -> (name, [(arg, default or _MISSING, kwarg_only)])."""
    name, _, rest = schema.partition("(")
    depth, end = 1, None
    for i, ch in enumerate(rest):
        depth += ch == "("
        depth -= ch == ")"
        if depth == 0:
            end = i
            break
    if end is None:
        raise ValueError(f"torchproxy: operator schema {schema!r} is not understood")
    params, kwarg_only = [], False
    for part in _split_top(rest[:end]):
        if part == "*":
            kwarg_only = True
            continue
        decl, eq, default = part.partition("=")
        arg = decl.strip().rsplit(" ", 1)[-1]
        params.append((arg, _default(default.strip()) if eq else _MISSING, kwarg_only))
    return name.strip(), params


def bind_arguments(qualname: str, args: tuple, kwargs: dict) -> tuple | None:
    """The call's arguments in schema order with defaults filled, as torch binds them; None
    when the operator's schema is unknown (then the call goes to Paddle as it is).  Raises
    torch's TypeError for a missing, unexpected or repeated argument."""
    if qualname not in _SCHEMAS:
        if not _loaded:
            return None  # nothing known yet; asked again once a shim is loaded
        schema = operator_schema(qualname)
        _SCHEMAS[qualname] = parse_schema(schema) if schema else None
    parsed = _SCHEMAS[qualname]
    if parsed is None:
        return None
    name, params = parsed
    positional = [p for p in params if not p[2]]
    if len(args) > len(positional):
        raise TypeError(f"{name}() expected at most {len(positional)} positional argument(s) "
                        f"but received {len(args)}")
    bound = list(args)
    names = {p[0] for p in params}
    for key in kwargs:
        if key not in names:
            raise TypeError(f"{name}() got an unexpected keyword argument '{key}'")
    for i, (arg, default, _) in enumerate(params):
        if i < len(args):
            if arg in kwargs:
                raise TypeError(f"{name}() got multiple values for argument '{arg}'")
            continue
        value = kwargs.get(arg, default)
        if value is _MISSING:
            raise TypeError(f"{name}() missing value for argument '{arg}'")
        bound.append(value)
    return tuple(bound)
