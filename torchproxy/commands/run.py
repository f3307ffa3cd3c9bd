"""`torchproxy run --scope mylib script.py args...`: run an unmodified script with the proxy on.

The script itself (``__main__``) is in scope too unless ``--no-main`` is given: it is the code
the user asked to run on Paddle.  Children started with multiprocessing's spawn get the same
rules (torchproxy/children.py); there the script is ``__mp_main__``, in scope with ``__main__``.  ``-m pkg.mod`` runs a module like ``python -m``.

``--nproc-per-node N`` starts N such runs as the ranks of one job, the torchrun way
(torchproxy/launcher.py: torchrun's variables, failure and signal handling).

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
    # torchrun's options for one node (both spellings, as torchrun takes them)
    p.add_argument("--nproc-per-node", "--nproc_per_node", dest="nproc_per_node", metavar="N",
                   help="start N processes, each a `torchproxy run` of the script with "
                        "torchrun's variables (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, ...)")
    p.add_argument("--master-addr", "--master_addr", dest="master_addr",
                   help="with --nproc-per-node: MASTER_ADDR (default localhost, or 127.0.0.1 "
                        "with --master-port, as torchrun)")
    p.add_argument("--master-port", "--master_port", dest="master_port",
                   help="with --nproc-per-node: MASTER_PORT (default: a free port)")
    # accepted as torchrun's one-node spellings (`torchrun --standalone --nnodes 1 ...`)
    p.add_argument("--standalone", action="store_true",
                   help="with --nproc-per-node: torchrun's one-node rendezvous (the default "
                        "here: localhost, a free port)")
    p.add_argument("--nnodes", help="with --nproc-per-node: 1 (one node is all this starts)")
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


def _positive_int(value, what: str, low: int, high=None) -> int:
    try:
        n = int(value, 10)
    except ValueError:
        n = None
    if n is None or n < low or (high is not None and n > high):
        bound = f"a whole number >= {low}" if high is None else f"a whole number {low}..{high}"
        raise UsageError(f"{what} must be {bound}, got {value!r}")
    return n


def plan_launch(args):
    """(N, master address, master port) for --nproc-per-node (N None: one process, here)."""
    if args.nproc_per_node is None:
        for given, name in ((args.master_addr, "--master-addr"), (args.master_port, "--master-port"),
                            (args.standalone or None, "--standalone"), (args.nnodes, "--nnodes")):
            if given is not None:
                raise UsageError(f"{name} goes with --nproc-per-node")
        return None, None, None
    n = _positive_int(args.nproc_per_node, "--nproc-per-node", 1)
    if args.nnodes is not None and args.nnodes.strip() not in ("1", "1:1"):
        raise UsageError(f"--nnodes {args.nnodes}: one node only (the ranks this machine starts)")
    if args.standalone and args.master_port is not None:
        # torchrun's --standalone ignores --master-port; say so instead
        raise UsageError("--standalone picks a free port itself: drop --master-port")
    port = (None if args.master_port is None
            else _positive_int(args.master_port, "--master-port", 1, 65535))
    if args.master_addr is not None and not args.master_addr.strip():
        raise UsageError("--master-addr is empty")
    return n, args.master_addr, port


def _child_args(args) -> list:
    """The `torchproxy run` arguments each rank gets: the same scope options and program."""
    out = []
    for s in args.scope:
        out += ["--scope", s]
    for b in args.blocked:
        out += ["--blocked", b]
    if args.global_mode:
        out.append("--global")
    if args.no_main:
        out.append("--no-main")
    if args.module:
        out += ["-m", args.module]
    if args.target is not None:
        out.append(args.target)
    return out + list(args.args)


def main(args) -> int:
    try:
        scope, blocked = plan(args)
        nprocs, master_addr, master_port = plan_launch(args)
    except UsageError as e:
        print(f"torchproxy run: {e}", file=sys.stderr)
        return 2
    if nprocs is not None:
        from torchproxy import launcher
        return launcher.launch(_child_args(args), nprocs, args.module or args.target,
                               master_addr=master_addr, master_port=master_port)
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
