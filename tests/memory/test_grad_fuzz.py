"""CI run of the training-loop state fuzzer (tests/memory/gradfuzz.py): a fixed-seed sample of
random programs and every regression program (gradregressions.json), real torch vs the facade
under glibc's heap checks.

Fails when
  - a sample program fails in a way no finding open on this Paddle series in gradledger.json
    explains (a new finding: shrink it -- gradfuzz.py --shrink --- and add it to
    gradregressions.json, gradledger.json and FINDINGS.md), a crash included;
  - a regression program fails in a way no open finding explains (a fixed finding is back);
  - a regression program listed open on this series no longer shows its finding (strict xfail:
    remove the series from its "open" list and from the finding's "paddle" list);
  - an open finding is no longer seen (no failing sample or regression program).
Long runs: ``.venv/bin/python -m tests.memory.gradfuzz --programs 3000 --seed 1 --ledger``.
"""
from __future__ import annotations

import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import gradfuzz  # noqa: E402
from gradprogs import draw_programs, program_text  # noqa: E402

SEED = 20261127
SAMPLE = int(os.environ.get("TORCHPROXY_GRAD_FUZZ_PROGRAMS", "500"))


@pytest.fixture(scope="module")
def run():
    regressions = gradfuzz.load_regressions()
    sample = draw_programs(SEED, SAMPLE)
    version, results = gradfuzz.fuzz_programs(sample + [r["program"] for r in regressions],
                                              python=sys.executable, jobs=2, batch=300)
    series = version.split(".")[0]
    findings = gradfuzz.open_findings(series)
    # an unexplained failure gets a second chance in a fork of its own (failing only after
    # earlier programs is its own class, which no finding explains)
    gradfuzz.recheck_alone([r for r in results
                            if gradfuzz.explain_program(r.chain, r.failures, findings)[1]])
    print(f"\ngrad-state fuzz on Paddle {version}: " + str(gradfuzz.summary(results[:SAMPLE])))
    return version, series, findings, results[:SAMPLE], list(zip(regressions, results[SAMPLE:]))


def test_sample_failures_are_all_known_open_findings(run):
    version, _, findings, sample, _ = run
    unexplained = [f"{missing}: {gradfuzz.describe(r)}" for r in sample
                   for missing in [gradfuzz.explain_program(r.chain, r.failures, findings)[1]]
                   if missing]
    assert not unexplained, (
        f"{len(unexplained)} of {len(sample)} fuzzed training-loop programs fail on Paddle "
        f"{version} in ways no open finding in tests/memory/gradledger.json explains:\n"
        + "\n".join(unexplained[:10]))


def test_regressions_fail_only_while_their_finding_is_open(run):
    version, series, findings, _, regs = run
    open_ids = {f["id"]: f for f in findings}
    problems = []
    for reg, r in regs:
        missing = gradfuzz.explain_program(r.chain, r.failures, findings)[1]
        if missing:
            problems.append(f"{reg['id']} (finding {reg['finding']}) fails in a way no open "
                            f"finding explains: {missing}: {gradfuzz.describe(r)}")
        if series not in reg.get("open", []):
            continue
        if reg["finding"] not in open_ids:
            problems.append(f"{reg['id']} is listed open on Paddle {series} but gradledger.json "
                            f"does not list {reg['finding']} as open there")
        elif not gradfuzz.explain_program(r.chain, r.failures, [open_ids[reg["finding"]]])[0]:
            problems.append(f"{reg['id']} no longer shows {reg['finding']} on Paddle {version}: "
                            f"remove {series!r} from its 'open' list (gradregressions.json) and "
                            f"from the finding's (gradledger.json):\n{program_text(reg['program'])}")
    assert not problems, "\n".join(problems)


def test_every_open_finding_is_still_seen(run):
    version, series, findings, sample, regs = run
    seen = set()
    for r in sample + [r for _, r in regs]:
        seen.update(gradfuzz.explain_program(r.chain, r.failures, findings)[0].values())
    stale = [f["id"] for f in findings if f["id"] not in seen]
    assert not stale, (f"open findings no longer seen on Paddle {version}: {stale}: mark them "
                       "fixed in gradledger.json and FINDINGS.md")


def test_ledger_and_regressions_are_well_formed():
    from fuzz import CONTEXT
    from gradrun import CLASSES
    ids = [f["id"] for f in gradfuzz.load_ledger()]
    assert len(ids) == len(set(ids))
    for f in gradfuzz.load_ledger():
        assert set(f["classes"]) <= set(CLASSES) | {CONTEXT}, f
        assert set(f["paddle"]) <= {"2", "3"}, f
    reg_ids = [r["id"] for r in gradfuzz.load_regressions()]
    assert len(reg_ids) == len(set(reg_ids))
    for r in gradfuzz.load_regressions():
        assert r["finding"] in ids and set(r.get("open", [])) <= {"2", "3"}, r
