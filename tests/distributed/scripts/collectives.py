"""Every collective of torch.distributed on Gloo; prints each result (rank-dependent inputs)
as JSON.  Run under real torch and under the facade by tests/distributed/test_collectives.py."""
import json
import sys

import torch
import torch.distributed as dist

dist.init_process_group("gloo")  # env:// from RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
rank, ws = dist.get_rank(), dist.get_world_size()
out = {"rank": rank, "ws": ws, "backend": str(dist.get_backend()),
       "initialized": dist.is_initialized(),
       "world_is_pg": isinstance(dist.group.WORLD, dist.ProcessGroup)}


def rec(t):
    if isinstance(t, (list, tuple)):
        return [rec(x) for x in t]
    return {"v": t.float().tolist() if t.dtype == torch.bfloat16 else t.tolist(),
            "dtype": str(t.dtype).split(".")[-1], "shape": list(t.shape)}


def base(dtype=torch.float32, n=4):
    return (torch.arange(n, dtype=torch.float32) * (rank + 1) + rank + 1).to(dtype)


R = dist.ReduceOp
for op in ("SUM", "PRODUCT", "MIN", "MAX", "AVG"):
    for dtype in (torch.float32, torch.float64, torch.float16, torch.bfloat16, torch.int64,
                  torch.int32):
        if op == "AVG" and not dtype.is_floating_point:
            continue
        x = base(dtype)
        dist.all_reduce(x, op=getattr(R, op))
        out[f"all_reduce/{op}/{str(dtype).split('.')[-1]}"] = rec(x)
x = torch.tensor([True, rank == 0, False])
dist.all_reduce(x, op=R.MAX)
out["all_reduce/bool/MAX"] = rec(x)
x = base()
w = dist.all_reduce(x, async_op=True)
w.wait()
out["all_reduce/async"] = rec(x)
out["all_reduce/async_completed"] = w.is_completed()

lst = [torch.zeros(2, 3) for _ in range(ws)]
dist.all_gather(lst, base(n=6).reshape(2, 3))
out["all_gather"] = rec(lst)
lst = [torch.zeros(3, dtype=torch.int64) for _ in range(ws)]
w = dist.all_gather(lst, base(torch.int64, 3), async_op=True)
w.wait()
out["all_gather/async/int64"] = rec(lst)
o = torch.zeros(ws * 2, 3)
dist.all_gather_into_tensor(o, base(n=6).reshape(2, 3))
out["all_gather_into_tensor"] = rec(o)

o = torch.zeros(3)
dist.reduce_scatter(o, [base(n=3) + 10 * j for j in range(ws)])
out["reduce_scatter"] = rec(o)
o = torch.zeros(3)
dist.reduce_scatter(o, [base(n=3) + 10 * j for j in range(ws)], op=R.MAX)
out["reduce_scatter/MAX"] = rec(o)
o = torch.zeros(2)
dist.reduce_scatter_tensor(o, base(n=2 * ws))
out["reduce_scatter_tensor"] = rec(o)

for src in range(ws):
    x = base()
    dist.broadcast(x, src=src)
    out[f"broadcast/{src}"] = rec(x)
x = base(torch.int64)
dist.broadcast(x, src=ws - 1, async_op=True).wait()
out["broadcast/async"] = rec(x)

for dst in range(ws):
    x = base()
    dist.reduce(x, dst=dst)
    if rank == dst:
        out[f"reduce/{dst}"] = rec(x)
x = base()
dist.reduce(x, dst=0, op=R.MAX)
if rank == 0:
    out["reduce/MAX"] = rec(x)

o = torch.zeros(3)
dist.scatter(o, [torch.full((3,), 7.0 + j) for j in range(ws)] if rank == 0 else None, src=0)
out["scatter"] = rec(o)
g = [torch.zeros(2) for _ in range(ws)] if rank == ws - 1 else None
dist.gather(base(n=2), g, dst=ws - 1)
if rank == ws - 1:
    out["gather"] = rec(g)

# point-to-point in a 2-rank group (the facade's rule on Paddle's Gloo; torch allows it in any)
pair = dist.new_group([0, 1]) if ws > 2 else None
if rank == 0:
    dist.send(base(), dst=1, group=pair)
    r = torch.zeros(4)
    dist.recv(r, src=1, group=pair)
    out["send_recv"] = rec(r)
elif rank == 1:
    r = torch.zeros(4)
    src = dist.recv(r, src=0, group=pair)
    out["send_recv"] = rec(r)
    out["recv_returns"] = src
    dist.send(r * 2, dst=0, group=pair)
if rank == 0:
    dist.isend(base(torch.int64), dst=1, group=pair).wait()
elif rank == 1:
    r = torch.zeros(4, dtype=torch.int64)
    dist.irecv(r, src=0, group=pair).wait()
    out["isend_irecv"] = rec(r)

outs = [torch.zeros(2) for _ in range(ws)]
dist.all_to_all(outs, [torch.full((2,), 10.0 * rank + j) for j in range(ws)])
out["all_to_all"] = rec(outs)
o = torch.zeros(ws * 2)
dist.all_to_all_single(o, base(n=ws * 2))
out["all_to_all_single"] = rec(o)
# uneven splits: rank r sends j+1 rows to rank j
ins = [j + 1 for j in range(ws)]
outs_sz = [rank + 1] * ws
o = torch.zeros(sum(outs_sz), 2)
dist.all_to_all_single(o, torch.arange(sum(ins) * 2, dtype=torch.float32).reshape(-1, 2) + 100 * rank,
                       output_split_sizes=outs_sz, input_split_sizes=ins)
out["all_to_all_single/uneven"] = rec(o)

sub = dist.new_group([0, ws - 1])
out["sub/rank"] = dist.get_rank(sub)
out["sub/size"] = dist.get_world_size(sub)
out["sub/is_pg"] = isinstance(sub, dist.ProcessGroup) if rank in (0, ws - 1) else None
out["sub/ranks"] = dist.get_process_group_ranks(sub) if rank in (0, ws - 1) else None
x = base()
dist.all_reduce(x, group=sub)  # outsiders: a no-op, as torch
out["sub/all_reduce"] = rec(x)
x = base()
dist.broadcast(x, src=ws - 1, group=sub)
out["sub/broadcast"] = rec(x)
objs = [None] * ws
dist.all_gather_object(objs, {"rank": rank, "s": "x" * rank})
out["all_gather_object"] = objs
objs = [rank, "a"] if rank == 1 else [None, None]
dist.broadcast_object_list(objs, src=1)
out["broadcast_object_list"] = objs
for dst in (0, ws - 1):
    got = [None] * ws if rank == dst else None
    dist.gather_object({"r": rank, "pad": "y" * (3 * rank)}, got, dst=dst)
    out[f"gather_object/{dst}"] = got
got = ["keep", "these"]  # torch replaces element 0 only
dist.scatter_object_list(got, [(j, "z" * j) for j in range(ws)] if rank == ws - 1 else None,
                         src=ws - 1)
out["scatter_object_list"] = got
if rank in (0, ws - 1):  # in a subgroup: its group ranks and global ranks differ when ws > 2
    got = [None, None] if rank == ws - 1 else None
    dist.gather_object([rank] * (rank + 1), got, dst=ws - 1, group=sub)
    out["sub/gather_object"] = got
    got = [None]
    dist.scatter_object_list(got, [{"to": 0}, {"to": ws - 1}] if rank == 0 else None,
                             group_src=0, group=sub)
    out["sub/scatter_object_list"] = got
try:  # refused before any message moves, on every rank
    dist.scatter_object_list([], [1] * ws if rank == 0 else None, src=0)
    out["raises/scatter_object_list_empty"] = None
except ValueError as e:
    out["raises/scatter_object_list_empty"] = str(e)

# the ops Gloo (torch's or Paddle's) does not have raise
for name in ("BAND",):
    try:
        dist.all_reduce(torch.ones(2, dtype=torch.int64), op=getattr(R, name))
        out[f"raises/{name}"] = None
    except Exception as e:  # noqa: BLE001 - the type is what is compared
        out[f"raises/{name}"] = type(e).__name__
FACADE = type(torch.ones(1)).__module__.startswith("paddle")
if ws > 2 and FACADE:  # the facade refuses point-to-point in a larger group (distributed.py)
    try:
        dist.send(base(), dst=(rank + 1) % ws)
        out["raises/p2p_in_big_group"] = None
    except Exception as e:  # noqa: BLE001
        out["raises/p2p_in_big_group"] = type(e).__name__
dist.barrier()
dist.destroy_process_group()
out["after_destroy"] = dist.is_initialized()
print(json.dumps(out))
sys.stdout.flush()
