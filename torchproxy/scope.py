"""Who gets the facade: the scope state and the one decision function.

Everything that must answer "does this caller get torch semantics?" (the import hook, the
Tensor method dispatchers) calls :func:`wants_facade` with a module name.  The answer depends
only on that name and on the current rules, and is cached per name.

The whole state is ONE immutable :class:`Snapshot` (a NamedTuple), ``STATE.snapshot``; every change (enable, a guard entering or
leaving, disable) computes a new tuple and publishes it with one assignment.  So a change is
all-or-nothing (an exception or KeyboardInterrupt before that assignment leaves the old state,
after it the new one), and readers in other threads see either the old or the new rules, never
a mix.  ``snapshot.cache`` is the decision cache (module name -> bool); it is shared by every
snapshot with the same decision inputs (active, global, scope, blocked), so re-entering the same
guard finds its answers already cached.

Every new snapshot is published through ``STATE.assign`` (one C call: ``setattr`` by default;
the C dispatcher's ``publish`` when it is built, which also points the dispatcher at the new
decision cache), never by assigning ``STATE.snapshot`` directly.

Guards are cheap because transitions are remembered: a guard's layer is interned per
arguments (:func:`layer`), ``snapshot.pushes`` maps a layer to the snapshot with that layer
pushed, and ``snapshot.parent`` is ``Push(layer, below)`` for a snapshot made by pushing
``layer`` on ``below``.  Entering and leaving the same guard again and again publishes the same two
snapshots, and builds nothing.
"""
from __future__ import annotations

import functools
import threading
from typing import Iterable, NamedTuple, Optional

# Facade internals and Paddle itself keep Paddle semantics, even in global mode: Paddle's own
# Python code calls `x.numel()` and `x.size` expecting Paddle's answers.  Real torch's own
# modules (`torch._utils` importing `torch._C`...) always get real torch.
ALWAYS_EXCLUDED = ("torchproxy", "paddle", "torch")
DEFAULT_BLOCKED = frozenset({"tvm_ffi"})
# Names that can never be a scope, and why (ValueError).
REFUSED_SCOPES = {
    "torch": "real torch's own modules always get real torch (the facade is built on Paddle, "
             "not on torch); scope the modules that *import* torch instead",
    "paddle": "Paddle's own code always keeps Paddle semantics (the facade is built on it)",
    "torchproxy": "torchproxy's own code is written against Paddle and always keeps Paddle "
                  "semantics",
}
# Packages that import torch from compiled companion modules with top-level names of their
# own: scoping the package scopes the companions too.  TileLang's Cython launcher (its default
# execution backend for target "c") is the module `tilelang_cython_wrapper`, built in its cache.
COMPANIONS = {"tilelang": ("tilelang_cython_wrapper",)}


def _matches(name: str, prefixes) -> bool:
    for p in prefixes:
        if name == p or name.startswith(p + "."):
            return True
    return False


def _describe(value) -> str:
    return f"{type(value).__name__} {value!r}"


def parse_names(value, what: str = "scope") -> frozenset[str]:
    """None / 'a,b' / 'a' / an iterable (set, list, tuple...) of names -> frozenset of validated
    module names.  ``what`` names the argument in error messages."""
    if value is None:
        return frozenset()
    if isinstance(value, str):
        items = value.split(",")
    elif isinstance(value, (bytes, bytearray)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{what} must be a module name, a comma-separated string of names, or "
                        f"a set/list/tuple of names; got {_describe(value)}")
    else:
        items = list(value)
    out = set()
    for v in items:
        if not isinstance(v, str):
            raise TypeError(f"{what} names must be strings, got {_describe(v)}")
        v = v.strip()
        if not v:
            if not isinstance(value, str):
                raise ValueError(f"{what} contains an empty module name")
            continue
        if not all(part.isidentifier() for part in v.split(".")):
            raise ValueError(f"{what}: {v!r} is not a module name (expected e.g. 'liger_kernel' "
                             f"or 'pkg.sub': identifiers joined by dots)")
        out.add(v)
    if isinstance(value, str) and value.strip() and not out:
        raise ValueError(f"{what} {value!r} names no module (expected e.g. 'mylib' or 'a,b')")
    return frozenset(out)


def check_scope(names: frozenset[str]) -> None:
    """ValueError for names that can never be a scope (torch, paddle, torchproxy, and inside)."""
    for name in sorted(names):
        top = name.split(".")[0]
        if top in REFUSED_SCOPES:
            raise ValueError(f"scope {name!r} is refused: {REFUSED_SCOPES[top]}")


class _Layer:
    """One enable() call or one guard: what it adds.  `scope=None` means global."""

    __slots__ = ("scope", "enable", "blocked")

    def __init__(self, scope: frozenset[str] | None, enable: bool, blocked=frozenset()):
        self.scope = scope
        self.enable = enable
        self.blocked = blocked


_LAYERS: dict = {}


def layer(scope: frozenset[str] | None, enable: bool, blocked=frozenset()) -> _Layer:
    """The one _Layer for these arguments (interned: a guard's transitions are remembered per
    layer).  Layers are never changed after they are made."""
    key = (scope, enable, blocked)
    got = _LAYERS.get(key)
    if got is None:
        if len(_LAYERS) > 512:
            _LAYERS.clear()
        got = _LAYERS[key] = _Layer(scope, enable, blocked)
    return got


# decision inputs -> the decision cache shared by every snapshot with those inputs
_CACHES: dict = {}
# Bounds of the per-name caches (decisions, and the facade_users record): cleared / no longer
# grown past them, so that a process generating module names keeps a fixed footprint.
MAX_CACHED_NAMES = 4096
MAX_FACADE_USERS = 4096
# multiprocessing's spawn (and forkserver) children run the parent's __main__ as
# "__mp_main__": a scope naming __main__ covers it, so workers decide as the parent did.
MAIN_ALIASES = {"__main__": ("__mp_main__",)}
_MAX_PUSHES = 64  # remembered guard transitions per snapshot


class Push(NamedTuple):
    layer: "_Layer"
    below: "Snapshot"


class Snapshot(NamedTuple):
    """The rules at one moment.  The first four fields are the decision inputs; the C
    dispatcher reads ``cache`` by position (``SNAPSHOT_CACHE_INDEX`` in _dispatch.c, checked
    against ``CACHE_INDEX`` below at configure time), so fields are only ever appended."""
    active: bool
    global_mode: bool
    scope: frozenset
    blocked: frozenset
    cache: dict              # module name -> decision, shared by snapshots with equal inputs
    base: Optional["_Layer"]  # what enable() calls added (None: not enabled)
    guards: tuple            # the guards' layers, innermost last
    base_blocked: frozenset  # enable()'s blocked names (guards keep their own)
    pushes: dict             # layer -> the snapshot with that layer pushed (remembered)
    parent: Optional[Push]   # set when made by pushing a guard's layer on another snapshot


CACHE_INDEX = Snapshot._fields.index("cache")


def _build(base, guards: tuple, base_blocked: frozenset, parent=None):
    active = False
    global_mode = False
    scope: set[str] = set()
    blocked = base_blocked
    for layer in ((base,) + guards if base is not None else guards):
        if layer.blocked:
            blocked = blocked | layer.blocked
        if not layer.enable:
            # a disabling guard turns everything off while it is the innermost rule
            active, global_mode, scope = False, False, set()
            continue
        active = True
        if layer.scope is None:
            global_mode = True
        else:
            scope |= layer.scope
            for name in layer.scope:
                scope.update(COMPANIONS.get(name, ()))
                scope.update(MAIN_ALIASES.get(name, ()))
    key = (active, global_mode, frozenset(scope), blocked)
    cache = _CACHES.get(key)
    if cache is None:
        if len(_CACHES) > 256:
            _CACHES.clear()
        cache = _CACHES[key] = {}
    return Snapshot(active, global_mode, key[2], blocked, cache, base, guards, base_blocked, {},
                    parent)


class ScopeState:
    def __init__(self):
        self.lock = threading.RLock()
        self.facade_users: set[str] = set()      # modules that were handed the facade
        self.snapshot = _INITIAL
        # publishes a snapshot: one C call (no bytecode between deciding and assigning)
        self.assign = functools.partial(setattr, self, "snapshot")

    def set_publisher(self, publish=None) -> None:
        """``publish(snapshot)`` assigns ``self.snapshot`` (and tells whoever follows the rules,
        the C dispatcher); None: plain assignment."""
        self.assign = publish if publish is not None else \
            functools.partial(setattr, self, "snapshot")

    # -- read lock-free by the hot paths ------------------------------------------------------
    @property
    def active(self) -> bool:
        return self.snapshot.active

    @property
    def global_mode(self) -> bool:
        return self.snapshot.global_mode

    @property
    def scope(self) -> frozenset[str]:
        return self.snapshot.scope

    @property
    def blocked(self) -> frozenset[str]:
        return self.snapshot.blocked

    @property
    def base(self) -> _Layer | None:
        return self.snapshot.base

    @property
    def guards(self) -> tuple:
        return self.snapshot.guards

    def wants_facade(self, importer) -> bool:
        snap = self.snapshot
        cache = snap.cache
        if type(importer) is not str:
            # Only exact str keys are cached: a str subclass can define __hash__/__eq__ to
            # collide with a scoped name and so poison the entry the real module reads.  Its
            # text decides, as for a str (the C dispatcher caches exact str only, too).
            return _decide(snap, str.__str__(importer) if isinstance(importer, str) else None)
        try:
            return cache[importer]
        except KeyError:
            pass
        result = _decide(snap, importer)
        if len(cache) >= MAX_CACHED_NAMES:
            # generated module names must not grow it without bound; the C dispatcher reads
            # the same dict and simply misses after a clear
            cache.clear()
        cache[importer] = result
        return result

    # -- changes: each computes the next snapshot, then publishes it in one assignment --------
    def with_base(self, scope: frozenset[str] | None, blocked: frozenset[str] = frozenset()):
        """The snapshot after enable(scope, blocked=blocked); does not publish it."""
        s = self.snapshot
        base = s.base
        if base is None:
            base = _Layer(scope, True)
        elif scope is None or base.scope is None:
            base = _Layer(None, True)
        else:
            base = _Layer(base.scope | scope, True)
        return _build(base, s.guards, s.base_blocked | blocked)

    def with_guard(self, layer: _Layer):
        s = self.snapshot
        pushes = s.pushes
        new = pushes.get(layer)
        if new is None:
            new = _build(s.base, s.guards + (layer,), s.base_blocked, Push(layer, s))
            if len(pushes) < _MAX_PUSHES:
                pushes[layer] = new
        return new

    def without_guard(self, layer: _Layer):
        """The snapshot with ``layer`` removed (by identity: guards exited out of order, from
        threads, remove their own layer only); the current one if it is not there."""
        s = self.snapshot
        parent = s.parent
        if parent is not None and parent.layer is layer:
            return parent.below  # s is `below` with layer pushed on top
        guards = s.guards
        for i in range(len(guards) - 1, -1, -1):
            if guards[i] is layer:
                return _build(s.base, guards[:i] + guards[i + 1:], s.base_blocked)
        return s

    def initial(self):
        return _INITIAL

    def extend_base(self, scope: frozenset[str] | None):
        with self.lock:
            self.assign(self.with_base(scope))

    def clear_base(self):
        with self.lock:
            s = self.snapshot
            self.assign(_build(None, s.guards, s.base_blocked))

    def push(self, layer: _Layer):
        with self.lock:
            self.assign(self.with_guard(layer))

    def pop(self, layer: _Layer):
        with self.lock:
            self.assign(self.without_guard(layer))

    def add_blocked(self, names: Iterable[str]):
        with self.lock:
            s = self.snapshot
            self.assign(_build(s.base, s.guards, s.base_blocked | frozenset(names)))

    def set_blocked(self, names: frozenset[str]):
        """The blocked names of enable() (guards' own blocked names stay with their guards)."""
        with self.lock:
            s = self.snapshot
            self.assign(_build(s.base, s.guards, frozenset(names)))

    def reset(self):
        with self.lock:
            self.assign(self.initial())
            self.facade_users.clear()  # cleared in place: the hook holds a reference

    def current_users(self) -> list[str]:
        """facade_users that the current rules still give the facade (modules of guards that
        have exited drop out)."""
        snap = self.snapshot
        users = list(self.facade_users)
        return sorted(u for u in users if _decide(snap, u))


def _decide(snap, importer) -> bool:
    active, global_mode, scope, blocked = snap.active, snap.global_mode, snap.scope, snap.blocked
    if not active:
        return False
    if not isinstance(importer, str):
        # no module name (exec(code, {}), eval, C code with no Python frame): only global
        # mode means "every importer"
        return global_mode
    if _matches(importer, blocked) or _matches(importer, ALWAYS_EXCLUDED):
        return False
    return global_mode or _matches(importer, scope)


_INITIAL = _build(None, (), DEFAULT_BLOCKED)  # no rules: before enable(), after disable()
STATE = ScopeState()
wants_facade = STATE.wants_facade
