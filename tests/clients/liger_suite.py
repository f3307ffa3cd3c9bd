"""Liger-Kernel 0.8.5's own test suite (test/transformers), unmodified, under real torch and under
the proxy (through ``-p torchproxy.pytest_plugin``), on CPU tensors in Triton's interpreter.

The tests come from Liger-Kernel's sdist on PyPI (it ships test/), pinned by sha256, downloaded
with pip into ``$TORCHPROXY_CLIENTS_CACHE`` (default ``~/.cache/torchproxy/clients``) the first
time; nothing is committed.  Offline and without a cached copy, the tests skip saying so.

Each side runs in its own pytest process, in the unpacked sdist (its pyproject puts ``src`` and
``.`` on sys.path: the sdist's own liger_kernel and test helpers):
- real torch: ``pytest <ids>``;
- proxy: ``pytest -p torchproxy_early -p torchproxy.pytest_plugin --torchproxy-scope=S <ids>``
  with S = liger_kernel, triton, test (the helpers package) and the test modules (Liger's
  test/transformers has no __init__.py: its modules import as ``test_softmax``...).
A case counts only where real torch passes it.

    python tests/clients/liger_suite.py                 # the CI selection, both sides, counts
    python tests/clients/liger_suite.py --full          # everything measured (9 files)
    python tests/clients/liger_suite.py test/transformers/test_rope.py   # any pytest ids
    python tests/clients/liger_suite.py --no-interpreter-fix ...  # Triton's interpreter as is
    python tests/clients/liger_suite.py --record [FILES]   # file by file, both sides, each
                                                           # file's results kept (resumable)
    python tests/clients/liger_suite.py --record --max-cases=8   # at most 8 cases a file,
                                      # evenly spaced over its collection order (said per file)
    python tests/clients/liger_suite.py --record --max-cases=8 --batch=5  # 5 files a process
    python tests/clients/liger_suite.py --record --side-timeout=1200 FILE  # a side stops after
                                      # 1200 s; its finished cases are kept (said per file)
    python tests/clients/liger_suite.py --record --case-timeout=600 ...  # pytest-timeout per case
    python tests/clients/liger_suite.py --record --extend --max-cases=24 FILE  # add the cases
                                      # of the even selection of 24 its record lacks
    python tests/clients/liger_suite.py --record --extend FILE  # add every case it lacks
    python tests/clients/liger_suite.py --write-md          # docs/results/liger-suite-cpu.md
    python tests/clients/liger_suite.py --recheck-proxy FILE  # after a fix: the proxy side again on
                                      # the recorded cases real torch passed and it failed
    python tests/clients/liger_suite.py --help              # (an unknown option: usage error)

``--record`` runs every file of the sdist's test/transformers (or the FILES named), one pytest
process per file and side, and keeps each file's outcomes in ``docs/results/liger-suite/
<file>.json`` (committed, with the versions it ran with; ``_files.json`` lists the sdist's test
files), so ``--write-md`` regenerates the results file on a fresh clone without running or
downloading anything.  A file recorded there is skipped (the run can be stopped and resumed,
or split over several invocations; delete its JSON to record it again; ``--extend`` grows a
recorded selection instead, running only the cases its JSON lacks and keeping the others' outcomes
as recorded: ``extension``).  ``--max-cases`` picks
among the cases that their own skip/skipif markers do not skip on this machine (pytest's
evaluation of those markers, run at collection: torchproxy_early's $TORCHPROXY_COLLECT_SKIPS).
Each side logs every case as it finishes (``<file>.real.jsonl`` / ``<file>.proxy.jsonl`` in
``$TORCHPROXY_CLIENTS_CACHE/liger-suite-<version>-paddle<version>/``, written by torchproxy_early's
case log: pytest's own summary and junitxml come only at the end of a session), so a side that
is killed or stopped at ``--side-timeout`` keeps what it finished, and a file run again runs
only the cases its logs lack (to run a side afresh, after a facade fix, delete the file's
``.json`` and that side's ``.jsonl``).  The five files that import Liger's monkey_patch run with
transformers 5.0.0 (TRANSFORMERS5), which ``--record`` pip-installs into the clients cache.  ``--write-md`` writes the results
file from what is recorded: per file, the cases real torch passes and how many of those the
proxy passes, every case the proxy fails with its reason (KNOWN_PROXY_FAILURES, else pytest's
one-line error), and the files not recorded yet.

Both sides load tests/clients/torchproxy_early.py, which applies torchproxy's fixes to Triton's
CPU interpreter (the same on both sides; without them real torch fails most of Liger's kernels
there: "'float' object has no attribute 'to'") and, on the proxy side, enables the scope before
Liger's conftest runs.
"""
from __future__ import annotations

import argparse
import hashlib
import importlib.metadata
import json
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile

VERSION = "0.8.5"
SDIST = f"liger_kernel-{VERSION}.tar.gz"
SHA256 = "4e8f8f611a8ad735c37c989410d09820bb08881f131851a3967c34baa7889d66"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT_PER_TEST = 180  # seconds (pytest-timeout), a hang guard: sparsemax (123x123) under the
# interpreter took over 60 s on a 2-core machine at load 6 (CI failed on it); speed is bench/'s job

# The CI selection: one or two small cases per kernel family, about 30 s of CPU per side.
# FULL is what was measured for the report (8 files, whole): ``liger_suite.py --full``.
_T = "test/transformers/"
SELECTED = [_T + i for i in (
    "test_softmax.py::test_liger_softmax[dtype0-1e-05-1e-05-shape0]",
    "test_softmax.py::test_liger_softmax[dtype0-1e-05-1e-05-shape1]",
    "test_sparsemax.py::test_liger_sparsemax_functional_correctness[dtype0-1e-05-1e-05-1-5-123-123]",
    "test_relu_squared.py::test_liger_relu_squared_functional[dtype0-1e-05-1e-05-shape0]",
    "test_relu_squared.py::test_liger_relu_squared_functional[dtype0-1e-05-1e-05-shape1]",
    "test_layer_norm.py::test_liger_layer_norm[dtype0-1e-05-1e-05-2-8-64]",
    "test_layer_norm.py::test_liger_layer_norm_functional[dtype0-1e-05-1e-05-2-8-64]",
    "test_group_norm.py::test_liger_group_norm[dtype0-0.0001-0.0001-1-1-1-3]",
    "test_poly_norm.py::test_correctness_functional[dtype0-0.0001-1e-06-2-2-8]",
    "test_geglu.py::test_correctness_functional[dtype0-1e-05-1e-05-2-2-8]",
    "test_swiglu.py::test_correctness_functional[dtype0-1.0-1e-05-2-8-8]",
    # bfloat16 through Triton's interpreter (torchproxy's bf16 interpreter fix, both sides)
    "test_geglu.py::test_correctness_functional[dtype1-0.01-0.01-2-2-8]",
    "test_swiglu.py::test_correctness_functional[dtype1-10000.0-0.01-2-8-8]",
    # the reference module is transformers' LlamaMLP (transformers in the scope)
    "test_swiglu.py::test_correctness_llamamlp[dtype0-1.0-1e-05-6-42-123-431]",
    # passes only with torch's CPU random numbers (its inputs' draw decides it:
    # docs/results/liger-seed-sensitivity.txt)
    "test_fused_neighborhood_attention.py::test_fused_neighborhood_attention_correctness"
    "[dtype1-0.05-0.05-False-2-32-128-4-7]",
    # rtol 1e-6 over 32000 classes with label smoothing and weights: the facade's
    # cross-entropy reference needs torch's float32 summation accuracy, forward and backward
    "test_cross_entropy.py::test_correctness_with_weight_with_other_params_once"
    "[1.0-dtype1-1e-08-1e-06-42-1e-05-0.2-40.0-none-3-423-32000]",
)]
FULL = [_T + f"test_{f}.py" for f in ("softmax", "sparsemax", "relu_squared", "layer_norm",
                                       "group_norm", "poly_norm", "rms_norm", "geglu",
                                       "swiglu")]

# nodeid -> why the proxy differs from real torch there (cases real torch passes)
KNOWN_PROXY_FAILURES: dict[str, str] = {
    # (the two bf16 cases of geglu and swiglu that real torch passed vacuously, on garbage from
    # the interpreter's bf16 arithmetic, left with the interpreter's bf16 fix: they now compute)
    # (the bf16 neighborhood-attention case that failed on the draw of its inputs, left when
    # the facade's CPU random numbers became torch's: docs/results/liger-seed-sensitivity.txt)
}


# test file -> why real torch itself fails it on this machine (not the harness: measured)
REAL_TORCH_FAILS = {
    _T + "test_tvd.py": "a skipif condition evaluated at import calls "
    "`getattr(torch, infer_device()).get_device_properties(0)`, i.e. "
    "`torch.cpu.get_device_properties` on a CPU machine (`torch.cpu.is_available()` is True), "
    "which real torch 2.13 does not have: the module does not import (Liger's test assumes a "
    "GPU).",
    _T + "test_dyt.py": "Liger's DyT backward (ops/dyt.py) sets NUM_SMS only for the cuda, xpu "
    "and npu devices, so on CPU every case that runs a backward raises UnboundLocalError "
    "('NUM_SMS') on real torch (Liger's op assumes a GPU).",
}


class SourcesMissing(Exception):
    pass


def cache_dir() -> str:
    return os.environ.get("TORCHPROXY_CLIENTS_CACHE",
                          os.path.join(os.path.expanduser("~"), ".cache", "torchproxy", "clients"))


def _sha256(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def sources() -> str:
    """The unpacked sdist directory (downloaded and verified on first use)."""
    cache = cache_dir()
    root = os.path.join(cache, f"liger_kernel-{VERSION}")
    if os.path.isfile(os.path.join(root, ".verified")):
        return root
    os.makedirs(cache, exist_ok=True)
    archive = os.path.join(cache, SDIST)
    if not (os.path.isfile(archive) and _sha256(archive) == SHA256):
        r = subprocess.run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary",
                            ":all:", f"liger-kernel=={VERSION}", "-d", cache],
                           capture_output=True, text=True, timeout=300)
        if r.returncode or not os.path.isfile(archive):
            raise SourcesMissing(f"Liger-Kernel {VERSION}'s sdist (its test suite) could not be "
                                 f"downloaded from the package index: "
                                 f"{(r.stderr or r.stdout).strip()[-300:]}")
    got = _sha256(archive)
    if got != SHA256:
        raise SourcesMissing(f"{archive} has sha256 {got}, not the pinned {SHA256}")
    with tarfile.open(archive) as tf:
        members = [m for m in tf.getmembers() if m.isfile() and not m.issym() and not m.islnk()
                   and ".." not in m.name.split("/")]
        tf.extractall(cache, members=members)
    with open(os.path.join(root, ".verified"), "w") as f:
        f.write(SHA256)
    return root


# Liger 0.8.5's liger_kernel.transformers.monkey_patch refuses transformers < 5.0.0 at import
# ("liger-kernel requires transformers >= 5.0.0"; its setup.py's dev extra asks for
# transformers>=5.0.0), and .venv pins 4.57.1 (the release issue 25's Hugging Face client is
# measured on).  These test files import monkey_patch, so they run, on both sides, with the
# lowest transformers Liger accepts, from a folder of pinned wheels put first on PYTHONPATH
# (installed with --no-deps: everything else comes from the venv, as for the other files).
TRANSFORMERS5_FILES = {_T + f"test_{f}.py" for f in (
    "auto_model", "llama4", "monkey_patch", "muse_glimmer", "trainer_integration")}
TRANSFORMERS5 = ("transformers==5.0.0", "huggingface_hub==1.3.7", "typer-slim==0.24.0",
                 "typer==0.24.0", "click==8.5.1", "shellingham==1.5.4", "rich==15.0.0",
                 "markdown-it-py==4.3.0", "mdurl==0.1.2", "annotated-doc==0.0.7")

# test file -> why it runs with other versions than the results file's header (said in its note)
FILE_NOTES = {f: "Liger's monkey_patch, which this file imports, refuses transformers < 5.0.0, "
              "so it runs on both sides with the lowest one Liger accepts (TRANSFORMERS5 in "
              "liger_suite.py)." for f in TRANSFORMERS5_FILES}


def transformers5_dir() -> str:
    """The folder holding TRANSFORMERS5 (pip-installed there on first use)."""
    d = os.path.join(cache_dir(), "liger-suite-" + TRANSFORMERS5[0].replace("==", "-"))
    stamp = os.path.join(d, ".installed")
    if os.path.isfile(stamp) and open(stamp).read() == "\n".join(TRANSFORMERS5):
        return d
    shutil.rmtree(d, ignore_errors=True)
    r = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--target", d,
                        *TRANSFORMERS5], capture_output=True, text=True, timeout=600)
    if r.returncode:
        raise SourcesMissing(f"{' '.join(TRANSFORMERS5)} could not be installed into {d} "
                             f"(needed by {sorted(TRANSFORMERS5_FILES)}): "
                             f"{(r.stderr or r.stdout).strip()[-300:]}")
    with open(stamp, "w") as fh:
        fh.write("\n".join(TRANSFORMERS5))
    return d


def _transformers5(ids) -> bool:
    """Whether ``ids`` (one run's: never a mix) need TRANSFORMERS5."""
    need = {i.split("::")[0] in TRANSFORMERS5_FILES for i in ids}
    if len(need) > 1:
        raise ValueError("one pytest run cannot mix files that need transformers 5 "
                         f"({sorted(TRANSFORMERS5_FILES)}) with others: {ids}")
    return need == {True}


def _env(ids, fixes):
    """The environment of a pytest process on ``ids`` (either side)."""
    path = [ROOT, HERE, os.environ.get("PYTHONPATH", "")]
    if _transformers5(ids):
        path.insert(0, transformers5_dir())
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONDONTWRITEBYTECODE="1",
               TORCHPROXY_INTERPRETER_FIXES="1" if fixes else "0",
               PYTHONPATH=os.pathsep.join(path))
    env.pop("TORCHPROXY_EARLY_SCOPE", None)
    return env


# Liger's own sources that its tests load from their files under other names
# (test_fused_linear_scaled_cross_entropy.py: importlib.util.spec_from_file_location), so
# outside the liger_kernel package's scope unless named
BY_FILE_MODULES = ("_fused_linear_scaled_cross_entropy_frontend",
                   "_fused_linear_scaled_cross_entropy_native_frontend")


def _scope(ids):
    # transformers too: several tests build their reference module from it (LlamaMLP,
    # Phi3MLP...), which must take the proxy's tensors as Liger's kernels do
    mods = sorted({os.path.splitext(os.path.basename(i.split("::")[0]))[0] for i in ids})
    return ",".join(["liger_kernel", "triton", "test", "transformers", *BY_FILE_MODULES, *mods])


_FINGERPRINT = []


def code_fingerprint() -> str:
    """A hash of the code a case's outcome depends on besides the versions: torchproxy's sources
    (the facade, the interpreter fixes, the C helpers) and torchproxy_early.py.  Each case log
    line carries the fingerprint of the code that ran it (torchproxy_early's
    $TORCHPROXY_CASE_LOG_CODE), so a side resumed after a code change runs its cases again
    instead of reusing outcomes of other code."""
    if not _FINGERPRINT:
        h = hashlib.sha1()
        paths = [os.path.join(HERE, "torchproxy_early.py")]
        for d, dirs, names in os.walk(os.path.join(ROOT, "torchproxy")):
            dirs[:] = sorted(x for x in dirs if x != "__pycache__")
            paths += [os.path.join(d, n) for n in sorted(names)
                      if n.endswith((".py", ".c", ".h", ".json", ".toml"))]
        for p in paths:
            h.update(os.path.relpath(p, ROOT).encode() + b"\0")
            with open(p, "rb") as fh:
                h.update(fh.read())
        _FINGERPRINT.append(h.hexdigest()[:16])
    return _FINGERPRINT[0]


def read_case_log(path, code=None):
    """{nodeid: {"outcome", "message", "duration"}} from a case log (torchproxy_early's
    $TORCHPROXY_CASE_LOG: one JSON line per finished case); a case's first line wins (a teardown
    error after PASSED is its second).  ``code``: only the lines that code ran (a fingerprint,
    ``code_fingerprint``); lines of other code, or of a harness that wrote none, are stale."""
    cases = {}
    if os.path.isfile(path):
        with open(path) as fh:
            for line in fh:
                if line.endswith("\n"):  # a line cut by a kill is not a case
                    c = json.loads(line)
                    if code is not None and c.get("code") != code:
                        continue
                    cases.setdefault(c.pop("id"), c)
    return cases


def run(ids, proxy: bool, extra=(), timeout=1800, fixes=True, messages=None, case_log=None,
        durations=None):
    """pytest on ``ids`` in the sdist; returns ({nodeid: outcome}, output).  ``fixes``: apply
    torchproxy's Triton-interpreter fixes on this side (both sides get the same).  ``messages``
    (a dict), when given, receives pytest's one-line reason of each case that did not pass;
    ``durations`` (a dict) each case's seconds (setup + call).  The outcomes come from the case
    log (``case_log``, a path, "{file}" standing for the test file's name; a temporary one by
    default) written as each case ends: a side killed at ``timeout`` keeps its finished cases
    and its output ends with a line saying it was stopped."""
    root = sources()
    env = _env(ids, fixes)
    tmp = None
    if case_log is None:
        tmp = tempfile.mkdtemp(prefix="liger-cases-")
        case_log = os.path.join(tmp, "{file}.jsonl")
    env["TORCHPROXY_CASE_LOG"] = case_log
    env["TORCHPROXY_CASE_LOG_CODE"] = code_fingerprint()
    # --continue-on-collection-errors: one file's collection error (test_tvd's torch.cpu on real
    # torch) would otherwise stop every other file given in the same run
    args = [sys.executable, "-m", "pytest", *ids, "-q", "-rA", "-p", "no:cacheprovider",
            "-o", "addopts=", "-o", "log_cli=false", f"--timeout={TIMEOUT_PER_TEST}",
            "--continue-on-collection-errors",
            "-p", "torchproxy_early", *extra]
    if proxy:
        scope = _scope(ids)
        env["TORCHPROXY_EARLY_SCOPE"] = scope
        args += ["-p", "torchproxy.pytest_plugin", f"--torchproxy-scope={scope}"]
    try:
        r = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True,
                           timeout=timeout)
        out = r.stdout + r.stderr
    except subprocess.TimeoutExpired as e:  # subprocess.run has killed pytest
        out = "".join(x.decode(errors="replace") if isinstance(x, bytes) else (x or "")
                      for x in (e.stdout, e.stderr))
        out += f"\nstopped after {timeout} s (the side's time limit)\n"
    files = sorted({i.split("::")[0] for i in ids})
    results = {}
    for f in files:
        for k, c in read_case_log(case_log.replace("{file}", os.path.basename(f)),
                                  code_fingerprint()).items():
            results.setdefault(k, c["outcome"])
            if messages is not None and c["outcome"] != "PASSED" and c["message"]:
                messages.setdefault(k, c["message"])
            if durations is not None:
                durations.setdefault(k, c["duration"])
    if tmp:
        shutil.rmtree(tmp, ignore_errors=True)
    return results, out


def compare(ids, fixes=True):
    """(real results, proxy results, proxy output)."""
    real, _ = run(ids, proxy=False, fixes=fixes)
    proxy, out = run(ids, proxy=True, fixes=fixes)
    return real, proxy, out


# --- the whole test/transformers, file by file, recorded (--record) and reported (--write-md)

RESULTS_MD = os.path.join(ROOT, "docs", "results", "liger-suite-cpu.md")
FILE_TIMEOUT = 4 * 3600  # one file and side; the per-case timeout is the real hang guard


def _paddle_version():
    for dist in ("paddlepaddle", "paddlepaddle-gpu"):
        try:
            return importlib.metadata.version(dist)
        except importlib.metadata.PackageNotFoundError:
            pass
    return "unknown"


def record_dir() -> str:
    """The case logs (``<file>.real.jsonl``...): working state of a recording, kept out of the
    repository (a side stopped half-way resumes from them)."""
    return os.path.join(cache_dir(), f"liger-suite-{VERSION}-paddle{_paddle_version()}")


# The recorded outcomes, one small JSON per test file, are committed: --write-md regenerates the
# results file from them on a fresh clone (the case logs and the sdist stay in the cache).
RECORDS = os.path.join(ROOT, "docs", "results", "liger-suite")
INDEX = os.path.join(RECORDS, "_files.json")  # the sdist's test files, so --write-md can list
# the files not recorded yet without downloading the sdist


def _versions(f):
    """The versions test file ``f`` runs with (read from the installed metadata)."""
    if f in TRANSFORMERS5_FILES:
        tf = next(importlib.metadata.distributions(name="transformers",
                                                    path=[transformers5_dir()])).version
    else:
        tf = importlib.metadata.version("transformers")
    return {"paddle": _paddle_version(), "torch": importlib.metadata.version("torch"),
            "triton": importlib.metadata.version("triton"), "transformers": tf}


def all_files():
    """Every test module of the sdist's test/transformers, as ids relative to its root."""
    d = os.path.join(sources(), "test", "transformers")
    return sorted(_T + f for f in os.listdir(d) if f.startswith("test_") and f.endswith(".py"))


def _record_path(f):
    return os.path.join(RECORDS, os.path.basename(f) + ".json")


def _write_index():
    os.makedirs(RECORDS, exist_ok=True)
    with open(INDEX, "w") as fh:
        json.dump({"liger_kernel": VERSION, "files": all_files()}, fh, indent=1)
        fh.write("\n")


def _collect_only(files, fixes, env_var, what):
    """(pytest's output, the JSON torchproxy_early's collection hook wrote to $``env_var``) of
    ``pytest --collect-only`` over ``files`` in the sdist (real torch's side, one process)."""
    env = _env(files, fixes)
    with tempfile.TemporaryDirectory(prefix="liger-collect-") as tmp:
        env[env_var] = path = os.path.join(tmp, "collected.json")
        r = subprocess.run([sys.executable, "-m", "pytest", *files, "--collect-only", "-q",
                            "-p", "no:cacheprovider", "-o", "addopts=",
                            "--continue-on-collection-errors", "-p", "torchproxy_early"],
                           cwd=sources(), env=env, capture_output=True, text=True,
                           timeout=FILE_TIMEOUT)
        if not os.path.isfile(path):  # the hook runs whenever collection finishes
            raise RuntimeError(f"pytest --collect-only wrote no {what} (torchproxy_early's "
                               f"hook did not run):\n{(r.stdout + r.stderr)[-2000:]}")
        with open(path) as fh:
            return r.stdout, json.load(fh)


def collect(files, fixes=True):
    """({file: [node ids]}, {node id: skip reason}) as real torch's pytest collects them (one
    process for all files); a file that fails to collect has no ids.  The second dict holds the
    cases their own skip/skipif markers skip on this machine (torchproxy_early's
    $TORCHPROXY_COLLECT_SKIPS: pytest's evaluation of those markers, done at collection)."""
    stdout, skips = _collect_only(files, fixes, "TORCHPROXY_COLLECT_SKIPS", "skip list")
    ids = {f: [] for f in files}
    for line in stdout.splitlines():
        f = line.split("::")[0]
        if "::" in line and f in ids:
            ids[f].append(line.strip())
    return ids, skips


def select(ids, n):
    """``n`` of ``ids``, evenly spaced over the collection order (so every parametrized test
    function and both ends of its parameter grid get some), all of them if there are no more."""
    if n is None or len(ids) <= n:
        return list(ids)
    return [ids[i * len(ids) // n] for i in range(n)]


def _case_log(f, side):
    """The case log of one file and side in the record directory: kept between invocations, so
    a side stopped half-way (killed, or past --side-timeout) resumes with the cases it has not
    finished."""
    return os.path.join(record_dir(), f"{os.path.basename(f)}.{side}.jsonl")


def _save(f, entry):
    path = _record_path(f)
    with open(path + ".tmp", "w") as fh:
        json.dump(entry, fh, indent=1, sort_keys=True)
    os.replace(path + ".tmp", path)


def _left(f, ids, cases):
    """The ids of ``f`` its case log has no outcome for (none once the file itself is logged:
    its collection error; a whole-file id is done once any of its cases is logged)."""
    if f in cases:
        return []
    return [i for i in ids if i not in cases and not (i == f and cases)]


def _counts(cases):
    counts = {}
    for c in cases.values():
        counts[c["outcome"].lower()] = counts.get(c["outcome"].lower(), 0) + 1
    return ", ".join(f"{n} {k}" for k, n in sorted(counts.items()))


def _recorded_cases(entry, side):
    """A recorded entry's outcomes of one side, as ``read_case_log`` gives them."""
    return {k: {"outcome": v, "message": entry.get(side + "_messages", {}).get(k, ""),
                "duration": entry.get(side + "_durations", {}).get(k),
                "cpu": entry.get(side + "_cpu", {}).get(k)}
            for k, v in entry.get(side, {}).items()}


def extension(f, old, ids, skips, max_cases, fixes, versions, case_timeout):
    """(the cases to record, the selection or None) where ``--extend`` grows the recorded
    selection of file ``f`` (``old``, its JSON): the union of the cases recorded and ``select``'s
    ``max_cases`` of the runnable ones (as ``--max-cases`` picks them), or, with no
    ``max_cases``, every collected case (the record becomes the whole file's, without a
    selection).  The cases recorded are not run again, so everything that could make them
    differ from the new ones must be the same: the versions, the interpreter fixes, the
    per-case timeout, and the collection (ValueError naming what differs)."""
    sel = old.get("selection")
    if not sel:
        raise ValueError(f"{f}: recorded in full already (nothing to extend)")
    for what, was, now in (("versions", old["versions"], versions), ("fixes", old["fixes"], fixes),
                           ("case_timeout", old["case_timeout"], case_timeout),
                           ("collected cases", sel["collected"], len(ids))):
        if was != now:
            raise ValueError(f"{f}: recorded with {what} {was}, this run has {now}: a selection "
                             "can only be extended under the same conditions (delete its JSON "
                             "to record the file again)")
    gone = [i for i in sel["ids"] if i not in ids]
    if gone:
        raise ValueError(f"{f}: recorded cases no longer collected: {gone[:3]}")
    if not max_cases:
        return list(ids), None
    runnable = [i for i in ids if i not in skips]
    picked = set(sel["ids"]) | set(select(runnable or ids, max_cases))
    if len(picked) == len(ids):
        return list(ids), None
    ordered = [i for i in ids if i in picked]  # collection order
    return ordered, {"cases": len(ordered), "collected": len(ids),
                     "skipped_at_collection": len(ids) - len(runnable), "ids": ordered,
                     "max_cases": sel.get("max_cases", [sel["cases"]]) + [max_cases]}


def record(files, fixes=True, log=print, max_cases=None, batch=1, side_timeout=FILE_TIMEOUT,
           case_timeout=None, extend=False):
    """Run each file on both sides (skipping files recorded already) and keep its outcomes.
    ``max_cases``: run at most that many of a file's cases (``select``), recorded as a
    selection (the machine's time does not run 2,278 interpreter cases twice).  ``batch``: run
    the cases of that many files in one pytest process per side (each process pays ~20 s of
    imports), each file still recorded on its own; a file that collects nothing (a collection
    error) runs alone.  Each side writes every finished case to the file's case log
    (``_case_log``) as it goes; a side run again skips the cases its log holds.  A side stopped
    at ``side_timeout`` seconds is recorded with the cases it finished and the number it did
    not reach (``unfinished``).  The proxy side runs only the cases real torch passed (the only
    ones that count).  ``case_timeout``: pytest-timeout's limit per case (wall clock: on a
    loaded machine a case can hit it on either side; the results file counts those apart;
    default TIMEOUT_PER_TEST, or an extended file's recorded one).  ``extend``: a file recorded
    with a selection is recorded again with a larger one (``extension``): only the cases its
    record lacks run, and its recorded outcomes are kept as they are."""
    os.makedirs(record_dir(), exist_ok=True)
    olds = {}  # file -> its record, for the files whose selection is extended
    if extend:
        for f in files:
            if os.path.isfile(_record_path(f)):
                with open(_record_path(f)) as fh:
                    olds[f] = json.load(fh)
    todo = [f for f in files if f in olds or not os.path.isfile(_record_path(f))]
    for f in files:
        if f not in todo:
            log(f"{f}: recorded already ({_record_path(f)})")
    if todo:
        _write_index()
    collected, skips = {}, {}
    for part in ([f for f in todo if f in TRANSFORMERS5_FILES],  # one collection per
                 [f for f in todo if f not in TRANSFORMERS5_FILES]):  # environment
        if part:
            ids, sk = collect(part, fixes)
            collected.update(ids)
            skips.update(sk)
    plan = {}  # file -> (its ids, selection or None)
    timeouts = {f: case_timeout or olds.get(f, {}).get("case_timeout", TIMEOUT_PER_TEST)
                for f in todo}
    for f in list(todo):
        ids = collected.get(f) or [f]
        sel = None
        if f in olds:
            try:
                plan[f] = extension(f, olds[f], ids, skips, max_cases, fixes, _versions(f),
                                    timeouts[f])
            except ValueError as e:
                log(f"not extended: {e}")
                todo.remove(f)
            continue
        if max_cases and len(ids) > max_cases:
            # pick among the cases that run: a case its own skip marker skips here (bfloat16
            # "not supported on this GPU" on CPU...) counts for nothing on either side
            runnable = [i for i in ids if i not in skips]
            # (all of them skipped: the selection runs some, recorded as skipped)
            picked = select(runnable or ids, max_cases)
            sel = {"cases": len(picked), "collected": len(ids),
                   "skipped_at_collection": len(ids) - len(runnable), "ids": picked}
            ids = sel["ids"]
        plan[f] = (ids, sel)
    alone = [f for f in todo if not collected.get(f) or f in TRANSFORMERS5_FILES] \
        if batch > 1 else list(todo)
    grouped = [f for f in todo if f not in alone]
    groups = [[f] for f in alone]
    for t in dict.fromkeys(timeouts[f] for f in grouped):  # one pytest-timeout per process
        same = [f for f in grouped if timeouts[f] == t]
        groups += [same[i:i + batch] for i in range(0, len(same), batch)]
    selected = {f: plan[f][0] for f in todo}  # the cases recorded (the proxy runs fewer)
    for group in groups:
        entries = {f: {"file": f, "fixes": fixes, "case_timeout": timeouts[f],
                       "versions": _versions(f),
                       **({"selection": plan[f][1]} if plan[f][1] else {})} for f in group}
        for side in ("real", "proxy"):
            logs = {f: _case_log(f, side) for f in group}
            # an extended file's recorded outcomes stand (its case log may be gone or newer)
            # (a log's lines of other code are stale: code_fingerprint)
            done = {f: {**read_case_log(logs[f], code_fingerprint()),
                        **_recorded_cases(olds.get(f, {}), side)}
                    for f in group}
            # a file that does not collect is one id (the file) and logs its collection error
            if side == "proxy":  # a case counts only where real torch passes it
                real = {f: {**read_case_log(_case_log(f, "real"), code_fingerprint()),
                            **_recorded_cases(olds.get(f, {}), "real")} for f in group}
                plan.update({f: ([i for i in plan[f][0] if real[f].get(i, {}).get("outcome")
                                  == "PASSED"], plan[f][1]) for f in group})
            ids = [i for f in group for i in _left(f, plan[f][0], done[f])]
            summary, first = "", ""
            if ids:
                res, out = run(ids, proxy=side == "proxy", timeout=side_timeout, fixes=fixes,
                               case_log=os.path.join(record_dir(), "{file}." + side + ".jsonl"),
                               extra=(f"--timeout={timeouts[group[0]]}",))
                summary = ([ln for ln in out.strip().splitlines() if ln.strip()][-1:] or [""])[0]
                # the first exception line (a collection error has no one-line reason in -rA)
                # (qualified or not: "E   torchproxy.errors.ModuleNotProvidedError: ...")
                m = re.search(r"^E\s+((?:\w+\.)*\w*(?:Error|Exception)\b.*)$", out,
                              re.MULTILINE)
                first = m.group(1)[:300] if m else ""
            for f in group:
                cases = {**read_case_log(logs[f], code_fingerprint()),
                         **_recorded_cases(olds.get(f, {}), side)}
                if selected[f] != [f]:  # an earlier run with another selection logged more
                    cases = {k: c for k, c in cases.items() if k in selected[f] or k == f}
                e = entries[f]
                e[side] = {k: c["outcome"] for k, c in cases.items()}
                e[side + "_messages"] = {k: c["message"] for k, c in cases.items()
                                         if c["outcome"] != "PASSED" and c["message"]}
                e[side + "_durations"] = {k: c["duration"] for k, c in cases.items()}
                e[side + "_cpu"] = {k: c.get("cpu") for k, c in cases.items()}
                unfinished = _left(f, plan[f][0], cases)
                if unfinished:
                    e[side + "_unfinished"] = unfinished
                own = len(group) == 1 and ids and f not in olds
                e[side + "_summary"] = summary[-300:] if own else (_counts(cases) + (
                    " (batched run)" if len(group) > 1 else " (extended)" if f in olds
                    else " (case log)") if cases
                    else "not run: no case to run (real torch passed none)")
                if own or f not in olds:
                    e[side + "_first_error"] = first if own else ""
                else:  # this run's, when it ran the file alone, else the recorded one
                    e[side + "_first_error"] = ((first if len(group) == 1 else "")
                                                or olds[f].get(side + "_first_error", ""))
            log(f"{' '.join(os.path.basename(f) for f in group)} [{side}]: "
                f"{summary[-200:] or 'all cases logged already'}")
        for f in group:
            _save(f, entries[f])


def _reason(k, entry):
    if k in KNOWN_PROXY_FAILURES:
        return "known: " + KNOWN_PROXY_FAILURES[k]
    if k not in entry["proxy"]:  # the side's pytest stopped before the case (a conftest error)
        return ("no outcome: the proxy side's pytest reported none for it; its first error: "
                + (entry.get("proxy_first_error") or entry.get("proxy_summary") or "none"))
    return entry["proxy_messages"].get(k) or entry["proxy"][k]


def _load_records():
    """(the sdist's test files, {file: its committed record}) from docs/results/liger-suite/."""
    if not os.path.isfile(INDEX):
        raise FileNotFoundError(f"{INDEX} is missing: `liger_suite.py --record` writes it")
    with open(INDEX) as fh:
        files = json.load(fh)["files"]
    records = {}
    for f in files:
        if os.path.isfile(_record_path(f)):
            with open(_record_path(f)) as fh:
                records[f] = json.load(fh)
    return files, records


def _vstr(v):
    return (f"Paddle {v['paddle']}, torch {v['torch']}, triton {v['triton']}, "
            f"transformers {v['transformers']}")


def write_md(path=RESULTS_MD):
    files, records = _load_records()
    counted = {}  # the versions most files ran with: the header's; a file with others says so
    for e in records.values():
        key = tuple(sorted(e["versions"].items()))
        counted[key] = counted.get(key, 0) + 1
    main = dict(max(counted, key=counted.get)) if counted else None
    rows, fails, missing = [], [], []
    tot_real = tot_ok = tot_both = 0
    for f in files:
        if f not in records:
            missing.append(f)
            continue
        e = records[f]
        ok = sorted(k for k, v in e["real"].items() if v == "PASSED")
        both = [k for k in ok if e["proxy"].get(k) == "PASSED"]
        ran = [k for k, v in e["real"].items() if v != "SKIPPED"]  # -rA folds skips per reason
        tot_real += len(ran)
        tot_ok += len(ok)
        tot_both += len(both)
        note = ""
        other = {k: v for k, v in e["versions"].items() if v != main[k]}
        if other:
            note += ("run with " + ", ".join(f"{k} {v}" for k, v in sorted(other.items()))
                     + f": {FILE_NOTES.get(f, '')} ")
        if e.get("selection") and len(e["selection"].get("max_cases", ())) > 1:
            sel = e["selection"]  # extended (--record --extend --max-cases=N)
            runnable = sel["collected"] - sel["skipped_at_collection"]
            note += (f"selection: {sel['cases']} of {sel['collected']} collected cases (the "
                     "union of the `--max-cases` selections of "
                     f"{', '.join(map(str, sel['max_cases']))} cases, each evenly spaced over "
                     + (f"the {runnable} its skip markers do not skip here). " if runnable else
                        "them; its skip markers skip all of them here). "))
        elif e.get("selection"):
            sel = e["selection"]
            runnable = sel["collected"] - sel["skipped_at_collection"]
            note += (f"selection: {sel['cases']} of {sel['collected']} collected cases "
                     f"(`--max-cases`, evenly spaced over the {runnable} its skip markers do "
                     "not skip here). " if runnable else
                     f"selection: {sel['cases']} of {sel['collected']} collected cases "
                     "(`--max-cases`, evenly spaced; its skip markers skip all of them here). ")
        if e["case_timeout"] != TIMEOUT_PER_TEST:
            note += f"per-case timeout {e['case_timeout']} s. "
        if e.get("bf16_rerecorded"):
            note += (f"{len(e['bf16_rerecorded'])} bfloat16 cases recorded again under the "
                     "interpreter's bf16 fix (`--rerecord-bf16`). ")
        if e.get("proxy_rechecked"):
            note += (f"the proxy side of {len(e['proxy_rechecked'])} cases it had failed was run "
                     "again after a fix (`--recheck-proxy`). ")
        if f in REAL_TORCH_FAILS:
            note += f"real torch fails: {REAL_TORCH_FAILS[f]} "
        for side in ("real", "proxy"):
            if e.get(side + "_unfinished"):
                note += (f"{len(e[side + '_unfinished'])} planned cases not reached on the "
                         f"{side} side (stopped at its time limit). ")
        slow = [m for m in e.get("real_messages", {}).values() if m.startswith("Failed: Timeout")]
        if slow:  # pytest-timeout's message names its limit: "Failed: Timeout (>180.0s) ..."
            limits = sorted({m.split("(", 1)[-1].split(")")[0] for m in slow})
            note += (f"{len(slow)} timed out on real torch at the per-case limit "
                     f"({', '.join(limits)}, wall clock, on a loaded machine). ")
        if not ok:  # pytest's last line ("11 skipped ...") and the first exception, if any
            note += "real torch passes none: " + "; ".join(
                x for x in (e["real_summary"], e.get("real_first_error")) if x)[:250]
        rows.append(f"| `{os.path.basename(f)}` | {len(ran)} | {len(ok)} | {len(both)} | "
                    f"{note.replace('|', '/')} |")
        fails += [f"- `{k[len(_T):]}`: {_reason(k, e)}".replace("\n", " ")
                  for k in ok if e["proxy"].get(k) != "PASSED"]
    lines = [
        f"# Liger-Kernel {VERSION}'s test/transformers under real torch and under torchproxy (CPU)",
        "",
        "Generated by `python tests/clients/liger_suite.py --write-md` from the runs that "
        "`python tests/clients/liger_suite.py --record` recorded (file by file, each side in its "
        "own pytest process, Triton's interpreter, TRITON_INTERPRET=1, torchproxy's interpreter "
        f"fixes on both sides, per-case timeout {TIMEOUT_PER_TEST} s unless a file's note says "
        "otherwise; the proxy side runs the cases real torch passed). Each file's outcomes are "
        "kept in `docs/results/liger-suite/<file>.json` (committed; delete one to record that "
        "file again). A file recorded with `--record --max-cases=N` ran N of its cases (its note "
        "says so), evenly spaced over pytest's collection order among the cases that their own "
        "skip/skipif markers do not skip on this machine (pytest's evaluation of those markers, "
        "done at collection; a skip called inside a test's body cannot be known without running "
        "it). `--record --extend --max-cases=M` adds to a file's recorded cases those of the "
        "even selection of M it lacks (its note then names every `--max-cases` it was recorded "
        "with: the cases are their union), `--record --extend` all the cases it lacks (the file "
        "is then recorded whole); the cases recorded already are not run again. "
        "Do not edit by hand.",
        "",
        (_vstr(main) if main else "nothing recorded") + " (unless a file's note says "
        "otherwise).",
        "",
        f"**Total over {len(rows)} recorded files: real torch runs {tot_real} cases (not "
        f"skipped; a collection error counts as one) and passes "
        f"{tot_ok}; the proxy passes {tot_both} of those {tot_ok}.**  A case counts only where "
        "real torch passes it.",
        "",
        "| file | cases run on real torch | real torch passes | proxy passes of those | note |",
        "| --- | ---: | ---: | ---: | --- |",
        *rows,
        "",
        f"## Cases real torch passes and the proxy does not ({len(fails)})",
        "",
        *(fails or ["none"]),
        "",
        f"## Files not recorded yet ({len(missing)})",
        "",
        *([f"- `{os.path.basename(f)}`" for f in missing] or ["none"]),
        "",
    ]
    with open(path, "w") as fh:
        fh.write("\n".join(lines))
    return tot_ok, tot_both, missing


def _positive(text):
    n = int(text)
    if n < 1:
        raise ValueError(text)
    return n


_positive.__name__ = "positive integer"  # argparse's "invalid positive integer value: '0'"

RECORD_ONLY = ("extend", "max_cases", "batch", "side_timeout", "case_timeout")


def _test_file(f):
    """A test file as the records name it (``test_x.py`` -> ``test/transformers/test_x.py``)."""
    return f if f.startswith(_T) else _T + os.path.basename(f)


def _load_record(f):
    """(the file's record name, its record); exits naming the file when it is not recorded."""
    f = _test_file(f)
    path = _record_path(f)
    if not os.path.isfile(path):
        raise SystemExit(f"liger_suite.py: {f} is not recorded ({path} does not exist)")
    with open(path) as fh:
        return f, json.load(fh)


def _rerun(f, e, ids, proxy):
    """Run ``ids`` of the recorded file ``f`` again on one side, under its recorded conditions
    (``e``: its record), into a temporary case log; -> that log's cases."""
    tmp = tempfile.mkdtemp(prefix="liger-rerun-")
    try:
        log_path = os.path.join(tmp, "{file}.jsonl")
        run(ids, proxy=proxy, fixes=e["fixes"], case_log=log_path,
            extra=(f"--timeout={e['case_timeout']}",))
        return read_case_log(log_path.replace("{file}", os.path.basename(f)))
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def recheck_proxy(f):
    """Run the proxy side again on the cases of the recorded file ``f`` that real torch passed
    and the proxy did not (after a facade fix), under the file's recorded conditions; each
    outcome, message, duration and CPU time replaces the recorded one, and the file's
    ``proxy_rechecked`` list (named in its md note) gains the ids."""
    f, e = _load_record(f)
    ids = [k for k, v in e["real"].items() if v == "PASSED" and e["proxy"].get(k) != "PASSED"]
    if not ids:
        return f"{os.path.basename(f)}: no case to recheck"
    cases = _rerun(f, e, ids, proxy=True)
    # a case the rerun did not reach (stopped) keeps its recorded outcome
    _replace_side(e, "proxy", [k for k in ids if k in cases], cases)
    e["proxy_rechecked"] = sorted(set(e.get("proxy_rechecked", [])) | set(cases) & set(ids))
    _save(f, e)
    now = [k for k in ids if e["proxy"].get(k) == "PASSED"]
    return f"{os.path.basename(f)}: rechecked {len(ids)} proxy cases, {len(now)} now pass"


def collect_bf16(files):
    """The collected cases of ``files`` whose parameters hold torch.bfloat16, as real torch's
    pytest collects them (torchproxy_early's $TORCHPROXY_COLLECT_BF16; one process per
    environment: the transformers-5 files apart)."""
    out = []
    for part in ([f for f in files if f in TRANSFORMERS5_FILES],
                 [f for f in files if f not in TRANSFORMERS5_FILES]):
        if part:
            out += _collect_only(part, True, "TORCHPROXY_COLLECT_BF16", "bfloat16 list")[1]
    return out


def _replace_side(e, side, ids, cases):
    """``cases`` (a case log's) replace the recorded outcomes of ``ids`` on ``side``; an id
    with no new outcome loses its old one (the proxy side runs only what real torch passes)."""
    for k in ids:
        for key in ("_messages", "_durations", "_cpu"):
            e.setdefault(side + key, {}).pop(k, None)
        c = cases.get(k)
        if c is None:
            e[side].pop(k, None)
            continue
        e[side][k] = c["outcome"]
        if c["outcome"] != "PASSED" and c["message"]:
            e[side + "_messages"][k] = c["message"]
        e[side + "_durations"][k] = c["duration"]
        e[side + "_cpu"][k] = c.get("cpu")


def rerecord_bf16(f, bf16_ids):
    """Record again, on both sides, the cases of the recorded file ``f`` that are in
    ``bf16_ids`` (collect_bf16's) and that its record ran on real torch (not skipped): the ones
    the interpreter's bf16 fix (torchproxy/integrations/triton_interpreter_bf16.py) can change,
    recorded before it existed.  Real torch first, then the proxy on those real torch passes,
    under the file's recorded conditions; the record's ``bf16_rerecorded`` lists the ids (named
    in its md note).  The other cases hold no bfloat16 tensor by their parameters and keep their
    outcomes."""
    f, e = _load_record(f)
    wanted = set(bf16_ids)
    ids = [k for k, v in e["real"].items() if k in wanted and v != "SKIPPED"]
    if not ids:
        return f"{os.path.basename(f)}: no bfloat16 case ran on real torch"
    before = sum(e["real"][k] == "PASSED" and e["proxy"].get(k) == "PASSED" for k in ids)
    _replace_side(e, "real", ids, _rerun(f, e, ids, proxy=False))
    passed = [k for k in ids if e["real"].get(k) == "PASSED"]
    # the proxy runs what real torch passes; an id it does not run loses its old outcome
    _replace_side(e, "proxy", ids, _rerun(f, e, passed, proxy=True) if passed else {})
    e["bf16_rerecorded"] = sorted(set(e.get("bf16_rerecorded", [])) | set(ids))
    _save(f, e)
    after = sum(e["real"][k] == "PASSED" and e["proxy"].get(k) == "PASSED" for k in ids)
    return (f"{os.path.basename(f)}: {len(ids)} bfloat16 cases recorded again: real torch "
            f"passes {len(passed)}, both sides {after} (before: {before})")


def parse_args(argv):
    """The command line (the forms of this module's docstring); an unknown option, or one that
    does not go with the others, exits with argparse's usage error (status 2)."""
    p = argparse.ArgumentParser(
        prog="liger_suite.py", allow_abbrev=False,
        description="Liger-Kernel's test/transformers under real torch and under torchproxy "
        "(the forms are described in this script's docstring). With no argument: the CI "
        "selection, both sides, counts.")
    p.add_argument("ids", nargs="*", metavar="ID",
                   help="pytest ids (relative to the sdist's root, e.g. "
                   "test/transformers/test_rope.py); with --record: test files")
    p.add_argument("--full", action="store_true", help="the files measured for the report")
    p.add_argument("--no-interpreter-fix", action="store_true",
                   help="Triton's interpreter as is (no torchproxy fixes, either side)")
    p.add_argument("--write-md", action="store_true",
                   help=f"write {os.path.relpath(RESULTS_MD, ROOT)} from the records")
    p.add_argument("--recheck-proxy", action="store_true",
                   help="run the proxy side again on the recorded cases of the FILES (ids) "
                   "that real torch passed and the proxy did not, after a fix; their outcomes "
                   "replace the recorded ones")
    p.add_argument("--rerecord-bf16", action="store_true",
                   help="record again, both sides, the recorded cases of the FILES (ids; "
                   "default: every recorded file) whose parameters hold torch.bfloat16, under "
                   "the interpreter's bf16 fix")
    p.add_argument("--record", action="store_true",
                   help="file by file, both sides, each file's outcomes kept (resumable)")
    p.add_argument("--extend", action="store_true",
                   help="with --record: grow recorded selections (to --max-cases' even "
                   "selection, or to the whole file), running only the cases not recorded")
    p.add_argument("--max-cases", type=_positive, metavar="N",
                   help="with --record: at most N cases a file, evenly spaced")
    p.add_argument("--batch", type=_positive, metavar="K",
                   help="with --record: K files a pytest process (default 1)")
    p.add_argument("--side-timeout", type=_positive, metavar="S",
                   help=f"with --record: a side stops after S s (default {FILE_TIMEOUT})")
    p.add_argument("--case-timeout", type=_positive, metavar="S",
                   help=f"with --record: pytest-timeout per case (default {TIMEOUT_PER_TEST}, "
                   "or an extended file's recorded one)")
    a = p.parse_args(argv)
    if not a.record:
        given = [o for o in RECORD_ONLY if getattr(a, o) not in (None, False)]
        if given:
            p.error(f"--{given[0].replace('_', '-')} goes only with --record")
    if a.recheck_proxy and (a.record or a.full or a.write_md or not a.ids):
        p.error("--recheck-proxy takes the recorded test files to recheck, nothing else")
    if a.rerecord_bf16 and (a.record or a.full or a.write_md or a.recheck_proxy):
        p.error("--rerecord-bf16 takes recorded test files (or none: all of them), nothing else")
    if a.write_md and (a.record or a.full or a.ids or a.no_interpreter_fix):
        p.error("--write-md takes no other argument (it reads the records, runs nothing)")
    if a.full and (a.ids or a.record):
        p.error("--full names its own files: no ID and no --record with it")
    return a


def main(argv):
    a = parse_args(argv)
    fixes = not a.no_interpreter_fix
    if a.write_md:
        ok, both, missing = write_md()
        print(f"{RESULTS_MD}: real torch passes {ok}, the proxy {both} of those; "
              f"{len(missing)} files not recorded")
        return 0
    if a.recheck_proxy:
        for f in a.ids:
            print(recheck_proxy(f), flush=True)
        return 0
    if a.rerecord_bf16:
        files = a.ids or [f for f in all_files() if os.path.isfile(_record_path(f))]
        files = [_test_file(f) for f in files]
        bf16 = collect_bf16(files)
        for f in files:
            print(rerecord_bf16(f, bf16), flush=True)
        return 0
    if a.record:
        record(a.ids or all_files(), fixes, log=lambda m: print(m, flush=True),
               max_cases=a.max_cases, batch=a.batch or 1,
               side_timeout=a.side_timeout or FILE_TIMEOUT, case_timeout=a.case_timeout,
               extend=a.extend)
        return 0
    ids = a.ids or (FULL if a.full else SELECTED)
    real, proxy, out = compare(ids, fixes)
    ok = sorted(k for k, v in real.items() if v == "PASSED")
    both = [k for k in ok if proxy.get(k) == "PASSED"]
    print(f"real torch passes {len(ok)} of {len(real)} reported cases; the proxy passes "
          f"{len(both)} of those {len(ok)}")
    for k in ok:
        if proxy.get(k) != "PASSED":
            print(f"  proxy {proxy.get(k, 'missing')}: {k}\n      known: "
                  f"{KNOWN_PROXY_FAILURES.get(k, 'NO')}")
    tail = out[out.find("torchproxy ====="):] if "torchproxy =====" in out else ""
    print(tail[:3000])
    return 0 if len(both) == len(ok) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
