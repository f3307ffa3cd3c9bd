"""Spec loading, input generation, comparison and classification (no subprocesses)."""
import os
import xml.etree.ElementTree as ET

import numpy as np
import pytest

from compat_matrix import classify, spec, values
from matrix_testpaths import FIXTURE_SPECS, ROOT


def test_builtin_specs_load_and_name_their_install():
    specs = spec.load_specs()
    names = {s.library.name for s in specs}
    assert {"kernels_triton", "liger_kernel", "flag_gems", "kernels_tilelang", "fla",
            "cut_cross_entropy"} <= names
    for s in specs:
        # a row without cases (GPU-only C++ libraries: only the import case) says why
        assert (s.cases or s.library.unavailable_reason) and s.library.scope \
            and s.library.install_lines(), s.library.name
        # a library's pins live in its spec only (ci/requirements-* do not repeat them)
        for req in s.library.pip:
            if "==" in req:
                import glob
                for path in glob.glob(os.path.join(ROOT, "ci", "requirements-*.txt")):
                    assert req not in open(path).read(), (req, path)
        assert s.module_name == f"compat_matrix.specs.{s.library.name}"


def test_unknown_library_is_an_error():
    with pytest.raises(ValueError, match="unknown libraries"):
        spec.load_specs(libs=["no_such_lib"])


def test_duplicate_case_names_are_rejected(tmp_path):
    p = tmp_path / "dup.py"
    p.write_text("from compat_matrix.spec import Case, Library\n"
                 "LIBRARY = Library(name='d', scope=('d',))\n"
                 "CASES = [Case('a', len), Case('a', len)]\n")
    with pytest.raises(ValueError, match="duplicate case names"):
        spec.load_spec(str(p))


def test_inputs_are_deterministic_and_typed():
    (s,) = spec.load_specs([FIXTURE_SPECS])
    case = s.cases[0]
    a, b = spec.make_inputs("fakelib", case), spec.make_inputs("fakelib", case)
    for x, y in zip(a, b):
        if isinstance(x, np.ndarray):
            assert x.dtype == np.float32 and np.array_equal(x, y)
    assert a[2] == 0.5
    other = spec.make_inputs("otherlib", case)  # the seed depends on library/case
    assert not np.array_equal(a[0], other[0])


def test_bfloat16_rounding_gives_bf16_exact_values():
    x = np.array([1.0, 1.00390625, 1.01171875, -3.14159, 65504.0], dtype=np.float32)
    r = spec.round_to_bfloat16(x)
    assert np.all(r.view(np.uint32) & 0xFFFF == 0)
    assert r[0] == 1.0 and r[1] == 1.0  # halfway: ties to even
    assert r[2] == 1.015625
    assert abs(r[3] - -3.140625) < 1e-7


def test_flatten_and_compare(tmp_path):
    exp = values.flatten((np.float32(1.5), [np.ones(3, np.float32)], 7))
    # numpy scalars are neither tensors nor Python numbers: reported as "other", not hidden
    assert exp[0][1] == "other:float32"
    e_leaves = [("out[0]", "tensor", "float32", np.array([1.0, 2.0], np.float32)),
                ("out[1]", "int", "int64", np.array(3))]
    a_leaves = [("out[0]", "tensor", "float32", np.array([1.0, 2.0 + 1e-3], np.float32)),
                ("out[1]", "int", "int64", np.array(3))]
    em = values.save(e_leaves, tmp_path / "e.npz")
    am = values.save(a_leaves, tmp_path / "a.npz")
    tol = spec.Case("c", len).tolerance
    diff = values.compare(em, tmp_path / "e.npz", am, tmp_path / "a.npz", tol)
    assert diff.startswith("out[0]: 1/2 elements differ") and "at [1]" in diff
    loose = spec.Case("c", len, tol={"float32": (1e-3, 1e-3)}).tolerance
    assert values.compare(em, tmp_path / "e.npz", am, tmp_path / "a.npz", loose) is None
    b_leaves = [e_leaves[0], ("out[1]", "tensor", "int64", np.array(3))]
    bm = values.save(b_leaves, tmp_path / "b.npz")
    assert "torch gives int int64, got tensor int64" in values.compare(
        em, tmp_path / "e.npz", bm, tmp_path / "b.npz", tol)


def test_nan_positions_must_agree():
    e = np.array([np.nan, 1.0])
    assert values.compare_arrays(e, e.copy(), "float64", lambda d: (1e-7, 0)) is None
    assert "1/2 elements differ" in values.compare_arrays(e, np.array([0.0, 1.0]), "float64",
                                                          lambda d: (1e-7, 0))


def test_classify_names_the_missing_torch_name():
    from torchproxy.errors import NotProvidedError
    try:
        try:
            raise NotProvidedError("torch.foo.bar")
        except AttributeError as inner:
            raise RuntimeError("wrapped by the interpreter") from inner
    except RuntimeError as e:
        reason, detail, names = classify.classify(e, "torchproxy", "call")
    assert (reason, names) == ("unsupported", ["torch.foo.bar"])
    assert detail.startswith("unsupported torch name torch.foo.bar")
    # Paddle's proxy speaks of paddle modules: mapped back to the torch names
    e = ModuleNotFoundError("No module named 'paddle._dynamo'")
    assert classify.classify(e, "paddle_compat", "import")[2] == ["torch._dynamo"]
    # the oracle never has "unsupported" names: its failures are errors
    assert classify.classify(AttributeError("module 'torch' has no attribute 'x'"),
                             "torch", "call")[0] == "error"
    assert classify.classify(ValueError("boom"), "torchproxy", "import")[0] == "import_error"


def test_reports_from_the_fixture_run(fixture_run):
    out, cells = fixture_run
    md = open(f"{out}/matrix.md").read()
    assert "| fakelib | crash |" in md and "crash" in md
    assert "`torch.definitely_not_a_torch_function`" in md
    # real torch runs scale_add, row_sums, bad_reference, wrong, setup_calls; torchproxy matches
    # the first three
    assert "Of the cases real torch itself runs: torchproxy (cpu) matches 3/5" in md
    # the static scan reports a name no case reaches; the tracer cannot know it
    assert "- **fakelib** (fakelib: " in md and "`torch.fakelib_only_static_name`" in md
    assert not any("torch.fakelib_only_static_name" in r.get("missing", []) for r in cells.values())
    root = ET.parse(f"{out}/junit.xml").getroot()
    suites = {s.get("name"): s for s in root}
    tp = suites["fakelib.torchproxy.cpu"]
    assert int(tp.get("tests")) == 9
    failures = {tc.get("name"): tc.find("failure") for tc in tp}
    assert failures["scale_add"] is None
    assert failures["crash"].get("type") == "crash"
    assert failures["wrong"].get("type") == "wrong_numbers"
    assert int(root.get("failures")) == sum(int(s.get("failures")) for s in root)
    page = open(f"{out}/matrix.html").read()
    # self-contained: nothing is fetched (URLs inside the embedded data are only text)
    import re
    assert not re.search(r"<(script|link|img|iframe)[^>]*(src|href)=", page)
    assert not re.search(r"@import|url\(", page)


def test_torchproxy_matrix_command_delegates(tmp_path):
    import subprocess
    import sys
    from matrix_testpaths import ROOT
    r = subprocess.run([sys.executable, "-m", "torchproxy", "matrix", "--list",
                        "--specs", FIXTURE_SPECS], cwd=ROOT, capture_output=True, text=True,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.splitlines()[0] == "fakelib: scope=fakelib devices=cpu"
    assert "cases: import, scale_add, row_sums, bad_reference, wrong, setup_calls, unsupported, crash, hang" in r.stdout
    bad = subprocess.run([sys.executable, "-m", "compat_matrix", "--backend", "nope", "--out",
                          str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert bad.returncode == 2 and "unknown backend" in bad.stderr
    bad = subprocess.run([sys.executable, "-m", "compat_matrix", "--python-for", "nolib",
                          "--out", str(tmp_path)], cwd=ROOT, capture_output=True, text=True,
                         timeout=60)
    assert bad.returncode == 2 and "LIB=PYTHON" in bad.stderr


def test_python_for_unknown_library_is_refused(tmp_path):
    from compat_matrix.runner import Options, Runner
    runner = Runner(Options(out=str(tmp_path), specs=[FIXTURE_SPECS],
                            python_for={"not_a_lib": "/usr/bin/python3"}))
    with pytest.raises(ValueError, match="unknown libraries"):
        runner.plan()


def test_python_for_a_known_library_left_out_by_libs_is_unused(tmp_path):
    # ./dev matrix passes --python-for kernels_tilelang=... on every run: `./dev matrix --libs
    # kernels_triton` must plan the one library, not refuse the other's Python
    import sys
    from compat_matrix.runner import Options, Runner
    runner = Runner(Options(out=str(tmp_path), libs=["kernels_triton"],
                            python_for={"kernels_tilelang": sys.executable}))
    runner.plan()
    assert [s.library.name for s in runner.specs] == ["kernels_triton"]


def test_progress_redraws_on_a_terminal_and_logs_lines_otherwise():
    import io
    from compat_matrix.progress import Progress

    class Tty(io.StringIO):
        def isatty(self):
            return True

    rec = {"lib": "l", "case": "c", "backend": "torchproxy", "device": "cpu", "status": "fails",
           "reason": "unsupported"}
    for stream, tty in ((Tty(), True), (io.StringIO(), False)):
        p = Progress(stream)
        p.start(2)
        p.update(rec)
        p.update({**rec, "backend": "torch", "status": "matches", "reason": None})
        p.finish()
        text = stream.getvalue()
        assert ("\r[" in text) == tty
        assert "l/c [torchproxy,cpu]: fails (unsupported)" in text
        assert "done: 2/2 cells" in text and "torchproxy: 1F | torch: 1M" in text


def test_reference_results_become_arrays():
    # numpy arrays and scalars from a reference must be compared, never skipped
    from compat_matrix.runner import _numpy_leaves
    leaves = _numpy_leaves((np.ones((2, 3)), [np.float32(3.0), True]))
    assert [a.shape for a in leaves] == [(2, 3), (), ()]
    with pytest.raises(TypeError, match="not numbers"):
        _numpy_leaves(("text",))


def test_compare_arrays_reports_a_0d_mismatch():
    # a loss is a 0-d array: the comparison must describe it, not crash the report writer
    import numpy as np
    from compat_matrix.values import compare_arrays
    msg = compare_arrays(np.array(85.8, "float32"), np.array(0.0, "float32"), "float32",
                         lambda dt: (1e-5, 1e-6))
    assert msg.startswith("1/1 elements differ") and "max abs error 85.8" in msg
    assert compare_arrays(np.array(1.0, "float32"), np.array(1.0, "float32"), "float32",
                          lambda dt: (1e-5, 1e-6)) is None


def test_shards_partition_the_libraries_and_merge_joins_them(fixture_run, tmp_path):
    """--shard I/N splits whole libraries deterministically; --merge joins the OUT folders."""
    from compat_matrix import reports, spec
    from compat_matrix.runner import shard_libraries
    specs = spec.load_specs()
    parts = shard_libraries(specs, 3)
    assert parts == shard_libraries(list(reversed(specs)), 3)  # the same split in every job
    names = [n for p in parts for n in p]
    assert sorted(names) == sorted(s.library.name for s in specs) and len(set(names)) == len(names)
    assert all(parts)
    # merging: the fixture run split in two folders by case, then joined
    import json
    import shutil
    out, cells = fixture_run
    a, b = tmp_path / "a", tmp_path / "b"
    for d in (a, b):
        d.mkdir()
        shutil.copy(f"{out}/meta.json", d / "meta.json")
    with open(f"{out}/results.jsonl") as f:
        lines = [line for line in f if line.strip()]
    (a / "results.jsonl").write_text("".join(lines[::2]))
    (b / "results.jsonl").write_text("".join(lines[1::2]))
    paths = reports.merge([str(a), str(b)], str(tmp_path / "merged"))
    def table(text):
        return text.split("## All cases")[1].split("## Missing torch names in each")[0]
    assert table(open(paths["markdown"]).read()) == table(open(f"{out}/matrix.md").read())
    summary = json.load(open(paths["summary"]))
    assert summary["cells"] == len(cells) and len(summary["shards"]) == 2
    with pytest.raises(ValueError, match="must not overlap"):
        reports.merge([str(a), str(a)], str(tmp_path / "twice"))


def test_summary_and_published_page_come_from_the_records(fixture_run, tmp_path):
    import json
    from compat_matrix.reports import Matrix, publish
    out, cells = fixture_run
    s = json.load(open(f"{out}/summary.json"))
    ran = sum(1 for (c, b), r in cells.items() if b == "torch" and c != "import"
              and (r["status"] in ("runs", "matches") or r.get("outputs") is not None))
    applicable = sum(1 for (c, b), r in cells.items() if b == "torch" and c != "import"
                     and r["status"] != "n/a")
    assert s["oracle_runs"]["cpu"]["ran"] == ran and s["oracle_runs"]["cpu"]["of"] == applicable
    assert s["proxy_matches_oracle"]["torchproxy/cpu"] == {"matches": 3, "of": 5}
    page = publish.render(Matrix.load(out), command="cmd")
    assert f"Real torch runs **{ran} of {applicable}** CPU cases" in page
    assert "torchproxy/cpu: matches real torch on **3 of 5**" in page
    assert "- fakelib/crash [cpu]: imports / crash:" in page  # real torch fails it too


def test_html_shows_reason_and_message_in_the_grid(fixture_run):
    import json
    import re
    out, cells = fixture_run
    page = open(f"{out}/matrix.html").read()
    data = json.loads(re.search(r'<script type="application/json" id="data">(.*?)</script>', page,
                                re.S).group(1).replace("<\\/", "</"))
    wrong = data["cells"]["\u0001".join(("fakelib", "wrong", "torchproxy", "cpu"))]
    assert wrong["msg"].startswith("out: 5/5 elements differ"), wrong
    crash = data["cells"]["\u0001".join(("fakelib", "crash", "torchproxy", "cpu"))]
    assert crash["oracle_fails"] is True and crash["msg"].startswith("worker killed by signal SIGABRT")
    assert data["cells"]["\u0001".join(("fakelib", "scale_add", "torchproxy", "cpu"))]["oracle_fails"] is False
    assert "What the cells say" in page and "torch fails too" in page
    assert "<ul id='failures'>" in page and "fakelib/wrong [torchproxy, cpu] fails / wrong_numbers" in page
