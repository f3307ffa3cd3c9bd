"""Started by a launcher (real torchrun, or `torchproxy run --nproc-per-node`): prints, as JSON
on its last line, the launcher's variables this rank sees and an all_reduce over them.  With
FAIL_RANK=r, rank r exits with code 3 after the collective (the others wait in a barrier that
never completes); with SLEEP=1, every rank prints its pid and sleeps (the signal test)."""
import json
import os
import sys
import time

import torch
import torch.distributed as dist

# what torchrun's agent sets for its workers (elastic/agent/server/local_elastic_agent.py)
KEYS = ("RANK", "LOCAL_RANK", "WORLD_SIZE", "LOCAL_WORLD_SIZE", "GROUP_RANK", "GROUP_WORLD_SIZE",
        "ROLE_RANK", "ROLE_NAME", "ROLE_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT",
        "OMP_NUM_THREADS", "TORCHELASTIC_RESTART_COUNT", "TORCHELASTIC_MAX_RESTARTS",
        "TORCHELASTIC_RUN_ID", "TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_ERROR_FILE",
        "TORCHELASTIC_SIGNALS_TO_HANDLE", "TORCH_NCCL_ASYNC_ERROR_HANDLING")

if os.environ.get("SLEEP"):
    print(f"pid {os.getpid()}", flush=True)
    time.sleep(300)
    sys.exit(0)

dist.init_process_group("gloo")
rank = dist.get_rank()
x = torch.arange(3, dtype=torch.float32) + 10 * rank
dist.all_reduce(x)
out = {"env": {k: os.environ.get(k) for k in KEYS},
       "other_torchelastic": sorted(k for k in os.environ if k.startswith("TORCHELASTIC_")
                                    and k not in KEYS),
       "rank": rank, "world_size": dist.get_world_size(), "all_reduce": x.tolist(),
       "facade": type(x).__module__.startswith("paddle"), "argv": sys.argv[1:],
       "elastic_launched": dist.is_torchelastic_launched()}
if os.environ.get("FAIL_RANK") == str(rank):
    sys.exit(3)
if os.environ.get("FAIL_RANK"):
    dist.barrier()  # waits for the failed rank: only the launcher ends it
dist.destroy_process_group()
# one write(2) of the whole line: the ranks share the launcher's stdout, and with
# PYTHONUNBUFFERED set print() writes the text and its newline apart, so two ranks' lines could
# interleave (a line of two JSON objects); a pipe keeps a write under PIPE_BUF whole
os.write(1, (json.dumps(out) + "\n").encode())
