"""The reference we must beat: Paddle's own proxy (paddle.compat.enable_torch_proxy) cannot run
an unmodified Triton kernel under the interpreter -- its tensors have no ``untyped_storage``.
The same kernel, same Paddle, same process layout, runs under torchproxy.  Each side runs in its
own subprocess (the two proxies must not share a process)."""
from __future__ import annotations

import os
import subprocess
import sys

import pytest

paddle = pytest.importorskip("paddle")
ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = """
import os, sys
os.environ["TRITON_INTERPRET"] = "1"
sys.path.insert(0, {root!r})
import numpy as np, paddle
{enable}
from kernels.triton import add as k
x = paddle.to_tensor(np.arange(8, dtype="float32"))
try:
    out = k.add(x, x)
    print("RESULT", out.numpy().tolist())
except Exception as e:
    print("ERROR", type(e).__name__, e)
"""

PADDLE_PROXY = 'paddle.compat.enable_torch_proxy(scope={"triton", "kernels"})'
TORCHPROXY = ('import torchproxy\n'
              'from torchproxy.integrations.triton_interpreter import ensure_index_fix\n'
              'ensure_index_fix()\n'
              'torchproxy.enable(scope={"triton", "kernels"})')


def _run(enable: str) -> str:
    proc = subprocess.run([sys.executable, "-c", SCRIPT.format(root=ROOT, enable=enable)],
                          capture_output=True, text=True, timeout=300)
    lines = [ln for ln in proc.stdout.splitlines() if ln.startswith(("RESULT", "ERROR"))]
    assert lines, f"no result; rc={proc.returncode}\n{proc.stderr[-3000:]}"
    return lines[-1]


@pytest.mark.skipif(not hasattr(paddle, "compat") or
                    not hasattr(paddle.compat, "enable_torch_proxy"),
                    reason="this Paddle has no torch proxy of its own (paddle.compat."
                           "enable_torch_proxy: added in 3.3; 2.6 to 3.2 lack it)")
def test_paddle_proxy_fails_where_torchproxy_runs():
    theirs = _run(PADDLE_PROXY)
    assert theirs == "ERROR AttributeError 'Tensor' object has no attribute 'untyped_storage'", theirs
    ours = _run(TORCHPROXY)
    assert ours == "RESULT " + str([2.0 * i for i in range(8)]), ours
