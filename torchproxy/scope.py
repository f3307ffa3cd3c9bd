"""Who gets the facade: the scope state and the one decision function.

Everything that must answer "does this caller get torch semantics?" (the import hook, the
Tensor method dispatchers) calls :func:`wants_facade` with a module name.  The answer depends
only on that name and on the current state, and is cached per name; any change of state
replaces the cache dict in one assignment, so readers in other threads see either the old
or the new answer, never a half-updated one.
"""
from __future__ import annotations

import threading
from typing import Iterable

# Facade internals and Paddle itself keep Paddle semantics, even in global mode: Paddle's own
# Python code calls `x.numel()` and `x.size` expecting Paddle's answers.
ALWAYS_EXCLUDED = ("torchproxy", "paddle")
DEFAULT_BLOCKED = frozenset({"tvm_ffi"})
# Packages that import torch from compiled companion modules with top-level names of their
# own: scoping the package scopes the companions too.  TileLang's Cython launcher (its default
# execution backend for target "c") is the module `tilelang_cython_wrapper`, built in its cache.
COMPANIONS = {"tilelang": ("tilelang_cython_wrapper",)}


def _matches(name: str, prefixes) -> bool:
    for p in prefixes:
        if name == p or name.startswith(p + "."):
            return True
    return False


def parse_names(value) -> frozenset[str]:
    """'a,b' / 'a' / iterable of names -> frozenset, validating each name."""
    if value is None:
        return frozenset()
    if isinstance(value, str):
        value = [v for v in value.split(",")]
    out = set()
    for v in value:
        if not isinstance(v, str):
            raise TypeError(f"scope and blocked names must be strings, got {v!r}")
        v = v.strip()
        if not v:
            continue
        if not all(part.isidentifier() for part in v.split(".")):
            raise ValueError(f"{v!r} is not a module name (expected e.g. 'liger_kernel' or 'pkg.sub')")
        out.add(v)
    return frozenset(out)


class _Layer:
    """One enable() call or one guard: what it adds.  `scope=None` means global."""

    __slots__ = ("scope", "enable")

    def __init__(self, scope: frozenset[str] | None, enable: bool):
        self.scope = scope
        self.enable = enable


class ScopeState:
    def __init__(self):
        self.lock = threading.RLock()
        self.base: _Layer | None = None          # set by enable(), extended by later enables
        self.guards: list[_Layer] = []           # guard layers, removed by identity on exit
        self.blocked: frozenset[str] = DEFAULT_BLOCKED
        self.facade_users: set[str] = set()      # modules that were handed the facade
        self._recompute()

    # -- derived, read lock-free by the hot paths ------------------------------------------
    def _recompute(self):
        active = False
        global_mode = False
        scope: set[str] = set()
        layers = ([self.base] if self.base else []) + self.guards
        for layer in layers:
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
        # One assignment publishes the new rules together with a fresh cache: a reader holds
        # either the old snapshot or the new one, so a decision is never cached under the
        # wrong rules.
        self.snapshot = (active, global_mode, frozenset(scope), self.blocked, {})

    @property
    def active(self) -> bool:
        return self.snapshot[0]

    @property
    def global_mode(self) -> bool:
        return self.snapshot[1]

    @property
    def scope(self) -> frozenset[str]:
        return self.snapshot[2]

    def wants_facade(self, importer) -> bool:
        snap = self.snapshot
        cache = snap[4]
        try:
            return cache[importer]
        except KeyError:
            pass
        except TypeError:  # unhashable __name__ (odd globals): never scoped
            return False
        result = _decide(snap, importer)
        cache[importer] = result
        return result

    # -- mutations ----------------------------------------------------------------------------
    def extend_base(self, scope: frozenset[str] | None):
        with self.lock:
            if self.base is None:
                self.base = _Layer(scope, True)
            elif scope is None or self.base.scope is None:
                self.base = _Layer(None, True)
            else:
                self.base = _Layer(self.base.scope | scope, True)
            self._recompute()

    def clear_base(self):
        with self.lock:
            self.base = None
            self._recompute()

    def push(self, layer: _Layer):
        with self.lock:
            self.guards.append(layer)
            self._recompute()

    def pop(self, layer: _Layer):
        with self.lock:
            # by identity: guards exited out of order (threads) remove their own layer only
            for i in range(len(self.guards) - 1, -1, -1):
                if self.guards[i] is layer:
                    del self.guards[i]
                    break
            self._recompute()

    def add_blocked(self, names: Iterable[str]):
        self.set_blocked(self.blocked | frozenset(names))

    def set_blocked(self, names: frozenset[str]):
        with self.lock:
            self.blocked = frozenset(names)
            self._recompute()

    def reset(self):
        with self.lock:
            self.base = None
            self.guards = []
            self.blocked = DEFAULT_BLOCKED
            self.facade_users.clear()  # cleared in place: the hook holds a reference
            self._recompute()


def _decide(snap, importer) -> bool:
    active, global_mode, scope, blocked, _ = snap
    if not active or not isinstance(importer, str):
        return False
    if _matches(importer, blocked) or _matches(importer, ALWAYS_EXCLUDED):
        return False
    return global_mode or _matches(importer, scope)


STATE = ScopeState()
wants_facade = STATE.wants_facade
