"""`torchproxy matrix`: the compatibility matrix; the work is done by the compat_matrix package."""
from __future__ import annotations


def add_arguments(parser) -> None:
    from compat_matrix import cli
    cli.add_arguments(parser)


def main(args) -> int:
    from compat_matrix import cli
    return cli.main(args)
