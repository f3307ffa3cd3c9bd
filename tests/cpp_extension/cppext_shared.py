"""Shared helpers of the C++ extension tests: building each source once per source hash.

Builds are cached under <repo>/build/cpp-extension-tests/ keyed by the source's hash, so a
second session (or a second test using the same build) costs nothing; torch's load and
torchproxy's load both skip an up-to-date build."""
import hashlib
import os
import pickle
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
CACHE = os.path.join(ROOT, "build", "cpp-extension-tests")
SOURCES = os.path.join(HERE, "sources")


def compat_available() -> bool:
    from torchproxy.facade.cpp_extension import compat_available as ok
    return ok()


needs_compat = pytest.mark.skipif(
    not compat_available(),
    reason="Paddle without the torch-compatible C++ API (Paddle < 3.3): torch C++ extensions "
           "cannot be built (the builder's error is tested in test_builder.py)")


def source_hash(*paths) -> str:
    h = hashlib.sha256()
    for p in paths:
        with open(p, "rb") as f:
            h.update(f.read())
    return h.hexdigest()[:12]


def run_side(side: str, source: str) -> dict:
    """Build ``source`` against real torch or Paddle (subprocess) and run its cases."""
    digest = source_hash(source, os.path.join(HERE, "cases.py"), os.path.join(HERE, "runner.py"))
    name = os.path.splitext(os.path.basename(source))[0]
    build = os.path.join(CACHE, side, f"{name}-{source_hash(source)}")
    os.makedirs(build, exist_ok=True)
    out = os.path.join(CACHE, side, f"{name}-{digest}.pkl")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, os.environ.get("PYTHONPATH", "")]))
    proc = subprocess.run([sys.executable, os.path.join(HERE, "runner.py"), side, source, build,
                           out], capture_output=True, text=True, env=env, timeout=900)
    if proc.returncode != 0:
        raise AssertionError(f"{side} build/run of {name} failed:\n{proc.stdout[-3000:]}\n"
                             f"{proc.stderr[-6000:]}")
    with open(out, "rb") as f:
        return pickle.load(f)


_RESULTS: dict = {}


def results_for(source_name: str) -> tuple[dict, dict]:
    """(torch results, paddle results) of one source, both sides run in parallel once."""
    if source_name not in _RESULTS:
        src = os.path.join(SOURCES, source_name)
        with ThreadPoolExecutor(2) as pool:
            t = pool.submit(run_side, "torch", src)
            p = pool.submit(run_side, "paddle", src)
            _RESULTS[source_name] = (t.result(), p.result())
    return _RESULTS[source_name]
