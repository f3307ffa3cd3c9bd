"""All-reduce time, 2 processes over Gloo on CPU: through the facade (torch.distributed on
paddle.distributed), paddle.distributed directly, and real torch's Gloo; same sizes, one run,
ratios printed (a loaded machine makes the absolute numbers meaningless; compare the columns).

    .venv/bin/python bench/distributed_allreduce.py
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SIZES = [1 << 10, 1 << 16, 1 << 20, 1 << 22]  # float32 elements
REPEAT = 20

WORKER = r'''
import json, os, sys, time
mode = sys.argv[1]
sizes = json.loads(sys.argv[2]); repeat = int(sys.argv[3])
if mode == "paddle":
    import paddle, paddle.distributed as pd
    from torchproxy.facade import distributed as _d  # its env:// mapping, then Paddle alone
    _d.init_process_group("gloo")
    make = lambda n: paddle.ones([n], dtype="float32")
    reduce = lambda x: pd.all_reduce(x)
    barrier = pd.barrier
else:
    if mode == "facade":
        import torchproxy; torchproxy.enable(scope={"__main__"})
    import torch, torch.distributed as dist
    dist.init_process_group("gloo")
    make = lambda n: torch.ones(n, dtype=torch.float32)
    reduce = lambda x: dist.all_reduce(x)
    barrier = dist.barrier
res = {}
for n in sizes:
    x = make(n)
    for _ in range(3):
        reduce(x)
    barrier()
    t = time.perf_counter()
    for _ in range(repeat):
        reduce(x)
    res[n] = (time.perf_counter() - t) / repeat
print(json.dumps(res))
'''


def _port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def run(mode: str) -> dict:
    port = _port()
    procs = []
    for rank in range(2):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE="2", MASTER_ADDR="127.0.0.1",
                   MASTER_PORT=str(port), PYTHONPATH=ROOT, GLOG_minloglevel="2",
                   OMP_NUM_THREADS="1")
        procs.append(subprocess.Popen([sys.executable, "-c", WORKER, mode, json.dumps(SIZES),
                                       str(REPEAT)], cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    outs = [p.communicate(timeout=600) for p in procs]
    for p, (out, err) in zip(procs, outs):
        if p.returncode:
            raise SystemExit(f"{mode}: {err[-2000:]}")
    per_rank = [json.loads(o.strip().splitlines()[-1]) for o, _ in outs]
    return {int(n): max(r[n] for r in per_rank) for n in per_rank[0]}


def main():
    t0 = time.time()
    res = {m: run(m) for m in ("facade", "paddle", "torch")}
    print(f"all_reduce float32, 2 processes, Gloo on CPU, mean of {REPEAT} calls (slowest rank)")
    print(f"{'elements':>10} {'facade ms':>10} {'paddle ms':>10} {'torch ms':>10} "
          f"{'facade/paddle':>14} {'facade/torch':>13}")
    for n in SIZES:
        f, p, t = res["facade"][n], res["paddle"][n], res["torch"][n]
        print(f"{n:>10} {f * 1e3:>10.3f} {p * 1e3:>10.3f} {t * 1e3:>10.3f} {f / p:>14.2f} "
              f"{f / t:>13.2f}")
    print(f"({time.time() - t0:.0f} s; the machine's load moves every column)")


if __name__ == "__main__":
    main()
