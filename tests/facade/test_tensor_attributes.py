"""Tensor attributes and predicates (facade/tensor_attributes.py), Tensor.backward(inputs=)
and torch.autograd.backward(inputs=) (facade/autograd.py), and a torch Tensor attribute the
facade lacks raising NotProvidedError in scope (facade/tensor_missing.py), vs real torch 2.13."""
import numpy as np
import pytest

from difftest import check, load

pytest.importorskip("torch")

DTS = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64", "complex64", "complex128"]


@pytest.mark.parametrize("dt", DTS)
def test_sizes_and_predicates(dt):
    check(f"""
import torch
def f():
    out = []
    for shape in [(), (0,), (2, 3), (4, 0, 2)]:
        x = torch.zeros(shape, dtype=torch.{dt})
        out.append((x.is_cpu, x.nbytes, x.itemsize, x.is_signed(), torch.is_signed(x),
                    x.is_conj(), torch.is_conj(x), x.is_neg(), torch.is_neg(x),
                    x.is_inference(), torch.is_inference(x)))
    return out
""")


def test_views_and_same_size():
    check("""
import torch
def f():
    x = torch.arange(12.0).reshape(3, 4)
    v = x[:, 1:3]
    return (v.nbytes, x.t().nbytes, x.is_same_size(x.t()), x.is_same_size(x + 1),
            torch.is_same_size(x, torch.ones(3, 4, dtype=torch.int8)),
            torch.is_same_size(x[0], x[:, 0]))
""")


BW = """
import torch
def f(a, b):
    a.requires_grad_(); b.requires_grad_()
    h = a * b           # a non-leaf
    h.retain_grad()
    y = (h * a).sum()
    {body}
    return a.grad, b.grad
"""


@pytest.mark.parametrize("body", [
    "y.backward(inputs=[a])",
    "y.backward(inputs=a)",
    "y.backward(inputs=(b, a))",
    "y.backward(retain_graph=True, inputs=[a]); y.backward(retain_graph=True, inputs=[a, b])",
    "(h * 2).backward(gradient=torch.ones(3) * 0.5, inputs=[b])",
    "torch.autograd.backward(y, inputs=[b])",
    "torch.autograd.backward([y, h.sum()], [torch.tensor(2.0), None], inputs=[a])",
    "a.grad = torch.ones(3); y.backward(inputs=[a])",
    "y.backward(inputs=[])",
])
def test_backward_inputs(body):
    check(BW.format(body=body), np.array([1.0, -2.0, 0.5], "float32"),
          np.array([3.0, 0.25, -1.0], "float32"))


@pytest.mark.parametrize("body", ["y.backward(create_graph=True)",
                                  "torch.autograd.backward(y, create_graph=True)"])
def test_backward_create_graph_not_provided(body):
    from torchproxy.errors import NotProvidedError
    src = BW.format(body=body)
    load(src, scoped=False).f(*_torch(np.ones(3, "float32"), np.ones(3, "float32")))
    import paddle
    with pytest.raises(NotProvidedError, match="create_graph"):
        load(src, scoped=True).f(paddle.ones([3]), paddle.ones([3]))


def test_backward_inputs_non_leaf_not_provided():
    import paddle
    from torchproxy.errors import NotProvidedError
    src = BW.format(body="y.backward(inputs=[h])")
    load(src, scoped=False).f(*_torch(np.ones(3, "float32"), np.ones(3, "float32")))
    with pytest.raises(NotProvidedError, match="non-leaf"):
        load(src, scoped=True).f(paddle.ones([3]), paddle.ones([3]))


def _torch(*arrays):
    import torch
    return [torch.from_numpy(a) for a in arrays]


MISSING = """
import torch
def f(x):
    return {expr}
"""


def test_missing_torch_attribute_names_it():
    import paddle
    from torchproxy.errors import NotProvidedError
    x = paddle.ones([2])
    mod = load(MISSING.format(expr="x.to_sparse()"), scoped=True)
    with pytest.raises(NotProvidedError, match=r"torch\.Tensor\.to_sparse"):
        mod.f(x)
    # hasattr stays False (NotProvidedError is an AttributeError), in scope and outside
    assert load(MISSING.format(expr="hasattr(x, 'to_sparse')"), scoped=True).f(x) is False
    assert not hasattr(x, "to_sparse")
    # outside scope: Paddle's plain AttributeError
    with pytest.raises(AttributeError) as e:
        x.to_sparse()
    assert not isinstance(e.value, NotProvidedError)


@pytest.mark.parametrize("expr", ["x.no_such_attribute", "x.__array_interface__",
                                  "getattr(x, 'sparse_whatever', 7)"])
def test_names_torch_lacks_stay_plain(expr):
    import paddle
    from torchproxy.errors import NotProvidedError
    check(MISSING.format(expr=expr), np.ones(2, "float32"))
    try:
        load(MISSING.format(expr=expr), scoped=True).f(paddle.ones([2]))
    except AttributeError as e:
        assert not isinstance(e, NotProvidedError)


def test_retain_grad_and_retains_grad():
    check("""
import torch
def f(a):
    a.requires_grad_()
    h = a * 2
    k = h * 3
    before = (a.retains_grad, h.retains_grad, k.retains_grad)
    h.retain_grad()
    a.retain_grad()                     # a leaf: a no-op, retains_grad stays False
    after = (a.retains_grad, h.retains_grad, k.retains_grad, h.detach().retains_grad)
    (k * k).sum().backward()
    try:
        torch.ones(2).retain_grad()
        err = None
    except RuntimeError as e:
        err = str(e)
    return before, after, h.grad, k.grad, a.grad, err
""", np.array([1.0, -2.0, 0.5], "float32"))


def test_missing_names_are_descriptors_not_a_class_getattr():
    """A class-level __getattr__ would slow every attribute read of every Paddle tensor
    (tensor_missing.py says how much); the names torch has and nobody provides are named
    descriptors instead, and Python's own AttributeError stays for everything else."""
    import paddle
    from difftest import _ensure_enabled
    from torchproxy.facade.tensor_missing import MissingName, missing_names, torch_tensor_names
    _ensure_enabled()
    assert "__getattr__" not in vars(paddle.Tensor)
    assert isinstance(vars(paddle.Tensor)["to_sparse"], MissingName)
    assert missing_names(paddle.Tensor) == []  # every such name has one now
    # never installed over something Paddle or the facade provides
    assert not isinstance(vars(paddle.Tensor).get("numel"), MissingName)
    assert "no_such_attribute" not in torch_tensor_names()
    assert "no_such_attribute" not in vars(paddle.Tensor)
    x = paddle.ones([2])
    with pytest.raises(AttributeError) as e:
        x.to_sparse
    assert str(e.value) == "'Tensor' object has no attribute 'to_sparse'"
    assert (e.value.name, e.value.obj) == ("to_sparse", x)
    # class access, as Python says it without the descriptor; hasattr False
    with pytest.raises(AttributeError, match="type object 'Tensor' has no attribute 'to_sparse'"):
        paddle.Tensor.to_sparse
    assert not hasattr(paddle.Tensor, "to_sparse")


def test_missing_names_and_instance_attributes():
    """A non-data descriptor: an attribute set on the instance wins, as without it."""
    import paddle
    from difftest import _ensure_enabled
    _ensure_enabled()
    x = paddle.ones([2])
    try:
        x.get_device = 7  # a torch name the facade lacks (tensor_missing's list)
    except AttributeError:
        pytest.skip("this Paddle's tensors take no instance attributes")
    assert x.get_device == 7
    assert load(MISSING.format(expr="x.get_device"), scoped=True).f(x) == 7
