"""CPU random numbers: what torch's own numbers cost under torchproxy, in one run.

The facade draws CPU random numbers as real torch does (facade/torch_cpu_rng.py: torch's
mt19937 stream and ATen's transforms, in numpy), so ``torch.manual_seed`` gives torch's tensors.
This measures the price of that against:
- real torch 2.13 (its C++ kernels),
- direct Paddle (``paddle.randn`` / ``paddle.rand`` / ``paddle.nn.functional.dropout``: Paddle's
  generator, other numbers),
- Paddle's own proxy (``paddle.compat.enable_torch_proxy``, Paddle 3.3: ``torch.randn`` there is
  Paddle's sampler), in a subprocess (it replaces ``torch`` for the whole process).

    .venv/bin/python bench/rng_cpu.py

Per case: the best of 5 repeats, milliseconds, and the ratios to real torch.  The machine is
shared: compare the ratios, not the absolute times.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests"))

CASES = {
    "randn(1M)": "torch.randn(1_000_000)",
    "rand(1M)": "torch.rand(1_000_000)",
    "randn(8) x1000": "[torch.randn(8) for _ in range(1000)]",
    "randint(0,1000,1M)": "torch.randint(0, 1000, (1_000_000,))",
    "randperm(60000)": "torch.randperm(60000)",
    "Linear(1024,1024)": "torch.nn.Linear(1024, 1024)",
    "dropout(1M, 0.1)": "torch.nn.functional.dropout(x, 0.1)",
}
PADDLE = {
    "randn(1M)": "paddle.randn([1_000_000])",
    "rand(1M)": "paddle.rand([1_000_000])",
    "randn(8) x1000": "[paddle.randn([8]) for _ in range(1000)]",
    "randint(0,1000,1M)": "paddle.randint(0, 1000, [1_000_000])",
    "randperm(60000)": "paddle.randperm(60000)",
    "Linear(1024,1024)": "paddle.nn.Linear(1024, 1024)",
    "dropout(1M, 0.1)": "paddle.nn.functional.dropout(x, 0.1)",
}


def _best(fn, repeats=5):
    fn()
    best = float("inf")
    for _ in range(repeats):
        t = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t)
    return best * 1e3


def _time(ns, cases):
    out = {}
    for name, expr in cases.items():
        code = compile(expr, name, "eval")
        out[name] = _best(lambda: eval(code, ns))
    return out


PADDLE_PROXY_CHILD = r"""
import json, sys, time
import paddle
paddle.compat.enable_torch_proxy()
import torch
sys.path.insert(0, sys.argv[1])
from rng_cpu import CASES, _time
x = torch.ones(1_000_000)
print(json.dumps(_time({"torch": torch, "x": x}, CASES)))
"""


def main():
    import paddle
    import torch as real_torch
    from difftest import load
    facade = load("import torch\n", scoped=True).torch
    rows = {
        "real torch": _time({"torch": real_torch, "x": real_torch.ones(1_000_000)}, CASES),
        "torchproxy": _time({"torch": facade, "x": facade.ones(1_000_000)}, CASES),
        "direct Paddle": _time({"paddle": paddle, "x": paddle.ones([1_000_000])}, PADDLE),
    }
    proc = subprocess.run([sys.executable, "-c", PADDLE_PROXY_CHILD, os.path.dirname(__file__)],
                          capture_output=True, text=True, cwd=ROOT)
    if proc.returncode == 0 and proc.stdout.strip():
        rows["Paddle's proxy"] = json.loads(proc.stdout.strip().splitlines()[-1])
    else:
        last = (proc.stderr.strip().splitlines() or ["no output"])[-1]
        print(f"Paddle's proxy: not measured ({last})")
    print(f"paddle {paddle.__version__}, torch {real_torch.__version__}; ms, best of 5; "
          "ratio = time / real torch's")
    sides = list(rows)
    print(f"{'case':22s}" + "".join(f"{s:>22s}" for s in sides))
    for case in CASES:
        base = rows["real torch"][case]
        cells = "".join(f"{rows[s][case]:10.2f} ({rows[s][case] / base:6.1f}x)" for s in sides)
        print(f"{case:22s}{cells}")


if __name__ == "__main__":
    main()
