"""The package's import graph (in-function imports counted, '# lazy:' ones not): its cycles may
only shrink (ci/import-cycles.txt, a ratchet written by `python ci/import_cycles.py --write`)."""
from __future__ import annotations

import importlib.util
import os

from matrix_testpaths import ROOT

_spec = importlib.util.spec_from_file_location("import_cycles",
                                               os.path.join(ROOT, "ci", "import_cycles.py"))
import_cycles = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(import_cycles)


def test_no_new_import_cycle_and_the_ledger_is_current():
    now = [set(c) for c in import_cycles.cycles()]
    recorded = [set(c) for c in import_cycles.read_ledger()]
    grown = [sorted(c) for c in now if not any(c <= r for r in recorded)]
    assert grown == [], ("a new import cycle, or a cycle gained modules: import the lower module "
                         "from the higher one only (or mark a deliberate lazy load '# lazy: why')")
    shrunk = [sorted(r) for r in recorded if r not in now]
    assert shrunk == [], "cycles shrank: record it with `python ci/import_cycles.py --write`"


def test_the_cycle_finder_finds_cycles_through_function_level_imports():
    edges = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}, "e": set()}
    assert import_cycles.cycles(edges) == [["a", "b", "c"]]
    assert import_cycles.cycles({"a": {"b"}, "b": set()}) == []


def test_lazy_marked_function_imports_are_not_edges(tmp_path, monkeypatch):
    pkg = tmp_path / "torchproxy"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("")
    (pkg / "low.py").write_text("def f():\n    from . import high  # lazy: optional, heavy\n")
    (pkg / "high.py").write_text("from . import low\n")
    (pkg / "mid.py").write_text("def g():\n    from . import high\n")
    (pkg / "top.py").write_text("from . import mid\n")
    monkeypatch.setattr(import_cycles, "ROOT", str(tmp_path))
    monkeypatch.setattr(import_cycles, "PACKAGE", str(pkg))
    edges = import_cycles.graph()
    assert edges["torchproxy.low"] == set() and edges["torchproxy.high"] == {"torchproxy.low"}
    assert edges["torchproxy.mid"] == {"torchproxy.high"}
    (pkg / "high.py").write_text("from . import low, mid\n")
    assert import_cycles.cycles() == [["torchproxy.high", "torchproxy.mid"]]
