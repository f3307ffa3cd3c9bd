"""Installing torch's Tensor methods on paddle.Tensor, by one explicit policy.

- Paddle lacks the name (``untyped_storage``, ``storage_offset``...): the torch implementation
  is added to ``paddle.Tensor`` as is.  Paddle code never calls it, so nothing changes for it.
- Paddle has the name with other semantics (``numel`` returns a Tensor, ``size`` is an int
  property, ``max(dim=)``...): a dispatcher (``dispatch.make``: in C when built) is installed
  that reads the caller's module name and applies torch semantics only to callers in scope;
  everyone else gets Paddle's own attribute, unchanged.

``uninstall()`` puts back exactly what ``paddle.Tensor.__dict__`` held before.
The torch implementations live in the area modules, registered with
``registry.tensor_method``; this module only installs them.
"""
from __future__ import annotations

import sys
import threading

from .. import scope as _scope
from . import dispatch as _dispatch
from . import registry

_STATE = _scope.STATE
_MISSING = object()
_saved: dict[str, object] = {}  # name -> what paddle.Tensor.__dict__ held (or _MISSING)
_lock = threading.Lock()

# Every name is installed through dispatch.make (facade/dispatch.py): one dispatcher, one
# implementation per name (the one in TENSOR_TABLE), tracing recorded inside the dispatcher.


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
    found = _paddle_attribute(name)
    return None if found is _MISSING else found


def _paddle_attribute(name: str):
    """What ``paddle.Tensor.<name>`` is without torchproxy: its own dict's entry (saved while
    the dispatchers are installed), else a base class's (``object.__format__`` on Paddle 2.6),
    else _MISSING."""
    import paddle
    if _saved and name in _saved:
        saved = _saved[name]
        if saved is not _MISSING:
            return saved
        return _lookup_static_bases(paddle.Tensor, name)
    return _lookup_static(paddle.Tensor, name)


def _lookup_static_bases(cls, name):
    for klass in cls.__mro__[1:]:
        if name in klass.__dict__:
            return klass.__dict__[name]
    return _MISSING


def install() -> None:
    """All or nothing: interrupted (KeyboardInterrupt included), it takes back what it did.
    Installed once by the first enable()/guard and kept (inert outside scope) until disable()."""
    with _lock:
        if _saved:
            return
        registry.load_table()
        try:
            _install_all()
        except BaseException:
            _uninstall_all()
            raise


def _install_all() -> None:
    from . import dtypes
    dtypes.install()  # torch's dtype attributes on Paddle's dtype type (dtypes.py says why)
    for cls in _paddle_tensor_types():
        for full, entry in registry.TENSOR_TABLE.items():
            name = full.rsplit(".", 1)[1]
            impl = entry.impl
            current = _lookup_static(cls, name)
            _saved[name] = cls.__dict__.get(name, _MISSING)
            new = _dispatch.make(name, impl, None if current is _MISSING else current)
            setattr(cls, name, new)
        # a torch attribute the facade lacks: NotProvidedError in scope (tensor_missing.py:
        # one descriptor per name, not a class __getattr__, which slows every attribute read)
        from .tensor_missing import MissingName, missing_names
        for name in missing_names(cls):
            _saved[name] = _MISSING
            setattr(cls, name, MissingName(name))
    # x.dtype through Paddle's exported C++ API where that is cheaper (fast_dtype.py): Paddle's
    # answer for every caller, the canonical object instead of a new one per read
    from . import fast_dtype
    import paddle
    if "dtype" not in _saved and "dtype" in paddle.Tensor.__dict__:
        descr = fast_dtype.make(paddle)
        if descr is not None:
            _saved["dtype"] = paddle.Tensor.__dict__["dtype"]
            paddle.Tensor.dtype = descr
    fast_dtype.install_device_reading(paddle)  # x.device's C fast path reads places likewise
    _install_param_setattr()


# Paddle 3.x's EagerParamBase (every nn.Parameter) defines __setattr__ (a guard on its 'color'
# attribute) that ends in object.__setattr__, called from paddle.base.framework: a dispatched
# setter (x.grad = ..., x.data = ...) then takes its caller to be Paddle, not the scoped code
# that assigned, and runs Paddle's setter (a parameter's assigned .grad was copied and never
# received the backward's accumulation).  While installed, parameters' __setattr__ gives the
# scope check its own caller.  Paddle 2.6's EagerParamBase has no __setattr__: nothing to do.
_saved_param_setattr: list = []  # [EagerParamBase, its own __setattr__] while replaced


def _install_param_setattr() -> None:
    from ..paddle_shims import EagerParamBase as cls
    if "__setattr__" not in cls.__dict__:
        return
    original_setattr = cls.__dict__["__setattr__"]
    torch_setters = {full.rsplit(".", 1)[1]: entry.impl.fset
                     for full, entry in registry.TENSOR_TABLE.items()
                     if isinstance(entry.impl, property) and entry.impl.fset is not None}
    wants, caller_module = _dispatch._wants, _dispatch.caller_module

    def __setattr__(self, name, value):
        setter = torch_setters.get(name)
        if setter is not None and wants(caller_module(1)):
            setter(self, value)
        else:
            original_setattr(self, name, value)

    _saved_param_setattr[:] = [cls, original_setattr]
    cls.__setattr__ = __setattr__


def _uninstall_param_setattr() -> None:
    if _saved_param_setattr:
        cls, original_setattr = _saved_param_setattr
        cls.__setattr__ = original_setattr
        _saved_param_setattr.clear()


def uninstall() -> None:
    """Puts back exactly what was there; interrupted, it finishes the job before re-raising."""
    with _lock:
        try:
            _uninstall_all()
        except BaseException:
            _uninstall_all()
            raise


def _uninstall_all() -> None:
    from . import dtypes, fast_dtype
    dtypes.uninstall()
    fast_dtype.uninstall_device_reading()
    _uninstall_param_setattr()
    for cls in _paddle_tensor_types():
        for name, old in list(_saved.items()):
            if old is _MISSING:
                if name in cls.__dict__:
                    delattr(cls, name)
            else:
                setattr(cls, name, old)
    _saved.clear()


def installed() -> bool:
    return bool(_saved)


def policy_of(name: str) -> str:
    """'added' (Paddle lacks it) or 'dispatched' (torch semantics in scope only)."""
    saved = _paddle_attribute(name)  # (the same answer installed or not)
    # protocol methods Paddle lacks are dispatched all the same: their unscoped side does what
    # CPython does without them (in-place operators answer NotImplemented, so CPython falls back
    # to Paddle's binary operator; `in` iterates): dispatch.PROTOCOL_DEFAULTS
    return "added" if saved is _MISSING and name not in _dispatch.PROTOCOL_DEFAULTS else \
        "dispatched"
