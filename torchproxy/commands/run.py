"""`torchproxy run --scope mylib script.py args...`: run an unmodified script with the proxy on.

The script itself (``__main__``) is in scope too unless ``--no-main`` is given: it is the code
the user asked to run on Paddle.  Children started with multiprocessing's spawn get the same
rules (torchproxy/children.py); there the script is ``__mp_main__``, in scope with ``__main__``.  ``-m pkg.mod`` runs a module like ``python -m``.

Misuse (no such script or module, a directory without ``__main__.py``, a bad ``--scope`` or
``--blocked``) is one line on stderr and exit status 2, decided before Paddle is imported.
"""
from __future__ import annotations

import argparse
import importlib.util
import os
import runpy
import sys


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--scope", action="append", default=[],
                   help="module(s) whose `import torch` gets the facade (repeat or comma-separate)")
    p.add_argument("--global", dest="global_mode", action="store_true",
                   help="global mode: every importer gets the facade")
    p.add_argument("--blocked", action="append", default=[],
                   help="module(s) that always get real torch")
    p.add_argument("--no-main", action="store_true", help="keep the script itself out of scope")
    p.add_argument("-m", dest="module", help="run a module (like python -m) instead of a script")
    p.add_argument("target", nargs="?", help="the script to run")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")


class UsageError(Exception):
    pass


def _names(values, what):
    from torchproxy import scope as _scope
    for v in values:
        if not v.strip():  # `--scope ""`: refused like `--scope ",,"`, not read as no option
            raise UsageError(f"{what} {v!r} names no module (expected e.g. 'mylib' or 'a,b')")
    joined = ",".join(values)
    try:
        names = _scope.parse_names(joined, what)
        if what == "--scope":
            _scope.check_scope(names)
    except (TypeError, ValueError) as e:
        raise UsageError(str(e)) from None
    return names


def _module_exists(name: str) -> bool:
    if not all(part.isidentifier() for part in name.split(".")):
        raise UsageError(f"-m {name!r} is not a module name")
    # find_spec of a dotted name imports its parents: look each level up in turn
    parts = name.split(".")
    for i in range(1, len(parts) + 1):
        try:
            if importlib.util.find_spec(".".join(parts[:i])) is None:
                return False
        except (ImportError, ValueError):
            return False
    return True


def plan(args):
    """(scope, blocked) or UsageError, without importing Paddle."""
    if not args.module and not args.target:
        raise UsageError("give a script path or -m module")
    if args.global_mode and args.scope:
        raise UsageError("--global and --scope exclude each other")
    blocked = _names(args.blocked, "--blocked")
    if args.global_mode:
        scope = None
    else:
        names = set(_names(args.scope, "--scope"))
        if not args.no_main:
            names.add("__main__")
        if not names:
            raise UsageError("--scope is empty (name a module, or use --global)")
        scope = names
    if args.module:
        if not _module_exists(args.module):
            raise UsageError(f"no module named {args.module!r}")
    else:
        target = args.target
        if os.path.isdir(target):
            if not os.path.isfile(os.path.join(target, "__main__.py")):
                raise UsageError(f"{target!r} is a directory with no __main__.py")
        elif not os.path.exists(target):
            raise UsageError(f"no such script: {target!r}")
        elif not os.path.isfile(target):
            raise UsageError(f"{target!r} is not a file")
    return scope, blocked


def main(args) -> int:
    try:
        scope, blocked = plan(args)
    except UsageError as e:
        print(f"torchproxy run: {e}", file=sys.stderr)
        return 2
    import torchproxy

    torchproxy.enable(scope, blocked=blocked or None)
    # multiprocessing's spawn children (DataLoader workers...) run the same program: same rules
    from torchproxy import children
    children.propagate()
    from torchproxy.integrations.triton_messages import InterpreterScopeError, NoDriverError
    rest = list(args.args)
    try:
        if args.module:
            if args.target is not None:
                rest.insert(0, args.target)
            sys.argv = [args.module, *rest]
            runpy.run_module(args.module, run_name="__main__", alter_sys=True)
        else:
            sys.argv = [args.target, *rest]
            sys.path.insert(0, os.path.dirname(os.path.abspath(args.target)))
            runpy.run_path(args.target, run_name="__main__")
    except (InterpreterScopeError, NoDriverError) as e:
        # how the command was set up, not where in the script: the fix, in one line
        print(f"torchproxy run: {e}", file=sys.stderr)
        return 1
    return 0
