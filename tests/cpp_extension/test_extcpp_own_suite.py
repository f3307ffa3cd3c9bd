"""pytorch/extension-cpp's own ``test/test_extension.py``, unmodified, run with pytest on the
package built against real torch and (through the pytest plugin) on the one built against
Paddle; plus a differential test of the facade's ``torch.testing._internal.common_utils.TestCase``
.assertEqual, which that file's classes derive from.

The source and both builds come from test_extension_cpp.py (pinned, fetched at test time,
cached under build/cpp-extension-tests).  On CPU, real torch passes 5 tests (correctness,
gradients, myadd_out correctness, two opcheck tests) and skips 7 CUDA tests; under torchproxy the
same 5 pass (opcheck: facade/library.py; its test_aot_dispatch_dynamic is reported not checked,
Paddle has no AOTAutograd) and the same 7 are skipped.
"""
import os
import re
import shutil
import subprocess
import sys
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))  # tests/: difftest
import difftest  # noqa: E402

from cppext_shared import ROOT, needs_compat  # noqa: E402

ASSERT_EQUAL_SRC = '''
import torch
from torch.testing._internal.common_utils import TestCase

class _T(TestCase):
    def runTest(self):
        pass

def f(a, b, kw):
    try:
        _T().assertEqual(a, b, **kw)
        return "ok"
    except AssertionError as e:
        return "fail: " + str(e).strip().splitlines()[0]
'''

_f32 = np.array([1.0, 2.0, 3.0], "float32")
ASSERT_EQUAL_CASES = {
    "equal": (_f32, _f32.copy(), {}),
    "within_tolerance": (_f32, _f32 * np.float32(1 + 1e-7), {}),
    "unequal_values": (_f32, _f32 + np.float32(0.5), {}),
    "dtype_mismatch": (_f32, _f32.astype("float64"), {}),
    "dtype_mismatch_exact_dtype_false": (_f32, _f32.astype("float64"), {"exact_dtype": False}),
    "shape_mismatch": (_f32, np.zeros(4, "float32"), {}),
    "nan_equal": (np.array([np.nan, 1.0], "float32"), np.array([np.nan, 1.0], "float32"), {}),
    "int_exact": (np.array([1, 2], "int64"), np.array([1, 3], "int64"), {}),
    "list_of_tensors": ([_f32, _f32], [_f32.copy(), _f32 + np.float32(1)], {}),
    "explicit_tolerance": (_f32, _f32 + np.float32(0.01), {"rtol": 0.0, "atol": 0.1}),
    "python_floats_close": (0.1 + 0.2, 0.3, {}),
    "python_ints_unequal": (1, 2, {}),
    "python_floats_far": (1.0, 1.5, {}),
    "python_int_float": (1, 1.0, {}),
    "strings": ("a", "a", {}),
}


@pytest.mark.parametrize("case", sorted(ASSERT_EQUAL_CASES))
def test_testcase_assert_equal_matches_torch(case):
    a, b, kw = ASSERT_EQUAL_CASES[case]
    results = []
    for scoped, conv in ((False, difftest.to_torch), (True, difftest.to_paddle)):
        mod = difftest.load(ASSERT_EQUAL_SRC, scoped=scoped)
        results.append(mod.f(conv(a), conv(b), kw))
    torch_res, proxy_res = results
    # torch's first line, e.g. "Tensor-likes are not close!", "The values for attribute
    # 'dtype' do not match: torch.float32 != torch.float64."
    assert proxy_res == torch_res, (torch_res, proxy_res)


def _pytest_counts(out: str) -> dict:
    tail = out.strip().splitlines()[-1]
    return {k: int(n) for n, k in re.findall(r"(\d+) (passed|failed|skipped|error)", tail)}


@needs_compat
def test_extension_cpp_own_test_file(tmp_path):
    import test_extension_cpp as ext
    src = ext._fetch_source()
    with ThreadPoolExecutor(2) as pool:
        sites = dict(zip(("torch", "paddle"),
                         pool.map(lambda s: ext._install(s, src), ("torch", "paddle"))))
    shutil.copy(os.path.join(src, "test", "test_extension.py"), tmp_path)
    base = [sys.executable, "-m", "pytest", "-v", "-p", "no:cacheprovider", "-rf",
            "test_extension.py"]
    cmds = {"torch": base,
            "paddle": base + ["-p", "torchproxy.pytest_plugin",
                              "--torchproxy-scope=extension_cpp,test_extension"]}

    def run(side):
        env = dict(os.environ, PYTHONPATH=os.pathsep.join([sites[side], ROOT]), COLUMNS="400")
        return subprocess.run(cmds[side], cwd=tmp_path, capture_output=True, text=True,
                              env=env, timeout=300)

    with ThreadPoolExecutor(2) as pool:
        procs = dict(zip(("torch", "paddle"), pool.map(run, ("torch", "paddle"))))
    t, p = procs["torch"].stdout, procs["paddle"].stdout
    assert _pytest_counts(t) == {"passed": 5, "skipped": 7}, t[-3000:]
    # every test real torch passes passes (torch.library.opcheck: facade/library.py)
    assert _pytest_counts(p) == {"passed": 5, "skipped": 7}, p[-3000:]
    assert sorted(re.findall(r"(\S+::test_\w+) PASSED", procs["paddle"].stdout)) == \
        sorted(re.findall(r"(\S+::test_\w+) PASSED", t)), (t[-3000:], p[-3000:])
