"""The public switch: enable / disable / guard / status, and paddle.compat's names for them.

Transitions are all-or-nothing, also under KeyboardInterrupt: the rules are one tuple
(``scope.STATE.snapshot``) published with one assignment, and the physical pieces (the import
hook, the Tensor methods, global mode's ``sys.modules`` entries) are installed before the new
rules are published and removed after, each all-or-nothing itself.

Speed: the hook and the Tensor methods are installed by the first enable() or guard and then
stay, *parked*, until disable(): with the rules inactive they are inert (the hook passes every
import through, each dispatcher gives Paddle's own attribute).  So a guard costs one rules
change (a few microseconds), not ~120 setattr calls each way; disable() removes everything.
"""
from __future__ import annotations

import os
import sys
import threading
import warnings

from . import hook, scope as _scope
from .errors import ConfigurationError, ProxyConflictError
from .facade import tensor as _tensor
from .integrations import triton_messages as _triton_messages

_STATE = _scope.STATE
_lock = _STATE.lock


_TRITON_NATIVE = hook.TRITON_NATIVE
_meta_path_checked = None  # the sys.meta_path (as a tuple) last found free of Paddle's proxy


def _check_no_paddle_proxy() -> None:
    """Paddle's own proxy (a sys.meta_path finder) and ours would fight over `import torch`."""
    global _meta_path_checked
    finders = tuple(sys.meta_path)
    if finders == _meta_path_checked:  # the same finders as last time (compared by identity)
        return
    for finder in finders:
        if type(finder).__name__ == "TorchProxyMetaFinder":
            raise ProxyConflictError(
                "Paddle's own torch proxy (paddle.compat.enable_torch_proxy) is active. "
                "Call paddle.compat.disable_torch_proxy() first; torchproxy.enable_torch_proxy "
                "takes the same arguments, so switching is a one-line change.")
    _meta_path_checked = finders


_parsed_cache: dict = {}


def _remember(cache: dict, key, value) -> None:
    """Store in a small per-arguments cache: cleared past 512 entries (arguments built on the
    fly must not grow it without bound); unhashable keys (a set) are simply not cached."""
    try:
        if len(cache) > 512:
            cache.clear()
        cache[key] = value
    except TypeError:
        pass


def _parse(value, what: str):
    """parse_names with a cache for hashable values (guards are entered with the same literal
    scope again and again)."""
    try:
        return _parsed_cache[(what, value)]
    except (KeyError, TypeError):
        pass
    names = _scope.parse_names(value, what)
    if what == "scope":
        _scope.check_scope(names)
    _remember(_parsed_cache, (what, value), names)
    return names


def _parse_scope(scope):
    if scope is None:
        return None
    names = _parse(scope, "scope")
    if not names:
        raise ValueError("empty scope: name the modules that get the facade "
                         "(scope={'mylib'}), or pass scope=None for global mode")
    return names


def _check_flag(value, what: str) -> None:
    if not isinstance(value, bool):
        raise TypeError(f"{what} must be True or False, got {type(value).__name__} {value!r}")


def _publish(new) -> None:
    """(with _lock held) Make ``new`` the current rules, all-or-nothing: the pieces it needs are
    installed first (parked pieces stay), then the rules are published in one assignment, then
    global mode's sys.modules entries follow.  Interrupted, it goes back to the old rules, and
    takes back pieces it installed itself."""
    prev = _STATE.snapshot
    if new is prev:
        return
    on = new.active
    if not new.global_mode and not prev.global_mode and (
            not on or hook.installed() and _tensor.installed()):
        # the common case (a guard in and out, pieces parked): one assignment
        _STATE.assign(new)
        if on and _TRITON_NATIVE in sys.modules:  # (the call only once Triton is loaded)
            hook.settle_triton_if_due()
        return
    fresh = on and not (hook.installed() and _tensor.installed())
    sync = (on and new.global_mode) != (prev.active and prev.global_mode)
    try:
        if on:
            hook.install()
            _tensor.install()
            _triton_messages.watch_driver()  # "0 active drivers" says what to do
        _STATE.assign(new)
        if sync:
            hook.sync_global_mode()
    except BaseException:
        _STATE.assign(prev)
        if sync:
            hook.sync_global_mode()
        if fresh:
            _teardown()
        raise
    if on:
        hook.settle_triton_if_due()  # Triton's C import of torch, when Triton is loaded in scope


def _untrack_streams() -> None:
    """Paddle's stream setter back as it was (paddle_shims.track_stream_changes: the tvm-ffi
    launches' stream cache), when paddle_shims was loaded at all (nothing is imported here)."""
    shims = sys.modules.get("torchproxy.paddle_shims")
    if shims is not None:
        shims.untrack_stream_changes()


def _teardown() -> None:
    """(with _lock held) Remove every physical piece; finishes the job if interrupted."""
    try:
        hook.sync_global_mode()
        _tensor.uninstall()
        hook.uninstall()
        _triton_messages.unwatch_driver()
        _untrack_streams()
    except BaseException:
        hook.sync_global_mode()
        _tensor.uninstall()
        hook.uninstall()
        _triton_messages.unwatch_driver()
        _untrack_streams()
        raise


def enable(scope=None, *, blocked=None, silent: bool = True) -> None:
    """Give the torch facade to modules in ``scope`` (``"mylib"`` covers ``mylib.*``).

    ``scope=None`` is global mode: every importer gets the facade and it is published as
    ``sys.modules["torch"]``.  ``blocked`` modules always get real torch (or ImportError) and
    win over scope.  Calling again extends the scope; it never installs a second hook.
    """
    parsed = _parse_scope(scope)
    blocked_names = _parse(blocked, "blocked")
    _check_flag(silent, "silent")
    with _lock:
        _check_no_paddle_proxy()
        base = _STATE.base
        if not silent and base is not None and parsed != base.scope:
            warnings.warn(f"torchproxy: extending scope {sorted(base.scope or ['*'])} "
                          f"with {sorted(parsed or ['*'])}", stacklevel=2)
        _publish(_STATE.with_base(parsed, blocked_names))


def disable() -> None:
    """Back exactly to how things were before the first enable(): rules, import hook, Tensor
    methods, dtype attributes and sys.modules."""
    with _lock:
        try:
            _STATE.assign(_STATE.initial())
            _teardown()
        except BaseException:
            # finish the job (the rules are the truth; _teardown completes itself)
            _STATE.assign(_STATE.initial())
            _teardown()
            raise
        finally:
            if _STATE.snapshot is _STATE.initial():
                _STATE.facade_users.clear()


def is_enabled() -> bool:
    return _STATE.active


class guard:
    """Scoped, nestable, exception-safe: the proxy (or, with enable=False, its absence) holds
    inside the block only.  Guards are process-wide, like imports.  Usable as a decorator.

    Entering and leaving are all-or-nothing, also when interrupted (KeyboardInterrupt)."""

    __slots__ = ("_layer", "_layers")

    def __init__(self, scope=None, *, enable: bool = True, blocked=None):
        # the layer is interned per arguments: its transitions are remembered (scope.py)
        try:
            if enable is not True:  # (a key with enable=1 would find enable=True's layer)
                raise KeyError
            self._layer = _guard_layers[(scope, blocked)]
        except (KeyError, TypeError):  # new arguments, or unhashable ones (a set)
            self._layer = _guard_layer(scope, enable, blocked)
        self._layers = []

    def __enter__(self):
        layer = self._layer
        with _lock:
            if layer.enable and tuple(sys.meta_path) != _meta_path_checked:
                _check_no_paddle_proxy()
            self._layers.append(layer)
            try:
                # (with_guard's remembered transition, inline: guards are hot)
                _publish(_STATE.snapshot.pushes.get(layer) or _STATE.with_guard(layer))
            except BaseException:
                self._layers.pop()
                raise
        return None

    def __exit__(self, *exc):
        with _lock:
            layer = self._layers[-1]
            try:
                s = _STATE.snapshot
                parent = s.parent  # (without_guard's shortcut, inline: guards are hot)
                new = parent.below if parent is not None and parent.layer is layer else \
                    _STATE.without_guard(layer)
                if new is not s:
                    _publish(new)
            except BaseException:
                _leave(layer)  # interrupted: finish leaving (idempotent), then report
                raise
            finally:
                if self._layers and self._layers[-1] is layer:
                    self._layers.pop()
        return False

    def __call__(self, fn):
        """Decorate ``fn``: its body runs inside the guard, as ``with guard(...):`` at its top
        would.  Coroutine functions hold the guard across their awaits and generator functions
        across their yields (while suspended too: guards are process-wide); an async generator
        function is refused (its asend/athrow protocol cannot be forwarded faithfully)."""
        import functools
        import inspect

        if inspect.isasyncgenfunction(fn):
            raise TypeError(f"torchproxy.guard cannot decorate the async generator function "
                            f"{fn.__qualname__!r}: use `with torchproxy.guard(...):` inside it")
        if inspect.iscoroutinefunction(fn):
            @functools.wraps(fn)
            async def async_wrapper(*args, **kwargs):
                with guard.__new__(guard)._copy(self):
                    return await fn(*args, **kwargs)
            return async_wrapper
        if inspect.isgeneratorfunction(fn):
            @functools.wraps(fn)
            def generator_wrapper(*args, **kwargs):
                with guard.__new__(guard)._copy(self):
                    return (yield from fn(*args, **kwargs))
            return generator_wrapper

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            with guard.__new__(guard)._copy(self):
                return fn(*args, **kwargs)
        return wrapper

    def _copy(self, other):
        self._layer = other._layer
        self._layers = []
        return self


_guard_layers: dict = {}  # (scope, blocked) of guard(scope, blocked=...) -> its layer


def _guard_layer(scope, enable, blocked):
    _check_flag(enable, "enable")
    layer = _scope.layer(_parse_scope(scope), enable, _parse(blocked, "blocked"))
    if enable is True:
        _remember(_guard_layers, (scope, blocked), layer)
    return layer


def _leave(layer) -> None:
    new = _STATE.without_guard(layer)
    if new is not _STATE.snapshot:
        _publish(new)


def status() -> dict:
    """What is enabled, for which scopes, and which modules got the facade."""
    real_torch = sys.modules.get("torch")
    return {
        "enabled": _STATE.active,
        "global": _STATE.global_mode,
        "scope": sorted(_STATE.scope),
        "blocked": sorted(_STATE.blocked),
        "guards": len(_STATE.guards),
        "hook_installed": hook.installed(),
        "tensor_methods_installed": _tensor.installed(),
        "facade_users": _STATE.current_users(),
        "real_torch_loaded": real_torch is not None and not hook.is_facade(real_torch),
        "real_torch_installed": _real_torch_installed(),
        "paddle_version": _paddle_version(),
        # the torch API level the facade claims as torch.__version__ (docs: README, doctor)
        "facade_torch_version": _facade_torch_version(),
        # "c" (torchproxy._cdispatch) or "python" (TORCHPROXY_PURE_PYTHON=1, or no C build)
        "tensor_dispatcher": _tensor_dispatcher(),
    }


def _facade_torch_version() -> str:
    from .facade.core import TORCH_VERSION
    return TORCH_VERSION


def _tensor_dispatcher() -> str:
    from .facade import dispatch
    return dispatch.backend()


def _real_torch_installed() -> bool:
    # PathFinder looks at sys.path only: neither sys.modules nor our hook can answer for it
    import importlib.machinery
    return importlib.machinery.PathFinder.find_spec("torch") is not None


def _paddle_version() -> str:
    from . import PADDLE_VERSION
    return PADDLE_VERSION


# -- fork ----------------------------------------------------------------------------------------
def _fork_locks() -> list:
    """Every lock the package holds, in the order its code nests them: Triton's driver binding
    (its imports reach the hook), the rules, the hook, tracing, the Tensor methods, the facade
    build, libcuda, spawn propagation.  Modules not loaded yet hold none."""
    locks = []
    for module, attr in (("torchproxy.integrations.triton", "_lock"),
                         ("torchproxy.scope", "STATE"), ("torchproxy.hook", "_lock"),
                         ("torchproxy.tracing", "_lock"), ("torchproxy.facade.tensor", "_lock"),
                         ("torchproxy.facade.modules", "_build_lock"),
                         ("torchproxy.paddle_shims", "_lib_lock"),
                         ("torchproxy.children", "_lock")):
        lock = getattr(sys.modules.get(module), attr, None)
        if attr == "STATE" and lock is not None:
            lock = lock.lock
        if lock is not None:
            locks.append(lock)
    return locks


_FORK_WAIT_S = 30.0
_fork_locks_held: list = []
_fork_locks_all: list = []


def _before_fork() -> None:
    """os.fork() waits for any change in progress (another thread inside enable(), a guard, a
    trace...) to finish, so the child starts from consistent rules and pieces: the child has
    only the forking thread, and a lock another thread held would stay held there forever.
    A lock still held after _FORK_WAIT_S (a thread stuck inside it) is not waited for longer:
    the fork goes ahead with a warning, and the child gets that lock unlocked too."""
    _fork_locks_all[:] = _fork_locks()
    for lock in _fork_locks_all:
        if lock.acquire(timeout=_FORK_WAIT_S):
            _fork_locks_held.append(lock)
        else:
            warnings.warn(f"torchproxy: os.fork() went ahead after {_FORK_WAIT_S:.0f} s without "
                          f"torchproxy's lock {lock!r} (another thread holds it); the child "
                          f"starts with it unlocked", RuntimeWarning)


def _after_fork_in_parent() -> None:
    while _fork_locks_held:
        _fork_locks_held.pop().release()
    _fork_locks_all.clear()


def _after_fork_in_child() -> None:
    for lock in _fork_locks_all:
        lock._at_fork_reinit()
    _fork_locks_held.clear()
    _fork_locks_all.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(before=_before_fork, after_in_parent=_after_fork_in_parent,
                        after_in_child=_after_fork_in_child)


# -- paddle.compat's names, so code written for it works by changing one import --------------
def enable_torch_proxy(*, scope=None, blocked_modules=None, backend: str = "torch",
                       silent: bool = False) -> None:
    if backend != "torch":
        raise ValueError(f"Unsupported backend: {backend!r} (only 'torch')")
    enable(scope, blocked=blocked_modules, silent=silent)


def disable_torch_proxy() -> None:
    disable()


def use_torch_proxy_guard(*, enable: bool = True, scope=None, silent: bool = False):
    return guard(scope, enable=enable)


def extend_torch_proxy_blocked_modules(modules) -> None:
    names = _parse(modules, "blocked")
    with _lock:
        _STATE.add_blocked(names)


# -- TORCHPROXY_SCOPE / TORCHPROXY_BLOCKED ------------------------------------------------------
_ENV_HELP = {
    "TORCHPROXY_SCOPE": "a comma-separated list of module names (e.g. 'mylib,triton'; each an "
                        "identifier or identifiers joined by dots), or '*' for global mode",
    "TORCHPROXY_BLOCKED": "a comma-separated list of module names (e.g. 'tvm_ffi,otherlib')",
}
# what unsetting the variable does: SCOPE switches the proxy on, BLOCKED only adds blocked names
_ENV_UNSET = {
    "TORCHPROXY_SCOPE": "unset it to leave torchproxy off",
    "TORCHPROXY_BLOCKED": "unset it to block only the default modules ("
                          + ", ".join(sorted(_scope.DEFAULT_BLOCKED)) + ")",
}
# set by torchproxy/__init__.py instead of raising when the process is the torchproxy command
# line, which reports it in one line itself (`status` and `doctor` must run exactly then)
environment_error: str | None = None


def environment_config() -> tuple[bool, frozenset | None, frozenset]:
    """(enable?, scope, blocked) from TORCHPROXY_SCOPE / TORCHPROXY_BLOCKED, or
    ConfigurationError naming the variable, its value and what is valid."""
    raw_scope = os.environ.get("TORCHPROXY_SCOPE", "")
    raw_blocked = os.environ.get("TORCHPROXY_BLOCKED", "")

    def bad(var, value, why):
        return ConfigurationError(f"{var}={value!r} is not valid: {why}. Expected "
                                  f"{_ENV_HELP[var]}; {_ENV_UNSET[var]}.")

    try:
        blocked = _scope.parse_names(raw_blocked, "TORCHPROXY_BLOCKED")
    except ValueError as e:
        raise bad("TORCHPROXY_BLOCKED", raw_blocked, _why(e)) from None
    value = raw_scope.strip()
    if not value:
        return False, None, blocked
    if value == "*":
        return True, None, blocked
    try:
        names = _scope.parse_names(value, "TORCHPROXY_SCOPE")
        _scope.check_scope(names)
    except ValueError as e:
        raise bad("TORCHPROXY_SCOPE", raw_scope, _why(e)) from None
    return True, names, blocked


def _why(e: Exception) -> str:
    msg = str(e)
    for prefix in ("TORCHPROXY_SCOPE: ", "TORCHPROXY_BLOCKED: ", "TORCHPROXY_SCOPE ",
                   "TORCHPROXY_BLOCKED "):
        if msg.startswith(prefix):
            return msg[len(prefix):]
    return msg
