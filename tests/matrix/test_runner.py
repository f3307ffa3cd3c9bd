"""The runner on the fixture spec: every outcome class, each from a real worker subprocess."""
import json
import os

import pytest


def _paddle_has_compat():
    import paddle
    return hasattr(getattr(paddle, "compat", None), "enable_torch_proxy")


def test_every_cell_is_recorded(fixture_run):
    out, cells = fixture_run
    cases = {"import", "scale_add", "row_sums", "bad_reference", "wrong", "setup_calls",
             "unsupported", "crash", "hang"}
    assert {c for c, _ in cells} == cases
    assert {b for _, b in cells} == {"torch", "torchproxy", "paddle_compat"}
    assert len(cells) == len(cases) * 3
    with open(os.path.join(out, "results.jsonl")) as f:
        assert len([line for line in f if line.strip()]) == len(cells)


def test_import_case(fixture_run):
    _, cells = fixture_run
    assert cells[("import", "torch")]["status"] == "imports"
    assert cells[("import", "torchproxy")]["status"] == "imports"


def test_oracle_checked_against_numpy_reference(fixture_run):
    _, cells = fixture_run
    rec = cells[("scale_add", "torch")]
    assert (rec["status"], rec["compared_to"]) == ("matches", "reference")
    # no reference: the oracle can only say it ran
    assert cells[("row_sums", "torch")]["status"] == "runs"
    # a reference that is off by 1e-3 everywhere: the oracle disagrees with it, value by value
    bad = cells[("bad_reference", "torch")]
    assert (bad["status"], bad["reason"]) == ("fails", "wrong_numbers"), bad
    assert "12/12 elements differ" in bad["detail"] and "vs numpy reference" in bad["detail"]
    # the proxies are still compared with the oracle's outputs, which exist
    tp = cells[("bad_reference", "torchproxy")]
    assert (tp["status"], tp["compared_to"]) == ("matches", "torch"), tp


def test_proxy_matches_oracle(fixture_run):
    _, cells = fixture_run
    rec = cells[("scale_add", "torchproxy")]
    assert (rec["status"], rec["compared_to"]) == ("matches", "torch"), rec


def test_wrong_numbers_are_reported_with_the_difference(fixture_run):
    _, cells = fixture_run
    rec = cells[("wrong", "torchproxy")]
    assert (rec["status"], rec["reason"]) == ("fails", "wrong_numbers"), rec
    assert "5/5 elements differ" in rec["detail"] and "max abs error 1" in rec["detail"]


def test_python_int_vs_tensor_is_a_difference(fixture_run):
    # row_sums returns (tensor, x.numel()): torch gives an int; Paddle's own numel is a Tensor
    _, cells = fixture_run
    if not _paddle_has_compat():
        pytest.skip("this Paddle has no paddle.compat proxy")
    rec = cells[("row_sums", "paddle_compat")]
    assert rec["reason"] == "wrong_numbers" and "torch gives int" in rec["detail"], rec
    assert cells[("row_sums", "torchproxy")]["status"] == "matches"


def test_unsupported_name_is_named(fixture_run):
    _, cells = fixture_run
    rec = cells[("unsupported", "torchproxy")]
    assert (rec["status"], rec["reason"]) == ("imports", "unsupported"), rec
    assert rec["unsupported"] == ["torch.definitely_not_a_torch_function"]
    assert "torch.definitely_not_a_torch_function" in rec["missing"]  # seen by the tracer too
    oracle = cells[("unsupported", "torch")]
    assert (oracle["status"], oracle["reason"]) == ("imports", "error")  # real torch lacks it too


def test_crash_is_isolated_and_reported(fixture_run):
    _, cells = fixture_run
    for backend in ("torch", "torchproxy"):
        rec = cells[("crash", backend)]
        assert (rec["status"], rec["reason"]) == ("imports", "crash"), rec
        assert "SIGABRT" in rec["detail"] and "phase: imported" in rec["detail"]


def test_hang_is_killed_at_its_timeout(fixture_run):
    _, cells = fixture_run
    for backend in ("torch", "torchproxy"):
        rec = cells[("hang", backend)]
        assert rec["reason"] == "timeout", rec
        assert "no result after 8 s" in rec["detail"]
        # how far it got before the kill decides the level (a loaded machine may not even
        # have finished importing in 8 s)
        imported = "phase: imported" in rec["detail"]
        assert rec["status"] == ("imports" if imported else "fails"), rec
        assert 8 <= rec["proc_s"] < 40


def test_paddle_compat_column(fixture_run):
    _, cells = fixture_run
    rec = cells[("scale_add", "paddle_compat")]
    if _paddle_has_compat():
        assert rec["status"] == "matches", rec
    else:
        assert (rec["status"], rec["reason"]) == ("n/a", "unavailable")


def test_meta_has_wall_time_and_environment(fixture_run):
    out, _ = fixture_run
    with open(os.path.join(out, "meta.json")) as f:
        meta = json.load(f)
    assert meta["wall_s"] > 0 and meta["env"]["paddle"]
    assert meta["libraries"]["fakelib"]["cases"][0] == "scale_add"


def test_spec_setup_runs_only_for_its_backend(fixture_run):
    # setup=(("torchproxy", "cpu", "fakelib:setup_hook"),): the torchproxy worker called it
    # once, the others did not, so the outputs differ (1 vs 0) and the comparison says so
    _, cells = fixture_run
    assert cells[("setup_calls", "torch")]["status"] == "runs"
    rec = cells[("setup_calls", "torchproxy")]
    assert rec["setup"] == ["fakelib:setup_hook"]
    assert rec["reason"] == "wrong_numbers" and "torch 0, got 1" in rec["detail"], rec
    assert cells[("setup_calls", "paddle_compat")].get("setup") in ([], None)
