"""The scoped import hook.

Why not a ``sys.meta_path`` finder (as Paddle's proxy and setuptools' ``_distutils_hack`` do):
a finder is consulted only when ``sys.modules`` has no entry for the name, so once real torch
(or the proxy) sits in ``sys.modules["torch"]``, every later ``import torch`` gets that object
whoever imports it.  Scope cannot hold for lazy imports that way.

Instead every ``import`` statement goes through ``builtins.__import__(name, globals, ...)``, and
``globals["__name__"]`` names the importing module exactly.  We wrap it: for ``torch`` and
``torch.*`` imported by a module in scope we return the facade (never touching
``sys.modules``); everything else goes to the original ``__import__`` untouched.  The other
entry points get one small wrapper each:

- ``importlib.import_module`` / ``importlib.util.find_spec`` bypass ``__import__``: wrapped,
  with the caller's module read from the calling frame.
- C code calling ``PyImport_Import`` (Triton's argument specializer) calls our ``__import__``
  *and then reads* ``sys.modules[name]``.  For a scoped caller we publish the facade there for
  that one read and take it back at the next Python event (see :func:`_c_import_window`).
- Global mode (``scope=None``) is the one case where the facade is published in
  ``sys.modules``: the user asked for torch to *be* the facade for everyone.
"""
from __future__ import annotations

import builtins
import importlib
import importlib.machinery
import importlib.util
import sys
import threading

from . import scope as _scope
from .errors import ModuleNotProvidedError, NameNotProvidedImportError
from .facade import modules as _modules

_STATE = _scope.STATE
_wants_facade = _STATE.wants_facade

_original_import = None
_original_import_module = None
_original_find_spec = None
_lock = threading.RLock()


def is_facade(mod) -> bool:
    """True for the facade's modules (isinstance, not an attribute probe: real torch.ops
    answers every getattr)."""
    return isinstance(mod, _modules.FacadeModule)



def _is_torch_name(name) -> bool:
    return name[:5] == "torch" and (len(name) == 5 or name[5] == ".")


def facade_module(name: str):
    """The facade module for a torch module name, or ModuleNotProvidedError."""
    mods = _modules.build()
    mod = mods.get(name)
    if mod is None:
        from . import tracing
        tracing.record_missing(name)
        raise ModuleNotProvidedError(name)
    return mod


def _import_facade(name: str, fromlist):
    if name == "torch" and not fromlist:
        return _modules.MODULES.get("torch") or facade_module("torch")  # the hot path
    mod = facade_module(name)
    if fromlist:
        for attr in fromlist:
            if attr != "*" and not hasattr(mod, attr):
                raise NameNotProvidedImportError(f"{name}.{attr}")
        return mod
    return _modules.MODULES["torch"]


_users = _STATE.facade_users


def _torch_own_c_import(name, fromlist) -> bool:
    """Real torch's C code importing one of its submodules (``set_`` on a real tensor imports
    ``torch.storage`` from DynamicTypes.cpp) sees the globals of whatever Python frame called
    it -- Triton's interpreter, in scope, for one.  Only real torch's own code imports a torch
    *submodule* from C (Triton's specializer imports just ``torch``), so those keep real torch.
    Added for Triton (interpreter on real tensors while "triton" is in scope)."""
    return (name != "torch" and type(fromlist) is list and not fromlist
            and "torch" in sys.modules
            and not is_facade(sys.modules["torch"]))


def _proxy_import(name, globals=None, locals=None, fromlist=(), level=0):
    if level == 0 and name[:5] == "torch" and (len(name) == 5 or name[5] == "."):
        importer = globals.get("__name__") if type(globals) is dict else None
        if _wants_facade(importer) and not _torch_own_c_import(name, fromlist):
            if importer not in _users:
                _users.add(importer)
            result = _import_facade(name, fromlist)
            # PyImport_Import (C code) passes an empty *list* and then reads sys.modules;
            # Python's IMPORT_NAME passes None or a tuple.
            if type(fromlist) is list and not fromlist and not _STATE.global_mode:
                _c_import_window(name)
            return result
        if _STATE.global_mode and _STATE.active:
            return _real_import_in_global_mode(name, globals, locals, fromlist, level)
    if name in _C_COMPANIONS:
        return _import_c_companion(name, globals, locals, fromlist, level)
    return _original_import(name, globals, locals, fromlist, level)


# Compiled companions (scope.COMPANIONS) run their own `import torch` through
# PyImport_ImportModuleLevelObject, which never calls builtins.__import__: they get real torch.
# Their code reads `torch` from the module dict at each use, so once such a module is loaded
# for a scoped package, its `torch` global is rebound to the facade, and the package's
# integration (torchproxy/integrations/<package>.py, if it has on_import()) is told.
_C_COMPANIONS = {n: pkg for pkg, names in _scope.COMPANIONS.items() for n in names}


def _import_c_companion(name, globals, locals, fromlist, level):
    result = _original_import(name, globals, locals, fromlist, level)
    mod = sys.modules.get(name)
    if mod is not None and _wants_facade(name):
        current = mod.__dict__.get("torch")
        if current is not None and not is_facade(current):
            mod.__dict__["torch"] = _modules.build()["torch"]
            integration = _original_import_module(f"torchproxy.integrations.{_C_COMPANIONS[name]}")
            on_import = getattr(integration, "on_import", None)
            if on_import is not None:
                on_import()
    return result


def _proxy_import_module(name, package=None):
    if _is_torch_name(name):
        importer = sys._getframe(1).f_globals.get("__name__")
        if _wants_facade(importer):
            _STATE.facade_users.add(importer)
            return facade_module(name)
    return _original_import_module(name, package)


def _proxy_find_spec(name, package=None):
    if _is_torch_name(name):
        importer = sys._getframe(1).f_globals.get("__name__")
        if _wants_facade(importer):
            if name not in _modules.build():
                return None
            return importlib.machinery.ModuleSpec(name, None, origin="torchproxy facade",
                                                  is_package=True)
    return _original_find_spec(name, package)


# -- imports from C code ---------------------------------------------------------------------
_window_saved: dict = {}
_window_prev_profile = None
_MISSING = object()


def _c_import_window(name: str) -> None:
    """Publish the facade under ``name`` in sys.modules for the C caller's read, and take it
    back at the first Python-level event outside this module's hook frames (the C caller's
    next call into Python, or its return to Python).  No Python code of any other module runs
    in between, so nobody else can observe the entry."""
    global _window_prev_profile
    with _lock:
        top = name.split(".")[0]
        for key in (top, name):
            if key not in _window_saved:
                _window_saved[key] = sys.modules.get(key, _MISSING)
            sys.modules[key] = _modules.MODULES[key]
        if sys.getprofile() is not _window_close:
            _window_prev_profile = sys.getprofile()
    sys.setprofile(_window_close)  # last statement: every later event is from other frames


def _close_window_now() -> None:
    global _window_prev_profile
    with _lock:
        for key, old in _window_saved.items():
            if old is _MISSING:
                if sys.modules.get(key) is _modules.MODULES.get(key):
                    sys.modules.pop(key, None)
            else:
                sys.modules[key] = old
        _window_saved.clear()
        prev, _window_prev_profile = _window_prev_profile, None
    if sys.getprofile() is _window_close:
        sys.setprofile(prev)


def _window_close(frame, event, arg):
    # events of the hook's own frames (their returns, their C calls) come first: skip them
    if frame.f_code in _WINDOW_CODES:
        return
    _close_window_now()


_WINDOW_CODES = {_proxy_import.__code__, _c_import_window.__code__}


# -- global mode -------------------------------------------------------------------------------
_saved_real: dict = {}


def _publish_global() -> None:
    with _lock:
        mods = _modules.build()
        for key in list(sys.modules):
            if _is_torch_name(key) and not is_facade(sys.modules[key]):
                _saved_real[key] = sys.modules.pop(key)
        sys.modules.update(mods)


def _unpublish_global() -> None:
    with _lock:
        for key, mod in list(sys.modules.items()):
            if _is_torch_name(key) and is_facade(mod):
                del sys.modules[key]
        sys.modules.update(_saved_real)
        _saved_real.clear()


def _real_import_in_global_mode(name, globals, locals, fromlist, level):
    """A blocked module imports torch while the facade is published: give it real torch."""
    with _lock:
        published = {k: v for k, v in sys.modules.items()
                     if _is_torch_name(k) and is_facade(v)}
        for key in published:
            del sys.modules[key]
        sys.modules.update(_saved_real)
        try:
            return _original_import(name, globals, locals, fromlist, level)
        finally:
            for key in list(sys.modules):
                if _is_torch_name(key):
                    _saved_real[key] = sys.modules.pop(key)
            sys.modules.update(published)


# -- install / uninstall ---------------------------------------------------------------------
def installed() -> bool:
    return _original_import is not None


def install() -> None:
    global _original_import, _original_import_module, _original_find_spec
    with _lock:
        if _original_import is not None:
            return
        _original_import = builtins.__import__
        _original_import_module = importlib.import_module
        _original_find_spec = importlib.util.find_spec
        builtins.__import__ = _proxy_import
        importlib.import_module = _proxy_import_module
        importlib.util.find_spec = _proxy_find_spec


def uninstall() -> None:
    global _original_import, _original_import_module, _original_find_spec
    with _lock:
        if _original_import is None:
            return
        _close_window_now()
        if builtins.__import__ is _proxy_import:
            builtins.__import__ = _original_import
        if importlib.import_module is _proxy_import_module:
            importlib.import_module = _original_import_module
        if importlib.util.find_spec is _proxy_find_spec:
            importlib.util.find_spec = _original_find_spec
        _original_import = _original_import_module = _original_find_spec = None


def sync_global_mode() -> None:
    """Publish or withdraw the facade in sys.modules to match the current state."""
    with _lock:
        published = is_facade(sys.modules.get("torch"))
        want = _STATE.active and _STATE.global_mode
        if want and not published:
            _publish_global()
        elif not want and published:
            _unpublish_global()
