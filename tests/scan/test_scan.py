"""`torchproxy scan` on a small fixture package (tests/scan/fixtures/minipkg).

Most tests use a small fixed facade table, so the expected groups do not move while the real
facade grows; one test checks the real table is what decides, and one runs the CLI.
"""
import json
import os

import pytest

from torchproxy.facade.registry import Entry
from torchproxy.scan import CAVEAT, MISSING, PROVIDED, scan
from torchproxy.scan import cppscan, pyscan
from torchproxy.scan.classify import Classifier, _parse_flat_toml, load_gaps

PKG = os.path.join(os.path.dirname(__file__), "fixtures", "minipkg")


def _e(name, kind="adapter", note=""):
    return name, Entry(name, kind, object(), note)


class FakePaddleTensor:
    def copy_(self, other):  # Paddle "has" copy_ but the facade has no torch version of it
        return self


TABLE = dict([
    _e("torch.Tensor", "alias"), _e("torch.nn", "module"), _e("torch.nn.functional", "module"),
    _e("torch.nn.functional.relu", "alias"), _e("torch.cuda.get_device_capability"),
    _e("torch.version.cuda", "value", "Paddle's CUDA version"), _e("torch.library.custom_op"),
    _e("torch.empty_like"), _e("torch.float8_e4m3fn", "value"), _e("torch.ops", "value"),
])
TENSOR_TABLE = dict([_e("torch.Tensor.data_ptr")])
GAPS = {"torch.empty_like": "memory_format is ignored"}


@pytest.fixture(scope="module")
def report():
    clf = Classifier(TABLE, TENSOR_TABLE, GAPS, FakePaddleTensor)
    return scan(PKG, clf)


def _groups(report):
    return {n.name: (n.status, n.sites) for n in report.names}


def test_exact_names_groups_and_sites(report):
    assert _groups(report) == {
        "torch": (PROVIDED, ["__init__.py:2", "ops.py:1", "vendored/third.py:1"]),
        "torch.nn": (PROVIDED, ["__init__.py:4"]),
        "torch.nn.functional": (PROVIDED, ["__init__.py:3"]),
        "torch.nn.functional.relu": (PROVIDED, ["__init__.py:11"]),
        "torch.library.custom_op": (PROVIDED, ["__init__.py:5", "ops.py:7"]),
        "torch.Tensor": (PROVIDED, ["__init__.py:10", "ops.py:8"]),
        "torch.cuda.get_device_capability": (PROVIDED, ["__init__.py:15"]),
        "torch.float8_e4m3fn": (PROVIDED, ["ops.py:19 (probe)", "ops.py:20"]),
        "torch.version.cuda": (CAVEAT, ["__init__.py:15"]),
        "torch.empty_like": (CAVEAT, ["ops.py:9"]),
        "torch.ops.mini.scale": (CAVEAT, ["ops.py:15"]),
        "torch.utils": (MISSING, ["ops.py:2", "ops.py:25"]),
        "torch.library.Library": (MISSING, ["ops.py:4"]),
        "torch.ops.aten.add": (MISSING, ["ops.py:15"]),
        "torch.float4_e2m1fn_x2": (MISSING, ["ops.py:21 (probe)"]),
        "torch.distributed": (MISSING, ["vendored/third.py:2"]),
    }
    assert report.summary == {"used": 16, PROVIDED: 8, CAVEAT: 3, MISSING: 5,
                              "cpp_header_files": 1}


def test_notes_and_written_names(report):
    by = {n.name: n for n in report.names}
    assert by["torch.version.cuda"].note == "Paddle's CUDA version"
    assert by["torch.empty_like"].note == "memory_format is ignored"      # from the gaps ledger
    assert "registered by the package itself" in by["torch.ops.mini.scale"].note
    assert by["torch.ops.aten.add"].note == "aten ops are not in the facade table"
    # the first unknown prefix is what raises at run time; what was written stays as detail
    assert by["torch.utils"].written == ["torch.utils.cpp_extension",
                                         "torch.utils.cpp_extension.load"]
    assert by["torch.float8_e4m3fn"].written == ["torch.float8_e4m3fn.itemsize"]
    assert by["torch.distributed"].written == ["torch.distributed.barrier"]


def test_registrations_cpp_methods_errors(report):
    assert report.registrations == [
        {"api": "torch.library.Library", "op": "mini::*", "site": "ops.py:4"},
        {"api": "torch.library.custom_op", "op": "mini::scale", "site": "ops.py:7"},
    ]
    assert report.cpp_includes == {"torch/extension.h": ["csrc/mini.cu:2"],
                                   "ATen/cuda/CUDAContext.h": ["csrc/mini.cu:4"]}
    assert report.python_files == 4 and report.cpp_files == 2
    methods = {m["name"]: (m["calls"], m["status"]) for m in report.tensor_methods}
    assert methods == {"data_ptr": (1, PROVIDED), "copy_": (1, CAVEAT)}
    assert len(report.errors) == 1 and report.errors[0].startswith("broken.py: SyntaxError")
    assert report.verdict.startswith("blocked: 5 of 16 torch names missing")
    assert "C++ includes torch headers in 1 files" in report.verdict


def test_exclude_drops_vendored_tree():
    clf = Classifier(TABLE, TENSOR_TABLE, GAPS, FakePaddleTensor)
    r = scan(PKG, clf, exclude=["vendored", "broken.py"])
    assert "torch.distributed" not in {n.name for n in r.names}
    assert r.errors == [] and r.python_files == 2


def test_import_forms_and_alias_rebinding():
    src = (
        "import torch.nn.functional\n"             # binds `torch`
        "import torch.cuda as tc\n"
        "from torch.nn import functional as Fn\n"
        "torch.nn.functional.gelu(x)\n"
        "tc.synchronize()\n"
        "Fn.silu(x)\n"
        "y = x.data_ptr()\n"
        "from .torch import thing\n"              # relative: not torch
        "import torchvision\n"                    # another package
        "z = torch.cuda.current_stream().cuda_stream\n"
    )
    fs = pyscan.scan_source(src, "m.py", frozenset({"data_ptr"}))
    assert [(u.name, u.line, u.how) for u in fs.uses] == [
        ("torch.nn.functional", 1, "import"), ("torch.cuda", 2, "import"),
        ("torch.nn.functional", 3, "import"), ("torch.nn.functional.gelu", 4, "attr"),
        ("torch.cuda.synchronize", 5, "attr"), ("torch.nn.functional.silu", 6, "attr"),
        ("torch.cuda.current_stream", 10, "attr"),
    ]
    assert fs.method_calls == [("data_ptr", "m.py", 7)]


def test_cpp_include_forms():
    text = '#include <torch/all.h>\n#include "ATen/ATen.h"\n// #include <torch/x.h>\n' \
           '#include <cuda_fp16.h>\n#include <c10/cuda/CUDAStream.h>\n'
    assert [(i.header, i.line) for i in cppscan.scan_source(text, "a.cu")] == [
        ("torch/all.h", 1), ("ATen/ATen.h", 2), ("c10/cuda/CUDAStream.h", 5)]


def test_gaps_ledger_parsing(tmp_path):
    p = tmp_path / "gaps.toml"
    p.write_text('# FlashInfer\n"torch.a.b" = "no such thing in Paddle"\n'
                 '"torch.a.b (Paddle 2.6)" = "slower"\n'
                 '[section]\n"torch.c" = "say \\"why\\""\nother = "ignored"\n')
    assert load_gaps(str(p)) == {"torch.a.b": "no such thing in Paddle; (Paddle 2.6): slower",
                                 "torch.c": 'say "why"'}
    # the Python 3.10 fallback (no tomllib) reads the same flat lines
    assert _parse_flat_toml(p.read_text()) == {"torch.a.b": "no such thing in Paddle",
                                               "torch.a.b (Paddle 2.6)": "slower",
                                               "torch.c": 'say "why"'}
    assert load_gaps(str(tmp_path / "absent.toml")) == {}


def test_real_table_decides():
    """With the real facade table, every verdict agrees with the registry entries."""
    from torchproxy.facade import registry
    table = registry.load_table()
    r = scan(PKG)
    for n in r.names:
        entry = table.get(n.name)
        if n.status == PROVIDED:
            assert n.name == "torch" or entry is not None or any(
                k.startswith(n.name + ".") for k in table), n.name
        if n.status == MISSING and not n.name.startswith("torch.ops."):
            assert entry is None and not any(k.startswith(n.name + ".") for k in table), n.name
    # torch.Tensor is provided; the gaps ledger may give it a caveat (in-place through views)
    tensor = {n.name: n for n in r.names}["torch.Tensor"]
    assert tensor.status == (CAVEAT if "torch.Tensor" in load_gaps() else PROVIDED)


def test_layout_aliases_resolve_as_the_tree_does():
    """A path torch exposes an object at besides the one the registry declares resolves the
    way the facade tree binds it (layout.apply): torch.autocast is torch.amp.autocast,
    torch.distributions.multivariate_normal.MultivariateNormal the distribution class."""
    from torchproxy import api
    from torchproxy.facade import layout, modules, registry
    clf = Classifier()
    assert clf.aliases["torch.autocast"] == "torch.amp.autocast"
    for name in ("torch.autocast", "torch.distributions.multivariate_normal.MultivariateNormal",
                 "torch.nn.modules.linear.Linear"):
        v = clf.classify(name)
        assert v.status != MISSING and v.name == name, v
    # the classifier's aliases are exactly what building the tree binds
    modules.build()
    assert clf.aliases == modules.LAYOUT_BOUND
    assert layout.aliases(registry.load_table()) == modules.LAYOUT_BOUND
    # a name under no group stays missing
    assert clf.classify("torch.no_such_name_anywhere").status == MISSING
    assert api  # (imported for the facade's registration side effects)


def test_cli_json_and_text(capsys):
    from torchproxy.cli import main
    assert main(["scan", PKG, "--json", "--exclude", "vendored"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["exclude"] == ["vendored"]
    assert set(data["summary"]) == {"used", PROVIDED, CAVEAT, MISSING, "cpp_header_files"}
    assert "torch.distributed" not in {n["name"] for n in data["names"]}
    assert main(["scan", PKG]) == 0
    text = capsys.readouterr().out
    assert "verdict: " in text and "C++ torch headers" in text
    assert main(["scan", "no_such_package_xyz"]) == 2
    assert main(["scan", PKG, "--fail-on-missing"]) == 1


def test_summary_markdown_row(capsys):
    from torchproxy.cli import main
    assert main(["scan", PKG, "--exclude", "vendored", "--summary-md", "--label", "minipkg"]) == 0
    lines = capsys.readouterr().out.strip().splitlines()
    assert len(lines) == 3 and lines[2].startswith("| minipkg | 3 / 2 |")


def test_installed_package_is_located_not_imported():
    import sys
    from torchproxy.scan import locate
    assert locate("email").endswith("email")
    assert locate("email.mime").endswith(os.path.join("email", "mime"))
    assert locate("email.utils").endswith(os.path.join("email", "utils.py"))
    with pytest.raises(FileNotFoundError):
        locate("email.no_such_module")
    sys.modules.pop("xml.dom.minidom", None)
    clf = Classifier(TABLE, TENSOR_TABLE, GAPS, FakePaddleTensor)
    r = scan("xml.dom", clf)
    assert "xml.dom.minidom" not in sys.modules       # scanned, never imported
    assert r.python_files > 3 and r.summary["used"] == 0
    assert r.verdict == "no torch use found: nothing to port"


def test_attribute_of_a_facade_class():
    class Device:
        type = "cuda"
    table = dict(TABLE, **{"torch.device": Entry("torch.device", "type", Device, "")})
    clf = Classifier(table, TENSOR_TABLE, {}, FakePaddleTensor)
    v = clf.classify("torch.device.type")
    assert (v.name, v.status, v.note) == ("torch.device", PROVIDED, "")
    v = clf.classify("torch.device.cuda.get_device_capability")   # Paddle's API, not torch's
    assert (v.name, v.status) == ("torch.device.cuda", MISSING)
    assert v.note == "not an attribute of the facade's torch.device"
