"""`torchproxy <command>`: each command is one module in torchproxy/commands/ with
``add_arguments(parser)`` and ``main(args) -> int``."""
from __future__ import annotations

import argparse
import importlib
import sys

COMMANDS = {
    "run": "run a script with the proxy on (torchproxy run --scope mylib script.py args...)",
    "status": "what is enabled, which scopes, which modules got the facade",
    "coverage": "the facade's coverage table: which torch names are provided, and how",
    "doctor": "check this machine: Paddle, Triton, TileLang, GPU architecture support",
    "matrix": "run the compatibility matrix (libraries x cases x backends)",
    "scan": "porting report: the torch names a package uses, provided or missing",
}


def _load(name):
    return importlib.import_module(f"torchproxy.commands.{name.replace('-', '_')}")


DESCRIPTION = ("torchproxy: run code written for PyTorch, unmodified, on PaddlePaddle tensors. "
               "Each command below has its own --help.")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="torchproxy", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_ in COMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_)
        try:
            _load(name).add_arguments(p)
        except ModuleNotFoundError as e:
            if e.name != f"torchproxy.commands.{name}":
                raise
            p.set_defaults(_unavailable=True)
    return parser


def main(argv=None) -> int:
    import warnings
    # Paddle's import prints a ccache notice meant for extension builders, not for our users
    warnings.filterwarnings("ignore", message="No ccache found")
    argv = sys.argv[1:] if argv is None else argv
    # `run` passes everything after the script through untouched
    parser = build_parser()
    args = parser.parse_args(argv)
    if getattr(args, "_unavailable", False):
        print(f"torchproxy: the '{args.command}' command is not available in this build",
              file=sys.stderr)
        return 2
    return int(_load(args.command).main(args) or 0)


if __name__ == "__main__":
    sys.exit(main())
