"""Differential view-chain fuzzer: random chains of torch view ops, real torch vs the facade.

    .venv/bin/python -m tests.memory.fuzz --chains 100000 --seed 1
    .venv/bin/python -m tests.memory.fuzz --replay tests/memory/regressions.json

The oracle (real torch) runs in this process; the facade runs in fork servers (viewchild.py) started
with glibc's heap checks on, several chains per fork.  A fork that dies is retried chain by chain
from the chain it was running, which names the crashing chain (and whether it crashes alone).
Exit status 1 when any chain fails (crash, error/values/layout/write/grad mismatch).
"""
from __future__ import annotations

import argparse
import glob
import json
import os
import pickle
import queue
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from chainrun import run_chain  # noqa: E402
from viewcompare import CLASSES, Outcome, compare, documented_relaxations  # noqa: E402
from viewchains import draw_chains, one_line  # noqa: E402

# a chain that fails in its batch but passes alone: an earlier chain of the batch left the
# process in a bad state (silent heap corruption, a cache) -- reported, never dropped
CONTEXT = "fails only after earlier chains"

REPO = os.path.dirname(os.path.dirname(HERE))
MALLOC_DEBUG_GLOBS = ("/lib/x86_64-linux-gnu/libc_malloc_debug.so.0",
                      "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0",
                      "/lib*/libc_malloc_debug.so.0", "/usr/lib*/libc_malloc_debug.so.0",
                      "/lib/*-linux-gnu/libc_malloc_debug.so.0")


def malloc_debug_library() -> str:
    """glibc >= 2.34 honours MALLOC_CHECK_ only with libc_malloc_debug preloaded."""
    for pattern in MALLOC_DEBUG_GLOBS:
        found = sorted(glob.glob(pattern))
        if found:
            return found[0]
    raise RuntimeError("glibc's libc_malloc_debug.so.0 was not found: MALLOC_CHECK_=3 would be "
                       "ignored, so the fuzzer cannot check the heap")


def child_env(perturb: int) -> dict:
    env = dict(os.environ)
    env["MALLOC_CHECK_"] = "3"
    env["MALLOC_PERTURB_"] = str(perturb)
    env["LIBC_FATAL_STDERR_"] = "1"  # glibc's abort message to stderr, not the terminal
    env["LD_PRELOAD"] = " ".join(x for x in (malloc_debug_library(), env.get("LD_PRELOAD")) if x)
    env["OMP_NUM_THREADS"] = "1"
    env["PYTHONPATH"] = os.pathsep.join(x for x in (REPO, env.get("PYTHONPATH")) if x)
    return env


class Server:
    """One fork server (viewchild.py) with the facade imported."""

    def __init__(self, python: str, workdir: str, perturb: int = 165,
                 runner: str = "chainrun:run_chain"):
        self.workdir = workdir
        self.runner = runner  # what the fork runs on each item ("module:function")
        self.log = open(os.path.join(workdir, f"server-{id(self)}.log"), "wb")
        self.proc = subprocess.Popen([python, os.path.join(HERE, "viewchild.py")],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=self.log, env=child_env(perturb), text=True,
                                     cwd=REPO)
        line = self.proc.stdout.readline()
        if not line.startswith('{"ready"'):
            self.proc.kill()
            self.log.flush()
            with open(self.log.name, "rb") as f:
                tail = f.read()[-3000:].decode(errors="replace")
            raise RuntimeError(f"fuzz server did not start: {line!r}\n{tail}")
        self.paddle = json.loads(line)["ready"]
        self.n = 0

    def run(self, chains):
        """-> (header, {i: record}, status, index started but not done or None, stderr text)."""
        self.n += 1
        stem = os.path.join(self.workdir, f"b{id(self)}-{self.n}")
        with open(stem + ".json", "w") as f:
            json.dump(chains, f)
        req = {"chains": stem + ".json", "out": stem + ".pickle", "err": stem + ".err",
               "runner": self.runner}
        self.proc.stdin.write(json.dumps(req) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        if not line:
            raise RuntimeError("fuzz server died")
        status = json.loads(line)["status"]
        header, records, started = None, {}, None
        with open(req["out"], "rb") as f:
            while True:
                try:
                    item = pickle.load(f)
                except (EOFError, pickle.UnpicklingError):
                    break
                if item[0] == "paddle":
                    header = item
                elif item[0] == "start":
                    started = item[1]
                else:
                    records[item[1]] = item[2]
                    started = None
        with open(req["err"], "rb") as f:
            err = f.read().decode(errors="replace")
        for suffix in (".json", ".pickle", ".err"):
            os.unlink(stem + suffix)
        return header, records, status, started, err

    def close(self):
        try:
            self.proc.stdin.close()
            self.proc.wait(timeout=120)
        except (OSError, subprocess.TimeoutExpired):
            self.proc.kill()  # our own server: a stuck shutdown must not hide the real result
            self.proc.wait()
        self.log.close()


def _crash_text(status, err):
    lines = [ln for ln in err.splitlines() if ln.strip()]
    glibc = [ln for ln in lines if "malloc" in ln or "free()" in ln or "corrupted" in ln
             or "double free" in ln]
    return f"{status}" + (f" ({glibc[0].strip()})" if glibc else "")


@dataclass
class FacadeRun:
    header: tuple = None
    records: dict = field(default_factory=dict)   # global index -> record
    crashes: dict = field(default_factory=dict)   # global index -> (text, alone: bool, stderr)
    anomalies: list = field(default_factory=list)  # forks that died outside a chain


def run_facade(python, chains, jobs=2, batch=250, workdir=None,
               runner="chainrun:run_chain") -> FacadeRun:
    result = FacadeRun()
    lock = threading.Lock()
    work = queue.Queue()
    indices = list(range(len(chains)))
    for k in range(0, len(indices), batch):
        work.put(indices[k:k + batch])
    own_workdir = workdir is None
    workdir = workdir or tempfile.mkdtemp(prefix="viewfuzz-")
    errors = []

    def worker():
        try:
            server = Server(python, workdir, runner=runner)
        except Exception as exc:  # noqa: BLE001 - reported by the caller
            errors.append(exc)
            return
        try:
            while True:
                try:
                    idx = work.get_nowait()
                except queue.Empty:
                    return
                header, records, status, started, err = server.run([chains[i] for i in idx])
                with lock:
                    result.header = result.header or header
                    for i, rec in records.items():
                        result.records[idx[i]] = rec
                if status == "exit 0":
                    continue
                if started is None:
                    # the fork died between chains (or was stopped before the first one): the
                    # chains it did not finish go back to the queue, the event is reported
                    with lock:
                        result.anomalies.append(f"batch of {len(idx)} ended with {status} between "
                                                f"chains: {err[-500:]!r}")
                    rest = [g for k, g in enumerate(idx) if k not in records]
                    if rest and len(result.anomalies) < 20:
                        work.put(rest)
                    elif rest:
                        raise RuntimeError("fuzz batches keep failing outside chains: "
                                           + "; ".join(result.anomalies[-3:]))
                    continue
                # rerun the chain that was running alone: does it crash by itself?
                suspect = idx[started]
                _, solo, solo_status, _, solo_err = server.run([chains[suspect]])
                with lock:
                    if solo_status == "exit 0":
                        result.crashes[suspect] = (_crash_text(status, err), False, err[-4000:])
                    else:
                        result.crashes[suspect] = (_crash_text(solo_status, solo_err), True,
                                                   solo_err[-4000:])
                rest = idx[started + 1:]
                if rest:
                    work.put(rest)
        except Exception as exc:  # noqa: BLE001
            import traceback
            traceback.print_exc()
            errors.append(exc)
        finally:
            server.close()

    threads = [threading.Thread(target=worker) for _ in range(max(1, jobs))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]  # the work directory (server logs) stays for the post-mortem
    if own_workdir:
        shutil.rmtree(workdir, ignore_errors=True)
    return result


def real_torch():
    import torch
    assert "site-packages" in (getattr(torch, "__file__", "") or ""), \
        f"the oracle needs real torch, got {torch!r}"
    return torch


@dataclass
class ChainResult:
    index: int
    chain: dict
    outcome: Outcome
    crash: tuple = None

    alone_passes: bool = False  # failed in its batch, passes in a fork of its own

    @property
    def failures(self):
        """[(class, detail)]"""
        if self.alone_passes:
            return [(CONTEXT, "; ".join(d for _, d in self.outcome.failures))]
        found = list(self.outcome.failures)
        if self.crash:
            found.insert(0, ("crash", self.crash[0]))
        return found

    @property
    def classes(self):
        if self.alone_passes:
            return [CONTEXT]
        found = [c for c, _ in self.outcome.failures]
        if self.crash:
            found.insert(0, "crash")
        return list(dict.fromkeys(found))


def fuzz(chains, python=sys.executable, jobs=2, batch=250):
    """Run chains on both sides -> (paddle version, [ChainResult], facade run)."""
    gaps = documented_relaxations()
    torch = real_torch()
    box = {}

    def facade():
        try:
            box["run"] = run_facade(python, chains, jobs=jobs, batch=batch)
        except Exception as exc:  # noqa: BLE001
            box["error"] = exc

    t = threading.Thread(target=facade)
    t.start()
    oracle = [run_chain(torch, c) for c in chains]  # overlaps with the facade processes
    t.join()
    if "error" in box:
        raise box["error"]
    run = box["run"]
    flags = run.header[2] if run.header else {}
    results = []
    for i, chain in enumerate(chains):
        if i in run.crashes:
            results.append(ChainResult(i, chain, Outcome(), run.crashes[i]))
        elif i in run.records:
            results.append(ChainResult(i, chain, compare(torch, chain, oracle[i], run.records[i],
                                                         flags, gaps)))
        else:
            raise RuntimeError(f"chain {i} has no facade result")
    if run.anomalies:
        print("fuzz: " + "\n".join(run.anomalies), file=sys.stderr)
    return (run.header[1] if run.header else "?"), results


def recheck_alone(results, python=sys.executable):
    """Rerun each given failing (non-crash) chain in a fork of its own; mark those that pass."""
    todo = [r for r in results if r.classes and not r.crash and not r.alone_passes]
    if not todo:
        return
    torch = real_torch()
    workdir = tempfile.mkdtemp(prefix="viewfuzz-alone-")
    server = Server(python, workdir)
    try:
        for r in todo:
            header, records, status, _, _ = server.run([r.chain])
            if status != "exit 0":
                continue  # crashes alone: a failure either way
            out = compare(torch, r.chain, run_chain(torch, r.chain), records[0], header[2])
            if out.ok:
                r.alone_passes = True
    finally:
        server.close()
    shutil.rmtree(workdir, ignore_errors=True)


def summary(results):
    by_class = Counter(c for r in results for c in r.classes)
    by_class_list = list(CLASSES) + [CONTEXT]
    excused = Counter(k for r in results for k in set(r.outcome.excused))
    failing = sum(1 for r in results if r.classes)
    return {"chains": len(results), "failing": failing,
            "by_class": {c: by_class[c] for c in by_class_list if by_class[c]},
            "excused_by_gaps_toml": dict(excused)}


def describe(r: ChainResult) -> str:
    lines = [f"chain {r.index}: {', '.join(r.classes)}", "    " + one_line(r.chain)]
    if r.crash:
        lines.append(f"    crash: {r.crash[0]} ({'alone' if r.crash[1] else 'only after earlier chains'})")
    for cls, detail in r.outcome.failures:
        lines.append(f"    {cls}: {detail}")
    return "\n".join(lines)


# -- minimising --------------------------------------------------------------------------------
def _candidates(chain):
    ops = chain["ops"]
    out = []
    for k in range(len(ops)):
        out.append({**chain, "ops": ops[:k] + ops[k + 1:]})
    if chain["input"] != "{}":
        out.append({**chain, "input": "{}"})
    return out


def _size(chain):
    n = 1
    for s in chain["shape"]:
        n *= s
    return (len(chain["ops"]), chain["input"] != "{}", n)


def minimize(chain, classes, python=sys.executable, rounds=8):
    """Smallest chain (fewest ops, plain input) that still fails with one of `classes`."""
    best = chain
    for _ in range(rounds):
        cands = sorted(_candidates(best), key=_size)
        if not cands:
            break
        _, results = fuzz(cands, python=python, jobs=1, batch=len(cands))
        hit = next((r.chain for r in results if set(r.classes) & set(classes)), None)
        if hit is None:
            break
        best = hit
    return best


def main(argv=None) -> int:
    p = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--chains", type=int, default=2000)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--max-ops", type=int, default=6, help="longest chain drawn (1-6)")
    p.add_argument("--jobs", type=int, default=2, help="fork servers (CPU cores to use)")
    p.add_argument("--batch", type=int, default=250, help="chains per fork")
    p.add_argument("--python", default=sys.executable, help="the facade side's interpreter")
    p.add_argument("--replay", help="a JSON file of chains (tests/memory/regressions.json)")
    p.add_argument("--minimize", action="store_true", help="shrink each failing chain")
    p.add_argument("--show", type=int, default=20, help="failing chains to print")
    p.add_argument("--json", help="write every failing chain and its classes here")
    p.add_argument("--ledger", action="store_true",
                   help="count failures by the open finding of tests/memory/ledger.json that "
                        "explains them; show only the unexplained ones")
    p.add_argument("--recheck", action="store_true",
                   help="rerun each failing chain alone (marks those that fail only in a batch)")
    args = p.parse_args(argv)
    if args.replay:
        with open(args.replay) as f:
            chains = [e["chain"] if "chain" in e else e for e in json.load(f)]
    else:
        chains = draw_chains(args.seed, args.chains, args.max_ops)
    start = time.monotonic()
    paddle_version, results = fuzz(chains, python=args.python, jobs=args.jobs, batch=args.batch)
    if args.recheck:
        recheck_alone(results, python=args.python)
    wall = time.monotonic() - start
    failing = [r for r in results if r.classes]
    every_failing = failing
    explained_by = Counter()
    finding_of = {}  # chain index -> sorted open findings that explain its failures
    if args.ledger:
        from viewledger import explain, open_findings
        findings = open_findings(paddle_version.split(".")[0])
        unexplained = []
        for r in failing:
            hits, missing = explain(r.chain, r.failures, findings)
            explained_by.update(set(hits.values()))
            finding_of[r.index] = sorted(set(hits.values()))
            if missing:
                unexplained.append(r)
        failing = unexplained
    for r in failing[:args.show]:
        print(describe(r))
        if args.minimize:
            small = minimize(r.chain, r.classes, python=args.python)
            print("    minimised: " + one_line(small))
    s = summary(results)
    s.update({"paddle": paddle_version, "seed": args.seed, "wall_s": round(wall, 1)})
    if args.ledger:
        s.update({"explained_by_open_finding": dict(sorted(explained_by.items())),
                  "unexplained": len(failing)})
    print(json.dumps(s, indent=1))
    if args.json:
        # every failing chain (explained or not: triage of a whole run needs them all); with
        # --ledger, "findings" names the open findings that explain it ([] = unexplained)
        with open(args.json, "w") as f:
            json.dump([{"index": r.index, "classes": r.classes, "chain": r.chain,
                        "snippet": one_line(r.chain),
                        "failures": r.failures,
                        "findings": finding_of.get(r.index, []),
                        "details": [d for _, d in r.failures]} for r in every_failing], f,
                      indent=1)
    return 1 if failing else 0


if __name__ == "__main__":
    sys.exit(main())
