"""Random chains of torch view ops, generated as torch source text.

A chain is plain JSON data (so a failing one pastes into tests/memory/regressions.json):

    {"dtype": "float32", "shape": [4, 6], "input": "{}[:, 1:5]",
     "ops": ["{}.t()", "{}[1:]", "{}.unsqueeze(0)"], "write": "copy", "reduce": "sum"}

``shape`` is the shape of the root tensor ``base`` (contiguous, values from arange, exact in every
dtype); ``input`` turns it into the chain's input (offset / strided / transposed, or ``{}`` for the
root itself); each op template has one ``{}`` for the tensor before it.  ``source(chain)`` renders
the readable three-line snippet that both sides execute.

Generation draws each op against a real torch tensor (the oracle is in this process), so chains
are valid torch programs; with a small probability the last op is one torch refuses (the error
path is compared too).  Only the text and the seed matter: the same seed gives the same chains.
"""
from __future__ import annotations

import random

FLOAT_DTYPES = ("float32", "float64", "float16", "bfloat16")
COMPLEX_DTYPES = ("complex64", "complex128")
INT_DTYPES = ("int64", "int32", "int16", "int8", "uint8")
DTYPE_WEIGHTS = {"float32": 30, "float64": 10, "float16": 7, "bfloat16": 7, "int64": 8,
                 "int32": 8, "int16": 3, "int8": 3, "uint8": 4, "bool": 6, "complex64": 8,
                 "complex128": 6}
# x.view(dtype) partners: same itemsize and other itemsizes (torch allows both when the last
# dimension is contiguous and divisible)
VIEW_DTYPES = ("float32", "int32", "float64", "int64", "float16", "bfloat16", "int16", "uint8",
               "int8", "complex64")
MAX_NUMEL = 256


def root_expr(dtype: str, shape) -> str:
    n = 1
    for s in shape:
        n *= s
    dims = ", ".join(str(s) for s in shape)
    reshape = f".reshape({dims})" if len(shape) != 1 else f".reshape({dims},)"
    if len(shape) == 0:
        reshape = ".reshape(())"
    if dtype == "bool":
        return f"(torch.arange({n}) % 3 == 0){reshape}"
    if dtype in COMPLEX_DTYPES:
        part = "float32" if dtype == "complex64" else "float64"
        return (f"torch.complex(torch.arange({n}, dtype=torch.{part}), "
                f"-torch.arange({n}, dtype=torch.{part}) - 0.5){reshape}")
    if dtype == "uint8":
        return f"(torch.arange({n}) % 50).to(torch.uint8){reshape}"
    return f"((torch.arange({n}) % 50) - 20).to(torch.{dtype}){reshape}"


def apply(template: str, expr: str) -> str:
    return template.replace("{}", f"({expr})" if not _is_name(expr) else expr)


def _is_name(expr: str) -> bool:
    return expr.isidentifier()


def chain_expr(chain) -> str:
    expr = apply(chain["input"], "base")
    for op in chain["ops"]:
        expr = apply(op, expr)
    return expr


def source(chain) -> str:
    """The readable snippet: ``base``, ``x`` (the input) and ``v`` (the last view)."""
    x = apply(chain["input"], "base")
    v = "x"
    for op in chain["ops"]:
        v = apply(op, v)
    return f"base = {root_expr(chain['dtype'], chain['shape'])}\nx = {x}\nv = {v}\n"


def one_line(chain) -> str:
    return source(chain).strip().replace("\n", "; ")


# -- drawing -----------------------------------------------------------------------------------
def _tup(xs) -> str:
    xs = list(xs)
    if len(xs) == 1:
        return f"({xs[0]},)"
    return "(" + ", ".join(str(x) for x in xs) + ")"


def _args(xs) -> str:
    xs = list(xs)
    return ", ".join(str(x) for x in xs) if xs else "()"


def _neg(rng, d, r):
    """dim d as written: sometimes negative."""
    return d - r if r and rng.random() < 0.3 else d


def _factor_shape(rng, n, max_rank=4):
    """A random shape with n elements (n may be 0)."""
    rank = rng.randint(0 if n == 1 else 1, max_rank)
    if n == 0:
        shape = [rng.choice([0, 1, 2, 3]) for _ in range(max(rank, 1))]
        shape[rng.randrange(len(shape))] = 0
        return shape
    shape = []
    rest = n
    for _ in range(max(rank - 1, 0)):
        divs = [d for d in range(1, rest + 1) if rest % d == 0]
        d = rng.choice(divs)
        shape.append(d)
        rest //= d
    if rank:
        shape.append(rest)
    rng.shuffle(shape)
    return shape


def _with_minus_one(rng, shape):
    shape = list(shape)
    if shape and rng.random() < 0.4:
        shape[rng.randrange(len(shape))] = -1
    return shape


def op_view(rng, t):
    shape = _with_minus_one(rng, _factor_shape(rng, t.numel()))
    return "{}.view(" + _args(shape) + ")"


def op_reshape(rng, t):
    shape = _with_minus_one(rng, _factor_shape(rng, t.numel()))
    return "{}.reshape(" + _args(shape) + ")"


def op_view_as(rng, t):
    shape = _factor_shape(rng, t.numel())
    return "{}.view_as(torch.empty(" + _tup(shape) + "))"


def op_as_strided(rng, t):
    n_storage = t.untyped_storage().nbytes() // t.element_size()
    rank = rng.randint(0, 3)
    size = [rng.choice([0, 1, 1, 2, 2, 3, 4]) if rng.random() < 0.1 else rng.randint(1, 4)
            for _ in range(rank)]
    stride = [rng.randint(0, 4) for _ in range(rank)]
    span = sum((s - 1) * st for s, st in zip(size, stride)) if all(size) else 0
    if n_storage - 1 - span < 0:
        return None
    if rng.random() < 0.5:
        off = rng.randint(0, n_storage - 1 - span)
        return "{}.as_strided(" + _tup(size) + ", " + _tup(stride) + f", {off})"
    if t.storage_offset() + span > n_storage - 1 and all(size):
        return None
    return "{}.as_strided(" + _tup(size) + ", " + _tup(stride) + ")"


def op_expand(rng, t):
    shape = [s if s != 1 else rng.choice([1, 2, 3]) for s in t.shape]
    shape = [rng.choice([s, -1]) if s == t.shape[i] else s for i, s in enumerate(shape)]
    lead = [rng.choice([1, 2, 3]) for _ in range(rng.choice([0, 0, 1, 2]))]
    new = lead + shape
    numel = 1
    for i, s in enumerate(new):
        numel *= (t.shape[i - len(lead)] if s == -1 else s)
    if numel > MAX_NUMEL:
        return None
    kind = rng.choice(["expand", "expand", "expand_as", "broadcast_to"])
    full = [t.shape[i - len(lead)] if s == -1 else s for i, s in enumerate(new)]
    if kind == "expand":
        return "{}.expand(" + _args(new) + ")"
    if kind == "expand_as":
        return "{}.expand_as(torch.empty(" + _tup(full) + "))"
    return "torch.broadcast_to({}, " + _tup(full) + ")"


def op_transpose(rng, t):
    r = t.dim()
    kind = rng.choice(["transpose", "t", "T", "mT", "permute", "movedim", "movedim_tuple"])
    if kind == "t":
        return "{}.t()" if r <= 2 else None
    if kind == "T":
        return "{}.T" if r in (0, 2) else None
    if kind == "mT":
        return "{}.mT" if r >= 2 else None
    if r == 0:
        return None
    if kind == "transpose":
        return f"{{}}.transpose({_neg(rng, rng.randrange(r), r)}, {_neg(rng, rng.randrange(r), r)})"
    if kind == "permute":
        perm = list(range(r))
        rng.shuffle(perm)
        return "{}.permute(" + _args(_neg(rng, p, r) for p in perm) + ")"
    if kind == "movedim":
        return f"torch.movedim({{}}, {_neg(rng, rng.randrange(r), r)}, {_neg(rng, rng.randrange(r), r)})"
    k = rng.randint(1, r)
    src = rng.sample(range(r), k)
    dst = rng.sample(range(r), k)
    return "torch.movedim({}, " + _tup(src) + ", " + _tup(dst) + ")"


def op_split(rng, t):
    r = t.dim()
    if r == 0:
        return None
    d = rng.randrange(r)
    n = t.shape[d]
    kind = rng.choice(["split", "split_sizes", "chunk", "unbind", "tensor_split", "tensor_split_idx"])
    dd = _neg(rng, d, r)
    if kind == "split":
        size = rng.randint(1, max(n, 1))
        parts = max(1, -(-n // size))
        return f"{{}}.split({size}, {dd})[{rng.randrange(parts)}]"
    if kind == "split_sizes":
        if n == 0:
            return None
        cut = rng.randint(0, n)
        return f"torch.split({{}}, [{cut}, {n - cut}], dim={dd})[{rng.randrange(2)}]"
    if kind == "chunk":
        c = rng.randint(1, 4)
        parts = len(range(0, n, -(-n // c))) if n else 1
        return f"{{}}.chunk({c}, {dd})[{rng.randrange(max(parts, 1))}]"
    if kind == "unbind":
        if n == 0:
            return None
        return f"{{}}.unbind({dd})[{rng.randrange(n)}]"
    if kind == "tensor_split":
        c = rng.randint(1, 4)
        return f"{{}}.tensor_split({c}, {dd})[{rng.randrange(c)}]"
    idx = sorted(rng.randint(0, n + 1) for _ in range(rng.randint(1, 3)))
    return f"torch.tensor_split({{}}, {list(idx)}, dim={dd})[{rng.randrange(len(idx) + 1)}]"


def op_narrow(rng, t):
    r = t.dim()
    if r == 0:
        return None
    d = rng.randrange(r)
    n = t.shape[d]
    if rng.random() < 0.5:
        start = rng.randint(0, n)
        length = rng.randint(0, n - start)
        if rng.random() < 0.2 and start < n:
            start = start - n  # torch accepts a negative start
        return f"{{}}.narrow({_neg(rng, d, r)}, {start}, {length})"
    if n == 0:
        return None
    i = rng.randrange(n)
    if rng.random() < 0.3:
        i -= n
    return f"{{}}.select({_neg(rng, d, r)}, {i})"


def _slice_text(rng, n):
    start = rng.choice([None, None, 0, 1, -1, rng.randint(-n - 1, n + 1)])
    stop = rng.choice([None, None, -1, rng.randint(-n - 1, n + 1)])
    step = rng.choice([None, None, 1, 2, 3])
    text = ("" if start is None else str(start)) + ":" + ("" if stop is None else str(stop))
    if step is not None:
        text += f":{step}"
    return text


def op_index(rng, t):
    r = t.dim()
    kind = rng.choice(["slice", "slice", "int", "none", "ellipsis_none", "ellipsis_slice", "fixed"])
    if kind == "fixed":
        return rng.choice(["{}[1:]", "{}[::2]", "{}[:, 1]", "{}[..., None]", "{}[None]", "{}[-1]",
                           "{}[..., ::2]", "{}[:, None, 1:]"])
    if kind == "none":
        pos = rng.randint(0, r)
        return "{}[" + ", ".join([":"] * pos + ["None"]) + "]"
    if kind == "ellipsis_none":
        return "{}[..., None]"
    if r == 0:
        return None
    d = rng.randrange(r)
    if kind == "ellipsis_slice":
        return "{}[..., " + _slice_text(rng, t.shape[-1]) + "]"
    parts = [":"] * d
    if kind == "int":
        n = t.shape[d]
        if n == 0:
            return None
        i = rng.randrange(n) - (n if rng.random() < 0.3 else 0)
        parts.append(str(i))
    else:
        parts.append(_slice_text(rng, t.shape[d]))
    return "{}[" + ", ".join(parts) + "]"


def op_squeeze(rng, t):
    r = t.dim()
    kind = rng.choice(["squeeze", "squeeze_dim", "unsqueeze", "unsqueeze", "flatten",
                       "flatten_range", "unflatten"])
    if kind == "squeeze":
        return "{}.squeeze()"
    if kind == "squeeze_dim":
        return f"{{}}.squeeze({_neg(rng, rng.randrange(r), r)})" if r else "{}.squeeze(0)"
    if kind == "unsqueeze":
        d = rng.randint(0, r)
        return f"{{}}.unsqueeze({d - (r + 1) if rng.random() < 0.3 else d})"
    if kind == "flatten":
        return "{}.flatten()"
    if kind == "flatten_range":
        if r == 0:
            return "{}.flatten(0, -1)"
        a = rng.randrange(r)
        b = rng.randint(a, r - 1)
        return f"{{}}.flatten({a}, {_neg(rng, b, r)})"
    if r == 0:
        return None
    d = rng.randrange(r)
    sizes = _factor_shape(rng, t.shape[d], max_rank=3) or [1]
    sizes = _with_minus_one(rng, sizes)
    return f"{{}}.unflatten({_neg(rng, d, r)}, {_tup(sizes)})"


def op_diagonal(rng, t):
    r = t.dim()
    if r < 2:
        return None
    d1, d2 = rng.sample(range(r), 2)
    off = rng.randint(-2, 2)
    if rng.random() < 0.3:
        return f"torch.diagonal({{}}, {off}, {_neg(rng, d1, r)}, {_neg(rng, d2, r)})"
    return f"{{}}.diagonal({off}, {_neg(rng, d1, r)}, {_neg(rng, d2, r)})"


def op_unfold(rng, t):
    r = t.dim()
    d = rng.randrange(r) if r else 0
    n = t.shape[d] if r else 1
    size = rng.randint(0 if rng.random() < 0.05 else 1, max(n, 1))
    step = rng.randint(1, 3)
    return f"{{}}.unfold({_neg(rng, d, r)}, {size}, {step})"


def op_complex(rng, t):
    import torch
    if t.is_complex():
        return rng.choice(["torch.view_as_real({})", "{}.real", "{}.imag"])
    if t.dtype in (torch.float32, torch.float64) and rng.random() < 0.7:
        return "torch.view_as_complex({})"
    return rng.choice(["{}.real", "{}.imag"])


def op_view_dtype(rng, t):
    return "{}.view(torch." + rng.choice(VIEW_DTYPES) + ")"


def op_detach(rng, t):
    return rng.choice(["{}.detach()", "{}.view_as({})"])


OPS = (  # (weight, generator)
    (8, op_view), (5, op_reshape), (2, op_view_as), (5, op_as_strided), (6, op_expand),
    (10, op_transpose), (7, op_split), (6, op_narrow), (12, op_index), (10, op_squeeze),
    (4, op_diagonal), (4, op_unfold), (4, op_complex), (3, op_view_dtype), (2, op_detach),
)


def _draw_input(rng, shape):
    """Root shape and input template giving a tensor of `shape` (non-contiguous/offset often)."""
    r = len(shape)
    kinds = ["contiguous", "offset", "step", "window", "transposed"] if r else ["contiguous", "offset0"]
    kind = rng.choice(kinds)
    if kind == "offset0":
        return [3], "{}[" + str(rng.randrange(3)) + "]"
    if kind == "contiguous":
        return list(shape), "{}"
    d = rng.randrange(r)
    root = list(shape)
    if kind == "offset":
        k = rng.randint(1, 2)
        root[d] += k
        return root, "{}[" + ", ".join([":"] * d + [f"{k}:"]) + "]"
    if kind == "step":
        s = rng.choice([2, 3])
        root[d] = max(shape[d] * s - rng.randrange(s), 0) if shape[d] else rng.randint(0, 2)
        start = 0
        return root, "{}[" + ", ".join([":"] * d + [f"{start}::{s}"]) + "]"
    if kind == "window":
        root[-1] += 2
        return root, "{}[..., 1:" + str(1 + shape[-1]) + "]"
    perm = list(range(r))
    rng.shuffle(perm)
    # x = base.permute(perm) has shape `shape`: base's dim perm[i] has size shape[i]
    root = [0] * r
    for i, p in enumerate(perm):
        root[p] = shape[i]
    return root, "{}.permute(" + _args(perm) + ")"


def _draw_shape(rng):
    rank = rng.choice([0, 1, 1, 2, 2, 2, 3, 3, 4])
    dims = [rng.choice([0, 1, 1, 2, 2, 3, 3, 4, 5]) if rng.random() < 0.08
            else rng.choice([1, 2, 2, 3, 3, 4, 5]) for _ in range(rank)]
    return dims


def _eval(torch, template, t):
    return eval(template.replace("{}", "_t"), {"torch": torch, "_t": t})


def draw_chain(rng: random.Random, max_ops: int = 6):
    import torch
    dtype = rng.choices(list(DTYPE_WEIGHTS), weights=list(DTYPE_WEIGHTS.values()))[0]
    shape = _draw_shape(rng)
    root_shape, inp = _draw_input(rng, shape)
    env = {"torch": torch}
    base = eval(root_expr(dtype, root_shape), env)
    t = _eval(torch, inp, base)
    ops = []
    length = rng.randint(1, max_ops)
    gens = [g for _, g in OPS]
    weights = [w for w, _ in OPS]
    for _ in range(length):
        for _attempt in range(12):
            gen = rng.choices(gens, weights=weights)[0]
            template = gen(rng, t)
            if template is None:
                continue
            try:
                out = _eval(torch, template, t)
            except Exception:  # noqa: BLE001 - torch refused: keep rarely, as the last op
                if rng.random() < 0.06:
                    ops.append(template)
                    return _finish(rng, dtype, root_shape, inp, ops, None)
                continue
            if not isinstance(out, torch.Tensor) or out.numel() > MAX_NUMEL:
                continue
            ops.append(template)
            t = out
            break
    return _finish(rng, dtype, root_shape, inp, ops, t)


def _finish(rng, dtype, root_shape, inp, ops, t):
    if t is None or not (t.is_floating_point() or t.is_complex()):
        reduce = "sum"
    elif t.is_complex():
        reduce = rng.choice(["abs", "real"])
    else:
        reduce = rng.choice(["sum", "mean", "weighted", "square"])
    return {"dtype": dtype, "shape": root_shape, "input": inp, "ops": ops,
            "write": "copy", "reduce": reduce}


def draw_chains(seed: int, count: int, max_ops: int = 6):
    rng = random.Random(seed)
    return [draw_chain(rng, max_ops) for _ in range(count)]


def op_name(template: str) -> str:
    """'{}.view(2, 3)' -> 'view', 'torch.movedim({}, 0, 1)' -> 'movedim', '{}[1:]' -> '[]'."""
    import re
    if template.startswith("{}["):
        return "[]"
    m = re.match(r"(?:torch\.(\w+)\(|\{\}\.(\w+))", template)
    name = (m.group(1) or m.group(2)) if m else template
    if name == "view" and "torch." in template:
        return "view(dtype)"
    return name
