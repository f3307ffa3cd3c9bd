"""Generate docs/memory-model.md: for each torch view op, does the facade's result alias the base,
have torch's geometry, carry writes to the base and get torch's gradient, per Paddle version.

    .venv/bin/python tests/facade/memory_table.py --write     # Paddle 3.3.1: record and render
    .venv26/bin/python tests/facade/memory_table.py --write   # Paddle 2.6.2: record and render

Each run measures the Paddle of its interpreter, compares with real torch on the same inputs and
stores the row facts in docs/results/memory-model-paddle<version>.json; the markdown is rendered
from every recorded version.  The measurements run in child processes with glibc's heap checks
(tests/facade/_child_check.py): a crash is a table entry, not a lucky pass.  The ops and bases
are the ones tests/facade/test_views_autograd.py checks.
"""
from __future__ import annotations

import glob
import json
import os
import pickle
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path[:0] = [ROOT, os.path.join(ROOT, "tests"), HERE]

RESULTS = os.path.join(ROOT, "docs", "results")
DOC = os.path.join(ROOT, "docs", "memory-model.md")

# one snippet per row: returns the four facts, each compared with torch's separately
FACTS = """
import torch

def f(x):
    leaf = x.requires_grad_()
    t = {base}
    y = {expr}
    ys = list(y) if isinstance(y, (tuple, list)) else [y]
    alias = [v.untyped_storage().data_ptr() == t.untyped_storage().data_ptr() for v in ys]
    geom = [(tuple(v.shape), v.stride(), v.is_contiguous(),
             v.storage_offset() - t.storage_offset() if a else None) for v, a in zip(ys, alias)]
    loss = sum((v.real if v.is_complex() else v).float().mul(
        torch.arange(v.numel(), dtype=torch.float32).reshape(v.shape)).sum() for v in ys)
    grad = None
    if loss.requires_grad:
        loss.backward()
        grad = leaf.grad
    with torch.no_grad():
        t = {base}
        y = {expr}
        first = y[0] if isinstance(y, (tuple, list)) else y
        try:
            first.fill_(7)
            wrote = t.clone()
        except RuntimeError as e:
            wrote = type(e).__name__
    return alias, geom, wrote, grad
"""
COLUMNS = ("aliases", "strides equal", "writes reach base", "backward exact")


def rows():
    from test_views_autograd import BASES, VIEWS, X, XC
    out = {}
    for v, expr in VIEWS.items():
        out[v] = [(b, FACTS.format(base=base, expr=expr), X) for b, base in BASES.items()]
    # dtype-changing views, on a complex or float base
    cbases = {"contig": "leaf * 1", "slice": "(leaf * 1)[:, 1:5]"}
    for v, expr in (("view_as_real", "torch.view_as_real(t)"), ("real", "t.real"),
                    ("imag", "t.imag")):
        out[v] = [(b, FACTS.format(base=base, expr=expr), XC) for b, base in cbases.items()]
    out["view_as_complex"] = [("contig", FACTS.format(base="leaf * 1.0",
                                                      expr="torch.view_as_complex(t.view(4, 3, 2))"), X)]
    out["view(dtype)"] = [("contig", FACTS.format(base="leaf * 1.0", expr="t.view(torch.int32)"), X)]
    return out


def _compare(expected, actual):
    from difftest import assert_same, normalize
    try:
        assert_same(normalize(expected), normalize(actual), check_grad_flag=False)
        return True
    except AssertionError:
        return False


def measure_one(src, x):
    """(torch facts, facade facts) or an error text per side."""
    from difftest import run
    out = []
    for scoped in (False, True):
        try:
            out.append(("ok", run(src, x, scoped=scoped)))
        except Exception as e:  # noqa: BLE001 - a refusal is a table entry
            out.append(("raised", f"{type(e).__name__}: {str(e)[:70]}"))
    return out


def verdicts(torch_side, facade_side):
    """{column: True/False/"raises"/"torch raises"} for one base."""
    if torch_side[0] != "ok":
        return {c: facade_side[0] != "ok" or "torch raises" for c in COLUMNS}
    if facade_side[0] != "ok":
        return {c: "raises: " + facade_side[1] for c in COLUMNS}
    (ta, tg, tw, tgrad), (fa, fg, fw, fgrad) = torch_side[1], facade_side[1]
    writes = _compare(tw, fw)
    if not writes and isinstance(fw, str) and not isinstance(tw, str):
        writes = "refused (" + fw + ")"  # a copy standing in for the view refuses writes
    return {"aliases": ta == fa, "strides equal": _compare(tg, fg),
            "writes reach base": writes, "backward exact": _compare(tgrad, fgrad)}


def child(out_path):
    import faulthandler
    import paddle
    paddle.disable_signal_handler()
    faulthandler.enable()
    with open(out_path, "ab") as out:
        for op, cases in rows().items():
            for base, src, x in cases:
                pickle.dump(("start", op, base), out)
                out.flush()
                t, f = measure_one(src, x)
                pickle.dump(("done", op, base, verdicts(t, f),
                             t[1][0] if t[0] == "ok" else None), out)
                out.flush()


def measure():
    from _child_check import _read, child_env
    done, crashed = {}, {}
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "events.pickle")
        while True:
            skip = set(done) | set(crashed)
            with open(os.path.join(d, "skip.json"), "w") as f:
                json.dump(sorted(map(list, skip)), f)
            proc = subprocess.run([sys.executable, __file__, "--child", path, d],
                                  env=child_env(), cwd=ROOT, capture_output=True, text=True)
            running = None
            for ev in _read(path):
                if ev[0] == "start":
                    running = (ev[1], ev[2])
                elif ev[0] == "done":
                    done[(ev[1], ev[2])] = (ev[3], ev[4])
                    running = None
            if proc.returncode == 0:
                break
            if running is None or running in crashed:
                raise RuntimeError(f"memory table child failed: {proc.stderr[-2000:]}")
            crashed[running] = proc.stderr.strip().splitlines()[-1][:160] if proc.stderr else "?"
    return done, crashed


def record():
    import paddle
    done, crashed = measure()
    table = {}
    for (op, base), (v, torch_alias) in done.items():
        table.setdefault(op, {})[base] = {"verdicts": v, "torch_aliases": torch_alias}
    for (op, base), why in crashed.items():
        table.setdefault(op, {})[base] = {"crash": why}
    os.makedirs(RESULTS, exist_ok=True)
    path = os.path.join(RESULTS, f"memory-model-paddle{paddle.__version__}.json")
    with open(path, "w") as f:
        json.dump({"paddle": paddle.__version__, "rows": table}, f, indent=1, sort_keys=True)
    return path


def _cell(per_base, column):
    bad = []
    for base, entry in sorted(per_base.items()):
        if "crash" in entry:
            bad.append(f"{base}: CRASH")
            continue
        v = entry["verdicts"][column]
        if v is True:
            continue
        if v == "torch raises":
            bad.append(f"{base}: facade returns where torch raises")
        elif isinstance(v, str):
            bad.append(f"{base}: {v}")
        else:
            bad.append(base)
    return "yes" if not bad else "**no** (" + "; ".join(bad) + ")"


def render():
    recorded = []
    for path in sorted(glob.glob(os.path.join(RESULTS, "memory-model-paddle*.json"))):
        with open(path) as f:
            recorded.append(json.load(f))
    recorded.sort(key=lambda r: [int(p) for p in r["paddle"].split(".")[:3]], reverse=True)
    lines = [
        "# Memory model of the torch facade (generated)",
        "",
        "Generated by `tests/facade/memory_table.py --write` (run it under each venv); do not edit.",
        "Each row is a torch view op applied to three bases (`contig`: a fresh (4, 6) tensor;",
        "`slice`: its (4, 4) column slice `[:, 1:5]`; `t`: its transpose), run under real torch 2.13",
        "and under the facade on the same values, in a child process with glibc's heap checks.",
        "Columns, each compared with torch on every base (**no** lists the bases that differ):",
        "- *aliases*: the result shares the base's storage exactly when torch's does;",
        "- *strides equal*: shape, `stride()`, `is_contiguous()` and `storage_offset()` relative",
        "  to the base;",
        "- *writes reach base*: the base's values after `fill_(7)` through the (first) view, or",
        "  torch's error for that write;",
        "- *backward exact*: the leaf's gradient of a weighted sum of the view.",
        "`torch raises` rows: both sides raise (the op is invalid for that base, as in torch).",
        "",
    ]
    for rec in recorded:
        lines += [f"## Paddle {rec['paddle']}", "",
                  "| op | " + " | ".join(COLUMNS) + " |",
                  "|---|" + "---|" * len(COLUMNS)]
        copies = []
        for op, per_base in rec["rows"].items():
            lines.append(f"| `{op}` | " + " | ".join(_cell(per_base, c) for c in COLUMNS) + " |")
            if any("crash" in e or e["verdicts"]["aliases"] is not True
                   or e["verdicts"]["writes reach base"] is not True for e in per_base.values()):
                copies.append(f"`{op}`")
        lines += ["", "Not aliasing as torch's view on this Paddle (a copy whose writes are "
                  "refused, or an error; gaps.toml says why): " + (", ".join(copies) or "none")
                  + ".", ""]
    with open(os.path.join(HERE, "memory_model_bugs.md")) as f:
        lines.append(f.read().rstrip() + "\n")
    with open(DOC, "w") as f:
        f.write("\n".join(lines))
    return DOC


def main(argv):
    if argv[:1] == ["--child"]:
        child(argv[1])
        return 0
    if argv[:1] == ["--write"]:
        print("recorded", record())
        print("wrote", render())
        return 0
    if argv[:1] == ["--render"]:
        print("wrote", render())
        return 0
    print(__doc__)
    return 2


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
