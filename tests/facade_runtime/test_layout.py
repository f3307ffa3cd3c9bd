"""torch's module layout (torchproxy/facade/layout.py, torch_layout.json): every path torch
documents is provided by the facade or listed in gaps.toml; the same object sits at all of a
torch object's paths; facade classes carry torch's __module__/__qualname__; the generated file
matches the installed torch; and the paths programs import work as under real torch."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

from difftest import check, load

from torchproxy import coverage
from torchproxy.facade import layout, modules


@pytest.fixture(scope="module")
def tree():
    return modules.build()


def test_every_documented_path_is_provided_or_a_gap(tree):
    st = layout.status(tree, coverage.load_gaps())
    neither = sorted(p for p, s in st.items() if s == "missing")
    assert not neither, (f"{len(neither)} torch paths are neither provided nor in gaps.toml "
                         f"(provide them or add a gap with the reason): {neither[:40]}")


def test_no_gap_names_a_path_the_layout_binds(tree):
    # a gap made stale by the layout (the same object became reachable at its path)
    gaps = coverage.load_gaps()
    bound = set(modules.LAYOUT_BOUND)
    stale = sorted(k for k in gaps if k in bound)
    assert not stale, f"gaps.toml lists paths the facade now provides: {stale}"


def test_generated_file_matches_installed_torch():
    pytest.importorskip("torch")
    import torch
    data = layout.load()
    if torch.__version__.split("+")[0] != data["torch"]:
        pytest.skip(f"torch_layout.json is for torch {data['torch']}, installed "
                    f"{torch.__version__}")
    # generated in a fresh interpreter, as the command does: what torch's modules expose
    # depends on which submodules were imported before (earlier tests in this process import
    # torch.amp.grad_scaler, torch._dynamo...)
    import json
    import subprocess
    import sys
    out = subprocess.run([sys.executable, "-c", "import json, sys\n"
                          "from torchproxy.facade import layout\n"
                          "json.dump(layout.generate(), sys.stdout)"],
                         capture_output=True, text=True, timeout=600)
    assert out.returncode == 0, out.stderr[-2000:]
    assert json.loads(out.stdout) == data, f"torch_layout.json is stale: run {layout.COMMAND}"


def test_bound_paths_hold_the_registered_object(tree):
    def at(path):
        parent, _, attr = path.rpartition(".")
        return vars(tree[parent])[attr]
    assert len(modules.LAYOUT_BOUND) > 500
    for path, source in modules.LAYOUT_BOUND.items():
        a, b = at(path), at(source)
        assert a is b or (a != a and b != b), (path, source)


def test_classes_carry_torch_names(tree):
    # the first path of each object that holds a class (Paddle 2.6 registers a few torch
    # aliases as objects of their own: torch.channel_shuffle vs F.channel_shuffle)
    import importlib
    importlib.import_module("torch")  # real torch (this module is not in scope)
    checked = renamed = 0
    mismatched = []
    for g in layout.load()["groups"]:
        objs = []
        for p in g["paths"]:
            parent, _, attr = p.rpartition(".")
            mod = tree.get(parent)
            if mod is not None and attr in vars(mod) and not isinstance(vars(mod)[attr], type(mod)):
                objs.append((p, vars(mod)[attr]))
        if len(objs) < 2:
            continue
        checked += 1
        first = objs[0][1]
        if "module" in g and isinstance(first, type) and not first.__module__.startswith("paddle"):
            real = importlib.import_module(g["module"])
            for part in g["qualname"].split("."):
                real = getattr(real, part)
            mismatched.append(((first.__module__, first.__qualname__),
                               (real.__module__, real.__qualname__)))
            renamed += 1
    assert [m for m in mismatched if m[0] != m[1]] == []
    assert checked > 250 and renamed > 100, (checked, renamed)


IMPORTS = '''
import torch
import torch.nn.modules.linear
import torch.onnx
from torch.nn.modules.loss import _Loss, _WeightedLoss, CrossEntropyLoss
from torch.nn.modules.batchnorm import BatchNorm1d, _BatchNorm
from torch.nn.modules.pooling import MaxPool2d
from torch.nn.modules.rnn import LSTM
from torch.nn.modules.sparse import Embedding
from torch.nn.modules.distance import CosineSimilarity
from torch.nn.modules import Linear
from torch.distributions.normal import Normal
from torch.utils.data._utils.collate import default_collate
from torch.autograd.grad_mode import no_grad
from torch.functional import split, norm, atleast_2d
from torch.autograd import Variable

names = [torch.nn.modules.linear.Linear, Linear, CrossEntropyLoss, BatchNorm1d, _BatchNorm,
         MaxPool2d, LSTM, Embedding, CosineSimilarity, Normal, default_collate, no_grad, _Loss,
         _WeightedLoss, torch.nn.Linear, torch.nn.functional.relu]

def f(x):
    class Hinge(_Loss):  # user subclasses derive from torch's private base
        def forward(self, a, b):
            return torch.clamp(1 - a * b, min=0).mean() if self.reduction == "mean" else a
    out = [Hinge()(x, x), Hinge(reduction="none")(x, x), split(x, 2)[0], norm(x),
           atleast_2d(x[0]).shape, default_collate([x, x]).shape]
    with no_grad():
        out.append(x * 2)
    v = Variable(x, requires_grad=True)
    out += [v.requires_grad, isinstance(x, Variable), torch.nan != torch.nan, torch.pi, torch.e,
            torch.inf, torch.newaxis]
    out += [f"{o.__module__}.{o.__qualname__}" for o in names]
    out.append(torch.sigmoid_(x.clone()))
    out.append(torch.clamp_(x.clone(), min=0.2))
    return out
'''


def test_torch_paths_import_and_behave_as_torch():
    check(IMPORTS, np.linspace(-1, 1, 6).astype("float32"))


def test_renamed_class_instances_pickle_in_scope():
    m = load('''
import pickle, torch
def f():
    flat = torch.nn.Flatten(start_dim=2)  # no parameters: Paddle 2.6 cannot pickle those
    back = pickle.loads(pickle.dumps(flat))
    return type(back) is torch.nn.Flatten, back.start_dim, torch.nn.Flatten.__module__
''', scoped=True)
    assert m.f() == (True, 2, "torch.nn.modules.flatten")


def test_import_a_shadowed_submodule():
    # torch.nn.utils.weight_norm: the function on the package, the module on import
    check('''
import torch
import torch.nn.utils.weight_norm
from torch.nn.utils.weight_norm import weight_norm as wn
def f():
    return callable(torch.nn.utils.weight_norm), wn is torch.nn.utils.weight_norm
''')


GRAD_SCALER = '''
import warnings, torch
def f(x, bad):
    out = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        cuda = torch.amp.GradScaler("cuda")
        legacy = torch.cuda.amp.GradScaler()
    out += [sorted({type(m.message).__name__ + ": " + str(m.message) for m in w}),
            cuda.is_enabled(), legacy.is_enabled(), cuda.get_scale(), cuda.state_dict()]
    lin = torch.nn.Linear(3, 1)
    with torch.no_grad():
        lin.weight.copy_(torch.tensor([[0.5, -1.0, 2.0]]))
        lin.bias.fill_(0.25)
    opt = torch.optim.SGD(lin.parameters(), lr=0.1)
    out.append(cuda.scale(lin(x).sum()))
    s = torch.amp.GradScaler("cpu", init_scale=4.0, growth_interval=2)
    out.append(s.is_enabled())
    for inp in (x, x, x * bad, x):
        opt.zero_grad()
        loss = lin(inp).sum()
        scaled = s.scale(loss)
        out += [scaled.shape, scaled]
        scaled.backward()
        s.step(opt)
        s.update()
        out += [s.get_scale(), lin.weight.detach().clone(), s.state_dict()["_growth_tracker"]]
    return out
'''


def test_grad_scaler_matches_torch_on_cpu():
    x = np.arange(6, dtype="float32").reshape(2, 3) / 4
    check(GRAD_SCALER, x, np.array([1.0, np.inf, 1.0], "float32"))
