"""Random training-loop programs for the autograd-state fuzzer (tests/memory/gradfuzz.py).

A program is plain data: a prelude (2-3 float32 leaves -- two nn.Parameters registered in a
module ``m`` and maybe a plain leaf -- an optimizer ``opt`` over all of them, and the lists
``held`` / ``hooks`` / the dict ``nl`` of non-leaves) and a list of steps, each a few lines of
torch code.  Steps compose what a training loop does to autograd state: forwards through views
into a scalar loss and backward (retain_graph, inputs=), torch.autograd.grad, holding
``p.grad`` in ``held``, releasing / assigning / scaling / updating it in place, module and
optimizer ``zero_grad``, optimizer steps, in-place updates of leaves under no_grad and through
``.data``, retain_grad on non-leaves, gradient hooks, requires_grad_ toggles and detach_.
``program_text`` renders a program as one torch script (what a finding quotes).
"""
from __future__ import annotations

import random

# the views a forward takes of a leaf, by leaf shape ({x}: the leaf)
VIEWS = {
    (3, 4): ["{x}", "{x}[1:]", "{x}[:, ::2]", "{x}.t()", "{x}.transpose(0, 1)[1:]", "{x}[[0, 2]]",
             "{x}.view(12)[2:9]", "{x}.view(4, 3)", "{x}[1]", "{x}.unsqueeze(0).expand(2, 3, 4)",
             "{x}[..., 1:3].t()", "{x}.reshape(2, 6)[:, 1:]", "{x}.narrow(1, 1, 2)"],
    (4,): ["{x}", "{x}[1:]", "{x}.expand(3, 4)", "{x}[[0, 3]]", "{x}.view(2, 2)", "{x}[::2]",
           "{x}.unsqueeze(1).expand(4, 2)", "{x}.flip(0)"],
}
# elementwise maps (bounded: programs run many steps) and reductions to a scalar
FUNCS = ["({v} * 1.5)", "{v}.sin()", "({v} ** 2)", "{v}.tanh()", "({v} * {v})", "{v}"]
REDUCTIONS = [".sum()", ".mean()"]
OPTIMIZERS = [
    "torch.optim.SGD({ps}, lr=0.1, momentum=0.9, weight_decay=0.01)",
    "torch.optim.SGD({ps}, lr=0.1)",
    # eps well above rounding: Adam divides by sqrt(v) + eps, so a gradient that is zero up to
    # rounding (symmetric terms) would move a parameter by lr on either side in its own
    # direction of rounding noise
    "torch.optim.Adam({ps}, lr=0.05, eps=1e-3)",
    "torch.optim.AdamW({ps}, lr=0.05, weight_decay=0.1, eps=1e-3)",
]


def _term(rng, leaves):
    name, shape = rng.choice(leaves)
    view = rng.choice(VIEWS[shape]).format(x=name)
    f = rng.choice(FUNCS).format(v=view)
    return f"{f}{rng.choice(REDUCTIONS)}"


def forward(rng, leaves):
    """A scalar loss through views of one or two leaves."""
    t = _term(rng, leaves)
    r = rng.random()
    if r < 0.4:
        return f"{t} + {_term(rng, leaves)}"
    if r < 0.55:
        return f"{t} * {_term(rng, leaves)}"
    return t


def _nonleaf(rng, leaves):
    name, shape = rng.choice(leaves)
    return rng.choice(["({x} * 2)", "{x}.sin()", "({x} + 1.0)", "{x}.tanh()"]).format(x=name), name


def draw_step(rng, leaves, state):
    names = [n for n, _ in leaves]
    L = rng.choice(names)
    shape_of = dict(leaves)
    kind = rng.choices(
        ["backward", "backward_again", "autograd_grad", "hold", "set_none", "set_tensor",
         "set_scaled", "grad_inplace", "zero_grad", "opt_step", "no_grad_update", "data_update",
         "retain_grad", "hook", "hook_remove", "toggle", "detach_"],
        weights=[16, 3, 4, 8, 4, 4, 3, 5, 5, 6, 3, 3, 3, 3, 1, 3, 2])[0]
    if kind == "backward":
        args = rng.choice(["", "", "retain_graph=True", f"inputs=[{L}]",
                           f"inputs=[{L}], retain_graph=True"])
        return f"loss = {forward(rng, leaves)}\nloss.backward({args})"
    if kind == "backward_again":
        return "loss.backward()"
    if kind == "autograd_grad":
        others = rng.sample(names, rng.randint(1, len(names)))
        extra = rng.choice(["", ", allow_unused=True", ", retain_graph=True",
                            ", allow_unused=True, retain_graph=True"])
        return (f"out = torch.autograd.grad({forward(rng, leaves)}, [{', '.join(others)}]{extra})")
    if kind == "hold":
        return f"held.append({L}.grad)"
    if kind == "set_none":
        return f"{L}.grad = None"
    if kind == "set_tensor":
        other = rng.choice(names)
        value = rng.choice([f"torch.full_like({L}, 0.25)", f"torch.ones({L}.shape) * 0.5",
                            "torch.ones(5)", f"{other}.detach().clone()",
                            f"torch.zeros_like({L}).requires_grad_()"])
        return f"{L}.grad = {value}"
    if kind == "set_scaled":
        return f"{L}.grad = {L}.grad * 2"
    if kind == "grad_inplace":
        idx = "[0]" if shape_of[L] == (3, 4) else "[1:]"
        return rng.choice([f"{L}.grad.zero_()", f"{L}.grad.mul_(0.5)", f"{L}.grad.add_(1.0)",
                           f"{L}.grad{idx} = 3.0"])
    if kind == "zero_grad":
        who = rng.choice(["opt", "m"])
        return f"{who}.zero_grad(set_to_none={rng.choice([True, False])})"
    if kind == "opt_step":
        return "opt.step()"
    if kind == "no_grad_update":
        idx = "[0]" if shape_of[L] == (3, 4) else "[1:]"
        body = rng.choice([f"{L}.mul_(0.9)", f"{L}.sub_(0.1 * {L}.grad)", f"{L}{idx} = 0.5",
                           f"{L}.add_(1.0)"])
        return f"with torch.no_grad():\n    {body}"
    if kind == "data_update":
        idx = "[1]" if shape_of[L] == (3, 4) else "[2:]"
        return rng.choice([f"{L}.data.mul_(0.5)", f"{L}.data = {L}.data * 2",
                           f"{L}.data{idx} = 0.0", f"{L}.data.copy_(torch.full_like({L}, 0.3))"])
    if kind == "retain_grad":
        state["nl"] += 1
        h = f"h{state['nl']}"
        expr, _ = _nonleaf(rng, leaves)
        return (f"{h} = {expr}\n{h}.retain_grad()\nnl['{h}'] = {h}\n"
                f"loss = ({h} * {h}).sum()\nloss.backward(retain_graph=True)")
    if kind == "hook":
        if state["nl"] and rng.random() < 0.3:
            target = f"h{rng.randint(1, state['nl'])}"
        else:
            target = L
        return f"hooks.append({target}.register_hook(lambda g: g * {rng.choice([2, 3, 0.5])}))"
    if kind == "hook_remove":
        return "hooks.pop().remove()"
    if kind == "toggle":
        return f"{L}.requires_grad_({rng.choice([False, True])})"
    # detach_: of a fresh non-leaf, of a retained one, or of a view (torch refuses a view)
    state["nl"] += 1
    d = f"d{state['nl']}"
    r = rng.random()
    if r < 0.4:
        expr, _ = _nonleaf(rng, leaves)
        return f"{d} = {expr}\nnl['{d}'] = {d}\n{d}.detach_()"
    if r < 0.7 and state["nl"] > 1:
        return f"nl['h{rng.randint(1, state['nl'] - 1)}'].detach_()"
    return f"{d} = {L}[1:]\nnl['{d}'] = {d}\n{d}.detach_()"


def draw_program(rng: random.Random, min_steps=4, max_steps=12) -> dict:
    n = rng.choice([2, 3])
    leaves = [("a", (3, 4)), ("b", rng.choice([(3, 4), (4,)]))]
    if n == 3:
        leaves.append(("c", rng.choice([(3, 4), (4,)])))
    state = {"nl": 0}
    steps = [draw_step(rng, leaves, state) for _ in range(rng.randint(min_steps, max_steps))]
    return {"leaves": [[name, list(shape)] for name, shape in leaves],
            "opt": rng.randrange(len(OPTIMIZERS)), "steps": steps}


def draw_programs(seed: int, count: int) -> list:
    rng = random.Random(seed)
    return [draw_program(rng) for _ in range(count)]


def prelude(prog) -> str:
    lines = ["m = torch.nn.Module()"]
    for k, (name, shape) in enumerate(prog["leaves"]):
        n = 1
        for s in shape:
            n *= s
        # not symmetric about 0: sums of odd functions of the leaves are not zero up to rounding
        init = (f"torch.linspace({-1.0 + 0.25 * k}, {1.3 - 0.125 * k}, {n})"
                f".reshape({', '.join(map(str, shape))}{',' if len(shape) == 1 else ''})")
        if name == "c":  # a plain leaf tensor, outside the module
            lines.append(f"{name} = {init}.requires_grad_()")
        else:
            lines.append(f"{name} = torch.nn.Parameter({init})")
            lines.append(f"m.register_parameter('{name}', {name})")
    ps = "[" + ", ".join(name for name, _ in prog["leaves"]) + "]"
    lines.append(f"opt = {OPTIMIZERS[prog['opt']].format(ps=ps)}")
    lines.append("held, hooks, nl = [], [], {}")
    return "\n".join(lines) + "\n"


def program_text(prog) -> str:
    """The whole program as one torch script."""
    return "import torch\n" + prelude(prog) + "".join(s + "\n" for s in prog["steps"])


def ledger_text(prog) -> str:
    """What a ledger entry's ``match`` is searched in."""
    return program_text(prog)
