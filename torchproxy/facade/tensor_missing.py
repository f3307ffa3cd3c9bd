"""A torch Tensor attribute the facade lacks: ``NotProvidedError`` naming it, not Paddle's plain
AttributeError (``x.to_sparse()`` in scope).

tensor.install() puts a :class:`MissingName` on ``paddle.Tensor`` for each name real torch's
Tensor has (``torch_tensor_names.json``, generated from the oracle venv, dunders left out) that
neither Paddle nor the facade provides; uninstall() removes them.  Its ``__get__`` raises
NotProvidedError ``torch.Tensor.<name>`` for a caller in scope and, for everyone else, the
AttributeError Python raises without it.  NotProvidedError is an AttributeError, so
``hasattr()`` stays False either way; a non-data descriptor, so an instance attribute of that
name still wins.  Names torch lacks too never reach it: Python's own AttributeError, unchanged.

Why not a class-level ``__getattr__`` (rounds before issue 26's ninth): setting one on a type
replaces its ``tp_getattro`` with CPython's ``slot_tp_getattr_hook``, which slows EVERY
attribute read on every Paddle tensor (two extra type lookups per read, and the interpreter's
LOAD_ATTR / method-call specialisations switch off): unscoped ``x.strides`` 52 -> 74 ns,
``x.is_contiguous()`` 32 -> 78 ns on this host (bench/unscoped_paddle.py measures it).  Named
descriptors cost nothing to the names that exist.

    .venv/bin/python -m torchproxy.facade.tensor_missing --write
"""
from __future__ import annotations

import json
import os
import sys

from .. import scope as _scope

NAMES_JSON = os.path.join(os.path.dirname(os.path.abspath(__file__)), "torch_tensor_names.json")
_names: frozenset | None = None


def torch_tensor_names() -> frozenset:
    global _names
    if _names is None:
        with open(NAMES_JSON) as f:
            _names = frozenset(json.load(f)["names"])
    return _names


class MissingName:
    """``paddle.Tensor.<name>`` for a torch Tensor name nobody provides (see the module doc)."""

    __slots__ = ("name", "full")

    def __init__(self, name: str):
        self.name = name
        self.full = f"torch.Tensor.{name}"

    def __get__(self, obj, objtype=None):
        if obj is None:  # class access: as Python says it without this descriptor
            raise AttributeError(f"type object '{objtype.__name__}' has no attribute "
                                 f"'{self.name}'", name=self.name, obj=objtype)
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if _scope.STATE.wants_facade(caller):
            from ..errors import NotProvidedError
            raise NotProvidedError(self.full)
        raise AttributeError(f"'{type(obj).__name__}' object has no attribute '{self.name}'",
                             name=self.name, obj=obj)

    def __repr__(self):
        return f"<torchproxy: {self.full} is not provided>"


def missing_names(cls) -> list[str]:
    """The torch Tensor names (no dunders) that ``cls`` lacks, in its MRO."""
    have = set()
    for klass in cls.__mro__:
        have.update(klass.__dict__)
    return sorted(n for n in torch_tensor_names() if not n.startswith("__") and n not in have)


def _generate() -> dict:
    import torch  # the oracle venv's real torch
    names = sorted(n for n in dir(torch.Tensor) if not n.startswith("__"))
    return {"torch": torch.__version__.split("+")[0], "names": names}


def main(argv=None) -> int:
    import argparse
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--write", action="store_true", help=f"write {NAMES_JSON}")
    args = p.parse_args(argv)
    data = _generate()
    if args.write:
        with open(NAMES_JSON, "w") as f:
            json.dump(data, f, indent=0)
            f.write("\n")
        print(f"wrote {len(data['names'])} names to {NAMES_JSON}")
    else:
        print(len(data["names"]), "names")
    return 0


if __name__ == "__main__":
    sys.exit(main())
