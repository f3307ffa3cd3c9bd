"""Host cost of single Paddle 2.6.2 GPU ops on sm_90 (kernels it has no image for), one process:
the calling thread's CPU us per call, best of 5 rounds of 400 calls.  Run in several processes
(and with CUDA_MODULE_LOADING set either way) to see how much it varies from one process to
the next, the noise under gpu/rng_host_cost.py's tables.

    python3 gpu/paddle_launch_cost.py LABEL
"""
import sys
import time

import numpy as np
import paddle

paddle.set_device("gpu:0")
x = paddle.to_tensor(np.zeros(1024, "float32"), place=paddle.CUDAPlace(0))
i = paddle.to_tensor(np.zeros(1024, "int64"), place=paddle.CUDAPlace(0))
CASES = {
    "paddle.randn([1024])": lambda: paddle.randn([1024]),
    "paddle.rand([1024])": lambda: paddle.rand([1024]),
    "paddle.randint(0, 10, [1024])": lambda: paddle.randint(0, 10, [1024]),
    "i.astype('int64') (same dtype)": lambda: i.astype("int64"),
    "x.astype('float64')": lambda: x.astype("float64"),
    "paddle.empty([1024])": lambda: paddle.empty([1024]),
}
best = {k: float("inf") for k in CASES}
for _ in range(5):
    for k, f in CASES.items():
        t0 = time.thread_time()
        for _ in range(400):
            f()
        best[k] = min(best[k], (time.thread_time() - t0) / 400 * 1e6)
print(sys.argv[1] if len(sys.argv) > 1 else "", " | ".join(f"{k} {v:.1f}" for k, v in best.items()))
