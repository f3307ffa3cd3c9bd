"""./dev test runs the suite as chunks (ci/test-chunks.txt): every test folder must be in a
Paddle 3.3.1 chunk, or a folder added later would silently never run in CI."""
from __future__ import annotations

import os

from matrix_testpaths import ROOT


def _chunks():
    with open(os.path.join(ROOT, "ci", "test-chunks.txt")) as f:
        rows = [line.split() for line in f if line.strip() and not line.lstrip().startswith("#")]
    return {name: (venv, folders) for name, venv, *folders in rows}


def test_every_test_folder_runs_on_paddle_3():
    chunks = _chunks()
    on_main = {folder for venv, folders in chunks.values() if venv == ".venv" for folder in folders}
    tests = os.path.join(ROOT, "tests")
    folders = {f"tests/{d}" for d in os.listdir(tests)
               if os.path.isdir(os.path.join(tests, d))
               and any(n.startswith("test_") and n.endswith(".py")
                       for n in os.listdir(os.path.join(tests, d)))}
    assert folders - on_main == set()
    assert on_main - folders == set()


def test_chunk_names_are_unique_and_venvs_known():
    with open(os.path.join(ROOT, "ci", "test-chunks.txt")) as f:
        names = [line.split()[0] for line in f if line.strip() and not line.lstrip().startswith("#")]
    assert len(names) == len(set(names))
    assert {venv for venv, _ in _chunks().values()} <= {
        ".venv", ".venv26", ".venv-tlp", ".venv-tlu", ".venv-py310"}


def test_test_files_in_one_chunk_have_distinct_basenames():
    # tests/ has no __init__.py files, so pytest imports each test file by its basename: two
    # folders of one chunk holding the same file name stop that chunk at collection
    # ("import file mismatch"), which is how CI failed once.
    clashes = {}
    for name, (_venv, folders) in _chunks().items():
        seen = {}
        for folder in folders:
            for entry in sorted(os.listdir(os.path.join(ROOT, folder))):
                if entry.startswith("test_") and entry.endswith(".py"):
                    seen.setdefault(entry, []).append(folder)
        clashes.update({(name, f): where for f, where in seen.items() if len(where) > 1})
    assert clashes == {}
