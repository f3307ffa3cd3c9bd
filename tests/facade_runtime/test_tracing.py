"""torchproxy.trace(): the torch names scoped code uses and misses, with call sites."""
import numpy as np
import paddle
import pytest

import torchproxy
from difftest import load
from torchproxy.errors import ModuleNotProvidedError, NameNotProvidedImportError, NotProvidedError

SRC = """
import torch
import torch.nn.functional as F

def uses(x):
    ok = torch.cuda.is_available()                 # line 6
    y = F.softmax(x, dim=-1)                       # line 7
    n = y.numel()                                  # line 8
    s = y.size(0)                                  # line 9
    return ok, n, s

def misses():
    return torch.definitely_not_a_torch_name       # line 13

def imports_missing():
    import torch.not_a_submodule                   # line 16

def from_missing():
    from torch.nn import NotAThing                 # line 19
"""


@pytest.fixture(scope="module")
def mod():
    return load(SRC, scoped=True)


def _sites(t, kind, name):
    return getattr(t, kind)[name]


def test_used_names_with_call_sites(mod):
    x = paddle.to_tensor(np.ones((2, 3), "float32"))
    with torchproxy.trace() as t:
        ok, n, s = mod.uses(x)
    assert (ok, n, s) == (False, 6, 2)  # torch semantics inside the trace too
    f = mod.__file__
    assert _sites(t, "used", "torch.cuda.is_available") == {f"{f}:6"}
    assert _sites(t, "used", "torch.nn.functional.softmax") == {f"{f}:7"}
    assert _sites(t, "used", "torch.Tensor.numel") == {f"{f}:8"}
    assert _sites(t, "used", "torch.Tensor.size") == {f"{f}:9"}
    assert "torch.cuda" in t.used  # the module attribute read of `torch.cuda`
    assert t.missing == {}


def test_missing_attribute_import_and_from_import(mod):
    f = mod.__file__
    with torchproxy.trace() as t:
        with pytest.raises(NotProvidedError, match="torch.definitely_not_a_torch_name"):
            mod.misses()
        with pytest.raises(ModuleNotProvidedError, match="torch.not_a_submodule"):
            mod.imports_missing()
        with pytest.raises(NameNotProvidedImportError, match="torch.nn.NotAThing"):
            mod.from_missing()
    assert _sites(t, "missing", "torch.definitely_not_a_torch_name") == {f"{f}:13"}
    assert _sites(t, "missing", "torch.not_a_submodule") == {f"{f}:16"}
    assert f"{f}:19" in _sites(t, "missing", "torch.nn.NotAThing")
    summary = t.summary()
    assert "torch.definitely_not_a_torch_name" in summary["missing"]
    assert summary["used"] == sorted(t.used)


def test_nested_traces_both_record_and_outside_records_nothing(mod):
    x = paddle.to_tensor(np.ones((2, 3), "float32"))
    with torchproxy.trace() as outer:
        with torchproxy.trace() as inner:
            mod.uses(x)
        with pytest.raises(NotProvidedError):
            mod.misses()                         # after inner ended: outer only
    assert "torch.Tensor.numel" in inner.used and "torch.Tensor.numel" in outer.used
    assert "torch.definitely_not_a_torch_name" in outer.missing
    assert "torch.definitely_not_a_torch_name" not in inner.missing
    with torchproxy.trace() as later:
        pass
    sites = {k: set(v) for k, v in outer.used.items()}
    mod.uses(x)  # not traced: nothing recorded anywhere
    assert later.used == {} and {k: set(v) for k, v in outer.used.items()} == sites


def test_paddle_semantics_for_unscoped_callers_during_a_trace(mod):
    x = paddle.to_tensor(np.ones((2, 3), "float32"))
    with torchproxy.trace() as t:
        n = x.numel()              # this test module is not in scope: Paddle's numel
        assert isinstance(n, paddle.Tensor) and int(n) == 6
        assert mod.uses(x)[1] == 6
    assert not any(site.startswith(__file__) for site in t.used.get("torch.Tensor.numel", ()))


def test_trace_leaves_paddle_tensor_and_modules_as_they_were(mod):
    from torchproxy import tracing
    from torchproxy.facade import modules
    if tracing._active:
        pytest.skip("an enclosing trace (torchproxy coverage --record) keeps its wrappers")
    before = dict(paddle.Tensor.__dict__)
    torch_mod = modules.build()["torch"]
    cls_before = type(torch_mod)
    with torchproxy.trace():
        assert type(torch_mod) is not cls_before
        # the dispatcher records itself: a trace swaps nothing on paddle.Tensor
        assert dict(paddle.Tensor.__dict__) == before
    assert type(torch_mod) is cls_before
    after = dict(paddle.Tensor.__dict__)
    assert after.keys() == before.keys()
    assert all(after[k] is before[k] for k in before)


def test_trace_survives_an_exception_and_still_restores(mod):
    from torchproxy import tracing
    if tracing._active:
        pytest.skip("an enclosing trace (torchproxy coverage --record) keeps its wrappers")
    before = paddle.Tensor.__dict__["numel"]
    with pytest.raises(KeyError):
        with torchproxy.trace():
            raise KeyError("x")
    assert paddle.Tensor.__dict__["numel"] is before


def test_private_torch_names_are_recorded():
    # Triton and TileLang read torch._C._cuda_getCurrentRawStream / torch.cuda._lazy_init
    mod = load("""
import torch
def f():
    return torch._C._cuda_getCurrentRawStream, torch.cuda._lazy_init
""", scoped=True)
    with torchproxy.trace() as t:
        mod.f()
    assert {"torch._C", "torch._C._cuda_getCurrentRawStream", "torch.cuda._lazy_init"} <= set(t.used)
    assert not any(name.rsplit(".", 1)[1].startswith("__") for name in t.used)


def test_ops_used_and_missing_are_recorded():
    mod = load("""
import torch
@torch.library.custom_op("tpxtrace::twice", mutates_args=())
def twice(x: torch.Tensor) -> torch.Tensor:
    return x * 2
def f(x):
    y = torch.ops.tpxtrace.twice(x)              # line 7
    return y, torch.ops.aten.convolution_backward  # line 8
""", scoped=True)
    x = paddle.to_tensor(np.ones(2, "float32"))
    with torchproxy.trace() as t:
        with pytest.raises(NotProvidedError):
            mod.f(x)
    assert t.used["torch.ops.tpxtrace.twice"] == {f"{mod.__file__}:7"}
    assert t.missing["torch.ops.aten.convolution_backward"] == {f"{mod.__file__}:8"}
