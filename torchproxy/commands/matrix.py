"""`torchproxy matrix`: the compatibility matrix; the work is done by the compat_matrix package.

compat_matrix/ lives in the repository, not in the installed package (pyproject.toml): from a
wheel install it is found only in a clone's folder, and elsewhere the command says so in one
line instead of failing on an import.
"""
from __future__ import annotations

import os
import sys

NOT_INSTALLED = ("torchproxy matrix: the compatibility matrix is not part of the installed "
                 "package; run it from a clone of the torchproxy repository: `./dev matrix` "
                 "(or `torchproxy matrix` in the clone's folder)")


def _compat_matrix_cli():
    """compat_matrix.cli, or None when neither the environment nor the current folder (a clone)
    has compat_matrix."""
    try:
        from compat_matrix import cli
        return cli
    except ModuleNotFoundError as e:
        if e.name != "compat_matrix":
            raise
    here = os.getcwd()
    if not os.path.isfile(os.path.join(here, "compat_matrix", "__init__.py")):
        return None
    # a wheel install run from a clone's folder: that clone's matrix
    sys.path.insert(0, here)
    from compat_matrix import cli
    return cli


def add_arguments(parser) -> None:
    cli = _compat_matrix_cli()
    if cli is None:
        # torchproxy.cli accepts any arguments then, so main() can say what to do instead
        parser.set_defaults(_no_matrix=True)
        return
    cli.add_arguments(parser)


def main(args) -> int:
    if getattr(args, "_no_matrix", False):
        print(NOT_INSTALLED, file=sys.stderr)
        return 2
    from compat_matrix import cli
    return cli.main(args)
