"""Installing torch's Tensor methods on paddle.Tensor, by one explicit policy.

- Paddle lacks the name (``untyped_storage``, ``storage_offset``...): the torch implementation
  is added to ``paddle.Tensor`` as is.  Paddle code never calls it, so nothing changes for it.
- Paddle has the name with other semantics (``numel`` returns a Tensor, ``size`` is an int
  property, ``max(dim=)``...): a dispatcher is installed that reads the caller's module name
  (``sys._getframe(1).f_globals["__name__"]``, one attribute read) and applies torch semantics
  only to callers in scope; everyone else gets Paddle's own attribute, unchanged.

``uninstall()`` puts back exactly what ``paddle.Tensor.__dict__`` held before.
The torch implementations live in the area modules, registered with
``registry.tensor_method``; this module only installs them.
"""
from __future__ import annotations

import sys
import threading

from .. import scope as _scope
from . import registry

_STATE = _scope.STATE
_wants = _STATE.wants_facade
_getframe = sys._getframe
_MISSING = object()
_saved: dict[str, object] = {}  # name -> what paddle.Tensor.__dict__ held (or _MISSING)
_lock = threading.Lock()

# Speed (bench/facade_calls.py): every dispatched call pays the scope check, Paddle's own
# callers included, so the check is inlined: one frame read, then a hit in the decision cache
# (``STATE.snapshot[4]``, name -> bool, replaced whenever the rules change).  Only a cache
# miss, or a frame without ``__name__``, calls ``wants_facade``, which fills the cache.  No
# helper function calls on the hit path: each Python call costs about as much as the check.


# Fused dispatchers for the hottest names (stride, numel, size, shape, device...): a factory
# ``make(paddle_attr) -> attribute`` registered with @fused("name") builds one function that
# holds the scope check *and* the torch body, saving the second Python call (about a third of
# the cost: bench/facade_calls.py).  The torch implementation in TENSOR_TABLE stays the
# reference (coverage, docs); its fused twin must give the same answers (tests/facade).
FUSED: dict = {}


def fused(name: str):
    def deco(factory):
        FUSED[name] = factory
        return factory
    return deco


def _paddle_tensor_types():
    import paddle
    return [paddle.Tensor]


def _lookup_static(cls, name):
    for klass in cls.__mro__:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return _MISSING


def original(name: str):
    """Paddle's own ``paddle.Tensor.<name>`` (descriptor or function), also while dispatchers
    are installed; ``None`` when Paddle has no such name.  Torch implementations use it to
    reach Paddle without going through a dispatcher (e.g. ``original("shape").__get__``)."""
    import paddle
    saved = _saved.get(name, _MISSING)
    if saved is not _MISSING:
        return saved
    if _saved and name in _saved:
        return None
    found = _lookup_static(paddle.Tensor, name)
    return None if found is _MISSING else found


def _method_dispatcher(name, torch_impl, paddle_impl):
    def dispatch(self, *args, **kwargs):
        try:
            scoped = _STATE.snapshot[4][_getframe(1).f_globals["__name__"]]
        except (KeyError, TypeError):
            scoped = _wants(_getframe(1).f_globals.get("__name__"))
        if scoped:
            return torch_impl(self, *args, **kwargs)
        return paddle_impl(self, *args, **kwargs)
    dispatch.__name__ = name
    dispatch.__qualname__ = f"Tensor.{name}"
    dispatch.__doc__ = getattr(paddle_impl, "__doc__", None)
    dispatch.__torchproxy_dispatch__ = (torch_impl, paddle_impl)
    return dispatch


def _property_dispatcher(name, torch_prop: property, paddle_desc):
    torch_get = torch_prop.fget

    if hasattr(paddle_desc, "__get__") and not callable(paddle_desc):
        paddle_get = paddle_desc.__get__
    elif isinstance(paddle_desc, property):
        paddle_get = paddle_desc.__get__
    else:
        # Paddle has a *method* where torch has a property (rare): bind it like a method
        def paddle_get(obj, _cls=None, _f=paddle_desc):
            return _f.__get__(obj, type(obj))

    def get(self):
        try:
            scoped = _STATE.snapshot[4][_getframe(1).f_globals["__name__"]]
        except (KeyError, TypeError):
            scoped = _wants(_getframe(1).f_globals.get("__name__"))
        if scoped:
            return torch_get(self)
        return paddle_get(self)

    torch_set = torch_prop.fset
    paddle_set = getattr(paddle_desc, "__set__", None)
    if paddle_set is not None or torch_set is not None:
        def set_(self, value):
            scoped = _wants(_getframe(1).f_globals.get("__name__"))
            if scoped and torch_set is not None:
                torch_set(self, value)
            elif paddle_set is not None:
                paddle_set(self, value)
            else:
                raise AttributeError(f"can't set attribute {name!r}")
    else:
        set_ = None
    prop = property(get, set_, doc=getattr(paddle_desc, "__doc__", None))
    return prop


def _torch_method_as_paddle_is_property(name, torch_impl, paddle_desc):
    """torch has a method (``x.size()``) where Paddle has a property (``x.size`` on 3.x)."""
    paddle_get = paddle_desc.__get__

    def get(self):
        try:
            scoped = _STATE.snapshot[4][_getframe(1).f_globals["__name__"]]
        except (KeyError, TypeError):
            scoped = _wants(_getframe(1).f_globals.get("__name__"))
        if scoped:
            return torch_impl.__get__(self)
        return paddle_get(self)
    return property(get, doc=getattr(paddle_desc, "__doc__", None))


def install() -> None:
    with _lock:
        if _saved:
            return
        registry.load_table()
        from . import dtypes
        dtypes.install()  # torch's dtype attributes on Paddle's dtype type (dtypes.py says why)
        for cls in _paddle_tensor_types():
            for full, entry in registry.TENSOR_TABLE.items():
                name = full.rsplit(".", 1)[1]
                impl = entry.impl
                current = _lookup_static(cls, name)
                _saved[name] = cls.__dict__.get(name, _MISSING)
                if current is _MISSING:
                    new = impl
                elif name in FUSED:
                    new = FUSED[name](current)
                elif isinstance(impl, property):
                    new = _property_dispatcher(name, impl, current)
                elif isinstance(current, property) or (
                        hasattr(current, "__get__") and hasattr(current, "__set__")):
                    new = _torch_method_as_paddle_is_property(name, impl, current)
                else:
                    new = _method_dispatcher(name, impl, current)
                setattr(cls, name, new)


def uninstall() -> None:
    with _lock:
        from . import dtypes
        dtypes.uninstall()
        for cls in _paddle_tensor_types():
            for name, old in _saved.items():
                if old is _MISSING:
                    try:
                        delattr(cls, name)
                    except AttributeError:
                        pass
                else:
                    setattr(cls, name, old)
        _saved.clear()


def installed() -> bool:
    return bool(_saved)


def policy_of(name: str) -> str:
    """'added' (Paddle lacks it) or 'dispatched' (torch semantics in scope only)."""
    import paddle
    saved = _saved.get(name, _MISSING) if _saved else _lookup_static(paddle.Tensor, name)
    return "added" if saved is _MISSING else "dispatched"
