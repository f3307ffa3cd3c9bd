"""`torchproxy coverage`: generated from the registry, gaps.toml and the recorded verification."""
import json
import textwrap

import pytest

from torchproxy import cli, coverage
from torchproxy.facade import registry


def _run(capsys, *argv):
    assert cli.main(["coverage", *argv]) == 0
    return capsys.readouterr().out


def test_json_rows_are_exactly_the_registry(capsys):
    rep = json.loads(_run(capsys, "--format", "json"))
    names = [r["name"] for r in rep["rows"]]
    assert set(names) == set(registry.TABLE) | set(registry.TENSOR_TABLE)
    assert len(names) == len(set(names)) == rep["provided"]
    assert sum(rep["by_kind"].values()) == rep["provided"]
    row = {r["name"]: r for r in rep["rows"]}
    assert row["torch.cuda.current_stream"]["kind"] == "adapter"
    assert row["torch.cuda.current_stream"]["how"] == "torchproxy.facade.cuda.current_stream"
    assert row["torch.cuda.set_device"]["note"] == registry.TABLE["torch.cuda.set_device"].note
    assert row["torch.autograd.Function"]["kind"] == "type"
    assert row["torch.Tensor.requires_grad"]["kind"] == "tensor property"
    assert row["torch.Tensor.backward"]["how"].split(":")[0] in ("added", "dispatched")


def test_gaps_listed_with_reasons_and_contradictions_flagged(tmp_path, monkeypatch, capsys):
    gaps = tmp_path / "gaps.toml"
    gaps.write_text(textwrap.dedent('''
        # comment
        "torch.cuda.fixture_gap_name" = "no free/total query"
        "torch.cuda.is_available" = "wrongly listed"
    '''))
    monkeypatch.setattr(coverage, "GAPS", str(gaps))
    rep = json.loads(_run(capsys, "--format", "json"))
    assert rep["gaps"] == {"torch.cuda.fixture_gap_name": "no free/total query",
                           "torch.cuda.is_available": "wrongly listed"}
    assert rep["gaps_also_provided"] == ["torch.cuda.is_available"]
    text = _run(capsys)
    assert "torch.cuda.fixture_gap_name: no free/total query" in text
    assert "WARNING: torch.cuda.is_available is provided AND listed in gaps.toml" in text
    assert coverage._parse_flat_toml(str(gaps)) == rep["gaps"]  # the Python 3.10 reader agrees


def test_verified_only_from_the_record(tmp_path, monkeypatch, capsys):
    ver = tmp_path / "verified.json"
    ver.write_text(json.dumps({"paddle": {"9.9.9": {
        "verified": ["torch.cuda.is_available", "torch.Tensor.numel"], "passed": 2,
        "failed_tests": 0, "suites": ["x"], "recorded": "then", "commit": "abc"}}}))
    monkeypatch.setattr(coverage, "VERIFIED", str(ver))
    rep = json.loads(_run(capsys, "--format", "json"))
    on = {r["name"]: r["verified_on"] for r in rep["rows"]}
    assert on["torch.cuda.is_available"] == ["9.9.9"] and on["torch.Tensor.numel"] == ["9.9.9"]
    assert on["torch.cuda.device_count"] == []
    assert rep["verified"]["9.9.9"]["names"] == 2


def test_markdown_and_out_file(tmp_path, capsys):
    out = tmp_path / "cov.md"
    assert _run(capsys, "--format", "markdown", "--out", str(out)) == ""
    md = out.read_text()
    assert md.startswith("# torchproxy coverage")
    assert "| `torch.cuda.current_stream` | adapter | `torchproxy.facade.cuda.current_stream` |" in md
    assert "## Known gaps" in md


def test_record_marks_names_of_passing_tests_only(tmp_path, monkeypatch):
    suite = tmp_path / "test_tiny_suite.py"
    suite.write_text(textwrap.dedent('''
        import numpy as np
        from difftest import check
        X = np.ones((2, 3), "float32")
        def test_gelu_passes():
            check("import torch\\ndef f(x):\\n    return torch.nn.functional.gelu(x)\\n", X)
        def test_silu_fails():
            check("import torch\\ndef f(x):\\n    return torch.nn.functional.silu(x)\\n", X)
            raise AssertionError("deliberately failing test")
    '''))
    path = tmp_path / "verified.json"
    rec = coverage.record((str(suite),), path=str(path))
    assert rec["passed"] == 1 and rec["failed_tests"] == 1
    assert "torch.nn.functional.gelu" in rec["verified"]
    assert "torch.nn.functional.silu" not in rec["verified"]
    assert "torch.nn.functional.silu" in rec["used_by_failing_tests"]
    stored = json.loads(path.read_text())
    import paddle
    key = coverage.record_key(paddle.__version__, rec["gpu"])
    assert stored["paddle"][key]["verified"] == rec["verified"]


def test_unknown_format_rejected():
    with pytest.raises(ValueError, match="unknown format"):
        coverage.render("html")


# -- docs/COVERAGE.md and the pinned Tensor install policy ---------------------------------------
def test_checked_in_coverage_md_is_fresh():
    """docs/COVERAGE.md is generated, identical on every Paddle version; stale = fail."""
    with open(coverage.COVERAGE_MD, encoding="utf-8") as f:
        checked_in = f.read()
    fresh = coverage.render_coverage_md()
    if fresh != checked_in:
        import difflib
        diff = "".join(list(difflib.unified_diff(checked_in.splitlines(True), fresh.splitlines(True),
                                                 "docs/COVERAGE.md", "fresh", n=0))[:40])
        pytest.fail("docs/COVERAGE.md is stale: run `torchproxy coverage --write-md` "
                    f"(after --pin-policy on each Paddle when Tensor names changed)\n{diff}")


def test_coverage_md_lists_every_declared_name_with_kind_policy_and_verification():
    rows = {r["name"]: r for r in coverage.md_rows()}
    assert set(registry.TABLE) | set(registry.TENSOR_TABLE) <= set(rows)
    assert rows["torch.addcmul"]["category"] == "function"
    assert rows["torch.Tensor.addcmul"]["category"] == "method"
    assert rows["torch.Tensor.addcmul_"]["category"] == "inplace"
    assert rows["torch.Tensor.requires_grad"]["category"] == "property"
    assert rows["torch.float16"]["category"] == "value"
    assert rows["torch.nn"]["category"] == "module"
    assert rows["torch.Size"]["category"] == "type"
    assert "3.3: dispatched" in rows["torch.Tensor.numel"]["policy"]
    # the conditional name (registered on Paddle 2.6 only) has a row on every version
    assert rows["torch.Tensor.data_ptr"]["policy"] == "3.3: paddle, 2.6: dispatched"
    md = coverage.render_coverage_md()
    assert "| `torch.Tensor.addcmul_` | ops | inplace |" in md


def test_tensor_install_policy_is_pinned_per_paddle_series():
    """When Paddle gains a Tensor attribute, install turns our name from 'added' (free for
    Paddle's callers) into 'dispatched' (a scope check per call): pinned here so that it shows."""
    pinned = coverage.load_policy()
    series = coverage.paddle_series()
    if not any(series in col for col in pinned.values()):
        pytest.skip(f"no policy pinned for Paddle {series} (torchproxy coverage --pin-policy)")
    here = coverage.policy_here()
    changed = {n: f"{pinned.get(n, {}).get(series, 'unpinned')} -> {p}" for n, p in here.items()
               if pinned.get(n, {}).get(series) != p}
    gone = sorted(n for n, col in pinned.items() if series in col and n not in here)
    assert not changed and not gone, (
        f"Tensor install policy on Paddle {series} differs from tensor_policy.json: {changed}; "
        f"pinned but no longer declared: {gone}. Check the change is wanted, then run "
        "`torchproxy coverage --pin-policy` on this Paddle and `--write-md`.")


def test_pin_policy_writes_this_series_only(tmp_path, monkeypatch):
    path = tmp_path / "policy.json"
    path.write_text(json.dumps({"torch.Tensor.numel": {"9.9": "added"},
                                "torch.Tensor.gone_name": {"9.9": "added",
                                                           coverage.paddle_series(): "added"}}))
    data = coverage.pin_policy(str(path))
    series = coverage.paddle_series()
    assert data["torch.Tensor.numel"] == {"9.9": "added", series: "dispatched"}
    assert data["torch.Tensor.gone_name"] == {"9.9": "added"}
    assert json.loads(path.read_text()) == data


def test_opinfo_status_is_merged_when_present(tmp_path, monkeypatch):
    status = tmp_path / "opinfo-status.json"
    monkeypatch.setattr(coverage, "OPINFO_STATUS", str(status))
    assert "OpInfo" not in coverage.render_coverage_md()
    status.write_text(json.dumps({"names": {"torch.addcmul": {
        "3.3.1": {"status": "pass"}, "2.6.2": {"status": "fail"}}}}))
    md = coverage.render_coverage_md()
    assert "| OpInfo |" in md and "docs/results/opinfo-status.json" in md
    line = next(x for x in md.splitlines() if x.startswith("| `torch.addcmul` |"))
    assert line.endswith(" 3.3.1: pass, 2.6.2: fail |")


def test_write_md_command(tmp_path, monkeypatch, capsys):
    out = tmp_path / "COVERAGE.md"
    monkeypatch.setattr(coverage, "COVERAGE_MD", str(out))
    assert cli.main(["coverage", "--write-md"]) == 0
    assert out.read_text() == coverage.render_coverage_md()
