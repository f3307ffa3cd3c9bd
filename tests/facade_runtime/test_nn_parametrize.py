"""torch.nn.utils weight_norm / spectral_norm (pre-hook forms) and parametrize /
parametrizations.weight_norm: state_dict keys as torch's, torch's weights loaded by key, forward,
gradients and the state after the forward (spectral norm's power iteration) match real torch."""
import numpy as np
import pytest

from difftest import check
from test_nn_modules import roundtrip

rng = np.random.default_rng(7)
X = rng.standard_normal((4, 3)).astype("float32")
XC = rng.standard_normal((2, 3, 6, 6)).astype("float32")

SYM = "type('Sym', (nn.Module,), {'forward': lambda self, X: X.triu() + X.triu(1).transpose(0, 1)})()"


@pytest.mark.parametrize("ctor, x", [
    ("torch.nn.utils.weight_norm(nn.Linear(3, 5))", X),
    ("torch.nn.utils.weight_norm(nn.Conv2d(3, 4, 3), dim=1)", XC),
    ("torch.nn.utils.weight_norm(nn.Linear(3, 5), dim=None)", X),
    ("torch.nn.utils.spectral_norm(nn.Linear(3, 5), n_power_iterations=3)", X),
    ("torch.nn.utils.spectral_norm(nn.ConvTranspose2d(3, 4, 2))", XC),
    ("torch.nn.utils.parametrizations.weight_norm(nn.Linear(3, 5))", X),
    ("torch.nn.utils.parametrize.register_parametrization(nn.Linear(3, 3), 'weight', " + SYM + ")", X),
])
def test_norm_reparametrizations_match_torch(ctor, x):
    roundtrip(ctor, [x])


def test_remove_and_is_parametrized():
    check("""
import torch
import torch.nn as nn
from torch.nn.utils import parametrize
def f(x):
    torch.manual_seed(0)
    m = nn.Linear(3, 3)
    with torch.no_grad():
        m.weight.copy_(torch.linspace(-1, 1, 9).reshape(3, 3))
        m.bias.zero_()
    parametrize.register_parametrization(m, "weight", type("Sym", (nn.Module,), {
        "forward": lambda self, X: X.triu() + X.triu(1).transpose(0, 1)})())
    flags = [parametrize.is_parametrized(m), parametrize.is_parametrized(m, "weight"),
             parametrize.is_parametrized(m, "bias")]
    with parametrize.cached():
        a = m(x)
    w = m.weight.detach().clone()
    parametrize.remove_parametrizations(m, "weight")
    keys = sorted(m.state_dict())
    wn = torch.nn.utils.weight_norm(nn.Linear(3, 2))
    k2 = sorted(wn.state_dict())
    torch.nn.utils.remove_weight_norm(wn)
    return a, w, flags, keys, parametrize.is_parametrized(m), k2, sorted(wn.state_dict()), m(x)
""", X, rtol=1e-5, atol=1e-6, check_grad_flag=False)
