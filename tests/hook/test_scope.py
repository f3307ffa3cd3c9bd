"""The scoped import hook, in-process: who gets the facade, for every form of import."""
from __future__ import annotations

import builtins
import importlib
import importlib.util
import sys
import threading

import paddle
import pytest
import torch as real_torch  # the oracle is installed in the test environment

import torchproxy
from torchproxy.facade import modules as facade_modules
from helpers import IMPORT_FORMS, PLAIN, unique, write_pkg


@pytest.fixture
def clean():
    torchproxy.disable()
    yield
    torchproxy.disable()


@pytest.fixture
def pkgs(tmp_path, monkeypatch, clean):
    """(scoped package name, unscoped package name), importable, with the proxy enabled."""
    scoped, plain = unique("tp_scoped"), unique("tp_plain")
    write_pkg(tmp_path, scoped, IMPORT_FORMS)
    write_pkg(tmp_path, plain, PLAIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    torchproxy.enable(scope={scoped})
    return scoped, plain


C_IMPORT = """
def via_c(name=b"torch"):
    import ctypes
    f = ctypes.pythonapi.PyImport_ImportModule
    f.restype = ctypes.py_object
    f.argtypes = [ctypes.c_char_p]
    return f(name)
"""


def facade(name="torch"):
    return facade_modules.MODULES[name]


def test_every_import_form_in_scope_gets_the_facade(pkgs):
    scoped, _ = pkgs
    m = importlib.import_module(scoped)
    assert m.torch is facade()
    assert m.nn is facade("torch.nn")
    assert m.F is facade("torch.nn.functional") and m.F2 is m.F
    assert m.relu is facade("torch.nn.functional").relu
    assert m.lazy() is facade()
    assert m.lazy_submodule() is facade("torch.nn.functional")
    assert m.via_importlib() is facade()
    assert m.via_importlib("torch.nn") is facade("torch.nn")
    assert m.via_find_spec().origin == "torch facade (torchproxy)" or m.via_find_spec().name == "torch"
    # submodules of the scope are in scope
    assert importlib.import_module(f"{scoped}.sub").lazy() is facade()


def test_unscoped_code_gets_real_torch_and_sys_modules_stays_real(pkgs):
    scoped, plain = pkgs
    importlib.import_module(scoped)
    p = importlib.import_module(plain)
    assert p.lazy() is real_torch
    assert p.via_importlib() is real_torch
    assert sys.modules["torch"] is real_torch
    import torch as here  # this test module is not in scope
    assert here is real_torch


def test_c_code_import_for_a_scoped_module_is_refused_not_published(pkgs):
    """PyImport_ImportModule from C reads sys.modules after calling __import__: the facade
    would have to be published there, where every thread sees it (issue 12, defect 1).  A
    scoped C-level import is refused with a clear error; sys.modules and the profiler are
    untouched; unscoped C-level imports get real torch."""
    scoped, plain = pkgs
    m = importlib.import_module(scoped)
    with pytest.raises(torchproxy.ScopedCImportError, match=r"C code imports 'torch'.*in scope"):
        m.via_c()
    assert sys.modules["torch"] is real_torch
    assert sys.getprofile() is None
    ns = {"__name__": "tp_unscoped_c"}
    exec(C_IMPORT, ns)
    assert ns["via_c"]() is real_torch
    # real torch's own C code importing a submodule keeps real torch, whoever is on top
    assert m.via_c(b"torch.nn") is real_torch.nn
    p = importlib.import_module(plain)
    assert p.lazy() is real_torch


def test_c_code_import_when_torch_was_not_loaded(pkgs, monkeypatch):
    scoped, _ = pkgs
    saved = {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}
    for k in saved:
        monkeypatch.delitem(sys.modules, k)
    m = importlib.import_module(scoped)
    with pytest.raises(torchproxy.ScopedCImportError):
        m.via_c()
    with pytest.raises(torchproxy.ScopedCImportError):
        m.via_c(b"torch.nn")  # real torch is not loaded: not its own C code
    assert "torch" not in sys.modules


def test_blocked_wins_over_scope(tmp_path, monkeypatch, clean):
    top = unique("tp_blk")
    write_pkg(tmp_path, top, {"inner/__init__.py": PLAIN["__init__.py"],
                              "outer.py": "def lazy():\n    import torch\n    return torch\n"})
    monkeypatch.syspath_prepend(str(tmp_path))
    torchproxy.enable(scope={top}, blocked={f"{top}.inner"})
    assert importlib.import_module(f"{top}.inner").lazy() is real_torch
    assert importlib.import_module(f"{top}.outer").lazy() is facade()


def test_blocked_gets_import_error_when_torch_is_absent(tmp_path, monkeypatch, clean):
    top = unique("tp_blk2")
    write_pkg(tmp_path, top, {"inner/__init__.py": PLAIN["__init__.py"]})
    monkeypatch.syspath_prepend(str(tmp_path))
    # sys.modules[name] = None is Python's own "this module cannot be imported"
    monkeypatch.setitem(sys.modules, "torch", None)
    torchproxy.enable(scope={top}, blocked={f"{top}.inner"})
    with pytest.raises(ImportError):
        importlib.import_module(f"{top}.inner").lazy()


def test_tvm_ffi_is_blocked_by_default(clean):
    torchproxy.enable(scope={"tvm_ffi"})
    assert "tvm_ffi" in torchproxy.status()["blocked"]
    assert not torchproxy.scope.STATE.wants_facade("tvm_ffi.core")


def test_missing_names_raise_clear_errors(pkgs):
    scoped, _ = pkgs
    t = importlib.import_module(scoped).torch
    with pytest.raises(AttributeError) as e:
        t.definitely_not_a_torch_name
    assert isinstance(e.value, torchproxy.NotProvidedError)
    assert str(e.value).startswith("torch.definitely_not_a_torch_name is not provided by torchproxy")
    assert hasattr(t, "no_such_thing") is False
    assert hasattr(t.nn.functional, "no_such_fn") is False
    ns = {"__name__": f"{scoped}.dyn"}
    with pytest.raises(ModuleNotFoundError, match=r"torch\.nosuchmod is not provided by torchproxy"):
        exec("import torch.nosuchmod", ns)
    with pytest.raises(ImportError, match=r"cannot import name 'nosuch' from 'torch'.*torch\.nosuch is not provided"):
        exec("from torch import nosuch", ns)


def test_enable_is_idempotent_and_extends(clean):
    torchproxy.enable(scope="a_mod")
    hook_fn = builtins.__import__
    torchproxy.enable(scope="a_mod")
    torchproxy.enable(scope={"b_mod"})
    assert builtins.__import__ is hook_fn  # never a second hook
    assert torchproxy.status()["scope"] == ["a_mod", "b_mod"]
    assert not any(type(f).__name__ == "TorchProxyMetaFinder" for f in sys.meta_path)


def test_disable_restores_everything_exactly(tmp_path, monkeypatch):
    torchproxy.disable()
    before = (builtins.__import__, importlib.import_module, importlib.util.find_spec,
              list(sys.meta_path), dict(paddle.Tensor.__dict__), sys.getprofile())
    mods_before = {k: v for k, v in sys.modules.items() if k.startswith("torch")}
    scoped = unique("tp_restore")
    write_pkg(tmp_path, scoped, IMPORT_FORMS)
    monkeypatch.syspath_prepend(str(tmp_path))
    torchproxy.enable(scope={scoped})
    m = importlib.import_module(scoped)
    with pytest.raises(torchproxy.ScopedCImportError):
        m.via_c()
    with torchproxy.guard(scope="x_mod"):
        pass
    torchproxy.enable(scope=None)  # global mode publishes, disable must withdraw
    assert sys.modules["torch"] is facade()
    torchproxy.disable()
    after = (builtins.__import__, importlib.import_module, importlib.util.find_spec,
             list(sys.meta_path), dict(paddle.Tensor.__dict__), sys.getprofile())
    assert after[:4] == before[:4]
    assert after[4] == before[4]
    assert after[5] is before[5]
    assert {k: v for k, v in sys.modules.items() if k.startswith("torch")} == mods_before


def test_global_mode(tmp_path, monkeypatch, clean):
    plain = unique("tp_glob")
    write_pkg(tmp_path, plain, PLAIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    torchproxy.enable(scope=None, blocked={"tp_never"})
    assert importlib.import_module(plain).lazy() is facade()
    assert sys.modules["torch"] is facade()
    # blocked modules still get real torch in global mode
    ns = {"__name__": "tp_never.x"}
    exec("import torch", ns)
    assert ns["torch"] is real_torch
    torchproxy.disable()
    assert sys.modules["torch"] is real_torch
    assert importlib.import_module(plain).lazy() is real_torch


def test_guards_nest_and_are_exception_safe(tmp_path, monkeypatch, clean):
    a, b = unique("tp_ga"), unique("tp_gb")
    write_pkg(tmp_path, a, PLAIN)
    write_pkg(tmp_path, b, PLAIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    ma, mb = importlib.import_module(a), importlib.import_module(b)
    with torchproxy.guard(scope=a):
        assert ma.lazy() is facade() and mb.lazy() is real_torch
        with pytest.raises(ZeroDivisionError):
            with torchproxy.guard(scope=b):
                assert ma.lazy() is facade() and mb.lazy() is facade()
                1 / 0
        assert ma.lazy() is facade() and mb.lazy() is real_torch
        with torchproxy.guard(enable=False):
            assert ma.lazy() is real_torch
        assert ma.lazy() is facade()
    assert ma.lazy() is real_torch
    st = torchproxy.status()
    assert st["enabled"] is False and st["guards"] == 0
    # parked until disable(): inert (every import above passed through), removed by disable()
    assert st["hook_installed"] is True
    torchproxy.disable()
    assert torchproxy.status()["hook_installed"] is False
    assert builtins.__import__ is not torchproxy.hook._proxy_import


def test_paddle_semantics_outside_scope_while_enabled(pkgs):
    scoped, _ = pkgs
    x = paddle.ones([2, 3])
    assert isinstance(x.numel(), paddle.Tensor)  # this test module is not in scope
    ns = {"__name__": f"{scoped}.snippet"}
    exec("def n(x):\n    return x.numel(), x.size()", ns)
    count, size = ns["n"](x)
    assert count == 6 and type(count) is int
    assert tuple(size) == (2, 3) and type(size).__name__ == "Size"


def test_threads_never_get_the_wrong_module(pkgs):
    scoped, plain = pkgs
    ms, mp = importlib.import_module(scoped), importlib.import_module(plain)
    errors = []

    def worker(fn, expected):
        for _ in range(2000):
            got = fn()
            if got is not expected:
                errors.append((fn, got))
                return

    threads = [threading.Thread(target=worker, args=(ms.lazy, facade())) for _ in range(3)]
    threads += [threading.Thread(target=worker, args=(mp.lazy, real_torch)) for _ in range(3)]
    threads += [threading.Thread(target=worker, args=(ms.via_importlib, facade())) for _ in range(2)]
    # a thread toggling unrelated guards at the same time
    stop = threading.Event()

    def toggler():
        while not stop.is_set():
            with torchproxy.guard(scope="unrelated_mod"):
                pass

    tg = threading.Thread(target=toggler)
    tg.start()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    stop.set()
    tg.join()
    assert errors == []


def test_paddle_compat_drop_in_names(tmp_path, monkeypatch, clean):
    a = unique("tp_alias")
    write_pkg(tmp_path, a, {"b/__init__.py": PLAIN["__init__.py"], **PLAIN})
    monkeypatch.syspath_prepend(str(tmp_path))
    torchproxy.enable_torch_proxy(scope={a}, blocked_modules={f"{a}.b"})
    assert importlib.import_module(a).lazy() is facade()
    assert importlib.import_module(f"{a}.b").lazy() is real_torch
    torchproxy.extend_torch_proxy_blocked_modules([a])
    assert importlib.import_module(a).lazy() is real_torch
    torchproxy.disable_torch_proxy()
    with torchproxy.use_torch_proxy_guard(scope="zz_mod"):
        assert torchproxy.status()["scope"] == ["zz_mod"]
    with pytest.raises(ValueError, match="Unsupported backend"):
        torchproxy.enable_torch_proxy(scope="x", backend="jax")


def test_bad_arguments(clean):
    with pytest.raises(ValueError, match="empty scope"):
        torchproxy.enable(scope=set())
    with pytest.raises(ValueError, match="is not a module name"):
        torchproxy.enable(scope={"not a module"})
    with pytest.raises(TypeError):
        torchproxy.enable(scope={1})
