"""torch.nn lazy modules (LazyLinear, LazyConv*d, LazyConvTranspose*d, UninitializedParameter,
LazyModuleMixin) vs real torch 2.13: uninitialised parameters until the first call, the shape
inferred from it, the class becoming cls_to_become, the parameter object kept, load_state_dict
into an uninitialised module (also as a submodule), state_dict before the call, errors."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

rng = np.random.default_rng(7)


def _x(*shape):
    return rng.standard_normal(shape).astype("float32")


@pytest.mark.parametrize("cls,args,shape", [
    ("LazyConv1d", "4, 3", (2, 5, 9)), ("LazyConv1d", "4, 3, bias=False", (5, 9)),
    ("LazyConv2d", "6, (2, 3), stride=2, groups=2", (2, 4, 7, 8)),
    ("LazyConv3d", "2, 2, padding=1", (1, 3, 4, 4, 4)),
    ("LazyConvTranspose1d", "4, 3, stride=2, output_padding=1", (2, 5, 6)),
    ("LazyConvTranspose2d", "4, 3, groups=2", (3, 4, 5)),
    ("LazyConvTranspose3d", "2, 2", (1, 3, 3, 3, 3)),
    ("LazyLinear", "3", (2, 4, 6)), ("LazyLinear", "3, bias=False", (6,)),
])
def test_first_call_materialises(cls, args, shape):
    # values of torch's init are not comparable across generators: the weights come from
    # torch through load_state_dict on a second module; the first one's shapes and classes
    check(f"""
import torch
def f(x):
    m = torch.nn.{cls}({args})
    before = (type(m).__name__, [(n, torch.nn.parameter.is_lazy(p),
              isinstance(p, torch.nn.UninitializedParameter), isinstance(p, torch.nn.Parameter))
              for n, p in m.named_parameters()], sorted(m.state_dict()),
              [type(v).__name__ for v in m.state_dict().values()], repr(m.weight), str(m))
    w = m.weight
    y = m(x)
    after = (type(m).__name__, isinstance(m, torch.nn.modules.lazy.LazyModuleMixin),
             w is m.weight, [(n, tuple(p.shape), torch.nn.parameter.is_lazy(p))
                             for n, p in m.named_parameters()], str(m))
    return before, after, tuple(y.shape), m(x).shape
""", _x(*shape))


@pytest.mark.parametrize("cls,args,wshape,shape", [
    ("LazyConv2d", "4, 3", (4, 2, 3, 3), (2, 2, 6, 6)),
    ("LazyConvTranspose1d", "3, 2, stride=2", (5, 3, 2), (2, 5, 7)),
    ("LazyLinear", "3", (3, 4), (2, 4)),
])
def test_load_state_dict_then_forward_backward(cls, args, wshape, shape):
    check(f"""
import torch
def f(w, b, x):
    m = torch.nn.{cls}({args})
    keys = m.load_state_dict({{"weight": w, "bias": b}})
    mid = (type(m).__name__, tuple(m.weight.shape), torch.nn.parameter.is_lazy(m.weight))
    x.requires_grad_()
    y = m(x)
    (y * y).sum().backward()
    return keys, mid, type(m).__name__, y, x.grad, m.weight.grad, m.bias.grad
""", _x(*wshape), _x(wshape[0] if cls != "LazyConvTranspose1d" else 3), _x(*shape), rtol=1e-4,
          atol=1e-5)


def test_submodule_load_and_call():
    check("""
import torch
def f(w, b, x):
    s = torch.nn.Sequential(torch.nn.LazyConv1d(2, 3), torch.nn.ReLU(), torch.nn.Flatten(),
                            torch.nn.LazyLinear(4))
    before = [(n, torch.nn.parameter.is_lazy(p)) for n, p in s.named_parameters()]
    s[0].load_state_dict({"weight": w, "bias": b})
    mid = [(n, torch.nn.parameter.is_lazy(p)) for n, p in s.named_parameters()]
    y = s(x)
    return before, mid, [type(c).__name__ for c in s], tuple(y.shape), s[0](x)
""", _x(2, 4, 3), _x(2), _x(3, 4, 8))


@pytest.mark.parametrize("cls,args,shape", [
    ("LazyConv2d", "4, 3, groups=2", (2, 5, 8, 8)),  # in_channels not divisible by groups
    ("LazyConv2d", "4, 3", (5, 8)),                  # neither 3D nor 4D
    ("LazyConvTranspose1d", "4, 3", (1, 2, 3, 5)),
])
def test_errors(cls, args, shape):
    check(f"""
import torch
def f(x):
    return torch.nn.{cls}({args})(x)
""", _x(*shape))


def test_dtype_and_mixin_subclass():
    check("""
import torch
class MyLazy(torch.nn.modules.lazy.LazyModuleMixin, torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.w = torch.nn.UninitializedParameter()
    def initialize_parameters(self, x):
        if self.has_uninitialized_params():
            with torch.no_grad():
                self.w.materialize((x.shape[-1],))
                self.w.fill_(2.0)
    def forward(self, x):
        return x * self.w
def f(x):
    m = torch.nn.LazyConv1d(2, 1, dtype=torch.float64)
    m(x.double())
    u = MyLazy()
    return m.weight.dtype, m.bias.dtype, u(x), u(x + 1), type(u).__name__, u.has_uninitialized_params()
""", _x(2, 3, 4))
