"""Run one view chain under a given ``torch`` (real torch in the oracle, the facade in a child).

Three parts, each on a fresh ``base`` (so an error in one does not hide the others):
  view  - v's dtype, shape, stride(), storage_offset(), is_contiguous() and values (raw bytes)
  write - v.copy_(pattern): v and base afterwards (does the write reach the base through the chain?)
  grad  - base.requires_grad_(); a reduction of v; backward; every leaf's .grad
Each part's record is ("ok", data) or ("err", [exception type names, MRO], message).  Records are
plain Python/numpy data, compared by tests/memory/viewcompare.py.

The snippets are compiled in a namespace whose ``__name__`` is ``viewchain``: in the facade child
(global mode) every module except paddle/torchproxy is in scope, so Tensor methods called from
the chain get torch semantics.
"""
from __future__ import annotations

import numpy as np

from viewchains import FLOAT_DTYPES, chain_expr, root_expr  # noqa: F401 - FLOAT_DTYPES re-export

WRITE = ("pat = ((torch.arange(v.numel()) % 50) + 60).reshape(v.shape).to(v.dtype)\n"
         "v.copy_(pat)\n")
WRITE_BOOL = "pat = (torch.arange(v.numel()) % 2 == 0).reshape(v.shape)\nv.copy_(pat)\n"
REDUCE = {
    "sum": "loss = v.sum()",
    "mean": "loss = v.mean()",
    "square": "loss = (v * v).sum()",
    "weighted": ("w = ((torch.arange(v.numel()) % 7) - 3).to(v.dtype).reshape(v.shape)"
                 ".requires_grad_()\nloss = (v * w).sum()"),
    "abs": "loss = v.abs().sum()",
    "real": "loss = v.real.sum()",
}


def _err(exc):
    return ("err", [c.__name__ for c in type(exc).__mro__], str(exc).splitlines()[0][:300]
            if str(exc) else "")


def tensor_data(torch, t):
    """(dtype name, shape, raw bytes of the values as a contiguous array)."""
    t = t.detach()
    name = str(t.dtype).split(".")[-1]
    if name in ("bfloat16", "bf16"):
        arr = t.float().cpu().numpy()
        name = "bfloat16"
    else:
        arr = t.cpu().numpy()
    arr = np.ascontiguousarray(arr)
    return (name, tuple(int(s) for s in t.shape), str(arr.dtype), arr.tobytes())


def _layout(t):
    return {"stride": tuple(int(s) for s in t.stride()), "offset": int(t.storage_offset()),
            "contiguous": bool(t.is_contiguous())}


def _exec(torch, text, ns=None):
    ns = ns if ns is not None else {"torch": torch, "__name__": "viewchain"}
    exec(compile(text, "<viewchain>", "exec"), ns)
    return ns


def setup_text(chain, grad=False):
    text = f"base = {root_expr(chain['dtype'], chain['shape'])}\n"
    if grad:
        text += "base.requires_grad_()\n"
    return text + f"v = {chain_expr(chain)}\n"


def run_view(torch, chain):
    try:
        ns = _exec(torch, setup_text(chain))
        v = ns["v"]
        return ("ok", {"data": tensor_data(torch, v), **_layout(v)})
    except Exception as exc:  # noqa: BLE001 - compared with the oracle's
        return _err(exc)


def run_write(torch, chain):
    try:
        ns = _exec(torch, setup_text(chain))
        base0 = tensor_data(torch, ns["base"])
        _exec(torch, WRITE_BOOL if chain["dtype"] == "bool" and
              str(ns["v"].dtype).endswith("bool") else WRITE, ns)
        return ("ok", {"v": tensor_data(torch, ns["v"]), "base": tensor_data(torch, ns["base"]),
                       "base0": base0})
    except Exception as exc:  # noqa: BLE001
        return _err(exc)


def grad_applies(chain) -> bool:
    return chain["dtype"] in FLOAT_DTYPES or chain["dtype"].startswith("complex")


def run_grad(torch, chain):
    if not grad_applies(chain):
        return ("n/a", None)
    try:
        ns = _exec(torch, setup_text(chain, grad=True))
        _exec(torch, REDUCE[chain["reduce"]] + "\nloss.backward()\n", ns)
        grads = {}
        for leaf in ("base", "w"):
            if leaf in ns:
                g = ns[leaf].grad
                grads[leaf] = None if g is None else tensor_data(torch, g)
        return ("ok", grads)
    except Exception as exc:  # noqa: BLE001
        return _err(exc)


def run_chain(torch, chain):
    return {"view": run_view(torch, chain), "write": run_write(torch, chain),
            "grad": run_grad(torch, chain)}
