"""Run one training-loop program (gradprogs.py) under a given ``torch``, and compare two runs.

``run_program(torch, prog)`` executes the prelude, then each step, each in its own try block,
and after every step records what a training loop can observe (``observe``): each leaf's
values, requires_grad, is_leaf, its ``.grad`` (None or values, and its requires_grad), each held
gradient's values and whether it ``is`` its leaf's current ``.grad``, each non-leaf in ``nl``
(values, requires_grad, grad_fn is None, its ``.grad``), the optimizer's state per parameter
(keys and values) and the step's ``out`` (torch.autograd.grad's result).  Records are plain
Python / numpy data: the facade side runs in a fork server (viewchild.py, glibc's heap checks
on) and pickles them back.

The code runs in a namespace whose ``__name__`` is ``gradprog``: in the facade's global mode
every module outside paddle/torchproxy is in scope, so the program's Tensor methods (and this
module's) have torch semantics.
"""
from __future__ import annotations

import warnings

import numpy as np

from gradprogs import prelude
from viewcompare import Outcome

RTOL, ATOL = 1e-4, 1e-5


def _err(exc):
    return ("err", [c.__name__ for c in type(exc).__mro__],
            str(exc).splitlines()[0][:300] if str(exc) else "")


def _values(t):
    if t is None:
        return None
    return np.array(t.detach().cpu().numpy(), dtype=np.float64, copy=True)


def _safe(fn):
    try:
        return ("ok", fn())
    except Exception as exc:  # noqa: BLE001 - an observation that raises is itself compared
        return _err(exc)


def observe(ns, prog) -> dict:
    obs = {}
    leaves = [name for name, _ in prog["leaves"]]
    for name in leaves:
        t = ns[name]
        obs[f"{name}"] = _safe(lambda: _values(t))
        obs[f"{name}.requires_grad"] = _safe(lambda: bool(t.requires_grad))
        obs[f"{name}.is_leaf"] = _safe(lambda: bool(t.is_leaf))
        obs[f"{name}.grad"] = _safe(lambda: _values(t.grad))
        obs[f"{name}.grad.requires_grad"] = _safe(
            lambda: None if t.grad is None else bool(t.grad.requires_grad))
    for k, (g) in enumerate(ns["held"]):
        obs[f"held[{k}]"] = _safe(lambda: _values(g))
        if g is not None:
            # the leaf whose .grad it was: torch keeps one object per gradient tensor
            for name in leaves:
                obs[f"held[{k}] is {name}.grad"] = _safe(lambda: ns[name].grad is g)
    for key, h in ns["nl"].items():
        obs[f"nl[{key}]"] = _safe(lambda: _values(h))
        obs[f"nl[{key}].requires_grad"] = _safe(lambda: bool(h.requires_grad))
        obs[f"nl[{key}].grad_fn is None"] = _safe(lambda: h.grad_fn is None)
        obs[f"nl[{key}].grad"] = _safe(lambda: _values(h.grad))
    opt = ns.get("opt")
    for name in leaves if opt is not None else ():
        st = opt.state.get(ns[name], {}) if hasattr(opt.state, "get") else {}
        obs[f"opt.state[{name}]"] = _safe(lambda: {
            k: (_values(v) if hasattr(v, "detach") else float(v)) for k, v in sorted(st.items())})
    if "out" in ns:
        obs["out"] = _safe(lambda: [_values(g) for g in ns["out"]])
    return obs


def run_program(torch, prog):
    """-> [(step outcome: ("ok", None) or ("err", mro, message), observation dict)]; the prelude
    is step -1 (an error there ends the run)."""
    ns = {"torch": torch, "__name__": "gradprog"}
    records = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # torch warns on a non-leaf's .grad: not compared
        try:
            exec(compile(prelude(prog), "<gradprog>", "exec"), ns)
        except Exception as exc:  # noqa: BLE001
            return [(_err(exc), {})]
        records.append((("ok", None), observe(ns, prog)))
        for step in prog["steps"]:
            ns.pop("out", None)
            try:
                exec(compile(step, "<gradprog>", "exec"), ns)
                outcome = ("ok", None)
            except Exception as exc:  # noqa: BLE001 - compared with the oracle's
                outcome = _err(exc)
            records.append((outcome, observe(ns, prog)))
    return records


# -- comparing ---------------------------------------------------------------------------------
CLASSES = ("crash", "error type", "facade raises", "facade accepts", "message", "values",
           "grad None", "identity", "requires_grad", "optimizer state", "observation")
# a message compares equal when the facade's starts with this much of torch's
MESSAGE_PREFIX = 40


def _cls_of(key):
    if " is " in key:
        return "identity"
    if key.endswith("requires_grad") or key.endswith("is_leaf") or key.endswith("grad_fn is None"):
        return "requires_grad"
    if key.startswith("opt.state"):
        return "optimizer state"
    return "values"


def _same_value(e, a):
    if isinstance(e, np.ndarray) or isinstance(a, np.ndarray):
        if not (isinstance(e, np.ndarray) and isinstance(a, np.ndarray)):
            return False, "grad None"
        if e.shape != a.shape:
            return False, "values"
        return bool(np.allclose(a, e, rtol=RTOL, atol=ATOL, equal_nan=True)), "values"
    if isinstance(e, dict) and isinstance(a, dict):
        if sorted(e) != sorted(a):
            return False, None
        return all(_same_value(e[k], a[k])[0] for k in e), None
    if isinstance(e, list) and isinstance(a, list):
        return len(e) == len(a) and all(_same_value(x, y)[0] for x, y in zip(e, a)), None
    if isinstance(e, float) and isinstance(a, float):
        return bool(np.isclose(a, e, rtol=RTOL, atol=ATOL)), None
    return e == a, None


def _short(v):
    if isinstance(v, np.ndarray):
        return np.array2string(v.ravel()[:6], precision=4) + ("..." if v.size > 6 else "")
    if isinstance(v, dict):
        return "{" + ", ".join(f"{k}: {_short(x)}" for k, x in v.items()) + "}"
    if isinstance(v, list):
        return "[" + ", ".join(_short(x) for x in v) + "]"
    return repr(v)


def compare_step(e_rec, a_rec):
    """[(class, detail)] for one step."""
    (e_out, e_obs), (a_out, a_obs) = e_rec, a_rec
    found = []
    if e_out[0] == "err" and a_out[0] != "err":
        found.append(("facade accepts", f"torch raises {e_out[1][0]}: {e_out[2]}"))
    elif e_out[0] != "err" and a_out[0] == "err":
        found.append(("facade raises", f"{a_out[1][0]}: {a_out[2]}"))
    elif e_out[0] == "err":
        if e_out[1][0] not in a_out[1]:
            found.append(("error type", f"torch {e_out[1][0]}: {e_out[2]}; facade {a_out[1][0]}: "
                                        f"{a_out[2]}"))
        elif not a_out[2].startswith(e_out[2][:MESSAGE_PREFIX]):
            found.append(("message", f"torch {e_out[2]!r}; facade {a_out[2]!r}"))
    if found and found[0][0] in ("facade accepts", "facade raises"):
        return found  # one side stopped part way: its state differs as a consequence
    for key in list(dict.fromkeys(list(e_obs) + list(a_obs))):
        e, a = e_obs.get(key), a_obs.get(key)
        if e is None or a is None:
            found.append(("observation", f"{key}: only {'torch' if a is None else 'the facade'} "
                                         "has it"))
            continue
        if e[0] != a[0] or (e[0] == "err" and e[1][0] not in a[1]):
            found.append(("observation", f"{key}: torch {_short(e[1:])}; facade {_short(a[1:])}"))
            continue
        if e[0] == "err":
            continue
        same, kind = _same_value(e[1], a[1])
        if not same:
            # after a step that raised on both sides, the state is what the backward had done
            # before it stopped (the engines run nodes in different orders): said in the text
            both = "after both raised: " if e_out[0] == "err" and a_out[0] == "err" else ""
            found.append((kind or _cls_of(key),
                          f"{both}{key}: torch {_short(e[1])}; facade {_short(a[1])}"))
    return found


def compare(e_records, a_records) -> Outcome:
    """The failures of the first step that differs (later steps start from other states)."""
    out = Outcome()
    for k, (e, a) in enumerate(zip(e_records, a_records)):
        found = compare_step(e, a)
        if found:
            label = "prelude" if k == 0 else f"step {k}"
            out.failures = [(c, f"{label}: {d}") for c, d in found]
            out.step = k  # 0: the prelude, k: steps[k - 1]
            return out
    if len(e_records) != len(a_records):
        out.failures = [("observation", f"torch ran {len(e_records)} steps, facade "
                                        f"{len(a_records)}")]
    return out
