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


# the commands that still run with a bad TORCHPROXY_SCOPE / TORCHPROXY_BLOCKED (saying so):
# they are what a user reaches for exactly then
ENVIRONMENT_TOLERANT = ("status", "doctor")


def _load(name):
    return importlib.import_module(f"torchproxy.commands.{name.replace('-', '_')}")


DESCRIPTION = ("torchproxy: run code written for PyTorch, unmodified, on PaddlePaddle tensors. "
               "Each command below has its own --help.")


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser; with ``command``, only that command's arguments are set up (`matrix` imports
    compat_matrix for its own: other commands need not)."""
    parser = argparse.ArgumentParser(prog="torchproxy", description=DESCRIPTION)
    sub = parser.add_subparsers(dest="command", required=True)
    for name, help_ in COMMANDS.items():
        p = sub.add_parser(name, help=help_, description=help_)
        if command is not None and name != command:
            continue
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
    first = next((a for a in argv if not a.startswith("-")), None)
    parser = build_parser(first if first in COMMANDS else None)
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "_no_matrix", False):  # `matrix` without compat_matrix
        parser.error(f"unrecognized arguments: {' '.join(extra)}")  # takes any, to say why not
    if getattr(args, "_unavailable", False):
        print(f"torchproxy: the '{args.command}' command is not available in this build",
              file=sys.stderr)
        return 2
    from . import api
    if api.environment_error:
        # a bad TORCHPROXY_SCOPE / TORCHPROXY_BLOCKED (torchproxy/__init__.py left the proxy
        # off): doctor lists it with its problems, status says it first, the others refuse
        if args.command not in ENVIRONMENT_TOLERANT:
            print(f"torchproxy {args.command}: {api.environment_error}", file=sys.stderr)
            return 2
        if args.command == "status":
            print(f"torchproxy status: {api.environment_error}", file=sys.stderr)
    return int(_load(args.command).main(args) or 0)


def main_without_paddle(error: str, argv=None) -> int:
    """The command line when Paddle cannot be found (torchproxy/__init__.py calls this instead
    of importing the rest of the package): ``doctor`` runs, any other command is one line."""
    argv = sys.argv[1:] if argv is None else argv
    first = next((a for a in argv if not a.startswith("-")), None)
    if first != "doctor":
        # any other command's arguments are beside the point: Paddle comes first
        args, _ = build_parser("").parse_known_args(argv)
        print(f"torchproxy {args.command}: {error.removeprefix('torchproxy: ')}", file=sys.stderr)
        return 2
    return int(_load("doctor").main(build_parser("doctor").parse_args(argv)) or 0)


if __name__ == "__main__":
    sys.exit(main())
