"""Where a kernel wrapper's freshly allocated output costs time (issue 26: on Paddle GPU 2.6.2 a
wrapper that allocates its output costs 8-18 us more than one given a reused buffer; torch
0-2).  One process, one GPU, the 4096-element Triton add kernel, host us per call:

    PYTHONPATH=/tmp/site:. python3 bench/fresh_output.py      # needs a GPU, Paddle GPU, torch

Rows, each for Paddle (through torchproxy's binding, buffers made in Paddle directly) and torch:
launch into a reused output; allocate only; allocate then ``data_ptr()``; allocate and launch
into the new buffer; launch into the reused output and allocate a buffer the launch does not
use; the fresh-output row again with Python's cyclic GC off.  "fresh penalty" = (allocate and
launch into it) - (launch) - (allocate only).  Every repeat measures each row once, in turn
(best of 7).
"""
from __future__ import annotations

import gc
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
for _p in (ROOT, os.path.join(ROOT, "bench")):
    if _p not in sys.path:
        sys.path.insert(0, _p)

from triton_launch import host_us, load_kernels  # noqa: E402


class _GcOff:
    def __enter__(self):
        self.was = gc.isenabled()
        gc.disable()

    def __exit__(self, *exc):
        if self.was:
            gc.enable()


def main(n=2000, repeats=7):
    import numpy as np
    import paddle
    import torch

    from torchproxy.integrations import triton as binding
    binding.bind()
    P, T = load_kernels("add", True), load_kernels("add", False)
    dev = paddle.CUDAPlace(0)
    a = np.random.default_rng(0).standard_normal(4096).astype("float32")
    xp, yp, op = (paddle.to_tensor(v, place=dev) for v in (a, a, np.zeros_like(a)))
    xt, yt, ot = (torch.from_numpy(v).cuda() for v in (a, a, np.zeros_like(a)))
    grid = (4,)
    pk, tk = P.add_kernel, T.add_kernel
    pempty = paddle.empty
    psync, tsync = paddle.device.cuda.synchronize, torch.cuda.synchronize

    def p_launch():
        pk[grid](xp, yp, op, 4096, BLOCK_SIZE=1024)

    def p_alloc():
        pempty([4096], "float32")

    def p_alloc_ptr():
        pempty([4096], "float32").data_ptr()

    def p_fresh():
        pk[grid](xp, yp, pempty([4096], "float32"), 4096, BLOCK_SIZE=1024)

    def p_launch_then_alloc():
        pk[grid](xp, yp, op, 4096, BLOCK_SIZE=1024)
        pempty([4096], "float32")

    def t_launch():
        tk[grid](xt, yt, ot, 4096, BLOCK_SIZE=1024)

    def t_alloc():
        torch.empty(4096, device="cuda")

    def t_alloc_ptr():
        torch.empty(4096, device="cuda").data_ptr()

    def t_fresh():
        tk[grid](xt, yt, torch.empty(4096, device="cuda"), 4096, BLOCK_SIZE=1024)

    def t_launch_then_alloc():
        tk[grid](xt, yt, ot, 4096, BLOCK_SIZE=1024)
        torch.empty(4096, device="cuda")

    rows = {
        "launch into a reused output": (p_launch, t_launch, None),
        "allocate only": (p_alloc, t_alloc, None),
        "allocate, data_ptr()": (p_alloc_ptr, t_alloc_ptr, None),
        "allocate, launch into it": (p_fresh, t_fresh, None),
        "launch (reused), allocate an unused buffer": (p_launch_then_alloc, t_launch_then_alloc, None),
        "allocate, launch into it, gc off": (p_fresh, t_fresh, _GcOff),
    }
    best = {(r, s): float("inf") for r in rows for s in ("paddle", "torch")}
    for _ in range(repeats):
        for r, (pf, tf, ctx) in rows.items():
            for side, f, sync in (("paddle", pf, psync), ("torch", tf, tsync)):
                if ctx is None:
                    v = host_us(f, sync, n)
                else:
                    with ctx():
                        v = host_us(f, sync, n)
                best[(r, side)] = min(best[(r, side)], v)
    lines = [f"GPU {torch.cuda.get_device_name(0)}, Paddle {paddle.__version__}, torch "
             f"{torch.__version__}; host us per call, best of {repeats} interleaved loops of {n}",
             f"{'':48s} {'paddle':>8s} {'torch':>8s} {'ratio':>7s}"]
    for r in rows:
        p_, t_ = best[(r, "paddle")], best[(r, "torch")]
        lines.append(f"{r:48s} {p_:8.2f} {t_:8.2f} {p_ / t_:7.2f}")
    for side in ("paddle", "torch"):
        pen = (best[("allocate, launch into it", side)] - best[("launch into a reused output", side)]
               - best[("allocate only", side)])
        lines.append(f"fresh penalty ({side}): {pen:+.2f} us")
    print("\n".join(lines), flush=True)
    print("\n".join(softmax_parts(n // 4, repeats)))


def _loop(stmt, ns):
    """A loop over ``stmt`` compiled in namespace ``ns`` (its ``__name__`` decides whether
    torchproxy's facade sees a scoped caller)."""
    exec(f"def _f():\n    {stmt}\n", ns)
    return ns["_f"]


def softmax_parts(n, repeats):
    """kernels/triton/softmax.py's wrapper on a (256, 1000) float32 input, piece by piece, each
    piece run in the kernel module's own namespace (the facade's torch on the Paddle side)."""
    import numpy as np
    import paddle
    import torch
    P, T = load_kernels("softmax", True), load_kernels("softmax", False)
    a = np.random.default_rng(1).standard_normal((256, 1000)).astype("float32")
    xp = paddle.to_tensor(a, place=paddle.CUDAPlace(0))
    xt = torch.from_numpy(a).cuda()
    sides = {}
    for side, mod, x in (("paddle", P, xp), ("torch", T, xt)):
        ns = dict(vars(mod))
        ns["x"] = x
        ns["out0"] = mod.softmax(x)
        ns["s"] = (x.stride(0), x.stride(1), ns["out0"].stride(0))
        sides[side] = ns
    pieces = [
        ("softmax(x), the wrapper", "softmax(x)"),
        ("out = torch.empty((256, 1000), device=x.device, dtype=x.dtype)",
         "torch.empty((256, 1000), device=x.device, dtype=x.dtype)"),
        ("x.dim(); x.shape; 3 x .stride(i)",
         "x.dim(); r, c = x.shape; x.stride(0); x.stride(1); out0.stride(0)"),
        ("launch into a reused out (strides precomputed)",
         "softmax_kernel[(256,)](out0, x, s[0], s[1], s[2], 1000, BLOCK_SIZE=1024)"),
        ("allocate out, launch into it (strides precomputed)",
         "o = torch.empty((256, 1000), device=x.device, dtype=x.dtype); "
         "softmax_kernel[(256,)](o, x, s[0], s[1], s[2], 1000, BLOCK_SIZE=1024)"),
    ]
    sync = {"paddle": paddle.device.cuda.synchronize, "torch": torch.cuda.synchronize}
    fns = {(label, side): _loop(stmt, sides[side]) for label, stmt in pieces for side in sides}
    best = dict.fromkeys(fns, float("inf"))
    for _ in range(repeats):
        for (label, side), f in fns.items():
            best[(label, side)] = min(best[(label, side)], host_us(f, sync[side], n))
    out = ["", "softmax wrapper (256, 1000) float32, piece by piece in the kernel module "
               "(facade on the Paddle side)",
           f"{'':62s} {'paddle':>8s} {'torch':>8s} {'ratio':>7s}"]
    for label, _ in pieces:
        p_, t_ = best[(label, "paddle")], best[(label, "torch")]
        out.append(f"{label[:62]:62s} {p_:8.2f} {t_:8.2f} {p_ / t_:7.2f}")
    return out


if __name__ == "__main__":
    main()
