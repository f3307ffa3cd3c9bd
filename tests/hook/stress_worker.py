"""The hook's bounded stress run (tests/hook/test_stress.py runs it in a fresh interpreter).

    python stress_worker.py real|absent WORKDIR

Worker threads import torch every way (Python level, `from torch import nn`,
importlib.import_module, C level through ctypes.pythonapi.PyImport_ImportModule) from a scoped
module, an unscoped one and a blocked one, a fixed number of times each, while one thread
enters and leaves guards and one toggles enable()/disable(), and a watcher polls
sys.modules["torch"].  Prints one JSON line: counts of wrong modules, unexpected exceptions
and the checks made.  A crash is the interpreter's exit status.

What is right for each import is known exactly when no enable()/disable() happened during it
(the toggler brackets each switch with a generation counter, odd while switching); imports
that overlap a switch may get either side's answer, but never anything else.
"""
from __future__ import annotations

import json
import os
import sys
import textwrap
import threading
import time

MODE, WORK = sys.argv[1], sys.argv[2]
ITERATIONS = int(os.environ.get("TP_STRESS_ITERATIONS", "150"))
EXACT_TRIES = 200  # attempts per check (1 ms apart) before it counts as judged loosely
sys.setswitchinterval(2e-5)   # switch threads often: races show up more

if MODE == "absent":
    class _HideTorch:
        """Real torch is not installed, as far as this process can tell."""

        def find_spec(self, name, path=None, target=None):
            if name == "torch" or name.startswith("torch."):
                raise ModuleNotFoundError(f"No module named {name!r}", name=name)
            return None

    sys.meta_path.insert(0, _HideTorch())
sys.modules["tvm_ffi"] = None  # Paddle 3.3 imports tvm_ffi (which imports torch) at start-up

FORMS = """
import ctypes, importlib
_c_import = ctypes.pythonapi.PyImport_ImportModule
_c_import.restype = ctypes.py_object
_c_import.argtypes = [ctypes.c_char_p]

def lazy():
    import torch
    return torch

def from_nn():
    from torch import nn
    return nn

def via_importlib():
    return importlib.import_module("torch")

def via_c():
    return _c_import(b"torch")
"""
for pkg in ("st_scoped", "st_plain", "st_scoped/blk"):
    os.makedirs(os.path.join(WORK, pkg), exist_ok=True)
    with open(os.path.join(WORK, pkg, "__init__.py"), "w") as f:
        f.write(textwrap.dedent(FORMS))
sys.path.insert(0, WORK)

import paddle  # noqa: E402,F401

REAL = None
if MODE == "real":
    import torch as REAL  # noqa: N812 - real torch loaded first
import torchproxy  # noqa: E402
from torchproxy.facade import modules as _mods  # noqa: E402

SCOPE, BLOCKED = {"st_scoped"}, {"st_scoped.blk"}
torchproxy.enable(scope=SCOPE, blocked=BLOCKED)
import st_plain  # noqa: E402
import st_scoped  # noqa: E402
import st_scoped.blk  # noqa: E402

FACADE = _mods.build()["torch"]
FACADE_NN = _mods.build()["torch.nn"]
gen = [0]          # even: stable; odd: enable()/disable() in progress
enabled = [True]   # valid while gen is even
lock = threading.Lock()
counts = {"wrong": 0, "exceptions": 0, "checks": 0, "exact_checks": 0, "facade_seen": 0,
          "real_replaced": 0, "polls": 0}
problems = []


def note(kind, detail):
    with lock:
        counts[kind] += 1
        if len(problems) < 20:
            problems.append(f"{kind}: {detail}")


def real_answer(form):
    """What an unscoped importer gets: real torch (or ImportError when absent)."""
    if REAL is None:
        return ImportError
    return REAL.nn if form == "from_nn" else REAL


def expected(who, form, proxy_on):
    if who == "scoped" and proxy_on:
        if form == "via_c":
            return torchproxy.ScopedCImportError
        return FACADE_NN if form == "from_nn" else FACADE
    return real_answer(form)


def outcome(fn):
    try:
        return fn()
    except ImportError as e:
        return type(e) if isinstance(e, torchproxy.ScopedCImportError) else ImportError
    except BaseException as e:  # noqa: BLE001
        return e


def worker(who, mod):
    forms = ("lazy", "from_nn", "via_importlib", "via_c")
    for i in range(ITERATIONS):
        for form in forms:
            # An import that raced a toggle can only be judged against both answers; retry
            # it (each attempt is still checked) until one attempt ran with no toggle in
            # between and can be judged exactly. How many attempts that takes depends on the
            # machine's load, so the exact count is decided by retries, not by timing.
            for _attempt in range(EXACT_TRIES):
                g1, on1 = gen[0], enabled[0]
                got = outcome(getattr(mod, form))
                g2 = gen[0]
                exact = g1 == g2 and g1 % 2 == 0
                allowed = [expected(who, form, on1)] if exact else \
                    [expected(who, form, True), expected(who, form, False)]
                if isinstance(got, BaseException):
                    note("exceptions", f"{who}.{form}: {got!r}")
                elif not any(got is a for a in allowed):
                    note("wrong", f"{who}.{form}: got {got!r}, allowed {allowed!r} (exact={exact})")
                if exact:
                    break
                time.sleep(0.001)  # a raced attempt: let the toggle in flight finish first
            with lock:
                counts["checks"] += 1
                counts["exact_checks"] += exact


stop = threading.Event()


def guards():
    while not stop.is_set():
        try:
            with torchproxy.guard(scope="st_unrelated", blocked={"st_unrelated.x"}):
                with torchproxy.guard(scope="st_other"):
                    pass
        except BaseException as e:  # noqa: BLE001
            note("exceptions", f"guard: {e!r}")


def toggler():
    cycle = 0
    while not stop.is_set():
        cycle += 1
        for on in (False, True):
            gen[0] += 1
            try:
                if on:
                    torchproxy.enable(scope=SCOPE, blocked=BLOCKED)
                else:
                    torchproxy.disable()
            except BaseException as e:  # noqa: BLE001
                note("exceptions", f"toggle: {e!r}")
            enabled[0] = on
            gen[0] += 1
            # mostly fast toggling; every 8th cycle a quiet window long enough for an import
            # to run start to end between two toggles (the retried exact checks need one)
            stop.wait(0.03 if cycle % 8 == 0 else 0.002)


def watcher():
    while not stop.is_set():
        m = sys.modules.get("torch")
        with lock:
            counts["polls"] += 1
        if m is not None and isinstance(m, _mods.FacadeModule):
            note("facade_seen", "sys.modules['torch'] is the facade")
        elif MODE == "real" and m is not REAL:
            note("real_replaced", f"sys.modules['torch'] is {m!r}")


workers = [threading.Thread(target=worker, args=(who, mod))
           for who, mod in (("scoped", st_scoped), ("scoped", st_scoped),
                            ("plain", st_plain), ("plain", st_plain),
                            ("blocked", st_scoped.blk))]
helpers = [threading.Thread(target=f) for f in (guards, toggler, watcher)]
for t in helpers + workers:
    t.start()
for t in workers:
    t.join()
stop.set()
for t in helpers:
    t.join()
torchproxy.disable()
if MODE == "real":
    assert sys.modules["torch"] is REAL
print(json.dumps({"counts": counts, "problems": problems}))
