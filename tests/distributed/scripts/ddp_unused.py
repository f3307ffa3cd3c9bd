"""DistributedDataParallel with parameters that get no gradient: what each rank holds after the
backward (gradients, None or not) and what the next forward does, with
find_unused_parameters=False (torch: the prior reduction never finished -> RuntimeError at the
next forward, gradients left local) and True (reduction proceeds; unused on every rank: .grad
untouched; unused on this rank only: the average of the others').  Rank 1 runs with
TORCH_DISTRIBUTED_DEBUG=INFO (the error then names the parameters).  Prints JSON per rank."""
import json
import os
import sys

if os.environ["RANK"] == "1":  # torch reads it when torch.distributed loads
    os.environ["TORCH_DISTRIBUTED_DEBUG"] = "INFO"

import numpy as np
import torch
import torch.distributed as dist
import torch.nn as nn
from torch.nn.parallel import DistributedDataParallel as DDP

dist.init_process_group("gloo")
rank, ws = dist.get_rank(), dist.get_world_size()


class Net(nn.Module):
    """a and head always used; b used on rank 0 only (when partial); c never used;
    side feeds an output the loss may leave out."""

    def __init__(self, partial):
        super().__init__()
        self.a = nn.Linear(3, 4)
        self.b = nn.Linear(4, 4)
        self.c = nn.Linear(4, 4)
        self.side = nn.Linear(4, 1)
        self.head = nn.Linear(4, 2)
        self.partial = partial
        init = np.random.RandomState(7)
        with torch.no_grad():
            for p in self.parameters():
                p.copy_(torch.tensor(init.randn(*p.shape).astype("float32")))

    def forward(self, x):
        h = torch.tanh(self.a(x))
        if self.partial and rank == 0:
            h = h + self.b(h)
        return self.head(h), self.side(h)


def grads(model):
    return {n: (None if p.grad is None else np.round(p.grad.detach().numpy(), 5).tolist())
            for n, p in model.named_parameters()}


def err(fn):
    try:
        fn()
    except Exception as e:  # the type and torch's message
        return [type(e).__name__, str(e)]
    return None


x = torch.tensor(np.random.RandomState(rank).randn(5, 3).astype("float32"))
out = {"rank": rank}

# find_unused_parameters=False: b, c (and side, whose output the loss leaves out) get no grad
m = Net(partial=False)
ddp = DDP(m)
y, _ = ddp(x)
y.sum().backward()
out["false/grads"] = grads(m)
with torch.no_grad():
    out["false/no_grad_forward"] = err(lambda: ddp(x))  # no reduction expected: no check
out["false/next_forward"] = err(lambda: ddp(x))
out["false/again"] = err(lambda: ddp(x))

# find_unused_parameters=False, every parameter used: no error, gradients averaged
m = Net(partial=False)
ddp = DDP(m)
for _ in range(2):
    y, s = ddp(x)
    (y.sum() + s.sum() + 0 * sum(p.sum() for p in (m.b.weight, m.b.bias, m.c.weight, m.c.bias))
     ).backward()
out["false_all_used/grads"] = grads(m)

# find_unused_parameters=True: b used on rank 0 only, c and side on no rank
m = Net(partial=True)
ddp = DDP(m, find_unused_parameters=True)
y, _ = ddp(x)
y.sum().backward()
out["true/grads1"] = grads(m)
# a second iteration without zero_grad: used gradients accumulate and are averaged again;
# c's gradient (None) stays untouched
y, _ = ddp(x * 2)
y.sum().backward()
out["true/grads2"] = grads(m)
# a preset gradient on a parameter no rank uses is left as it is (not averaged)
for p in m.parameters():
    p.grad = None
with torch.no_grad():
    m.c.weight.grad = torch.full_like(m.c.weight, float(rank + 1))
y, _ = ddp(x)
y.sum().backward()
out["true/grads3"] = grads(m)

# find_unused_parameters=True with no_sync: accumulate locally, then reduce
m = Net(partial=True)
ddp = DDP(m, find_unused_parameters=True)
with ddp.no_sync():
    y, _ = ddp(x)
    y.sum().backward()
out["true/no_sync_grads"] = grads(m)
y, _ = ddp(x + 1)
y.sum().backward()
out["true/synced_grads"] = grads(m)

# b used only in the accumulating (no_sync) backward, on rank 0
m = Net(partial=True)
ddp = DDP(m, find_unused_parameters=True)
with ddp.no_sync():
    y, _ = ddp(x)
    y.sum().backward()
m.partial = False
y, _ = ddp(x + 1)
y.sum().backward()
out["true/used_in_no_sync_only"] = grads(m)

dist.destroy_process_group()
print(json.dumps(out))
sys.stdout.flush()
