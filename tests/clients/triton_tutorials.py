"""Triton's own tutorials (python/tutorials/01..06 of Triton 3.6.0), unmodified, on CPU tensors
in Triton's interpreter: once with real torch (the oracle) and once through the proxy (the
tutorial module and ``triton`` in scope, so their ``import torch`` is the facade on Paddle).

Only the correctness parts run: each tutorial file is executed as a module with its benchmark
statements left out (``<bench>.run(...)`` calls, ``if __name__ == "__main__":`` blocks) and its
module-level ``test_*(...)`` calls left out where the case calls the test function itself with
small sizes (the interpreter runs kernels in numpy: the tutorials' GPU sizes take minutes).
Nothing else in the file changes; kernels keep their source lines (Triton reads them).

Sources are never committed.  Triton publishes no sdist on PyPI (wheels only, without the
tutorials), so they come from, in order:
1. ``$TORCHPROXY_TRITON_TUTORIALS``: a directory holding the six ``0N-*.py`` files;
2. a git mirror of Triton under ``$TORCHPROXY_GIT_MIRRORS`` (a folder of git mirrors laid out
   ``<owner>+<name>/repo``: ``triton-lang+triton/repo``), at tag ``v3.6.0``; or the fork ``triton-lang/Triton-to-tile-IR`` (a snapshot small enough
   to fetch, Triton's main history) at ``PIN_COMMIT``;
and every file must have the pinned git blob id (``PIN_BLOBS``), else the tests skip saying why.

``PIN_COMMIT`` is the release/3.6.x branch point: among Triton's main-branch commits it is
the one whose ``python/triton`` tree matches the files of the triton 3.6.0 wheel most closely
(77 of 101; the rest are release-branch cherry-picks); the tutorials 01-06 there are the pinned
blobs.

The interpreter has no GPU driver (``driver.active`` raises "0 active drivers" under real torch
too), so each case runs with ``InterpreterDriver`` as Triton's active driver: the CPU device of
the torch the tutorial imported, a target that is neither CUDA nor HIP, device properties for
02's occupancy arithmetic, and a wall-clock benchmarker for ``@triton.autotune``.
"""
from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import io
import os
import subprocess
import sys
import time
import types

import numpy as np

TAG = "v3.6.0"
PIN_COMMIT = "4b184cccbb42c3aa5f24e34c39c5358636b3e2bd"  # release/3.6.x branch point, 2025-11-21
PIN_BLOBS = {
    "01-vector-add.py": "e527e5fc7ac37d24783fe25e0b3c2a06bbcfa24d",
    "02-fused-softmax.py": "88d60b1a44937bdde860c79bbe50fd000ba9fc06",
    "03-matrix-multiplication.py": "526934c1d7c60ccbb8119b1bca0e807f6fc602e8",
    "04-low-memory-dropout.py": "3dd84da47e6f377b4700cd2141f1f87dc76984f3",
    "05-layer-norm.py": "19bd915e0fe74e59e175ad4bba9e8a41bbcea6f3",
    "06-fused-attention.py": "c68fbf52dfaecc6213c990dfd76847a1b87418f2",
}
SCOPED_PKG = "triton_tutorials_scoped"
ORACLE_PKG = "triton_tutorials_oracle"
SCOPE = (SCOPED_PKG, "triton")


class SourcesMissing(Exception):
    """The pinned tutorial sources are not on this machine (the message says what to do)."""


def _blob_id(data: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _from_dir(d):
    out = {}
    for name, blob in PIN_BLOBS.items():
        path = os.path.join(d, name)
        if not os.path.isfile(path):
            raise SourcesMissing(f"{path} does not exist")
        with open(path, "rb") as f:
            data = f.read()
        if _blob_id(data) != blob:
            raise SourcesMissing(f"{path} is not the pinned version (git blob {blob})")
        out[name] = data
    return out


def _from_git(gitdir, rev):
    out = {}
    for name, blob in PIN_BLOBS.items():
        r = subprocess.run(["git", "--git-dir", gitdir, "cat-file", "blob", f"{rev}:python/tutorials/{name}"],
                           capture_output=True)
        if r.returncode:
            raise SourcesMissing(f"{gitdir} has no {rev}:python/tutorials/{name}")
        if _blob_id(r.stdout) != blob:
            raise SourcesMissing(f"{gitdir} {rev}:python/tutorials/{name} is not the pinned "
                                 f"blob {blob}")
        out[name] = r.stdout
    return out


def _gitdir(repo):
    return os.path.join(repo, ".git") if os.path.isdir(os.path.join(repo, ".git")) else repo


def load_sources() -> dict[str, bytes]:
    """The six tutorial files (name -> bytes), verified against PIN_BLOBS."""
    tried = []
    env = os.environ.get("TORCHPROXY_TRITON_TUTORIALS")
    if env:
        return _from_dir(env)
    mirror = os.environ.get("TORCHPROXY_GIT_MIRRORS")
    if not mirror:
        tried.append("TORCHPROXY_GIT_MIRRORS unset")
    candidates = (("triton-lang+triton", TAG), ("triton-lang+Triton-to-tile-IR", PIN_COMMIT))
    for name, rev in candidates if mirror else ():
        repo = os.path.join(mirror, name, "repo")
        if not os.path.isdir(repo):
            tried.append(f"no mirror {repo}")
            continue
        try:
            return _from_git(_gitdir(repo), rev)
        except SourcesMissing as e:
            tried.append(str(e))
    raise SourcesMissing(
        "Triton 3.6.0's tutorial sources are not on this machine (Triton publishes no sdist; "
        "its wheels lack python/tutorials): fetch github:triton-lang/triton (tag v3.6.0) or "
        "github:triton-lang/Triton-to-tile-IR as <owner>+<name>/repo under $TORCHPROXY_GIT_MIRRORS, "
        "or set TORCHPROXY_TRITON_TUTORIALS to a directory with the six files. Tried: "
        + "; ".join(tried))


def materialize(dest: str) -> str:
    """Write the verified sources under ``dest`` (Triton reads kernel source lines from the
    file) and return that directory."""
    os.makedirs(dest, exist_ok=True)
    for name, data in load_sources().items():
        path = os.path.join(dest, name)
        if not (os.path.isfile(path) and open(path, "rb").read() == data):
            with open(path, "wb") as f:
                f.write(data)
    return dest


# -- running one tutorial as a module, benchmarks left out -------------------------------------
def _is_bench_stmt(node, strip_calls):
    if isinstance(node, ast.If):  # if __name__ == "__main__": (06: the benchmark run)
        t = node.test
        if (isinstance(t, ast.Compare) and isinstance(t.left, ast.Name)
                and t.left.id == "__name__"):
            return True
    if isinstance(node, ast.Expr) and isinstance(node.value, ast.Call):
        f = node.value.func
        if isinstance(f, ast.Attribute) and f.attr == "run" and isinstance(f.value, ast.Name):
            return True  # benchmark.run(...) of a @triton.testing.perf_report function
        if isinstance(f, ast.Name) and f.id in strip_calls:
            return True
    return False


def load_tutorial(path: str, scoped: bool, strip_calls=(), tag="") -> types.ModuleType:
    """Execute the tutorial at ``path`` as a fresh module of the scoped or the oracle package."""
    with open(path, "rb") as f:
        tree = ast.parse(f.read(), filename=path)
    tree.body = [n for n in tree.body if not _is_bench_stmt(n, set(strip_calls))]
    base = os.path.splitext(os.path.basename(path))[0].replace("-", "_")
    name = f"{SCOPED_PKG if scoped else ORACLE_PKG}.t{base}{tag}"
    for pkg in (SCOPED_PKG, ORACLE_PKG):
        if pkg not in sys.modules:
            p = types.ModuleType(pkg)
            p.__path__ = []
            sys.modules[pkg] = p
    mod = types.ModuleType(name)
    mod.__file__ = path
    sys.modules[name] = mod  # Triton's JIT looks kernels' globals up through the module
    exec(compile(tree, path, "exec"), mod.__dict__)
    return mod


class InterpreterDriver:
    """What the tutorials ask ``triton.runtime.driver.active`` for, on the CPU interpreter."""

    def __init__(self, torch):
        self.torch = torch
        self.utils = types.SimpleNamespace(get_device_properties=self._properties)

    def get_active_torch_device(self):
        return self.torch.device("cpu")

    def get_current_target(self):
        from triton.backends.compiler import GPUTarget
        return GPUTarget("interpreter", 0, 32)

    @staticmethod
    def _properties(index):
        # an A100's numbers: only 02's occupancy arithmetic reads them
        return {"multiprocessor_count": 108, "max_num_regs": 65536, "max_shared_mem": 166912,
                "warpSize": 32, "max_threads_per_sm": 2048}

    def get_benchmarker(self):
        def bench(fn, quantiles=None, **_):
            t0 = time.perf_counter()
            fn()
            ms = (time.perf_counter() - t0) * 1e3
            return [ms] * len(quantiles) if quantiles else ms
        return bench


@contextlib.contextmanager
def active_driver(torch):
    from torchproxy.integrations.triton import _config, _slots
    d, active, _ = _slots(_config()[0])
    saved = d.get(active)
    d[active] = InterpreterDriver(torch)
    try:
        yield
    finally:
        d[active] = saved


def _np(t):
    return np.asarray(t.detach().cpu().float().numpy() if hasattr(t, "float") else t.numpy())


# -- the cases: (tutorial, what to strip, what to check) ----------------------------------------
def _check_vector_add(m, out):
    np.testing.assert_array_equal(_np(m.output_triton), _np(m.output_torch))


def _check_softmax(m, out):
    pass  # the tutorial asserts torch.allclose(y_triton, y_torch) itself


def _check_matmul(m, out):
    # the tutorial prints its own torch.allclose(..., atol=1e-2, rtol=0) verdict
    assert "✅ Triton and Torch match" in out, out[-2000:]


def _table_rows(out):
    """tabulate's plain table -> {row label: [floats]} (the label may hold spaces)."""
    rows = {}
    for line in out.splitlines():
        parts = line.split()
        nums = []
        while parts:
            try:
                nums.insert(0, float(parts[-1]))
            except ValueError:
                break
            parts.pop()
        if parts and nums:
            rows.setdefault(" ".join(parts), nums)
    return rows


def _check_dropout(m, out):
    # the module's globals x/output are rebound by the seeded part: read the first table,
    # which the tutorial prints for this check (input, keep mask, output)
    rows = _table_rows(out)
    x, keep, y = (np.array(rows[k]) for k in ("input", "keep mask", "output"))
    assert len(x) == 10 and set(keep) <= {0.0, 1.0}, rows
    np.testing.assert_allclose(y, np.where(keep != 0, x / (1 - m.p), 0.0), rtol=1e-4, atol=1e-6)


def _check_seeded_dropout(m, out):
    x, a, b, c = (_np(m.x), _np(m.output), _np(m.output2), _np(m.output3))
    np.testing.assert_array_equal(a, b)  # same seed, same mask
    assert not np.array_equal(a, c)  # another seed, another mask
    for y in (a, c):
        assert np.all((y == 0) | np.isclose(y, 2 * x)), (x, y)


def _call(fn_name, **kw):
    def check(m, out):
        # dtype="float16" means the tutorial's own torch.float16
        args = {k: getattr(m.torch, v) if k == "dtype" else v for k, v in kw.items()}
        getattr(m, fn_name)(**args)
    return check


# id -> (file, module-level calls left out, check(module, captured stdout))
CASES = {
    "01-vector-add": ("01-vector-add.py", (), _check_vector_add),
    "02-fused-softmax": ("02-fused-softmax.py", (), _check_softmax),
    "03-matmul-fp16": ("03-matrix-multiplication.py", (), _check_matmul),
    "04-dropout": ("04-low-memory-dropout.py", (), _check_dropout),
    "04-seeded-dropout": ("04-low-memory-dropout.py", (), _check_seeded_dropout),
    "05-layer-norm-fp16": ("05-layer-norm.py", ("test_layer_norm",),
                           _call("test_layer_norm", M=151, N=1024, dtype="float16")),
    "06-attention-bwd-fp16-d64": ("06-fused-attention.py", (), _call(
        "test_op", Z=1, H=2, N_CTX=128, HEAD_DIM=64, causal=True, warp_specialize=False,
        mode="bwd", provider="triton-fp16")),
    "06-attention-fwd-fp8-d64": ("06-fused-attention.py", (), _call(
        "test_op", Z=1, H=2, N_CTX=128, HEAD_DIM=64, causal=True, warp_specialize=False,
        mode="fwd", provider="triton-fp8")),
    "06-attention-bwd-fp16-d128": ("06-fused-attention.py", (), _call(
        "test_op", Z=1, H=2, N_CTX=128, HEAD_DIM=128, causal=True, warp_specialize=False,
        mode="bwd", provider="triton-fp16")),
    "06-attention-fwd-fp8-d128": ("06-fused-attention.py", (), _call(
        "test_op", Z=1, H=2, N_CTX=128, HEAD_DIM=128, causal=True, warp_specialize=False,
        mode="fwd", provider="triton-fp8")),
}


def enable_proxy():
    import torchproxy
    torchproxy.enable(scope=set(SCOPE))


def run_case(case: str, scoped: bool, src_dir: str) -> str:
    """Run one case; raises on failure; returns the tutorial's stdout."""
    fname, strip, check = CASES[case]
    if scoped:
        enable_proxy()
    os.environ.setdefault("TRITON_INTERPRET", "1")
    torch = _torch(scoped)
    buf = io.StringIO()
    with active_driver(torch), contextlib.redirect_stdout(buf):
        m = load_tutorial(os.path.join(src_dir, fname), scoped, strip, tag=f"_{next(_count)}")
        check(m, buf.getvalue())
    return buf.getvalue()


_count = iter(range(10**9))


def _torch(scoped):
    if scoped:
        from torchproxy.facade import modules
        return modules.build()["torch"]
    import torch
    return torch

