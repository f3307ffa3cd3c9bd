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

from ._paddle_check import check as _check_paddle

PADDLE_VERSION = _check_paddle()
__version__ = "0.1.0"

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
from .hook import is_facade  # noqa: E402
from .tracing import trace  # noqa: E402

__all__ = [
    "enable", "disable", "guard", "status", "is_enabled", "is_facade", "trace",
    "enable_torch_proxy", "disable_torch_proxy", "use_torch_proxy_guard",
    "extend_torch_proxy_blocked_modules",
    "NotProvidedError", "ModuleNotProvidedError", "NameNotProvidedImportError",
    "ProxyConflictError", "PADDLE_VERSION",
]

from .api import _enable_from_environment  # noqa: E402

_enable_from_environment()
