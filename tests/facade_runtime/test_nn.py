"""torch.nn.functional and torch.nn.Module / Parameter: real torch vs the facade."""
import numpy as np
import paddle
import pytest

from difftest import check

rng = np.random.default_rng(1)
X3 = rng.standard_normal((2, 3, 4)).astype("float32")
X2 = rng.standard_normal((4, 5)).astype("float32")
W = rng.standard_normal((3, 5)).astype("float32")  # linear: [out, in]
B = rng.standard_normal((3,)).astype("float32")


@pytest.mark.parametrize("call", [
    "F.softmax(x, dim=-1)", "F.softmax(x, 1)", "F.softmax(x, dim=0)",
    "F.log_softmax(x, dim=-1)", "F.log_softmax(x, dim=1)",
    "F.gelu(x)", "F.gelu(x, approximate='tanh')", "F.silu(x)", "F.relu(x)",
    "F.sigmoid(x)", "F.tanh(x)",
    "F.layer_norm(x, (4,))", "F.layer_norm(x, [3, 4], eps=1e-3)",
    "F.layer_norm(x, 4, torch.ones(4) * 2, torch.ones(4))",
    "F.normalize(x, dim=-1)", "F.normalize(x, p=1.0, dim=1)",
    "F.dropout(x, p=0.3, training=False)", "F.dropout(x, p=0.0)",
    "F.pad(x, (1, 2))", "F.pad(x, (1, 0, 0, 2), value=3.5)", "F.pad(x, [0, 0, 0, 0, 1, 1])",
    "F.pad(x, (-1, 1))", "F.pad(x, (1, 1, 1, 1), mode='reflect')",
    "F.pad(x, (2, 1), mode='replicate')", "F.pad(x, (1, 2), mode='circular')",
    "F.gelu(x, approximate='exact')",
])
def test_functional_3d(call):
    check(f"""
import torch
import torch.nn.functional as F
def f(x):
    return {call}
""", X3)


@pytest.mark.parametrize("call", ["F.linear(x, w)", "F.linear(x, w, b)"])
def test_linear_torch_weight_layout_and_grads(call):
    check(f"""
import torch
import torch.nn.functional as F
def f(x, w, b):
    w = w.requires_grad_()
    y = {call}
    (y * y).sum().backward()
    return y, w.grad
""", X2, W, B)


@pytest.mark.parametrize("kw", ["", ", reduction='sum'", ", reduction='none'", ", ignore_index=2",
                                ", label_smoothing=0.1", ", weight=torch.tensor([1., 2., 0.5, 1., 3.])"])
def test_cross_entropy_index_targets(kw):
    check(f"""
import torch
import torch.nn.functional as F
def f(x):
    target = torch.tensor([0, 2, 4, 2])
    x = x.requires_grad_()
    loss = F.cross_entropy(x, target{kw})
    loss.sum().backward()
    return loss, x.grad
""", X2)


def test_cross_entropy_class_dim_1_and_probability_targets():
    check("""
import torch
import torch.nn.functional as F
def f(x):
    target = torch.tensor([[0, 1, 3, 3], [2, 2, 1, 0]])     # (N, d) for input (N, C, d)
    a = F.cross_entropy(x, target)
    probs = F.softmax(x * 2, dim=1)
    b = F.cross_entropy(x, probs)
    return a, b
""", X3)


def test_embedding_with_padding_idx_keeps_value_zeroes_grad():
    check("""
import torch
import torch.nn.functional as F
def f(w):
    w = w.requires_grad_()
    idx = torch.tensor([[0, 1, 2], [1, 3, 1]])
    out = F.embedding(idx, w, padding_idx=1)
    (out * out).sum().backward()
    return out, w.grad
""", X2)


def test_mse_loss():
    check("""
import torch
import torch.nn.functional as F
def f(x, y):
    return F.mse_loss(x, y), F.mse_loss(x, y, reduction="sum"), F.mse_loss(x, y, reduction="none")
""", X2, X2[::-1].copy())


MODULE = """
import torch
import torch.nn as nn
class RMSNorm(nn.Module):                       # the shape of Liger-Kernel's LigerRMSNorm
    def __init__(self, hidden_size, eps=1e-6):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(hidden_size))
        self.variance_epsilon = eps
        self.register_buffer("scale", torch.ones(1) * 2, persistent=False)
    def forward(self, x):
        var = (x * x).mean(-1, keepdim=True)
        return self.weight * x / torch.sqrt(var + self.variance_epsilon) * self.scale
    def extra_repr(self):
        return f"{tuple(self.weight.shape)}, eps={self.variance_epsilon}"
"""


def test_module_forward_and_parameter_grads():
    check(MODULE + """
def f(x):
    m = RMSNorm(4)
    y = m(x)
    y.sum().backward()
    names = [n for n, _ in m.named_parameters()]
    return y, m.weight.grad, names, len(list(m.parameters())), isinstance(m.weight, nn.Parameter), \\
        m.weight.requires_grad, m.extra_repr(), m.training, isinstance(m, nn.Module)
""", X3)


def test_parameter_shares_memory_and_requires_grad_flag():
    check("""
import torch
import torch.nn as nn
def f(x):
    p = nn.Parameter(x)
    q = nn.Parameter(x, requires_grad=False)
    with torch.no_grad():
        p.add_(p)                             # in place: x sees it
    return x, p.requires_grad, q.requires_grad, isinstance(p, torch.Tensor), isinstance(x, nn.Parameter)
""", X2)


def test_module_nesting_train_eval_zero_grad():
    check(MODULE + """
class Block(nn.Module):
    def __init__(self):
        super().__init__()
        self.norm = RMSNorm(4)
        self.bias = nn.Parameter(torch.zeros(4))
    def forward(self, x):
        return self.norm(x) + self.bias
def f(x):
    b = Block()
    b.eval()
    mode = (b.training, b.norm.training)
    b.train()
    b(x).sum().backward()
    had = b.bias.grad is not None
    b.zero_grad()
    return mode, b.norm.training, had, b.bias.grad is None, sorted(n for n, _ in b.named_parameters()), \\
        len(list(b.modules()))
""", X3)


def test_module_to_dtype():
    check(MODULE + """
def f(x):
    m = RMSNorm(4).to(torch.float64)
    h = RMSNorm(4).half()
    return m.weight.dtype, h.weight.dtype, m(x.double())
""", X3)


def test_module_without_forward_raises_not_implemented():
    check("""
import torch
import torch.nn as nn
class Empty(nn.Module):
    pass
def f(x):
    return Empty()(x)
""", X2)


def test_paddle_layer_unaffected():
    lin = paddle.nn.Linear(5, 3)
    assert list(lin.weight.shape) == [5, 3]  # Paddle's own layout, untouched
    assert not issubclass(paddle.nn.Layer, __import__("torchproxy.facade.nn", fromlist=["Module"]).Module)


@pytest.mark.parametrize("call", ["F.rms_norm(x, [4])", "F.rms_norm(x, (3, 4), eps=1e-3)",
                                  "F.rms_norm(x, [4], torch.ones(4) * 0.5)"])
def test_rms_norm(call):
    check(f"""
import torch
import torch.nn.functional as F
def f(x):
    return {call}
""", X3)


def test_nn_import_forms():
    check("""
import torch
from torch.nn.modules.module import Module
from torch.nn.parameter import Parameter
from torch.nn import functional as F
class M(Module):
    def __init__(self):
        super().__init__()
        self.w = Parameter(torch.ones(4) * 3)
    def forward(self, x):
        return F.silu(x) * self.w
def f(x):
    m = M()
    return m(x), isinstance(m.w, torch.nn.Parameter), isinstance(m, torch.nn.Module)
""", X3)


LAYERS = """
import torch
import torch.nn as nn
class MLP(nn.Module):                           # the shape of Liger-Kernel's LigerSwiGLUMLP
    def __init__(self, hidden, inter):
        super().__init__()
        self.gate_proj = nn.Linear(hidden, inter, bias=False)
        self.up_proj = nn.Linear(hidden, inter, bias=False)
        self.down_proj = nn.Linear(inter, hidden, bias=True)
        self.norm = nn.LayerNorm(hidden)
        self.act = nn.SiLU()
    def forward(self, x):
        return self.down_proj(self.act(self.gate_proj(self.norm(x))) * self.up_proj(x))
def load(m, g, u, d, db):
    m.gate_proj.weight = nn.Parameter(g)
    m.up_proj.weight = nn.Parameter(u)
    m.down_proj.weight = nn.Parameter(d)
    m.down_proj.bias = nn.Parameter(db)
"""
G = rng.standard_normal((6, 4)).astype("float32")
U = rng.standard_normal((6, 4)).astype("float32")
D = rng.standard_normal((4, 6)).astype("float32")
DB = rng.standard_normal((4,)).astype("float32")


def test_layers_forward_backward_and_structure():
    check(LAYERS + """
def f(x, g, u, d, db):
    m = MLP(4, 6)
    shapes = [tuple(p.shape) for _, p in sorted(m.named_parameters())]
    bias_none = m.gate_proj.bias is None
    load(m, g, u, d, db)
    y = m(x)
    y.sum().backward()
    return y, m.gate_proj.weight.grad, m.down_proj.bias.grad, m.norm.weight.grad, shapes, \\
        bias_none, repr(m.gate_proj.extra_repr()), m.norm.extra_repr()
""", X3, G, U, D, DB)


def test_linear_init_follows_torch_bounds():
    from torchproxy.facade import modules
    torch = modules.build()["torch"]
    m = torch.nn.Linear(64, 32)
    w, b = m.weight.numpy(), m.bias.numpy()
    bound = 1 / np.sqrt(64)
    assert w.shape == (32, 64) and b.shape == (32,)
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    assert w.std() > bound / 4  # spread over the interval, not a constant
    assert m.weight.dtype == paddle.float32
    assert torch.nn.Linear(4, 2, dtype=torch.float64).weight.dtype == paddle.float64


def test_embedding_dropout_loss_modulelist_activations():
    check("""
import torch
import torch.nn as nn
def f(x, w):
    emb = nn.Embedding(4, 5, padding_idx=1)
    row = emb.weight[1]                          # zeroed at init, as torch
    emb.weight = nn.Parameter(w)
    idx = torch.tensor([[0, 1], [3, 2]])
    e = emb(idx)
    drop = nn.Dropout(0.5)
    drop.eval()
    ml = nn.ModuleList([nn.ReLU(), nn.GELU(approximate="tanh"), nn.Softmax(dim=-1), nn.Identity()])
    ml.append(nn.SiLU())
    outs = [layer(x) for layer in ml]
    loss = nn.CrossEntropyLoss(label_smoothing=0.05)(x, torch.tensor([1, 0, 4, 2]))
    return row, e, drop(x), outs, len(ml), loss, emb.padding_idx
""", X2, X2)


@pytest.mark.parametrize("kw", ["", ", reduction='sum'", ", reduction='batchmean'",
                                ", reduction='none'", ", log_target=True"])
def test_kl_div(kw):
    check(f"""
import torch
import torch.nn.functional as F
def f(x, y):
    logp = F.log_softmax(x, dim=-1)
    target = F.softmax(y, dim=-1) if "log_target" not in "{kw}" else F.log_softmax(y, dim=-1)
    target = torch.where(target < 0.1, torch.zeros_like(target), target) if "log_target" not in "{kw}" else target
    return F.kl_div(logp, target{kw})
""", X2, X2[::-1].copy())


def test_torch_module_inside_a_paddle_model_trains_with_a_paddle_optimizer():
    from torchproxy.facade import modules
    torch = modules.build()["torch"]

    class Scale(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.w = torch.nn.Parameter(paddle.ones([3]))
            self.register_buffer("shift", paddle.zeros([3]))

        def forward(self, x):
            return x * self.w + self.shift

    class Model(paddle.nn.Layer):
        def __init__(self):
            super().__init__()
            self.scale = Scale()
            self.lin = paddle.nn.Linear(3, 1)

        def forward(self, x):
            return self.lin(self.scale(x))

    model = Model()
    assert [n for n, _ in model.named_parameters()] == ["scale.w", "lin.weight", "lin.bias"]
    assert isinstance(model.parameters(), list)  # Paddle's Layer API for the Paddle model
    assert sorted(model.state_dict()) == ["lin.bias", "lin.weight", "scale.shift", "scale.w"]
    opt = paddle.optimizer.SGD(learning_rate=0.1, parameters=model.parameters())
    x = paddle.ones([2, 3])
    w_before = model.scale.w.numpy().copy()
    model(x).sum().backward()
    expected_grad = 2 * model.lin.weight.numpy()[:, 0]  # d/dw of sum(lin(x*w)) with x = 1
    np.testing.assert_allclose(model.scale.w.grad.numpy(), expected_grad, rtol=1e-6)
    opt.step()
    np.testing.assert_allclose(model.scale.w.numpy(), w_before - 0.1 * expected_grad, rtol=1e-6)


IMG = rng.standard_normal((2, 3, 6, 6)).astype("float32")
KER = rng.standard_normal((4, 3, 3, 3)).astype("float32")
SEQ = rng.standard_normal((2, 3, 8)).astype("float32")


@pytest.mark.parametrize("call", [
    "F.conv2d(x, w)", "F.conv2d(x, w, b, stride=2, padding=1)", "F.conv2d(x, w, padding='same')",
    "F.conv2d(x, w, dilation=2)", "F.conv2d(x, w[:3, :1].contiguous(), groups=3)",
    "F.conv1d(s, w[:, :, 0], b, padding=1)", "F.conv1d(s, w[:, :, 0], padding='valid')",
])
def test_conv(call):
    check(f"""
import torch
import torch.nn.functional as F
def f(x, w, b, s):
    return {call}
""", IMG, KER, np.arange(4, dtype="float32"), SEQ)


@pytest.mark.parametrize("call", [
    "F.logsigmoid(x)", "F.softplus(x)", "F.softplus(x * 30, beta=2.0, threshold=10.0)",
    "F.cosine_similarity(x, x.flip(0), dim=-1)", "F.cosine_similarity(x, x * 2)",
    "F.nll_loss(F.log_softmax(x, dim=-1), torch.tensor([0, 4, 2, 1]))",
    "F.nll_loss(F.log_softmax(x, dim=-1), torch.tensor([0, 4, 2, 1]), reduction='none', ignore_index=4)",
])
def test_more_functional(call):
    check(f"""
import torch
import torch.nn.functional as F
def f(x):
    return {call}
""", X2)


def test_ntuple_helpers():
    check("""
from torch.nn.modules.utils import _pair, _single, _triple, _quadruple
def f():
    return _pair(3), _pair((1, 2)), _single(4), _triple([1, 2, 3]), _quadruple(0), _pair("ab")
""")


@pytest.mark.skipif(paddle.is_compiled_with_cuda(), reason="the no-CUDA answer")
@pytest.mark.parametrize("call", ["m.to('cuda')", "m.cuda()", "m.to(torch.device('cuda', 0))",
                                  "m.to('cpu').weight.shape"])
def test_module_to_cuda_without_cuda_like_torch(call):
    check(f"""
import torch
import torch.nn as nn
def f():
    m = nn.Linear(2, 3)
    return {call}
""")


@pytest.mark.parametrize("kw", ["", "reduction='sum'", "reduction='batchmean'",
                                "reduction='none'", "log_target=True"])
def test_kl_div_loss_module(kw):
    check(f"""
import torch
import torch.nn as nn
import torch.nn.functional as F
class Sub(nn.KLDivLoss):            # Liger-Kernel subclasses it the same way
    pass
def f(x, y):
    loss = Sub({kw})
    target = F.log_softmax(y, dim=-1) if loss.log_target else F.softmax(y, dim=-1)
    return loss(F.log_softmax(x, dim=-1), target), loss.reduction
""", X2, X2 * 0.5)
