"""DistributedDataParallel over Gloo: 2 ranks train a tiny model 3 steps (the last accumulating
two micro-batches, the first under no_sync()); the parameters equal a single-process run over
the whole batch and real torch's DDP run on the same data.  DistributedSampler gives torch's
index order; torch.multiprocessing.spawn starts children in the parent's scope; parameters
without a gradient behave as under torch's reducer with find_unused_parameters False and True."""
from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

from distrun import FACADE_BOOT, ROOT, launch

pytest.importorskip("torch")


def test_ddp_training_equals_single_process_and_torch():
    facade = launch("ddp_train.py", 2, facade=True, timeout=180)
    oracle = launch("ddp_train.py", 2, facade=False, timeout=180)
    f0 = facade[0]
    assert f0["module_is_model"] and f0["keys"] == oracle[0]["keys"]
    for ddp, single in zip(f0["ddp"], f0["single"]):
        np.testing.assert_allclose(ddp, single, rtol=1e-5, atol=1e-6)
    for a, b in zip(facade[1]["ddp"], f0["ddp"]):  # every rank holds the same parameters
        np.testing.assert_array_equal(a, b)
    for ours, torch_ddp in zip(f0["ddp"], oracle[0]["ddp"]):
        np.testing.assert_allclose(ours, torch_ddp, rtol=1e-5, atol=1e-6)



def _same_grads(oracle: dict, facade: dict, where: str) -> None:
    assert list(oracle) == list(facade), where
    for name, want in oracle.items():
        got = facade[name]
        assert (want is None) == (got is None), f"{where} {name}: torch {want}, facade {got}"
        if want is not None:
            np.testing.assert_allclose(got, want, rtol=1e-5, atol=1e-4, err_msg=f"{where} {name}")


def test_find_unused_parameters_as_torch():
    # False: the next forward raises torch's RuntimeError (rank 1 with TORCH_DISTRIBUTED_DEBUG=
    # INFO: the message names the parameters), the gradients stay local; True: unused on every
    # rank -> .grad untouched, on some ranks -> averaged with zeros; no_sync usage counts
    oracle = launch("ddp_unused.py", 2, facade=False, timeout=180)
    facade = launch("ddp_unused.py", 2, facade=True, timeout=180)
    for rank, (o, f) in enumerate(zip(oracle, facade)):
        assert set(o) == set(f)
        for key in o:
            where = f"rank {rank} {key}"
            if isinstance(o[key], dict):
                _same_grads(o[key], f[key], where)
            else:
                assert f[key] == o[key], where
        assert o["false/next_forward"][0] == "RuntimeError"  # the case ran as intended
        assert o["false/grads"]["b.weight"] is None and o["true/grads1"]["c.weight"] is None
    assert oracle[0]["false/grads"]["a.weight"] != oracle[1]["false/grads"]["a.weight"]
    assert oracle[1]["true/grads1"]["b.weight"] is not None  # rank 0's, averaged


SAMPLER = """
import json, sys
import torch
from torch.utils.data import DistributedSampler
out = []
for n, reps, shuffle, seed, drop, epoch in [(10, 2, True, 0, False, 0), (10, 3, True, 0, False, 1),
        (11, 3, True, 5, True, 2), (7, 4, False, 0, False, 0), (1000, 8, True, 123, False, 7),
        (5, 8, True, 0, False, 3), (9, 2, True, 2**32 + 9, False, 0)]:
    for rank in range(reps):
        s = DistributedSampler(list(range(n)), num_replicas=reps, rank=rank, shuffle=shuffle,
                               seed=seed, drop_last=drop)
        s.set_epoch(epoch)
        out.append([len(s), list(s)])
try:
    DistributedSampler(list(range(4)), num_replicas=2, rank=2)
except ValueError as e:
    out.append(str(e))
print(json.dumps(out))
"""


def _run(src: str, facade: bool, tmp_path):
    script = tmp_path / "snippet.py"
    script.write_text(src)
    cmd = [sys.executable, "-c", FACADE_BOOT, str(script)] if facade else [sys.executable, str(script)]
    p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=120,
                       env=dict(os.environ, PYTHONPATH=ROOT))
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout.strip().splitlines()[-1]


def test_distributed_sampler_order_is_torchs(tmp_path):
    ours = _run(SAMPLER, True, tmp_path)
    assert ours == _run(SAMPLER, False, tmp_path)
    assert len(ours) > 1000  # the cases ran


SPAWN = """
import json, os, pickle, sys, tempfile
import torch
import torch.multiprocessing as mp

def work(rank, folder, mode):
    import torch
    # the child's torch is the facade under torchproxy: its tensors are Paddle's
    kind = type(torch.ones(1)).__module__.split(".")[0]
    with open(os.path.join(folder, f"{mode}{rank}"), "w") as f:
        f.write(kind)
    if rank == 1 and mode == "raise":
        raise KeyError("boom")
    if rank == 1 and mode == "exit":
        sys.exit(3)
    if rank == 1 and mode == "kill":
        os.kill(os.getpid(), 9)

if __name__ == "__main__":
    folder = tempfile.mkdtemp()
    out = {}
    try:
        mp.spawn(work, args=(folder, "raise"), nprocs=2)
    except mp.ProcessRaisedException as e:
        out["raised"] = ["KeyError: 'boom'" in str(e), e.error_index, isinstance(e.error_pid, int),
                         e.msg == str(e), str(e).startswith("\\n\\n-- Process 1 terminated with the following error:\\n")]
    try:
        mp.spawn(work, args=(folder, "exit"), nprocs=2)
    except mp.ProcessExitedException as e:
        back = pickle.loads(pickle.dumps(e))
        out["exited"] = [str(e), e.error_index, e.exit_code, e.signal_name, type(back).__name__,
                         back.exit_code, back.error_pid == e.error_pid]
    try:
        mp.spawn(work, args=(folder, "kill"), nprocs=2)
    except mp.ProcessExitedException as e:
        out["killed"] = [str(e), e.error_index, e.exit_code, e.signal_name]
    ctx = mp.spawn(work, args=(folder, "ok"), nprocs=3, join=False)
    out["context"] = [type(ctx).__name__, len(ctx.pids())]
    while not ctx.join():
        pass
    out["joined"] = [ctx.join(), mp.spawn(work, args=(folder, "again"), nprocs=1)]
    out["kinds"] = sorted(set(open(os.path.join(folder, n)).read() for n in os.listdir(folder)))
    # (a failing rank's siblings may be stopped before they write: only the ok runs' files)
    out["files"] = sorted(n for n in os.listdir(folder) if n.startswith(("ok", "again")))
    print(json.dumps(out))
"""


def test_multiprocessing_spawn_as_torch_children_in_scope(tmp_path):
    # torch's spawn semantics (ProcessRaisedException, ProcessExitedException, join=False's
    # ProcessContext) compared with real torch's; the facade's children get the facade
    script = tmp_path / "spawn_main.py"
    script.write_text(textwrap.dedent(SPAWN))
    got = {}
    for facade in (True, False):
        cmd = ([sys.executable, "-c", FACADE_BOOT, str(script)] if facade
               else [sys.executable, str(script)])
        p = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True, timeout=300,
                           env=dict(os.environ, PYTHONPATH=ROOT))
        assert p.returncode == 0, p.stderr[-3000:]
        import json
        got[facade] = json.loads(p.stdout.strip().splitlines()[-1])
    assert got[True].pop("kinds") == ["paddle"] and got[False].pop("kinds") == ["torch"]
    assert got[True] == got[False]
    assert got[False]["raised"] == [True, 1, True, True, True]
    assert got[False]["exited"][2] == 3
