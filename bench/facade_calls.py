"""Per-call cost (us) of the torch calls kernel wrappers make on every launch, three ways in one
run: through the facade (called from a module in scope), the same work written directly in
Paddle, and real torch (CPU).  Prints ratios facade/paddle and facade/torch.

    python3 bench/facade_calls.py            # Paddle 3.x
    /opt/venv26/bin/python bench/facade_calls.py

Each cell is the best of several repeats of a tight loop written in the module it measures
(so the caller-scope check sees a real scoped module), minus the cost of the empty loop.
The last block measures the dtype design alternatives (see torchproxy/facade/dtypes.py).
"""
from __future__ import annotations

import os
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import paddle  # noqa: E402
import torch as real_torch  # noqa: E402

import torchproxy  # noqa: E402

N = 1000
REPEAT = 25

CASES = [
    # name, facade/torch statement, paddle statement
    ("empty_like(x)", "torch.empty_like(x)", "paddle.empty_like(x)"),
    ("empty(shape, dtype=, device=)", "torch.empty((64, 128), dtype=torch.float32, device=d)",
     "paddle.empty([64, 128], dtype=paddle.float32)"),
    ("x.stride()", "x.stride()", "x.strides"),
    ("x.numel()", "x.numel()", "x.numel()"),
    ("x.data_ptr()", "x.data_ptr()", "x.data_ptr()"),
    ("x.size()", "x.size()", "x.shape"),
    ("x.device", "x.device", "x.device" if hasattr(paddle.Tensor, "device") else "x.place"),
    ("x.is_contiguous()", "x.is_contiguous()", "x.is_contiguous()"),
    ("x.dtype == torch.float16", "x.dtype == torch.float16", "x.dtype == paddle.float16"),
    ("x.shape[0]", "x.shape[0]", "x.shape[0]"),
    ("x.view(-1, 128)", "x.view(-1, 128)", "x.reshape([-1, 128])"),
    ("x.to(torch.float32)", "x.to(torch.float32)", "x.astype(paddle.float32)"),
]

TEMPLATE = """
import time
{imports}
def loop_{i}(x, d, n):
    t = time.perf_counter()
    for _ in range(n):
        {stmt}
    return time.perf_counter() - t
"""


def _module(name: str, src: str):
    mod = types.ModuleType(name)
    sys.modules[name] = mod
    exec(compile(src, f"<bench {name}>", "exec"), mod.__dict__)
    return mod


def _build(kind: str):
    """One module per kind; the scoped one imports torch through the hook (the facade)."""
    if kind == "facade":
        name, imports = "bench_scoped.calls", "import torch"
    elif kind == "paddle":
        name, imports = "bench_paddle_calls", "import paddle"
    else:
        name, imports = "bench_torch_calls", "import torch"
    src = "".join(TEMPLATE.format(i=i, imports=imports,
                                  stmt=(case[2] if kind == "paddle" else case[1]))
                  for i, case in enumerate(CASES))
    src += TEMPLATE.format(i="empty", imports="", stmt="pass")
    return _module(name, src)


def main() -> int:
    torchproxy.enable(scope={"bench_scoped"})
    sys.modules.setdefault("bench_scoped", types.ModuleType("bench_scoped"))
    mods = {k: _build(k) for k in ("facade", "paddle", "torch")}
    mods["raw"] = mods["paddle"]  # the same Paddle code, measured while the proxy is off
    px = paddle.ones([64, 128], dtype="float32")
    tx = real_torch.ones(64, 128)
    inputs = {"facade": (px, mods["facade"].torch.device("cpu")), "paddle": (px, None),
              "raw": (px, None), "torch": (tx, real_torch.device("cpu"))}

    # the pure-Python dispatcher (the fallback when torchproxy._cdispatch is not built), measured
    # in the same loops by switching the backend (a reinstall) when the C one is in use
    from torchproxy.facade import dispatch
    default = dispatch.backend()
    other = "python" if default == "c" else None
    if other:
        mods["facade_py"] = mods["facade"]
        inputs["facade_py"] = inputs["facade"]

    def measure(loop_name):
        # interleaved repeats, best of each: load spikes on a shared machine hit all columns
        best = dict.fromkeys(mods, float("inf"))
        for _ in range(REPEAT):
            for k in ("facade", "paddle", "torch"):
                best[k] = min(best[k], _time(getattr(mods[k], loop_name), *inputs[k]))
            torchproxy.disable()
            best["raw"] = min(best["raw"], _time(getattr(mods["raw"], loop_name), *inputs["raw"]))
            if other:
                dispatch.set_backend(other)
                torchproxy.enable(scope={"bench_scoped"})
                best["facade_py"] = min(best["facade_py"], _time(
                    getattr(mods["facade"], loop_name), *inputs["facade"]))
                torchproxy.disable()
                dispatch.set_backend(default)
            torchproxy.enable(scope={"bench_scoped"})
        return best

    base = measure("loop_empty")
    print(f"Paddle {paddle.__version__}, torch {real_torch.__version__}; us per call, best of "
          f"{REPEAT} interleaved loops of {N}, empty loop subtracted.")
    print("paddle = the same work written in Paddle, proxy enabled (dispatched names pay the "
          "scope check);\nraw = that Paddle code with the proxy disabled.")
    print(f"facade = the {default} dispatcher" + (
        "; facade_py = the pure-Python fallback (TORCHPROXY_PURE_PYTHON=1)" if other else
        f" ({dispatch.c_error()})"))
    print(f"{'call':32s} {'facade':>7s}" + (f" {'fac_py':>7s}" if other else "") +
          f" {'paddle':>7s} {'raw':>7s} {'torch':>7s} "
          f"{'f/paddle':>8s} {'f/raw':>6s} {'f/torch':>7s}" + (f" {'py/f':>6s}" if other else ""))
    for i, (label, _, _) in enumerate(CASES):
        got = measure(f"loop_{i}")
        r = {k: max(got[k] - base[k], 0.001) for k in got}
        print(f"{label:32s} {r['facade']:7.3f}" + (f" {r['facade_py']:7.3f}" if other else "") +
              f" {r['paddle']:7.3f} {r['raw']:7.3f} "
              f"{r['torch']:7.3f} {r['facade'] / r['paddle']:8.2f} {r['facade'] / r['raw']:6.2f} "
              f"{r['facade'] / r['torch']:7.2f}" +
              (f" {r['facade_py'] / r['facade']:6.2f}" if other else ""))
    _dtype_design(px)
    return 0


def _time(fn, x, d) -> float:
    return fn(x, d, N) / N * 1e6


def _dtype_design(px):
    """dtypes.py's decision, measured: Paddle's dtype objects vs a small type of our own."""
    class OwnDtype:
        __slots__ = ("name", "paddle")

        def __init__(self, name, pd):
            self.name, self.paddle = name, pd

        def __eq__(self, other):
            if other.__class__ is OwnDtype:
                return self is other
            return self.paddle == other

        def __hash__(self):
            return hash(self.name)

    own16 = OwnDtype("float16", paddle.float16)
    by_paddle = {paddle.float32: OwnDtype("float32", paddle.float32), paddle.float16: own16}
    to_own = by_paddle.__getitem__
    f16 = paddle.float16

    def timeit(fn):
        t = time.perf_counter()
        for _ in range(N):
            fn()
        return (time.perf_counter() - t) / N * 1e6

    cases = {
        "paddle dtype: x.dtype == f16": lambda: px.dtype == f16,
        "own type: to_own(x.dtype) == own16": lambda: to_own(px.dtype) == own16,
        "own type, identity (no __eq__ call)": lambda: to_own(px.dtype) is own16,
        "own vs paddle dtype (mixed ==)": lambda: own16 == px.dtype,
    }
    print("\ndtype design (us per comparison, lambda call included):")
    for label, fn in cases.items():
        timeit(fn)
        print(f"  {label:40s} {min(timeit(fn) for _ in range(REPEAT)):.3f}")


if __name__ == "__main__":
    sys.exit(main())
