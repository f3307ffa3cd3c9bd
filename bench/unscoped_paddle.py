"""What the proxy costs Paddle code OUTSIDE the scope (issue 12, "Speed").

Measured from an unscoped module, in one process: Paddle's hottest Tensor attributes with the
proxy off, then with it enabled for some other library, interleaved, best of several loops.
Prints, per attribute, us per access off / on and the ratio on/off (the aim: <= 1.3x).
Columns: the C dispatcher (``torchproxy._cdispatch``, when built) and the pure-Python fallback
(``TORCHPROXY_PURE_PYTHON=1`` selects it; here both are measured in the same process by
switching the backend, which reinstalls the dispatchers).

    .venv/bin/python bench/unscoped_paddle.py
    .venv26/bin/python bench/unscoped_paddle.py
"""
from __future__ import annotations

import os
import sys
import time
import types

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

import paddle  # noqa: E402

import torchproxy  # noqa: E402

N = 1000
REPEAT = 41  # short loops, many: on a loaded machine more of them run undisturbed

STMTS = [
    "x.shape[0]",
    "x.is_contiguous()",
    "x.ndim",
    "x.numel()",
    "x.strides",
    "x.dim()",
    "x.size",
    "x.data_ptr()",
    "x.place",
    "x.dtype",
    "x + x",
    # Paddle has no __iadd__: y += x rebinds y to y + x.  With the proxy on, the in-place
    # operator dispatchers answer NotImplemented to unscoped code and CPython falls back
    "y = x; y += x",
    # comparison operators are dispatched: torch's promotion rules differ from Paddle's
    "x == x",
]
if hasattr(paddle.Tensor, "stride"):
    STMTS.append("x.stride()")

TEMPLATE = """
def loop_{i}(x, n):
    t = perf_counter()
    for _ in range(n):
        {stmt}
    return perf_counter() - t
"""


def _module():
    """A plain unscoped module (its name matches no scope)."""
    name = "bench_unscoped_paddle_user"
    mod = types.ModuleType(name)
    mod.__dict__["perf_counter"] = time.perf_counter
    src = "".join(TEMPLATE.format(i=i, stmt=s) for i, s in enumerate(STMTS))
    src += TEMPLATE.format(i="empty", stmt="pass")
    sys.modules[name] = mod
    exec(compile(src, f"<bench {name}>", "exec"), mod.__dict__)
    return mod


def _backends():
    try:
        from torchproxy.facade import dispatch
    except ImportError:  # a tree without the dispatcher module: one column, the default
        return {"on": None}
    out = {}
    if dispatch.c_available():
        out["C"] = "c"
    out["py"] = "python"
    return out


def _set(state):
    torchproxy.disable()
    if state == "off":
        return
    if state != "on":
        from torchproxy.facade import dispatch
        dispatch.set_backend(_backends()[state])
    torchproxy.enable(scope={"bench_some_library"})


def main() -> int:
    mod = _module()
    x = paddle.ones([16, 32], dtype="float32")
    states = ["off"] + list(_backends())

    def measure(loop):
        best = dict.fromkeys(states, float("inf"))
        for _ in range(REPEAT):
            for s in states:
                _set(s)
                fn = getattr(mod, loop)
                fn(x, 50)
                best[s] = min(best[s], fn(x, N) / N * 1e6)
        return best

    base = measure("loop_empty")
    backend_note = ""
    if "C" not in states and "py" in states:
        from torchproxy.facade import dispatch
        backend_note = f" (C dispatcher unavailable: {dispatch.c_error()})"
    print(f"Paddle {paddle.__version__}, Python {sys.version.split()[0]}; us per access from an "
          f"unscoped module, best of {REPEAT} interleaved loops of {N}, empty loop subtracted; "
          f"proxy on = enable(scope={{'bench_some_library'}}){backend_note}.")
    head = f"{'attribute':22s} {'off':>7s}" + "".join(f" {s:>7s}" for s in states[1:])
    head += "".join(f" {s + '/off':>8s}" for s in states[1:])
    print(head)
    worst = dict.fromkeys(states[1:], 0.0)
    for i, stmt in enumerate(STMTS):
        got = measure(f"loop_{i}")
        r = {k: max(got[k] - base[k], 0.001) for k in got}
        line = f"{stmt:22s} {r['off']:7.3f}" + "".join(f" {r[s]:7.3f}" for s in states[1:])
        line += "".join(f" {r[s] / r['off']:8.2f}" for s in states[1:])
        for s in states[1:]:
            worst[s] = max(worst[s], r[s] / r["off"])
        print(line)
    print("worst ratio: " + ", ".join(f"{s} {w:.2f}x" for s, w in worst.items()))
    torchproxy.disable()
    return 0


if __name__ == "__main__":
    sys.exit(main())
