"""Load one kernel module of kernels/triton twice in one process: as ``kernels.triton.<name>``
(in scope: its ``import torch`` is the facade) and as ``torch_oracle_kernels.<name>`` (out of
scope: real torch).  The same file, unchanged, under two module names."""
from __future__ import annotations

import importlib
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
KERNEL_DIR = os.path.join(ROOT, "kernels", "triton")
SCOPE = {"kernels", "triton"}
ORACLE_PKG = "torch_oracle_kernels"


def enable_scope():
    import torchproxy
    torchproxy.enable(scope=SCOPE)


def load_autotuned(name: str, scoped: bool):
    """load() for a module with a ``@triton.autotune`` kernel.  Triton <= 3.3 builds the
    autotuner's benchmarker at decoration time, which needs an active GPU driver: on a CPU-only
    machine the module cannot be imported under real torch either.  That is skipped, naming
    the reason; any other error propagates."""
    import pytest
    try:
        return load(name, scoped)
    except RuntimeError as e:
        if "active drivers" not in str(e):
            raise
        import triton
        pytest.skip(f"Triton {triton.__version__}: @triton.autotune needs a GPU driver at "
                    f"import time ({e}); real torch fails the same way")


def load(name: str, scoped: bool):
    if scoped:
        enable_scope()
        return importlib.import_module(f"kernels.triton.{name}")
    modname = f"{ORACLE_PKG}.{name}"
    if modname in sys.modules:
        return sys.modules[modname]
    spec = importlib.util.spec_from_file_location(modname, os.path.join(KERNEL_DIR, f"{name}.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[modname] = mod  # Triton reads kernel source and globals through the module
    spec.loader.exec_module(mod)
    return mod
