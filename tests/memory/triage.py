"""Group failing chains (fuzz.py --json output) by symptom and shrink one per group.

    .venv/bin/python -m tests.memory.triage /tmp/failing.json [--limit 30]

A group is the failure class plus the failure text with numbers blanked; its smallest chain is
shrunk (drop one op at a time, plain input instead of the offset/strided one) while it still fails
with the same class, on one fork server (fast reruns).  Prints one markdown line per group, the
form tests/memory/FINDINGS.md uses.
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

from chainrun import run_chain  # noqa: E402
from viewcompare import compare  # noqa: E402
from fuzz import Server, _crash_text, real_torch  # noqa: E402
from viewchains import one_line  # noqa: E402


def signature(entry) -> str:
    detail = entry["details"][0] if entry["details"] else ""
    detail = re.sub(r"\d+", "#", detail)[:90]
    return f"{entry['classes'][0]}: {detail}"


class Shrinker:
    def __init__(self, python=sys.executable):
        self.torch = real_torch()
        self.server = Server(python, tempfile.mkdtemp(prefix="viewtriage-"))
        self.flags = None
        self.version = self.server.paddle

    def classes(self, chain):
        """(classes, details) of one chain on the facade vs torch."""
        header, records, status, started, err = self.server.run([chain])
        if status != "exit 0":
            return ["crash"], [_crash_text(status, err)]
        self.flags = header[2]
        out = compare(self.torch, chain, run_chain(self.torch, chain), records[0], self.flags)
        return list(dict.fromkeys(c for c, _ in out.failures)), [d for _, d in out.failures]

    def shrink(self, chain, cls, rounds=8):
        best = chain
        for _ in range(rounds):
            cands = [{**best, "ops": best["ops"][:k] + best["ops"][k + 1:]}
                     for k in range(len(best["ops"]))]
            if best["input"] != "{}":
                cands.insert(0, {**best, "input": "{}"})
            for cand in cands:
                if not cand["ops"] and cls not in ("crash", "grad mismatch", "write not reaching base"):
                    continue
                try:
                    got, _ = self.classes(cand)
                except Exception:  # noqa: BLE001 - the candidate is not a valid chain here
                    continue
                if cls in got:
                    best = cand
                    break
            else:
                break
        return best

    def close(self):
        self.server.close()


def main(argv=None):
    p = argparse.ArgumentParser()
    p.add_argument("failing_json")
    p.add_argument("--limit", type=int, default=30)
    p.add_argument("--python", default=sys.executable)
    args = p.parse_args(argv)
    with open(args.failing_json) as f:
        entries = json.load(f)
    groups = {}
    for e in entries:
        groups.setdefault(signature(e), []).append(e)
    order = sorted(groups.items(), key=lambda kv: -len(kv[1]))[:args.limit]
    sh = Shrinker(args.python)
    try:
        for sig, members in order:
            smallest = min(members, key=lambda e: (len(e["chain"]["ops"]), e["chain"]["input"] != "{}"))
            cls = smallest["classes"][0]
            small = sh.shrink(smallest["chain"], cls)
            got, details = sh.classes(small)
            print(f"- [{len(members)}x] **{cls}** (Paddle {sh.version}): `{one_line(small)}`"
                  f" -- {details[0] if details else 'no longer fails alone'}")
            print("  chain: " + json.dumps(small))
            sys.stdout.flush()
    finally:
        sh.close()


if __name__ == "__main__":
    main()
