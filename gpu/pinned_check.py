"""Ops on a pinned (page-locked) CPU tensor: the device, is_pinned() and values of each result,
real torch against the facade (GPU machine: torch 2.11 CUDA and paddlepaddle-gpu).

    python3 gpu/pinned_check.py torch OUT_torch.json
    python3 gpu/pinned_check.py paddle          (Paddle alone, for where the facade's results come from)
    TORCHPROXY_TREE=/path/to/tree python3 gpu/pinned_check.py facade OUT.json --against OUT_torch.json

torch: the result of an op on a pinned CPU tensor is a CPU tensor (pinned only when it is the
pinned tensor itself or a view of its storage); .to('cuda') / .cuda() are CUDA tensors.  Each line:
SAME or DIFF, the statement, torch's (device, pinned, values) and the facade's.  Exit 1 on a DIFF.
"""
from __future__ import annotations

import json
import os
import sys

SCOPED = "pinned_check_scoped"
X = [0.5, -1.25, 2.0, 3.5]
STMTS = [
    "x", "x + 1", "x * 2", "1 - x", "x.sum()", "x.mean()", "torch.add(x, 1)", "torch.exp(x)",
    "x.clone()", "x.detach()", "x.contiguous()", "x.cpu()", "x.to('cpu')", "x.float()",
    "x.double()", "x[1:3]", "x.view(2, 2)", "x.reshape(2, 2)", "torch.cat([x, x])",
    "x.to('cuda')", "x.cuda()", "x.to('cuda', non_blocking=True)", "x.to('cuda') + 1",
    "x.numpy()", "x.tolist()", "x.pin_memory()", "y.copy_(x.to('cuda'))",
    "torch.tensor(X).pin_memory()", "torch.ones(4, pin_memory=True)",
]


def run(torch, out):
    rows = []
    for stmt in STMTS:
        # a fresh pinned x for each statement, and x's own device/pinned after it: whether the
        # statement left x where it was
        x = torch.tensor(X).pin_memory()
        y = torch.empty(4).pin_memory()
        try:
            r = eval(stmt, {"__name__": SCOPED, "torch": torch, "x": x, "y": y, "X": X})
            if hasattr(r, "is_pinned"):
                if r.is_cuda:
                    torch.cuda.synchronize()
                row = {"type": "Tensor", "device": str(r.device), "pinned": bool(r.is_pinned()),
                       "values": r.detach().cpu().reshape(-1).tolist(),
                       "is_x": r is x}
            else:
                import numpy as np
                row = {"type": type(r).__name__, "values": np.asarray(r).reshape(-1).tolist()}
        except Exception as e:  # a failure is a result here: recorded and compared
            row = {"type": "ERROR", "error": f"{type(e).__name__}: {e}"[:160]}
        row["x_after"] = f"{x.device} pinned={bool(x.is_pinned())}"
        rows.append({"stmt": stmt, **row})
    with open(out, "w") as f:
        json.dump(rows, f, indent=1)
    return rows


def describe(r):
    after = f"; x after: {r['x_after']}"
    if r["type"] == "ERROR":
        return r["error"] + after
    vals = [round(v, 4) if isinstance(v, float) else v for v in r["values"]]
    if r["type"] != "Tensor":
        return f"{r['type']} {vals}" + after
    return f"{r['device']} pinned={r['pinned']} self={r['is_x']} {vals}" + after


PADDLE_STMTS = ["x + 1", "x * 2", "x.sum()", "paddle.exp(x)", "x.clone()", "x.detach()",
                "x.cuda()", "x.cpu()", "x.astype('float64')", "x[1:3]", "x.reshape([2, 2])",
                "paddle.concat([x, x])", "x.numpy()"]


def run_paddle():
    """The same on Paddle alone (no facade): where its results land, and whether x stays."""
    import numpy as np
    import paddle
    for stmt in PADDLE_STMTS:
        x = paddle.to_tensor(np.array(X, np.float32)).pin_memory()
        try:
            r = eval(stmt, {"paddle": paddle, "x": x})
            got = (f"{r.place} {np.asarray(r.cpu().numpy()).reshape(-1).round(4).tolist()}"
                   if isinstance(r, paddle.Tensor) else f"{type(r).__name__} "
                   f"{np.asarray(r).reshape(-1).round(4).tolist()}")
        except Exception as e:  # noqa: BLE001  recorded
            got = f"{type(e).__name__}: {str(e)[:120]}"
        print(f"paddle {stmt:28s} {got}; x after: {x.place}")


def main():
    mode = sys.argv[1]
    if mode == "paddle":
        run_paddle()
        return 0
    out = sys.argv[2]
    if mode == "torch":
        import torch
        rows = run(torch, out)
        for r in rows:
            print(f"{r['stmt']:34s} {describe(r)}")
        return 0
    sys.path.insert(0, os.environ.get("TORCHPROXY_TREE", "."))
    import torchproxy
    torchproxy.enable(scope={SCOPED})
    ns = {"__name__": SCOPED}
    exec("import torch", ns)
    # the statements must run in scope (the facade's Tensor methods): compile run() there
    src = open(__file__).read()
    code = compile(src, __file__, "exec")
    g = {"__name__": SCOPED}
    exec(code, g)
    rows = g["run"](ns["torch"], out)
    want = {r["stmt"]: r for r in json.load(open(sys.argv[4]))} if len(sys.argv) > 4 else {}
    diffs = 0
    for r in rows:
        t = want.get(r["stmt"])
        if t is None:
            print(f"{'?':4s} {r['stmt']:34s} facade {describe(r)}")
            continue
        same = describe(r) == describe(t) or (
            r["x_after"] == t["x_after"]
            and r["type"] == t["type"] == "Tensor" and r["device"] == t["device"]
            and r["pinned"] == t["pinned"] and r["is_x"] == t["is_x"]
            and len(r["values"]) == len(t["values"])
            and all(abs(a - b) <= 1e-5 * (1 + abs(b)) for a, b in zip(r["values"], t["values"])))
        diffs += not same
        print(f"{'SAME' if same else 'DIFF':4s} {r['stmt']:34s} torch {describe(t)}"
              + ("" if same else f"\n{'':39s} facade {describe(r)}"))
    print(f"== {diffs} of {len(rows)} differ from torch")
    return 1 if diffs else 0


if __name__ == "__main__":
    sys.exit(main())
