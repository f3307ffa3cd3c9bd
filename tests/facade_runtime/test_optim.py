"""torch.optim and lr_scheduler on the facade's modules vs real torch 2.13: the same weights
after several steps from the same initial weights and data; state dicts; schedules."""
import io

import numpy as np
import pytest

from difftest import check, load

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
X = rng.standard_normal((8, 4)).astype("float32")
Y = rng.standard_normal((8, 3)).astype("float32")
W = (rng.standard_normal((3, 4)) * 0.5).astype("float32")
B = (rng.standard_normal((3,)) * 0.1).astype("float32")

TRAIN = """
import torch
def f(x, y, w, b):
    m = torch.nn.Linear(4, 3)
    m.weight = torch.nn.Parameter(w.clone())
    m.bias = torch.nn.Parameter(b.clone())
    opt = {opt}
    hist = []
    for i in range({steps}):
        opt.zero_grad()
        loss = ((m(x) - y) ** 2).mean()
        loss.backward()
        opt.step()
        hist.append((m.weight.detach().clone(), m.bias.detach().clone()))
    return hist, loss.detach()
"""

OPTIMIZERS = [
    "torch.optim.SGD(m.parameters(), lr=0.1)",
    "torch.optim.SGD(m.parameters(), lr=0.1, momentum=0.9)",
    "torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.9, nesterov=True, weight_decay=0.01)",
    "torch.optim.SGD(m.parameters(), lr=0.05, momentum=0.5, dampening=0.3, maximize=True)",
    "torch.optim.Adam(m.parameters(), lr=0.05)",
    "torch.optim.Adam(m.parameters(), lr=0.05, betas=(0.8, 0.99), weight_decay=0.1, amsgrad=True)",
    "torch.optim.Adam(m.parameters(), lr=0.05, decoupled_weight_decay=True, weight_decay=0.1)",
    "torch.optim.AdamW(m.parameters(), lr=0.05)",
    "torch.optim.AdamW(m.parameters(), lr=0.05, weight_decay=0.5, amsgrad=True)",
    "torch.optim.RMSprop(m.parameters(), lr=0.01)",
    "torch.optim.RMSprop(m.parameters(), lr=0.01, momentum=0.9, centered=True, weight_decay=0.1)",
    "torch.optim.Adagrad(m.parameters(), lr=0.1)",
    "torch.optim.Adagrad(m.parameters(), lr=0.1, lr_decay=0.1, weight_decay=0.05, "
    "initial_accumulator_value=0.2)",
    "torch.optim.Adam([{'params': [m.weight]}, {'params': [m.bias], 'lr': 0.2}], lr=0.01)",
    "torch.optim.SGD([{'params': [m.weight], 'momentum': 0.5}, {'params': m.bias}], lr=0.1)",
    "torch.optim.Adadelta(m.parameters())",
    "torch.optim.Adadelta(m.parameters(), lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)",
    "torch.optim.Adamax(m.parameters(), lr=0.05)",
    "torch.optim.Adamax(m.parameters(), lr=0.05, betas=(0.5, 0.9), weight_decay=0.1)",
    "torch.optim.NAdam(m.parameters(), lr=0.05)",
    "torch.optim.NAdam(m.parameters(), lr=0.05, momentum_decay=0.01, weight_decay=0.1, "
    "decoupled_weight_decay=True)",
    "torch.optim.RAdam(m.parameters(), lr=0.05)",
    "torch.optim.RAdam(m.parameters(), lr=0.05, betas=(0.5, 0.9), weight_decay=0.1)",
]


@pytest.mark.parametrize("opt", OPTIMIZERS)
def test_steps_match_torch(opt):
    check(TRAIN.format(opt=opt, steps=8), X, Y, W, B, rtol=2e-5, atol=2e-6)


@pytest.mark.parametrize("name", ["Adadelta", "Adamax", "NAdam", "RAdam", "RMSprop", "Adagrad"])
def test_state_dict_like_torch(name):
    check(f"""
import torch
def f(x, y, w, b):
    m = torch.nn.Linear(4, 3)
    m.weight = torch.nn.Parameter(w.clone())
    m.bias = torch.nn.Parameter(b.clone())
    opt = torch.optim.{name}(m.parameters())
    for _ in range(2):
        opt.zero_grad()
        ((m(x) - y) ** 2).mean().backward()
        opt.step()
    return opt.state_dict()
""", X, Y, W, B, rtol=2e-5, atol=2e-6)


def test_zero_grad_set_to_none_and_state_dict_layout():
    check("""
import torch
def f(x, y, w, b):
    m = torch.nn.Linear(4, 3)
    m.weight = torch.nn.Parameter(w.clone())
    m.bias = torch.nn.Parameter(b.clone())
    opt = torch.optim.Adam(m.parameters(), lr=0.01, amsgrad=True)
    ((m(x) - y) ** 2).mean().backward()
    opt.step()
    opt.zero_grad(set_to_none=False)
    zeroed = (m.weight.grad is not None, float(m.weight.grad.abs().sum()))
    opt.zero_grad()
    sd = opt.state_dict()
    return zeroed, m.weight.grad is None, sd, len(opt.param_groups), sorted(opt.defaults)
""", X, Y, W, B)


def test_continue_from_a_real_torch_checkpoint():
    """Real torch trains 3 steps and saves model + optimizer; the facade loads both (its
    torch.load) and continues; both continue 3 more steps and agree."""
    tm = torch.nn.Linear(4, 3)
    with torch.no_grad():
        tm.weight.copy_(torch.from_numpy(W))
        tm.bias.copy_(torch.from_numpy(B))
    topt = torch.optim.Adam(tm.parameters(), lr=0.05, amsgrad=True)
    x, y = torch.from_numpy(X), torch.from_numpy(Y)

    def step(m, opt, x, y):
        opt.zero_grad()
        ((m(x) - y) ** 2).mean().backward()
        opt.step()

    for _ in range(3):
        step(tm, topt, x, y)
    buf = io.BytesIO()
    torch.save({"model": tm.state_dict(), "opt": topt.state_dict()}, buf)
    mod = load("""
import torch
def f(data, x, y, steps):
    ck = torch.load(data)
    m = torch.nn.Linear(4, 3)
    m.load_state_dict(ck["model"]) if hasattr(m, "load_state_dict") else m.set_state_dict(ck["model"])
    opt = torch.optim.Adam(m.parameters(), lr=0.05, amsgrad=True)
    opt.load_state_dict(ck["opt"])
    for _ in range(steps):
        opt.zero_grad()
        ((m(x) - y) ** 2).mean().backward()
        opt.step()
    return m.weight.detach().numpy(), float(opt.state_dict()["state"][0]["step"])
""", scoped=True)
    import paddle
    buf.seek(0)
    w, s = mod.f(buf, paddle.to_tensor(X), paddle.to_tensor(Y), 3)
    for _ in range(3):
        step(tm, topt, x, y)
    np.testing.assert_allclose(w, tm.weight.detach().numpy(), rtol=2e-5, atol=2e-6)
    assert s == 6.0 == float(topt.state_dict()["state"][0]["step"])


SCHED = """
import torch
def f():
    p = torch.nn.Parameter(torch.zeros(2))
    opt = {opt}
    s = {sched}
    lrs = [s.get_last_lr()]
    moms = []
    for i in range({n}):
        opt.step()
        s.step({arg})
        lrs.append(s.get_last_lr())
        g = opt.param_groups[0]
        moms.append(g.get("momentum", g.get("betas")))
    return lrs, moms, s.last_epoch
"""

SCHEDULERS = [
    ("torch.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5)", 10, ""),
    ("torch.optim.lr_scheduler.MultiStepLR(opt, milestones=[2, 5, 5, 8], gamma=0.3)", 10, ""),
    ("torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.9)", 8, ""),
    ("torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=5, eta_min=0.01)", 14, ""),
    ("torch.optim.lr_scheduler.LambdaLR(opt, lambda e: 1.0 / (e + 1))", 6, ""),
    ("torch.optim.lr_scheduler.MultiplicativeLR(opt, lambda e: 0.9)", 6, ""),
    ("torch.optim.lr_scheduler.LinearLR(opt, start_factor=0.25, total_iters=4)", 8, ""),
    ("torch.optim.lr_scheduler.ConstantLR(opt, factor=0.5, total_iters=3)", 6, ""),
    ("torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=12)", 12, ""),
    ("torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=[0.5], epochs=2, steps_per_epoch=5, "
     "anneal_strategy='linear', three_phase=True)", 10, ""),
    ("torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.LinearLR(opt, "
     "start_factor=0.1, total_iters=3), torch.optim.lr_scheduler.ExponentialLR(opt, gamma=0.8)], "
     "milestones=[3])", 9, ""),
    ("torch.optim.lr_scheduler.SequentialLR(opt, [torch.optim.lr_scheduler.ConstantLR(opt, "
     "factor=0.5, total_iters=2), torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=4), "
     "torch.optim.lr_scheduler.StepLR(opt, 2)], milestones=[2, 6])", 10, ""),
    ("torch.optim.lr_scheduler.StepLR(opt, step_size=2)", 5, "epoch=7"),
    ("torch.optim.lr_scheduler.CosineAnnealingLR(opt, T_max=10)", 4, "epoch=3"),
]


@pytest.mark.parametrize("sched,n,arg", SCHEDULERS)
@pytest.mark.parametrize("opt", ["torch.optim.SGD([p], lr=0.1, momentum=0.9)",
                                 "torch.optim.Adam([p], lr=0.1)"])
def test_schedules_match_torch(sched, n, arg, opt):
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        check(SCHED.format(opt=opt, sched=sched, n=n, arg=arg))


def test_reduce_lr_on_plateau():
    check("""
import torch
def f():
    p = torch.nn.Parameter(torch.zeros(2))
    opt = torch.optim.SGD([p], lr=1.0)
    s = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, factor=0.5, patience=1, cooldown=1,
                                                   min_lr=0.1)
    s2 = torch.optim.lr_scheduler.ReduceLROnPlateau(opt, mode="max", threshold_mode="abs",
                                                    threshold=0.5, patience=0)
    out = []
    for metric in [5, 4, 4, 4, 4, 4, 3.9999, 4, 4, 4, 4, 4, 4]:
        s.step(metric)
        out.append((s.get_last_lr(), s.num_bad_epochs, s.cooldown_counter, s.best))
    s2.step(1.0); s2.step(1.2)
    return out, s2.get_last_lr()
""")


def test_scheduler_state_dict_round_trip():
    check("""
import torch
def f():
    p = torch.nn.Parameter(torch.zeros(2))
    opt = torch.optim.SGD([p], lr=1.0)
    s = torch.optim.lr_scheduler.StepLR(opt, step_size=2, gamma=0.5)
    for _ in range(3):
        opt.step(); s.step()
    sd = s.state_dict()
    opt2 = torch.optim.SGD([p], lr=1.0)
    s2 = torch.optim.lr_scheduler.StepLR(opt2, step_size=5)
    s2.load_state_dict(sd)
    s2.step()
    return sorted(sd), sd["last_epoch"], sd["_last_lr"], s2.get_last_lr(), s2.step_size
""")


@pytest.mark.parametrize("call", [
    "torch.optim.SGD([p], lr=-1)", "torch.optim.SGD([p], lr=0.1, nesterov=True)",
    "torch.optim.SGD([p], lr=0.1, momentum=-0.5)", "torch.optim.Adam([p], betas=(1.0, 0.9))",
    "torch.optim.Adam([p], eps=-1)", "torch.optim.AdamW([p], weight_decay=-1)",
    "torch.optim.RMSprop([p], alpha=-1)", "torch.optim.Adagrad([p], lr_decay=-1)",
    "torch.optim.SGD([], lr=0.1)", "torch.optim.SGD(p, lr=0.1)", "torch.optim.SGD({p}, lr=0.1)",
    "torch.optim.SGD([p, p], lr=0.1)",
    "torch.optim.SGD([{'params': [p]}, {'params': [p]}], lr=0.1)",
    "torch.optim.lr_scheduler.StepLR(object(), 2)",
    "torch.optim.lr_scheduler.LinearLR(torch.optim.SGD([p], lr=0.1), start_factor=0)",
    "torch.optim.lr_scheduler.OneCycleLR(torch.optim.SGD([p], lr=0.1), max_lr=1.0)",
    "torch.optim.lr_scheduler.OneCycleLR(torch.optim.Adagrad([p]), max_lr=1.0, total_steps=3)",
    "torch.optim.lr_scheduler.ReduceLROnPlateau(torch.optim.SGD([p], lr=0.1), factor=2)",
    "torch.optim.lr_scheduler.ReduceLROnPlateau(torch.optim.SGD([p], lr=0.1), mode='avg')",
    "torch.optim.SGD([p], lr=0.1).load_state_dict({'state': {}, 'param_groups': []})",
])
def test_argument_errors_like_torch(call):
    check(f"""
import torch
def f():
    p = torch.nn.Parameter(torch.zeros(2))
    return {call}
""")


def test_one_cycle_past_total_steps_raises_like_torch():
    check("""
import torch
def f():
    p = torch.nn.Parameter(torch.zeros(2))
    opt = torch.optim.SGD([p], lr=0.1, momentum=0.9)
    s = torch.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=3)
    for _ in range(4):
        opt.step()
        s.step()
""")
