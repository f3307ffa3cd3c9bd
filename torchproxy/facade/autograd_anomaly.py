"""torch's autograd anomaly mode: ``torch.autograd.detect_anomaly`` / ``set_detect_anomaly``
(context managers, as torch's anomaly_mode.py) over one process-wide flag pair (torch's
AnomalyMode is process-wide too), read by ``torch.is_anomaly_enabled`` /
``is_anomaly_check_nan_enabled`` and set by ``torch.set_anomaly_enabled``.

What the mode does in torch: a forward run under it records each op's traceback, printed when
that op's backward later fails; and with ``check_nan`` a backward run under it raises
RuntimeError when a backward function returns NaN.  Paddle's autograd engine has neither hook
(its FLAGS_check_nan_inf checks every op's outputs, forward included, and Inf as well), so a
backward that starts while the mode checks NaN raises NotProvidedError (autograd._run_backward
asks :func:`refuse_nan_checked_backward`) instead of running unchecked; a forward under the
mode, with the backward after it (Liger-Kernel's fused linear KL-div test), and a backward with
``check_nan=False`` run as in torch, without the forward tracebacks torch would add to a failing
backward's error.  Tests: tests/facade_runtime/test_autograd_anomaly.py, against real torch.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: is_anomaly_check_nan_enabled is_anomaly_enabled set_anomaly_enabled
    torch.autograd: detect_anomaly set_detect_anomaly
""")

import warnings

from ..errors import NotProvidedError
from .registry import torch_function, type_

_MODE = {"enabled": False, "check_nan": True}  # torch's defaults


@torch_function("torch.is_anomaly_enabled")
def is_anomaly_enabled() -> bool:
    return _MODE["enabled"]


@torch_function("torch.is_anomaly_check_nan_enabled")
def is_anomaly_check_nan_enabled() -> bool:
    return _MODE["check_nan"]


@torch_function("torch.set_anomaly_enabled")
def set_anomaly_enabled(enabled, check_nan=True):
    for pos, (name, v) in enumerate((("enabled", enabled), ("check_nan", check_nan)), 1):
        if not isinstance(v, bool):  # torch's binder: bool only (1 is refused)
            raise TypeError(f"set_anomaly_enabled(): argument '{name}' (position {pos}) must "
                            f"be bool, not {type(v).__name__}")
    _MODE["enabled"], _MODE["check_nan"] = enabled, check_nan


def refuse_nan_checked_backward(what: str) -> None:
    if _MODE["enabled"] and _MODE["check_nan"]:
        raise NotProvidedError(f"{what} under torch.autograd.detect_anomaly / "
                               "set_detect_anomaly with check_nan=True (the NaN check of each "
                               "backward function; run the backward outside the mode, or with "
                               "check_nan=False)")


class detect_anomaly:
    """Context manager: anomaly mode on (with ``check_nan``) inside, the previous mode after."""

    def __init__(self, check_nan=True) -> None:
        self.prev = is_anomaly_enabled()
        self.check_nan = check_nan
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        warnings.warn("Anomaly Detection has been enabled. This mode will increase the runtime "
                      "and should only be enabled for debugging.", stacklevel=2)

    def __enter__(self) -> None:
        set_anomaly_enabled(True, self.check_nan)

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


class set_detect_anomaly:
    """Sets the mode at construction (a function call or a context manager); the context
    manager's exit restores the previous mode."""

    def __init__(self, mode: bool, check_nan: bool = True) -> None:
        self.prev = is_anomaly_enabled()
        self.prev_check_nan = is_anomaly_check_nan_enabled()
        set_anomaly_enabled(mode, check_nan)

    def __enter__(self) -> None:
        pass

    def __exit__(self, *args) -> None:
        set_anomaly_enabled(self.prev, self.prev_check_nan)


type_("torch.autograd.detect_anomaly", detect_anomaly,
      note="a backward run inside the mode with check_nan=True raises NotProvidedError (no "
           "per-function NaN check in Paddle's engine); forward tracebacks are not recorded")
type_("torch.autograd.set_detect_anomaly", set_detect_anomaly,
      note="see torch.autograd.detect_anomaly")
