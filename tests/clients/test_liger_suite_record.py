"""liger_suite's recording harness without running Liger's tests: ``--record --extend`` (which
cases it plans, that it runs only the ones a file's record lacks and keeps the recorded outcomes
as they are, what the results file then says) and the command line.  The two pytest processes a
recording starts (``collect`` and ``run``) are replaced by functions that write the case logs
the way torchproxy_early's case log does; everything between them and the JSON is the real
harness."""
from __future__ import annotations

import json
import os

import pytest

import liger_suite as ls

F = ls._T + "test_x.py"
IDS = [f"{F}::test_a[{i}]" for i in range(10)]
SKIPS = {IDS[1]: "bf16 not supported", IDS[9]: "bf16 not supported"}  # at collection
VERSIONS = {"paddle": "3.3.1", "torch": "2.13.0", "triton": "3.6.0", "transformers": "4.57.1"}


def _old(ids=(IDS[0], IDS[4]), max_cases=None):
    sel = {"cases": len(ids), "collected": len(IDS), "skipped_at_collection": len(SKIPS),
           "ids": list(ids)}
    if max_cases:
        sel["max_cases"] = max_cases
    return {"file": F, "fixes": True, "case_timeout": 600, "versions": dict(VERSIONS),
            "selection": sel,
            # IDS[4] failed on real torch: the proxy side never ran it
            "real": {ids[0]: "PASSED", ids[1]: "FAILED"},
            "real_messages": {ids[1]: "assert False"},
            "real_durations": {ids[0]: 3.0, ids[1]: 1.0}, "real_cpu": {ids[0]: 2.5, ids[1]: 0.5},
            "proxy": {ids[0]: "PASSED"}, "proxy_messages": {}, "proxy_durations": {ids[0]: 4.0},
            "proxy_cpu": {ids[0]: 3.5}, "real_summary": "1 passed, 1 failed",
            "proxy_summary": "1 passed", "real_first_error": "", "proxy_first_error": ""}


def test_extension_plans_the_union_in_collection_order():
    old = _old()
    ids, sel = ls.extension(F, old, IDS, SKIPS, 4, True, VERSIONS, 600)
    # select(runnable, 4) over the 8 runnable: 0, 3, 5, 7 (of IDS); recorded: 0 and 4
    assert ids == [IDS[0], IDS[3], IDS[4], IDS[5], IDS[7]]
    assert sel == {"cases": 5, "collected": 10, "skipped_at_collection": 2, "ids": ids,
                   "max_cases": [2, 4]}
    # a second extension lists every --max-cases the selection was recorded with
    old["selection"] = sel
    ids, sel = ls.extension(F, old, IDS, SKIPS, 6, True, VERSIONS, 600)
    assert sel["max_cases"] == [2, 4, 6]
    assert set(ids) >= {IDS[0], IDS[3], IDS[4], IDS[5], IDS[7]}
    assert ids == [i for i in IDS if i in ids]


def test_extension_without_max_cases_is_the_whole_file():
    assert ls.extension(F, _old(), IDS, SKIPS, None, True, VERSIONS, 600) == (IDS, None)
    # a union that covers every collected case is the whole file too (no selection left)
    assert ls.extension(F, _old(), IDS, {}, 10, True, VERSIONS, 600) == (IDS, None)


@pytest.mark.parametrize("change, message", [
    ({"versions": {**VERSIONS, "paddle": "2.6.2"}}, "recorded with versions"),
    ({"fixes": False}, "recorded with fixes True, this run has False"),
    ({"case_timeout": 180}, "recorded with case_timeout 600, this run has 180"),
    ({"ids": IDS[:9]}, "recorded with collected cases 10, this run has 9"),
])
def test_extension_refuses_other_conditions(change, message):
    args = {"ids": IDS, "fixes": True, "versions": VERSIONS, "case_timeout": 600, **change}
    with pytest.raises(ValueError, match=message):
        ls.extension(F, _old(), args["ids"], SKIPS, 4, args["fixes"], args["versions"],
                     args["case_timeout"])


def test_extension_refuses_a_full_record_and_vanished_cases():
    full = _old()
    del full["selection"]
    with pytest.raises(ValueError, match="recorded in full already"):
        ls.extension(F, full, IDS, SKIPS, 4, True, VERSIONS, 600)
    renamed = [IDS[0] + "x" if i == IDS[0] else i for i in IDS]
    with pytest.raises(ValueError, match="no longer collected"):
        ls.extension(F, _old(), renamed, SKIPS, 4, True, VERSIONS, 600)


@pytest.fixture
def harness(tmp_path, monkeypatch):
    """liger_suite with its records, case logs and results file under tmp_path, and ``run``
    replaced by a fake pytest that logs each id it is given (``outcomes``: real torch's; the
    proxy passes what it runs) and remembers which ids each side ran."""
    records = tmp_path / "records"
    records.mkdir()
    logs = tmp_path / "logs"
    monkeypatch.setattr(ls, "RECORDS", str(records))
    monkeypatch.setattr(ls, "INDEX", str(records / "_files.json"))
    monkeypatch.setattr(ls, "record_dir", lambda: str(logs))
    monkeypatch.setattr(ls, "_write_index", lambda: (records / "_files.json").write_text(
        json.dumps({"liger_kernel": ls.VERSION, "files": [F]})))
    monkeypatch.setattr(ls, "_versions", lambda f: dict(VERSIONS))
    monkeypatch.setattr(ls, "collect", lambda files, fixes=True: ({F: list(IDS)}, dict(SKIPS)))
    ran = {"real": [], "proxy": []}
    outcomes = {i: "PASSED" for i in IDS}
    outcomes[IDS[3]] = "FAILED"

    def run(ids, proxy, extra=(), timeout=0, fixes=True, case_log=None):
        side = "proxy" if proxy else "real"
        ran[side].append((list(ids), extra))
        with open(case_log.replace("{file}", os.path.basename(F)), "a") as fh:
            for i in ids:
                outcome = "PASSED" if proxy else outcomes[i]
                fh.write(json.dumps({"id": i, "outcome": outcome, "duration": 1.0, "cpu": 0.5,
                                     "message": "" if outcome == "PASSED" else "boom",
                                     "code": ls.code_fingerprint()}) + "\n")
        return {}, "1 passed"

    monkeypatch.setattr(ls, "run", run)
    with open(records / "test_x.py.json", "w") as fh:
        json.dump(_old(), fh)
    return ran, records / "test_x.py.json", tmp_path / "results.md"


def test_record_extend_runs_only_the_missing_cases_and_keeps_the_recorded(harness):
    ran, path, md = harness
    ls.record([F], log=lambda m: None, max_cases=4, extend=True)
    # real torch runs the three cases the record lacks, with the recorded per-case timeout
    assert ran["real"] == [([IDS[3], IDS[5], IDS[7]], ("--timeout=600",))]
    # the proxy runs the new cases real torch passed (IDS[3] failed there; IDS[0] is recorded)
    assert ran["proxy"] == [([IDS[5], IDS[7]], ("--timeout=600",))]
    e = json.loads(path.read_text())
    assert e["real"] == {IDS[0]: "PASSED", IDS[3]: "FAILED", IDS[4]: "FAILED", IDS[5]: "PASSED",
                         IDS[7]: "PASSED"}
    # the recorded outcomes stand as recorded (the case logs hold nothing of them here)
    assert e["real_messages"] == {IDS[3]: "boom", IDS[4]: "assert False"}
    assert e["real_cpu"] == {IDS[0]: 2.5, IDS[3]: 0.5, IDS[4]: 0.5, IDS[5]: 0.5, IDS[7]: 0.5}
    assert e["proxy"] == {IDS[0]: "PASSED", IDS[5]: "PASSED", IDS[7]: "PASSED"}
    assert e["proxy_cpu"] == {IDS[0]: 3.5, IDS[5]: 0.5, IDS[7]: 0.5}
    assert e["case_timeout"] == 600
    assert e["selection"]["max_cases"] == [2, 4] and e["selection"]["cases"] == 5
    assert "real_unfinished" not in e and "proxy_unfinished" not in e
    ls.write_md(str(md))
    text = md.read_text()
    assert ("| `test_x.py` | 5 | 3 | 3 | selection: 5 of 10 collected cases (the union of the "
            "`--max-cases` selections of 2, 4 cases, each evenly spaced over the 8 its skip "
            "markers do not skip here). per-case timeout 600 s.  |") in text
    # extending again to the whole file runs the rest, including the collection-skipped cases
    ls.record([F], log=lambda m: None, extend=True)
    assert ran["real"][1][0] == [IDS[1], IDS[2], IDS[6], IDS[8], IDS[9]]
    e = json.loads(path.read_text())
    assert "selection" not in e and sorted(e["real"]) == sorted(IDS)


def test_record_without_extend_leaves_a_recorded_file_alone(harness):
    ran, path, _ = harness
    before = path.read_text()
    said = []
    ls.record([F], log=said.append, max_cases=4)
    assert ran == {"real": [], "proxy": []} and path.read_text() == before
    assert said == [f"{F}: recorded already ({path})"]


def test_record_extend_refused_keeps_the_record(harness):
    ran, path, _ = harness
    before = path.read_text()
    said = []
    ls.record([F], log=said.append, max_cases=4, case_timeout=180, extend=True)
    assert ran == {"real": [], "proxy": []} and path.read_text() == before
    assert said[-1].startswith(f"not extended: {F}: recorded with case_timeout 600, this run "
                               "has 180")


def test_command_line_documented_forms():
    a = ls.parse_args([])
    assert (a.ids, a.full, a.record, a.write_md, a.no_interpreter_fix) == ([], False, False,
                                                                          False, False)
    assert ls.parse_args(["--full"]).full
    rope = "test/transformers/test_rope.py::test_correctness[True-dtype0-1e-05-1e-05-1-2-2-2-8]"
    assert ls.parse_args(["--no-interpreter-fix", rope]).ids == [rope]
    a = ls.parse_args(["--record", "--max-cases=8", "--batch=5", "--side-timeout=1200",
                       "--case-timeout=600", "--extend", F])
    assert (a.record, a.max_cases, a.batch, a.side_timeout, a.case_timeout, a.extend,
            a.ids) == (True, 8, 5, 1200, 600, True, [F])
    assert ls.parse_args(["--record", "--max-cases", "8"]).max_cases == 8
    assert ls.parse_args(["--write-md"]).write_md


@pytest.mark.parametrize("argv, error", [
    (["--bogus"], "unrecognized arguments: --bogus"),
    (["--max-cases=8"], "--max-cases goes only with --record"),
    (["--extend", F], "--extend goes only with --record"),
    (["--record", "--max-cases=0"], "argument --max-cases: invalid positive integer value: '0'"),
    (["--record", "--batch=x"], "argument --batch: invalid positive integer value: 'x'"),
    (["--write-md", "--record"], "--write-md takes no other argument"),
    (["--full", F], "--full names its own files"),
    (["--rerecord-bf16", "--record"], "--rerecord-bf16 takes recorded test files"),
    (["--rec"], "unrecognized arguments: --rec"),  # no abbreviations
])
def test_command_line_errors(argv, error, capsys):
    with pytest.raises(SystemExit) as e:
        ls.main(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("usage: liger_suite.py") and f"liger_suite.py: error: {error}" in err


def test_command_line_help(capsys):
    with pytest.raises(SystemExit) as e:
        ls.main(["--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: liger_suite.py") and "--extend" in out


def test_recheck_proxy_reruns_only_the_proxy_failures_and_says_so(harness):
    ran, path, md = harness
    e = json.loads(path.read_text())
    e["real"][IDS[2]] = "PASSED"  # a case real torch passed and the proxy failed (before a fix)
    e["proxy"][IDS[2]] = "FAILED"
    e["proxy_messages"][IDS[2]] = "assert False"
    path.write_text(json.dumps(e))
    assert ls.recheck_proxy(F) == "test_x.py: rechecked 1 proxy cases, 1 now pass"
    assert ran["real"] == [] and ran["proxy"] == [([IDS[2]], ("--timeout=600",))]
    e = json.loads(path.read_text())
    assert e["proxy"] == {IDS[0]: "PASSED", IDS[2]: "PASSED"}
    assert IDS[2] not in e["proxy_messages"] and e["proxy_cpu"][IDS[2]] == 0.5
    assert e["proxy_rechecked"] == [IDS[2]]
    assert ls.recheck_proxy(F) == "test_x.py: no case to recheck"
    ls._write_index()
    ls.write_md(str(md))
    assert "the proxy side of 1 cases it had failed was run again after a fix" in md.read_text()


def test_a_resumed_side_reruns_the_cases_other_code_logged(harness, tmp_path):
    ran, path, _ = harness
    logs = tmp_path / "logs"
    logs.mkdir(exist_ok=True)
    # a real-torch log left by an earlier run: IDS[3] by other code (stale), IDS[5] by this code
    stale = {"id": IDS[3], "outcome": "PASSED", "duration": 1.0, "cpu": 0.5, "message": "",
             "code": "0123456789abcdef"}
    fresh = dict(stale, id=IDS[5], code=ls.code_fingerprint())
    unmarked = dict(stale, id=IDS[7])
    del unmarked["code"]  # a line of a harness that wrote no fingerprint: stale too
    (logs / "test_x.py.real.jsonl").write_text(
        "".join(json.dumps(c) + "\n" for c in (stale, fresh, unmarked)))
    ls.record([F], log=lambda m: None, max_cases=4, extend=True)
    assert ran["real"] == [([IDS[3], IDS[7]], ("--timeout=600",))]
    e = json.loads(path.read_text())
    assert e["real"][IDS[3]] == "FAILED"  # this code's outcome, not the stale PASSED
    assert e["real"][IDS[5]] == "PASSED" and e["real_cpu"][IDS[5]] == 0.5


def test_code_fingerprint_follows_torchproxy_sources(monkeypatch, tmp_path):
    first = ls.code_fingerprint()
    assert len(first) == 16 and ls.code_fingerprint() == first  # computed once a process
    tree = tmp_path / "torchproxy"
    tree.mkdir()
    (tree / "a.py").write_text("x = 1\n")
    monkeypatch.setattr(ls, "ROOT", str(tmp_path))
    monkeypatch.setattr(ls, "_FINGERPRINT", [])
    one = ls.code_fingerprint()
    (tree / "a.py").write_text("x = 2\n")
    monkeypatch.setattr(ls, "_FINGERPRINT", [])
    assert ls.code_fingerprint() != one


def test_rerecord_bf16_reruns_the_bf16_cases_recorded_on_both_sides(harness):
    ran, path, md = harness
    # IDS[0] (PASSED on both) and IDS[4] (FAILED on real torch) are recorded; IDS[2] is not
    said = ls.rerecord_bf16(F, [IDS[0], IDS[4], IDS[2]])
    assert said == ("test_x.py: 2 bfloat16 cases recorded again: real torch passes 2, both "
                    "sides 2 (before: 1)")
    assert ran["real"] == [([IDS[0], IDS[4]], ("--timeout=600",))]
    assert ran["proxy"] == [([IDS[0], IDS[4]], ("--timeout=600",))]
    e = json.loads(path.read_text())
    assert e["real"] == {IDS[0]: "PASSED", IDS[4]: "PASSED"}
    assert e["real_messages"] == {} and e["real_cpu"] == {IDS[0]: 0.5, IDS[4]: 0.5}
    assert e["proxy"] == {IDS[0]: "PASSED", IDS[4]: "PASSED"}
    assert e["bf16_rerecorded"] == [IDS[0], IDS[4]]
    assert ls.rerecord_bf16(F, [IDS[2]]) == "test_x.py: no bfloat16 case ran on real torch"
    ls._write_index()
    ls.write_md(str(md))
    assert "2 bfloat16 cases recorded again under the interpreter's bf16 fix" in md.read_text()


def test_rerecord_bf16_drops_the_proxy_outcome_of_a_case_real_torch_now_fails(harness):
    ran, path, _ = harness
    e = json.loads(path.read_text())
    e["real"][IDS[3]] = "PASSED"  # recorded passing on both sides, FAILED by the fake now
    e["proxy"][IDS[3]] = "PASSED"
    path.write_text(json.dumps(e))
    said = ls.rerecord_bf16(F, [IDS[3]])
    assert said.endswith("real torch passes 0, both sides 0 (before: 1)")
    assert ran["proxy"] == []  # the proxy runs only what real torch passes
    e = json.loads(path.read_text())
    assert e["real"][IDS[3]] == "FAILED" and IDS[3] not in e["proxy"]
    assert e["real_messages"][IDS[3]] == "boom"
