"""CI run of the view-chain fuzzer (tests/memory/fuzz.py): a fixed-seed sample of random view
chains and every regression chain ever found, real torch vs the facade under glibc's heap checks.

Passes when every failing chain is explained by a finding that tests/memory/ledger.json lists as
open on this Paddle series (class + snippet pattern), and fails when
  - a chain fails in a way no open finding explains (a new finding: shrink it with
    tests/memory/triage.py, add it to regressions.json, ledger.json and FINDINGS.md),
  - a regression chain listed open on this Paddle series ("open" in regressions.json) no longer
    shows its finding (strict xfail: tests/memory/refresh.py --write updates the lists), or a
    regression chain fails in a way no open finding explains,
  - an open finding with no regression chain is no longer seen in the sample.
Long runs: ``.venv/bin/python -m tests.memory.fuzz --chains 100000 --seed N``.
"""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import fuzz  # noqa: E402
from viewledger import explain, load_ledger, load_regressions, open_findings  # noqa: E402
from viewchains import draw_chains, one_line  # noqa: E402

SEED = 20261126
SAMPLE = int(os.environ.get("TORCHPROXY_VIEW_FUZZ_CHAINS", "2500"))


@pytest.fixture(scope="module")
def run():
    regressions = load_regressions()
    sample = draw_chains(SEED, SAMPLE)
    version, results = fuzz.fuzz(sample + [r["chain"] for r in regressions],
                                 python=sys.executable, jobs=2, batch=200)
    series = version.split(".")[0]
    findings = open_findings(series)
    # a chain failing in a way no open finding explains gets a second chance in a fork of its
    # own: failing only after earlier chains is its own class (explained only by a finding
    # that names it)
    fuzz.recheck_alone([r for r in results if explain(r.chain, r.failures, findings)[1]])
    print(f"\nview fuzz on Paddle {version}: " + str(fuzz.summary(results[:SAMPLE])))
    return version, series, findings, results[:SAMPLE], list(zip(regressions, results[SAMPLE:]))


def _show(r):
    return fuzz.describe(r)


def test_sample_failures_are_all_known_open_findings(run):
    version, series, findings, sample, _ = run
    unexplained = []
    for r in sample:
        _, missing = explain(r.chain, r.failures, findings)
        if missing:
            unexplained.append(f"{missing}: {_show(r)}")
    assert not unexplained, (
        f"{len(unexplained)} of {len(sample)} fuzzed view chains fail on Paddle {version} in ways "
        f"no open finding in tests/memory/ledger.json explains (new findings):\n"
        + "\n".join(unexplained[:15]))


def test_regressions_fail_only_while_their_finding_is_open(run):
    """Every failure of a regression chain is explained by an open finding, and a chain whose own
    finding is open still shows it (strict xfail)."""
    version, series, findings, _, regs = run
    open_ids = {f["id"]: f for f in findings}
    problems = []
    for reg, r in regs:
        explained, missing = explain(r.chain, r.failures, findings)
        if missing:
            problems.append(f"{reg['id']} (finding {reg['finding']}) fails in a way no open finding "
                            f"explains: {missing}: {_show(r)}")
        if series not in reg.get("open", []):
            continue
        if reg["finding"] not in open_ids:
            problems.append(f"{reg['id']} is listed open on Paddle {series} but ledger.json does not "
                            f"list {reg['finding']} as open there")
        elif not explain(r.chain, r.failures, [open_ids[reg["finding"]]])[0]:
            problems.append(f"{reg['id']} no longer shows {reg['finding']} on Paddle {version}: "
                            f"remove {series!r} from its 'open' list in regressions.json "
                            f"(tests/memory/refresh.py --write), mark it FIXED in FINDINGS.md: "
                            f"{one_line(reg['chain'])}")
    assert not problems, "\n".join(problems)


def test_every_open_finding_is_still_seen(run):
    version, series, findings, sample, regs = run
    seen = set()
    for r in sample:
        seen.update(explain(r.chain, r.failures, findings)[0].values())
    with_regressions = {reg["finding"] for reg, _ in regs if series in reg.get("open", [])}
    stale = [f["id"] for f in findings if f["id"] not in seen and f["id"] not in with_regressions]
    assert not stale, (f"open findings no longer seen on Paddle {version} (no failing sample "
                       f"chain, no regression chain): {stale}: remove them from the ledger")


def test_ledger_entries_are_well_formed():
    from viewcompare import CLASSES
    known = set(CLASSES) | {fuzz.CONTEXT}
    ids = [f["id"] for f in load_ledger()]
    assert len(ids) == len(set(ids))
    for f in load_ledger():
        assert set(f["classes"]) <= known, f
        assert set(f["paddle"]) <= {"2", "3"}, f  # [] = fixed everywhere (kept as history)
    reg_ids = [r["id"] for r in load_regressions()]
    assert len(reg_ids) == len(set(reg_ids))
    for r in load_regressions():
        assert r["finding"] in ids and set(r.get("open", [])) <= {"2", "3"}, r
