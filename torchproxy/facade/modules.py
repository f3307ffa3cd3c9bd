"""The facade module tree (``torch``, ``torch.nn``, ...) built from the table.

The modules are ordinary ``types.ModuleType`` objects whose attributes are bound once, at build
time, so an attribute read costs what it costs on any module.  A missing name falls through to
``__getattr__``, which raises :class:`~torchproxy.errors.NotProvidedError` naming it.

In scoped mode the tree is *not* published in ``sys.modules``: the import hook serves it from
:data:`MODULES`.  Only global mode publishes it (see ``hook.py``).
"""
from __future__ import annotations

import threading
import types

from ..errors import NotProvidedError
from . import registry


class FacadeModule(types.ModuleType):
    """A torch module of the facade.  Missing attributes raise NotProvidedError.

    The class defines no ``__getattr__``: a Python-level one on the class makes *every*
    attribute read take the slow slot path (about 2x).  Each module gets a PEP 562
    ``__getattr__`` in its ``__dict__`` instead, consulted only on a miss."""

    # marker for code that cannot import torchproxy; torchproxy.is_facade() is the sure test
    __torchproxy__ = True

    def __repr__(self):
        return f"<torchproxy facade module {self.__name__!r}>"


def _missing_attribute_hook(module_name: str):
    def __getattr__(attr: str):
        if attr.startswith("__") and attr.endswith("__"):
            # dunder probes (__path__, __wrapped__, __file__...) keep Python's usual answer
            raise AttributeError(attr)
        full = f"{module_name}.{attr}"
        if _missing_recorder is not None:
            _missing_recorder(full)
        raise NotProvidedError(full)
    return __getattr__


# torchproxy.tracing's record_missing while a trace is active (tracing sits above the facade:
# it sets this rather than the facade importing it)
_missing_recorder = None


def set_missing_recorder(record) -> None:
    global _missing_recorder
    _missing_recorder = record


MODULES: dict[str, FacadeModule] = {}
_build_lock = threading.Lock()


def _module(name: str) -> FacadeModule:
    mod = MODULES.get(name)
    if mod is None:
        mod = FacadeModule(name)
        mod.__package__ = name
        mod.__path__ = []  # a package: `import torch.nn.functional` walks it
        mod.__getattr__ = _missing_attribute_hook(name)
        MODULES[name] = mod
        parent, _, child = name.rpartition(".")
        if parent:
            up = _module(parent)
            # torch.nn.utils.weight_norm is the function, as in torch, whose package attribute
            # shadows its submodule; `import torch.nn.utils.weight_norm` still finds the module
            if isinstance(vars(up).get(child, mod), types.ModuleType):
                setattr(up, child, mod)
    return mod


_built = False
# torch path -> the registered name whose object layout.apply bound there
LAYOUT_BOUND: dict[str, str] = {}


def _object(entry):
    return registry.resolve_paddle(entry.impl) if entry.kind == "alias" else entry.impl


def build() -> dict[str, FacadeModule]:
    """Build the tree once (thread-safe); later calls return it."""
    global _built
    if _built:
        return MODULES
    with _build_lock:
        if _built:
            return MODULES
        table = registry.load_table()
        try:
            _module("torch")
            # parents before children, so `torch.nn` exists before `torch.nn.functional.relu`
            for entry in sorted(table.values(), key=lambda e: e.name.count(".")):
                if entry.kind == "module":
                    _module(entry.name)
                    continue
                parent, _, attr = entry.name.rpartition(".")
                obj = _object(entry)
                setattr(_module(parent), attr, obj)
            # torch's other paths of the same objects (torch.nn.modules.linear.Linear ...)
            from . import layout
            LAYOUT_BOUND.update(layout.apply(table, _object, _module))
        except BaseException:
            MODULES.clear()
            raise
        _built = True
        return MODULES
