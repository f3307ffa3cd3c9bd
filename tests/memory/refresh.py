"""Rerun the regression chains and say which still show their finding on this Paddle.

    .venv/bin/python -m tests.memory.refresh            # report
    .venv/bin/python -m tests.memory.refresh --write    # also update each chain's "open" list

A regression chain's "open" list names the Paddle series on which it still shows its own finding
(the strict xfail list that tests/memory/test_view_fuzz.py checks).  Run with each venv's python
after a fix, then mark the finding FIXED in FINDINGS.md and drop its series from ledger.json
when none of its chains is open there.
"""
from __future__ import annotations

import argparse
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import fuzz  # noqa: E402
from viewledger import REGRESSIONS, explain, load_ledger, load_regressions  # noqa: E402


def main(argv=None) -> int:
    p = argparse.ArgumentParser()
    p.add_argument("--write", action="store_true")
    p.add_argument("--python", default=sys.executable)
    args = p.parse_args(argv)
    regs = load_regressions()
    findings = {f["id"]: f for f in load_ledger()}
    version, results = fuzz.fuzz([r["chain"] for r in regs], python=args.python, jobs=1,
                                 batch=len(regs))
    fuzz.recheck_alone(results, python=args.python)
    series = version.split(".")[0]
    for reg, r in zip(regs, results):
        shows = reg["finding"] in explain(r.chain, r.failures, [findings[reg["finding"]]])[0].values()
        was = series in reg.get("open", [])
        state = "open" if shows else "passes" if not r.classes else "other failures"
        change = "" if shows == was else "  (changed)"
        print(f"{reg['id']:7s} {state:15s}{change}  {', '.join(r.classes)}")
        opened = [s for s in reg.get("open", []) if s != series] + ([series] if shows else [])
        reg["open"] = sorted(opened, reverse=True)
    if args.write:
        with open(REGRESSIONS, "w") as f:
            json.dump(regs, f, indent=1)
            f.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
