"""pytorch/extension-cpp, unmodified: its extension_cpp package (TORCH_LIBRARY operators
mymuladd / mymul / myadd_out with register_fake and register_autograd) installed with
``pip install --no-build-isolation`` against real torch and, through torchproxy's build
environment, against Paddle; its CPU test cases run on both and are compared.

The source is pinned (EXTCPP_SHA) and fetched at test time: from the git mirror under
$TORCHPROXY_GIT_MIRRORS when it has the commit, else as GitHub's archive of that commit;
neither -> skipped with the reason.
Nothing of it is committed.  Builds are cached under build/cpp-extension-tests/extension-cpp.
"""
import os
import pickle
import subprocess
import sys

import numpy as np
import pytest

from cppext_shared import CACHE, HERE, ROOT, needs_compat

pytestmark = needs_compat

# the pin, the mirror lookup ($TORCHPROXY_GIT_MIRRORS/pytorch+extension-cpp/repo) and GitHub's
# archive: one implementation, shared with the matrix row
from compat_matrix.specs.extension_cpp import SHA as EXTCPP_SHA  # noqa: E402
from compat_matrix.specs.extension_cpp import SourceUnavailable, fetch_source  # noqa: E402

WORK = os.path.join(CACHE, "extension-cpp", EXTCPP_SHA[:12])


def _fetch_source() -> str:
    try:
        return fetch_source(os.path.join(WORK, "src"))
    except SourceUnavailable as e:
        pytest.skip(str(e))


def _install(side: str, src: str) -> str:
    """pip install --no-build-isolation --no-deps --target SITE src (cached per side)."""
    site = os.path.join(WORK, f"site-{side}")
    if os.path.exists(os.path.join(site, "extension_cpp", "ops.py")):
        return site
    build_src = os.path.join(WORK, f"src-{side}")  # one build tree per side
    subprocess.run(["cp", "-r", src, build_src], check=True)
    cmd = [sys.executable, "-m", "pip", "install", "-q", "--no-build-isolation", "--no-deps",
           "--target", site, "."]
    # CFLAGS=-g0: setuptools compiles with Python's flags ("-g -O3") then the package's own
    # (-O3); the debug info nobody reads was a third of each side's build time
    env = dict(os.environ, PYTHONPATH=ROOT,
               CFLAGS=(os.environ.get("CFLAGS", "") + " -g0").strip())
    if side == "paddle":
        cmd = [sys.executable, "-m", "torchproxy.facade.cpp_extension", "--"] + cmd
    proc = subprocess.run(cmd, cwd=build_src, capture_output=True, text=True, env=env,
                          timeout=900)
    assert proc.returncode == 0, f"{side} install failed:\n{proc.stdout[-3000:]}\n{proc.stderr[-5000:]}"
    return site


_RESULTS = {}


def _results():
    if not _RESULTS:
        src = _fetch_source()
        from concurrent.futures import ThreadPoolExecutor
        with ThreadPoolExecutor(2) as pool:
            sites = dict(zip(("torch", "paddle"),
                             pool.map(lambda s: _install(s, src), ("torch", "paddle"))))
        for side, site in sites.items():
            out = os.path.join(WORK, f"results-{side}.pkl")
            proc = subprocess.run([sys.executable, os.path.join(HERE, "extcpp_runner.py"), side,
                                   site, out], capture_output=True, text=True, timeout=600,
                                  env=dict(os.environ, PYTHONPATH=ROOT))
            assert proc.returncode == 0, proc.stderr[-5000:]
            with open(out, "rb") as f:
                _RESULTS[side] = pickle.load(f)
    return _RESULTS


@pytest.mark.parametrize("case", ["correctness", "gradients", "add_out", "mymul_op"])
def test_cases_pass_on_both_and_agree(case):
    r = _results()
    t, p = r["torch"][case], r["paddle"][case]
    assert t[0] == "ok", f"real torch: {t}"
    assert p[0] == "ok", f"Paddle via torchproxy: {p}"
    assert len(t[1]) == len(p[1])
    for a, b in zip(t[1], p[1]):
        assert a.dtype == b.dtype and a.shape == b.shape
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("case", ["check_sizes", "check_dtype"])
def test_torch_check_is_runtime_error_with_the_message(case):
    r = _results()
    t, p = r["torch"][case], r["paddle"][case]
    assert t[0] == p[0] == "error" and t[1] == p[1] == "RuntimeError", (t, p)
    # both carry the failed condition TORCH_CHECK printed (torch: "Expected a.sizes() ==
    # b.sizes() to be true, but got false.", Paddle: "Expected a.sizes() == b.sizes(), ...")
    cond = {"check_sizes": "a.sizes() == b.sizes()", "check_dtype": "a.dtype() == at::kFloat"}[case]
    assert cond in t[2] and cond in p[2], (t[2], p[2])


def test_built_extension_is_the_python_abi_module():
    """BuildExtension keeps torch's output name (py_limited_api: _C.abi3.so), not Paddle's."""
    _results()
    names = sorted(os.listdir(os.path.join(WORK, "site-paddle", "extension_cpp")))
    assert "_C.abi3.so" in names, names
