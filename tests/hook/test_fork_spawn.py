"""Issue 19, items 7 and 8: child processes.  os.fork() while another thread holds one of the
package's locks, and multiprocessing's spawn children of `torchproxy run`, the pytest plugin
and TORCHPROXY_SCOPE (real torch is loaded in all of them: Paddle 3.3 imports it)."""
from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from helpers import PLAIN, ROOT, run_json, write_pkg

LIB = {"__init__.py": """
def lazy():
    import torch
    return torch
"""}


@pytest.fixture
def libs(tmp_path):
    write_pkg(tmp_path, "mylib", LIB)
    write_pkg(tmp_path, "otherlib", PLAIN)
    return tmp_path


# -- item 7: fork ------------------------------------------------------------------------------
FORK = """
import json, os, sys, threading, time
import paddle, torchproxy
from torchproxy import hook, tracing
HELD = {held!r}
inside = threading.Event()
if HELD == "enable":
    # the first enable() in another thread, held inside (the scope lock taken) for 0.8 s
    original_install = hook.install
    def slow_install():
        inside.set()
        time.sleep(0.8)
        original_install()
    hook.install = slow_install
    holder = threading.Thread(target=torchproxy.enable, kwargs={{"scope": {{"otherlib"}}}})
else:
    def hold(lock):
        with lock:
            inside.set()
            time.sleep(0.8)
    lock = {{"hook": hook._lock, "trace": tracing._lock}}[HELD]
    holder = threading.Thread(target=hold, args=(lock,))
holder.start()
inside.wait()
pid = os.fork()
if pid == 0:
    code = 5
    try:
        with torchproxy.guard(scope={{"mylib"}}):
            import mylib
            facade = torchproxy.is_facade(mylib.lazy())
        with torchproxy.trace():
            pass
        torchproxy.enable(scope=None)
        torchproxy.disable()
        code = 0 if facade else 3
    finally:
        os._exit(code)
deadline = time.time() + 60
while True:
    done, status = os.waitpid(pid, os.WNOHANG)
    if done:
        result = os.waitstatus_to_exitcode(status)
        break
    if time.time() > deadline:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
        result = "hung"
        break
    time.sleep(0.05)
holder.join()
print(json.dumps({{"child": result, "parent_enabled": torchproxy.is_enabled()}}))
"""


@pytest.mark.skipif(not hasattr(os, "fork"), reason="os.fork is POSIX-only")
@pytest.mark.parametrize("held", ["enable", "hook", "trace"])
def test_fork_while_another_thread_holds_a_lock(libs, held):
    got = run_json(FORK.format(held=held), cwd=libs, timeout=240)
    assert got == {"child": 0, "parent_enabled": held == "enable"}


# -- item 8: spawn -----------------------------------------------------------------------------
SPAWN_SCRIPT = """{preamble}
import json, multiprocessing
import paddle, torch
import mylib, otherlib


def work(_):
    x = paddle.ones([2, 3])
    return {{"main_torch": type(torch).__name__, "lib": type(mylib.lazy()).__name__,
             "other": type(otherlib.lazy()).__name__, "numel": type(x.numel()).__name__}}


if __name__ == "__main__":
    pool = multiprocessing.get_context("spawn").Pool(1)
    child = pool.map(work, [0])[0]
    pool.close()  # (not terminate(): Paddle reports a SIGTERM at length)
    pool.join()
    print(json.dumps({{"parent": work(0), "child": child}}))
"""
FACADE_SIDE = {"main_torch": "FacadeModule", "lib": "FacadeModule", "other": "module",
               "numel": "int"}


def _env(cwd, **extra):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, str(cwd)]), **extra)
    if "TORCHPROXY_SCOPE" not in extra:
        env.pop("TORCHPROXY_SCOPE", None)
    return env


def _last_json(proc):
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
    return json.loads([ln for ln in proc.stdout.splitlines() if ln.startswith("{")][-1])


def test_spawn_children_of_torchproxy_run_get_the_same_scope(libs):
    (libs / "script.py").write_text(SPAWN_SCRIPT.format(preamble=""))
    proc = subprocess.run([sys.executable, "-m", "torchproxy", "run", "--scope", "mylib",
                           "script.py"], cwd=libs, env=_env(libs), capture_output=True,
                          text=True, timeout=300)
    assert _last_json(proc) == {"parent": FACADE_SIDE, "child": FACADE_SIDE}


def test_spawn_children_under_torchproxy_scope_variable(libs):
    # __main__ in scope covers the children's __mp_main__
    (libs / "script.py").write_text(SPAWN_SCRIPT.format(preamble="import torchproxy"))
    proc = subprocess.run([sys.executable, "script.py"], cwd=libs,
                          env=_env(libs, TORCHPROXY_SCOPE="mylib,__main__"),
                          capture_output=True, text=True, timeout=300)
    assert _last_json(proc) == {"parent": FACADE_SIDE, "child": FACADE_SIDE}


PLUGIN_TEST = """
import multiprocessing
import paddle


def work(_):
    import torch
    import mylib
    import torchproxy
    return (torchproxy.is_facade(torch), torchproxy.is_facade(mylib.lazy()),
            type(paddle.ones([2]).numel()).__name__)


def test_spawned_worker_sees_the_scope():
    pool = multiprocessing.get_context("spawn").Pool(1)
    try:
        child = pool.map(work, [0])[0]
    finally:
        pool.close()  # (not terminate(): Paddle reports a SIGTERM at length)
        pool.join()
    assert work(0) == (True, True, "int")
    assert child == (True, True, "int")
"""


def test_spawn_children_under_the_pytest_plugin(libs):
    (libs / "test_spawned.py").write_text(PLUGIN_TEST)
    proc = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "torchproxy.pytest_plugin",
                           "--torchproxy-scope=mylib,test_spawned", "-p", "no:cacheprovider",
                           "test_spawned.py"], cwd=libs, env=_env(libs), capture_output=True,
                          text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout[-4000:] + proc.stderr[-2000:]
    assert "1 passed" in proc.stdout


def test_spawn_child_running_the_scripts_enable_again_covers_mp_main(libs):
    # enable() called by the program itself does not propagate (only the whole-program
    # switches do): the child re-imports the script as __mp_main__, whose module level enables
    # again, and a scope naming __main__ covers __mp_main__
    (libs / "script.py").write_text(SPAWN_SCRIPT.format(
        preamble="import torchproxy\ntorchproxy.enable(scope={'mylib', '__main__'})"))
    proc = subprocess.run([sys.executable, "script.py"], cwd=libs, env=_env(libs),
                          capture_output=True, text=True, timeout=300)
    assert _last_json(proc) == {"parent": FACADE_SIDE, "child": FACADE_SIDE}
