"""Issue 12, "the hook under fire": threads, interrupts and bad input.  Each defect's reproducer
is a test here (each failed on the code before the fix)."""
from __future__ import annotations

import builtins
import gc
import importlib
import sys
import threading
import time

import paddle
import pytest
import torch as real_torch  # the oracle is installed in the test environment

import torchproxy
from torchproxy import api, hook
from torchproxy import scope as tp_scope
from torchproxy.facade import modules as facade_modules
from torchproxy.facade import registry
from torchproxy.facade import tensor as tp_tensor
from helpers import IMPORT_FORMS, PLAIN, run_py, unique, write_pkg

FACADE = None


def facade(name="torch"):
    return facade_modules.build()[name]


@pytest.fixture
def clean():
    torchproxy.disable()
    yield
    torchproxy.disable()


@pytest.fixture
def pkgs(tmp_path, monkeypatch, clean):
    scoped, plain = unique("tp_h_scoped"), unique("tp_h_plain")
    write_pkg(tmp_path, scoped, IMPORT_FORMS)
    write_pkg(tmp_path, plain, PLAIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    torchproxy.enable(scope={scoped})
    return importlib.import_module(scoped), importlib.import_module(plain)


def _run_thread_until(fn, stop_at, timeout=20):
    """Run ``fn`` in a thread whose tracer calls ``stop_at(frame, event)``; when it returns
    True the thread parks there until the returned ``release`` is called."""
    reached, release, out = threading.Event(), threading.Event(), {}

    def tracer(frame, event, arg):
        if not reached.is_set() and stop_at(frame, event):
            reached.set()
            release.wait(timeout)
        return tracer

    def body():
        sys.settrace(tracer)
        try:
            out["result"] = fn()
        except BaseException as e:  # noqa: BLE001 - reported to the test
            out["error"] = e
        finally:
            sys.settrace(None)

    t = threading.Thread(target=body, daemon=True)
    t.start()
    return t, reached, release, out


# -- defect 1: C-level imports published the facade to every thread ---------------------------
def test_scoped_c_import_never_shows_the_facade_to_other_threads(pkgs):
    """Thread A (scoped) is stopped right after the hook handled its C-level import (at the
    return of the hook's frame, before the C caller reads sys.modules).  Before the fix the
    facade sat in sys.modules['torch'] then: this thread saw it, and a guard removed real
    torch from sys.modules."""
    scoped, _ = pkgs
    hook_file = hook.__file__

    def stop_at(frame, event):
        return event == "return" and frame.f_code.co_filename == hook_file \
            and frame.f_code.co_name == "_proxy_import"

    t, reached, release, out = _run_thread_until(scoped.via_c, stop_at)
    assert reached.wait(20), "thread A never reached the hook"
    try:
        assert sys.modules.get("torch") is real_torch
        import torch as seen_here  # this module is not in scope
        assert seen_here is real_torch
        with torchproxy.guard(scope="tp_unrelated"):
            assert sys.modules.get("torch") is real_torch
        assert sys.modules.get("torch") is real_torch
    finally:
        release.set()
        t.join(20)
    # the scoped C import itself is refused (the facade cannot reach C code unpublished)
    assert isinstance(out.get("error"), torchproxy.ScopedCImportError), out
    assert sys.modules.get("torch") is real_torch


def test_atomic_publish_is_invisible_to_other_threads():
    """The one place the facade enters sys.modules outside global mode (Triton's one-time
    import, hook.settle_triton) runs as one chain of C calls: a thread polling sys.modules
    with the switch interval at 1 us never sees it, while the chain runs 40 C calls each
    long enough for dozens of switch requests."""
    fac = facade()
    seen, polls, stop = [0], [0], threading.Event()

    def watch():
        while not stop.is_set():
            if hook.is_facade(sys.modules.get("torch")):
                seen[0] += 1
            polls[0] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    w = threading.Thread(target=watch, daemon=True)
    w.start()
    try:
        while polls[0] < 1000:
            time.sleep(0.001)
        for _ in range(40):
            got = hook._atomic_publish_call("torch", fac, sum, range(200_000))
            assert got == sum(range(200_000))
            assert sys.modules.get("torch") is real_torch
    finally:
        stop.set()
        w.join(10)
        sys.setswitchinterval(old)
    assert seen[0] == 0 and polls[0] > 1000


def test_atomic_publish_restores_on_error_and_keeps_this_threads_tracer():
    fac = facade()
    marks = []

    def prof(frame, event, arg):
        marks.append(event)

    sys.setprofile(prof)
    try:
        with pytest.raises(ZeroDivisionError):
            hook._atomic_publish_call("torch", fac, divmod, 1, 0)
        assert sys.getprofile() is prof
    finally:
        sys.setprofile(None)
    assert sys.modules.get("torch") is real_torch
    assert gc.isenabled()


SETTLE = r"""
import json, sys
import paddle
{pre}
import torchproxy, triton, triton.runtime.jit as J
from torchproxy import hook
real = sys.modules.get("torch")
x = paddle.ones([4], dtype="float32")
torchproxy.enable(scope={{"triton"}})
assert sys.modules.get("torch") is real
# which Tensor class Triton fast-paths: the generic path probes `data_ptr`, the fast one not
orig = paddle.Tensor.__dict__["data_ptr"]
hits = []
paddle.Tensor.data_ptr = property(lambda self: (hits.append(1), orig.__get__(self, type(self)))[1])
mangled = J.mangle_type(x)
paddle.Tensor.data_ptr = orig
print(json.dumps({{"mangled": mangled, "generic_probes": len(hits), "settled": hook._triton_settled,
                  "torch_untouched": sys.modules.get("torch") is real,
                  "real_loaded": real is not None}}))
"""


@pytest.mark.parametrize("real_first", [True, False], ids=["real-torch-loaded", "no-real-torch"])
def test_triton_specializer_gets_the_facade_without_publishing(real_first):
    """Triton 3.6 imports torch from C (PyImport_ImportModule), 3.9 reads sys.modules: both
    end up fast-pathing Paddle's Tensor (the facade's torch.Tensor), settled when "triton"
    enters the scope, and sys.modules['torch'] is what it was."""
    pytest.importorskip("triton")
    from helpers import run_json
    pre = "import torch" if real_first else "sys.modules['torch'] = None"
    got = run_json(SETTLE.format(pre=pre), timeout=240)
    assert got == {"mangled": "*fp32", "generic_probes": 0, "settled": True,
                   "torch_untouched": True, "real_loaded": real_first}


# -- defect 2: guard(blocked=) exit restored a stale blocked set -------------------------------
def test_guard_exit_keeps_names_blocked_by_enable_inside_it(clean):
    with torchproxy.guard(scope="tp_g", blocked={"tp_other"}):
        assert "tp_other" in torchproxy.status()["blocked"]
        torchproxy.enable(scope={"tp_lib_c"}, blocked={"tp_lib_c"})
    st = torchproxy.status()
    assert st["blocked"] == ["tp_lib_c", "tvm_ffi"]
    ns = {"__name__": "tp_lib_c.mod"}
    exec("import torch", ns)
    assert ns["torch"] is real_torch


# -- defect 3: disable() in one thread broke imports in others ----------------------------------
def test_disable_while_another_thread_is_inside_the_hook(clean):
    torchproxy.enable(scope={"tp_x"})

    def unscoped_torch_import():  # unscoped: the hook hands it to the original __import__
        import torch
        return torch

    def stop_at(frame, event):
        return event == "line" and frame.f_code is hook._proxy_import.__code__ \
            and frame.f_locals.get("name") == "torch"

    t, reached, release, out = _run_thread_until(unscoped_torch_import, stop_at)
    assert reached.wait(20)
    torchproxy.disable()
    release.set()
    t.join(20)
    assert "error" not in out, out
    assert out["result"] is real_torch
    # and an unrelated import through the entry point installed before disable() still works
    torchproxy.enable(scope={"tp_x"})
    entry = builtins.__import__
    torchproxy.disable()
    assert entry("json") is sys.modules["json"]


def test_threads_keep_importing_while_another_toggles(clean):
    torchproxy.enable(scope={"tp_x"})
    errors, stop = [], threading.Event()

    def importer():
        ns = {"__name__": "tp_plain_thread"}
        code = compile("import json\nimport torch\nfrom torch import nn\n", "<t>", "exec")
        while not stop.is_set():
            try:
                exec(code, ns)
                if ns["torch"] is not real_torch:
                    errors.append(("wrong", ns["torch"]))
            except BaseException as e:  # noqa: BLE001
                errors.append(e)

    threads = [threading.Thread(target=importer) for _ in range(2)]
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        for t in threads:
            t.start()
        for _ in range(150):
            torchproxy.disable()
            torchproxy.enable(scope={"tp_x"})
    finally:
        stop.set()
        for t in threads:
            t.join(20)
        sys.setswitchinterval(old)
    assert errors == []


# -- defect 5: a thread's own profiler was lost ---------------------------------------------------
def test_each_threads_profiler_survives_scoped_c_imports(pkgs):
    """sys.setprofile is per thread: two threads making scoped C-level imports, one of them
    with its own profiler, must each end with the profiler they had."""
    scoped, _ = pkgs
    results = {}

    def prof(frame, event, arg):
        return None

    def c_imports(n=6000):
        for _ in range(n):
            try:
                scoped.via_c()
            except torchproxy.ScopedCImportError:
                pass

    def profiled():
        sys.setprofile(prof)
        c_imports()
        results["profiler"] = sys.getprofile()
        sys.setprofile(None)

    def unprofiled():
        c_imports()
        results["none"] = sys.getprofile()

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)  # switch threads as often as possible
    try:
        threads = [threading.Thread(target=profiled), threading.Thread(target=unprofiled)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
    finally:
        sys.setswitchinterval(old)
    assert results == {"profiler": prof, "none": None}
    assert sys.getprofile() is None


# -- defect 6: global mode and importers without a name; real torch's own modules -------------
def test_global_mode_gives_the_facade_to_nameless_importers(clean):
    torchproxy.enable(scope=None)
    ns = {}
    exec("import torch", ns)
    assert ns["torch"] is facade()
    assert eval("__import__('torch')", {}) is facade()
    assert eval("__import__('torch.nn', fromlist=['Module'])", {}) is facade("torch.nn")
    torchproxy.disable()
    ns = {}
    exec("import torch", ns)
    assert ns["torch"] is real_torch


def test_real_torch_own_modules_never_get_the_facade(clean):
    torchproxy.enable(scope=None)
    for name in ("torch", "torch._utils", "torch.nn.modules.linear"):
        assert not tp_scope.STATE.wants_facade(name)
        ns = {"__name__": name}
        exec("import torch", ns)
        assert ns["torch"] is real_torch, name


def test_blocked_importer_loads_real_torch_first_time_while_facade_is_published():
    got = run_py("""
import json, sys
sys.modules["tvm_ffi"] = None  # Paddle 3.3 imports tvm_ffi at start-up, and tvm_ffi torch
import paddle
assert "torch" not in sys.modules
import torchproxy
torchproxy.enable(scope=None, blocked={"tp_blk"})
ns = {"__name__": "tp_blk.user"}
exec("import torch\\nfrom torch.nn import functional as F", ns)
real = ns["torch"]
out = {"real": type(real).__name__, "has_C": hasattr(real, "_C"),
       "F_real": not torchproxy.is_facade(ns["F"]),
       "published": torchproxy.is_facade(sys.modules["torch"])}
ns2 = {}
exec("import torch", ns2)
out["nameless"] = torchproxy.is_facade(ns2["torch"])
torchproxy.disable()
out["after"] = sys.modules["torch"] is real
print(json.dumps(out))
""", timeout=240)
    assert got.returncode == 0, got.stderr[-3000:]
    import json
    assert json.loads(got.stdout.strip().splitlines()[-1]) == {
        "real": "module", "has_C": True, "F_real": True, "published": True, "nameless": True,
        "after": True}


# -- transitions are all-or-nothing under KeyboardInterrupt --------------------------------------
_OUR_FILES = {hook.__file__, api.__file__, tp_scope.__file__, tp_tensor.__file__}


def _observable():
    """What the user can observe of the proxy's state (rules, hook, Tensor methods, dtypes,
    sys.modules)."""
    snap = tp_scope.STATE.snapshot
    pristine = _PRISTINE
    tensor_diff = frozenset(n for n in _TENSOR_NAMES
                            if paddle.Tensor.__dict__.get(n, None) is not pristine.get(n, None))
    return (snap[0], snap[1], snap[2], snap[3], len(snap[6]), snap[5] is not None,
            hook.installed(), builtins.__import__ is hook.entry(),
            importlib.import_module is hook._proxy_import_module,
            tp_tensor.installed(), tensor_diff,
            hook.is_facade(sys.modules.get("torch")), sys.modules.get("torch") is real_torch)


_TENSOR_NAMES: list = []
_PRISTINE: dict = {}


_LAST_INJECTION: list = []


def _is_with_line(filename, lineno, _cache={}):
    key = (filename, lineno)
    if key not in _cache:
        import linecache
        line = linecache.getline(filename, lineno).strip()
        _cache[key] = line.startswith("with ") or line == "try:"
    return _cache[key]


def _interrupt_at(k, fn):
    """Run fn() with KeyboardInterrupt raised at the k-th line executed in torchproxy's
    hook/api/scope/tensor modules; returns how many such lines ran (when not interrupted)."""
    count = [0]

    def local(frame, event, arg):
        # A trace function also sees the `with` line again between a with-block's body and
        # the __exit__ call, and the NOP of a `try:` line (which CPython 3.11's exception
        # table leaves out of an enclosing with-block); Ctrl-C (a signal) is only acted on at
        # the eval loop's check points, never at those, so they are not interruption points.
        if event == "line" and not _is_with_line(frame.f_code.co_filename, frame.f_lineno):
            count[0] += 1
            if count[0] == k:
                _LAST_INJECTION[:] = [frame.f_code.co_filename, frame.f_lineno]
                raise KeyboardInterrupt(f"injected at line {k}")
        return local

    def global_(frame, event, arg):
        if frame.f_code.co_filename in _OUR_FILES:
            return local
        return None

    sys.settrace(global_)
    try:
        fn()
    except KeyboardInterrupt:
        return None
    finally:
        sys.settrace(None)
    return count[0]


def _transitions():
    """(name, setup, action) triples: setup brings the start state, action is the transition."""
    holder = {}

    def enter(**kw):
        def go():
            holder["g"] = torchproxy.guard(**kw)
            holder["g"].__enter__()
        return go

    def leave():
        holder["g"].__exit__(None, None, None)

    def in_guard(**kw):
        def go():
            torchproxy.disable()
            enter(**kw)()
        return go

    return [
        ("enter from disabled", torchproxy.disable, enter(scope="tp_k")),
        ("enter parked", lambda: (torchproxy.disable(), enter(scope="tp_p")(), leave()),
         enter(scope="tp_k", blocked={"tp_kb"})),
        ("enter nested", lambda: (torchproxy.disable(), torchproxy.enable(scope="tp_b")),
         enter(scope="tp_k")),
        ("exit", in_guard(scope="tp_k", blocked={"tp_kb"}), leave),
        ("enter global", torchproxy.disable, enter(scope=None)),
        ("exit global", in_guard(scope=None), leave),
        ("enable", torchproxy.disable, lambda: torchproxy.enable(scope={"tp_e"})),
        ("disable", lambda: (torchproxy.disable(), torchproxy.enable(scope=None)),
         torchproxy.disable),
    ]


def test_transitions_are_all_or_nothing_under_keyboard_interrupt(clean):
    import random
    registry.load_table()
    _TENSOR_NAMES[:] = [full.rsplit(".", 1)[1] for full in registry.TENSOR_TABLE]
    _PRISTINE.clear()
    _PRISTINE.update({n: paddle.Tensor.__dict__.get(n) for n in _TENSOR_NAMES})
    rng = random.Random(12)
    checked = 0
    for name, setup, action in _transitions():
        setup()
        before = _observable()
        total = _interrupt_at(0, action)  # k=0: never interrupts; counts the lines
        after = _observable()
        assert before != after, name
        points = range(1, total + 1)
        if total > 60:
            points = sorted(rng.sample(points, 60))
        for k in points:
            setup()
            assert _observable() == before, (name, k)
            _interrupt_at(k, action)
            got = _observable()
            # no lock left held (another thread would wait on it forever)
            assert not (tp_scope.STATE.lock._is_owned() or hook._lock._is_owned()
                        or tp_tensor._lock.locked()), ("lock left held", name, k, _LAST_INJECTION)
            assert got in (before, after), (name, k, total)
            checked += 1
        torchproxy.disable()
    assert checked > 150
    # and a later enable() completes whatever state an interrupt left
    torchproxy.enable(scope={"tp_final"})
    assert tp_tensor.installed() and hook.installed()
    torchproxy.disable()
    assert _observable()[6:11] == (False, False, False, False, frozenset())


def test_signal_timer_interrupting_guards(clean):
    """SIGALRM raising KeyboardInterrupt at random moments of a guard loop: afterwards the
    state is that of inside or outside the guard, never a mix."""
    import signal
    if threading.current_thread() is not threading.main_thread():
        pytest.skip("signals need the main thread")
    registry.load_table()
    _TENSOR_NAMES[:] = [full.rsplit(".", 1)[1] for full in registry.TENSOR_TABLE]
    _PRISTINE.clear()
    _PRISTINE.update({n: paddle.Tensor.__dict__.get(n) for n in _TENSOR_NAMES})

    # armed only while the guard loop runs: a SIGALRM whose Python handler runs late (after
    # the loop ended and the timer was cancelled) must not interrupt the checks, or pytest
    armed = [False]

    def raise_ki(signum, frame):
        if armed[0]:
            armed[0] = False
            raise KeyboardInterrupt

    old = signal.signal(signal.SIGALRM, raise_ki)
    import random
    rng = random.Random(7)
    states = set()
    try:
        for i in range(40):
            torchproxy.disable() if i % 2 else None
            with torchproxy.guard(scope="tp_s"):
                inside = _observable()
            outside = _observable()
            try:
                # armed and started inside the try: a signal acted on right after setitimer
                # returns (the eval loop checks after a C call) is caught here too
                armed[0] = True
                signal.setitimer(signal.ITIMER_REAL, rng.uniform(1e-5, 4e-4))
                while True:
                    with torchproxy.guard(scope="tp_s"):
                        pass
            except KeyboardInterrupt:
                pass
            finally:
                armed[0] = False
                signal.setitimer(signal.ITIMER_REAL, 0)
            got = _observable()
            assert got in (inside, outside), i
            states.add(got == inside)
            torchproxy.disable()
    finally:
        signal.signal(signal.SIGALRM, old)


# -- parking: guards are cheap, disable() still restores everything -----------------------------
def test_parked_methods_are_inert_and_disable_restores_everything_observable(tmp_path,
                                                                          monkeypatch, clean):
    registry.load_table()
    names = [full.rsplit(".", 1)[1] for full in registry.TENSOR_TABLE]
    x = paddle.ones([2, 3])
    dtype_type = type(paddle.float32)

    def probe():
        out = {}
        for n in names:
            out[n] = (hasattr(x, n), n in paddle.Tensor.__dict__,
                      paddle.Tensor.__dict__.get(n))
        return out, dict(dtype_type.__dict__), dict(paddle.Tensor.__dict__)

    before = probe()
    scoped = unique("tp_park")
    write_pkg(tmp_path, scoped, {"__init__.py": "def n(x):\n    return x.numel()\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    m = importlib.import_module(scoped)
    for _ in range(3):
        with torchproxy.guard(scope=scoped):
            assert m.n(x) == 6 and type(m.n(x)) is int
        # parked: inert for everyone
        assert isinstance(m.n(x), paddle.Tensor) and isinstance(x.numel(), paddle.Tensor)
        assert x.shape == [2, 3] and torchproxy.status()["enabled"] is False
    torchproxy.disable()
    after = probe()
    assert after[0] == before[0]
    assert after[1] == before[1]
    assert after[2] == before[2]
    assert int(x.numel()) == 6


# -- bad input -----------------------------------------------------------------------------------
@pytest.mark.parametrize("call, exc, match", [
    (lambda: torchproxy.enable(scope=123), TypeError,
     r"scope must be a module name, a comma-separated string of names, or a set/list/tuple of "
     r"names; got int 123"),
    (lambda: torchproxy.enable(scope="x", blocked=123), TypeError, r"blocked must be .*int 123"),
    (lambda: torchproxy.guard(scope=123), TypeError, r"scope must be .*int 123"),
    (lambda: torchproxy.guard(scope="x", blocked=4.5), TypeError, r"blocked must be .*float"),
    (lambda: torchproxy.enable(scope={1}), TypeError, r"scope names must be strings, got int 1"),
    (lambda: torchproxy.enable(scope=b"mylib"), TypeError, r"got bytes"),
    (lambda: torchproxy.guard(scope="x", enable="no"), TypeError, r"enable must be True or False"),
    (lambda: torchproxy.enable(scope="torch"), ValueError, r"scope 'torch' is refused: real torch"),
    (lambda: torchproxy.enable(scope={"torch.nn"}), ValueError, r"scope 'torch.nn' is refused"),
    (lambda: torchproxy.enable(scope="paddle"), ValueError, r"scope 'paddle' is refused: Paddle"),
    (lambda: torchproxy.guard(scope="torchproxy"), ValueError, r"'torchproxy' is refused"),
    (lambda: torchproxy.enable(scope=",,,"), ValueError, r"names no module"),
    (lambda: torchproxy.enable(scope="a-b"), ValueError, r"'a-b' is not a module name"),
    (lambda: torchproxy.enable(scope=["ok", ""]), ValueError, r"empty module name"),
    (lambda: torchproxy.enable(scope=set()), ValueError, r"empty scope"),
])
def test_bad_arguments_get_clear_errors(clean, call, exc, match):
    with pytest.raises(exc, match=match):
        call()
    assert torchproxy.status()["enabled"] is False
    assert not torchproxy.status()["hook_installed"]


@pytest.mark.parametrize("var", ["TORCHPROXY_SCOPE", "TORCHPROXY_BLOCKED"])
@pytest.mark.parametrize("value", [",,,", "a-b", "..", "mylib.", "*,mylib", "1abc", "my lib"])
def test_bad_environment_values_name_the_variable(monkeypatch, var, value):
    if var == "TORCHPROXY_BLOCKED":
        monkeypatch.setenv("TORCHPROXY_SCOPE", "mylib")
    monkeypatch.setenv(var, value)
    with pytest.raises(torchproxy.ConfigurationError) as e:
        api.environment_config()
    msg = str(e.value)
    assert msg.startswith(f"{var}={value!r} is not valid: ")
    assert "comma-separated list of module names" in msg


def test_environment_scope_refuses_torch(monkeypatch):
    monkeypatch.setenv("TORCHPROXY_SCOPE", "mylib,torch")
    with pytest.raises(torchproxy.ConfigurationError, match=r"TORCHPROXY_SCOPE='mylib,torch' is "
                       r"not valid: scope 'torch' is refused"):
        api.environment_config()
    monkeypatch.setenv("TORCHPROXY_SCOPE", " * ")
    assert api.environment_config() == (True, None, frozenset())


def test_bad_environment_value_at_import_is_one_clear_error():
    proc = run_py("import torchproxy", env={"TORCHPROXY_SCOPE": "mylib."})
    assert proc.returncode == 1
    err = proc.stderr.strip().splitlines()
    assert err[-1] == ("torchproxy.errors.ConfigurationError: TORCHPROXY_SCOPE='mylib.' is not "
                       "valid: 'mylib.' is not a module name (expected e.g. 'liger_kernel' or "
                       "'pkg.sub': identifiers joined by dots). Expected a comma-separated list "
                       "of module names (e.g. 'mylib,triton'; each an identifier or identifiers "
                       "joined by dots), or '*' for global mode; unset it to leave torchproxy "
                       "off.")
    # the only frame of ours is the `import torchproxy` line's own module
    frames = [line for line in err if line.strip().startswith("File ")]
    assert len(frames) == 2 and frames[1].endswith("in <module>") and "__init__.py" in frames[1]
    assert "paddle" not in proc.stderr.replace("PaddlePaddle", "")


def test_status_facade_users_drop_modules_of_exited_guards(tmp_path, monkeypatch, clean):
    a, b = unique("tp_fu_a"), unique("tp_fu_b")
    write_pkg(tmp_path, a, PLAIN)
    write_pkg(tmp_path, b, PLAIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    ma, mb = importlib.import_module(a), importlib.import_module(b)
    torchproxy.enable(scope={a})
    ma.lazy()
    with torchproxy.guard(scope=b):
        mb.lazy()
        assert torchproxy.status()["facade_users"] == sorted([a, b])
    assert torchproxy.status()["facade_users"] == [a]


@pytest.mark.parametrize("args, message", [
    (["run", "no_such_script.py"], "torchproxy run: no such script: 'no_such_script.py'"),
    (["run", "-m", "no_such_module_tp"], "torchproxy run: no module named 'no_such_module_tp'"),
    (["run", "."], "torchproxy run: '.' is a directory with no __main__.py"),
    (["run", "--scope", "a-b", "x.py"], "torchproxy run: --scope: 'a-b' is not a module name"),
    (["run", "--scope", "torch", "x.py"], "torchproxy run: scope 'torch' is refused"),
])
def test_cli_run_misuse_is_one_line_and_exit_2_before_paddle(tmp_path, args, message):
    import os
    import subprocess
    from helpers import ROOT
    # a `paddle` that fails loudly if imported: the decision must come before Paddle
    os.makedirs(tmp_path / "paddle")
    (tmp_path / "paddle" / "__init__.py").write_text("raise SystemExit('PADDLE WAS IMPORTED')\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), ROOT]))
    env.pop("TORCHPROXY_SCOPE", None)
    proc = subprocess.run([sys.executable, "-m", "torchproxy", *args], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 2, proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(message), proc.stderr


def test_cli_help_description_is_a_whole_sentence():
    from torchproxy import cli
    desc = cli.build_parser().description
    assert desc.endswith(".") and "PaddlePaddle" in desc and "with" not in desc.split()[-1]
