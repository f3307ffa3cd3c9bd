"""Issue 19's stress run (tests/hook/test_stress.py runs it in a fresh interpreter): processes
and foreign import hooks under load.

    python stress_processes.py WORKDIR

Worker threads import torch (Python level, `from torch import nn`, importlib.import_module)
from a scoped and an unscoped module, while one thread toggles enable()/disable(), one enters
and leaves guards, and one installs and uninstalls two foreign hooks (each wrapping
__import__, importlib.import_module and importlib.util.find_spec) and a sys.meta_path finder,
in a shuffled order with a fixed seed.  Meanwhile the main thread forks (the child checks a
guard, a trace and the imports, then exits; a hung child is killed) and starts spawn children
(which must get the rules of the moment they started: children.propagate()).  Prints one
JSON line of counts; the test wants every failure count 0.
"""
from __future__ import annotations

import builtins
import importlib
import importlib.util
import json
import os
import random
import sys
import textwrap
import threading
import time

ITERATIONS = int(os.environ.get("TP_STRESS_ITERATIONS", "60"))
FORKS, SPAWNS, FOREIGN_ROUNDS = 6, 2, 12

FORMS = """
import importlib

def lazy():
    import torch
    return torch

def from_nn():
    from torch import nn
    return nn

def via_importlib():
    return importlib.import_module("torch")

def report(queue):
    import torchproxy
    import stp_plain
    queue.put((torchproxy.is_facade(lazy()), torchproxy.is_facade(stp_plain.lazy())))
"""


class ForeignHook:
    """Wraps the three entry points (calling what it found); uninstall puts back what it found
    if its own wrapper is still on top, as such tools do."""

    TARGETS = ((builtins, "__import__"), (importlib, "import_module"),
               (importlib.util, "find_spec"))

    def __init__(self):
        self.found = self.wrappers = None

    def install(self):
        found = tuple(getattr(owner, attr) for owner, attr in self.TARGETS)

        def wrap(original):
            def wrapper(*args, **kwargs):
                return original(*args, **kwargs)
            return wrapper

        self.found, self.wrappers = found, tuple(wrap(f) for f in found)
        for (owner, attr), w in zip(self.TARGETS, self.wrappers):
            setattr(owner, attr, w)

    def uninstall(self):
        for (owner, attr), mine, theirs in zip(self.TARGETS, self.wrappers, self.found):
            if getattr(owner, attr) is mine:
                setattr(owner, attr, theirs)


class WatchingFinder:
    def find_spec(self, name, path=None, target=None):
        return None


def setup(work):
    for pkg in ("stp_scoped", "stp_plain"):
        os.makedirs(os.path.join(work, pkg), exist_ok=True)
        with open(os.path.join(work, pkg, "__init__.py"), "w") as f:
            f.write(textwrap.dedent(FORMS))
    sys.path.insert(0, work)


def main():
    setup(sys.argv[1])
    sys.setswitchinterval(5e-5)
    import multiprocessing

    import paddle  # noqa: F401
    import torch as real  # Paddle 3.3 loaded it already; explicit for 2.6

    import torchproxy
    from torchproxy import children
    from torchproxy.facade import modules as facade_modules

    scope = {"stp_scoped"}
    torchproxy.enable(scope=scope)
    children.propagate()
    import stp_plain
    import stp_scoped

    facade = facade_modules.build()["torch"]
    facade_nn = facade_modules.build()["torch.nn"]
    gen, enabled = [0], [True]
    lock = threading.Lock()
    counts = {"checks": 0, "exact_checks": 0, "wrong": 0, "exceptions": 0, "forks": 0,
              "fork_failed": 0, "fork_hung": 0, "spawns": 0, "spawn_exact": 0,
              "spawn_wrong": 0, "foreign_rounds": 0}
    problems = []

    def note(kind, detail):
        with lock:
            counts[kind] += 1
            if len(problems) < 20:
                problems.append(f"{kind}: {detail}")

    def expected(who, form, on):
        if who == "scoped" and on:
            return facade_nn if form == "from_nn" else facade
        return real.nn if form == "from_nn" else real

    def check(who, mod, form):
        """One import, judged: True when no switch overlapped it (the answer is known exactly);
        otherwise either side's answer is allowed, nothing else."""
        g1, on = gen[0], enabled[0]
        try:
            got = getattr(mod, form)()
        except BaseException as e:  # noqa: BLE001 - counted
            note("exceptions", f"{who}.{form}: {e!r}")
            return True
        exact = g1 == gen[0] and g1 % 2 == 0
        allowed = [expected(who, form, on)] if exact else \
            [expected(who, form, True), expected(who, form, False)]
        if not any(got is a for a in allowed):
            note("wrong", f"{who}.{form}: {got!r} (exact={exact})")
        return exact

    def worker(who, mod):
        for _ in range(ITERATIONS):
            for form in ("lazy", "from_nn", "via_importlib"):
                # overlapping a switch proves little: tried again (up to 200 times, 1 ms
                # apart, each one judged) until one import ran between switches; the retries,
                # not the machine's load, decide how many checks end exact
                exact = False
                for _try in range(200):
                    if check(who, mod, form):
                        exact = True
                        break
                    time.sleep(0.001)
                with lock:
                    counts["checks"] += 1
                    counts["exact_checks"] += exact

    stop = threading.Event()

    paused = threading.Event()  # set by spawn_once: the toggler waits, so the check is exact
    idle = threading.Event()

    def switch(on):
        gen[0] += 1
        try:
            torchproxy.enable(scope=scope) if on else torchproxy.disable()
        except BaseException as e:  # noqa: BLE001
            note("exceptions", f"toggle: {e!r}")
        enabled[0] = on
        gen[0] += 1

    def toggler():
        while not stop.is_set():
            for on in (False, True):
                while paused.is_set() and not stop.is_set():
                    idle.set()
                    stop.wait(0.01)
                idle.clear()
                switch(on)
                stop.wait(0.02)  # rules stable for a while: most imports are judged exactly

    def guards():
        while not stop.is_set():
            try:
                with torchproxy.guard(scope="stp_unrelated"):
                    pass
            except BaseException as e:  # noqa: BLE001
                note("exceptions", f"guard: {e!r}")

    def foreign():
        rng = random.Random(19)
        hooks = {"a": ForeignHook(), "b": ForeignHook()}
        finder = WatchingFinder()
        for _ in range(FOREIGN_ROUNDS):
            steps = ["a_install", "b_install", "f_install"]
            rng.shuffle(steps)
            steps += rng.sample(["a_uninstall", "b_uninstall", "f_uninstall"], 3)
            for step in steps:
                who, action = step.split("_")
                try:
                    if who == "f":
                        if action == "install":
                            sys.meta_path.insert(0, finder)
                        else:
                            sys.meta_path.remove(finder)
                    else:
                        getattr(hooks[who], action)()
                except BaseException as e:  # noqa: BLE001
                    note("exceptions", f"foreign {step}: {e!r}")
                time.sleep(0.002)
            with lock:
                counts["foreign_rounds"] += 1

    def fork_once():
        pid = os.fork()
        if pid == 0:
            code = 5
            try:
                with torchproxy.guard(scope={"stp_scoped"}):
                    ok = torchproxy.is_facade(stp_scoped.lazy()) and \
                        stp_plain.lazy() is real and \
                        torchproxy.is_facade(stp_scoped.via_importlib())
                with torchproxy.trace():
                    pass
                code = 0 if ok else 3
            finally:
                os._exit(code)
        deadline = time.time() + 60
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                if os.waitstatus_to_exitcode(status) != 0:
                    note("fork_failed", f"exit {os.waitstatus_to_exitcode(status)}")
                break
            if time.time() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                note("fork_hung", "child killed after 60 s")
                break
            time.sleep(0.01)
        with lock:
            counts["forks"] += 1

    def spawn_once(ctx, on):
        queue = ctx.Queue()
        paused.set()
        idle.wait(30)
        switch(on)
        g1 = gen[0]
        proc = ctx.Process(target=stp_scoped.report, args=(queue,))
        proc.start()  # the rules travel in the preparation data made here
        exact = g1 == gen[0] and g1 % 2 == 0
        paused.clear()
        try:
            got = queue.get(timeout=240)
        except Exception as e:  # noqa: BLE001
            got = repr(e)
        proc.join(60)
        allowed = [(on, False)] if exact else [(True, False), (False, False)]
        with lock:
            counts["spawns"] += 1
            counts["spawn_exact"] += exact
        if got not in allowed or proc.exitcode != 0:
            note("spawn_wrong", f"{got!r}, exit {proc.exitcode}, allowed {allowed}")

    workers = [threading.Thread(target=worker, args=(who, mod))
               for who, mod in (("scoped", stp_scoped), ("scoped", stp_scoped),
                                ("plain", stp_plain))]
    helpers = [threading.Thread(target=f) for f in (toggler, guards)]
    foreign_thread = threading.Thread(target=foreign)
    for t in helpers + workers + [foreign_thread]:
        t.start()
    ctx = multiprocessing.get_context("spawn")
    for i in range(max(FORKS, SPAWNS)):
        if i < FORKS:
            fork_once()
        if i < SPAWNS:
            spawn_once(ctx, on=i % 2 == 0)  # one child started with the rules on, one off
    for t in workers + [foreign_thread]:
        t.join()
    stop.set()
    for t in helpers:
        t.join()
    torchproxy.disable()
    counts["real_restored"] = sys.modules["torch"] is real
    print(json.dumps({"counts": counts, "problems": problems}))


if __name__ == "__main__":
    main()
