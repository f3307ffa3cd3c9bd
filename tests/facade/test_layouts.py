"""torch's layouts: every one torch names exists in the facade (code compares against them and
passes them), but only torch.strided makes tensors: a sparse layout given to a creation
function is refused by name, never silently made dense."""
from __future__ import annotations

import ast
import os

import pytest
import torch as real_torch

import torchproxy
from difftest import load

LAYOUTS = ["strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr", "sparse_bsc",
           "_mkldnn", "jagged"]


@pytest.mark.parametrize("name", LAYOUTS)
def test_every_torch_layout_exists_with_torchs_repr_and_identity(name):
    src = f"""
import torch
def f():
    l = getattr(torch, {name!r})
    return repr(l), str(l), isinstance(l, torch.layout), l == torch.strided, l is getattr(torch, {name!r})
"""
    assert load(src, scoped=True).f() == load(src, scoped=False).f()


CALLS = ["torch.zeros(2, 3, layout=torch.sparse_coo)", "torch.empty(4, layout=torch.sparse_csr)",
         "torch.ones(2, layout=torch.sparse_coo)", "torch.full((2,), 1.0, layout=torch.sparse_coo)",
         "torch.zeros_like(torch.ones(2), layout=torch.sparse_coo)",
         "torch.eye(3, layout=torch.sparse_coo)", "torch.randn(2, layout=torch.sparse_coo)",
         "torch.ones(2).new_zeros(2, layout=torch.sparse_coo)"]


@pytest.mark.parametrize("call", CALLS)
def test_sparse_layouts_are_refused_by_name_never_made_dense(call):
    # torch makes a sparse tensor (zeros, zeros_like, new_zeros) or raises (its CPU build has
    # no sparse kernel for the others); the facade names what it does not provide
    src = f"import torch\ndef f():\n    return {call}\n"
    try:
        made = load(src, scoped=False).f()
    except (RuntimeError, NotImplementedError):
        pass
    else:
        assert isinstance(made, real_torch.Tensor) and made.layout != real_torch.strided
    with pytest.raises(torchproxy.NotProvidedError, match=r"\(layout=torch\.sparse_c"):
        load(src, scoped=True).f()


def test_strided_and_none_make_dense_tensors():
    src = "import torch\ndef f():\n    return torch.zeros(2, layout=torch.strided).tolist(), " \
          "torch.zeros(2, layout=None).tolist()\n"
    assert load(src, scoped=True).f() == load(src, scoped=False).f()


def test_a_layout_that_is_not_a_layout_is_a_type_error_as_in_torch():
    src = "import torch\ndef f():\n    return torch.zeros(2, layout='strided')\n"
    with pytest.raises(TypeError) as real:
        load(src, scoped=False).f()
    with pytest.raises(TypeError, match="argument 'layout' must be torch.layout, not str") as got:
        load(src, scoped=True).f()
    assert "must be torch.layout, not str" in str(real.value)


def test_every_facade_function_taking_layout_checks_it():
    # a new creation function with a `layout=` parameter must refuse sparse layouts too
    # (signal.windows check theirs with torch's own ValueError)
    root = os.path.join(os.path.dirname(torchproxy.__file__), "facade")
    unchecked = []
    for name in sorted(os.listdir(root)):
        if not name.endswith(".py") or name == "signal.py":
            continue
        tree = ast.parse(open(os.path.join(root, name)).read())
        for fn in ast.walk(tree):
            if isinstance(fn, ast.FunctionDef) and any(
                    a.arg == "layout" for a in fn.args.args + fn.args.kwonlyargs):
                calls = {c.func.id for c in ast.walk(fn)
                         if isinstance(c, ast.Call) and isinstance(c.func, ast.Name)}
                if "require_strided" not in calls:
                    unchecked.append(f"{name}:{fn.name}")
    assert unchecked == []
