"""Where the facade's CUDA draws spend host time (gpu/rng_host_cost.py's follow-up): cProfile of
N calls of a statement in torchproxy's scope, top functions by own time, and a split of each
call into Paddle's C entry points (the built-ins of libpaddle: ops, Tensor methods; count and
time per call) and the rest (the facade's and Paddle's Python).

    TORCHPROXY_TREE=/path/to/tree python3 gpu/rng_profile.py [N] [STATEMENT ...]

Statements see ``x`` (float32 [1024] on cuda:0) and ``p`` (probabilities, the same); without
any, round twelve's three.  Operators on tensors (``u < p``, ``t * b``) reach Paddle through
type slots that cProfile does not see: their time counts in their caller's own time ("rest").
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
stmts = sys.argv[2:] or ["torch.randn(1024, device='cuda')", "x.normal_()",
                         "torch.rand(1024, device='cuda')"]
device = os.environ.get("RNG_PROFILE_DEVICE", "cuda")
paddle.set_device("gpu:0" if device == "cuda" else "cpu")
where = paddle.CUDAPlace(0) if device == "cuda" else paddle.CPUPlace()
x = paddle.to_tensor(np.zeros(1024, "float32"), place=where)
p = paddle.to_tensor(np.random.default_rng(1).uniform(size=1024).astype("float32"), place=where)
tree = open(os.path.join(os.environ["TORCHPROXY_TREE"], "TREE")).read().strip() \
    if os.path.exists(os.path.join(os.environ["TORCHPROXY_TREE"], "TREE")) else "?"


def _is_paddle_c(func):
    """A built-in of Paddle's extension module (an op, a Tensor method in C)."""
    return func[0] == "~" and ("paddle" in func[2] or "libpaddle" in func[2])


torchproxy.enable(scope={SCOPED})
summary = []
for stmt in stmts:
    ns = {"__name__": SCOPED, "x": x, "p": p}
    exec("import torch\n"
         f"def _f(_n):\n    for _ in range(_n):\n        {stmt}\n", ns)
    ns["_f"](20)
    pr = cProfile.Profile()
    pr.enable()
    ns["_f"](n)
    pr.disable()
    st = pstats.Stats(pr)
    total = sum(v[2] for v in st.stats.values())  # own time of everything profiled
    c_calls = {f: v for f, v in st.stats.items() if _is_paddle_c(f)}
    c_time = sum(v[2] for v in c_calls.values())
    c_count = sum(v[1] for v in c_calls.values())
    names = ", ".join(f"{f[2].rsplit('.', 1)[-1].rstrip('>')} x{v[1] / n:g}"
                      for f, v in sorted(c_calls.items(), key=lambda kv: -kv[1][2]))
    line = (f"{tree.split()[0]:7s} {stmt[:38]:38s} total {total / n * 1e6:8.1f} us/call | Paddle C "
            f"{c_count / n:4.1f} calls {c_time / n * 1e6:8.1f} us | rest {(total - c_time) / n * 1e6:7.1f} us"
            f" | {names}")
    summary.append(line)
    print(f"== {tree}: {stmt}, {n} calls")
    st.sort_stats("tottime").print_stats(12)
torchproxy.disable()
print("== summary (cProfile on: its overhead inflates 'rest'; compare trees, not absolute values)")
for line in summary:
    print(line)
