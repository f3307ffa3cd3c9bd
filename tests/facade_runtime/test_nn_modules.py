"""torch.nn module classes: weights saved by real torch load into the facade's modules by key
(state_dict keys and shapes must be torch's), forward outputs and backward gradients (inputs
and every named parameter) match real torch, and the facade's state_dict loads back into real
torch unchanged."""
import numpy as np
import paddle
import pytest

import difftest

rng = np.random.default_rng(0)


def _arr(*shape):
    return rng.standard_normal(shape).astype("float32")


_SRC = """
import torch
import torch.nn as nn
import torch.nn.functional as F

def build():
    torch.manual_seed(0)
    return {ctor}

def _flat(x, out):
    if isinstance(x, torch.Tensor):
        out.append(x)
    elif isinstance(x, (list, tuple)):
        for i in x:
            _flat(i, out)
    return out

def run(m, xs):
    xs = [x.requires_grad_() if x.is_floating_point() else x for x in xs]
    out = {fwd}
    outs = [o for o in _flat(out, []) if o.is_floating_point()]
    loss = None
    for i, o in enumerate(outs):
        if o.requires_grad:
            t = (o * (i + 1.5)).sum()
            loss = t if loss is None else loss + t
    if loss is not None:
        loss.backward()
    grads = [x.grad for x in xs if x.is_floating_point()]
    pgrads = sorted((n, p.grad) for n, p in m.named_parameters())
    return outs, grads, pgrads

def state(m):
    return {{k: v.detach().numpy() if hasattr(v, "numpy") and not hasattr(v, "place") else v.numpy()
             for k, v in m.state_dict().items()}}
"""


def roundtrip(ctor, inputs, fwd="m(*xs)", train=True, rtol=1e-4, atol=1e-5):
    src = _SRC.format(ctor=ctor, fwd=fwd)
    oracle = difftest.load(src, scoped=False)
    facade = difftest.load(src, scoped=True)
    import torch
    tm, fm = oracle.build(), facade.build()
    tm.train(train)
    fm.train(train)
    tsd, fsd = tm.state_dict(), fm.state_dict()
    tk = sorted((k, tuple(v.shape)) for k, v in tsd.items())
    fk = sorted((k, tuple(v.shape)) for k, v in fsd.items())
    assert tk == fk, f"state_dict keys/shapes: torch {tk}, facade {fk}"
    assert sorted(n for n, _ in tm.named_parameters()) == sorted(n for n, _ in fm.named_parameters())
    res = fm.load_state_dict({k: paddle.to_tensor(v.detach().numpy()) for k, v in tsd.items()})
    assert list(res.missing_keys) == [] and list(res.unexpected_keys) == []
    e = oracle.run(tm, [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a
                        for a in inputs])
    a = facade.run(fm, [paddle.to_tensor(x.copy()) if isinstance(x, np.ndarray) else x
                        for x in inputs])
    difftest.assert_same(difftest.normalize(e), difftest.normalize(a), rtol, atol,
                         check_grad_flag=False)
    # and back: the facade's state (running statistics included) loads into real torch
    back = {k: torch.from_numpy(np.asarray(v.numpy())) for k, v in fm.state_dict().items()}
    tm2 = oracle.build()
    tm2.load_state_dict(back)
    for k, v in tm.state_dict().items():
        np.testing.assert_allclose(tm2.state_dict()[k].numpy(), v.numpy(), rtol=1e-5, atol=1e-6,
                                   err_msg=k)


CASES = [
    # convolutions
    ("nn.Conv1d(3, 4, 3, stride=2, padding=1)", [_arr(2, 3, 9)]),
    ("nn.Conv2d(4, 6, (3, 2), padding='same', dilation=2, groups=2)", [_arr(2, 4, 7, 6)]),
    ("nn.Conv2d(3, 4, 3, padding=1, padding_mode='reflect', bias=False)", [_arr(3, 6, 5)]),
    ("nn.Conv2d(2, 4, 3, padding=2, padding_mode='circular')", [_arr(1, 2, 5, 5)]),
    ("nn.Conv3d(2, 3, 2, stride=(1, 2, 1))", [_arr(1, 2, 4, 5, 3)]),
    ("nn.ConvTranspose1d(3, 2, 3, stride=2, output_padding=1)", [_arr(2, 3, 5)]),
    ("nn.ConvTranspose2d(4, 2, 3, stride=2, padding=1, groups=2, dilation=1)", [_arr(1, 4, 3, 4)]),
    ("nn.ConvTranspose3d(2, 2, 2, stride=2)", [_arr(1, 2, 2, 3, 2)]),
    # pooling
    ("nn.MaxPool2d(3, stride=2, padding=1, dilation=2, ceil_mode=True)", [_arr(2, 3, 9, 8)]),
    ("nn.MaxPool1d(2, return_indices=True)", [_arr(2, 3, 7)]),
    ("nn.MaxPool3d(2, stride=1, return_indices=True)", [_arr(1, 2, 3, 4, 3)]),
    ("nn.AvgPool2d(3, stride=2, padding=1, ceil_mode=True, count_include_pad=False)",
     [_arr(2, 3, 8, 7)]),
    ("nn.AvgPool3d(2, divisor_override=3)", [_arr(1, 2, 4, 4, 4)]),
    ("nn.AdaptiveAvgPool2d((3, None))", [_arr(2, 3, 7, 5)]),
    ("nn.AdaptiveMaxPool1d(4, return_indices=True)", [_arr(2, 3, 10)]),
    ("nn.AdaptiveMaxPool3d((2, 3, 2))", [_arr(1, 2, 5, 7, 3)]),
    ("nn.LPPool2d(2, 3, stride=2)", [np.abs(_arr(1, 2, 7, 7))]),
    ("nn.FractionalMaxPool2d((2, 3), output_size=(4, 3), return_indices=True, "
     "_random_samples=torch.linspace(0.05, 0.95, 6).reshape(1, 3, 2))", [_arr(1, 3, 7, 6)]),
    ("nn.FractionalMaxPool2d(2, output_ratio=0.5, _random_samples=torch.linspace(0.1, 0.9, 6)"
     ".reshape(1, 3, 2))", [_arr(3, 5, 7)]),
    ("nn.FractionalMaxPool3d((4, 2, 3), output_size=(10, 3, 2), return_indices=True, "
     "_random_samples=torch.linspace(0.05, 0.95, 24).reshape(2, 4, 3))", [_arr(2, 4, 16, 7, 5)]),
    # norms (training updates the running statistics: compared through the state round trip)
    ("nn.BatchNorm2d(3, momentum=None)", [_arr(4, 3, 5, 5)]),
    ("nn.BatchNorm1d(4, affine=False)", [_arr(6, 4)]),
    ("nn.InstanceNorm2d(3, affine=True, track_running_stats=True)", [_arr(2, 3, 4, 4)]),
    ("nn.GroupNorm(2, 6)", [_arr(3, 6, 5)]),
    ("nn.LayerNorm([3, 4], bias=False)", [_arr(2, 3, 4)]),
    ("nn.RMSNorm(4, eps=1e-5)", [_arr(2, 3, 4)]),
    ("nn.LocalResponseNorm(3)", [_arr(2, 5, 4, 4)]),
    # activations with parameters / arguments
    ("nn.PReLU(3, init=0.1)", [_arr(2, 3, 4)]),
    ("nn.Sequential(nn.ELU(0.5), nn.CELU(2.0), nn.SELU(), nn.GLU(), nn.Hardswish(), "
     "nn.Hardsigmoid(), nn.LeakyReLU(0.2), nn.Mish(), nn.Softsign(), nn.Tanhshrink(), "
     "nn.Softplus(2.0, 1.0), nn.LogSigmoid(), nn.ReLU6(), nn.Hardtanh(-0.5, 0.5), "
     "nn.Threshold(0.1, -1.0), nn.Softshrink(0.2), nn.Hardshrink(0.1))", [_arr(3, 8)]),
    ("nn.Sequential(nn.Softmin(1), nn.LogSoftmax(dim=0), nn.Softmax2d())", [_arr(2, 3, 4, 4)]),
    # linear-like, embeddings, containers
    ("nn.Bilinear(3, 4, 5)", [_arr(2, 3), _arr(2, 4)]),
    ("nn.Sequential(nn.Flatten(), nn.Linear(12, 6), nn.Unflatten(1, (2, 3)))", [_arr(2, 3, 4)]),
    ("nn.EmbeddingBag(10, 3, mode='sum')", [np.array([1, 2, 4, 5, 4, 3, 2, 9]),
                                           np.array([0, 4])]),
    ("nn.EmbeddingBag(10, 3, mode='max', padding_idx=2)", [np.array([[1, 2, 4], [5, 2, 3]])]),
    ("nn.ModuleDict({'a': nn.Linear(3, 2), 'b': nn.ParameterList([nn.Parameter(torch.ones(2))])})",
     [_arr(4, 3)], "m['a'](xs[0]) * m['b'][0]"),
    # recurrent
    ("nn.LSTM(3, 4, num_layers=2, bidirectional=True, batch_first=True, proj_size=2)",
     [_arr(2, 5, 3)]),
    ("nn.GRU(3, 4, bias=False)", [_arr(5, 2, 3), _arr(1, 2, 4)]),
    ("nn.RNN(3, 4, nonlinearity='relu', num_layers=2)", [_arr(5, 3)]),
    ("nn.LSTMCell(3, 4)", [_arr(2, 3)]),
    ("nn.GRUCell(3, 4)", [_arr(3), _arr(4)]),
    ("nn.RNNCell(3, 4, nonlinearity='tanh')", [_arr(2, 3), _arr(2, 4)]),
    # attention, transformers (eval: no dropout)
    ("nn.MultiheadAttention(8, 2, add_bias_kv=True, add_zero_attn=True, kdim=4, vdim=6)",
     [_arr(3, 2, 8), _arr(5, 2, 4), _arr(5, 2, 6)]),
    ("nn.MultiheadAttention(8, 4, batch_first=True)", [_arr(2, 3, 8), _arr(2, 5, 8), _arr(2, 5, 8)],
     "m(*xs, key_padding_mask=torch.tensor([[False] * 4 + [True], [False] * 5]), "
     "attn_mask=torch.triu(torch.ones(3, 5, dtype=torch.bool), 1), average_attn_weights=False)"),
    ("nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, "
     "norm_first=True, activation='gelu'), 2, norm=nn.LayerNorm(8))", [_arr(4, 2, 8)]),
    ("nn.Transformer(8, 2, 1, 1, 16, dropout=0.0, batch_first=True)", [_arr(2, 4, 8), _arr(2, 3, 8)],
     "m(*xs, tgt_mask=nn.Transformer.generate_square_subsequent_mask(3))"),
]

IDS = [c[0].split("(")[0] + f"-{i}" for i, c in enumerate(CASES)]


@pytest.mark.parametrize("case", CASES, ids=IDS)
def test_module_matches_torch_with_torch_weights(case):
    ctor, inputs = case[0], case[1]
    fwd = case[2] if len(case) > 2 else "m(*xs)"
    roundtrip(ctor, inputs, fwd, train=True)


LOSSES = [
    ("nn.L1Loss()", [_arr(3, 4), _arr(3, 4)]),
    ("nn.MSELoss(reduction='sum')", [_arr(3, 4), _arr(3, 4)]),
    ("nn.SmoothL1Loss(beta=0.5)", [_arr(3, 4), _arr(3, 4)]),
    ("nn.HuberLoss(delta=0.5, reduction='none')", [_arr(3, 4), _arr(3, 4)]),
    ("nn.CrossEntropyLoss(weight=torch.tensor([1., 2., .5, 3.]), label_smoothing=0.2, "
     "ignore_index=1)", [_arr(5, 4), np.array([0, 1, 3, 2, 1])]),
    ("nn.CrossEntropyLoss()", [_arr(2, 4, 3), np.abs(_arr(2, 4, 3))]),
    ("nn.NLLLoss(weight=torch.tensor([1., 2., .5]))", [_arr(2, 3, 4), np.array([[0, 1, 2, 1]] * 2)]),
    ("nn.BCELoss(weight=torch.tensor([1., 2., .5]))",
     [rng.uniform(0.05, 0.95, (4, 3)).astype("float32"), rng.uniform(0, 1, (4, 3)).astype("float32")]),
    ("nn.BCEWithLogitsLoss(pos_weight=torch.tensor([1., 2., .5]))",
     [_arr(4, 3), rng.uniform(0, 1, (4, 3)).astype("float32")]),
    ("nn.KLDivLoss(reduction='batchmean', log_target=True)", [_arr(3, 4), _arr(3, 4)]),
    ("nn.CosineEmbeddingLoss(margin=0.2)", [_arr(4, 5), _arr(4, 5), np.array([1, -1, 1, -1])]),
    ("nn.MarginRankingLoss(0.3)", [_arr(5), _arr(5), np.array([1., -1., 1., -1., 1.], "float32")]),
    ("nn.HingeEmbeddingLoss(0.5)", [_arr(6), np.array([1., -1., 1., -1., 1., 1.], "float32")]),
    ("nn.TripletMarginLoss(margin=0.5, p=1.0, swap=True)", [_arr(4, 5), _arr(4, 5), _arr(4, 5)]),
    ("nn.MultiLabelMarginLoss()", [_arr(2, 4), np.array([[3, 0, -1, 1], [1, 2, 3, -1]])]),
    ("nn.MultiLabelSoftMarginLoss(weight=torch.tensor([1., 2., .5, 1.]))",
     [_arr(3, 4), rng.integers(0, 2, (3, 4)).astype("float32")]),
    ("nn.MultiMarginLoss(p=2, margin=0.5, weight=torch.tensor([1., 2., .5, 1.]))",
     [_arr(3, 4), np.array([0, 3, 1])]),
    ("nn.SoftMarginLoss()", [_arr(3, 4), np.sign(_arr(3, 4))], "m(xs[0], xs[1].detach())"),
    ("nn.PoissonNLLLoss(log_input=False, full=True)",
     [np.abs(_arr(3, 4)) + 0.1, np.abs(_arr(3, 4)) * 3], "m(xs[0], xs[1].detach())"),
    ("nn.GaussianNLLLoss(full=True)", [_arr(3, 4), _arr(3, 4), np.abs(_arr(3, 1)) + 0.1]),
]


@pytest.mark.parametrize("case", LOSSES, ids=[c[0].split("(")[0] + f"-{i}" for i, c in enumerate(LOSSES)])
def test_loss_matches_torch(case):
    ctor, inputs = case[0], case[1]
    fwd = case[2] if len(case) > 2 else "m(*xs)"
    roundtrip(ctor, inputs, fwd)


@pytest.mark.parametrize("ctor", [
    "nn.BatchNorm1d(3)", "nn.Dropout(0.5)", "nn.Dropout2d(0.3)", "nn.AlphaDropout(0.2)",
])
def test_eval_mode(ctor):
    """eval(): running statistics are used, dropouts are the identity (exact values)."""
    roundtrip(ctor, [_arr(4, 3, 5)] if "2d" in ctor else [_arr(4, 3)], train=False)


def test_init_scheme_bounds_and_fans():
    """torch's reset_parameters: kaiming_uniform(a=sqrt(5)) -> weights and biases within
    1/sqrt(fan_in); MultiheadAttention's xavier in_proj and zero biases; RNN's 1/sqrt(hidden)."""
    difftest.check("""
import math
import torch
import torch.nn as nn
def f():
    out = []
    for m, fan_in in ((nn.Conv2d(8, 16, 3), 8 * 9), (nn.ConvTranspose1d(8, 6, 4, groups=2), 3 * 4),
                      (nn.Linear(50, 40), 50), (nn.Bilinear(20, 5, 30), 20)):
        b = 1 / math.sqrt(fan_in)
        w = m.weight.detach()
        out += [bool(w.abs().max() <= b), bool(w.abs().max() > 0.8 * b),
                bool(m.bias.detach().abs().max() <= b)]
    mha = nn.MultiheadAttention(16, 4)
    a = math.sqrt(6 / (16 + 48))
    out += [bool(mha.in_proj_weight.detach().abs().max() <= a),
            float(mha.in_proj_bias.detach().abs().sum()), float(mha.out_proj.bias.detach().abs().sum())]
    lstm = nn.LSTM(10, 25)
    out += [bool(max(p.detach().abs().max() for p in lstm.parameters()) <= 0.2)]
    bn = nn.BatchNorm2d(4)
    out += [bn.weight.detach(), bn.bias.detach(), bn.running_var, bn.num_batches_tracked]
    e = nn.Embedding(10, 3, padding_idx=2)
    out += [e.weight.detach()[2]]
    return out
""")


def test_containers_and_module_api():
    difftest.check("""
import torch
import torch.nn as nn
def f(x):
    seq = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2))
    seq.append(nn.Tanh())
    names = [n for n, _ in seq.named_parameters()]
    kids = [type(c).__name__ for c in seq.children()]
    sub = seq[0:2]
    pl = nn.ParameterList([nn.Parameter(torch.ones(2)), nn.Parameter(torch.zeros(3))])
    pd = nn.ParameterDict({"w": nn.Parameter(torch.ones(2))})
    md = nn.ModuleDict({"a": nn.Linear(2, 2)})
    seq.eval()
    flags = [m.training for m in seq.modules()]
    seq.train()
    res = seq.load_state_dict(seq.state_dict())
    return (names, kids, len(seq), len(sub), type(seq[-1]).__name__, len(pl), list(pd.keys()),
            "a" in md, flags, [m.training for m in seq.modules()], list(res.missing_keys),
            sorted(pl.state_dict().keys()), seq(x).shape)
""", _arr(5, 4))


def test_load_state_dict_errors():
    for src in ("""
import torch
import torch.nn as nn
def f():
    nn.Linear(3, 2).load_state_dict({"weight": torch.ones(2, 3)})
""", """
import torch
import torch.nn as nn
def f():
    nn.Linear(3, 2).load_state_dict({"weight": torch.ones(3, 3), "bias": torch.ones(2)})
""", """
import torch
import torch.nn as nn
def f():
    r = nn.Linear(3, 2).load_state_dict({"weight": torch.ones(2, 3), "x": torch.ones(1)}, strict=False)
    return list(r.missing_keys), list(r.unexpected_keys)
"""):
        difftest.check(src)


def test_to_empty_and_get_buffer():
    difftest.check("""
import torch
import torch.nn as nn
def f():
    m = nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2))
    w = m[0].weight
    r = m.to_empty(device="cpu")
    names = sorted((n, tuple(p.shape), p.requires_grad) for n, p in m.named_parameters())
    bufs = sorted((n, tuple(b.shape)) for n, b in m.named_buffers())
    dts = [b.dtype for _, b in sorted(m.named_buffers())]
    return (r is m, m[0].weight is w, names, bufs, dts, tuple(m.get_buffer("1.running_mean").shape),
            isinstance(m[0].weight, nn.Parameter))
""")
