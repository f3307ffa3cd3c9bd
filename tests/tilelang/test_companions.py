"""scope.COMPANIONS without TileLang: a stand-in `tilelang_cython_wrapper` whose `import torch`
bypasses builtins.__import__ (as Cython's PyImport_ImportModuleLevelObject does) is in scope
with "tilelang", and the hook rebinds its `torch` global to the facade once it has loaded.
Where real TileLang is installed, test_tilelang_kernels.py checks the real launcher instead."""
import importlib.util
import sys

import pytest

_spec = importlib.util.find_spec("tilelang")
if _spec is not None and _spec.origin not in (None, "namespace"):
    pytest.skip("real TileLang installed: its launcher is tested in test_tilelang_kernels.py",
                allow_module_level=True)
if importlib.util.find_spec("torch") is None:
    pytest.skip("needs real torch for the stand-in to import", allow_module_level=True)

import torchproxy  # noqa: E402
from torchproxy.facade.modules import FacadeModule  # noqa: E402

_STANDIN = '''
import importlib._bootstrap
# the C-level import path: no builtins.__import__, so no scope decision is made here
torch = importlib._bootstrap._gcd_import("torch")
def torch_seen():
    return torch
'''


def test_companion_scope_and_torch_rebinding(tmp_path, monkeypatch):
    (tmp_path / "tilelang_cython_wrapper.py").write_text(_STANDIN)
    monkeypatch.syspath_prepend(str(tmp_path))
    sys.modules.pop("tilelang_cython_wrapper", None)
    try:
        with torchproxy.guard(scope={"tilelang"}):
            assert "tilelang_cython_wrapper" in torchproxy.status()["scope"]
            ns = {"__name__": "tilelang.jit.adapter.cython.adapter"}
            exec("from tilelang_cython_wrapper import torch_seen", ns)
            seen = ns["torch_seen"]()
            assert isinstance(seen, FacadeModule)
            assert not isinstance(sys.modules["torch"], FacadeModule)  # nobody else affected
        # out of scope, the same import statement gives the module as it is, untouched
        sys.modules.pop("tilelang_cython_wrapper", None)
        ns = {"__name__": "someone_else"}
        exec("from tilelang_cython_wrapper import torch_seen", ns)
        assert not isinstance(ns["torch_seen"](), FacadeModule)
    finally:
        sys.modules.pop("tilelang_cython_wrapper", None)
        # on_import's probe for TileLang may have imported tests/tilelang as a namespace
        # package named "tilelang": do not leave it behind
        for name in [n for n in sys.modules if n == "tilelang" or n.startswith("tilelang.")]:
            if getattr(sys.modules[name], "__file__", None) is None:
                sys.modules.pop(name)
