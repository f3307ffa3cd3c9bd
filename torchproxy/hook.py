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
  with the caller's module read from the calling frame.  ``importlib.reload`` of a facade
  module returns it unchanged (it has no source to run again).
- Each wrapper is bound to what it wrapped when it was made (:class:`_EntryPoint`), so other
  import hooks installed before or after ours, in any order of enable/disable, make chains
  that never loop back into a wrapper of ours.
- C code calling ``PyImport_Import`` calls our ``__import__`` *and then reads*
  ``sys.modules[name]``.  ``sys.modules`` is one dict for every thread, and a Python-level
  hook cannot keep the GIL from switching threads while an entry is published there, so the
  facade is never handed to C code that way outside global mode:

  * Triton's argument specializer (the one C importer of torch we know of, ``specialize.cc``)
    imports torch once per process to learn which Tensor class to fast-path.  It is *settled*
    ahead of time (:func:`settle_triton`): with the facade published in ``sys.modules`` inside
    one chain of C calls that runs no Python bytecode, so the GIL cannot pass to another thread
    before the entry is taken back.  Triton then fast-paths Paddle's Tensor for good.
  * any other scoped C-level ``import torch`` is refused with :class:`ScopedCImportError`.
    C-level means: an empty *list* fromlist (what PyImport_Import passes) from a caller whose
    code does not name ``__import__``; ``__import__("torch", globals(), locals(), [], 0)``
    written in Python is served like any Python import.
  * C-level imports of torch *submodules* while real torch is loaded come from real torch's
    own C code (``set_`` imports ``torch.storage``), whoever the Python caller is: real torch.
- Global mode (``scope=None``) is the one case where the facade is published in
  ``sys.modules``: the user asked for torch to *be* the facade for everyone.  Blocked importers
  get real torch's modules from where they were set aside (``_saved_real``); only *loading* a
  real torch module not loaded yet puts real torch back in ``sys.modules`` (the import system
  finds parents there), for as long as that load takes.

With the C extension built, ``builtins.__import__`` is ``_cdispatch.ImportFilter``: torch names
(and the compiled companions' names) go to :func:`_proxy_import`, every other import straight
to the original ``__import__`` (an unrelated import pays one C call, no Python frame).  Without
it (or with TORCHPROXY_PURE_PYTHON=1), ``_proxy_import`` itself is installed.
"""
from __future__ import annotations

import builtins
import functools
import gc
import importlib
import importlib.machinery
import importlib.util
import operator
import sys
import threading
import warnings

from . import scope as _scope
from .errors import ModuleNotProvidedError, NameNotProvidedImportError, ScopedCImportError
from .facade import modules as _modules

_STATE = _scope.STATE
_wants_facade = _STATE.wants_facade

# What was installed before us (at the latest install; each wrapper keeps its own original,
# so a thread that entered our hook just before another thread's disable() still finds it).
_original_import = builtins.__import__
_original_import_module = importlib.import_module
_original_find_spec = importlib.util.find_spec
_installed = False
# The interpreter's own C __import__, for the settle chain (which must run no Python code).
_C_IMPORT = builtins.__import__ if type(builtins.__import__) is type(len) else None
_lock = threading.RLock()
_MISSING = object()


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
        # a module object a facade entry holds as a value (torch._dynamo.config, a settings
        # module): `import torch._dynamo.config` finds it as in torch
        parent, _, attr = name.rpartition(".")
        held = vars(mods[parent]).get(attr) if parent in mods else None
        if isinstance(held, type(sys)):
            return held
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
_MAX_USERS = _scope.MAX_FACADE_USERS


def _note_user(importer) -> None:
    """Record a module handed the facade (exact str only: a str subclass could collide with
    another name; bounded: generated module names must not grow it without end)."""
    if type(importer) is not str:
        if not isinstance(importer, str):
            return  # nameless importer (global mode): nothing to report
        importer = str.__str__(importer)
    if importer not in _users and len(_users) < _MAX_USERS:
        _users.add(importer)
        top = importer.partition(".")[0]
        if top in _ON_USER:
            _original_import_module(f"torchproxy.integrations.{top}").on_user(importer)


# Packages whose integration (torchproxy/integrations/<package>.py) has ``on_user(module)``,
# told of each of the package's modules handed the facade: FlashInfer's wraps its JIT loader
# once it is loaded (kernels on Paddle's stream).  Called once per module (_users remembers it).
_ON_USER = frozenset({"flashinfer"})


def _importer_of(globals):
    """``__name__`` of a globals mapping that is not an exact dict: a dict subclass is read as
    the C dispatcher reads it (the dict's own storage, no overridden method runs), so the
    import and ``x.numel()`` decide alike; anything else is nameless."""
    if isinstance(globals, dict):
        return dict.get(globals, "__name__")
    return None


def _frame(depth):
    """sys._getframe(depth + 1), or None where the stack is not that deep (a thread started
    from C calls with no Python frame of its own)."""
    try:
        return sys._getframe(depth + 1)
    except ValueError:
        return None


def _python_level_call(frame) -> bool:
    """True when ``frame`` (the caller of __import__) calls ``__import__`` by name itself: an
    explicit ``__import__(name, globals(), locals(), [], 0)``, which reads our return value.
    C code (PyImport_Import) passes the same empty list but then reads sys.modules; its caller
    is a Python frame calling some C function, whose code need not name ``__import__``."""
    return frame is not None and "__import__" in frame.f_code.co_names


def _make_import(original):
    """builtins.__import__'s Python hook, bound to ``original`` (what was installed before
    this install): a foreign hook that wraps ours and is wrapped by us again later calls back
    into *this* function, which passes on to what was below it, never up the chain again."""

    def _proxy_import(name, globals=None, locals=None, fromlist=(), level=0):
        if name[:5] == "torch" and level == 0 and (len(name) == 5 or name[5] == "."):
            if _real_view and _lock._is_owned():
                # this thread is loading real torch for a blocked importer in global mode:
                # every torch import on the way (real torch's own, from Python or C) is real
                return original(name, globals, locals, fromlist, level)
            if type(globals) is dict:
                importer = globals.get("__name__")
            elif globals is None:  # __import__("torch") called from Python: its caller
                caller = _frame(1)
                importer = caller.f_globals.get("__name__") if caller is not None else None
            else:
                importer = _importer_of(globals)
            if type(fromlist) is list and not fromlist and not _python_level_call(_frame(1)):
                # PyImport_Import (C code) passes a fresh empty *list* and then reads
                # sys.modules; Python's IMPORT_NAME passes None or a tuple.
                return _c_level_import(original, name, importer, globals, locals, fromlist)
            if _wants_facade(importer):
                if importer not in _users:
                    _note_user(importer)
                return _import_facade(name, fromlist)
            snap = _STATE.snapshot  # one read: global mode's two flags from the same rules
            if snap.active and snap.global_mode:
                return _real_import_in_global_mode(original, name, globals, locals, fromlist,
                                                   level)
            result = original(name, globals, locals, fromlist, level)
            if _global_published and is_facade(result) and not _wants_facade(importer):
                # another thread published global mode while this import ran (it found the
                # facade in sys.modules): an importer the rules give real torch gets it
                return _real_import_in_global_mode(original, name, globals, locals, fromlist,
                                                   level)
            return result
        if name in _C_COMPANIONS:
            return _import_c_companion(original, name, globals, locals, fromlist, level)
        return original(name, globals, locals, fromlist, level)

    return _proxy_import


def _c_level_import(original, name, importer, globals, locals, fromlist):
    snap = _STATE.snapshot
    if name == "torch" and not _triton_settled:
        settle_triton_if_due()
    if snap.active and snap.global_mode:
        # global mode: the facade is published; every C reader is meant to get it
        if _wants_facade(importer):
            _note_user(importer)
            return _import_facade(name, fromlist)
        return _real_import_in_global_mode(original, name, globals, locals, fromlist, 0)
    if _wants_facade(importer):
        if name != "torch" and _real_torch_loaded():
            # Real torch's own C code importing one of its submodules (``set_`` on a real
            # tensor imports torch.storage from DynamicTypes.cpp) sees the globals of whatever
            # Python frame called it -- Triton's interpreter, in scope, for one.
            return original(name, globals, locals, fromlist, 0)
        raise ScopedCImportError(name, importer)
    return original(name, globals, locals, fromlist, 0)


def _real_torch_loaded() -> bool:
    mod = sys.modules.get("torch")
    return mod is not None and not is_facade(mod)


# Compiled companions (scope.COMPANIONS) run their own `import torch` through
# PyImport_ImportModuleLevelObject, which never calls builtins.__import__: they get real torch.
# Their code reads `torch` from the module dict at each use, so once such a module is loaded
# for a scoped package, its `torch` global is rebound to the facade, and the package's
# integration (torchproxy/integrations/<package>.py, if it has on_import()) is told.
_C_COMPANIONS = {n: pkg for pkg, names in _scope.COMPANIONS.items() for n in names}


def _import_c_companion(original, name, globals, locals, fromlist, level):
    result = original(name, globals, locals, fromlist, level)
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


def _wrapper_codes(top, ours) -> set:
    """Code objects of the foreign wrappers stacked above ``ours`` (each found from the one
    above through ``__wrapped__`` or the callables in its closure), at most 8 deep."""
    codes, fn = set(), top
    for _ in range(8):
        code = getattr(fn, "__code__", None)
        if code is None:
            break
        codes.add(code)
        below = getattr(fn, "__wrapped__", None)
        if below is None:
            cells = [c.cell_contents for c in (getattr(fn, "__closure__", None) or ())
                     if _cell_filled(c)]
            below = next((c for c in cells if callable(c) and c is not fn), None)
        if below is None or below is ours:
            break
        fn = below
    return codes


def _cell_filled(cell) -> bool:
    try:
        cell.cell_contents
    except ValueError:
        return False
    return True


def _caller_name(ours, owner, attr):
    """``__name__`` of the module calling the entry point ``owner.attr`` whose wrapper of ours
    is running: the frame above ours, past foreign wrappers that a hook installed after ours
    stacked on top (their frames are not the caller)."""
    frame = _frame(2)
    top = getattr(owner, attr)
    if top is not ours:
        codes = _wrapper_codes(top, ours)
        while frame is not None and frame.f_code in codes:
            frame = frame.f_back
    return frame.f_globals.get("__name__") if frame is not None else None


def _make_import_module(original):
    """importlib.import_module's wrapper, bound to what it wraps (see _make_import)."""

    def _proxy_import_module(name, package=None):
        if _is_torch_name(name):
            importer = _caller_name(_proxy_import_module, importlib, "import_module")
            if _wants_facade(importer):
                _note_user(importer)
                return facade_module(name)
            snap = _STATE.snapshot
            if snap.active and snap.global_mode:
                return _real_import_module_in_global_mode(original, name, package)
            result = original(name, package)
            if _global_published and is_facade(result) and not _wants_facade(importer):
                # global mode published meanwhile (see _proxy_import)
                return _real_import_module_in_global_mode(original, name, package)
            return result
        return original(name, package)

    return _proxy_import_module


def _real_import_module_in_global_mode(original, name, package):
    """importlib.import_module for an importer that gets real torch in global mode."""
    loaded = _saved_real.get(name)
    if loaded is not None:
        return loaded  # already loaded: no window with real torch in sys.modules
    with _lock:
        if not _global_published:
            # withdrawn (another thread's disable()) since the rules were read: real torch is
            # back in sys.modules; a view now would set it aside again, with global mode off
            return original(name, package)
        _enter_real_view()
        try:
            return original(name, package)
        finally:
            _leave_real_view()


def _make_find_spec(original):
    """importlib.util.find_spec's wrapper, bound to what it wraps (see _make_import)."""

    def _proxy_find_spec(name, package=None):
        if _is_torch_name(name):
            importer = _caller_name(_proxy_find_spec, importlib.util, "find_spec")
            if _wants_facade(importer):
                if name not in _modules.build():
                    return None
                return importlib.machinery.ModuleSpec(name, None, origin="torchproxy facade",
                                                      is_package=True)
        return original(name, package)

    return _proxy_find_spec


def _make_reload(original):
    """importlib.reload's wrapper: a facade module is built from the facade's table, not from
    source, so reloading it returns it unchanged.  (Without this, reload finds real torch's
    spec and runs real torch's __init__ inside the facade module, replacing its attributes.)"""

    def _proxy_reload(module):
        if is_facade(module):
            return module
        return original(module)

    return _proxy_reload


# -- Triton's one C-level import of torch -------------------------------------------------------
_triton_settled = False
# The modules Triton's specializer imports before torch (3.6 to 3.9): loaded before the chain,
# so that inside it every import is a sys.modules hit (no Python code runs).
_TRITON_INIT_MODULES = (
    "triton._utils", "triton.runtime.jit", "triton.tools.tensor_descriptor",
    "triton.experimental.gluon.nvidia.hopper", "triton.experimental.gluon.amd.gfx1250",
    "triton.experimental.gluon.amd.cdna5", "triton.language",
)
_call = operator.methodcaller("__call__")


def _make_chain_runner():
    # A function whose globals give C code calling PyImport_Import the interpreter's own C
    # __import__ (our hook is Python code, and Python code can hand the GIL to another thread).
    ns = {"__builtins__": {"__import__": _C_IMPORT or _original_import, "list": list,
                           "map": map, "BaseException": BaseException},
          "__name__": "torchproxy._settle_chain", "call": _call}
    exec("def run(steps, undo):\n"
         "    try:\n"
         "        return list(map(call, steps))\n"
         "    except BaseException:\n"
         "        list(map(call, undo))\n"
         "        raise\n", ns)
    return ns["run"]


_run_chain = _make_chain_runner()


def _atomic_publish_call(key: str, value, fn, *args):
    """``fn(*args)`` with ``sys.modules[key] = value`` around it, in one chain of C calls: no
    Python bytecode runs between publishing and taking back, so no other thread runs (the GIL
    changes hands only in the eval loop or in blocking C calls).  The collector is off inside
    (finalizers are Python code), and so are this thread's tracer and profiler (restored)."""
    modules = sys.modules
    saved = modules.get(key, _MISSING)
    restore = (functools.partial(modules.pop, key, None) if saved is _MISSING
               else functools.partial(modules.__setitem__, key, saved))
    gc_was_on = gc.isenabled()
    tracer, profiler = sys.gettrace(), sys.getprofile()
    steps = [gc.disable, functools.partial(modules.__setitem__, key, value),
             functools.partial(fn, *args), restore]
    undo = [restore]
    if gc_was_on:
        steps.append(gc.enable)
        undo.append(gc.enable)
    sys.settrace(None)
    sys.setprofile(None)
    try:
        return _run_chain(steps, undo)[2]
    finally:
        sys.setprofile(profiler)
        sys.settrace(tracer)


# Triton's C module: its argument specializer imports torch (settle_triton_if_due)
TRITON_NATIVE = "triton._C.libtriton"


def _triton_specializer():
    lt = sys.modules.get(TRITON_NATIVE)
    return getattr(lt, "native_specialize_impl", None) if lt is not None else None


def settle_triton_if_due() -> None:
    """settle_triton() when it has work and Triton is in scope; cheap otherwise (api calls it
    on every change of the rules that leaves the facade on)."""
    if _triton_settled or TRITON_NATIVE not in sys.modules or _triton_specializer() is None:
        return
    if _wants_facade("triton.runtime.jit"):
        try:
            settle_triton()
        except Exception as e:  # Triton then fast-paths no Tensor class: slower, still right
            warnings.warn(f"torchproxy: could not settle Triton's specializer: {e!r}",
                          RuntimeWarning)


def settle_triton() -> bool:
    """Hand the facade to Triton's one C-level ``import torch`` (its argument specializer, which
    fast-paths the ``Tensor`` class it finds there), without it ever being visible to another
    thread.  True if it was settled now; False if there is nothing to settle (no native
    specializer loaded) or it was settled before.  Once per process: Triton caches the class.
    If Triton's specializer ran before (it imported torch already), this changes nothing."""
    global _triton_settled
    with _lock:
        if _triton_settled:
            return False
        spec = _triton_specializer()
        if spec is None:
            return False
        for name in _TRITON_INIT_MODULES:
            try:
                _original_import_module(name)
            except ImportError:
                pass
        facade = _modules.build()["torch"]
        before = len(sys.modules)
        _atomic_publish_call("torch", facade, spec, None, 0, False, False, False)
        _triton_settled = True
        if len(sys.modules) != before:  # the specializer imported a module we did not preload
            new = [m for m in sys.modules if m.startswith("triton")][-3:]
            warnings.warn(f"torchproxy: Triton's specializer imported modules during the settle "
                          f"({new}): add them to hook._TRITON_INIT_MODULES", RuntimeWarning)
        return True


# -- global mode -------------------------------------------------------------------------------
_saved_real: dict = {}
_real_view = 0  # > 0 while a blocked importer's import runs with real torch in sys.modules
# True from publishing the facade in sys.modules until it is withdrawn.  Kept here, not read
# back from sys.modules["torch"]: user code may pop or replace that entry, and withdrawing
# must still take every facade module out and put real torch back.
_global_published = False


def _publish_global() -> None:
    global _global_published
    with _lock:
        mods = _modules.build()
        real = {k: v for k, v in sys.modules.items() if _is_torch_name(k) and not is_facade(v)}
        try:
            _global_published = True
            _saved_real.update(real)
            for key in real:
                del sys.modules[key]
            sys.modules.update(mods)
        except BaseException:
            _unpublish_global()
            raise


def _withdraw_facade_modules() -> None:
    for key, mod in list(sys.modules.items()):
        if _is_torch_name(key) and is_facade(mod):
            del sys.modules[key]
    sys.modules.update(_saved_real)
    _saved_real.clear()


def _unpublish_global() -> None:
    global _global_published
    with _lock:
        try:
            _withdraw_facade_modules()
        except BaseException:
            _withdraw_facade_modules()  # interrupted: finish the job, then report
            raise
        finally:
            if not _saved_real:
                _global_published = False


def _enter_real_view():
    """(with _lock held) Put real torch's modules back in sys.modules for a blocked importer;
    nested calls (real torch's own imports while it loads) find the view already there."""
    global _real_view
    if _real_view == 0:
        _real_view = 1
        published = {k: v for k, v in sys.modules.items() if _is_torch_name(k) and is_facade(v)}
        _real_view_published.clear()
        _real_view_published.update(published)
        for key in published:
            del sys.modules[key]
        sys.modules.update(_saved_real)
    else:
        _real_view += 1


def _leave_real_view():
    global _real_view
    _real_view -= 1
    if _real_view == 0:
        for key in list(sys.modules):
            if _is_torch_name(key) and not is_facade(sys.modules[key]):
                _saved_real[key] = sys.modules.pop(key)
        sys.modules.update(_real_view_published)
        _real_view_published.clear()


_real_view_published: dict = {}


def _loaded_real(name, fromlist):
    """What the original __import__ would return for a blocked importer, when every module it
    needs is real torch's and already loaded (kept in _saved_real): then no window opens.
    None when something is still to load (a new submodule, ``*``): the slow path loads it."""
    mod = _saved_real.get(name)
    if mod is None:
        return None
    if not fromlist:
        return _saved_real.get(name.partition(".")[0])
    attrs = mod.__dict__
    for attr in fromlist:
        # the module's own dict only: a lazy module __getattr__ (real torch has one) would
        # import outside the view
        if attr not in attrs:
            return None
    return mod


def _real_import_in_global_mode(original, name, globals, locals, fromlist, level):
    """A blocked module (or real torch itself) imports torch while the facade is published:
    give it real torch.  Modules already loaded come from _saved_real directly; only loading a
    new one needs real torch in sys.modules (the import system reads its parents there), and
    only for that long."""
    loaded = _loaded_real(name, fromlist) if level == 0 else None
    if loaded is not None:
        return loaded
    with _lock:
        if not _global_published:
            # The facade was withdrawn (another thread's disable() or guard exit) between
            # reading the rules and taking the lock: real torch is back in sys.modules, and a
            # view now would set it aside into _saved_real with global mode off (the next
            # import would load a second real torch).  A plain import is real torch.
            return original(name, globals, locals, fromlist, level)
        _enter_real_view()
        try:
            return original(name, globals, locals, fromlist, level)
        finally:
            _leave_real_view()


# -- install / uninstall ---------------------------------------------------------------------
def installed() -> bool:
    return _installed


def _make_entry(original, proxy_import):
    """What install() puts in builtins.__import__ (see the module docstring)."""
    from .facade import dispatch
    if dispatch._C is not None:
        return dispatch._C.ImportFilter(proxy_import, original, _C_COMPANIONS)
    return proxy_import


class _EntryPoint:
    """One wrapped entry point (``owner.attr``): the wrapper this install put there and what it
    wraps.  A foreign hook may wrap ours after install (typeguard, beartype's claw, pytest
    do such things): uninstall then leaves ours in that chain, inert while the rules are off,
    and the next install wraps the foreign hook with a *new* wrapper bound to it, so no
    wrapper ever calls up the chain into itself.  Every wrapper made is remembered with what it
    wraps: when a foreign hook hands one of them back (restoring what it found), it is ours
    again, reused by install and unwound by uninstall."""

    __slots__ = ("owner", "attr", "make", "wrapper", "original", "made")

    def __init__(self, owner, attr, make):
        self.owner, self.attr, self.make = owner, attr, make
        self.wrapper = self.original = None
        self.made = {}  # every wrapper of ours -> what it wraps

    def prepare(self):
        """(with _lock held) The wrapper for what is installed now: that one if it is ours, the
        current one if it wraps it, else a new one."""
        found = getattr(self.owner, self.attr)
        if found is self.wrapper or found is self.original:
            return
        if found in self.made:
            self.wrapper, self.original = found, self.made[found]
            return
        wrapper = self.make(found)
        self.made[wrapper] = found
        self.wrapper, self.original = wrapper, found

    def put(self):
        setattr(self.owner, self.attr, self.wrapper)

    def take_back(self):
        """Unwind our wrappers from the top (each back to what it wraps); a foreign hook on
        top stays, with ours below it."""
        top = getattr(self.owner, self.attr)
        while top in self.made:
            top = self.made[top]
            setattr(self.owner, self.attr, top)


def _make_import_entry(found):
    global _proxy_import, _original_import
    proxy_import = _make_import(found)
    entry = _make_entry(found, proxy_import)
    _proxy_import, _original_import = proxy_import, found  # for entry() and the tests
    return entry


def _make_import_module_entry(found):
    global _proxy_import_module, _original_import_module
    _proxy_import_module, _original_import_module = _make_import_module(found), found
    return _proxy_import_module


def _make_find_spec_entry(found):
    global _proxy_find_spec, _original_find_spec
    _proxy_find_spec, _original_find_spec = _make_find_spec(found), found
    return _proxy_find_spec


def _make_reload_entry(found):
    global _proxy_reload
    _proxy_reload = _make_reload(found)
    return _proxy_reload


_ENTRY_POINTS = (
    _EntryPoint(builtins, "__import__", _make_import_entry),
    _EntryPoint(importlib, "import_module", _make_import_module_entry),
    _EntryPoint(importlib.util, "find_spec", _make_find_spec_entry),
    _EntryPoint(importlib, "reload", _make_reload_entry),
)
# The wrappers for what is installed at import time (tests and entry() read them before any
# install); install() rebuilds one only when a foreign hook has replaced ours.
for _ep in _ENTRY_POINTS:
    _ep.prepare()
del _ep


def entry() -> object:
    """The object install() puts in builtins.__import__ (now or at the next install)."""
    return _ENTRY_POINTS[0].wrapper


def install() -> None:
    """Wrap the import entry points (all or none)."""
    global _installed
    with _lock:
        if _installed:
            return
        try:
            for ep in _ENTRY_POINTS:
                ep.prepare()
            for ep in _ENTRY_POINTS:
                ep.put()
            _installed = True
        except BaseException:
            _restore_entry_points()
            raise


def _restore_entry_points():
    for ep in _ENTRY_POINTS:
        ep.take_back()


def uninstall() -> None:
    """Put the original entry points back (all of them, finishing the job if interrupted).
    The wrappers keep their originals: threads already inside the hook keep working."""
    global _installed
    with _lock:
        if not _installed:
            return
        try:
            _restore_entry_points()
        except BaseException:
            _restore_entry_points()
            _installed = False
            raise
        _installed = False


def sync_global_mode() -> None:
    """Publish or withdraw the facade in sys.modules to match the current state."""
    with _lock:
        want = _STATE.active and _STATE.global_mode
        if want and not _global_published:
            _publish_global()
        elif not want and _global_published:
            _unpublish_global()
