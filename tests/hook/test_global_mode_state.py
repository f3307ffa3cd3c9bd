"""Issue 19, items 9-11: global mode's sys.modules entries.  Real torch is loaded (the oracle)
before global mode publishes the facade, as in every Paddle 3.3 process."""
from __future__ import annotations

import importlib
import sys
import threading

import pytest
import torch as real_torch  # the oracle is installed in the test environment
import torch.nn.functional  # noqa: F401  (loaded, so the blocked imports below load nothing)

import torchproxy
from torchproxy import hook
from torchproxy.facade import modules as facade_modules
from helpers import unique


def facade(name="torch"):
    return facade_modules.build()[name]


@pytest.fixture
def clean():
    torchproxy.disable()
    yield
    torchproxy.disable()
    assert sys.modules["torch"] is real_torch


def _torch_entries():
    return {k: v for k, v in sys.modules.items() if k == "torch" or k.startswith("torch.")}


# -- item 9: blocked importers of loaded real torch open no window -------------------------------
def test_blocked_imports_of_loaded_real_torch_never_show_it_to_other_threads(clean):
    blocked = unique("tp_gm_blk")
    torchproxy.enable(scope=None, blocked={blocked})
    code = compile("import torch\nimport torch.nn.functional\nfrom torch.nn import functional\n"
                   "from torch import nn\nimport importlib\n"
                   "m = importlib.import_module('torch.nn')\n", "<tp-blocked>", "exec")
    seen = {"real": 0, "polls": 0}
    stop = threading.Event()

    def watcher():
        while not stop.is_set():
            seen["polls"] += 1
            if sys.modules.get("torch") is real_torch:
                seen["real"] += 1

    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-5)
    t = threading.Thread(target=watcher)
    t.start()
    try:
        for _ in range(400):
            g = {"__name__": f"{blocked}.mod"}
            exec(code, g)
            assert g["torch"] is real_torch and g["functional"] is real_torch.nn.functional
            assert g["nn"] is real_torch.nn and g["m"] is real_torch.nn
    finally:
        stop.set()
        t.join(20)
        sys.setswitchinterval(old)
    assert seen["polls"] > 0
    assert seen["real"] == 0, seen
    assert sys.modules["torch"] is facade()


def test_blocked_import_of_a_module_not_loaded_yet_still_gets_real_torch(clean):
    # a real torch submodule nobody loaded: the slow path (real torch in sys.modules while it
    # loads) still serves it, and the facade is back in sys.modules afterwards
    name = next(n for n in ("torch.utils.file_baton", "torch.utils.show_pickle",
                            "torch.utils.mkldnn") if n not in sys.modules)
    blocked = unique("tp_gm_blk_new")
    torchproxy.enable(scope=None, blocked={blocked})
    g = {"__name__": blocked}
    exec(f"import {name}\nimport importlib\nm = importlib.import_module({name!r})\n", g)
    assert g["torch"] is real_torch
    assert g["m"].__name__ == name and not torchproxy.is_facade(g["m"])
    assert g["m"].__file__.startswith(real_torch.__path__[0])
    assert sys.modules["torch"] is facade() and name not in sys.modules
    torchproxy.disable()
    assert sys.modules[name] is g["m"]


# -- item 10: disable() after user code took sys.modules["torch"] out ---------------------------
def test_disable_after_sys_modules_pop_restores_real_torch(clean):
    before = _torch_entries()
    torchproxy.enable(scope=None)
    assert sys.modules["torch"] is facade()
    sys.modules.pop("torch")
    torchproxy.disable()
    after = _torch_entries()
    assert [k for k, v in after.items() if torchproxy.is_facade(v)] == []
    assert after == before
    g = {}
    exec("import torch\nimport torch.nn\n", g)
    assert g["torch"] is real_torch


def test_disable_after_sys_modules_entry_replaced_restores_real_torch(clean):
    torchproxy.enable(scope=None)
    sys.modules["torch"] = object()  # anything but the facade
    torchproxy.disable()
    assert sys.modules["torch"] is real_torch
    assert not any(torchproxy.is_facade(v) for v in _torch_entries().values())


# -- item 11: importlib.reload of the facade -------------------------------------------------------
def test_reload_of_the_facade_in_global_mode_changes_nothing(clean):
    torchproxy.enable(scope=None)
    import torch as t
    assert t is facade()
    attrs = dict(vars(t))
    assert importlib.reload(t) is t
    assert dict(vars(t)) == attrs and all(vars(t)[k] is v for k, v in attrs.items())
    nn = facade("torch.nn")
    nn_attrs = dict(vars(nn))
    assert importlib.reload(nn) is nn
    assert all(vars(nn)[k] is v for k, v in nn_attrs.items())
    assert sys.modules["torch"] is t


def test_reload_of_the_facade_from_a_scoped_module(clean):
    name = unique("tp_gm_reload")
    torchproxy.enable(scope={name})
    g = {"__name__": name}
    exec("import torch, importlib\nr = importlib.reload(torch)\n", g)
    assert g["r"] is facade() and g["torch"] is facade()
    # reload of anything else is importlib's own
    import json
    assert importlib.reload(json) is json


def test_reload_is_importlibs_own_again_after_disable(clean):
    original = importlib.reload
    torchproxy.enable(scope={"tp_gm_x"})
    assert importlib.reload is not original
    torchproxy.disable()
    assert importlib.reload is original
    assert hook.installed() is False


# -- global mode switched by another thread while an import is on its way -----------------------
def test_blocked_import_routed_to_global_mode_after_it_was_withdrawn(clean):
    # A blocked importer read the rules (global mode) and waited for the hook's lock while
    # another thread's disable() withdrew the facade: real torch is back in sys.modules, and it
    # must stay there (no view that sets it aside into _saved_real with global mode off).
    blocked = unique("tp_gm_late")
    torchproxy.enable(scope=None, blocked={blocked})
    torchproxy.disable()
    before = _torch_entries()
    g = {"__name__": blocked}
    assert hook._real_import_in_global_mode(hook._original_import, "torch", g, None, None,
                                            0) is real_torch
    assert hook._real_import_module_in_global_mode(importlib.import_module, "torch.nn",
                                                   None) is real_torch.nn
    assert sys.modules["torch"] is real_torch and hook._saved_real == {}
    assert _torch_entries() == before


@pytest.mark.parametrize("form", ["import", "import_module"])
def test_global_mode_published_during_a_blocked_import_still_gives_real_torch(clean, form):
    # The blocked importer read the rules before another thread's enable(scope=None), and the
    # import found the facade that enable() published meanwhile: it gets real torch all the same.
    blocked = unique("tp_gm_mid")
    torchproxy.enable(scope={unique("tp_gm_scope")}, blocked={blocked})
    if form == "import":
        below = hook._original_import

        def switching(name, *args):
            torchproxy.enable(scope=None)  # another thread, at this point of the import
            return below(name, *args)

        proxy = hook._make_import(switching)
        got = proxy("torch", {"__name__": blocked}, None, ("nn",), 0)
        assert got is real_torch
    else:
        below = hook._original_import_module

        def switching(name, package=None):
            torchproxy.enable(scope=None)
            return below(name, package)

        proxy = hook._make_import_module(switching)
        g = {"__name__": blocked, "proxy": proxy}
        exec("got = proxy('torch.nn')", g)
        assert g["got"] is real_torch.nn
    assert torchproxy.status()["global"] and sys.modules["torch"] is facade()
    torchproxy.disable()
    assert sys.modules["torch"] is real_torch
