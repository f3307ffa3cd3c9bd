"""``torch.library`` and ``torch.ops`` for operators defined through the facade.

An operator registered here (``custom_op``, ``triton_op``, ``Library.define`` + ``impl``) is a
Python callable that picks its kernel by the device of its tensor arguments ("cuda" for GPU
places, "cpu" otherwise), and is reachable as ``torch.ops.<ns>.<name>`` (and ``.default``).
Fake/meta kernels are kept but never run: Paddle has no fake-tensor tracing.
``register_autograd`` makes the operator differentiable through the facade's
``torch.autograd.Function`` (Paddle's PyLayer).  Operators of real torch (``torch.ops.aten.*``)
are not provided: naming one raises NotProvidedError.

Operators registered in C++ with ``TORCH_LIBRARY`` (an extension built by
``torch.utils.cpp_extension`` on Paddle's torch-compatible C++ API, Paddle >= 3.3, or any library
loaded with ``torch.ops.load_library``) are reached through Paddle's registry
(``paddle.base.core.torch_compat._get_operation("ns::op")``): ``torch.ops.ns.op``,
``.default`` and ``.<overload>``; ``register_fake`` / ``register_autograd`` / ``impl`` work on
them as on Python-defined ones, and a failing ``TORCH_CHECK`` is a ``RuntimeError`` carrying
its message, as in torch.
"""
from __future__ import annotations

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = (
    "torch.library", "torch.library.CustomOpDef", "torch.library.Library",
    "torch.library.custom_op", "torch.library.impl", "torch.library.register_autograd",
    "torch.library.register_fake", "torch.library.register_kernel", "torch.library.triton_op",
    "torch.library.wrap_triton", "torch.ops",
)

import ctypes
import inspect
import os
import re
import sys

import paddle

from .. import abi_shim
from ..errors import NotProvidedError
from ..paddle_shims import compat_get_operation, torch_compat
from .registry import module, torch_function, type_, value

module("torch.library")

_OPS: dict[str, "CustomOpDef"] = {}  # "ns::name" -> op


def _device_type_of(args, kwargs) -> str | None:
    def walk(v):
        if isinstance(v, paddle.Tensor):
            return "cuda" if v.place.is_gpu_place() else "cpu"
        if isinstance(v, (list, tuple)):
            for item in v:
                d = walk(item)
                if d:
                    return d
        return None
    for v in list(args) + list(kwargs.values()):
        d = walk(v)
        if d:
            return d
    return None


def _normalize_device_types(device_types):
    if device_types is None:
        return None
    if isinstance(device_types, str):
        device_types = [device_types]
    out = []
    for d in device_types:
        d = d.split(":")[0]
        if d not in ("cuda", "cpu"):
            raise ValueError(f"torchproxy: device_types can be 'cuda' or 'cpu', got {d!r}")
        out.append(d)
    return tuple(out)


def _split_qualname(qualname: str):
    if not isinstance(qualname, str) or "::" not in qualname:
        raise ValueError(f"Expected there to be a namespace in {qualname}, i.e. The operator "
                         "name should look something like ns::foo")
    ns, name = qualname.split("::", 1)
    if "." in name:
        name = name.split(".", 1)[0]  # overload name: ns::foo.default
    return ns, name


def _check_annotations(fn, qualname):
    sig = inspect.signature(fn)
    for p in sig.parameters.values():
        if p.annotation is inspect.Parameter.empty:
            raise ValueError(f"infer_schema(func): Parameter {p.name} must have a type "
                             f"annotation. Got func with signature {sig})")
    if sig.return_annotation is inspect.Signature.empty:
        raise ValueError(f"infer_schema(func): No return type annotation was provided. "
                         f"Please add one. Got func with signature {sig})")


class CustomOpDef:
    """What ``@torch.library.custom_op`` returns: call it, or reach it via ``torch.ops``."""

    def __init__(self, qualname, fn, mutates_args, device_types):
        self.ns, self._name = _split_qualname(qualname)
        self._qualname = f"{self.ns}::{self._name}"
        self._mutates_args = mutates_args
        self._kernels: dict[str | None, object] = {}  # device type (None = any) -> fn
        self._fake = None
        self._autograd_fn = None
        self._init_fn = fn
        if fn is not None:
            for d in (_normalize_device_types(device_types) or (None,)):
                self._kernels[d] = fn
            self.__wrapped__ = fn
            self.__name__ = getattr(fn, "__name__", self._name)
            self.__doc__ = getattr(fn, "__doc__", None)

    # -- registration ---------------------------------------------------------------------------
    def register_kernel(self, device_types, fn=None):
        types = _normalize_device_types(device_types)

        def deco(f):
            for d in types or (None,):
                self._kernels[d] = f
            return f
        return deco(fn) if fn is not None else deco

    def register_fake(self, fn=None):
        def deco(f):
            self._fake = f
            return f
        return deco(fn) if fn is not None else deco

    def register_autograd(self, backward, *, setup_context=None):
        from .autograd import Function
        op = self

        def forward(*args):
            return op._run_kernel(args, {})

        def _setup(ctx, inputs, output):
            if setup_context is not None:
                setup_context(ctx, inputs, output)

        self._autograd_fn = type(f"{self._name}_autograd", (Function,), {
            "forward": staticmethod(forward),
            "setup_context": staticmethod(_setup),
            "backward": staticmethod(backward),
        })

    # -- calling --------------------------------------------------------------------------------
    def _kernel_for(self, args, kwargs):
        dev = _device_type_of(args, kwargs) or "cpu"
        fn = self._kernels.get(dev) or self._kernels.get(None)
        if fn is None:
            backend = {"cuda": "CUDA", "cpu": "CPU"}[dev]
            raise NotImplementedError(f"Could not run '{self._qualname}' with arguments from the "
                                      f"'{backend}' backend (torchproxy: no kernel registered "
                                      f"for device type {dev!r})")
        return fn

    def _run_kernel(self, args, kwargs):
        out = self._kernel_for(args, kwargs)(*args, **kwargs)
        _check_no_alias(self._qualname, args, kwargs, out)
        return out

    def __call__(self, *args, **kwargs):
        if self._autograd_fn is not None:
            if kwargs:
                sig = inspect.signature(next(iter(self._kernels.values())))
                bound = sig.bind(*args, **kwargs)
                bound.apply_defaults()
                args, kwargs = bound.args, {}
            return self._autograd_fn.apply(*args)
        return self._run_kernel(args, kwargs)

    @property
    def default(self):
        return self

    def __repr__(self):
        return f"<CustomOpDef({self._qualname})>"


def _check_no_alias(qualname, args, kwargs, out):
    """torch refuses an operator whose output is one of its inputs (no aliasing allowed)."""
    ins = {id(v) for v in list(args) + list(kwargs.values()) if isinstance(v, paddle.Tensor)}
    outs = out if isinstance(out, (tuple, list)) else (out,)
    if any(isinstance(o, paddle.Tensor) and id(o) in ins for o in outs):
        raise RuntimeError(f"{qualname}: The output of this custom operator (1) must not also be "
                           "an input to this custom operator and (2) may not alias any inputs "
                           "to this custom operator or other returns. Please clone the output.")


def _register_op(op: CustomOpDef) -> CustomOpDef:
    _OPS[op._qualname] = op
    return op


@torch_function("torch.library.custom_op",
                note="kernel picked by the tensors' device; fake kernels unused")
def custom_op(name, fn=None, /, *, mutates_args, device_types=None, schema=None):
    if mutates_args != "unknown" and isinstance(mutates_args, str):
        raise ValueError("mutates_args must either be a sequence of the names of the arguments "
                         "that are mutated or the string 'unknown'. ")

    def deco(f):
        if schema is None:
            _check_annotations(f, name)
            if mutates_args != "unknown":
                sig = inspect.signature(f)
                unknown = set(mutates_args) - set(sig.parameters)
                if unknown:
                    raise ValueError(f"infer_schema(func): {unknown} in mutates_args were not "
                                     "found in the custom op's signature. mutates_args should "
                                     "contain the names of all args that the custom op mutates, "
                                     "or just the string 'unknown' if you don't know. Got func "
                                     f"with signature {sig})")
        return _register_op(CustomOpDef(name, f, mutates_args, device_types))
    return deco(fn) if fn is not None else deco


@torch_function("torch.library.triton_op", note="= custom_op: the Triton kernels run as launched")
def triton_op(name, fn=None, /, *, mutates_args, schema=None):
    return custom_op(name, fn, mutates_args=mutates_args, schema=schema)


@torch_function("torch.library.wrap_triton",
                note="returns the kernel itself: kernel[grid](...) launches it (no tracing on "
                     "Paddle)")
def wrap_triton(triton_kernel, /):
    if not hasattr(triton_kernel, "__getitem__") or not hasattr(triton_kernel, "run"):
        raise RuntimeError("wrap_triton requires wrap_triton to be called on a function "
                           f"decorated with @triton.jit or @triton.autotune; got {triton_kernel!r}")
    return triton_kernel


def _lookup(op) -> CustomOpDef:
    if isinstance(op, CustomOpDef):
        return op
    if isinstance(op, str):
        ns, name = _split_qualname(op)
        found = _OPS.get(f"{ns}::{name}") or _cpp_op(ns, name)
        if found is None:
            raise RuntimeError(f"torchproxy: operator {ns}::{name} was not defined through "
                               "torch.library (custom_op / Library.define) nor registered in C++ "
                               "(TORCH_LIBRARY) by a loaded library")
        return found
    raise TypeError(f"expected an operator name 'ns::name' or a custom op, got {op!r}")


@torch_function("torch.library.register_fake", note="kept, never run (no fake tensors on Paddle)")
def register_fake(op, fn=None, /, *, lib=None, _stacklevel=1):
    return _lookup(op).register_fake(fn)


@torch_function("torch.library.register_kernel")
def register_kernel(op, device_types, fn=None, /, *, lib=None):
    return _lookup(op).register_kernel(device_types, fn)


@torch_function("torch.library.register_autograd")
def register_autograd(op, backward, /, *, setup_context=None, lib=None):
    _lookup(op).register_autograd(backward, setup_context=setup_context)


_SCHEMA_NAME = re.compile(r"^\s*([A-Za-z_][A-Za-z0-9_]*)(?:\.[A-Za-z0-9_]+)?\s*\(")
_DISPATCH_KEYS = {"CUDA": ("cuda",), "CPU": ("cpu",), "CompositeExplicitAutograd": None,
                  "CompositeImplicitAutograd": None, "": None}


class Library:
    """``torch.library.Library(ns, "DEF" | "FRAGMENT" | "IMPL")`` with define / impl."""

    def __init__(self, ns, kind, dispatch_key=""):
        if kind not in ("DEF", "IMPL", "FRAGMENT"):
            raise ValueError(f"Unsupported kind: {kind}")
        self.ns, self.kind, self.dispatch_key = ns, kind, dispatch_key

    def define(self, schema, alias_analysis="", *, tags=()):
        m = _SCHEMA_NAME.match(schema)
        if m is None:
            raise RuntimeError(f"torchproxy: cannot parse the operator schema {schema!r}")
        name = m.group(1)
        qual = f"{self.ns}::{name}"
        if qual not in _OPS:
            _register_op(CustomOpDef(qual, None, "unknown", None))
        return name

    def impl(self, op_name, fn, dispatch_key="", *, with_keyset=False):
        if with_keyset:
            raise NotImplementedError("torchproxy: Library.impl(with_keyset=True) is not provided")
        name = op_name if isinstance(op_name, str) else op_name._name
        qual = name if "::" in name else f"{self.ns}::{name}"
        key = dispatch_key or self.dispatch_key
        if key == "Meta":
            return _lookup(qual).register_fake(fn)
        if key not in _DISPATCH_KEYS:
            raise NotImplementedError(f"torchproxy: dispatch key {key!r} is not provided "
                                      f"(CPU, CUDA, CompositeExplicitAutograd, "
                                      f"CompositeImplicitAutograd, Meta)")
        _lookup(qual).register_kernel(_DISPATCH_KEYS[key], fn)

    def _destroy(self):
        pass


type_("torch.library.Library", Library)
type_("torch.library.CustomOpDef", CustomOpDef)


@torch_function("torch.library.impl")
def impl(qualname, types, func=None, *, lib=None):
    """``@torch.library.impl("ns::op", "cuda")``: a kernel for a defined operator."""
    if isinstance(types, str) and types in _DISPATCH_KEYS and types not in ("",):
        types = _DISPATCH_KEYS[types]
    return _lookup(qualname).register_kernel(types, func)


# -- torch.ops -------------------------------------------------------------------------------------
class _OpNamespace:
    def __init__(self, ns):
        self._ns = ns

    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        from .. import tracing
        full = f"torch.ops.{self._ns}.{name}"
        op = _OPS.get(f"{self._ns}::{name}") or _cpp_op(self._ns, name)
        if op is None:
            tracing.record_missing(full)  # a trace lists the op like any missing torch name
            raise NotProvidedError(full)
        if tracing._active:
            tracing._record_used(full)
        return op

    def __repr__(self):
        return f"<torch.ops.{self._ns} (torchproxy)>"


class _Ops:
    """``torch.ops``: namespaces of operators registered through the facade or in C++."""

    def __init__(self):
        self.loaded_libraries = set()

    def __getattr__(self, ns):
        if ns.startswith("__"):
            raise AttributeError(ns)
        return _OpNamespace(ns)

    def load_library(self, path):
        load_library(path)

    def import_module(self, module):
        import importlib
        return importlib.import_module(module)

    def __repr__(self):
        return "<torch.ops (torchproxy)>"


_TORCH_OPS = _Ops()
value("torch.ops", _TORCH_OPS,
      note="operators of the facade's torch.library, and TORCH_LIBRARY operators of loaded "
           "libraries (Paddle >= 3.3)")


# -- operators registered in C++ (TORCH_LIBRARY) -----------------------------------------------
_COMPAT = torch_compat()
_CPP: dict[str, "CppOpDef | None"] = {}   # "ns::name[.overload]" -> op (None: not registered)
_PADDLE_PREFIX = re.compile(r"^\(\w+\) Error in operator '[^']*': (?:Function call failed: )?")
_PADDLE_SUFFIX = re.compile(r"\s*\(at /paddle/[^)]*\)\s*$")


def _torch_error(e: Exception, qualname: str) -> RuntimeError:
    """Paddle's "(PreconditionNotMet) Error in operator 'ns::op': Function call failed: MSG
    (at /paddle/...)" -> torch's RuntimeError("MSG")."""
    msg = _PADDLE_SUFFIX.sub("", _PADDLE_PREFIX.sub("", str(e).strip(), count=1))
    return RuntimeError(msg)


class _Unconvertible:
    """An argument no operator schema accepts: probing an operator with it never runs it."""


def _registered(qualname: str) -> bool:
    fn = compat_get_operation(qualname)
    try:
        fn(_Unconvertible())
    except Exception as e:  # argument count/type mismatch = the operator exists
        return "not found in the registry" not in str(e)
    return True  # it accepted an arbitrary object (it ran): it exists


def _cpp_op(ns: str, name: str, overload: str = "") -> "CppOpDef | None":
    """The TORCH_LIBRARY operator ns::name(.overload), or None (no library registered it)."""
    if _COMPAT is None or ns == "aten":
        return None
    qual = f"{ns}::{name}" + (f".{overload}" if overload else "")
    if _CPP.get(qual) is None:  # not yet found: a library may have been loaded since
        _CPP[qual] = CppOpDef(ns, name, overload) if _registered(qual) else None
        if _CPP[qual] is not None and not overload:
            _register_op(_CPP[qual])
    return _CPP[qual]


class CppOpDef(CustomOpDef):
    """A TORCH_LIBRARY operator: its C++ kernel (Paddle dispatches by device), plus whatever
    torch.library registered for it from Python (fake kernel kept, autograd formula)."""

    def __init__(self, ns, name, overload=""):
        qual = f"{ns}::{name}" + (f".{overload}" if overload else "")
        self._call = compat_get_operation(qual)
        self._overload_name = overload or "default"

        def kernel(*args, **kwargs):
            # Paddle 3.3.1 appends keyword arguments in call order and fills no defaults:
            # bind to the registered schema as torch does, where the ABI shim can read it
            bound = abi_shim.bind_arguments(qual, args, kwargs)
            if bound is not None:
                args, kwargs = bound, {}
            try:
                return self._call(*args, **kwargs)
            except RuntimeError as e:
                raise _torch_error(e, qual) from None
        kernel.__name__ = name
        super().__init__(f"{ns}::{name}", kernel, "unknown", None)
        self._qualname = qual

    def _run_kernel(self, args, kwargs):  # C++ operators may return views of their inputs
        return self._kernel_for(args, kwargs)(*args, **kwargs)

    def __getattr__(self, overload):
        if overload.startswith("_"):
            raise AttributeError(overload)
        op = _cpp_op(self.ns, self._name, overload)
        if op is None:
            raise AttributeError(f"The underlying op of '{self.ns}.{self._name}' has no overload "
                                 f"name '{overload}'")
        return op

    @property
    def default(self):
        return self

    def __repr__(self):
        return f"<torch.ops.{self.ns}.{self._name}.{self._overload_name} (TORCH_LIBRARY, torchproxy)>"


def load_library(path):
    """``torch.ops.load_library(path)``: load a shared library of TORCH_LIBRARY operators."""
    path = os.path.realpath(os.fspath(path))
    old = sys.getdlopenflags()
    sys.setdlopenflags(old | ctypes.RTLD_GLOBAL)
    try:
        ctypes.CDLL(path)
    except OSError as e:
        hint = ""
        if "undefined symbol" in str(e):
            hint = (" (torchproxy: the library was built against another C++ API or another "
                    f"Paddle/libtorch build than the Paddle {paddle.__version__} loaded here; "
                    "rebuild it with torch.utils.cpp_extension under torchproxy)")
        raise OSError(f"{e}{hint}") from None
    finally:
        sys.setdlopenflags(old)
    _TORCH_OPS.loaded_libraries.add(path)
