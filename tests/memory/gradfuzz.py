"""Differential fuzzer of training-loop autograd state: real torch vs the facade.

    .venv/bin/python -m tests.memory.gradfuzz --programs 2000 --seed 1 --ledger
    .venv/bin/python -m tests.memory.gradfuzz --replay tests/memory/gradregressions.json --ledger

Random programs (gradprogs.py) over 2-3 small leaves: forwards through views and backward,
autograd.grad, held ``p.grad`` references, ``p.grad = None / tensor / p.grad * 2``, in-place
updates of gradients and leaves, zero_grad, optimizer steps, retain_grad, hooks,
requires_grad_ toggles, detach_.  After every step every observable is compared with real
torch (gradrun.py).  The oracle runs in this process; the facade in the view fuzzer's fork
servers (fuzz.py / viewchild.py: global mode, MALLOC_CHECK_=3), so a crash names its program.
A failing program reports the first step that differs.  Exit status 1 when a program fails
(with --ledger: in a way no open finding of gradledger.json explains).
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile
import time
from collections import Counter

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import fuzz  # noqa: E402
from fuzz import ChainResult, Server, _crash_text, real_torch, run_facade  # noqa: E402
from gradprogs import draw_programs, ledger_text, program_text  # noqa: E402
from gradrun import CLASSES, compare, run_program  # noqa: E402
from viewcompare import Outcome  # noqa: E402
from viewledger import explain  # noqa: E402

RUNNER = "gradrun:run_program"
REPO = os.path.dirname(os.path.dirname(HERE))
LEDGER = os.path.join(HERE, "gradledger.json")
REGRESSIONS = os.path.join(HERE, "gradregressions.json")


def load_ledger():
    with open(LEDGER) as f:
        return json.load(f)["findings"]


def load_regressions():
    with open(REGRESSIONS) as f:
        return json.load(f)


def open_findings(series: str):
    return [f for f in load_ledger() if series in f["paddle"]]


def explain_program(prog, failures, findings):
    return explain(prog, failures, findings, text=ledger_text(prog))


def fuzz_programs(progs, python=sys.executable, jobs=2, batch=200):
    """-> (paddle version, [ChainResult]) (ChainResult.chain is the program)."""
    torch = real_torch()
    box = {}
    import threading

    def facade():
        try:
            box["run"] = run_facade(python, progs, jobs=jobs, batch=batch, runner=RUNNER)
        except Exception as exc:  # noqa: BLE001
            box["error"] = exc

    t = threading.Thread(target=facade)
    t.start()
    oracle = [run_program(torch, p) for p in progs]  # overlaps with the facade processes
    t.join()
    if "error" in box:
        raise box["error"]
    run = box["run"]
    results = []
    for i, prog in enumerate(progs):
        if i in run.crashes:
            results.append(ChainResult(i, prog, Outcome(), run.crashes[i]))
        elif i in run.records:
            results.append(ChainResult(i, prog, compare(oracle[i], run.records[i])))
        else:
            raise RuntimeError(f"program {i} has no facade result")
    if run.anomalies:
        print("gradfuzz: " + "\n".join(run.anomalies), file=sys.stderr)
    return (run.header[1] if run.header else "?"), results


class OneServer:
    """One fork server for reruns of single programs (alone checks, shrinking)."""

    def __init__(self, python=sys.executable):
        self.torch = real_torch()
        self.server = Server(python, tempfile.mkdtemp(prefix="gradfuzz-"), runner=RUNNER)

    def failures(self, prog):
        _, records, status, _, err = self.server.run([prog])
        if status != "exit 0":
            return [("crash", _crash_text(status, err))]
        return compare(run_program(self.torch, prog), records[0]).failures

    def close(self):
        self.server.close()


def recheck_alone(results, python=sys.executable):
    """Mark the failing (non-crash) programs that pass in a fork of their own."""
    todo = [r for r in results if r.classes and not r.crash and not r.alone_passes]
    if not todo:
        return
    one = OneServer(python)
    try:
        for r in todo:
            if not one.failures(r.chain):
                r.alone_passes = True
    finally:
        one.close()


def signature(failure) -> str:
    """A failure's symptom: its class and its text up to the values, numbers blanked."""
    cls, detail = failure
    detail = re.sub(r"^(prelude|step \d+): ", "", detail)
    detail = re.split(r"torch \[|torch -?\d|; facade", detail)[0]
    return f"{cls}: " + re.sub(r"\d+", "#", detail)[:80]


def shrink(prog, sig, one: OneServer, rounds=40):
    """Drop steps (and the third leaf) while the program's first failing step still shows the
    symptom ``sig`` (signature())."""
    best = prog
    for _ in range(rounds):
        cands = [{**best, "steps": best["steps"][:k] + best["steps"][k + 1:]}
                 for k in range(len(best["steps"]))]
        if len(best["leaves"]) == 3 and not any("c" in s for s in best["steps"]):
            cands.insert(0, {**best, "leaves": best["leaves"][:2]})
        for cand in cands:
            if sig in [signature(f) for f in one.failures(cand)]:
                best = cand
                break
        else:
            break
    return best


def describe(r) -> str:
    lines = [f"program {r.index}: {', '.join(r.classes)}"]
    if r.crash:
        lines.append(f"    crash: {r.crash[0]} ({'alone' if r.crash[1] else 'only after earlier programs'})")
    for cls, detail in r.outcome.failures[:6]:
        lines.append(f"    {cls}: {detail}")
    lines.append("    | " + program_text(r.chain).replace("\n", "\n    | ").rstrip("| "))
    return "\n".join(lines)


def summary(results):
    by_class = Counter(c for r in results for c in r.classes)
    return {"programs": len(results), "failing": sum(1 for r in results if r.classes),
            "by_class": {c: by_class[c] for c in list(CLASSES) + [fuzz.CONTEXT] if by_class[c]}}


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--programs", type=int, default=1000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--jobs", type=int, default=2)
    p.add_argument("--batch", type=int, default=200)
    p.add_argument("--python", default=sys.executable, help="the facade side's interpreter")
    p.add_argument("--replay", help="a JSON file of programs (gradregressions.json)")
    p.add_argument("--ledger", action="store_true", help="show only failures no open finding "
                                                         "of gradledger.json explains")
    p.add_argument("--shrink", type=int, default=0, help="shrink this many failing programs "
                                                         "(one per first failure class + step kind)")
    p.add_argument("--show", type=int, default=10)
    p.add_argument("--json", help="write every failing program here")
    p.add_argument("--summary", help="write the summary (the printed JSON, with the command "
                                     "and the git commit) here")
    args = p.parse_args(argv)
    if args.replay:
        with open(args.replay) as f:
            progs = [e["program"] if "program" in e else e for e in json.load(f)]
    else:
        progs = draw_programs(args.seed, args.programs)
    start, cpu0 = time.monotonic(), time.process_time()
    version, results = fuzz_programs(progs, python=args.python, jobs=args.jobs, batch=args.batch)
    failing = [r for r in results if r.classes]
    recheck_alone(failing, python=args.python)
    every_failing = [r for r in results if r.classes]
    explained_by, finding_of = Counter(), {}
    failing = every_failing
    if args.ledger:
        findings = open_findings(version.split(".")[0])
        unexplained = []
        for r in every_failing:
            hits, missing = explain_program(r.chain, r.failures, findings)
            explained_by.update(set(hits.values()))
            finding_of[r.index] = sorted(set(hits.values()))
            if missing:
                unexplained.append(r)
        failing = unexplained
    for r in failing[:args.show]:
        print(describe(r))
    if args.shrink and failing:
        one = OneServer(args.python)
        try:
            seen = set()
            for r in failing:
                key = signature(r.failures[0]) if r.outcome.failures else r.classes[0]
                if key in seen or len(seen) >= args.shrink:
                    continue
                seen.add(key)
                small = shrink(r.chain, key, one) if r.outcome.failures else r.chain
                print(f"shrunk [{key}] {one.failures(small)[:2]}:\n" + program_text(small))
                print("  program: " + json.dumps(small))
        finally:
            one.close()
    s = summary(results)
    s.update({"paddle": version, "seed": args.seed, "wall_s": round(time.monotonic() - start, 1),
              "oracle_cpu_s": round(time.process_time() - cpu0, 1)})
    if args.ledger:
        s.update({"explained_by_open_finding": dict(sorted(explained_by.items())),
                  "unexplained": len(failing)})
    print(json.dumps(s, indent=1))
    if args.summary:
        import subprocess
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=HERE,
                                capture_output=True, text=True).stdout.strip()
        # the code that ran: changes to the facade or the fuzzer (not to results files)
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no", "--",
                                os.path.join(REPO, "torchproxy"), HERE],
                               cwd=HERE, capture_output=True, text=True).stdout.strip()
        s.update({"command": "python -m tests.memory.gradfuzz " + " ".join(argv or sys.argv[1:]),
                  "commit": commit + ("+changes" if dirty else "")})
        with open(args.summary, "w") as f:
            json.dump(s, f, indent=1)
            f.write("\n")
    if args.json:
        with open(args.json, "w") as f:
            json.dump([{"index": r.index, "classes": r.classes, "program": r.chain,
                        "failures": r.failures, "findings": finding_of.get(r.index, [])}
                       for r in every_failing], f, indent=1)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
