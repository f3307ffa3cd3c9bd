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

import numpy as np
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
    # results depend on torchproxy's headers too (the ATen supplement): they are in the key
    headers = sorted(os.path.join(d, f) for d, _, fs in os.walk(os.path.join(ROOT, "torchproxy",
                                                                            "include"))
                     for f in fs)
    # and on the facade modules the cases go through (torch.ops/library, cpp_extension)
    facade = [os.path.join(ROOT, "torchproxy", "facade", f)
              for f in ("library.py", "cpp_extension.py")]
    digest = source_hash(source, os.path.join(HERE, "cases.py"), os.path.join(HERE, "runner.py"),
                         *headers, *facade)
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
    """(torch results, paddle results) of one source (a name in sources/ or an absolute path),
    both sides run in parallel once."""
    if source_name not in _RESULTS:
        src = source_name if os.path.isabs(source_name) else os.path.join(SOURCES, source_name)
        with ThreadPoolExecutor(2) as pool:
            t = pool.submit(run_side, "torch", src)
            p = pool.submit(run_side, "paddle", src)
            _RESULTS[source_name] = (t.result(), p.result())
    return _RESULTS[source_name]


def _compare(t, p, where):
    assert t[0] == p[0], f"{where}: torch gives {t[0]} {t[1:]!r}, Paddle {p[0]} {p[1:]!r}"
    kind = t[0]
    if kind == "tensor":
        _, ta, tdt, tshape = t
        _, pa, pdt, pshape = p
        assert tdt == pdt, f"{where}: dtype torch {tdt} vs Paddle {pdt}"
        assert tshape == pshape, f"{where}: shape torch {tshape} vs Paddle {pshape}"
        if ta.dtype.kind in "fc":
            np.testing.assert_allclose(pa, ta, rtol=1e-6, atol=1e-6, err_msg=where)
        else:
            np.testing.assert_array_equal(pa, ta, err_msg=where)
    elif kind in ("list", "tuple"):
        assert len(t[1]) == len(p[1]), f"{where}: {len(t[1])} vs {len(p[1])} items"
        for i, (a, b) in enumerate(zip(t[1], p[1])):
            _compare(a, b, f"{where}[{i}]")
    elif kind == "value":
        assert type(t[1]) is type(p[1]), f"{where}: {type(t[1])} vs {type(p[1])}"
        if isinstance(t[1], float):
            assert p[1] == pytest.approx(t[1], rel=1e-6), where
        else:
            assert p[1] == t[1], where
    else:
        raise AssertionError(f"{where}: unknown result kind {kind}")


def check_case(source_name: str, case: str, known: dict) -> None:
    """Compare one case of one source's two builds; a case in ``known`` (case -> reason) must
    still differ (xfail), so a known difference that disappears fails."""
    torch_res, paddle_res = results_for(source_name)
    t, p = torch_res["results"][case], paddle_res["results"][case]
    if case in known:
        with pytest.raises(AssertionError):
            _check_pair(t, p, case)
        pytest.xfail(known[case])
    _check_pair(t, p, case)


def _check_pair(t, p, case):
    assert t[0] == p[0], f"{case}: torch {t!r} vs Paddle {p!r}"
    if t[0] == "error":
        assert p[1] == t[1], f"{case}: torch raises {t[1]} ({t[2]}), Paddle {p[1]} ({p[2]})"
        # torch's message (first line) is what the C++ source wrote; Paddle's must carry it
        assert t[2] in p[2] or p[2] in t[2], f"{case}: torch says {t[2]!r}, Paddle {p[2]!r}"
    else:
        _compare(t[1], p[1], case)
