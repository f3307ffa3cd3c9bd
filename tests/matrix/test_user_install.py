"""A user's path into their own environment: build torchproxy's wheel, install it with
``pip install "torchproxy[triton]"`` next to the CPU Paddle in a FRESH virtual environment (no
real torch there), then ``torchproxy doctor`` and a Triton kernel on Paddle CPU tensors.
Needs the package index (Paddle and Triton wheels); skipped, saying so, when it is offline."""
import os
import subprocess
import sys
import textwrap
import time

import pytest

from matrix_testpaths import ROOT

PADDLE = "paddlepaddle==3.3.1"

USER_SCRIPT = textwrap.dedent('''
    import os
    os.environ["TRITON_INTERPRET"] = "1"          # CPU: Triton's interpreter
    import numpy as np
    import paddle
    import torchproxy
    from torchproxy.integrations.triton_interpreter import ensure_fixes
    ensure_fixes()
    torchproxy.enable(scope={"kernels.triton", "triton"})
    from kernels.triton.add import add             # unmodified torch-style wrappers
    from kernels.triton.softmax import softmax
    a = np.random.default_rng(0).standard_normal((4, 100)).astype("float32")
    b = np.random.default_rng(1).standard_normal((4, 100)).astype("float32")
    x, y = paddle.to_tensor(a), paddle.to_tensor(b)
    s = add(x, y)
    assert isinstance(s, paddle.Tensor), type(s)
    np.testing.assert_allclose(s.numpy(), a + b, rtol=1e-6)
    e = np.exp(a - a.max(-1, keepdims=True))
    np.testing.assert_allclose(softmax(x).numpy(), e / e.sum(-1, keepdims=True), rtol=1e-5, atol=1e-6)
    try:
        import torch  # this module is not in scope, and real torch is not installed
        raise SystemExit("real torch importable: " + repr(torch))
    except ImportError:
        pass
    print("USER-PATH-OK")
''')


def _run(cmd, timeout, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def test_wheel_in_a_fresh_venv_with_cpu_paddle(tmp_path):
    t0 = time.time()
    wheels = tmp_path / "dist"
    r = _run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
              "-w", str(wheels), ROOT], 300)
    assert r.returncode == 0, r.stderr[-3000:]
    (wheel,) = wheels.glob("torchproxy-*.whl")
    venv = tmp_path / "venv"
    r = _run([sys.executable, "-m", "venv", str(venv)], 120)
    assert r.returncode == 0, r.stderr
    py = venv / "bin" / "python"
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "TRITON_INTERPRET",
                                                              "TORCHPROXY_SCOPE")}
    r = _run([str(py), "-m", "pip", "install", "-q", f"{wheel}[triton]", PADDLE], 600, env=env)
    if r.returncode != 0 and any(s in r.stderr for s in ("NewConnectionError", "Temporary failure",
                                                           "Could not find a version", "Network is unreachable")):
        pytest.skip(f"package index unreachable: {r.stderr.strip().splitlines()[-1][:200]}")
    assert r.returncode == 0, r.stderr[-3000:]
    installed = time.time() - t0

    # outside the repository: only what the wheel installed counts
    doctor = _run([str(venv / "bin" / "torchproxy"), "doctor"], 300, env=env, cwd=tmp_path)
    out = doctor.stdout + doctor.stderr
    assert doctor.returncode == 0, out
    assert "Paddle       3.3.1 (CPU build)" in out, out
    assert "Triton" in out and "interpreter off" in out and "TRITON_INTERPRET=1" in out, out
    assert "real torch   not installed" in out, out
    assert "No ccache found" not in out, out

    script = tmp_path / "user_script.py"
    script.write_text(USER_SCRIPT)
    r = _run([str(py), str(script)], 300, env=env, cwd=tmp_path)
    assert r.returncode == 0 and "USER-PATH-OK" in r.stdout, r.stdout[-2000:] + r.stderr[-3000:]
    print(f"wheel + install: {installed:.0f} s, all: {time.time() - t0:.0f} s")
