"""``torch.library`` and ``torch.ops`` for operators defined through the facade.

An operator registered here (``custom_op``, ``triton_op``, ``Library.define`` + ``impl``) is a
Python callable that picks its kernel by the device of its tensor arguments ("cuda" for GPU
places, "cpu" otherwise), and is reachable as ``torch.ops.<ns>.<name>`` (and ``.default``).
Fake/meta kernels are kept but never run: Paddle has no fake-tensor tracing.
``register_autograd`` makes the operator differentiable through the facade's
``torch.autograd.Function`` (Paddle's PyLayer).  Of real torch's operators (``torch.ops.aten.*``)
only the declared table of ``_aten.py`` is served (OpOverloadPacket/OpOverload look-alikes);
naming any other raises NotProvidedError.

Operators registered in C++ with ``TORCH_LIBRARY`` (an extension built by
``torch.utils.cpp_extension`` on Paddle's torch-compatible C++ API, Paddle >= 3.3, or any library
loaded with ``torch.ops.load_library``) are reached through Paddle's registry
(``paddle.base.core.torch_compat._get_operation("ns::op")``): ``torch.ops.ns.op``,
``.default`` and ``.<overload>``; ``register_fake`` / ``register_autograd`` / ``impl`` work on
them as on Python-defined ones, and a failing ``TORCH_CHECK`` is a ``RuntimeError`` carrying
its message, as in torch.
"""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch: _check library ops
    torch.library: CustomOpDef Library custom_op impl opcheck register_autograd register_fake
        register_kernel triton_op wrap_triton
""")

import ctypes
import inspect
import os
import re
import sys

import paddle

from .. import abi_shim
from . import _aten
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
        self._schema = None  # Library.define's schema string (opcheck reads it)
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
        _OPS[qual]._schema = schema  # opcheck's test_schema reads its alias annotations
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
        if self._ns == "aten":  # torch's own operators: only the declared table (_aten.ATEN)
            op = _aten.packet(name)
        else:
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
      note="operators of the facade's torch.library, TORCH_LIBRARY operators of loaded "
           "libraries (Paddle >= 3.3), and of torch.ops.aten only the declared table "
           "(facade/_aten.py: " + ", ".join(sorted(_aten.ATEN)) + ")")


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


# -- torch.library.opcheck ---------------------------------------------------------------------
# torch's opcheck runs test utilities on an operator and sample inputs.  What Paddle can answer:
# - test_schema: the inputs an operator mutates and the outputs that alias inputs, compared
#   with its schema's alias annotations (``Tensor(a!)``).  A TORCH_LIBRARY operator's schema is
#   read from the library that defined it (Paddle's registry has no schema query: the string
#   passed to ``m.def`` is in the loaded binary's data); a custom_op's from ``mutates_args``.
# - test_autograd_registration: as torch's: inputs requiring grad and an output that requires
#   grad without an autograd registration fail.
# - test_faketensor: the registered fake kernel run on the real inputs must describe the real
#   kernel's outputs (shape, dtype, device); torch runs it on fake tensors, which Paddle lacks.
# - test_aot_dispatch_static / _dynamic compare the operator under torch.compile's AOTAutograd
#   with eager mode: Paddle has no AOTAutograd, they cannot be checked.  Named explicitly they
#   raise NotProvidedError; in the default set they are reported as not checked (a warning,
#   and "NOT CHECKED: ..." in the returned dict), so the checks that can run still do.
_OPCHECK_UNCHECKABLE = ("test_aot_dispatch_static", "test_aot_dispatch_dynamic")
_OPCHECK_ALL = ("test_schema", "test_autograd_registration", "test_faketensor",
                "test_aot_dispatch_static", "test_aot_dispatch_dynamic")
_OPCHECK_DEFAULT = ("test_schema", "test_autograd_registration", "test_faketensor",
                    "test_aot_dispatch_dynamic")
_NO_AOT = ("it compares the operator under torch.compile's AOTAutograd with eager mode, and "
           "Paddle has no AOTAutograd")


class OpCheckError(Exception):
    """torch's OpCheckError (torch.testing._internal.optests.generate_tests): a test utility of
    opcheck failed."""


def _tensor_leaves(v):
    if isinstance(v, paddle.Tensor):
        yield v
    elif isinstance(v, (list, tuple)):
        for x in v:
            yield from _tensor_leaves(x)
    elif isinstance(v, dict):
        for x in v.values():
            yield from _tensor_leaves(x)


def _clone_inputs(v):
    """torch's clone_input: a copy with its own storage, requires_grad kept."""
    if isinstance(v, paddle.Tensor):
        c = v.detach().clone()
        c.stop_gradient = v.stop_gradient
        return c
    if isinstance(v, (list, tuple)):
        return type(v)(_clone_inputs(x) for x in v)
    if isinstance(v, dict):
        return {k: _clone_inputs(x) for k, x in v.items()}
    return v


_SCHEMA_CACHE: dict = {}  # (path, mtime) -> bytes of the binary


def _library_binaries() -> list[str]:
    """Shared libraries that may hold TORCH_LIBRARY definitions: those torch.ops.load_library
    loaded and the extension modules imported (not Paddle's own, which defines none)."""
    paddle_dir = os.path.dirname(paddle.__file__)
    paths = set(_TORCH_OPS.loaded_libraries)
    for m in list(sys.modules.values()):
        f = getattr(m, "__file__", None) or ""
        if f.endswith(".so") and not os.path.realpath(f).startswith(paddle_dir):
            paths.add(os.path.realpath(f))
    return sorted(p for p in paths if os.path.isfile(p) and os.path.getsize(p) < (256 << 20))


_SCHEMA_TYPE = (rb"(?:Tensor|float|int|bool|str|Scalar|SymInt|SymFloat|ScalarType|Device|Layout|"
                rb"MemoryFormat|Generator|Dimname|Storage|Stream|Any|complex)"
                rb"(?:\([a-z*](?:\.\d+)?!?\))?(?:\[\d*\])?\??(?:\[\d*\])?")
_SCHEMA_ARG = (_SCHEMA_TYPE + rb"\s+\w+(?:\s*=\s*(?:\[[^\]\x00]*\]|[^,()\x00]+))?|\*")
_SCHEMA_RET = (rb"\(\)|" + _SCHEMA_TYPE + rb"(?:\s+\w+)?|\(\s*" + _SCHEMA_TYPE
               + rb"(?:\s+\w+)?(?:\s*,\s*" + _SCHEMA_TYPE + rb"(?:\s+\w+)?)*\s*\)")
_SCHEMA_TAIL = (rb"\s*\(\s*(?:(?:" + _SCHEMA_ARG + rb")(?:\s*,\s*(?:" + _SCHEMA_ARG
                + rb"))*)?\s*\)\s*->\s*(?:" + _SCHEMA_RET + rb")")


def _finditer_at_literal(pat, literal: bytes, data: bytes):
    """``pat.finditer(data)`` for a pattern whose matches all begin with ``literal``: the
    leading lookbehind keeps re from skipping ahead to the literal, so finditer tries every
    byte of every loaded library (~8 s a call on an extension plus numpy/scipy's libraries);
    bytes.find jumps between the literal's occurrences and ``pat.match`` there gives the same
    matches (match(data, pos) sees the bytes before pos, so the lookbehind still applies)."""
    pos = data.find(literal)
    while pos != -1:
        m = pat.match(data, pos)
        if m:
            yield m
            pos = data.find(literal, m.end())
        else:
            pos = data.find(literal, pos + 1)


def _cpp_schema(op: "CppOpDef") -> str:
    """The schema string ``m.def`` registered for a TORCH_LIBRARY operator, from its library."""
    name, overload = op._name, (op._overload_name if op._overload_name != "default" else "")
    literal = (name + (f".{overload}" if overload else "")).encode()
    head = re.escape(literal)
    # only a well-formed schema counts: at -O2 the compiler may also store a literal as
    # overlapping immediates, leaving mangled copies ("flooat") next to the clean one
    pat = re.compile(rb"(?<![A-Za-z_.])" + head + _SCHEMA_TAIL)
    found = set()
    for path in _library_binaries():
        key = (path, os.path.getmtime(path))
        if key not in _SCHEMA_CACHE:
            with open(path, "rb") as f:
                _SCHEMA_CACHE[key] = f.read()
        found.update(m.group(0).decode("utf-8", "replace")
                     for m in _finditer_at_literal(pat, literal, _SCHEMA_CACHE[key]))
    if len(found) != 1:
        why = "none" if not found else f"{len(found)} different ones ({sorted(found)})"
        raise NotProvidedError(
            f"torch.library.opcheck test_schema for {op._qualname}: its schema cannot be "
            f"checked: Paddle's operator registry has no schema query, and the loaded "
            f"libraries hold {why} for it")
    return found.pop()


def _schema_args(op) -> tuple[list[str], set[str], bool]:
    """(argument names in order, the mutable ones, whether a return may alias an input)."""
    if isinstance(op, CppOpDef) or getattr(op, "_schema", None):
        schema = op._schema if getattr(op, "_schema", None) else _cpp_schema(op)
        inner = schema[schema.index("(") + 1:schema.rindex(")", 0, schema.index("->"))]
        names, mutable = [], set()
        for a in _aten.split_schema_args(inner):
            if a == "*":
                continue
            typ, _, rest = a.partition(" ")
            argname = rest.split("=")[0].strip() or typ
            names.append(argname)
            if "!" in typ:
                mutable.add(argname)
        ret = schema.split("->", 1)[1]
        return names, mutable, "(" in ret
    fn = next(iter(op._kernels.values()), None) if op._kernels else None
    if fn is None:
        raise NotProvidedError(f"torch.library.opcheck test_schema for {op._qualname}: no kernel")
    names = list(inspect.signature(fn).parameters)
    m = op._mutates_args
    mutable = set(names) if m == "unknown" else set(m if not isinstance(m, str) else (m,))
    return names, mutable, False


def _opcheck_schema(op, args, kwargs):
    names, mutable, may_alias = _schema_args(op)
    args, kwargs = _clone_inputs(args), _clone_inputs(kwargs)
    bound = list(zip(names, args)) + [(k, v) for k, v in kwargs.items()]
    before = {n: v.numpy().copy() for n, v in bound if isinstance(v, paddle.Tensor)}
    out = op._run_kernel(tuple(args), dict(kwargs))
    for n, v in bound:
        if isinstance(v, paddle.Tensor) and n not in mutable:
            import numpy as np
            if not np.array_equal(before[n], v.numpy(), equal_nan=True):
                raise RuntimeError(f"Argument {n} is not defined as mutable but was mutated")
    if not may_alias:
        ptrs = {v.data_ptr(): n for n, v in bound if isinstance(v, paddle.Tensor) and v.numel()}
        for o in _tensor_leaves(out):
            if o.numel() and o.data_ptr() in ptrs:
                raise RuntimeError(f"Argument {ptrs[o.data_ptr()]} is not defined to alias "
                                   "output but was aliasing")


def _opcheck_autograd_registration(op, args, kwargs):
    args, kwargs = _clone_inputs(args), _clone_inputs(kwargs)
    tensors = list(_tensor_leaves((args, kwargs)))
    if not any(not t.stop_gradient for t in tensors):
        return  # torch's safe_autograd_registration_check: nothing to check
    if op._autograd_fn is not None:
        return
    out = op._run_kernel(tuple(args), dict(kwargs))
    ins = {id(t) for t in tensors}
    if any(not o.stop_gradient and id(o) not in ins for o in _tensor_leaves(out)):
        raise AssertionError(
            f"{op._qualname}: at least one output of this operator has requires_grad=True but "
            "the operator does not have an autograd kernel defined at an autograd key (e.g. "
            "DispatchKey::Autograd). This could mean that you have incorrectly registered an "
            "autograd kernel to a non-Autograd DispatchKey, which may lead to silently "
            "incorrect results.")


def _opcheck_fake(op, args, kwargs):
    if op._fake is None:
        # torch: an operator that returns nothing (it only mutates) needs no fake impl
        if op._run_kernel(tuple(_clone_inputs(args)), dict(_clone_inputs(kwargs))) is None:
            return
        raise RuntimeError(
            f"{op._qualname}: there is no fake impl registered for this operator (torchproxy: "
            "register one with torch.library.register_fake; a C++ Meta kernel cannot be seen "
            "through Paddle's registry)")
    real = op._run_kernel(tuple(_clone_inputs(args)), dict(_clone_inputs(kwargs)))
    with paddle.no_grad():
        fake = op._fake(*_clone_inputs(args), **_clone_inputs(kwargs))
    r, f = list(_tensor_leaves(real)), list(_tensor_leaves(fake))
    if (real is None) != (fake is None) or len(r) != len(f):
        raise AssertionError(f"{op._qualname}: the fake impl returns {len(f)} tensor(s) "
                             f"({type(fake).__name__}), the real kernel {len(r)} "
                             f"({type(real).__name__})")
    for i, (a, b) in enumerate(zip(r, f)):
        for what, x, y in (("shape", list(a.shape), list(b.shape)), ("dtype", a.dtype, b.dtype),
                           ("device", str(a.place), str(b.place))):
            if x != y:
                raise AssertionError(f"{op._qualname}: output {i}: the fake impl's {what} {y} "
                                     f"does not match the real kernel's {x}")


_OPCHECK_TESTERS = {"test_schema": _opcheck_schema,
                    "test_autograd_registration": _opcheck_autograd_registration,
                    "test_faketensor": _opcheck_fake}


@torch_function("torch._check", note="registered here: fake impls (torch.library.register_fake) "
                                      "call it")
def _check(cond, message=None):
    """torch._check(cond, message=None): RuntimeError unless ``cond`` (message: a callable)."""
    if not bool(cond):
        raise RuntimeError(message() if message is not None else
                           "Expected cond to be True, but got False. (Could this error message "
                           "be improved? If so, please report an enhancement request to "
                           "PyTorch.)")


@torch_function("torch.library.opcheck",
                note="test_schema (schema read from the defining library), "
                     "test_autograd_registration, test_faketensor (the fake impl run on real "
                     "inputs); test_aot_dispatch_* cannot run (no AOTAutograd): NotProvidedError "
                     "when named, reported NOT CHECKED (with a warning) in the default set")
def opcheck(op, args, kwargs=None, *, test_utils=_OPCHECK_DEFAULT, raise_exception=True,
            rtol=None, atol=None):
    import warnings
    if (rtol is None) ^ (atol is None):
        raise ValueError("opcheck(op, ...): if you specify one of rtol/atol, you must specify both")
    kwargs = {} if kwargs is None else kwargs
    if not isinstance(op, CustomOpDef):
        raise ValueError(f"opcheck(op, ...): op must be instance of torch._ops.OpOverload, e.g. "
                         f"torch.ops.aten.sin.default, got {type(op)}")
    default = test_utils is _OPCHECK_DEFAULT
    if test_utils == "ALL":
        test_utils = _OPCHECK_ALL
    if isinstance(test_utils, str):
        test_utils = (test_utils,)
    if not isinstance(test_utils, (tuple, list)) or not set(test_utils) <= set(_OPCHECK_ALL):
        raise ValueError(f"opcheck(op, ..., test_utils={test_utils}), expected test_utils to be "
                         f"subset of {_OPCHECK_ALL} but it was not")
    results = {}
    for name in test_utils:
        if name in _OPCHECK_UNCHECKABLE:
            if not default:
                raise NotProvidedError(f"torch.library.opcheck test_utils={name!r}: {_NO_AOT}")
            warnings.warn(f"torchproxy: opcheck({op._qualname}) did not check {name}: {_NO_AOT}",
                          stacklevel=2)
            results[name] = f"NOT CHECKED: {_NO_AOT}"
            continue
        try:
            _OPCHECK_TESTERS[name](op, args, kwargs)
            results[name] = "SUCCESS"
        except NotProvidedError:
            raise
        except Exception as ex:
            if raise_exception:
                raise OpCheckError(f"opcheck(op, ...): {name} failed with {ex} (scroll up for "
                                   "stack trace)") from ex
            results[name] = ex
    return results
