"""``torchproxy.trace()``: record the torch names scoped code touches, and the missing ones.

While a trace is active the facade modules switch to a subclass whose ``__getattribute__``
records each public attribute read with its call site; outside a trace they are plain modules
and pay nothing.  Missing names are recorded by the modules' ``__getattr__`` (see
``facade/modules.py``) and by the import hook.

Tensor methods (``torch.Tensor.numel``...) are recorded too: while a trace is active and the
methods are installed, each installed name on ``paddle.Tensor`` is wrapped by a recorder that,
for a caller in scope, records the name and runs the torch implementation directly (the
recorder's own frame would otherwise be the "caller" the dispatchers look at); callers out of
scope reach the installed attribute, whose dispatcher then sees a torchproxy frame and gives
Paddle's behaviour, as it would have.  The wrappers are removed when the last trace ends.
"""
from __future__ import annotations

import contextlib
import sys
import threading
from collections import defaultdict

_active: list["Trace"] = []
_lock = threading.Lock()


class Trace:
    """What one ``with torchproxy.trace() as t:`` block saw."""

    def __init__(self):
        self.used: dict[str, set[str]] = defaultdict(set)     # torch name -> call sites
        self.missing: dict[str, set[str]] = defaultdict(set)  # torch name -> call sites

    def summary(self) -> dict:
        return {"used": sorted(self.used), "missing": sorted(self.missing)}

    def __repr__(self):
        return f"<torchproxy.Trace used={len(self.used)} missing={len(self.missing)}>"


def _call_site(depth: int) -> str:
    try:
        f = sys._getframe(depth)
    except ValueError:
        return "?"
    # skip frames of torchproxy itself and of importlib: the site is the user's line
    while f is not None and (f.f_globals.get("__name__", "").startswith(("torchproxy", "importlib"))
                             or f.f_code.co_filename.startswith("<frozen")):
        f = f.f_back
    if f is None:
        return "?"
    return f"{f.f_code.co_filename}:{f.f_lineno}"


def record_missing(name: str) -> None:
    if _active:
        site = _call_site(2)
        for t in list(_active):
            t.missing[name].add(site)


def _record_used(name: str, depth: int = 3) -> None:
    site = _call_site(depth)
    for t in list(_active):
        t.used[name].add(site)


# -- Tensor methods ------------------------------------------------------------------------------
_tensor_saved: dict = {}  # name -> (what paddle.Tensor.__dict__ held, our recorder)


def _caller_scoped(depth: int) -> bool:
    from .scope import STATE
    return STATE.wants_facade(sys._getframe(depth).f_globals.get("__name__"))


def _recording_attr(name: str, torch_impl, installed):
    full = f"torch.Tensor.{name}"
    if isinstance(installed, property) or (hasattr(installed, "__get__") and not callable(installed)):
        # a property (torch's, or a dispatcher for one)
        def get(self):
            if _caller_scoped(2):
                if _active:
                    _record_used(full)
                if isinstance(torch_impl, property):
                    return torch_impl.fget(self)
                return torch_impl.__get__(self, type(self))  # torch method where Paddle has a property
            return installed.__get__(self, type(self))

        def set_(self, value):
            if _caller_scoped(2) and isinstance(torch_impl, property) and torch_impl.fset:
                if _active:
                    _record_used(full)
                return torch_impl.fset(self, value)
            installed.__set__(self, value)
        return property(get, set_ if hasattr(installed, "__set__") else None,
                        doc=getattr(installed, "__doc__", None))

    def method(self, *args, **kwargs):
        if _caller_scoped(2):
            if _active:
                _record_used(full)
            return torch_impl(self, *args, **kwargs)
        return installed(self, *args, **kwargs)
    method.__name__ = name
    method.__doc__ = getattr(installed, "__doc__", None)
    return method


def _wrap_tensor_methods() -> None:
    from .facade import registry, tensor as _tensor
    if not _tensor.installed():
        return
    import paddle
    cls = paddle.Tensor
    for full, entry in registry.TENSOR_TABLE.items():
        name = full.rsplit(".", 1)[1]
        installed = cls.__dict__.get(name)
        if installed is None:
            continue
        recorder = _recording_attr(name, entry.impl, installed)
        _tensor_saved[name] = (installed, recorder)
        setattr(cls, name, recorder)


def _unwrap_tensor_methods() -> None:
    if not _tensor_saved:
        return
    import paddle
    for name, (old, recorder) in _tensor_saved.items():
        # only where our recorder still sits: a disable() during the trace already put
        # Paddle's own attribute back, and that must stay
        if paddle.Tensor.__dict__.get(name) is recorder:
            setattr(paddle.Tensor, name, old)
    _tensor_saved.clear()


def _tracing_class(base):
    class TracingFacadeModule(base):
        def __getattribute__(self, attr):
            value = base.__getattribute__(self, attr)
            # every name but dunders: torch._C, torch._dynamo, torch.cuda._lazy_init are
            # torch names libraries use (the facade modules' own attributes are all dunders)
            if _active and not (attr[:2] == "__" and attr[-2:] == "__"):
                _record_used(f"{base.__getattribute__(self, '__name__')}.{attr}")
            return value
    return TracingFacadeModule


@contextlib.contextmanager
def trace():
    """Record every facade name touched (and every missing one) inside the block."""
    from .facade import modules
    t = Trace()
    with _lock:
        if not _active:
            tracing_cls = _tracing_class(modules.FacadeModule)
            for mod in modules.build().values():
                mod.__class__ = tracing_cls
            _wrap_tensor_methods()
        _active.append(t)
    try:
        yield t
    finally:
        with _lock:
            _active.remove(t)
            if not _active:
                for mod in modules.MODULES.values():
                    mod.__class__ = modules.FacadeModule
                _unwrap_tensor_methods()
