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
            pytest.fail(f"does not match real torch and is not in {fname}:\n  {_fmt(r)}"
                        f"{ledger.edge_hint(r._asdict())}", pytrace=False)
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
    pytest.fail(ledger.passes_message(vid, listed, full._asdict(), fname), pytrace=False)


def test_tolerance_table_names_what_runs():
    """Every tolerances.txt entry names an op, a variant or a module of this suite, for a dtype
    the comparison has a default for (a misspelt key would silently judge nothing)."""
    from . import tolerance
    known = {i[1] for i in ITEMS} | {i[2]["op"] for i in ITEMS}
    bad = [f"line {e.line}: {e.key} {e.dtype}" for e in tolerance.table().values()
           if e.key not in known or e.dtype not in tolerance.DEFAULTS]
    assert not bad, f"tolerances.txt entries that name nothing this suite compares: {bad}"


def test_max_rtol_is_relative_to_the_largest_value():
    """``max_rtol`` widens the absolute tolerance by a fraction of max|torch|, nothing more."""
    import numpy as np

    from . import core, tolerance
    ev = np.array([1000.0, 0.05], dtype=np.float32)
    t = tolerance.Tol(1e-5, 1e-5, 1e-6)  # allowed at 0.05: 1e-5 + 5e-7 + 1e-3 = 1.0105e-3
    ok, ratio = core._close(np.array([1000.0, 0.05 + 1.0e-3], dtype=np.float32), ev, t)
    assert ok.all() and 0.9 < ratio.max() < 1.0
    ok, ratio = core._close(np.array([1000.0, 0.05 + 1.1e-3], dtype=np.float32), ev, t)
    assert not ok[1] and ratio.max() > 1.0
    ok, _ = core._close(np.array([1000.0, 0.05 + 1.0e-3], dtype=np.float32), ev, tolerance.default("float32"))
    assert not ok[1]  # without the entry the same element fails
