"""Run one torch-written script as N ranks over Gloo on CPU, under real torch (the oracle) or
under the facade, and collect what each rank prints as JSON on its last stdout line.

The script sees torchrun's variables (RANK, WORLD_SIZE, LOCAL_RANK, MASTER_ADDR, MASTER_PORT);
under the facade it is started with ``torchproxy.enable(scope={"__main__"})`` first, so its
``import torch`` is the facade and its tensors are Paddle's.  Every rank has a deadline: a hang
is a failure (the processes are killed and the test reports their output).
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
SCRIPTS = os.path.join(HERE, "scripts")

FACADE_BOOT = ("import runpy, sys, torchproxy; torchproxy.enable(scope={'__main__'}); "
               "sys.argv = sys.argv[1:]; runpy.run_path(sys.argv[0], run_name='__main__')")


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch(script: str, nprocs: int, facade: bool, args=(), timeout: float = 120,
           env_extra=None) -> list:
    """Each rank's JSON result (its last stdout line), rank order."""
    port = free_port()
    path = os.path.join(SCRIPTS, script) if not os.path.isabs(script) else script
    procs = []
    for rank in range(nprocs):
        env = dict(os.environ, RANK=str(rank), WORLD_SIZE=str(nprocs), LOCAL_RANK=str(rank),
                   MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), PYTHONPATH=ROOT,
                   GLOG_minloglevel="2", OMP_NUM_THREADS="1", **(env_extra or {}))
        for k in list(env):
            if k.startswith("PADDLE_") or k == "TORCHPROXY_SCOPE":
                del env[k]  # a clean launcher environment: the facade sets Paddle's itself
        cmd = ([sys.executable, "-c", FACADE_BOOT, path, *args] if facade
               else [sys.executable, path, *args])
        procs.append(subprocess.Popen(cmd, cwd=ROOT, env=env, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE, text=True))
    outs, failed = [], []
    for rank, p in enumerate(procs):
        try:
            out, err = p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            for q in procs:
                q.kill()
            out, err = p.communicate()
            failed.append(f"rank {rank} timed out after {timeout}s\n{out[-3000:]}\n{err[-3000:]}")
            continue
        if p.returncode != 0:
            failed.append(f"rank {rank} exited {p.returncode}\n{out[-3000:]}\n{err[-5000:]}")
            continue
        outs.append(json.loads(out.strip().splitlines()[-1]))
    if failed:
        for q in procs:
            if q.poll() is None:
                q.kill()
        raise AssertionError(("facade" if facade else "torch") + ": " + "\n".join(failed))
    return outs
