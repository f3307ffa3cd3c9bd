"""One-line errors, naming the fix, for the two ways Triton fails on Paddle tensors before any
kernel runs: its CPU interpreter out of torchproxy's scope, and no Triton driver.

``InterpreterScopeError``
    Triton's interpreter (``TRITON_INTERPRET=1``) copies each tensor argument to the host with
    ``untyped_storage()`` / ``new_empty()`` / ``set_()`` (``GridExecutor._init_args_hst``):
    torch methods, which Paddle tensors answer with torch's meaning only for callers in scope.
    Out of scope, Paddle's own ``set_`` gets the facade's storage and raises a Paddle error
    from inside Triton.  ``untyped_storage`` (facade/storage.py) calls :func:`check_interpreter`
    when Triton's interpreter asks, which raises this instead.  It also happens when a kernel
    imported inside a guard is launched after the guard exited.
``NoDriverError``
    Without the interpreter, Triton picks a driver (``triton.runtime.driver``'s
    ``_create_driver``): on a machine without a GPU none is active ("0 active drivers"); on a
    GPU with Paddle and no real torch, Triton <= 3.7 finds none either (its drivers ask torch).
    While torchproxy is on, :func:`watch_driver` wraps ``_create_driver`` (now, or when Triton
    is imported: a ``sys.meta_path`` entry that only watches for that one module) so that this
    one error says what to do; any other outcome is Triton's, unchanged.  :func:`unwatch_driver`
    (at ``disable()``) restores both.
"""
from __future__ import annotations

import functools
import gc
import operator
import os
import sys

from ..errors import ConfigurationError

INTERPRETER_MODULE = "triton.runtime.interpreter"
DRIVER_MODULE = "triton.runtime.driver"

INTERPRETER_OUT_OF_SCOPE = (
    "Triton's interpreter (TRITON_INTERPRET=1) got a Paddle tensor but is not in torchproxy's "
    "scope: add \"triton\" to the scope (enable(scope={..., \"triton\"}), --scope ...,triton or "
    "TORCHPROXY_SCOPE=...,triton), and launch a kernel imported inside a guard while that guard "
    "is active")
NO_DRIVER_CPU = (
    "Triton has no driver on this machine (\"0 active drivers\": no GPU): set TRITON_INTERPRET=1 "
    "before Triton is imported to run kernels in Triton's interpreter, with \"triton\" in "
    "torchproxy's scope (torchproxy doctor checks this machine)")
NO_DRIVER_GPU = (
    "Triton found no driver (\"0 active drivers\": its drivers ask torch for the GPU): call "
    "torchproxy.integrations.triton.bind() once before launching kernels on Paddle GPU tensors "
    "(torchproxy doctor checks this machine)")


class InterpreterScopeError(ConfigurationError):
    pass


class NoDriverError(ConfigurationError, RuntimeError):
    """A RuntimeError too: code that probes Triton's driver catches RuntimeError."""


def check_interpreter() -> None:
    """Called by the facade's ``untyped_storage`` when Triton's interpreter is the caller."""
    from ..scope import STATE
    if not STATE.wants_facade(INTERPRETER_MODULE):
        raise InterpreterScopeError(INTERPRETER_OUT_OF_SCOPE)


# -- no driver ---------------------------------------------------------------------------------
_ORIGINAL = "_torchproxy_original_create_driver"


def _interpreting() -> bool:
    return os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")


def _wrap(module) -> None:
    original = module.__dict__.get("_create_driver")
    if original is None or hasattr(original, _ORIGINAL):
        return

    def _create_driver():
        try:
            return original()
        except RuntimeError as e:
            if not str(e).startswith("0 active drivers") or _interpreting():
                raise
            from ..scope import STATE
            if not STATE.active:  # torchproxy off: Triton's own message
                raise
            from ..paddle_shims import has_cuda
            raise NoDriverError(NO_DRIVER_GPU if has_cuda() else NO_DRIVER_CPU) from None

    setattr(_create_driver, _ORIGINAL, original)
    module._create_driver = _create_driver


class _DriverWatcher:
    """A sys.meta_path entry that finds nothing itself: for Triton's driver module it asks the
    finders after it and wraps the loader's ``exec_module``, so ``_create_driver`` is wrapped
    the moment the module exists."""

    def find_spec(self, name, path=None, target=None):
        if name != DRIVER_MODULE:
            return None
        finders = sys.meta_path[sys.meta_path.index(self) + 1:] if self in sys.meta_path else []
        for finder in finders:
            find = getattr(finder, "find_spec", None)
            spec = find(name, path, target) if find else None
            if spec is not None:
                break
        else:
            return None
        loader = spec.loader
        if loader is None or not hasattr(loader, "exec_module"):
            return spec
        spec.loader = _WrappingLoader(loader)
        return spec


class _WrappingLoader:
    def __init__(self, loader):
        self._loader = loader

    def create_module(self, spec):
        return self._loader.create_module(spec)

    def exec_module(self, module):
        self._loader.exec_module(module)
        _wrap(module)
        _edit_meta_path(add=False)  # its one module is loaded: nothing left to watch

    def __getattr__(self, attr):  # get_source, get_code, ...: the real loader's
        return getattr(self._loader, attr)


_watcher = _DriverWatcher()
_not_watcher = functools.partial(operator.is_not, _watcher)


def _edit_meta_path(add: bool) -> None:
    """``sys.meta_path`` with the watcher first (add) or nowhere, as a *new* list.

    Never in place: importlib iterates the list by index while it imports (in any thread), so
    removing an entry that an import in flight has passed shifts the next finder under that
    import's iterator, which then skips it (and inserting makes it visit one twice).  A finder
    that hides real torch (a Paddle-only process's) skipped that way let an unscoped
    ``import torch`` load real torch while another thread ran disable().  An import in flight
    keeps the list it started with.  The new list is made from the current one and assigned in
    one chain of C calls (lazy maps driven by one ``list()``, the collector off: its finalizers
    are Python code), so no other thread runs in between and a finder another thread adds or
    removes meanwhile is not lost.  Idempotent: the watcher is in the list once at most."""
    current = map(getattr, (sys,), ("meta_path",))
    others = map(list, map(filter, (_not_watcher,), current))
    new = map(operator.add, ([_watcher],), others) if add else others
    gc_was_on = gc.isenabled()
    try:
        gc.disable()
        list(map(setattr, (sys,), ("meta_path",), new))
    finally:
        if gc_was_on:
            gc.enable()


def watch_driver() -> None:
    """At enable: wrap Triton's ``_create_driver`` now, or when Triton is imported."""
    module = sys.modules.get(DRIVER_MODULE)
    if module is not None:
        _wrap(module)
    elif _watcher not in sys.meta_path:
        _edit_meta_path(add=True)


def unwatch_driver() -> None:
    """At disable: Triton's own ``_create_driver`` back, and no watcher on sys.meta_path."""
    if _watcher in sys.meta_path:
        _edit_meta_path(add=False)
    module = sys.modules.get(DRIVER_MODULE)
    wrapped = module.__dict__.get("_create_driver") if module is not None else None
    if wrapped is not None and hasattr(wrapped, _ORIGINAL):
        module._create_driver = getattr(wrapped, _ORIGINAL)
