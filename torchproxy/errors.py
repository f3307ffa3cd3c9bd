"""The errors torchproxy raises for torch names it does not provide.

They subclass the built-in errors Python code already handles (AttributeError, so ``hasattr``
probes answer False; ModuleNotFoundError, so ``try: import torch.x except ImportError`` works),
and the message always names the torch name and says what to do.
"""
from __future__ import annotations

HELP = (
    "Use the Paddle equivalent directly, add the name to the facade table "
    "(torchproxy/facade/), or keep the calling module out of scope with "
    "torchproxy.enable(blocked=...). `torchproxy coverage` lists what is provided."
)


def _msg(torch_name: str) -> str:
    return f"{torch_name} is not provided by torchproxy. {HELP}"


class NotProvidedError(AttributeError):
    """A torch attribute (function, class, constant) the facade does not provide."""

    def __init__(self, torch_name: str):
        super().__init__(_msg(torch_name))
        self.torch_name = torch_name


class ModuleNotProvidedError(ModuleNotFoundError):
    """A torch submodule the facade does not provide."""

    def __init__(self, torch_name: str):
        super().__init__(_msg(torch_name), name=torch_name)
        self.torch_name = torch_name


class NameNotProvidedImportError(ImportError):
    """``from torch.x import y`` where the facade has no ``torch.x.y``."""

    def __init__(self, torch_name: str):
        module, _, attr = torch_name.rpartition(".")
        super().__init__(f"cannot import name {attr!r} from {module!r}: {_msg(torch_name)}",
                         name=module)
        self.torch_name = torch_name


class ProxyConflictError(RuntimeError):
    """Paddle's own torch proxy is active: two proxies would fight over `import torch`."""


class ScopedCImportError(ImportError):
    """C code (``PyImport_Import``) imports torch for a module in scope outside global mode.
    C code reads its result from ``sys.modules``, which every thread shares: handing it the
    facade would show the facade to every thread, so it is refused."""

    def __init__(self, torch_name: str, importer):
        super().__init__(
            f"torchproxy: C code imports {torch_name!r} (PyImport_Import) for {importer!r}, "
            f"which is in scope. C code reads the module from sys.modules, which all threads "
            f"share, so the facade is not given to C importers outside global mode "
            f"(Triton's specializer is handled: torchproxy.hook.settle_triton). Import torch "
            f"from Python and pass the module to the C code, or use global mode "
            f"(torchproxy.enable(scope=None)).", name=torch_name)
        self.torch_name = torch_name
        self.importer = importer


class ConfigurationError(ValueError):
    """A TORCHPROXY_* environment variable with a value torchproxy cannot use."""
