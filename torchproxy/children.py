"""Child processes started by multiprocessing's spawn (and forkserver) get the parent's rules.

A spawned child is a fresh interpreter: it imports the parent's ``__main__`` again (under the
name ``__mp_main__``, which a scope naming ``__main__`` covers: scope.MAIN_ALIASES) and then
the modules of its target.  torchproxy must be on there *before* that first import, or every
``import torch`` in the child gets real torch.  multiprocessing sends each child a dict of
preparation data (``multiprocessing.spawn.get_preparation_data``) that the child unpickles
before ``prepare()`` imports ``__main__``; :func:`propagate` adds one entry to it whose
unpickling calls :func:`_enable_in_child` with the parent's current ``enable()`` rules (scope
and blocked names; guards are per block of code and stay in the parent).

Used by ``torchproxy run``, the pytest plugin and ``TORCHPROXY_SCOPE``: the ways of turning
the proxy on for a whole program (DataLoader workers with spawn are the everyday case).  The
child imports ``torchproxy`` by name, with the ``sys.path`` it starts with (the installed
package, or PYTHONPATH).
"""
from __future__ import annotations

import threading

_KEY = "torchproxy_rules"
_lock = threading.Lock()
_propagating = False
_wrapped = None  # (the original get_preparation_data, our wrapper) once installed


def _enable_in_child(scope, blocked) -> None:
    import torchproxy
    torchproxy.enable(None if scope is None else set(scope), blocked=set(blocked) or None)


class _Rules:
    """Pickles as a call of _enable_in_child(scope, blocked) in the child."""

    __slots__ = ("scope", "blocked")

    def __init__(self, scope, blocked):
        self.scope, self.blocked = scope, blocked

    def __reduce__(self):
        return _enable_in_child, (self.scope, self.blocked)


def current_rules():
    """(scope, blocked) of this process's enable() (scope None: global mode), as sorted tuples,
    or None while torchproxy is off."""
    from . import scope as _scope
    snap = _scope.STATE.snapshot
    base = snap.base
    if base is None:
        return None
    scope = None if base.scope is None else tuple(sorted(base.scope))
    return scope, tuple(sorted(snap.base_blocked))


def _with_rules(original):
    def get_preparation_data(name):
        data = original(name)
        rules = current_rules() if _propagating else None
        if rules is not None:
            data[_KEY] = _Rules(*rules)
        return data
    get_preparation_data.__wrapped__ = original
    return get_preparation_data


def propagate() -> None:
    """From now on, children started by spawn/forkserver enable torchproxy with this process's
    rules of the moment they start (nothing while it is off)."""
    global _propagating, _wrapped
    import multiprocessing.spawn as spawn
    with _lock:
        if _wrapped is None or spawn.get_preparation_data is not _wrapped[1]:
            original = spawn.get_preparation_data
            _wrapped = (original, _with_rules(original))
            spawn.get_preparation_data = _wrapped[1]
        _propagating = True


def stop() -> None:
    """Children started from now on are left alone (the wrapper stays, adding nothing)."""
    global _propagating
    with _lock:
        _propagating = False


def propagating() -> bool:
    return _propagating
