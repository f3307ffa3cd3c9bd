"""Run differential cases (tests/difftest.check) in a child process with glibc's heap checks.

A view with a wrong backward can write past a buffer; in the test process that passes by luck or
kills the whole run.  Here every case runs in a child started with ``MALLOC_CHECK_=3``,
``MALLOC_PERTURB_`` and glibc's malloc debug library preloaded, Paddle's signal handler off and
faulthandler on, so an overrun aborts the child with a Python stack.  The child writes
("start", name) before and ("done", name, error-or-None) after each case; when it dies, the case
it was running is recorded as a crash (with the tail of its stderr) and a new child runs the rest.

    results = run_cases(__file__, ["case1", "case2"])   # the test module's CASES
    results["case1"]  # None (torch and the proxy agree), or the failure / crash text
"""
from __future__ import annotations

import faulthandler
import importlib.util
import os
import pickle
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_MALLOC_DEBUG = "/usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0"


def child_env() -> dict:
    env = dict(os.environ)
    env["MALLOC_CHECK_"] = "3"
    env["MALLOC_PERTURB_"] = "165"
    if os.path.exists(_MALLOC_DEBUG):  # glibc >= 2.34 honours MALLOC_CHECK_ only with it
        env["LD_PRELOAD"] = " ".join(p for p in (env.get("LD_PRELOAD"), _MALLOC_DEBUG) if p)
    env["PYTHONPATH"] = os.pathsep.join(p for p in (ROOT, os.path.join(ROOT, "tests"),
                                                    os.path.dirname(os.path.abspath(__file__)),
                                                    env.get("PYTHONPATH")) if p)
    return env


def _read(path):
    events = []
    try:
        with open(path, "rb") as f:
            while True:
                try:
                    events.append(pickle.load(f))
                except (EOFError, pickle.UnpicklingError):
                    break
    except FileNotFoundError:
        pass
    return events


def run_cases(module_path: str, names, timeout: float = 600) -> dict:
    """{name: None | failure text} for each case of the module's ``CASES`` (see _run_one)."""
    todo, results = list(names), {}
    while todo:
        with tempfile.TemporaryDirectory() as d:
            out = os.path.join(d, "events.pickle")
            proc = subprocess.run([sys.executable, __file__, module_path, out, *todo], env=child_env(),
                                  cwd=ROOT, capture_output=True, text=True, timeout=timeout)
            events = _read(out)
        running = None
        for ev in events:
            if ev[0] == "start":
                running = ev[1]
            elif ev[0] == "done":
                results[ev[1]] = ev[2]
                running = None
        left = [n for n in todo if n not in results]
        if left and (running is not None or proc.returncode != 0):
            crashed = running if running is not None else left[0]
            results[crashed] = (f"CRASH (exit status {proc.returncode}) in case {crashed}:\n"
                                + proc.stderr[-3000:])
        elif left:
            raise RuntimeError(f"child ended without running {left}: {proc.stderr[-2000:]}")
        todo = [n for n in todo if n not in results]
    return results


def _run_one(case):
    """A case is (snippet, args) or (snippet, args, kwargs for check())."""
    from difftest import check
    src, args, *more = case
    try:
        check(src, *args, **(more[0] if more else {}))
    except AssertionError as e:
        return f"{type(e).__name__}: {e}"
    except Exception as e:  # noqa: BLE001 - an unexpected error is a failure, reported whole
        return f"{type(e).__name__}: {e}"
    return None


def _load(path):
    spec = importlib.util.spec_from_file_location("_child_cases_module", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def main(module_path, out_path, *names):
    import paddle
    paddle.disable_signal_handler()  # an abort must end the child, not hang in Paddle's handler
    faulthandler.enable()
    cases = _load(module_path).CASES
    with open(out_path, "wb") as out:
        for name in names:
            pickle.dump(("start", name), out)
            out.flush()
            pickle.dump(("done", name, _run_one(cases[name])), out)
            out.flush()
    return 0


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
