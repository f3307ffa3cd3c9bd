"""The public switch: enable / disable / guard / status, and paddle.compat's names for them."""
from __future__ import annotations

import contextlib
import os
import sys
import threading
import warnings

from . import hook, scope as _scope
from .errors import ProxyConflictError
from .facade import tensor as _tensor

_STATE = _scope.STATE
_lock = threading.RLock()


def _check_no_paddle_proxy() -> None:
    """Paddle's own proxy (a sys.meta_path finder) and ours would fight over `import torch`."""
    for finder in sys.meta_path:
        if type(finder).__name__ == "TorchProxyMetaFinder":
            raise ProxyConflictError(
                "Paddle's own torch proxy (paddle.compat.enable_torch_proxy) is active. "
                "Call paddle.compat.disable_torch_proxy() first; torchproxy.enable_torch_proxy "
                "takes the same arguments, so switching is a one-line change.")


def _parse_scope(scope):
    if scope is None:
        return None
    names = _scope.parse_names(scope)
    if not names:
        raise ValueError("empty scope: name the modules that get the facade "
                         "(scope={'mylib'}), or pass scope=None for global mode")
    return names


def _activate() -> None:
    hook.install()
    _tensor.install()
    hook.sync_global_mode()


def _deactivate_if_idle() -> None:
    if _STATE.base is None and not _STATE.guards:
        hook.sync_global_mode()
        _tensor.uninstall()
        hook.uninstall()
    else:
        hook.sync_global_mode()


def enable(scope=None, *, blocked=None, silent: bool = True) -> None:
    """Give the torch facade to modules in ``scope`` (``"mylib"`` covers ``mylib.*``).

    ``scope=None`` is global mode: every importer gets the facade and it is published as
    ``sys.modules["torch"]``.  ``blocked`` modules always get real torch (or ImportError) and
    win over scope.  Calling again extends the scope; it never installs a second hook.
    """
    parsed = _parse_scope(scope)
    blocked_names = _scope.parse_names(blocked)
    with _lock:
        _check_no_paddle_proxy()
        if blocked_names:
            _STATE.add_blocked(blocked_names)
        if not silent and _STATE.base is not None and parsed != _STATE.base.scope:
            warnings.warn(f"torchproxy: extending scope {sorted(_STATE.base.scope or ['*'])} "
                          f"with {sorted(parsed or ['*'])}", stacklevel=2)
        _STATE.extend_base(parsed)
        _activate()


def disable() -> None:
    """Back exactly to how things were before the first enable()."""
    with _lock:
        _STATE.reset()
        _deactivate_if_idle()


def is_enabled() -> bool:
    return _STATE.active


@contextlib.contextmanager
def guard(scope=None, *, enable: bool = True, blocked=None):
    """Scoped, nestable, exception-safe: the proxy (or, with enable=False, its absence) holds
    inside the block only.  Guards are process-wide, like imports."""
    parsed = _parse_scope(scope)
    blocked_names = _scope.parse_names(blocked)
    layer = _scope._Layer(parsed, enable)
    with _lock:
        if enable:
            _check_no_paddle_proxy()
        saved_blocked = _STATE.blocked
        if blocked_names:
            _STATE.add_blocked(blocked_names)
        _STATE.push(layer)
        if _STATE.active:
            _activate()
        else:
            hook.sync_global_mode()
    try:
        yield
    finally:
        with _lock:
            _STATE.pop(layer)
            if blocked_names:
                _STATE.set_blocked(saved_blocked)
            if _STATE.active:
                _activate()
            else:
                _deactivate_if_idle()


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
        "facade_users": sorted(_STATE.facade_users),
        "real_torch_loaded": real_torch is not None and not hook.is_facade(real_torch),
        "real_torch_installed": _real_torch_installed(),
        "paddle_version": _paddle_version(),
    }


def _real_torch_installed() -> bool:
    # PathFinder looks at sys.path only: neither sys.modules nor our hook can answer for it
    import importlib.machinery
    return importlib.machinery.PathFinder.find_spec("torch") is not None


def _paddle_version() -> str:
    from . import PADDLE_VERSION
    return PADDLE_VERSION


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
    with _lock:
        _STATE.add_blocked(_scope.parse_names(modules))


def _enable_from_environment() -> None:
    """TORCHPROXY_SCOPE=mylib,triton (or '*' for global) enables at import of torchproxy."""
    value = os.environ.get("TORCHPROXY_SCOPE", "").strip()
    if not value:
        return
    blocked = os.environ.get("TORCHPROXY_BLOCKED") or None
    enable(None if value == "*" else value, blocked=blocked)
