"""Shared helpers for the hook tests: throwaway packages on sys.path, and subprocess runs."""
from __future__ import annotations

import itertools
import json
import os
import subprocess
import sys
import textwrap

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
_ids = itertools.count()


def unique(prefix: str) -> str:
    return f"{prefix}_{os.getpid()}_{next(_ids)}"


def write_pkg(base, name: str, files: dict[str, str]) -> str:
    """Create package ``name`` under ``base`` with ``files`` (relative path -> source)."""
    pkg = os.path.join(str(base), name)
    os.makedirs(pkg, exist_ok=True)
    files = {"__init__.py": "", **files}
    for rel, src in files.items():
        path = os.path.join(pkg, rel)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w") as f:
            f.write(textwrap.dedent(src))
    return pkg


# A package whose code imports torch every way the hook must handle.
IMPORT_FORMS = {
    "__init__.py": """
        import torch
        from torch import nn
        import torch.nn.functional as F
        from torch.nn import functional as F2
        from torch.nn.functional import relu

        def lazy():
            import torch
            return torch

        def lazy_submodule():
            import torch.nn.functional
            return torch.nn.functional

        def via_importlib(name="torch"):
            import importlib
            return importlib.import_module(name)

        def via_find_spec(name="torch"):
            import importlib.util
            return importlib.util.find_spec(name)

        def via_c(name=b"torch"):
            import ctypes
            f = ctypes.pythonapi.PyImport_ImportModule
            f.restype = ctypes.py_object
            f.argtypes = [ctypes.c_char_p]
            return f(name)
    """,
    "sub/__init__.py": """
        def lazy():
            import torch
            return torch
    """,
}

PLAIN = {
    "__init__.py": """
        def lazy():
            import torch
            return torch
        def via_importlib():
            import importlib
            return importlib.import_module("torch")
    """,
}


def run_py(code: str, *, cwd=None, env=None, timeout=120) -> subprocess.CompletedProcess:
    """Run ``code`` in a fresh interpreter with the repo (and cwd) importable."""
    full_env = dict(os.environ)
    paths = [ROOT] + ([str(cwd)] if cwd else [])
    full_env["PYTHONPATH"] = os.pathsep.join(paths + [full_env.get("PYTHONPATH", "")])
    full_env.pop("TORCHPROXY_SCOPE", None)
    full_env.update(env or {})
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], cwd=cwd, env=full_env,
                          capture_output=True, text=True, timeout=timeout)


def run_json(code: str, **kw):
    proc = run_py(code, **kw)
    if proc.returncode != 0:
        raise AssertionError(f"subprocess failed ({proc.returncode}):\n{proc.stdout}\n{proc.stderr}")
    last = [line for line in proc.stdout.splitlines() if line.startswith("{")][-1]
    return json.loads(last)
