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
