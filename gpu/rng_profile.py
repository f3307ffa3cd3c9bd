"""Where the facade's CUDA draws spend host time (gpu/rng_host_cost.py's follow-up): cProfile of
N calls of a statement in torchproxy's scope, top functions by own time.

    TORCHPROXY_TREE=/path/to/tree python3 gpu/rng_profile.py [N]
"""
import cProfile
import os
import pstats
import sys

sys.path.insert(0, os.environ["TORCHPROXY_TREE"])
import numpy as np  # noqa: E402
import paddle  # noqa: E402

import torchproxy  # noqa: E402

SCOPED = "bench_rng_scoped"
n = int(sys.argv[1]) if len(sys.argv) > 1 else 300
paddle.set_device("gpu:0")
x = paddle.to_tensor(np.zeros(1024, "float32"), place=paddle.CUDAPlace(0))
torchproxy.enable(scope={SCOPED})
for stmt in ("torch.randn(1024, device='cuda')", "x.normal_()", "torch.rand(1024, device='cuda')"):
    ns = {"__name__": SCOPED, "x": x}
    exec("import torch\n"
         f"def _f(_n):\n    for _ in range(_n):\n        {stmt}\n", ns)
    ns["_f"](20)
    pr = cProfile.Profile()
    pr.enable()
    ns["_f"](n)
    pr.disable()
    print(f"== {open(os.path.join(os.environ['TORCHPROXY_TREE'], 'TREE')).read().strip()}: "
          f"{stmt}, {n} calls")
    pstats.Stats(pr).sort_stats("tottime").print_stats(14)
torchproxy.disable()
