"""One registration per name (registry.op), the areas' NAMES manifests, and the names added end to
end with one declaration each (torch.addcmul / addcdiv / lerp with their Tensor method and
in-place forms), differential against real torch."""
import ast
import importlib
import os
import sys
import types

import numpy as np
import pytest

from difftest import check
from torchproxy.facade import registry

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
R = np.random.RandomState(0)
X = R.randn(2, 3).astype("float32")
Y = R.randn(2, 3).astype("float32")
Z = (R.rand(3) + 0.5).astype("float32")


def _snip(expr):
    return f"import torch\ndef f(x, y, z):\n    return {expr}\n"


# -- the names added with one declaration each ---------------------------------------------------
ADDED = [
    "torch.addcmul(x, y, z)", "torch.addcmul(x, y, z, value=0.5)", "x.addcmul(y, z, value=-2)",
    "torch.addcmul(z, y, x[0:1])", "torch.addcmul(x.half(), y, z)",
    "torch.addcmul(x.bfloat16(), y.half(), z.half())", "torch.addcmul(x.long(), y.long(), z.long(), value=2.7)",
    "torch.addcmul(x.long(), y, z)", "torch.addcmul(x.double(), y, torch.tensor(2.0))",
    "torch.addcmul(x.bool(), y.bool(), z.bool())", "torch.addcmul(x, y, z[:2])",
    "torch.lerp(x, y, z[:2])",
    "torch.addcdiv(x, y, z)", "x.addcdiv(y, z, value=3)", "torch.addcdiv(x.long(), y, z)",
    "torch.addcdiv(x, y.long(), z.long())",
    "torch.lerp(x, y, 0.3)", "torch.lerp(x, y, 0.7)", "torch.lerp(x, y, 1.0)", "x.lerp(y, z)",
    "torch.lerp(x, y, torch.tensor(0.5))", "torch.lerp(x, y, torch.tensor(0.5).double())",
    "torch.lerp(x, y, z.double())", "torch.lerp(x, y.double(), 0.5)",
    "torch.lerp(x.long(), y.long(), 0.5)", "torch.lerp(x.half(), y.half(), 0.25)",
    "torch.lerp(z, y, 0.5)",
]


@pytest.mark.parametrize("expr", ADDED)
def test_added_functions_and_methods(expr):
    # bfloat16: Paddle 2.6's float32 -> bfloat16 cast truncates where torch rounds
    check(_snip(expr), X, Y, Z, rtol=2e-2 if "bfloat16" in expr else 2e-3 if "half" in expr
          else 1e-5)


INPLACE = ["x.addcmul_(y, z)", "x.addcmul_(y, z, value=0.5)", "x.long().addcmul_(y, z)",
           "x.long().addcmul_(y.long(), z.long())", "x[:, 1:].addcmul_(y[:, 1:], z[1:])",
           "x.t().addcdiv_(y.t(), z[:2])", "z.addcmul_(y, x)", "x.addcdiv_(y, z, value=-1)",
           "x.lerp_(y, 0.5)", "x.lerp_(y, z)", "x.long().lerp_(y.long(), 0.5)",
           "x.half().lerp_(y.half(), 0.9)"]


@pytest.mark.parametrize("expr", INPLACE)
def test_added_inplace(expr):
    """in place: writes into self (views included), returns self, torch's cast rule."""
    check(f"import torch\ndef f(x, y, z):\n    r = {expr}\n    return x, r\n", X, Y, Z,
          rtol=2e-3 if "half" in expr else 1e-5)


OUT = [("torch.empty(0)", "torch.addcmul(x, y, z, out=o)"),
       ("torch.empty(0, dtype=torch.float64)", "torch.lerp(x, y, 0.5, out=o)"),
       ("torch.zeros(2, 3)", "torch.addcdiv(x, y, z, out=o)"),
       ("torch.zeros(2, 3, dtype=torch.long)", "torch.addcmul(x, y, z, out=o)")]


@pytest.mark.parametrize("make,expr", OUT)
def test_added_out(make, expr):
    """out=: torch resizes an empty out, casts to its dtype where allowed, refuses otherwise."""
    check(f"import torch\ndef f(x, y, z):\n    o = {make}\n    r = {expr}\n    return o, r is o\n",
          X, Y, Z)


def test_out_resizes_a_nonempty_tensor_with_torchs_warning():
    src = _snip("torch.addcmul(x, y, z, out=torch.zeros(5))")
    import warnings
    for scoped in (False, True):
        from difftest import run
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            r = run(src, X, Y, Z, scoped=scoped)
        assert list(r.shape) == [2, 3]
        assert any("was resized since it had shape [5]" in str(m.message) for m in w), scoped


def test_one_declaration_registers_the_three_forms():
    registry.load_table()
    from torchproxy.facade import ops
    for name in ("addcmul", "addcdiv", "lerp"):
        fn = registry.TABLE[f"torch.{name}"].impl
        assert registry.TENSOR_TABLE[f"torch.Tensor.{name}"].impl is fn  # self = input
        assert registry.TENSOR_TABLE[f"torch.Tensor.{name}_"].impl.__name__ == f"{name}_"
        assert getattr(ops, name) is fn


def test_op_decorator_on_a_scratch_function(monkeypatch):
    """registry.op: the function, the method (same object), the generic in-place form, out=."""
    import paddle
    monkeypatch.setattr(registry, "TABLE", dict(registry.TABLE))
    monkeypatch.setattr(registry, "TENSOR_TABLE", dict(registry.TENSOR_TABLE))

    @registry.op("torch.scratch_twice", method=True, inplace=True, out=True, note="n")
    def scratch_twice(input, *, scale=2.0):
        return input * scale
    assert registry.TABLE["torch.scratch_twice"].impl is scratch_twice
    assert registry.TABLE["torch.scratch_twice"].note == "n"
    assert registry.TENSOR_TABLE["torch.Tensor.scratch_twice"].impl is scratch_twice
    ip = registry.TENSOR_TABLE["torch.Tensor.scratch_twice_"].impl
    x = paddle.to_tensor([1.0, 2.0])
    assert ip(x) is x and x.numpy().tolist() == [2.0, 4.0]
    i = paddle.to_tensor([1, 2])
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired "
                                           "output type Long"):
        ip(i)
    o = paddle.empty([0])
    assert scratch_twice(x, out=o) is o and o.numpy().tolist() == [4.0, 8.0]
    with pytest.raises(ValueError, match="registered twice"):
        registry.op("torch.scratch_twice")(lambda input: input)

    def custom_(self):
        return self
    registry.op("torch.scratch_other", inplace=custom_)(lambda input: input)
    assert registry.TENSOR_TABLE["torch.Tensor.scratch_other_"].impl is custom_
    assert "torch.Tensor.scratch_other" not in registry.TENSOR_TABLE


# -- the NAMES manifest per area -------------------------------------------------------------------
def _literal_names(area):
    """The area's ``NAMES = manifest("...")`` read from its source: the string is a literal,
    parsed by registry.manifest alone (no area code runs)."""
    path = os.path.join(ROOT, *area.split(".")) + ".py"
    tree = ast.parse(open(path, encoding="utf-8").read())
    for node in tree.body:
        if isinstance(node, ast.Assign) and [t.id for t in node.targets
                                             if isinstance(t, ast.Name)] == ["NAMES"]:
            call = node.value
            if (isinstance(call, ast.Call) and isinstance(call.func, ast.Name)
                    and call.func.id == "manifest" and len(call.args) == 1 and not call.keywords):
                return registry.manifest(ast.literal_eval(call.args[0]))
    return None


def test_every_area_has_a_literal_names_manifest_matching_the_table():
    """NAMES is readable without running code, and together the areas name every entry."""
    registry.load_table()
    declared = set()
    for area in registry.AREAS:
        names = _literal_names(area)
        assert isinstance(names, tuple), f"{area}: no literal NAMES = manifest(...)"
        assert len(names) == len(set(names)), f"{area}: duplicate names"
        declared |= set(names)
        conditional = set(getattr(sys.modules[area], "CONDITIONAL", ()))
        assert set(registry.REGISTERED_BY.get(area, ())) | conditional == set(names), area
    assert set(registry.TABLE) | set(registry.TENSOR_TABLE) <= declared
    assert {"torchproxy.facade.ops_reduce", "torchproxy.facade.ops_shape"} <= set(registry.AREAS)


def _fake_area(monkeypatch, name, source):
    mod = types.ModuleType(name)
    monkeypatch.setitem(sys.modules, name, mod)
    exec(compile(source, f"<{name}>", "exec"), mod.__dict__)
    return mod


def test_names_mismatch_is_an_error_naming_the_names(monkeypatch):
    monkeypatch.setattr(registry, "TABLE", dict(registry.TABLE))
    monkeypatch.setattr(registry, "REGISTERED_BY", dict(registry.REGISTERED_BY))
    area = "torchproxy.facade._scratch_area"
    _fake_area(monkeypatch, area, "from torchproxy.facade.registry import value\n"
               "NAMES = ('torch.scratch_a', 'torch.scratch_gone')\n"
               "value('torch.scratch_a', 1)\nvalue('torch.scratch_b', 2)\n")
    with pytest.raises(registry.AreaError, match=r"registered but not in NAMES: "
                       r"\['torch.scratch_b'\]; in NAMES but not registered: "
                       r"\['torch.scratch_gone'\]"):
        registry.check_area(area)
    area2 = "torchproxy.facade._scratch_area2"
    _fake_area(monkeypatch, area2, "from torchproxy.facade.registry import value\n"
               "value('torch.scratch_c', 1)\n")
    with pytest.raises(registry.AreaError, match=r"(?s)no literal NAMES.*\n    torch: scratch_c\n"):
        registry.check_area(area2)


def test_manifest_parses_namespaces_and_refuses_repeats():
    """The manifest string is the names it lists, once each; format_names writes one back."""
    names = registry.manifest("""
        torch: abs return_types  # a comment is not a name
        torch.Tensor: abs
            abs_
        torch.return_types: max
    """)
    assert names == ("torch.abs", "torch.return_types", "torch.Tensor.abs", "torch.Tensor.abs_",
                     "torch.return_types.max")
    block = registry.format_names(names)
    assert registry.manifest(block.split('"""')[1]) == tuple(sorted(names, key=lambda n: (
        n.rpartition(".")[0], n.rpartition(".")[2])))
    with pytest.raises(registry.AreaError, match=r"listed twice: \['torch.Tensor.abs'\]"):
        registry.manifest("torch.Tensor: abs neg torch.Tensor: abs")
    with pytest.raises(registry.AreaError, match="'abs' comes before any 'namespace:'"):
        registry.manifest("abs torch: neg")


def test_missing_area_and_stray_registrant_are_errors(monkeypatch):
    monkeypatch.setattr(registry, "_loaded", False)
    monkeypatch.setattr(registry, "AREAS", registry.AREAS + ("torchproxy.facade._no_such_area",))
    with pytest.raises(registry.AreaError, match="_no_such_area .*does not exist"):
        registry.load_table()
    monkeypatch.setattr(registry, "AREAS", registry.AREAS[:-1])
    monkeypatch.setattr(registry, "TABLE", dict(registry.TABLE))
    monkeypatch.setattr(registry, "REGISTERED_BY", dict(registry.REGISTERED_BY))
    _fake_area(monkeypatch, "scratch_stray", "from torchproxy.facade.registry import value\n"
               "value('torch.scratch_stray', 1)\n")
    with pytest.raises(registry.AreaError, match="outside registry.AREAS.*scratch_stray"):
        registry.load_table()
