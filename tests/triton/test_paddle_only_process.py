"""A process where torch cannot be imported at all (as if not installed): the kernels still run
on Paddle through the facade, Triton's active driver is Paddle's (bind('default')), and no
real torch module ever appears in sys.modules.  CPU interpreter here; gpu/triton_check.py runs
the same on a GPU."""
from __future__ import annotations

import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

SCRIPT = r'''
import os, sys
os.environ["TRITON_INTERPRET"] = "1"


class NoTorch:
    def find_spec(self, name, path=None, target=None):
        if name == "torch" or name.startswith("torch."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


sys.meta_path.insert(0, NoTorch())
sys.path.insert(0, ROOT)
import numpy as np, paddle, torchproxy
from torchproxy.integrations.triton_interpreter import ensure_index_fix
ensure_index_fix()
try:
    import torch
    raise SystemExit("torch importable")
except ModuleNotFoundError:
    pass
torchproxy.enable(scope={"kernels", "triton"})
from torchproxy.integrations import triton as binding
assert binding.bind() == "default"  # auto: no importable torch
import triton
from kernels.triton import add, softmax, reference as ref
x = np.random.rand(3000).astype("float32"); y = np.random.rand(3000).astype("float32")
out = add.add(paddle.to_tensor(x), paddle.to_tensor(y))
np.testing.assert_allclose(out.numpy(), x + y, rtol=1e-6)
z = np.random.rand(6, 300).astype("float32")
np.testing.assert_allclose(softmax.softmax(paddle.to_tensor(z)).numpy(), ref.softmax(z), rtol=1e-5, atol=1e-6)
assert "torch" not in sys.modules, sys.modules.get("torch")
print("OK", binding.bound_mode(), type(triton.runtime.driver.active).__name__)
'''.replace("ROOT", repr(ROOT))


def test_kernels_run_where_torch_cannot_be_imported():
    proc = subprocess.run([sys.executable, "-c", SCRIPT], capture_output=True, text=True,
                          timeout=300)
    assert proc.stdout.strip().splitlines()[-1:] == ["OK default PaddleCudaDriver"], \
        proc.stdout[-2000:] + proc.stderr[-4000:]
