"""Command line of the matrix, shared by ``python -m compat_matrix`` and ``torchproxy matrix``."""
from __future__ import annotations

import argparse
import os
import sys

from . import spec as spec_mod


def _csv(value):
    return [v.strip() for v in value.split(",") if v.strip()]


def add_arguments(p: argparse.ArgumentParser) -> None:
    p.add_argument("--libs", type=_csv, help="comma-separated libraries (default: all specs)")
    p.add_argument("--cases", type=_csv, help="only these case names (the import case always runs)")
    p.add_argument("--backend", type=_csv, default=list(spec_mod.BACKENDS),
                   help="comma-separated backends: torch,torchproxy,paddle_compat (default: all; "
                        "torch, the oracle, always runs when a proxy backend is asked for)")
    p.add_argument("--device", type=_csv, default=None,
                   help="cpu,gpu (default: cpu, plus gpu when one is present)")
    p.add_argument("--jobs", "-j", type=int, default=2, help="cases run at the same time (default 2)")
    p.add_argument("--timeout", type=float, default=180.0, help="seconds per cell (default 180)")
    p.add_argument("--out", default="reports", help="where results and reports go (default reports/)")
    p.add_argument("--resume", action="store_true", help="keep OUT/results.jsonl, run only what is missing")
    p.add_argument("--report-only", action="store_true", help="only (re)write the reports from OUT")
    p.add_argument("--python", default=sys.executable, help="Python that runs the workers")
    p.add_argument("--python-for", action="append", default=[], metavar="LIB=PYTHON",
                   help="run one library's workers with another Python (its own environment), "
                        "e.g. kernels_tilelang=/opt/venv-tlu/bin/python; repeatable")
    p.add_argument("--specs", action="append", help="spec file or folder (repeatable; default: built-in)")
    p.add_argument("--list", action="store_true", help="list libraries, cases and install commands")
    p.add_argument("--requirements", action="store_true",
                   help="print the libraries' pinned requirements (pip install --no-deps -r -), "
                        "leaving out --python-for libraries (they live in their own environment)")
    p.add_argument("--no-interpreter-fix", action="store_true",
                   help="do not apply torchproxy's fixes to Triton's CPU interpreter (numpy>=2.4 "
                        "__index__, float arguments, autotune without a driver, libdevice; "
                        "torchproxy/integrations/triton_interpreter.py), applied to every backend "
                        "alike, the oracle included")
    p.add_argument("--shard", default=None, metavar="I/N",
                   help="run only the I-th of N parts (whole libraries, balanced by case count), "
                        "e.g. one CI job each; join the parts' OUT folders with --merge")
    p.add_argument("--merge", nargs="+", default=None, metavar="DIR",
                   help="merge the OUT folders of shard runs into --out and write the reports")
    p.add_argument("--publish", default=None, metavar="PATH",
                   help="also write the results page the README links to (e.g. "
                        "docs/results/matrix-cpu.md) from OUT's records")
    p.add_argument("--isolate", action="store_true",
                   help="one worker process per cell (slow; default: one per library x backend)")
    p.add_argument("--no-fork-server", action="store_true",
                   help="start every CPU worker as a fresh Python (default: forked from one "
                        "process per Python that imported Paddle or torch once; "
                        "compat_matrix/forkserver.py)")
    p.add_argument("--no-scan", action="store_true",
                   help="skip the static `torchproxy scan` of each library (reports list its missing names)")


def _list(specs) -> int:
    for s in specs:
        lib = s.library
        print(f"{lib.name}: scope={','.join(lib.scope)} devices={','.join(lib.devices)}")
        for cmd in lib.install_lines():
            print(f"    install: {cmd}")
        print("    cases: import, " + ", ".join(c.name for c in s.cases))
    return 0


def main(args) -> int:
    from . import reports
    from .progress import Progress
    from .runner import Options, Runner

    bad = set(args.backend) - set(spec_mod.BACKENDS)
    if bad:
        print(f"unknown backend(s) {sorted(bad)}; known: {', '.join(spec_mod.BACKENDS)}", file=sys.stderr)
        return 2
    if args.device and set(args.device) - set(spec_mod.DEVICES):
        print(f"unknown device(s) in {args.device}; known: cpu, gpu", file=sys.stderr)
        return 2
    python_for = {}
    for item in args.python_for:
        lib, sep, py = item.partition("=")
        if not sep or not lib or not py:
            print(f"--python-for takes LIB=PYTHON, not {item!r}", file=sys.stderr)
            return 2
        python_for[lib] = py
    shard = None
    if args.shard:
        try:
            i, n = (int(x) for x in args.shard.split("/"))
            assert n >= 1 and 1 <= i <= n
            shard = (i, n)
        except (ValueError, AssertionError):
            print(f"--shard takes I/N with 1 <= I <= N, e.g. 2/3; not {args.shard!r}", file=sys.stderr)
            return 2
    if args.merge:
        try:
            paths = reports.merge(args.merge, args.out)
        except ValueError as e:
            print(f"merge: {e}", file=sys.stderr)
            return 2
        print("\n".join(f"{k}: {v}" for k, v in paths.items()))
        return 0
    if args.list:
        return _list(spec_mod.load_specs(args.specs, args.libs))
    if args.requirements:
        seen = []
        for s in spec_mod.load_specs(args.specs, args.libs):
            if s.library.name not in python_for:
                seen += [r for r in s.library.pip if r not in seen]
        print("\n".join(seen))
        return 0
    if args.report_only:
        paths = reports.write_all(args.out)
        if args.publish:
            paths["published"] = _publish(args)
        print("\n".join(f"{k}: {v}" for k, v in paths.items()))
        return 0
    opts = Options(out=args.out, libs=args.libs, backends=tuple(args.backend),
                   devices=tuple(args.device) if args.device else None, jobs=args.jobs,
                   timeout=args.timeout, resume=args.resume, python=args.python,
                   specs=args.specs, cases=args.cases, scan=not args.no_scan,
                   interpreter_fix=not args.no_interpreter_fix, python_for=python_for,
                   shard=shard, isolate=args.isolate, fork_server=not args.no_fork_server)
    if args.libs:
        # unknown names are refused before the progress note: the refusal is the only line
        try:
            spec_mod.load_specs(args.specs, args.libs)
        except ValueError as e:
            print(f"error: {e}", file=sys.stderr)
            return 2
    progress = Progress()
    progress.note(f"planning ({'all libraries' if not args.libs else ', '.join(args.libs)}); "
                  f"reports go to {args.out}/")
    runner = Runner(opts, progress)
    try:
        runner.plan()
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    # created only once the plan holds: a refused command leaves no empty folder behind
    os.makedirs(args.out, exist_ok=True)
    code = 0
    try:
        runner.run()
    except KeyboardInterrupt:
        print("\ninterrupted: results so far are in "
              f"{os.path.join(args.out, 'results.jsonl')}; --resume continues", file=sys.stderr)
        code = 130
    paths = reports.write_all(args.out)
    if args.publish:
        paths["published"] = _publish(args)
    print("reports: " + ", ".join(paths.values()), file=sys.stderr)
    return code


def _publish(args) -> str:
    from .reports import Matrix, publish
    m = Matrix.load(args.out)
    opts = m.meta.get("options", {})
    cmd = "python -m compat_matrix --out reports -j {}".format(opts.get("jobs", 2)) + "".join(
        f" --python-for {k}=..." for k in sorted(opts.get("python_for", {})))
    os.makedirs(os.path.dirname(os.path.abspath(args.publish)), exist_ok=True)
    with open(args.publish, "w", encoding="utf-8") as f:
        f.write(publish.render(m, command="./dev matrix  (= " + cmd + ")"))
    return args.publish


def run(argv=None) -> int:
    p = argparse.ArgumentParser(prog="python -m compat_matrix",
                                description="run the compatibility matrix (libraries x cases x backends)")
    add_arguments(p)
    return main(p.parse_args(argv))
