"""Scenarios that need a fresh interpreter: import order, Paddle's own proxy side by side,
the command line and the environment variable."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import IMPORT_FORMS, PLAIN, ROOT, run_json, run_py, write_pkg

try:
    import paddle.compat as _pc
    HAS_PADDLE_PROXY = hasattr(_pc, "enable_torch_proxy")
except ImportError:
    HAS_PADDLE_PROXY = False

needs_paddle_proxy = pytest.mark.skipif(not HAS_PADDLE_PROXY,
                                        reason="this Paddle has no paddle.compat."
                                        "enable_torch_proxy (added in 3.3; 2.6 to 3.2 lack it)")


@pytest.fixture
def libs(tmp_path):
    write_pkg(tmp_path, "mylib", IMPORT_FORMS)
    write_pkg(tmp_path, "otherlib", PLAIN)
    return tmp_path


# Each scenario reports, for the proxy under test: what unscoped code gets, and what scoped
# lazy imports get, in both import orders.
SCENARIO = """
import json, sys
# Paddle 3.3 imports tvm_ffi at start-up when it is installed, and tvm_ffi imports real torch:
# without this line "proxy first" (nothing has loaded torch yet) cannot be set up at all.
sys.modules["tvm_ffi"] = None
import paddle
assert "torch" not in sys.modules
ORDER = {order!r}
if ORDER == "real_first":
    import torch as real
{enable}
import mylib, otherlib
def kind(m):
    if m is None: return None
    if m is sys.modules.get("__real_torch__"): return "real"
    return "real" if getattr(m, "__file__", "") and "site-packages/torch" in (m.__file__ or "") else "proxy"
out = {{"scoped_lazy": kind(mylib.lazy())}}   # a lazy scoped import first, then the rest
out["sys_modules_torch"] = kind(sys.modules.get("torch"))
out["unscoped_lazy"] = kind(otherlib.lazy())
out["scoped_module_level"] = kind(mylib.torch)
import torch as here     # this module (__main__) is unscoped: must be real torch
out["main_after"] = kind(here)
print(json.dumps(out))
"""
OURS = "import torchproxy\ntorchproxy.enable(scope={'mylib'})"
PADDLES = "import paddle.compat\npaddle.compat.enable_torch_proxy(scope={'mylib'}, silent=True)"


@pytest.mark.parametrize("order", ["real_first", "proxy_first"])
def test_torchproxy_scope_holds_in_both_orders(libs, order):
    got = run_json(SCENARIO.format(order=order, enable=OURS), cwd=libs)
    assert got == {"unscoped_lazy": "real", "scoped_lazy": "proxy", "main_after": "real",
                   "scoped_module_level": "proxy",
                   "sys_modules_torch": "real" if order == "real_first" else None}


@needs_paddle_proxy
def test_paddle_proxy_leaks_where_torchproxy_does_not(libs):
    """The reference's measured weaknesses, kept as a regression fence for ours."""
    # proxy first: a lazy scoped import puts the proxy in sys.modules["torch"], and
    # unscoped code gets it
    got = run_json(SCENARIO.format(order="proxy_first", enable=PADDLES), cwd=libs)
    assert got["sys_modules_torch"] == "proxy"
    assert got["unscoped_lazy"] == "proxy"
    assert got["main_after"] == "proxy"
    # real torch first: scoped lazy imports get real torch
    got = run_json(SCENARIO.format(order="real_first", enable=PADDLES), cwd=libs)
    assert got["scoped_lazy"] == "real"


@needs_paddle_proxy
def test_paddle_proxy_device_is_not_a_type_and_numel_returns_tensor(libs):
    code = """
import json, paddle, paddle.compat
paddle.compat.enable_torch_proxy(scope={'mylib'}, silent=True)
import mylib
t = mylib.torch
ns = {'__name__': 'mylib.x'}
exec("def n(x): return x.numel()", ns)
print(json.dumps({"device_is_type": isinstance(t.device, type),
                  "numel_type": type(ns['n'](paddle.ones([2, 3]))).__name__}))
"""
    ref = run_json(code, cwd=libs)
    assert ref == {"device_is_type": False, "numel_type": "Tensor"}


@needs_paddle_proxy
def test_enabling_while_paddle_proxy_is_active_is_a_clear_error(libs):
    proc = run_py("""
import paddle.compat, torchproxy
paddle.compat.enable_torch_proxy(scope={'mylib'}, silent=True)
try:
    torchproxy.enable(scope={'mylib'})
except torchproxy.ProxyConflictError as e:
    print("CONFLICT:", e)
paddle.compat.disable_torch_proxy()
torchproxy.enable(scope={'mylib'})   # after Paddle's is off, ours works
import mylib, sys
print("OK", type(mylib.torch).__name__)
""", cwd=libs)
    assert proc.returncode == 0, proc.stderr
    assert "CONFLICT: Paddle's own torch proxy (paddle.compat.enable_torch_proxy) is active" in proc.stdout
    assert "OK FacadeModule" in proc.stdout


def test_unscoped_import_error_when_torch_is_not_installed(libs):
    # sys.modules['torch'] = None is how Python spells "not importable"; the scoped module
    # still gets the facade, which never needs real torch.
    got = run_json("""
import sys, json
sys.modules['torch'] = None
import torchproxy
torchproxy.enable(scope={'mylib'})
import mylib, otherlib
try:
    otherlib.lazy(); unscoped = "imported"
except ImportError as e:
    unscoped = type(e).__name__
print(json.dumps({"scoped": type(mylib.lazy()).__name__, "unscoped": unscoped}))
""", cwd=libs)
    assert got == {"scoped": "FacadeModule", "unscoped": "ModuleNotFoundError"}


def _cli(args, cwd, env=None):
    full_env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, str(cwd)]), **(env or {}))
    full_env.pop("TORCHPROXY_SCOPE", None) if not env or "TORCHPROXY_SCOPE" not in env else None
    return subprocess.run([sys.executable, "-m", "torchproxy", *args], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=120)


SCRIPT = """
import sys, json, torch, paddle
import otherlib
x = paddle.ones([2, 3])
print(json.dumps({"argv": sys.argv[1:], "facade": type(torch).__name__,
                  "numel": type(x.numel()).__name__, "other": type(otherlib.lazy()).__name__}))
"""


def test_cli_run_script(libs):
    (libs / "script.py").write_text(SCRIPT)
    proc = _cli(["run", "--scope", "mylib", "script.py", "a", "--flag"], cwd=libs)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got == {"argv": ["a", "--flag"], "facade": "FacadeModule", "numel": "int",
                   "other": "module"}


def test_cli_run_no_main_keeps_script_unscoped(libs):
    (libs / "script.py").write_text(SCRIPT)
    proc = _cli(["run", "--scope", "mylib", "--no-main", "script.py"], cwd=libs)
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    assert got["facade"] == "module" and got["numel"] == "Tensor"


def test_environment_variable_enables_on_import(libs):
    got = run_json("""
import json, torchproxy, mylib, otherlib
print(json.dumps({"s": torchproxy.status()["scope"], "m": type(mylib.torch).__name__,
                  "o": type(otherlib.lazy()).__name__}))
""", cwd=libs, env={"TORCHPROXY_SCOPE": "mylib, triton"})
    assert got == {"s": ["mylib", "triton"], "m": "FacadeModule", "o": "module"}


def test_cli_status_json(libs):
    proc = _cli(["status", "--json"], cwd=libs, env={"TORCHPROXY_SCOPE": "mylib"})
    assert proc.returncode == 0, proc.stderr
    st = json.loads(proc.stdout)
    assert st["enabled"] is True and st["scope"] == ["mylib"] and st["blocked"] == ["tvm_ffi"]


def test_paddle_version_check_message():
    proc = run_py("""
import importlib.util, sys
real = importlib.util.find_spec
importlib.util.find_spec = lambda name, *a: None if name == "paddle" else real(name, *a)
try:
    import torchproxy
except ImportError as e:
    print("ERR", e)
""")
    assert "ERR torchproxy: PaddlePaddle is not installed; install PaddlePaddle >= 2.6.2" in proc.stdout
