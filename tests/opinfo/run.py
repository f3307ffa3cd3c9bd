"""The full OpInfo / ModuleInfo run: every variant, every sample, crash-isolated.

    python -m tests.opinfo.run                 # run, compare with the ledger (exit 1 if it is stale)
    python -m tests.opinfo.run --write         # run, then rewrite the ledger and the reports
    python -m tests.opinfo.run --match linalg  # only ids containing "linalg" (never --write)
    python -m tests.opinfo.run --limit 5       # the first 5 samples per dtype (like CI)
    python -m tests.opinfo.run --kinds fn,module --json out.json   # some kinds; results to a file

Each run uses the current interpreter's Paddle (``.venv``: 3.3.1, ``.venv26``: 2.6.2).  The work
happens in a worker process that prints one JSON line per variant; when Paddle kills it (a
segfault) or a variant hangs (``--timeout``), the variant is recorded as ``crash`` /
``timeout`` and a new worker resumes after it.

Writes (with ``--write``), per Paddle version V:
  tests/opinfo/xfails-paddle3.txt | xfails-paddle26.txt          operator variants that fail
  tests/opinfo/module-xfails-paddle3.txt | module-xfails-paddle26.txt   modules that fail
  docs/results/opinfo-V.json      every result (input of the reports and of the status file)
  docs/results/opinfo-V.md        pass rates per area, kind, failure causes
  docs/results/opinfo-status.json per torch name, pass/fail per Paddle version (all V present)
"""
from __future__ import annotations

import argparse
import json
import os
import queue
import subprocess
import sys
import threading
import time

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


# -- items ------------------------------------------------------------------------------------
def items(suite: str):
    """[(suite, id, meta, runner)] in a fixed order."""
    from . import core, modules
    out = []
    if suite in ("ops", "all"):
        for v in core.all_variants():
            meta = {"suite": "ops", "op": core.full_name(v.op), "kind": v.kind, "label": v.label,
                    "area": core.area_of(v.op)}
            out.append(("ops", v.id, meta, v))
    if suite in ("modules", "all"):
        for info in modules.module_db():
            mid = modules.module_id(info)
            meta = {"suite": "modules", "op": mid, "kind": "module", "label": modules.torch_path(info),
                    "area": "nn modules"}
            out.append(("modules", mid, meta, info))
    return out


def run_item(item, limit=None, only=None):
    from . import core, modules
    suite, _, _, obj = item
    if suite == "ops":
        return core.run_variant(obj, limit=limit, only=only)
    return modules.run_module(obj, limit=limit, only=only)


def select(its, args):
    if args.match:
        its = [i for i in its if any(m in i[1] for m in args.match.split(","))]
    if args.kinds:
        kinds = set(args.kinds.split(","))
        its = [i for i in its if i[2]["kind"] in kinds]
    return its


def worker(args) -> int:
    its = select(items(args.suite), args)
    for n, it in enumerate(its):
        if n < args.start:
            continue
        print(json.dumps({"begin": n, "id": it[1]}), flush=True)
        t = time.perf_counter()
        r = run_item(it, limit=args.limit)
        d = dict(r._asdict(), **it[2], t=round(time.perf_counter() - t, 3))
        print(json.dumps({"result": n, **d}), flush=True)
    print(json.dumps({"done": len(its)}), flush=True)
    return 0


STARTUP_TIMEOUT = 1800


def run_isolated(args) -> tuple[list[dict], float]:
    results: list[dict] = []
    start, total = 0, None
    t0 = time.perf_counter()
    cmd_base = [sys.executable, "-m", "tests.opinfo.run", "--worker", "--suite", args.suite]
    if args.match:
        cmd_base += ["--match", args.match]
    if args.kinds:
        cmd_base += ["--kinds", args.kinds]
    if args.limit is not None:
        cmd_base += ["--limit", str(args.limit)]
    if args.facade_path:
        cmd_base += ["--facade-path", args.facade_path]
    while total is None or start < total:
        p = subprocess.Popen(cmd_base + ["--start", str(start)], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.DEVNULL if not args.verbose else None, text=True)
        q: queue.Queue = queue.Queue()
        threading.Thread(target=lambda: [q.put(ln) for ln in p.stdout] + [q.put(None)],
                         daemon=True).start()
        current = None
        while True:
            try:
                # --timeout is per variant; a worker's start (importing torch, Paddle and op_db)
                # can take minutes on a loaded machine and is no variant's fault
                line = q.get(timeout=args.timeout if current is not None else STARTUP_TIMEOUT)
            except queue.Empty:
                p.kill()
                p.wait()
                if current is None:
                    raise SystemExit(f"opinfo worker printed nothing in {STARTUP_TIMEOUT}s after its start; "
                                     "run with --verbose") from None
                results.append({"id": current["id"], "status": "fail", "category": "timeout",
                                "detail": f"no result after {args.timeout}s", "where": "-",
                                **_meta(current["id"], args)})
                start = current["begin"] + 1
                break
            if line is None:
                rc = p.wait()
                if current is not None:  # died inside a variant
                    results.append({"id": current["id"], "status": "fail", "category": "crash",
                                    "detail": f"the process died (exit status {rc})", "where": "-",
                                    **_meta(current["id"], args)})
                    start = current["begin"] + 1
                elif total is None:
                    raise SystemExit(f"opinfo worker failed before its first variant (exit {rc}); "
                                     "run with --verbose")
                break
            if not line.startswith("{"):
                continue
            msg = json.loads(line)
            if "begin" in msg:
                current = msg
            elif "result" in msg:
                msg.pop("result")
                results.append(msg)
                if args.progress and len(results) % 100 == 0:
                    print(f"[opinfo] {len(results)} done, {time.perf_counter() - t0:.0f}s", file=sys.stderr)
                current = None
            elif "done" in msg:
                total = msg["done"]
                start = total
    return results, time.perf_counter() - t0


_META_CACHE: dict = {}


def _meta(item_id, args):
    if not _META_CACHE:
        for it in items(args.suite):
            _META_CACHE[it[1]] = it[2]
    return _META_CACHE.get(item_id, {})


TIMEOUT_RETRY_FACTOR = 4


def retry_timeouts(results: list[dict], args) -> list[dict]:
    """Measure each variant that timed out again, alone, with TIMEOUT_RETRY_FACTOR times the
    limit: on a shared, loaded machine a slow variant (max_pool2d's hundreds of samples) can
    pass --timeout without hanging, and a timeout written to the ledger would then be a line
    the next run contradicts.  A real hang times out again and stays a failure."""
    ids = [r["id"] for r in results if r.get("category") == "timeout"]
    if not ids:
        return results
    print(f"[opinfo] measuring {len(ids)} timed-out variant(s) again, alone, with "
          f"{args.timeout * TIMEOUT_RETRY_FACTOR:.0f}s: {', '.join(ids)}", flush=True)
    again = argparse.Namespace(**{**vars(args), "match": ",".join(ids), "kinds": None,
                                  "timeout": args.timeout * TIMEOUT_RETRY_FACTOR})
    fresh = {r["id"]: r for r in run_isolated(again)[0] if r["id"] in ids}
    return [fresh.get(r["id"], r) if r.get("category") == "timeout" else r for r in results]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(prog="python -m tests.opinfo.run", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--suite", choices=("ops", "modules", "all"), default="all")
    ap.add_argument("--write", action="store_true", help="rewrite the ledgers and the reports")
    ap.add_argument("--match", help="only ids containing this text (a comma-separated list: "
                    "any of them)")
    ap.add_argument("--kinds", help="only these variant kinds (comma-separated: fn, method, inplace, "
                    "operator, inplace_operator, alias_fn, ..., errors, module)")
    ap.add_argument("--json", help="also write this run's results (a JSON list) to this file")
    ap.add_argument("--limit", type=int, help="first N samples per dtype (default: all)")
    ap.add_argument("--timeout", type=float, default=180, help="seconds one variant may take")
    ap.add_argument("--facade", help="what facade was measured (default: git HEAD of this checkout)")
    ap.add_argument("--facade-path", help="import torchproxy from this directory (e.g. an export "
                    "of an older commit, to measure before/after)")
    ap.add_argument("--verbose", action="store_true", help="show the worker's stderr")
    ap.add_argument("--progress", action="store_true")
    ap.add_argument("--retry-timeouts-of", metavar="JSON",
                    help="no new full run: take a full run's stored results (docs/results/"
                         "opinfo-V.json of this Paddle), measure its timed-out variants again "
                         "(as every full run does at its end) and, with --write, rewrite the "
                         "ledgers and reports from them")
    ap.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--start", type=int, default=0, help=argparse.SUPPRESS)
    args = ap.parse_args(argv)
    if args.facade_path:
        sys.path.insert(0, os.path.abspath(args.facade_path))
    if args.worker:
        return worker(args)
    if args.write and (args.match or args.kinds or args.limit is not None or args.suite != "all"):
        ap.error("--write needs the full run (no --match/--kinds/--limit/--suite)")
    from . import ledger, report
    ver = ledger.paddle_version()
    if args.retry_timeouts_of:
        with open(args.retry_timeouts_of, encoding="utf-8") as f:
            stored = json.load(f)
        if stored["paddle"] != ver or args.match or args.kinds or args.suite != "all":
            ap.error(f"--retry-timeouts-of needs a full run's results of this Paddle ({ver}), "
                     "and no --match/--kinds/--suite")
        results, seconds = stored["results"], stored["seconds"]
        args.facade = args.facade or stored.get("facade")
    else:
        results, seconds = run_isolated(args)
    results = retry_timeouts(results, args)
    if args.json:
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump({"paddle": ver, "seconds": round(seconds), "results": results}, f)
    stale = ledger.check(results, partial=bool(args.match or args.kinds) or args.suite != "all",
                         sampled=args.limit is not None)
    print(report.summary(results, seconds))
    if args.write:
        ledger.write(results)
        report.write(results, seconds, facade=args.facade or report.facade_label())
        print(f"[opinfo] wrote the ledgers and docs/results/opinfo-{ver}.md/.json, opinfo-status.json")
        return 0
    if stale:
        print("\n".join(stale))
        print(f"[opinfo] the ledger is not true ({len(stale)} lines): fix the facade or run "
              "`python -m tests.opinfo.run --write` and review the diff")
        return 1
    print("[opinfo] the ledger matches the run")
    return 0


if __name__ == "__main__":
    sys.exit(main())
