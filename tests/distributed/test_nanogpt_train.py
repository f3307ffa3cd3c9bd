"""karpathy/nanoGPT's ``train.py``, unmodified (fetched at test time, pinned by sha256), on CPU.

1. Real torch trains from scratch and writes ``ckpt.pt`` (model, AdamW state, config).
2. Both sides resume from that checkpoint (``--init_from=resume``): real torch, and the facade
   (``torchproxy.enable(scope={"__main__", "model"})``: train.py and its model.py).  The dataset is
   one repeated token, so every batch ``torch.randint`` draws is the same on both sides (their
   random streams differ), and the per-iteration losses must agree.  On the way: torch.load of
   a real torch checkpoint with an optimizer state, configurator.py's ``--key=value`` overrides,
   ``torch.cuda.amp.GradScaler(enabled=True)`` on CPU (train.py's default dtype there is float16:
   torch disables the scaler with a warning), clip_grad_norm_, AdamW with weight-decay groups.
3. Under DDP (torchrun's variables, ``--backend=gloo``) train.py pins ``cuda:LOCAL_RANK``
   (``device = f'cuda:{ddp_local_rank}'; torch.cuda.set_device(device)``): real torch's CPU build
   stops there, so on CPU this is not a client real torch passes.  The facade must get both
   ranks through init_process_group and stop at the same line (real torch's CPU build raises
   AttributeError on its missing ``torch._C._cuda_setDevice``; the facade raises the
   "Torch not compiled with CUDA enabled" AssertionError that torch's other CUDA entry points
   give on that build).  The DDP path itself is tests/distributed/test_ddp.py's.
"""
from __future__ import annotations

import concurrent.futures
import os
import re
import shutil
import subprocess
import sys

import numpy as np
import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "clients"))
import client_sources as cs  # noqa: E402  (the pinned third-party sources)
from distrun import FACADE_BOOT, ROOT, free_port  # noqa: E402

pytest.importorskip("torch")

NANOGPT = cs.GitHubSource(
    "karpathy", "nanoGPT", "3adf61e154c3fe3fca428ad6bc3818b27a3b8291",
    {"train.py": "413bd97b40bb400a2a0d01230e2946f056c263ebac1b7281c2367d964a123085",
     "configurator.py": "5cc23aca26b4ab3c0d9e5f82740f4781f9444f42718c15abcee70d93c5aabe8f",
     "model.py": "7c01703240dbec5d554527dc666e35b3df8391d0b117fddc07afcf325a21d11c"})
BOOT = FACADE_BOOT.replace("scope={'__main__'}", "scope={'__main__', 'model'}")
TINY = ["--device=cpu", "--compile=False", "--dataset=tiny", "--n_layer=2", "--n_head=2",
        "--n_embd=32", "--block_size=16", "--batch_size=4", "--gradient_accumulation_steps=2",
        "--dropout=0.0", "--eval_interval=2", "--eval_iters=1", "--log_interval=1",
        "--learning_rate=1e-3", "--warmup_iters=1", "--always_save_checkpoint=True"]
ITER = re.compile(r"^iter (\d+): loss ([0-9.]+)", re.M)


@pytest.fixture(scope="module")
def workdir(tmp_path_factory):
    try:
        src = NANOGPT.fetch()
    except cs.SourcesMissing as e:  # offline without a mirror: as the other pinned clients do
        pytest.skip(str(e))
    d = tmp_path_factory.mktemp("nanogpt")
    for name in NANOGPT.files:
        shutil.copy(os.path.join(src, name), d / name)
    data = d / "data" / "tiny"
    data.mkdir(parents=True)
    for split in ("train", "val"):
        np.full(4096, 7, dtype=np.uint16).tofile(data / f"{split}.bin")
    import pickle
    with open(data / "meta.pkl", "wb") as f:
        pickle.dump({"vocab_size": 65}, f)
    return d


def _train(cwd, facade, args, env_extra=None, timeout=300):
    env = dict(os.environ, PYTHONPATH=ROOT, GLOG_minloglevel="2", OMP_NUM_THREADS="1",
               **(env_extra or {}))
    env.pop("TORCHPROXY_SCOPE", None)
    cmd = ([sys.executable, "-c", BOOT, "train.py", *args] if facade
           else [sys.executable, "train.py", *args])
    return subprocess.run(cmd, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout)


def _losses(r, who):
    assert r.returncode == 0, f"{who} train.py exited {r.returncode}:\n{r.stdout[-2000:]}\n{r.stderr[-4000:]}"
    return [(int(i), float(v)) for i, v in ITER.findall(r.stdout)]


def test_train_py_resumes_a_real_torch_checkpoint_and_trains_as_torch(workdir):
    start = workdir / "start"
    seeded = _losses(_train(workdir, False, TINY + [f"--out_dir={start}", "--max_iters=2"]),
                     "torch (from scratch)")
    assert [i for i, _ in seeded] == [0, 1, 2] and (start / "ckpt.pt").exists()
    curves = {}
    for side, facade in (("torch", False), ("facade", True)):
        out = workdir / f"resume-{side}"
        shutil.copytree(start, out)
        r = _train(workdir, facade, TINY + [f"--out_dir={out}", "--init_from=resume",
                                            "--max_iters=6"])
        curves[side] = _losses(r, side)
        if facade:  # train.py's CPU default dtype float16 -> GradScaler(enabled=True) on CPU
            assert "GradScaler is enabled, but CUDA is not available" in r.stderr, r.stderr[-2000:]
    assert [i for i, _ in curves["facade"]] == [i for i, _ in curves["torch"]] == [2, 3, 4, 5, 6]
    ours, theirs = (np.array([v for _, v in curves[s]]) for s in ("facade", "torch"))
    assert theirs[-1] < theirs[0]  # it trains
    # train.py prints 4 decimals
    np.testing.assert_allclose(ours, theirs, rtol=0, atol=1.5e-4)


def test_train_py_under_ddp_stops_where_real_torch_does(workdir):
    """train.py's DDP branch pins a CUDA device; on a CPU machine both sides stop there, after
    init_process_group over Gloo has joined the two ranks."""
    results = {}
    for side, facade in (("torch", False), ("facade", True)):
        port = str(free_port())
        env = [dict(RANK=str(r), WORLD_SIZE="2", LOCAL_RANK=str(r), MASTER_ADDR="127.0.0.1",
                    MASTER_PORT=port) for r in (0, 1)]
        args = TINY + [f"--out_dir={workdir / ('ddp-' + side)}", "--backend=gloo", "--max_iters=2"]
        with concurrent.futures.ThreadPoolExecutor(2) as pool:
            runs = list(pool.map(lambda e: _train(workdir, facade, args, e, timeout=180), env))
        for rank, r in enumerate(runs):
            assert r.returncode != 0, f"{side} rank {rank} ran DDP on a CPU-only machine:\n{r.stdout}"
            assert "torch.cuda.set_device(device)" in r.stderr, r.stderr[-3000:]
        results[side] = [r.stderr.strip().splitlines()[-1] for r in runs]
    # real torch's CPU build fails inside set_device on a private name it lacks; the facade says
    # what torch's other CUDA entry points say on that build (current_device, synchronize, ...)
    assert all(line.endswith("has no attribute '_cuda_setDevice'") for line in results["torch"])
    assert results["facade"] == ["AssertionError: Torch not compiled with CUDA enabled"] * 2
