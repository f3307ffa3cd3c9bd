"""`torchproxy run --scope mylib script.py args...`: run an unmodified script with the proxy on.

The script itself (``__main__``) is in scope too unless ``--no-main`` is given: it is the code
the user asked to run on Paddle.  ``-m pkg.mod`` runs a module like ``python -m``.
"""
from __future__ import annotations

import argparse
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


def main(args) -> int:
    import torchproxy

    if not args.module and not args.target:
        print("torchproxy run: give a script path or -m module", file=sys.stderr)
        return 2
    if args.global_mode:
        scope = None
    else:
        names = {n for s in args.scope for n in s.split(",") if n.strip()}
        if not args.no_main:
            names.add("__main__")
        if not names:
            print("torchproxy run: --scope is empty (name a module, or use --global)", file=sys.stderr)
            return 2
        scope = names
    torchproxy.enable(scope, blocked=[b for s in args.blocked for b in s.split(",")] or None)
    rest = list(args.args)
    if args.module:
        if args.target is not None:
            rest.insert(0, args.target)
        sys.argv = [args.module, *rest]
        runpy.run_module(args.module, run_name="__main__", alter_sys=True)
    else:
        sys.argv = [args.target, *rest]
        sys.path.insert(0, os.path.dirname(os.path.abspath(args.target)))
        runpy.run_path(args.target, run_name="__main__")
    return 0
