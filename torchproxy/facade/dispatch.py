"""The one Tensor-method dispatcher: who gets torch's ``x.numel()`` and who gets Paddle's.

For every name in ``registry.TENSOR_TABLE``, :func:`make` builds the attribute that
``tensor.install`` puts on ``paddle.Tensor``:

- Paddle has the name (``numel``, ``shape``, ``max``...): a *dispatcher*.  It asks whether the
  calling frame's module is in scope (one check, written once: ``caller_scoped`` in
  ``torchproxy/_dispatch.c``, ``_CHECK`` below for the pure-Python twin) and calls either the
  torch implementation registered for the name -- the one and only implementation, the one
  coverage and the matrix certify -- or Paddle's original attribute, unchanged.
- Paddle lacks the name (``untyped_storage``, ``storage_offset``...): the torch implementation
  for every caller, wrapped only so that a trace can record scoped callers.

Tracing lives inside the dispatcher: while ``torchproxy.trace()`` is active, a scoped call
records ``torch.Tensor.<name>`` and then runs the very same implementation; nothing on
``paddle.Tensor`` is swapped, so a traced run executes exactly what an untraced run does
(tests/facade/test_dispatch.py proves it for every dispatched name).

Two backends, same semantics (tested name by name):

- ``c``: the extension ``torchproxy._cdispatch`` (built by ``pip install``; optional).  Its
  ``Method`` type is a method descriptor with vectorcall, so ``x.is_contiguous()`` makes no
  bound method and pushes no Python frame; ``Attr`` is a data descriptor for properties.
  Unscoped callers reach Paddle's original C descriptor directly: Paddle code outside the
  scope pays a few nanoseconds (bench/unscoped_paddle.py).
- ``python``: closures generated from one template (the check inline: a helper call would cost
  as much as the check).  Used when the extension is not built, or when the environment sets
  ``TORCHPROXY_PURE_PYTHON=1``.  :func:`set_backend` switches it for the next install.
"""
from __future__ import annotations

import os
import sys

from .. import scope as _scope
from . import pickling as _pickling

PURE_PYTHON_ENV = "TORCHPROXY_PURE_PYTHON"

_STATE = _scope.STATE
_wants = _STATE.wants_facade
_getframe = sys._getframe

def _source_changed(mod) -> bool:
    """The extension was built from another _dispatch.c than the one beside this package."""
    import hashlib
    built = getattr(mod, "SOURCE_SHA", "")
    path = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                        "_dispatch.c")
    try:
        with open(path, "rb") as f:
            return bool(built) and hashlib.sha1(f.read()).hexdigest() != built
    except OSError:  # an install without the source: nothing to compare with
        return False


_C = None
_C_API = 6  # must equal torchproxy/_dispatch.c's API constant
_C_ERROR = ""
if os.environ.get(PURE_PYTHON_ENV, "") not in ("", "0"):
    _C_ERROR = f"{PURE_PYTHON_ENV}={os.environ[PURE_PYTHON_ENV]} selects the pure-Python dispatcher"
else:
    try:
        from .. import _cdispatch as _C
    except ImportError as e:  # not built (no compiler at install time, or a source checkout)
        import importlib.util
        if importlib.util.find_spec("torchproxy._cdispatch") is None:
            _C_ERROR = ("torchproxy._cdispatch is not built (`pip install -e .` builds it from "
                        "torchproxy/_dispatch.c; it needs a C compiler)")
        else:
            _C_ERROR = f"torchproxy._cdispatch does not load: {e}"
    else:
        if getattr(_C, "API", None) != _C_API or _source_changed(_C):
            _C, _C_ERROR = None, ("torchproxy._cdispatch is a stale build (torchproxy/_dispatch.c "
                                  "changed since); `pip install -e .` rebuilds it")

if _C is not None:
    # misses go to wants_facade; the current rules (STATE.snapshot.cache, the decision cache) are
    # pushed to it: every snapshot is published through _C.publish (scope.STATE.assign), which
    # assigns STATE.snapshot and points the C dispatcher at the new cache in one C call
    try:
        if _C.SNAPSHOT_CACHE_INDEX != _scope.CACHE_INDEX:
            raise TypeError(f"it reads the decision cache at [{_C.SNAPSHOT_CACHE_INDEX}], "
                            f"scope.Snapshot has it at [{_scope.CACHE_INDEX}]")
        _C.configure(_wants, _STATE)
        _STATE.set_publisher(_C.publish)
    except (TypeError, AttributeError, RuntimeError) as e:  # scope.py changed shape
        _C, _C_ERROR = None, f"the C dispatcher cannot follow scope.STATE: {e}"

if _C is not None:
    _pickling.register_dispatcher_types(_C.Method, _C.Attr)  # pickle as getattr(Tensor, name)

_backend = "c" if _C is not None else "python"
_record = None  # while a trace is active: record(full_name); read by the generated closures


def c_available() -> bool:
    return _C is not None


def c_error() -> str:
    """Why the C dispatcher is not in use ("" when it is available)."""
    return _C_ERROR


def backend() -> str:
    """'c' or 'python': what :func:`make` builds now."""
    return _backend


def set_backend(name: str) -> None:
    """Choose the backend for dispatchers built from now on (tensor.install builds them).
    Tests and bench/unscoped_paddle.py compare the two in one process."""
    global _backend
    if name not in ("c", "python"):
        raise ValueError(f"dispatch backend must be 'c' or 'python', got {name!r}")
    if name == "c" and _C is None:
        raise RuntimeError(f"the C dispatcher is unavailable: {_C_ERROR}")
    _backend = name


def set_tracing(record) -> None:
    """``record(full_name)`` is called by every dispatcher, before the implementation runs,
    for callers in scope; ``None`` stops it.  torchproxy.tracing sets it."""
    global _record
    _record = record
    if _C is not None:
        _C.set_tracing(record)


def caller_module(depth: int = 1):
    """``__name__`` of the module whose code called the function that calls this one
    (``depth`` frames further up), or None."""
    return _getframe(depth + 1).f_globals.get("__name__")


# Python's in-place operators.  Paddle's Tensor has none of them: ``x += y`` falls back to
# ``__add__`` and rebinds x.  torch mutates x.  So these names are dispatched although Paddle
# lacks them: scoped callers get torch's in-place operator, everyone else NotImplemented, on
# which CPython goes on to the binary operator exactly as without a dispatcher.
INPLACE_OPERATORS = frozenset({
    "__iadd__", "__isub__", "__imul__", "__itruediv__", "__imod__", "__ipow__", "__iand__",
    "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__ifloordiv__",
})


def _not_implemented(self, other):
    """The unscoped side of an in-place operator: NotImplemented (see INPLACE_OPERATORS)."""
    return NotImplemented


def _contains_by_iteration(self, element):
    """The unscoped side of ``__contains__`` (Paddle has none): what CPython does without one,
    iterate and compare each item (identity first, then ``==``), so Paddle's own callers keep
    their answers and errors (a 2-D tensor's rows compared to a scalar still raise)."""
    for item in self:
        if item is element or item == element:
            return True
    return False


# Protocol methods Paddle lacks but CPython has a default for: dispatched all the same, the
# unscoped side doing what CPython does without the method (name -> that side, per backend).
PROTOCOL_DEFAULTS = {name: "not_implemented" for name in INPLACE_OPERATORS}
PROTOCOL_DEFAULTS["__contains__"] = _contains_by_iteration


# -- building ----------------------------------------------------------------------------------
def make(name: str, impl, paddle_attr):
    """The attribute for ``paddle.Tensor.<name>``: ``impl`` is the torch implementation (a
    function, or a ``property``), ``paddle_attr`` what ``paddle.Tensor.__dict__`` (or a base)
    holds for the name, or None where Paddle lacks it."""
    if paddle_attr is None and name in PROTOCOL_DEFAULTS:
        default = PROTOCOL_DEFAULTS[name]
        paddle_attr = default if callable(default) else \
            _C.not_implemented if _backend == "c" else _not_implemented
    is_prop = isinstance(impl, property)
    if is_prop:
        fget, fset = impl.fget, impl.fset
    elif not callable(impl):
        raise TypeError(f"torch.Tensor.{name}: the implementation must be a function or a "
                        f"property, got {type(impl).__name__}")
    doc = getattr(paddle_attr if paddle_attr is not None else impl, "__doc__", None)
    # torch has a method where Paddle has a property or data descriptor (`size` on Paddle 3.x)
    as_attr = is_prop or (paddle_attr is not None and (
        isinstance(paddle_attr, property) or (hasattr(paddle_attr, "__get__")
                                              and hasattr(paddle_attr, "__set__"))))
    if _backend == "c":
        if as_attr:
            if is_prop:
                return _C.Attr(name, fget, paddle_attr, fset, False, doc)
            return _C.Attr(name, impl, paddle_attr, None, True, doc)
        return _C.Method(name, impl, paddle_attr, doc)
    full = f"torch.Tensor.{name}"
    if as_attr:
        if is_prop:
            getter = _py_prop_added(fget, full) if paddle_attr is None else \
                _py_prop(fget, _paddle_getter(paddle_attr), full)
            setter = _py_setter(name, fset, paddle_attr, full)
        else:
            getter = _py_prop(impl.__get__, _paddle_getter(paddle_attr), full)
            setter = _py_setter(name, None, paddle_attr, full)
        out = DispatchProperty(getter, setter, doc=doc)
    else:
        out = _py_method_added(impl, full) if paddle_attr is None else \
            _py_method(impl, paddle_attr, full)
        out.__name__ = name
        # where pickle (and inspect) find it: the function is paddle.Tensor.<name> itself
        out.__module__ = _TENSOR_MODULE
        out.__qualname__ = f"Tensor.{name}"
        out.__doc__ = doc
        out.__wrapped__ = paddle_attr if paddle_attr is not None else impl
        if paddle_attr is not None:  # dispatched names only (as the C dispatcher)
            out.__torchproxy_dispatch__ = (impl, paddle_attr)
    out.__torchproxy_info__ = (name, fget if is_prop else impl, paddle_attr)
    return out


# paddle.Tensor's module as pickle reaches it ("paddle"); the pure-Python dispatchers of
# tensor.install live at paddle.Tensor.<name>, so they pickle by that reference
_TENSOR_MODULE = "paddle"


class DispatchProperty(property):
    """A pure-Python dispatcher for a property (a plain property, plus its origin)."""


def info(attr):
    """(name, implementation, paddle_attr, backend) of a dispatcher built by :func:`make`,
    or None for anything else.  The implementation is the function the dispatcher calls for
    scoped callers (a property's fget)."""
    if _C is not None and type(attr) in (_C.Method, _C.Attr):
        return attr.__name__, attr.impl, attr.paddle, "c"
    got = getattr(attr, "__torchproxy_info__", None) if callable(attr) or \
        type(attr) is DispatchProperty else None
    if got is None:
        return None
    return got + ("python",)


def _paddle_getter(paddle_attr):
    get = getattr(paddle_attr, "__get__", None)
    if get is None:
        return lambda obj, _v=paddle_attr: _v
    return get


# The pure-Python backend: each factory is generated from a template holding the one scope
# check (_CHECK), executed in this module's namespace, so the closures read _STATE, _wants,
# _getframe and _record as globals.
_CHECK = """\
        try:
            scoped = _STATE.snapshot.cache[_getframe(1).f_globals["__name__"]]
        except (KeyError, TypeError):
            scoped = _wants(_getframe(1).f_globals.get("__name__"))
"""

_TEMPLATES = {
    "_py_method": """
def _py_method(impl, paddle, full):
    def dispatch(self, *args, **kwargs):
{check}        if scoped:
            if _record is not None:
                _record(full)
            if args or kwargs:
                return impl(self, *args, **kwargs)
            return impl(self)  # the common x.numel(): a plain call, not CALL_FUNCTION_EX
        if args or kwargs:
            return paddle(self, *args, **kwargs)
        return paddle(self)
    return dispatch
""",
    "_py_method_added": """
def _py_method_added(impl, full):
    def dispatch(self, *args, **kwargs):
        if _record is not None:
{check}            if scoped:
                _record(full)
        if args or kwargs:
            return impl(self, *args, **kwargs)
        return impl(self)
    return dispatch
""",
    "_py_prop": """
def _py_prop(torch_get, paddle_get, full):
    def get(self):
{check}        if scoped:
            if _record is not None:
                _record(full)
            return torch_get(self)
        return paddle_get(self)
    return get
""",
    "_py_prop_added": """
def _py_prop_added(torch_get, full):
    def get(self):
        if _record is not None:
{check}            if scoped:
                _record(full)
        return torch_get(self)
    return get
""",
    "_py_scoped_setter": """
def _py_scoped_setter(torch_set, paddle_set, name, full):
    def set_(self, value):
{check}        if scoped:
            if _record is not None:
                _record(full)
            return torch_set(self, value)
        if paddle_set is None:
            raise AttributeError(f"can't set attribute '{{name}}'")
        paddle_set(self, value)
    return set_
""",
}
for _name, _src in _TEMPLATES.items():
    _indent = "    " if "added" in _name else ""
    _check = "".join(_indent + line + "\n" for line in _CHECK.splitlines())
    exec(compile(_src.format(check=_check), f"<torchproxy.facade.dispatch {_name}>", "exec"),
         globals())
del _name, _src, _indent, _check


def _py_setter(name, torch_set, paddle_attr, full):
    paddle_set = getattr(paddle_attr, "__set__", None) if paddle_attr is not None else None
    if torch_set is not None and paddle_attr is None:
        return torch_set  # added: torch's setter for everyone
    if torch_set is not None:
        return _py_scoped_setter(torch_set, paddle_set, name, full)
    if paddle_set is not None:
        return lambda self, value: paddle_set(self, value)
    return None
