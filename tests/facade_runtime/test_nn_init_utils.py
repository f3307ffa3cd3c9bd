"""torch.nn.init (exact where deterministic, distribution statistics where random) and
torch.nn.utils (gradient clipping, parameter vectors, rnn packing) against real torch."""
import numpy as np
import pytest

from difftest import check

rng = np.random.default_rng(5)


def test_gains_and_fans_exact():
    check("""
import torch
import torch.nn.init as init
def f():
    gains = [init.calculate_gain(n) for n in ("linear", "conv2d", "sigmoid", "tanh", "relu", "selu")]
    gains += [init.calculate_gain("leaky_relu"), init.calculate_gain("leaky_relu", 0.2)]
    fans = [init._calculate_fan_in_and_fan_out(torch.empty(s)) for s in ((5, 3), (6, 4, 3, 2), (2, 3, 4))]
    return gains, fans, init._calculate_correct_fan(torch.empty(6, 4, 3), "fan_out")
""")
    check("""
import torch.nn.init as init
def f():
    return init.calculate_gain("softmax")
""")
    check("""
import torch
import torch.nn.init as init
def f():
    return init._calculate_fan_in_and_fan_out(torch.empty(3))
""")


def test_deterministic_initialisers_exact():
    check("""
import torch
import torch.nn as nn
import torch.nn.init as init
def f():
    a, b, c = torch.empty(3, 4), torch.empty(4, 3), torch.empty(2, 3)
    init.constant_(a, 0.25)
    init.eye_(b)
    init.ones_(c)
    d = torch.empty(4, 2, 3, 3)
    init.dirac_(d, groups=2)
    e = torch.empty(3, 3, 2)
    init.dirac_(e)
    p = nn.Parameter(torch.empty(2, 2))
    r = init.zeros_(p)
    return a, b, c, d, e, p.detach(), r is p, p.requires_grad
""")


@pytest.mark.parametrize("call, std", [
    ("init.xavier_uniform_(w, gain=2.0)", "2.0 * math.sqrt(2.0 / (256 + 128))"),
    ("init.xavier_normal_(w)", "math.sqrt(2.0 / (256 + 128))"),
    ("init.kaiming_uniform_(w, a=math.sqrt(5))", "math.sqrt(2.0 / 6) / math.sqrt(128)"),
    ("init.kaiming_normal_(w, mode='fan_out', nonlinearity='relu')", "math.sqrt(2.0) / math.sqrt(256)"),
    ("init.uniform_(w, -0.5, 1.5)", "2.0 / math.sqrt(12)"),
    ("init.normal_(w, 1.0, 0.3)", "0.3"),
])
def test_random_initialisers_statistics(call, std):
    """Same distribution as torch: the std (and bounds) match torch's formula within 4%."""
    check(f"""
import math
import torch
import torch.nn.init as init
def f():
    w = torch.empty(256, 128)
    out = {call}
    expected = {std}
    s = float(w.std())
    return out is w, abs(s / expected - 1) < 0.04
""")


def test_trunc_normal_orthogonal_sparse():
    check("""
import torch
import torch.nn.init as init
def f():
    w = torch.empty(200, 100)
    init.trunc_normal_(w, mean=0.5, std=1.0, a=-0.5, b=1.0)
    q = torch.empty(6, 10)
    init.orthogonal_(q, gain=2.0)
    s = torch.empty(10, 8)
    init.sparse_(s, 0.3)
    zeros_per_col = (s == 0).sum(0)
    return (bool(w.min() >= -0.5), bool(w.max() <= 1.0), abs(float(w.mean()) - 0.26) < 0.05,
            torch.allclose(q @ q.T, 4 * torch.eye(6), atol=1e-4), bool((zeros_per_col >= 3).all()))
""")


def _grads_src(body):
    return """
import torch
import torch.nn as nn
import torch.nn.utils as U
def f(x):
    torch.manual_seed(0)
    m = nn.Sequential(nn.Linear(4, 3), nn.Linear(3, 2))
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.linspace(-1, 1, p.numel()).reshape(p.shape))
    (m(x) ** 2).sum().backward()
""" + body


@pytest.mark.parametrize("body", [
    "    n = U.clip_grad_norm_(m.parameters(), 0.5)\n    return n, [p.grad for p in m.parameters()]",
    "    n = U.clip_grad_norm_(list(m.parameters()), 1.0, norm_type=1.0)\n    return n, [p.grad for p in m.parameters()]",
    "    n = U.clip_grad_norm_(m.parameters(), 2.0, norm_type=float('inf'))\n    return n, [p.grad for p in m.parameters()]",
    "    n = U.clip_grad_norm_(m.parameters(), 1e6)\n    return n, [p.grad for p in m.parameters()]",
    "    U.clip_grad_value_(m.parameters(), 0.1)\n    return [p.grad for p in m.parameters()]",
    "    v = U.parameters_to_vector(m.parameters())\n    U.vector_to_parameters(v * 2, m.parameters())\n"
    "    return v, [p.detach() for p in m.parameters()]",
])
def test_grad_clipping_and_parameter_vectors(body):
    check(_grads_src(body), rng.standard_normal((5, 4)).astype("float32"), rtol=1e-5, atol=1e-6)


SEQ = [rng.standard_normal((n, 3)).astype("float32") for n in (4, 2, 5)]


def test_pad_and_pack_sequences():
    check("""
import torch
from torch.nn.utils.rnn import pad_sequence, pack_padded_sequence, pad_packed_sequence, pack_sequence
def f(a, b, c):
    padded = pad_sequence([a, b, c], batch_first=True, padding_value=-1.0)
    left = pad_sequence([a, b, c], padding_side="left")
    packed = pack_padded_sequence(padded, torch.tensor([4, 2, 5]), batch_first=True, enforce_sorted=False)
    back, lengths = pad_packed_sequence(packed, batch_first=True, total_length=6)
    ps = pack_sequence([c, a, b])
    return (padded, left, packed.data, packed.batch_sizes, packed.sorted_indices,
            packed.unsorted_indices, back, lengths, ps.data, ps.batch_sizes, ps.sorted_indices)
""", *SEQ)
    check("""
import torch
from torch.nn.utils.rnn import pack_padded_sequence
def f(x):
    return pack_padded_sequence(x, [2, 3, 1])
""", rng.standard_normal((3, 3, 2)).astype("float32"))


@pytest.mark.parametrize("cls", ["nn.LSTM(3, 4, bidirectional=True)", "nn.GRU(3, 4, num_layers=2)"])
def test_rnn_on_packed_sequences(cls):
    check(f"""
import torch
import torch.nn as nn
from torch.nn.utils.rnn import pack_sequence, pad_packed_sequence
def f(a, b, c):
    torch.manual_seed(0)
    m = {cls}
    with torch.no_grad():
        for i, p in enumerate(m.parameters()):
            p.copy_(torch.linspace(-0.5, 0.5, p.numel()).reshape(p.shape) * (1 + 0.1 * i))
    packed = pack_sequence([a, b, c], enforce_sorted=False)
    out, h = m(packed)
    padded, lengths = pad_packed_sequence(out, batch_first=True)
    padded.sum().backward()
    return padded, lengths, h, [p.grad for p in m.parameters()]
""", *SEQ, rtol=1e-4, atol=1e-5, check_grad_flag=False)
