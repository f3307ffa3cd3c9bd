"""What the worker Python has: versions, Paddle's own proxy, installed libraries, a GPU.

Asked once per run, in one subprocess of the Python the workers will use (``--python``), so
the runner itself needs neither Paddle nor torch.  Importing Paddle is the one slow part.
"""
from __future__ import annotations

import json
import subprocess
import sys

_SCRIPT = r"""
import importlib.util, json, shutil, subprocess, sys
mods = json.loads(sys.argv[1])
out = {"python": sys.version.split()[0], "executable": sys.executable, "installed": {}}
for m in mods:
    try:
        out["installed"][m] = importlib.util.find_spec(m) is not None
    except Exception:
        out["installed"][m] = False
def version(dist):
    try:
        from importlib.metadata import version as v
        return v(dist)
    except Exception:
        return None
for dist in ("paddlepaddle", "paddlepaddle-gpu", "torch", "triton", "numpy", "liger-kernel",
             "flag-gems", "tilelang", "tilelang-paddle"):
    out.setdefault("versions", {})[dist] = version(dist)
try:
    import paddle
    out["paddle"] = paddle.__version__
    compat = getattr(paddle, "compat", None)
    out["paddle_compat"] = bool(compat is not None and hasattr(compat, "enable_torch_proxy"))
    try:
        out["gpu_count"] = int(paddle.device.cuda.device_count()) if paddle.is_compiled_with_cuda() else 0
    except Exception:
        out["gpu_count"] = 0
except Exception as e:
    out["paddle"] = None
    out["paddle_error"] = repr(e)
    out["paddle_compat"] = False
    out["gpu_count"] = 0
if not out["gpu_count"] and shutil.which("nvidia-smi"):
    try:
        r = subprocess.run(["nvidia-smi", "-L"], capture_output=True, text=True, timeout=20)
        out["gpu_count"] = r.stdout.count("GPU ")
    except Exception:
        pass
out["torch_installed"] = importlib.util.find_spec("torch") is not None
print("PROBE" + json.dumps(out))
"""


def probe(python: str, modules: list[str], timeout: float = 120, env=None) -> dict:
    """``env``: the environment the workers get (their PYTHONPATH decides what is installed)."""
    r = subprocess.run([python, "-c", _SCRIPT, json.dumps(sorted(set(modules)))],
                       capture_output=True, text=True, timeout=timeout, env=env)
    for line in r.stdout.splitlines():
        if line.startswith("PROBE"):
            return json.loads(line[5:])
    raise RuntimeError(f"probing {python} failed (rc={r.returncode}):\n{r.stderr[-2000:]}")


if __name__ == "__main__":
    print(json.dumps(probe(sys.executable, sys.argv[1:]), indent=2))
