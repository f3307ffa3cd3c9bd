"""enable()/disable() add and remove torchproxy's one sys.meta_path entry (Triton's driver
watcher, integrations/triton_messages.py) while other threads may be inside an import.

importlib iterates sys.meta_path by index (``for finder in sys.meta_path``), so removing an
entry in place while another thread's import has passed it shifts the next finder under that
thread's iterator: the finder is skipped.  A finder that hides real torch (raising
ModuleNotFoundError, as a Paddle-only process's does) could be skipped that way, and real torch
loaded for an unscoped importer (the stress run's "plain.lazy: got <module 'torch'>").  The
list is therefore never changed in place: a new one replaces it, so an import in flight keeps
iterating the list it started with.  These tests force the interleaving: the other thread's
enable()/disable() runs inside a finder of the import."""
from __future__ import annotations

import importlib
import sys

import pytest

import torchproxy
from torchproxy.integrations import triton_messages

from helpers import unique, write_pkg


@pytest.fixture
def hidden(tmp_path, monkeypatch):
    """A module on sys.path and a finder at the front of sys.meta_path that hides it."""
    # enable() puts the watcher on sys.meta_path while Triton's driver module is not loaded
    # (an earlier test may have loaded it: set aside for this test, put back after)
    monkeypatch.delitem(sys.modules, triton_messages.DRIVER_MODULE, raising=False)
    name = unique("tp_hidden")
    write_pkg(tmp_path, name, {})
    monkeypatch.syspath_prepend(str(tmp_path))

    class Hide:
        calls = 0
        on_call = None
        hides = True

        def find_spec(self, fullname, path=None, target=None):
            if fullname != name:
                return None
            Hide.calls += 1
            if Hide.on_call is not None:
                on_call, Hide.on_call = Hide.on_call, None
                on_call()
            if not Hide.hides:
                return None
            raise ModuleNotFoundError(f"No module named {fullname!r}", name=fullname)

    hide = Hide()
    torchproxy.disable()
    sys.meta_path.insert(0, hide)
    try:
        yield name, Hide
    finally:
        torchproxy.disable()
        triton_messages._watcher.__dict__.pop("find_spec", None)
        sys.meta_path[:] = [f for f in sys.meta_path if f is not hide]
        sys.modules.pop(name, None)


def test_disable_inside_an_import_skips_no_finder(hidden):
    name, Hide = hidden
    torchproxy.enable(scope="tp_unrelated_scope")
    watcher = triton_messages._watcher
    assert sys.meta_path[0] is watcher and type(sys.meta_path[1]) is Hide
    seen = []

    def find_spec(fullname, path=None, target=None):
        # the import has reached the watcher (index 0) when another thread's disable() runs
        if fullname == name and not seen:
            seen.append(fullname)
            torchproxy.disable()
        return type(watcher).find_spec(watcher, fullname, path, target)

    watcher.find_spec = find_spec
    with pytest.raises(ModuleNotFoundError):
        importlib.import_module(name)
    assert seen == [name] and Hide.calls == 1
    assert watcher not in sys.meta_path and name not in sys.modules


def test_enable_inside_an_import_repeats_no_finder(hidden):
    name, Hide = hidden
    # the import has reached the first finder (index 0, here one that only counts) when another
    # thread's enable() runs: the import goes on to the next finder, not the same one again
    Hide.hides = False
    Hide.on_call = lambda: torchproxy.enable(scope="tp_unrelated_scope")
    assert importlib.import_module(name).__name__ == name
    assert Hide.calls == 1 and sys.meta_path[0] is triton_messages._watcher
    torchproxy.disable()
    assert triton_messages._watcher not in sys.meta_path


def test_meta_path_edits_keep_foreign_finders(hidden):
    # a new list each time, with every other finder in its place
    before = list(sys.meta_path)
    torchproxy.enable(scope="tp_unrelated_scope")
    assert sys.meta_path == [triton_messages._watcher] + before
    torchproxy.enable(scope="tp_unrelated_scope2")
    assert sys.meta_path == [triton_messages._watcher] + before
    torchproxy.disable()
    assert sys.meta_path == before
