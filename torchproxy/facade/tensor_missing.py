"""A torch Tensor attribute the facade lacks: ``NotProvidedError`` naming it, not Paddle's plain
AttributeError (``x.to_sparse()`` in scope).

``paddle.Tensor`` has no ``__getattr__``; tensor.install() adds :func:`missing_attribute` as one
(and uninstall() removes it).  Python calls it only after the normal lookup failed, so nothing
that exists is slowed.  For a caller in scope asking for a name real torch's Tensor has
(``torch_tensor_names.json``, generated from the oracle venv), it raises NotProvidedError
``torch.Tensor.<name>``; every other miss (names torch lacks too, unscoped callers, dunders that
protocol probes look up) raises the AttributeError Paddle would.  NotProvidedError is an
AttributeError, so ``hasattr()`` stays False either way.

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


def missing_attribute(self, name):
    if not name.startswith("__") and name in torch_tensor_names():
        caller = sys._getframe(1).f_globals.get("__name__", "")
        if _scope.STATE.wants_facade(caller):
            from ..errors import NotProvidedError
            raise NotProvidedError(f"torch.Tensor.{name}")
    raise AttributeError(f"'Tensor' object has no attribute '{name}'")


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
