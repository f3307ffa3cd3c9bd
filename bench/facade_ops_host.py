"""Host cost per call of common facade ops, three ways in one process: through the facade (the
statement compiled in a module in scope), the same work written directly in Paddle, and real
torch; prints us per call and the ratios facade/paddle and facade/torch.

    python3 bench/facade_ops_host.py                 # CPU tensors
    python3 bench/facade_ops_host.py --gpu           # CUDA tensors (Paddle GPU build, torch CUDA)
    python3 bench/facade_ops_host.py --dtype float64 # CPU tensors outside the float32-CPU paths
    TORCHPROXY_TREE=/path/to/other/checkout python3 bench/facade_ops_host.py --gpu

Why: the facade's add/sub/mul/div check broadcastability and route broadcast operands that
record a graph through _accurate_sum.exact_broadcast, sum/mean go through accurate_sum /
accurate_mean, F.linear's bias through exact_broadcast, a half tensor's .float() through
paddle_shims.widen, and the creation functions take pin_memory=.  Those exist for float32 (or
half) tensors on the CPU; on CUDA tensors they must cost (next to) nothing.  This script measures
those calls on any tree (TORCHPROXY_TREE: the torchproxy of another checkout, the same cases),
so a tree before them and a tree after them compare in the same table
(gpu/lease_session11.sh runs it, alternating trees; gpu/summarize_host_cost.py summarises).

Each cell: best of R interleaved rounds of N calls, the empty loop subtracted (bench/host_cost.py's
measure()).  "grad" rows use operands that require grad (each call records a graph, as in
training); the others do not.  Shapes are small ([64, 256]) so that torch's real GPU kernels
never back up the launch queue: host time is what is measured.  With paddlepaddle-gpu 2.6.2 on
sm_90 Paddle's kernels launch but do nothing (the shared gpu/README.md beside the checkout): the
host path is the same.
"""
from __future__ import annotations

import argparse
import os
import platform
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
# TORCHPROXY_TREE: the torchproxy of another checkout (a baseline tree), same script
for _p in (ROOT, os.environ.get("TORCHPROXY_TREE") or ROOT):
    if _p not in sys.path:
        sys.path.insert(0, _p)
sys.path.insert(0, HERE)

SCOPED = "bench_facade_ops_scoped"

# label, torch statement (facade and real torch), the same work in Paddle
CASES = [
    ("a + b (same shape)", "a + b", "paddle.add(a, b)"),
    ("a + r (broadcast [64,256] + [256])", "a + r", "paddle.add(a, r)"),
    ("a * r (broadcast)", "a * r", "paddle.multiply(a, r)"),
    ("a / r (broadcast)", "a / r", "paddle.divide(a, r)"),
    ("a - r (broadcast)", "a - r", "paddle.subtract(a, r)"),
    ("grad: ag + bg (same shape)", "ag + bg", "paddle.add(ag, bg)"),
    ("grad: ag + rg (broadcast)", "ag + rg", "paddle.add(ag, rg)"),
    ("grad: ag * rg (broadcast)", "ag * rg", "paddle.multiply(ag, rg)"),
    ("grad: ag / rg (broadcast)", "ag / rg", "paddle.divide(ag, rg)"),
    ("a.sum(-1)", "a.sum(-1)", "paddle.sum(a, axis=-1)"),
    ("a.sum(0)", "a.sum(0)", "paddle.sum(a, axis=0)"),
    ("a.mean(-1)", "a.mean(-1)", "paddle.mean(a, axis=-1)"),
    ("torch.sum(a, dim=(0, 1)) (full)", "torch.sum(a, dim=(0, 1))", "paddle.sum(a, axis=[0, 1])"),
    ("F.linear(a, w, bias)", "F.linear(a, w, bias)", "PF.linear(a, wt, bias)"),
    ("grad: F.linear(ag, wg, biasg)", "F.linear(ag, wg, biasg)", "PF.linear(ag, wtg, biasg)"),
    ("h.float() (half -> float32)", "h.float()", "h.astype('float32')"),
    ("grad: hg.float()", "hg.float()", "hg.astype('float32')"),
    ("h.to(torch.float32)", "h.to(torch.float32)", "h.astype('float32')"),
    ("torch.empty((64, 256), device=d)", "torch.empty((64, 256), device=d)",
     "paddle.empty([64, 256])"),
    ("torch.empty(64, 256, dtype=dt, device=d)", "torch.empty(64, 256, dtype=dt, device=d)",
     "paddle.empty([64, 256], dtype=dt)"),
    ("torch.zeros((64, 256), device=d)", "torch.zeros((64, 256), device=d)",
     "paddle.zeros([64, 256])"),
    ("torch.zeros(64, 256, dtype=dt, device=d)", "torch.zeros(64, 256, dtype=dt, device=d)",
     "paddle.zeros([64, 256], dtype=dt)"),
]

_SETUP_TORCH = "import torch\nimport torch.nn.functional as F\n"
_SETUP_PADDLE = "import paddle\nimport paddle.nn.functional as PF\n"


def main(argv=None):
    ap = argparse.ArgumentParser()
    ap.add_argument("--gpu", action="store_true")
    ap.add_argument("--dtype", default="float32", help="the operands' dtype (float32, float64)")
    ap.add_argument("-n", type=int, default=2000, help="calls per round")
    ap.add_argument("-r", "--rounds", type=int, default=9)
    args = ap.parse_args(argv)
    import numpy as np
    import paddle
    import torch

    import torchproxy
    from host_cost import measure

    gpu = args.gpu
    place = paddle.CUDAPlace(0) if gpu else paddle.CPUPlace()
    if gpu:
        paddle.set_device("gpu:0")
    else:
        paddle.set_device("cpu")
    tdev = "cuda" if gpu else "cpu"
    rng = np.random.default_rng(0)
    arrays = {"a": (64, 256), "b": (64, 256), "r": (256,), "w": (256, 256), "bias": (256,)}
    vals = {k: rng.standard_normal(s).astype(args.dtype) for k, s in arrays.items()}

    def pd(v, grad=False):
        t = paddle.to_tensor(v, place=place)
        t.stop_gradient = not grad
        return t

    def th(v, grad=False):
        return torch.from_numpy(v).to(tdev).requires_grad_(grad)

    half = vals["a"].astype("float16")
    penv = {k: pd(v) for k, v in vals.items()}
    penv.update({k + "g": pd(v, True) for k, v in vals.items()})
    penv.update(h=pd(half), hg=pd(half, True), wt=pd(vals["w"].T.copy()),
                wtg=pd(vals["w"].T.copy(), True), dt=getattr(paddle, args.dtype))
    tenv = {k: th(v) for k, v in vals.items()}
    tenv.update({k + "g": th(v, True) for k, v in vals.items()})
    tenv.update(h=th(half), hg=th(half, True), dt=getattr(torch, args.dtype),
                d=torch.device(tdev))

    torchproxy.enable(scope={SCOPED})
    try:
        T = None
        ns = {"__name__": SCOPED}
        exec("import torch", ns)
        T = ns["torch"]
        fenv = dict(penv, dt=getattr(T, args.dtype), d=T.device(tdev))
        rows = {}
        for label, tstmt, pstmt in CASES:
            rows[f"{label} | facade"] = (tstmt, fenv, SCOPED, _SETUP_TORCH)
            rows[f"{label} | paddle"] = (pstmt, penv, "bench_unscoped", _SETUP_PADDLE)
            rows[f"{label} | torch"] = (tstmt, tenv, "bench_torch", _SETUP_TORCH)
        res = measure(rows, args.n, args.rounds)
        if gpu:
            torch.cuda.synchronize()
    finally:
        torchproxy.disable()
    tree = os.environ.get("TORCHPROXY_TREE") or ROOT
    from torchproxy.facade import dispatch
    print(f"torchproxy from {os.path.dirname(os.path.dirname(torchproxy.__file__))} "
          f"(TORCHPROXY_TREE={tree}), dispatcher: {dispatch.backend()}")
    print(f"Paddle {paddle.__version__}, torch {torch.__version__}, Python "
          f"{sys.version.split()[0]}, {platform.machine()}, "
          f"{'GPU ' + torch.cuda.get_device_name(0) if gpu else 'CPU'} tensors, {args.dtype}; "
          f"best of {args.rounds} interleaved rounds of {args.n} calls, empty loop subtracted")
    print(f"facade ops host us/call {'':28s} {'facade':>8s} {'paddle':>8s} {'torch':>8s} "
          f"{'fac/pad':>8s} {'fac/tor':>8s}")
    for label, _t, _p in CASES:
        f, p_, t = (max(res[f"{label} | {k}"], 1e-3) for k in ("facade", "paddle", "torch"))
        print(f"{label[:52]:52s} {f:8.2f} {p_:8.2f} {t:8.2f} {f / p_:8.2f} {f / t:8.2f}")
    print("end facade ops")
    return 0


if __name__ == "__main__":
    sys.exit(main())
