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
    python tests/clients/liger_suite.py test/transformers/test_rope.py   # any pytest ids
    python tests/clients/liger_suite.py --no-interpreter-fix ...  # Triton's interpreter as is

Both sides load tests/clients/torchproxy_early.py, which applies torchproxy's fixes to Triton's
CPU interpreter (the same on both sides; without them real torch fails most of Liger's kernels
there: "'float' object has no attribute 'to'") and, on the proxy side, enables the scope before
Liger's conftest runs.
"""
from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
import tarfile

VERSION = "0.8.5"
SDIST = f"liger_kernel-{VERSION}.tar.gz"
SHA256 = "4e8f8f611a8ad735c37c989410d09820bb08881f131851a3967c34baa7889d66"
HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
TIMEOUT_PER_TEST = 60  # seconds (pytest-timeout): the interpreter on a loaded 2-core machine

# The CI selection: small CPU cases of every file whose kernels run in Triton's interpreter
# under real torch (the survey of all 2372 tests: see the report).  Ids as pytest prints them.
SELECTED = [
    "test/transformers/test_softmax.py",
    "test/transformers/test_sparsemax.py",
    "test/transformers/test_relu_squared.py",
    "test/transformers/test_poly_norm.py",
]


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


def _scope(ids):
    mods = sorted({os.path.splitext(os.path.basename(i.split("::")[0]))[0] for i in ids})
    return ",".join(["liger_kernel", "triton", "test", *mods])


_LINE = re.compile(r"^(PASSED|FAILED|ERROR|SKIPPED|XFAIL|XPASS) (\S+)")


def run(ids, proxy: bool, extra=(), timeout=1800, fixes=True):
    """pytest on ``ids`` in the sdist; returns ({nodeid: outcome}, output).  ``fixes``: apply
    torchproxy's Triton-interpreter fixes on this side (both sides get the same)."""
    root = sources()
    env = dict(os.environ, TRITON_INTERPRET="1", PYTHONDONTWRITEBYTECODE="1",
               TORCHPROXY_INTERPRETER_FIXES="1" if fixes else "0",
               PYTHONPATH=os.pathsep.join([ROOT, HERE, os.environ.get("PYTHONPATH", "")]))
    env.pop("TORCHPROXY_EARLY_SCOPE", None)
    args = [sys.executable, "-m", "pytest", *ids, "-q", "-rA", "-p", "no:cacheprovider",
            "-o", "addopts=", "-o", "log_cli=false", f"--timeout={TIMEOUT_PER_TEST}",
            "-p", "torchproxy_early", *extra]
    if proxy:
        scope = _scope(ids)
        env["TORCHPROXY_EARLY_SCOPE"] = scope
        args += ["-p", "torchproxy.pytest_plugin", f"--torchproxy-scope={scope}"]
    r = subprocess.run(args, cwd=root, env=env, capture_output=True, text=True, timeout=timeout)
    out = r.stdout + r.stderr
    results = {}
    for line in out.splitlines():
        m = _LINE.match(line)
        if m:
            results.setdefault(m.group(2), m.group(1))
    return results, out


def compare(ids, fixes=True):
    """(real results, proxy results, proxy output)."""
    real, _ = run(ids, proxy=False, fixes=fixes)
    proxy, out = run(ids, proxy=True, fixes=fixes)
    return real, proxy, out


def main(argv):
    fixes = "--no-interpreter-fix" not in argv
    ids = [a for a in argv if a != "--no-interpreter-fix"] or SELECTED
    real, proxy, out = compare(ids, fixes)
    ok = sorted(k for k, v in real.items() if v == "PASSED")
    both = [k for k in ok if proxy.get(k) == "PASSED"]
    print(f"real torch passes {len(ok)} of {len(real)} reported cases; the proxy passes "
          f"{len(both)} of those {len(ok)}")
    for k in ok:
        if proxy.get(k) != "PASSED":
            print(f"  proxy {proxy.get(k, 'missing')}: {k}")
    tail = out[out.find("torchproxy ====="):] if "torchproxy =====" in out else ""
    print(tail[:3000])
    return 0 if len(both) == len(ok) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
