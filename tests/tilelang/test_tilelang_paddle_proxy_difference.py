"""Upstream TileLang under Paddle 3.3's own proxy vs under torchproxy.

Upstream ``tilelang/utils/device.py`` evaluates ``int | torch.device | None`` at import (no
postponed annotations).  Paddle's proxy maps ``torch.device`` to the *module*
``paddle.device`` (a ProxyModule), so ``int | <module>`` raises TypeError and
``import tilelang`` fails.  In the facade ``torch.device`` is a class, so the union is a
type and the import succeeds.  Both run in subprocesses: Paddle's proxy and ours cannot be
active in one process (torchproxy refuses to enable next to it).

tilelang-paddle (Paddle's fork) is written for Paddle's proxy and imports under both; the
failure is specific to upstream tilelang.
"""
import importlib.metadata
import importlib.util
import os
import subprocess
import sys
import textwrap

import pytest

# find, not import: TileLang must first be imported with the proxy enabled.  A spec without
# an origin is a namespace package: tests/tilelang itself when tests/ is on sys.path.
_spec = importlib.util.find_spec("tilelang")
if _spec is None or _spec.origin in (None, "namespace"):
    pytest.skip("TileLang is not installed", allow_module_level=True)


def _dist():
    """The distribution that owns the `tilelang` package Python would import (both
    distributions install the same package name)."""
    origin = os.path.realpath(_spec.origin)
    for name in ("tilelang-paddle", "tilelang"):
        try:
            dist = importlib.metadata.distribution(name)
        except importlib.metadata.PackageNotFoundError:
            continue
        if os.path.realpath(str(dist.locate_file("tilelang/__init__.py"))) == origin:
            return name
    return None


def _run(code):
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], capture_output=True,
                          text=True, timeout=300)


PADDLE_PROXY = """
    import paddle
    if not hasattr(paddle, "compat") or not hasattr(paddle.compat, "enable_torch_proxy"):
        print("NO_PADDLE_PROXY"); raise SystemExit(0)
    paddle.compat.enable_torch_proxy(scope={"tilelang"})
    import tilelang
    print("IMPORTED", tilelang.__version__)
"""

TORCHPROXY = """
    import torchproxy
    torchproxy.enable(scope={"tilelang"})
    import tilelang
    print("IMPORTED", tilelang.__version__)
    import sys
    from torchproxy.facade.modules import MODULES
    device_mod = sys.modules.get("tilelang.utils.device")  # upstream only
    if device_mod is not None:
        ann = device_mod.device_synchronize.__annotations__["device"]
        print("ANN_HAS_FACADE_DEVICE", MODULES["torch"].device in getattr(ann, "__args__", ()))
"""


def test_upstream_tilelang_fails_under_paddles_proxy_at_int_or_torch_device():
    if _dist() != "tilelang":
        pytest.skip("upstream tilelang is not the installed distribution")
    out = _run(PADDLE_PROXY)
    if "NO_PADDLE_PROXY" in out.stdout:
        pytest.skip("this Paddle has no paddle.compat.enable_torch_proxy")
    assert out.returncode != 0, out.stdout
    assert "TypeError: unsupported operand type(s) for |: 'type' and 'ProxyModule'" in out.stderr
    assert "tilelang/utils/device.py" in out.stderr
    assert "IMPORTED" not in out.stdout


def test_same_tilelang_imports_under_torchproxy():
    out = _run(TORCHPROXY)
    assert out.returncode == 0, out.stderr[-3000:]
    assert "IMPORTED" in out.stdout
    if _dist() == "tilelang":  # upstream evaluates `int | torch.device | None` at import
        assert "ANN_HAS_FACADE_DEVICE True" in out.stdout


NO_TARGET = """
    import sys
    import zlib  # before Paddle 2.6, or tvm_ffi cannot load (tests/tilelang/INSTALL.md)
    sys.path.insert(0, {root!r})
    import paddle
    {enable}
    import tilelang
    from kernels.tilelang import softmax
    try:
        softmax.softmax_kernel(64, 512)      # @tilelang.jit, no target, no GPU here
    except Exception as e:
        print("ERROR", type(e).__name__, str(e).replace("\\n", " ")[-3000:])
"""


@pytest.mark.skipif(__import__("shutil").which("nvcc") is None, reason="needs a CUDA toolkit")
def test_jit_without_target_on_gpu_less_machine_paddle_proxy_vs_torchproxy():
    """tilelang-paddle under Paddle's proxy: nvcc is asked for sm_50 and fails.  Under
    torchproxy: our message, before any nvcc run."""
    import paddle
    if paddle.is_compiled_with_cuda() and paddle.device.cuda.device_count() > 0:
        pytest.skip("this machine has a GPU Paddle can use")
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    ours = _run(NO_TARGET.format(root=root, enable=(
        "import torchproxy; torchproxy.enable(scope={'tilelang', 'kernels.tilelang'})")))
    assert "torchproxy: TileLang needs a target" in ours.stdout, ours.stderr[-2000:]
    assert "sm_50'" not in ours.stdout
    if _dist() != "tilelang-paddle":
        return  # upstream does not import under Paddle's proxy at all (test above)
    theirs = _run(NO_TARGET.format(root=root, enable=(
        "paddle.compat.enable_torch_proxy(scope={'tilelang', 'kernels'})")))
    assert "Unsupported gpu architecture 'sm_50'" in theirs.stdout, theirs.stderr[-2000:]
