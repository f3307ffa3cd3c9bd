"""``torchproxy.trace()``: record the torch names scoped code touches, and the missing ones.

While a trace is active the facade modules switch to a subclass whose ``__getattribute__``
records each public attribute read with its call site; outside a trace they are plain modules
and pay nothing.  Missing names are recorded by the modules' ``__getattr__`` (see
``facade/modules.py``) and by the import hook.

Tensor methods (``torch.Tensor.numel``...) are recorded by the Tensor-method dispatcher itself
(``facade/dispatch.py``): while a trace is active it records each call from a module in scope
and then runs the same implementation it runs untraced; nothing on ``paddle.Tensor`` changes.
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


def _is_internal(module_name) -> bool:
    # __name__ may be anything, or None (code exec'd with such globals): only a str names us
    return isinstance(module_name, str) and module_name.startswith(("torchproxy", "importlib"))


def _call_site(depth: int) -> str:
    try:
        f = sys._getframe(depth)
    except ValueError:
        return "?"
    # skip frames of torchproxy itself and of importlib: the site is the user's line
    while f is not None and (_is_internal(f.f_globals.get("__name__"))
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


def _record_tensor(full: str) -> None:
    """Called by the Tensor-method dispatcher (C or Python) for a scoped caller; the call site
    is the first frame above that is not torchproxy's own."""
    _record_used(full, 2)


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


def _dispatch():
    from .facade import dispatch
    return dispatch


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
            _dispatch().set_tracing(_record_tensor)
            modules.set_missing_recorder(record_missing)
        _active.append(t)
    try:
        yield t
    finally:
        with _lock:
            _active.remove(t)
            if not _active:
                for mod in modules.MODULES.values():
                    mod.__class__ = modules.FacadeModule
                _dispatch().set_tracing(None)
                modules.set_missing_recorder(None)
