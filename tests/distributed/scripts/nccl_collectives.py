"""torch.distributed collectives over NCCL on GPU tensors; prints each result as JSON on its last
line.  Run by gpu/nccl_check.sh on a 2-GPU machine under real torch and under the facade.

Inputs are built on the CPU and copied to the GPU (``.cuda()``), results copied back
(``.cpu()``): on the lent sm_90 machine Paddle GPU 2.6.2's own kernels do nothing, so nothing
here may need one -- only NCCL's kernels and copies.  ``paddle_kernel_probe`` records whether a
Paddle kernel ran (x * 3 on the GPU), so a result that needs one can be read for what it is.
"""
import json

import torch
import torch.distributed as dist

dist.init_process_group("nccl")  # env:// from RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT
rank, ws = dist.get_rank(), dist.get_world_size()
torch.cuda.set_device(rank)
out = {"rank": rank, "ws": ws, "backend": str(dist.get_backend())}


def cpu_base(n=8, dtype=torch.float32):
    return (torch.arange(n, dtype=torch.float32) * (rank + 1) + rank + 1).to(dtype)


def back(t):
    c = t.cpu()
    return {"v": c.float().tolist(), "dtype": str(c.dtype).split(".")[-1],
            "device": str(t.device)}


probe = cpu_base().cuda() * 3
out["paddle_kernel_probe"] = back(probe)["v"]
R = dist.ReduceOp
for op in ("SUM", "MAX", "MIN", "PRODUCT"):
    for dtype in (torch.float32, torch.float16, torch.int64):
        x = cpu_base(dtype=dtype).cuda()
        dist.all_reduce(x, op=getattr(R, op))
        out[f"all_reduce/{op}/{str(dtype).split('.')[-1]}"] = back(x)
x = cpu_base().cuda()
work = dist.all_reduce(x, async_op=True)
work.wait()
out["all_reduce/async"] = back(x)
x = cpu_base().cuda()
dist.broadcast(x, src=1)
out["broadcast/src1"] = back(x)
parts = [torch.empty(8, device="cuda") for _ in range(ws)]
dist.all_gather(parts, cpu_base().cuda())
out["all_gather"] = [back(p) for p in parts]
dst = torch.empty(8 * ws, device="cuda")
dist.all_gather_into_tensor(dst, cpu_base().cuda())
out["all_gather_into_tensor"] = back(dst)
dst = torch.empty(4, device="cuda")
dist.reduce_scatter_tensor(dst, cpu_base(4 * ws).cuda())
out["reduce_scatter_tensor"] = back(dst)
dist.barrier()
dist.destroy_process_group()
print(json.dumps(out))
