"""float32 CPU reductions and broadcast gradients: accuracy and cost of the facade's accurate
sums (torchproxy/facade/_accurate_sum.py) against real torch, in one run.

For each case the same torch-written snippet runs under real torch and under the facade on the
same float32 inputs:
- error: max |result - float64 result| (float64: real torch on float64 copies of the inputs),
  for torch, the facade, and the facade with its blocks switched off (``BLOCK`` set beyond
  every extent: Paddle's own sequential float32 sums, what the facade did before);
- cost: CPU ms per call (forward, and backward where the case has one), best of 5 repeats,
  the same three, as ratios to torch.

    .venv/bin/python bench/reduction_accuracy.py     (./dev bench keeps its output in
                                                       docs/results/bench-reduction_accuracy.txt)
"""
from __future__ import annotations

import os
import sys
import time

import numpy as np

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

from difftest import run  # noqa: E402  (the differential harness: one snippet, both sides)

import torchproxy.facade._accurate_sum as accurate  # noqa: E402

SRC = """
import torch
import torch.nn.functional as F
def _p(*shape, like, fill=1.0):
    return torch.full(shape, fill, dtype=like.dtype).requires_grad_(True)
def f(kind, x, g):
    if kind == "x.sum(-1)":
        return x.sum(-1)
    if kind == "x.sum((0, 1))":
        return x.sum((0, 1))
    if kind == "x.mean()":
        return x.mean()
    if kind == "x.mean((0, 2))":
        return x.mean((0, 2))
    if kind == "w[] * x, grad w":
        w = _p(like=x); (w * x).backward(g); return w.grad
    if kind == "w[C] * x, grad w":
        w = _p(x.shape[-1], like=x); (w * x).backward(g); return w.grad
    if kind == "x * w[1,C,1], grad w":
        w = _p(1, x.shape[1], 1, like=x); (x * w).backward(g); return w.grad
    if kind == "x + pos[T,C], grad pos":
        p = _p(*x.shape[1:], like=x, fill=0.0); (x + p).backward(g); return p.grad
    if kind == "F.linear bias grad":
        W = torch.eye(x.shape[-1], dtype=x.dtype).requires_grad_(True)
        b = _p(x.shape[-1], like=x, fill=0.0); F.linear(x, W, b).backward(g); return b.grad
    if kind == "F.group_norm weight grad":
        w, b = _p(x.shape[1], like=x), _p(x.shape[1], like=x, fill=0.0)
        F.group_norm(x, 4, w, b).backward(g); return w.grad
    if kind == "F.batch_norm weight grad":
        w, b = _p(x.shape[1], like=x), _p(x.shape[1], like=x, fill=0.0)
        F.batch_norm(x, None, None, w, b, training=True).backward(g); return w.grad
    if kind == "F.rms_norm weight grad":
        w = _p(x.shape[-1], like=x); F.rms_norm(x, x.shape[-1:], w).backward(g); return w.grad
    if kind == "F.layer_norm bias grad (Paddle's kernel)":
        w, b = _p(x.shape[-1], like=x), _p(x.shape[-1], like=x, fill=0.0)
        F.layer_norm(x, x.shape[-1:], w, b).backward(g); return b.grad
    if kind == "clip_grad_norm_ total norm":
        p = torch.zeros(x.shape, dtype=x.dtype, requires_grad=True)
        p.grad = x.clone()
        return torch.nn.utils.clip_grad_norm_([p], 1.0)
    if kind == "linalg.vector_norm(x, dim=-1)":
        return torch.linalg.vector_norm(x, dim=-1)
    raise ValueError(kind)
"""

CASES = [("x.sum(-1)", (8, 512, 768)), ("x.sum((0, 1))", (8, 512, 768)),
         ("x.mean()", (8, 512, 768)), ("x.mean((0, 2))", (16, 32, 4096)),
         ("w[] * x, grad w", (8, 64, 1024)), ("w[C] * x, grad w", (8, 512, 768)),
         ("x * w[1,C,1], grad w", (16, 32, 4096)), ("x + pos[T,C], grad pos", (32, 64, 768)),
         ("F.linear bias grad", (4096, 256)), ("F.group_norm weight grad", (16, 32, 4096)),
         ("F.batch_norm weight grad", (64, 32, 32, 32)), ("F.rms_norm weight grad", (8, 512, 768)),
         ("F.layer_norm bias grad (Paddle's kernel)", (8, 512, 768)),
         ("clip_grad_norm_ total norm", (64, 512, 256)),
         ("linalg.vector_norm(x, dim=-1)", (64, 4096))]


def _cpu_ms(fn, repeats=5, calls=3):
    fn()
    best = float("inf")
    for _ in range(repeats):
        t = time.process_time()
        for _ in range(calls):
            fn()
        best = min(best, (time.process_time() - t) / calls)
    return best * 1e3


def main():
    import paddle
    import torch
    # CPU time of one thread on each side (Paddle's CPU kernels here run on one; torch's own
    # intra-op threads would add their CPU time and contend with each other on a shared host)
    torch.set_num_threads(1)
    print(f"Paddle {paddle.__version__}, torch {torch.__version__}; float32 CPU inputs "
          f"(x ~ 2 N(0,1) + 0.5, upstream gradient ~ N(0,1)), torch.set_num_threads"
          f"({torch.get_num_threads()}); error: max abs difference from float64; cost: CPU ms "
          f"per call, best of 5 repeats of 3 calls; 'Paddle sums': the facade with "
          f"_accurate_sum.BLOCK beyond every extent (Paddle's sequential float32 sums)")
    header = (f"{'case':42s} {'shape':17s} {'torch err':>9s} {'facade':>9s} {'Paddle sums':>11s}"
              f" | {'torch ms':>8s} {'facade/torch':>12s} {'Paddle sums/torch':>17s}")
    print(header)
    print("-" * len(header))
    block = accurate.BLOCK
    for kind, shape in CASES:
        rng = np.random.default_rng(0)
        x = (rng.standard_normal(shape) * 2 + 0.5).astype(np.float32)
        g = rng.standard_normal(shape).astype(np.float32)
        exact = run(SRC, kind, x.astype(np.float64), g.astype(np.float64),
                    scoped=False).detach().numpy()
        errors, costs = {}, {}
        for side, scoped, blk in (("torch", False, block), ("facade", True, block),
                                  ("paddle", True, 1 << 62)):
            accurate.BLOCK = blk
            try:
                got = run(SRC, kind, x, g, scoped=scoped).detach().numpy().astype(np.float64)
                errors[side] = np.max(np.abs(got - exact))
                costs[side] = _cpu_ms(lambda: run(SRC, kind, x, g, scoped=scoped))
            finally:
                accurate.BLOCK = block
        print(f"{kind:42s} {str(shape):17s} {errors['torch']:9.2e} {errors['facade']:9.2e} "
              f"{errors['paddle']:11.2e} | {costs['torch']:8.2f} "
              f"{costs['facade'] / costs['torch']:12.2f} {costs['paddle'] / costs['torch']:17.2f}",
              flush=True)


if __name__ == "__main__":
    main()
