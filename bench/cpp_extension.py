"""torch C++ extensions on Paddle (torchproxy) vs real torch, in one run:

- build time of the same small extension (torch/extension.h, one pybind11 function, one
  TORCH_LIBRARY operator), cold (fresh build directory), with torch.utils.cpp_extension.load
  under real torch 2.13 CPU and under torchproxy on Paddle;
- per-call overhead of a torch.ops call (``torch.ops.tpxbench.add1.default(x)``) and of a
  pybind11 call (``m.add1(x)``) on a 4-element tensor: Paddle tensors through torchproxy vs
  real torch tensors; plus the direct Paddle call (``torch_compat._get_operation``) for
  reference.

    .venv/bin/python bench/cpp_extension.py

Each side runs in its own subprocess (a libtorch extension and a Paddle one are never loaded
into one process), one after the other; per-call numbers are the best of 7 repeats of 2000
calls.  The machine is shared: compare the ratios, not the absolute times.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

SOURCE = r"""
#include <torch/extension.h>
#include <torch/library.h>
at::Tensor add1(const at::Tensor& x) {
  at::Tensor c = x.contiguous();
  at::Tensor r = torch::empty(c.sizes(), c.options());
  const float* p = c.data_ptr<float>();
  float* q = r.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); i++) q[i] = p[i] + 1.0f;
  return r;
}
TORCH_LIBRARY(tpxbench, m) { m.def("add1(Tensor x) -> Tensor"); }
TORCH_LIBRARY_IMPL(tpxbench, CPU, m) { m.impl("add1", &add1); }
PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) { m.def("add1", &add1); }
"""

SIDE = r"""
import json, sys, time, types
side, src, build = sys.argv[1:4]
sys.path.insert(0, {root!r})
if side == "paddle":
    import torchproxy
    torchproxy.enable(scope={{"tpx_bench_scoped"}})
mod = types.ModuleType("tpx_bench_scoped")
sys.modules["tpx_bench_scoped"] = mod
exec("import torch\nimport torch.utils.cpp_extension\n", mod.__dict__)
torch = mod.torch
t0 = time.perf_counter()
m = torch.utils.cpp_extension.load("tpx_bench_ext", [src], build_directory=build)
build_s = time.perf_counter() - t0
exec('''
def loop_ops(x, n):
    op = torch.ops.tpxbench.add1.default
    for _ in range(n):
        op(x)
def loop_ops_attr(x, n):
    for _ in range(n):
        torch.ops.tpxbench.add1.default(x)
def loop_pybind(m, x, n):
    f = m.add1
    for _ in range(n):
        f(x)
def loop_empty(x, n):
    for _ in range(n):
        pass
''', mod.__dict__)
x = torch.ones(4)
def best(fn, *a, n=2000, rep=7):
    fn(*a, n=50)
    out = []
    for _ in range(rep):
        t = time.perf_counter(); fn(*a, n=n); out.append((time.perf_counter() - t) / n)
    return min(out) * 1e6
empty = best(mod.loop_empty, x)
res = {{"build_s": build_s,
        "torch.ops (op bound)": best(mod.loop_ops, x) - empty,
        "torch.ops (attribute chain)": best(mod.loop_ops_attr, x) - empty,
        "pybind11": best(mod.loop_pybind, m, x) - empty}}
if side == "paddle":
    import paddle
    direct = paddle.base.core.torch_compat._get_operation("tpxbench::add1")
    def loop_direct(x, n):
        for _ in range(n):
            direct(x)
    res["Paddle _get_operation (direct)"] = best(loop_direct, x) - empty
print("RESULT" + json.dumps(res))
"""


def run(side: str, src: str) -> dict:
    build = tempfile.mkdtemp(prefix=f"tpx-bench-{side}-")
    script = SIDE.format(root=ROOT)
    proc = subprocess.run([sys.executable, "-c", script, side, src, build],
                          capture_output=True, text=True, timeout=1200)
    for line in proc.stdout.splitlines():
        if line.startswith("RESULT"):
            return json.loads(line[6:])
    raise SystemExit(f"{side} side failed:\n{proc.stdout[-2000:]}\n{proc.stderr[-4000:]}")


def main() -> int:
    from torchproxy.facade.cpp_extension import compat_available
    if not compat_available():
        print("this Paddle has no torch-compatible C++ API (Paddle < 3.3): nothing to measure")
        return 1
    with tempfile.TemporaryDirectory() as d:
        src = os.path.join(d, "bench_ext.cpp")
        with open(src, "w") as f:
            f.write(textwrap.dedent(SOURCE))
        torch_res = run("torch", src)
        paddle_res = run("paddle", src)
    import paddle
    import torch
    print(f"torch C++ extension, Paddle {paddle.__version__} via torchproxy vs real torch "
          f"{torch.__version__} (CPU; shared, loaded machine: compare ratios)")
    print(f"{'':34s} {'torchproxy':>12s} {'real torch':>12s} {'ratio':>7s}")
    b_p, b_t = paddle_res.pop("build_s"), torch_res.pop("build_s")
    print(f"{'build, cold (s)':34s} {b_p:12.1f} {b_t:12.1f} {b_p / b_t:7.2f}")
    for k, v in paddle_res.items():
        t = torch_res.get(k)
        if t is None:
            print(f"{k + ' (us/call)':34s} {v:12.2f} {'-':>12s}")
        else:
            print(f"{k + ' (us/call)':34s} {v:12.2f} {t:12.2f} {v / t:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
