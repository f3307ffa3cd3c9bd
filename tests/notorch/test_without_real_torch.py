"""A process where real torch is NOT installed (CI runs this file in .venv-py310: Python 3.10,
Paddle 3.3.1, Triton, no torch): scoped code gets the facade and runs unmodified Triton kernels,
unscoped code gets ImportError, as it would without torchproxy."""
import importlib.util
import os
import subprocess
import sys
import textwrap

import numpy as np
import pytest

if importlib.util.find_spec("torch") is not None:
    pytest.skip("real torch is installed here: this file runs in an environment without it "
                "(./dev test: .venv-py310)", allow_module_level=True)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _run(code, tmp_path):
    (tmp_path / "mylib").mkdir()
    (tmp_path / "mylib" / "__init__.py").write_text("def lazy():\n    import torch\n    return torch\n")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([ROOT, str(tmp_path)]), TRITON_INTERPRET="1")
    env.pop("TORCHPROXY_SCOPE", None)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=300)


def test_scoped_facade_and_unscoped_import_error(tmp_path):
    proc = _run("""
        import torchproxy
        torchproxy.enable(scope={"mylib"})
        import mylib
        assert torchproxy.is_facade(mylib.lazy())
        try:
            import torch
        except ModuleNotFoundError as e:
            print("UNSCOPED", type(e).__name__, e.name)
        torchproxy.disable()
        try:
            mylib.lazy()
        except ModuleNotFoundError:
            print("DISABLED ModuleNotFoundError")
    """, tmp_path)
    assert proc.returncode == 0, proc.stderr
    assert "UNSCOPED ModuleNotFoundError torch" in proc.stdout
    assert "DISABLED ModuleNotFoundError" in proc.stdout


def test_triton_kernels_run_without_real_torch(tmp_path):
    proc = _run("""
        import json, numpy as np, paddle, torchproxy, sys
        torchproxy.enable(scope={"kernels", "triton"})
        from kernels.triton import add, softmax, reference
        x = paddle.to_tensor(np.arange(1000, dtype="float32"))
        y = paddle.to_tensor(np.ones(1000, "float32"))
        a = np.random.default_rng(0).standard_normal((7, 33)).astype("float32")
        print(json.dumps({"add": add.add(x, y).numpy().tolist(),
                          "softmax": softmax.softmax(paddle.to_tensor(a)).numpy().tolist(),
                          "torch_loaded": any(k == "torch" for k in sys.modules)}))
    """, tmp_path)
    assert proc.returncode == 0, proc.stderr
    import json
    got = json.loads(proc.stdout.strip().splitlines()[-1])
    np.testing.assert_allclose(got["add"], np.arange(1000) + 1)
    a = np.random.default_rng(0).standard_normal((7, 33)).astype("float32")
    ref = np.exp(a - a.max(1, keepdims=True))
    np.testing.assert_allclose(got["softmax"], ref / ref.sum(1, keepdims=True), rtol=1e-5, atol=1e-6)
    assert got["torch_loaded"] is False
