"""Issue 19, items 13-15, 17, 18: who the importer is, decided alike by the import hook and the
Tensor-method dispatcher, whatever the caller's globals look like; and the per-name caches
stay bounded."""
from __future__ import annotations

import sys
import types

import paddle
import pytest
import torch as real_torch  # the oracle is installed in the test environment

import torchproxy
from torchproxy import scope as tp_scope
from torchproxy.facade import modules as facade_modules
from helpers import unique


def facade(name="torch"):
    return facade_modules.build()[name]


@pytest.fixture
def clean():
    torchproxy.disable()
    yield
    torchproxy.disable()


def _run(src, globals_):
    exec(compile(src, "<tp-identity>", "exec"), globals_)
    return globals_


# -- item 13: an explicit __import__ call is Python-level, whatever its fromlist ----------------
def test_explicit_dunder_import_calls_in_a_scoped_module_get_the_facade(clean):
    name = unique("tp_id_dunder")
    torchproxy.enable(scope={name})
    g = _run("a = __import__('torch')\n"
             "b = __import__('torch.nn.functional', globals(), locals(), [], 0)\n"
             "c = __import__('torch', globals(), locals(), [], 0)\n"
             "d = __import__('torch.nn', globals(), locals(), ['functional'], 0)\n"
             "def in_function():\n"
             "    return __import__('torch', globals(), locals(), [], 0)\n"
             "e = in_function()\n", {"__name__": f"{name}.mod"})
    # as real __import__: an empty fromlist returns the top package, a fromlist the module
    assert g["a"] is facade() and g["b"] is facade() and g["c"] is facade()
    assert g["e"] is facade()
    assert g["d"] is facade("torch.nn")
    # the same calls from an unscoped module: real torch, as without torchproxy
    g = _run("a = __import__('torch')\n"
             "b = __import__('torch.nn.functional', globals(), locals(), [], 0)\n",
             {"__name__": unique("tp_id_other")})
    assert g["a"] is real_torch and g["b"] is real_torch


def test_a_c_level_import_from_scope_is_still_refused(clean):
    # the C caller (PyImport_ImportModule through ctypes) names no __import__ in its code
    name = unique("tp_id_c")
    torchproxy.enable(scope={name})
    g = {"__name__": name}
    _run("import ctypes\n"
         "f = ctypes.pythonapi.PyImport_ImportModule\n"
         "f.restype = ctypes.py_object\n"
         "f.argtypes = [ctypes.c_char_p]\n"
         "def via_c():\n"
         "    return f(b'torch')\n", g)
    with pytest.raises(torchproxy.ScopedCImportError):
        g["via_c"]()


# -- item 14: dict-subclass globals --------------------------------------------------------------
class _Globals(dict):
    pass


def test_dict_subclass_globals_decide_alike_for_import_and_tensor_methods(clean):
    name = unique("tp_id_sub")
    torchproxy.enable(scope={name})
    g = _Globals(__name__=f"{name}.x", x=paddle.ones([2, 3]))
    _run("import torch\nn = x.numel()\n", g)
    assert g["torch"] is facade()
    assert g["n"] == 6 and type(g["n"]) is int  # torch semantics, as the import
    g = _Globals(__name__=unique("tp_id_sub_other"), x=paddle.ones([2, 3]))
    _run("import torch\nn = x.numel()\n", g)
    assert g["torch"] is real_torch
    assert isinstance(g["n"], paddle.Tensor)  # Paddle's own numel


# -- item 15: a str subclass must not poison the decision cache ----------------------------------
def _colliding_name(scoped: str, text: str):
    class Colliding(str):
        def __hash__(self):
            return hash(scoped)

        def __eq__(self, other):
            return True

        __ne__ = lambda self, other: False  # noqa: E731

    return Colliding(text)


def test_a_colliding_str_subclass_name_does_not_change_the_scoped_modules_answer(clean):
    scoped, other = unique("tp_id_pois"), unique("tp_id_pois_other")
    torchproxy.enable(scope={scoped})
    evil = _colliding_name(scoped, other)
    x = paddle.ones([2, 3])
    g = _run("import torch\nn = x.numel()\n", {"__name__": evil, "x": x})
    # decided by its text, an unscoped name
    assert g["torch"] is real_torch and isinstance(g["n"], paddle.Tensor)
    # the genuinely scoped module still gets the facade, from the import and the dispatcher
    g = _run("import torch\nn = x.numel()\n", {"__name__": scoped, "x": x})
    assert g["torch"] is facade() and g["n"] == 6
    assert tp_scope.STATE.wants_facade(scoped) is True
    assert all(type(k) is str for k in tp_scope.STATE.snapshot[4])
    assert all(type(u) is str for u in tp_scope.STATE.facade_users)
    # a str subclass with the scoped text is that module
    same = _colliding_name(other, scoped)
    assert _run("import torch\n", {"__name__": same})["torch"] is facade()


# -- item 17: bounded caches --------------------------------------------------------------------
def test_decision_cache_and_facade_users_stay_bounded(clean):
    prefix = unique("tp_id_many")
    torchproxy.enable(scope={prefix})
    code = compile("import torch\nn = x.numel()\n", "<tp-many>", "exec")
    x = paddle.ones([1])
    count = tp_scope.MAX_CACHED_NAMES + tp_scope.MAX_FACADE_USERS + 500
    for i in range(count):
        exec(code, {"__name__": f"{prefix}.m{i}", "x": x})      # scoped: facade users
        exec(code, {"__name__": f"{prefix}_other.m{i}", "x": x})  # unscoped
    assert len(tp_scope.STATE.snapshot[4]) <= tp_scope.MAX_CACHED_NAMES
    assert len(tp_scope.STATE.facade_users) == tp_scope.MAX_FACADE_USERS
    # decisions after the caches filled are still right
    g = {"__name__": f"{prefix}.late", "x": x}
    exec(code, g)
    assert g["torch"] is facade() and g["n"] == 1
    g = {"__name__": f"{prefix}_other.late", "x": x}
    exec(code, g)
    assert g["torch"] is real_torch


# -- item 18: trace() from code whose __name__ is None -------------------------------------------
def test_trace_in_global_mode_from_a_nameless_module(clean):
    torchproxy.enable(scope=None)
    g = {"__name__": None, "x": paddle.ones([2, 3])}
    with torchproxy.trace() as t:
        _run("import torch\nn = x.numel()\nz = torch.zeros(2)\n", g)
    assert g["n"] == 6 and tuple(g["z"].shape) == (2,)
    assert {"torch.Tensor.numel", "torch.zeros"} <= set(t.used)
    assert all(site.startswith("<tp-identity>:") for site in t.used["torch.zeros"])


def test_status_with_a_nameless_facade_user_in_global_mode(clean):
    torchproxy.enable(scope=None)
    _run("import torch\n", {"__name__": None})
    assert None not in tp_scope.STATE.facade_users
    assert isinstance(torchproxy.status()["facade_users"], list)
