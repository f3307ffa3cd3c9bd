"""torchproxy: run code written for PyTorch, unmodified, on PaddlePaddle tensors.

    import paddle, torchproxy
    torchproxy.enable(scope={"liger_kernel", "triton"})
    import liger_kernel     # its `import torch` gets the facade; everyone else keeps real torch

See README.md for how scope works and how this differs from paddle.compat's proxy.
"""
from __future__ import annotations

# Python's zlib module must be loaded before Paddle 2.6: libpaddle carries its own zlib
# symbols, and a zlib extension loaded after it binds to them ("zlib.error: Error -2 ...
# inconsistent stream state", e.g. when tvm_ffi is imported after Paddle).  Added for tvm-ffi.
import zlib  # noqa: F401,E402
import warnings as _warnings

# Paddle's import warns "No ccache found" (meant for builders of C++ extensions) in every
# script; with torchproxy imported before Paddle it stays out of the user's output (the CLI
# and the pytest plugin already did this for themselves)
_warnings.filterwarnings("ignore", message="No ccache found", category=UserWarning)

from ._paddle_check import check as _check_paddle

__version__ = "0.1.0"


def _invoked_as_cli() -> bool:
    """Whether this process is torchproxy's command line (the `torchproxy` script or
    `python -m torchproxy`): decided from the command line, as the package is imported before
    the CLI's own code runs."""
    import os
    import sys
    main = getattr(sys.modules.get("__main__"), "__file__", None) or ""
    if os.path.basename(main) == "torchproxy":
        return True
    argv = list(getattr(sys, "orig_argv", ()))[1:]
    while argv:
        a = argv.pop(0)
        if a in ("-X", "-W"):  # interpreter options that take a value
            argv[:1] = []
        elif a.startswith("-m"):
            return (a[2:] or (argv[0] if argv else "")) in ("torchproxy", "torchproxy.cli")
        elif a == "-c" or not a.startswith("-"):  # a command or a script: not the CLI
            return False
    return False


try:
    PADDLE_VERSION = _check_paddle()
except ImportError as _e:
    if not _invoked_as_cli():
        raise
    # the command line without a usable Paddle: `doctor` runs (the diagnostic is for exactly
    # this), every other command says what to install in one line
    from .cli import main_without_paddle as _main_without_paddle
    raise SystemExit(_main_without_paddle(str(_e))) from None

from .api import (  # noqa: E402
    disable,
    disable_torch_proxy,
    enable,
    enable_torch_proxy,
    extend_torch_proxy_blocked_modules,
    guard,
    is_enabled,
    status,
    use_torch_proxy_guard,
)
from .errors import ModuleNotProvidedError, NameNotProvidedImportError, NotProvidedError, ProxyConflictError  # noqa: E402
from .errors import ConfigurationError, ScopedCImportError  # noqa: E402
from .hook import is_facade  # noqa: E402
from .tracing import trace  # noqa: E402

__all__ = [
    "enable", "disable", "guard", "status", "is_enabled", "is_facade", "trace",
    "enable_torch_proxy", "disable_torch_proxy", "use_torch_proxy_guard",
    "extend_torch_proxy_blocked_modules",
    "NotProvidedError", "ModuleNotProvidedError", "NameNotProvidedImportError",
    "ProxyConflictError", "ConfigurationError", "ScopedCImportError", "PADDLE_VERSION",
]

# TORCHPROXY_SCOPE / TORCHPROXY_BLOCKED.  A bad value is an error, not a warning: the variable
# asks for a different `torch` in this process, and running on with the wrong one (or none)
# fails later, far from the cause, or silently computes on real torch.  Raised here, from this
# module, so the traceback is the user's `import torchproxy` and this line, then the message.
from .api import environment_config as _environment_config  # noqa: E402

try:
    _env = _environment_config()
except ConfigurationError as _e:
    if not _invoked_as_cli():
        raise ConfigurationError(str(_e)) from None
    from . import api as _api
    _api.environment_error = str(_e)  # torchproxy.cli says it in one line
    _env = (False, None, frozenset())
if _env[0]:
    enable(_env[1], blocked=_env[2] or None)
    # spawn children inherit the variable, but may import __main__ before torchproxy: the rules
    # travel with multiprocessing's preparation data (children.py)
    from . import children as _children
    _children.propagate()
del _env
