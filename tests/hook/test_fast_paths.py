"""The hook's fast paths keep the slow paths' semantics (issue 12, "Speed").

- guards: layers are interned per arguments and transitions remembered per snapshot, so a
  guard in and out publishes the same two snapshots again and again;
- the C dispatcher is *told* every new snapshot (scope.STATE.assign is _cdispatch.publish), so
  its per-globals table and decision cache follow every change on every Python version;
- unrelated imports go through _cdispatch.ImportFilter straight to the original __import__.
"""
from __future__ import annotations

import builtins
import sys
import types

import paddle
import pytest
import torch as real_torch  # noqa: F401  (the oracle is installed in the test environment)

import torchproxy
from torchproxy import hook
from torchproxy import scope as tp_scope
from torchproxy.errors import ProxyConflictError
from torchproxy.facade import dispatch


@pytest.fixture
def clean():
    torchproxy.disable()
    yield
    torchproxy.disable()


def _module(name, src):
    mod = types.ModuleType(name)
    exec(compile(src, f"<{name}>", "exec"), mod.__dict__)
    return mod


# -- guards ------------------------------------------------------------------------------------
def test_a_guard_in_and_out_reuses_its_snapshots(clean):
    torchproxy.enable(scope={"tp_fp_base"})
    outside = tp_scope.STATE.snapshot
    seen = set()
    for _ in range(3):
        with torchproxy.guard(scope="tp_fp_g"):
            inside = tp_scope.STATE.snapshot
            seen.add(id(inside))
            assert inside[2] == {"tp_fp_base", "tp_fp_g"}
        assert tp_scope.STATE.snapshot is outside
    assert len(seen) == 1


def test_nested_equal_guards_and_out_of_order_exits(clean):
    g1, g2 = torchproxy.guard(scope="tp_fp_a"), torchproxy.guard(scope="tp_fp_a")
    g3 = torchproxy.guard(scope="tp_fp_b")
    g1.__enter__()
    g2.__enter__()
    g3.__enter__()
    assert torchproxy.status()["guards"] == 3
    g1.__exit__(None, None, None)  # out of order: the rules are those of g2 + g3
    st = torchproxy.status()
    assert st["guards"] == 2 and st["scope"] == ["tp_fp_a", "tp_fp_b"]
    g3.__exit__(None, None, None)
    assert torchproxy.status()["scope"] == ["tp_fp_a"]
    g2.__exit__(None, None, None)
    st = torchproxy.status()
    assert st["guards"] == 0 and st["enabled"] is False


def test_enable_inside_a_guard_then_leaving_it(clean):
    with torchproxy.guard(scope="tp_fp_g"):
        torchproxy.enable(scope={"tp_fp_e"})
    st = torchproxy.status()
    assert st["enabled"] and st["scope"] == ["tp_fp_e"] and st["guards"] == 0


def test_guard_arguments_are_still_checked_after_the_layer_cache(clean):
    with torchproxy.guard(scope="tp_fp_chk"):
        pass
    with pytest.raises(TypeError, match="enable must be True or False"):
        torchproxy.guard(scope="tp_fp_chk", enable=1)
    with pytest.raises(TypeError):
        torchproxy.guard(scope=123)
    with pytest.raises(ValueError, match="refused"):
        torchproxy.guard(scope="torch")
    # unhashable arguments take the slow path and work
    with torchproxy.guard(scope={"tp_fp_set"}, blocked={"tp_fp_blk"}):
        st = torchproxy.status()
        assert st["scope"] == ["tp_fp_set"] and "tp_fp_blk" in st["blocked"]
    with torchproxy.guard(scope="tp_fp_chk", enable=False):
        assert torchproxy.status()["enabled"] is False


def test_paddle_proxy_finder_added_after_a_checked_guard_is_still_refused(clean):
    with torchproxy.guard(scope="tp_fp_pp"):
        pass
    TorchProxyMetaFinder = type("TorchProxyMetaFinder", (), {
        "find_spec": staticmethod(lambda *a, **k: None)})
    finder = TorchProxyMetaFinder()
    sys.meta_path.insert(0, finder)
    try:
        with pytest.raises(ProxyConflictError):
            with torchproxy.guard(scope="tp_fp_pp"):
                pass
        assert torchproxy.status()["guards"] == 0
    finally:
        sys.meta_path.remove(finder)
    with torchproxy.guard(scope="tp_fp_pp"):
        assert torchproxy.status()["guards"] == 1


def test_disable_clears_facade_users_also_from_the_initial_rules(clean):
    m = _module("tp_fp_users", "def f():\n    import torch\n    return torch\n")
    with torchproxy.guard(scope="tp_fp_users"):
        assert torchproxy.is_facade(m.f())
    assert tp_scope.STATE.snapshot is tp_scope.STATE.initial()
    assert "tp_fp_users" in tp_scope.STATE.facade_users
    torchproxy.disable()
    assert not tp_scope.STATE.facade_users


# -- the C dispatcher follows every published snapshot -------------------------------------------
@pytest.mark.parametrize("backend", ["c", "python"])
def test_the_dispatcher_follows_every_change(clean, backend):
    if backend == "c" and not dispatch.c_available():
        pytest.skip(dispatch.c_error())
    old = dispatch.backend()
    dispatch.set_backend(backend)
    try:
        m = _module("tp_fp_disp", "def n(x):\n    return x.numel()\n")
        other = _module("tp_fp_other", "def n(x):\n    return x.numel()\n")
        x = paddle.ones([2, 3])

        def torch_answer(mod):
            return type(mod.n(x)) is int

        torchproxy.enable(scope={"tp_fp_elsewhere"})  # installs the dispatchers, m unscoped
        for i in range(50):
            # a decision made and cached (per globals dict) under one set of rules ...
            assert not torch_answer(m)
            with torchproxy.guard(scope="tp_fp_disp"):
                assert torch_answer(m), i  # ... never survives a change of the rules
                assert not torch_answer(other)
                with torchproxy.guard(enable=False):
                    assert not torch_answer(m)
                assert torch_answer(m)
            assert not torch_answer(m)
            # a module's __name__ changed under the same globals dict
            m.__dict__["__name__"] = "tp_fp_elsewhere"
            assert torch_answer(m)
            m.__dict__["__name__"] = "tp_fp_disp"
        torchproxy.disable()
        assert not hasattr(x.numel(), "__index__") or isinstance(x.numel(), paddle.Tensor)
    finally:
        torchproxy.disable()
        dispatch.set_backend(old)


def test_rules_are_published_through_one_call(clean):
    if dispatch.c_available():
        assert tp_scope.STATE.assign is dispatch._C.publish
    torchproxy.enable(scope={"tp_fp_pub"})
    snap = tp_scope.STATE.snapshot
    assert type(snap) is tp_scope.Snapshot
    assert snap.active and not snap.global_mode and snap.scope == {"tp_fp_pub"}
    with torchproxy.guard(scope="tp_fp_pub2"):
        inner = tp_scope.STATE.snapshot
        assert inner.parent == (inner.guards[-1], snap) and inner.scope == {"tp_fp_pub",
                                                                            "tp_fp_pub2"}
    if dispatch.c_available():
        # the C file reads the decision cache by a position it defines once; dispatch.py
        # refuses a build whose position differs from the NamedTuple's
        assert dispatch._C.SNAPSHOT_CACHE_INDEX == tp_scope.CACHE_INDEX
        assert snap[dispatch._C.SNAPSHOT_CACHE_INDEX] is snap.cache
        with pytest.raises(TypeError, match="decision cache"):
            dispatch._C.publish(("not", "a", "snapshot"))
        assert tp_scope.STATE.snapshot is snap


# -- the import filter ---------------------------------------------------------------------------
def test_import_filter_routes_torch_names_to_the_hook_and_the_rest_to_the_original():
    if not dispatch.c_available():
        pytest.skip(dispatch.c_error())
    calls = []

    def fake_hook(*args, **kwargs):
        calls.append(("hook", args[0] if args else kwargs.get("name")))
        return "hook"

    def fake_original(*args, **kwargs):
        calls.append(("original", args[0] if args else kwargs.get("name")))
        return "original"

    f = dispatch._C.ImportFilter(fake_hook, fake_original, {"tp_companion": "pkg"})
    expect = {
        "torch": "hook", "torch.nn": "hook", "torch.nn.functional": "hook",
        "torch.\u4e2d": "hook", "tp_companion": "hook",
        "json": "original", "torchvision": "original", "torch_geometric": "original",
        "torc": "original", "": "original", "xtorch": "original", "torch\u00e9": "original",
        "tp_companion.sub": "original", "t\u00f6rch": "original",
    }
    for name, where in expect.items():
        assert f(name, None, None, (), 0) == where, name
    assert f(name="torch") == "hook"  # by keyword: the hook sorts it out
    assert f(b"torch") == "original"  # not a str: the original raises its own error
    assert calls[-1] == ("original", b"torch")


def test_installed_entry_point_and_disable(clean):
    before = builtins.__import__
    torchproxy.enable(scope={"tp_fp_entry"})
    assert builtins.__import__ is hook.entry()
    if dispatch.c_available():
        assert type(builtins.__import__) is dispatch._C.ImportFilter
        assert builtins.__import__.hook is hook._proxy_import
        assert builtins.__import__.original is before
    else:
        assert builtins.__import__ is hook._proxy_import
    m = _module("tp_fp_entry", "def f():\n    import torch, json\n    return torch, json\n")
    t, j = m.f()
    assert torchproxy.is_facade(t) and j is sys.modules["json"]
    torchproxy.disable()
    assert builtins.__import__ is before


def test_no_module_reads_the_snapshot_by_position():
    # the rules are a NamedTuple so that readers name fields; a new `snapshot[5]` (or `snap[5]`)
    # anywhere in the package would bring back the positional reads this replaced
    import os
    import re
    root = os.path.dirname(torchproxy.__file__)
    found = []
    for folder, _dirs, files in os.walk(root):
        for name in files:
            if name.endswith(".py"):
                path = os.path.join(folder, name)
                with open(path) as f:
                    for no, line in enumerate(f, 1):
                        if re.search(r"\bsnap(shot)?\[\d", line):
                            found.append(f"{os.path.relpath(path, root)}:{no}")
    assert found == []
