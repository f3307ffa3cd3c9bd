"""status() tells which torch version the facade claims and which Tensor dispatcher runs."""
import os
import subprocess
import sys

import torchproxy


def test_status_reports_the_facade_torch_version_scoped_code_sees():
    g = {"__name__": "status_probe_mod"}
    with torchproxy.guard(scope="status_probe_mod"):
        exec("import torch\nv = torch.__version__", g)
        st = torchproxy.status()
    assert st["facade_torch_version"] == g["v"]
    assert g["v"].endswith("+torchproxy")


def test_status_reports_the_pure_python_dispatcher_when_asked():
    code = "import torchproxy, json; print(json.dumps(torchproxy.status()['tensor_dispatcher']))"
    env = dict(os.environ, TORCHPROXY_PURE_PYTHON="1")
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == '"python"'


def test_status_reports_the_c_dispatcher_by_default():
    from torchproxy.facade import dispatch
    if os.environ.get("TORCHPROXY_PURE_PYTHON") == "1":
        return
    assert torchproxy.status()["tensor_dispatcher"] == dispatch.backend() == "c"
