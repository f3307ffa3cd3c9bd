"""CI's part of the OpInfo / ModuleInfo oracle (the full run: ``./dev opinfo``).

One test per operator variant and per module, against the ledger of this Paddle line:
- not listed: the first ``OPINFO_SAMPLES`` samples per dtype (default 5; ``0`` = all) must pass;
- listed: the recorded failing sample must still fail (then xfail).  If it passes, the variant
  runs on all its samples, and passing there FAILS the test: the ledger must stay true
  (remove the line, or regenerate with ``python -m tests.opinfo.run --write``).
- listed as ``crash`` / ``timeout``: not run in-process (xfail); the full run isolates them.
"""
from __future__ import annotations

import os

import pytest

from . import ledger, run

LIMIT = int(os.environ.get("OPINFO_SAMPLES", "5")) or None
ITEMS = run.items("all")
LISTED = {"ops": ledger.read("ops"), "modules": ledger.read("modules")}


def _fmt(r) -> str:
    return ledger.format_line(dict(r._asdict(), id=r.id))


@pytest.mark.parametrize("item", ITEMS, ids=[i[1].replace("::", "-") for i in ITEMS])
def test_variant(item):
    suite, vid, _, _ = item
    listed = LISTED[suite].get(vid)
    fname = os.path.basename(ledger.path(suite))
    if listed is None:
        r = run.run_item(item, limit=LIMIT)
        if r.status == "skip":
            pytest.skip(f"{r.category}: {r.detail}")
        if r.status == "fail":
            pytest.fail(f"does not match real torch and is not in {fname}:\n  {_fmt(r)}", pytrace=False)
        return
    if listed.reason.startswith(("crash", "timeout")):
        pytest.xfail(f"{fname}: {listed.reason} (not run in-process)")
    where = listed.where if listed.where not in ("", "-") else None
    r = run.run_item(item, only=where) if where else run.run_item(item, limit=LIMIT)
    if r.status == "fail":
        pytest.xfail(f"{fname}: {ledger.reason(r._asdict())}")
    full = run.run_item(item)  # the recorded failure is gone: does every sample pass now?
    if full.status == "fail":
        pytest.xfail(f"{fname} (failing sample moved to {full.where}): {ledger.reason(full._asdict())}")
    pytest.fail(f"listed in {fname} but passes now ({full.status}): remove the line\n  "
                f"{vid}  [{listed.where}]  {listed.reason}", pytrace=False)
