"""Host cost of the facade's random-number calls on CUDA tensors, one tree per process (session
38's change of torchproxy/facade/random.py and nn.init against the tree before it).

    TORCHPROXY_TREE=/path/to/tree python3 gpu/rng_host_cost.py measure OUT.json [--device cuda]
    python3 gpu/rng_host_cost.py table BEFORE_1.json AFTER_1.json BEFORE_2.json ...

Why: session 38 made the CPU draws real torch's (facade/torch_cpu_rng.py); CUDA draws still go
to Paddle's samplers, but the Python in front of them changed (_sample, _is_cpu/_device_type,
_on entering no generator scope for a CUDA draw without a generator, Linear's reset_parameters
through the facade's uniform_, nn.init, F.dropout routing by place).  This measures what that
path costs per call on the host.

Each cell: the calling thread's CPU time (time.thread_time) per call, best of R interleaved
rounds of N calls, the empty loop subtracted; wall time (perf_counter) beside it.  The facade's
statements are compiled in a module in torchproxy's scope, as a user's code is; the same
statements run on real torch (the GPU machine's torch 2.11, CUDA) and the nearest Paddle call,
in the same process, for scale.  With paddlepaddle-gpu 2.6.2 on sm_90 Paddle's own kernels launch
and do nothing (the shared gpu/README.md): the host path is what is real; the values are not,
so the correctness recorded is each result's type, shape, dtype and device only.
"""
from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time

SCOPED = "bench_rng_scoped"
# label, torch statement (facade and real torch), the nearest Paddle statement (or None)
CASES = [
    ("torch.randn(1024, device=d)", "torch.randn(1024, device=d)", "paddle.randn([1024])"),
    ("torch.rand(1024, device=d)", "torch.rand(1024, device=d)", "paddle.rand([1024])"),
    ("torch.randint(0, 10, (1024,), device=d)", "torch.randint(0, 10, (1024,), device=d)",
     "paddle.randint(0, 10, [1024])"),
    ("torch.empty(1024, device=d)", "torch.empty(1024, device=d)", "paddle.empty([1024])"),
    ("torch.empty(1024, device=d).normal_()", "torch.empty(1024, device=d).normal_()", None),
    ("torch.empty(1024, device=d).uniform_()", "torch.empty(1024, device=d).uniform_()", None),
    ("x.normal_() (x preallocated)", "x.normal_()", None),
    ("x.uniform_() (x preallocated)", "x.uniform_()", "x.uniform_()"),
    ("F.dropout(x, 0.1) (training)", "F.dropout(x, 0.1)", "PF.dropout(x, 0.1)"),
    ("torch.nn.Linear(64, 64, device=d)", "torch.nn.Linear(64, 64, device=d)",
     "paddle.nn.Linear(64, 64)"),
    ("torch.randperm(1000, device=d)", "torch.randperm(1000, device=d)", "paddle.randperm(1000)"),
    # round thirteen: the samplers whose CUDA branch now draws through _sample (_draws)
    ("x.bernoulli_(0.5)", "x.bernoulli_(0.5)", None),
    ("torch.bernoulli(p)", "torch.bernoulli(p)", "paddle.bernoulli(p)"),
    ("x.exponential_()", "x.exponential_()", None),
    ("x.cauchy_()", "x.cauchy_()", None),
    ("x.log_normal_()", "x.log_normal_()", None),
    ("x.geometric_(0.3)", "x.geometric_(0.3)", None),
    ("x.random_(0, 10)", "x.random_(0, 10)", None),
    ("torch.randint_like(x, 10)", "torch.randint_like(x, 10)", None),
]
_SETUP_TORCH = "import torch\nimport torch.nn.functional as F\n"
_SETUP_PADDLE = "import paddle\nimport paddle.nn.functional as PF\n"


def _compile(stmt, env, module, setup):
    ns = {"__name__": module, **env}
    exec(setup, ns)
    exec(f"def _f(_n):\n    for _ in range(_n):\n        {stmt}\n", ns)
    exec(f"def _one():\n    return {stmt}\n", ns)
    return ns["_f"], ns["_one"]


def _loop(fn, n):
    w0, c0 = time.perf_counter(), time.thread_time()
    fn(n)
    c1, w1 = time.thread_time(), time.perf_counter()
    return (c1 - c0) / n * 1e6, (w1 - w0) / n * 1e6


def _describe(r):
    if hasattr(r, "weight"):
        r = r.weight
    return f"{type(r).__name__} {list(r.shape)} {str(r.dtype).split('.')[-1]} " \
           f"{getattr(r, 'device', getattr(r, 'place', '?'))}"


def measure(out, device, n, rounds, only=None, paddle_branch=False):
    tree = os.environ.get("TORCHPROXY_TREE")
    if not tree:
        sys.exit("TORCHPROXY_TREE: the tree to measure")
    sys.path.insert(0, tree)
    import numpy as np
    import paddle
    import torch

    import torchproxy
    gpu = device == "cuda"
    paddle.set_device("gpu:0" if gpu else "cpu")
    x_np = np.random.default_rng(0).standard_normal(1024).astype("float32")
    p_np = np.random.default_rng(1).uniform(size=1024).astype("float32")  # probabilities
    where = paddle.CUDAPlace(0) if gpu else paddle.CPUPlace()
    px = paddle.to_tensor(x_np, place=where)
    pp = paddle.to_tensor(p_np, place=where)
    tenv = {"x": torch.from_numpy(x_np).to(device), "p": torch.from_numpy(p_np).to(device),
            "d": device}
    penv = {"x": px, "p": pp}
    torchproxy.enable(scope={SCOPED})
    if paddle_branch:  # the samplers' non-CPU (Paddle) branch, on Paddle's CPU kernels
        from torchproxy.facade import random as frandom
        frandom._is_cpu = lambda place: False
    try:
        ns = {"__name__": SCOPED}
        exec("import torch", ns)
        fenv = {"x": px, "p": pp, "d": device}
        fns, seen = {}, {}
        for label, tstmt, pstmt in CASES:
            if only and not any(o in label for o in only):
                continue
            fns[(label, "facade")] = _compile(tstmt, fenv, SCOPED, _SETUP_TORCH)
            fns[(label, "torch")] = _compile(tstmt, tenv, "bench_torch", _SETUP_TORCH)
            if pstmt:
                fns[(label, "paddle")] = _compile(pstmt, penv, "bench_paddle", _SETUP_PADDLE)
        for key, (_f, one) in fns.items():  # one call each first: what it returns, and warm-up
            try:
                seen[key] = _describe(one())
            except Exception as e:  # recorded, shown in the table: a failure is a result here
                seen[key] = f"ERROR {type(e).__name__}: {e}"[:200]
        empty, _ = _compile("None", {}, "bench_empty", "")
        best = {k: [float("inf"), float("inf")] for k in fns if not seen[k].startswith("ERROR")}
        e_cpu = e_wall = float("inf")
        for _ in range(rounds):
            c, w = _loop(empty, n)
            e_cpu, e_wall = min(e_cpu, c), min(e_wall, w)
            for k in best:
                c, w = _loop(fns[k][0], n)
                best[k][0], best[k][1] = min(best[k][0], c), min(best[k][1], w)
        if gpu:
            torch.cuda.synchronize()
    finally:
        torchproxy.disable()
    from torchproxy.facade import dispatch
    res = {
        "tree": tree, "tree_id": open(os.path.join(tree, "TREE")).read().strip()
        if os.path.exists(os.path.join(tree, "TREE")) else "?",
        "torchproxy": os.path.dirname(os.path.dirname(torchproxy.__file__)),
        "dispatcher": dispatch.backend(),
        "versions": f"Python {sys.version.split()[0]}, Paddle {paddle.__version__}, torch "
                    f"{torch.__version__}, {platform.machine()}, "
                    f"{torch.cuda.get_device_name(0) if gpu else 'CPU'}",
        "n": n, "rounds": rounds,
        "device": device + (" (the samplers' Paddle branch)" if paddle_branch else ""),
        "rows": [{"label": k[0], "side": k[1], "result": seen[k],
                  "cpu_us": best[k][0] - e_cpu if k in best else None,
                  "wall_us": best[k][1] - e_wall if k in best else None} for k in fns],
    }
    with open(out, "w") as f:
        json.dump(res, f, indent=1)
    print(f"{res['tree_id']}: torchproxy from {res['torchproxy']}, dispatcher {res['dispatcher']}; "
          f"{res['versions']}")
    for r in res["rows"]:
        c = "-" if r["cpu_us"] is None else f"{r['cpu_us']:8.2f}"
        w = "-" if r["wall_us"] is None else f"{r['wall_us']:8.2f}"
        print(f"  {r['label'][:44]:44s} {r['side']:6s} cpu {c} wall {w}  {r['result']}")


def table(paths, pair=None):
    runs = [json.load(open(p)) for p in paths]
    if pair:  # the two trees named by the first word of their TREE line (BEFORE, MAIN, AFTER)
        runs = [r for r in runs if r["tree_id"].split()[0] in pair]
    by = {}  # (tree_id, label, side) -> [cpu...], results
    results = {}
    for run in runs:
        for r in run["rows"]:
            k = (run["tree_id"], r["label"], r["side"])
            if r["cpu_us"] is not None:
                by.setdefault(k, []).append((r["cpu_us"], r["wall_us"]))
            results.setdefault(k, set()).add(r["result"])
    trees = sorted({r["tree_id"] for r in runs}, key=lambda t: (not t.startswith("BEFORE"), t))
    if pair:
        trees = sorted(trees, key=lambda t: pair.index(t.split()[0]))
    if len(trees) != 2:
        sys.exit(f"two trees expected, got {trees}")
    b, a = trees
    nb = sum(r["tree_id"] == b for r in runs)
    na = sum(r["tree_id"] == a for r in runs)
    print(f"{runs[0]['versions']}; {runs[0]['device']} tensors; each process: best of "
          f"{runs[0]['rounds']} interleaved rounds of {runs[0]['n']} calls, empty loop "
          f"subtracted; {nb} processes of {b}, {na} of {a}, alternating")
    print("cells: median over processes of the calling thread's CPU us per call "
          "(min-max over processes); torch / paddle: real torch and Paddle, median over all "
          "processes")
    print(f"{'call':44s} {b.split()[0]:>18s} {a.split()[0]:>18s} {'A/B':>6s} {'torch':>8s} "
          f"{'paddle':>8s} {'B-paddle':>9s} {'A-paddle':>9s}")
    # facade minus the nearest Paddle call in the same process: the facade's own host cost over
    # Paddle's (Paddle's launch cost on sm_90 varies from process to process, this less)
    over = {}
    for run in runs:
        rows = {(r["label"], r["side"]): r["cpu_us"] for r in run["rows"]}
        for (label, side), c in rows.items():
            pc = rows.get((label, "paddle"))
            if side == "facade" and c is not None and pc is not None:
                over.setdefault((run["tree_id"], label), []).append(c - pc)

    def cell(k):
        v = [c for c, _w in by.get(k, [])]
        if not v:
            return None, f"{'-':>18s}"
        return statistics.median(v), f"{statistics.median(v):7.2f} ({min(v):.1f}-{max(v):.1f})"

    for label, _t, _p in CASES:
        mb, sb = cell((b, label, "facade"))
        ma, sa = cell((a, label, "facade"))
        ratio = f"{ma / mb:6.2f}" if mb and ma else f"{'-':>6s}"
        other = []
        for side in ("torch", "paddle"):
            v = [c for t in (a, b) for c, _w in by.get((t, label, side), [])]
            other.append(f"{statistics.median(v):8.2f}" if v else f"{'-':>8s}")
        extra = [f"{statistics.median(over[(t, label)]):9.1f}" if (t, label) in over
                 else f"{'-':>9s}" for t in (b, a)]
        print(f"{label[:44]:44s} {sb} {sa} {ratio} {other[0]} {other[1]} {extra[0]} {extra[1]}")
    print("\nwhat each call returned (type, shape, dtype, device; Paddle's sm_90 kernels write "
          "nothing, so no values):")
    for label, _t, _p in CASES:
        for t in (b, a):
            r = results.get((t, label, "facade"))
            if r:
                print(f"  {label[:44]:44s} {t:8s} {' | '.join(sorted(r))}")
        r = results.get((a, label, "torch"))
        if r:
            print(f"  {label[:44]:44s} {'torch':8s} {' | '.join(sorted(r))}")


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("mode", choices=("measure", "table"))
    ap.add_argument("paths", nargs="+")
    ap.add_argument("--device", default="cuda")
    ap.add_argument("-n", type=int, default=1000)
    ap.add_argument("-r", "--rounds", type=int, default=7)
    ap.add_argument("--only", nargs="+", help="measure: only the cases whose label holds one")
    ap.add_argument("--paddle-branch", action="store_true",
                    help="measure (CPU): the samplers' non-CPU branch (the one CUDA tensors take) "
                         "on Paddle's CPU kernels, whose host cost does not vary as sm_90's does")
    ap.add_argument("--pair", nargs=2, metavar=("B", "A"),
                    help="table: the two trees to compare, by their TREE line's first word")
    args = ap.parse_args(argv)
    if args.mode == "measure":
        if args.paddle_branch and args.device != "cpu":
            sys.exit("--paddle-branch runs on the CPU")
        measure(args.paths[0], args.device, args.n, args.rounds, args.only, args.paddle_branch)
    else:
        table(args.paths, args.pair)
    return 0


if __name__ == "__main__":
    sys.exit(main())
