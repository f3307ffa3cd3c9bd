"""Issue 19, item 12: other import hooks installed before and after ours (wrapping __import__,
importlib.import_module, importlib.util.find_spec, or a sys.meta_path finder), in any order
of enable/disable and of their own install/uninstall."""
from __future__ import annotations

import builtins
import importlib
import importlib.util
import itertools
import json
import sys

import pytest
import torch as real_torch  # the oracle is installed in the test environment

import torchproxy
from torchproxy.facade import modules as facade_modules
from helpers import unique

# the interpreter's own hooks, read in clean() after torchproxy.disable(): read at import, they
# were torchproxy's own wrappers whenever an earlier test module had enabled it at collection
# (the whole suite in one process), and clean() then re-installed those after every test
_ORIGINALS = None


def _tops():
    return builtins.__import__, importlib.import_module, importlib.util.find_spec


def facade(name="torch"):
    return facade_modules.build()[name]


class ForeignHook:
    """What typeguard-style tools do: wrap the three entry points (each wrapper calls what it
    found) and count the calls; uninstall puts back what it found if it is still on top."""

    def __init__(self):
        self.calls = 0
        self.found = None
        self.wrappers = None

    def install(self):
        found = (builtins.__import__, importlib.import_module, importlib.util.find_spec)
        orig_import, orig_import_module, orig_find_spec = found

        def wrapped_import(name, globals=None, locals=None, fromlist=(), level=0):
            self.calls += 1
            return orig_import(name, globals, locals, fromlist, level)

        def wrapped_import_module(name, package=None):
            self.calls += 1
            return orig_import_module(name, package)

        def wrapped_find_spec(name, package=None):
            self.calls += 1
            return orig_find_spec(name, package)

        self.found = found
        self.wrappers = (wrapped_import, wrapped_import_module, wrapped_find_spec)
        builtins.__import__, importlib.import_module, importlib.util.find_spec = self.wrappers

    def uninstall(self):
        targets = ((builtins, "__import__"), (importlib, "import_module"),
                   (importlib.util, "find_spec"))
        for (owner, attr), mine, theirs in zip(targets, self.wrappers, self.found):
            if getattr(owner, attr) is mine:
                setattr(owner, attr, theirs)


class ForeignFinder:
    """A sys.meta_path finder that only watches (as assertion rewriters and claw hooks do
    before they decide to act)."""

    def __init__(self):
        self.names = []

    def find_spec(self, name, path=None, target=None):
        self.names.append(name)
        return None


@pytest.fixture
def clean():
    global _ORIGINALS
    torchproxy.disable()
    if _ORIGINALS is None:
        _ORIGINALS = _tops()
    yield
    torchproxy.disable()
    builtins.__import__, importlib.import_module, importlib.util.find_spec = _ORIGINALS


def _check_imports(scoped, enabled):
    """Everything the issue saw break: unrelated imports, find_spec, unscoped and scoped torch."""
    assert importlib.import_module("json") is json
    assert importlib.util.find_spec("json").name == "json"
    g = {"__name__": unique("tp_fh_plain")}
    exec("import torch\nimport json\nimport importlib\nm = importlib.import_module('torch')\n", g)
    assert g["torch"] is real_torch and g["json"] is json and g["m"] is real_torch
    g = {"__name__": scoped}
    exec("import torch\nimport importlib, importlib.util\n"
         "m = importlib.import_module('torch.nn')\ns = importlib.util.find_spec('torch')\n", g)
    if enabled:
        assert g["torch"] is facade() and g["m"] is facade("torch.nn")
        assert g["s"].origin == "torchproxy facade"
    else:
        assert g["torch"] is real_torch and g["m"] is real_torch.nn
        assert g["s"].origin == real_torch.__spec__.origin


def test_foreign_hook_after_enable_then_disable_enable(clean):
    """The issue's reproducer: RecursionError from then on."""
    scoped = unique("tp_fh_scoped")
    torchproxy.enable(scope={scoped})
    foreign = ForeignHook()
    foreign.install()
    torchproxy.disable()
    _check_imports(scoped, enabled=False)
    torchproxy.enable(scope={scoped})
    _check_imports(scoped, enabled=True)
    assert foreign.calls > 0
    torchproxy.disable()
    _check_imports(scoped, enabled=False)
    foreign.uninstall()
    torchproxy.enable(scope={scoped})
    _check_imports(scoped, enabled=True)
    torchproxy.disable()
    _check_imports(scoped, enabled=False)
    # the foreign hook put back what it found (ours, inert); ours then restores the originals
    torchproxy.enable(scope={scoped})
    torchproxy.disable()
    assert (builtins.__import__, importlib.import_module, importlib.util.find_spec) == _ORIGINALS


# Every order of: our enable/disable and two foreign hooks' install/uninstall (one hook is
# installed before our first enable, one after), each step followed by the full check.
_STEPS = ("enable", "disable", "a_install", "a_uninstall", "b_install", "b_uninstall")


def _orders():
    # enable before disable, each foreign install before its uninstall: 90 orders, 30 taken
    # (every third) to keep the test short while covering each relative position
    valid = [p for p in itertools.permutations(_STEPS)
             if p.index("enable") < p.index("disable")
             and p.index("a_install") < p.index("a_uninstall")
             and p.index("b_install") < p.index("b_uninstall")]
    return valid[::3]


@pytest.mark.parametrize("order", _orders(), ids=lambda p: "-".join(s[:3] for s in p))
def test_any_order_of_foreign_hooks_and_enable_disable(clean, order):
    scoped = unique("tp_fh_any")
    hooks = {"a": ForeignHook(), "b": ForeignHook()}
    finder = ForeignFinder()
    sys.meta_path.insert(0, finder)
    enabled = False
    try:
        for round_ in range(2):  # twice: re-enabling over what the first round left
            for step in order:
                if step == "enable":
                    torchproxy.enable(scope={scoped})
                    enabled = True
                elif step == "disable":
                    torchproxy.disable()
                    enabled = False
                else:
                    who, action = step.split("_")
                    getattr(hooks[who], action)()
                _check_imports(scoped, enabled)
    finally:
        sys.meta_path.remove(finder)
    assert all(h.calls > 0 for h in hooks.values())
    # after disable() none of ours is on top: what is there is an original, or a foreign
    # wrapper that could not uninstall (another hook was on top of it when it tried)
    torchproxy.enable(scope={scoped})
    torchproxy.disable()
    foreign = {w for h in hooks.values() for w in h.wrappers}
    tops = (builtins.__import__, importlib.import_module, importlib.util.find_spec)
    assert all(top is orig or top in foreign for top, orig in zip(tops, _ORIGINALS)), tops
    _check_imports(scoped, enabled=False)


def test_meta_path_finder_before_and_after_enable(clean):
    scoped = unique("tp_fh_finder")
    before = ForeignFinder()
    sys.meta_path.insert(0, before)
    try:
        torchproxy.enable(scope={scoped})
        after = ForeignFinder()
        sys.meta_path.insert(0, after)
        try:
            _check_imports(scoped, enabled=True)
            missing = unique("tp_fh_missing_module")
            assert importlib.util.find_spec(missing) is None
            assert missing in before.names and missing in after.names
            torchproxy.disable()
            _check_imports(scoped, enabled=False)
            torchproxy.enable(scope={scoped})
            _check_imports(scoped, enabled=True)
        finally:
            sys.meta_path.remove(after)
    finally:
        sys.meta_path.remove(before)
