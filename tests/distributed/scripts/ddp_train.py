"""DistributedDataParallel: a tiny model trained 3 steps on each rank's share of the batch
(the 3rd step accumulates two micro-batches, the first under no_sync()); rank 0 also trains a
copy single-process on the whole batch.  Prints both parameter sets as JSON."""
import json
import sys

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, ws = dist.get_rank(), dist.get_world_size()
rng = np.random.RandomState(0)
X = rng.randn(8 * ws, 4).astype("float32")
Y = rng.randn(8 * ws, 2).astype("float32")


def make():
    m = nn.Sequential(nn.Linear(4, 5), nn.Tanh(), nn.Linear(5, 2))
    init = np.random.RandomState(1 + rank)  # different per rank: DDP broadcasts rank 0's
    with torch.no_grad():
        for p in m.parameters():
            p.copy_(torch.tensor(init.randn(*p.shape).astype("float32")))
    return m


def steps(model, opt, xs, ys, micro):
    for step in range(3):
        opt.zero_grad()
        if step < 2:
            nn.functional.mse_loss(model(xs), ys).backward()
        else:  # two micro-batches, the first without synchronising
            h = xs.shape[0] // 2
            with micro():
                (nn.functional.mse_loss(model(xs[:h]), ys[:h]) / 2).backward()
            (nn.functional.mse_loss(model(xs[h:]), ys[h:]) / 2).backward()
        opt.step()


model = make()
ddp = DDP(model)
opt = torch.optim.SGD(ddp.parameters(), lr=0.1)
share = slice(rank * 8, (rank + 1) * 8)
# rank r's share, arranged so the micro-batch halves line up with the single-process run's
xs = torch.tensor(X.reshape(2, ws, 4, 4)[:, rank].reshape(8, 4))
ys = torch.tensor(Y.reshape(2, ws, 4, 2)[:, rank].reshape(8, 2))
steps(ddp, opt, xs, ys, ddp.no_sync)
out = {"rank": rank, "ddp": [p.detach().tolist() for p in model.parameters()],
       "module_is_model": ddp.module is model,
       "keys": sorted(ddp.state_dict().keys())}
if rank == 0:
    import contextlib
    torch.manual_seed(0)
    ref = make()  # rank 0's init, as DDP broadcast it
    ropt = torch.optim.SGD(ref.parameters(), lr=0.1)
    steps(ref, ropt, torch.tensor(X), torch.tensor(Y), contextlib.nullcontext)
    out["single"] = [p.detach().tolist() for p in ref.parameters()]
dist.destroy_process_group()
print(json.dumps(out))
sys.stdout.flush()
