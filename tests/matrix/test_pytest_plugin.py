"""`pytest -p torchproxy.pytest_plugin --torchproxy-scope=...` on a tiny fake library."""
import json
import os
import subprocess
import sys
import textwrap

from matrix_testpaths import ROOT

LIB = '''
import torch

def double(x):
    return x * 2

def needs_missing(x):
    return torch.not_a_real_torch_function(x)

def which_torch():
    return getattr(torch, "__torchproxy__", False)
'''

TESTS = '''
import numpy as np
import paddle
import tinylib

def test_facade_in_library():
    assert tinylib.which_torch() is True

def test_double_on_paddle():
    x = paddle.to_tensor(np.arange(3, dtype="float32"))
    np.testing.assert_allclose(tinylib.double(x).numpy(), [0, 2, 4])

def test_missing_name():
    x = paddle.to_tensor(np.ones(2, dtype="float32"))
    tinylib.needs_missing(x)

def test_test_module_keeps_real_torch():
    import torch
    assert not getattr(torch, "__torchproxy__", False)
'''


def test_plugin_enables_scope_and_reports_missing(tmp_path):
    (tmp_path / "tinylib.py").write_text(LIB)
    (tmp_path / "test_tiny.py").write_text(textwrap.dedent(TESTS))
    report = tmp_path / "missing.json"
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, str(tmp_path)]))
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "torchproxy.pytest_plugin",
                        "--torchproxy-scope=tinylib", f"--torchproxy-report={report}",
                        "-q", "-p", "no:cacheprovider", str(tmp_path / "test_tiny.py")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    out = r.stdout + r.stderr
    assert r.returncode == 1, out  # exactly the missing-name test fails
    assert "3 passed" in out and "1 failed" in out, out
    assert "torch.not_a_real_torch_function is not provided by torchproxy" in out
    assert "missing torch.not_a_real_torch_function  <- test_tiny.py::test_missing_name" in out
    data = json.loads(report.read_text())
    assert data["scope"] == "tinylib"
    assert data["missing"] == {"torch.not_a_real_torch_function": ["test_tiny.py::test_missing_name"]}


def test_plugin_is_inert_without_scope(tmp_path):
    (tmp_path / "test_plain.py").write_text("def test_ok():\n    assert True\n")
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "torchproxy.pytest_plugin", "-q",
                        "-p", "no:cacheprovider", str(tmp_path / "test_plain.py")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert r.returncode == 0 and "torchproxy" not in r.stdout, r.stdout + r.stderr


CONFTEST = '''
import torch                      # loaded by pytest before any test: must get the facade

CONFTEST_FACADE = getattr(torch, "__torchproxy__", False)

import pytest


@pytest.fixture
def doubled_abs():
    def f(x):
        return torch.abs(x) * 2   # a helper in conftest, called with Paddle tensors
    return f
'''

CONFTEST_TESTS = '''
import numpy as np
import paddle


def test_conftest_got_the_facade():
    import conftest
    assert conftest.CONFTEST_FACADE is True


def test_conftest_helper_on_paddle_tensors(doubled_abs):
    x = paddle.to_tensor(np.array([-1.5, 2.0], dtype="float32"))
    np.testing.assert_allclose(doubled_abs(x).numpy(), [3.0, 4.0])
'''


def test_conftest_in_scope_gets_the_facade(tmp_path):
    # pytest imports conftest.py before pytest_configure: the plugin enables earlier
    (tmp_path / "conftest.py").write_text(CONFTEST)
    (tmp_path / "test_conf.py").write_text(CONFTEST_TESTS)
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "torchproxy.pytest_plugin",
                        "--torchproxy-scope=conftest", "-q", "-p", "no:cacheprovider",
                        str(tmp_path / "test_conf.py")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    out = r.stdout + r.stderr
    assert r.returncode == 0 and "2 passed" in out, out


FLOAT_ARG_TEST = '''
import torch
import triton
import triton.language as tl


@triton.jit
def add_eps(x_ptr, eps, n, BLOCK: tl.constexpr):
    offs = tl.arange(0, BLOCK)
    m = offs < n
    eps = eps.to(tl.float32)          # a float argument is an fp32 scalar when compiled
    tl.store(x_ptr + offs, tl.load(x_ptr + offs, mask=m) + eps, mask=m)


def test_float_argument_in_the_interpreter():
    x = torch.zeros(5)
    add_eps[(1,)](x, 0.25, 5, BLOCK=8)
    assert torch.equal(x, torch.full((5,), 0.25))
'''


def test_interpreter_fixes_option(tmp_path):
    # real torch, no scope: the option alone applies the fixes before the suite loads
    (tmp_path / "test_kernel.py").write_text(FLOAT_ARG_TEST)
    env = dict(os.environ, PYTHONPATH=ROOT, TRITON_INTERPRET="1")
    env.pop("TORCHPROXY_INTERPRETER_FIX", None)
    base = [sys.executable, "-m", "pytest", "-p", "torchproxy.pytest_plugin", "-q", "-p",
            "no:cacheprovider", str(tmp_path / "test_kernel.py")]
    with_fix = subprocess.run(base + ["--torchproxy-interpreter-fixes"], cwd=tmp_path, env=env,
                              capture_output=True, text=True, timeout=180)
    assert with_fix.returncode == 0 and "1 passed" in with_fix.stdout, with_fix.stdout + with_fix.stderr
    without = subprocess.run(base, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    assert without.returncode == 1 and "'float' object has no attribute 'to'" in without.stdout, \
        without.stdout[-2000:]


SCOPED_TEST_MODULE = '''
import torch                      # the test module itself in scope: pytest probes this module


def test_uses_the_facade():
    assert torch.ones(2).sum().item() == 2


def test_needs_a_missing_name():
    torch.not_provided_by_anyone_tp
'''


def test_pytest_own_probes_are_not_reported_as_missing(tmp_path):
    # collecting fixtures, pytest reads `_mock_name` of every object a test module holds (the
    # facade module here): that read is pytest's, not a name the suite needs
    (tmp_path / "test_scoped_mod.py").write_text(SCOPED_TEST_MODULE)
    report = tmp_path / "missing.json"
    env = dict(os.environ, PYTHONPATH=ROOT)
    r = subprocess.run([sys.executable, "-m", "pytest", "-p", "torchproxy.pytest_plugin",
                        "--torchproxy-scope=test_scoped_mod", f"--torchproxy-report={report}",
                        "-q", "-p", "no:cacheprovider", str(tmp_path / "test_scoped_mod.py")],
                       cwd=tmp_path, env=env, capture_output=True, text=True, timeout=180)
    out = r.stdout + r.stderr
    assert "1 passed" in out and "1 failed" in out, out
    assert "_mock_name" not in out, out
    assert ("missing torch.not_provided_by_anyone_tp  <- "
            "test_scoped_mod.py::test_needs_a_missing_name") in out, out
    assert json.loads(report.read_text())["missing"] == {
        "torch.not_provided_by_anyone_tp": ["test_scoped_mod.py::test_needs_a_missing_name"]}
