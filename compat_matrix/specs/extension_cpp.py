"""pytorch/extension-cpp: the reference C++ extension (TORCH_LIBRARY operators ``mymuladd``,
``mymul``, ``myadd_out`` with ``register_fake`` / ``register_autograd`` in Python), unmodified.

Why this library: it is the template every torch C++ operator library starts from (FlashMLA,
DeepGEMM and DeepEP are built the same way); a row here says whether such a library builds
against Paddle's torch-compatible C++ headers (Paddle 3.3+) through
``python -m torchproxy.facade.cpp_extension -- pip install ...`` and then runs under the proxy.

It is built from source twice, from the pinned commit (SHA below: the one pin): once against
real torch (the oracle's build) and once against Paddle; each backend's worker puts its build
first on ``sys.path`` (the ``setup`` hooks below).  Build both with

    python -m compat_matrix.specs.extension_cpp        # fetch + both builds, ~2 min

(the source comes from ``$TORCHPROXY_GIT_MIRRORS/pytorch+extension-cpp/repo`` when that git
mirror has the commit, else GitHub's archive of the commit: the network).  CPU cases: extension-cpp's own CPU tests (test/test_extension.py: sample inputs,
correctness against a * b + c, gradients, myadd_out, the mymul operator through torch.ops).
"""
import os

from compat_matrix.spec import Case, Library, randn, value

SHA = "0ec4969c7bc8e15a8456e5eb9d9ca0a7ec15bc95"   # "uses current CUDAStream correctly (#118)"
_ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
BUILD = os.path.join(_ROOT, "build", "matrix-extension-cpp", SHA[:12])
SITE = {"torch": os.path.join(BUILD, "site-torch"), "paddle": os.path.join(BUILD, "site-paddle")}
_INSTALL = "pip install --no-build-isolation --no-deps --target {site} ."


def _rel(path):
    return "<repo>/" + os.path.relpath(path, _ROOT)  # run from the source tree: absolute there


LIBRARY = Library(
    name="extension_cpp",
    scope=("extension_cpp",),
    requires=("extension_cpp",),           # probed on the Paddle build (pythonpath below)
    imports=("extension_cpp",),
    install=(f"git archive ($TORCHPROXY_GIT_MIRRORS/pytorch+extension-cpp/repo, else GitHub's "
             f"archive) of pytorch/extension-cpp@{SHA} -> "
             f"{_rel(BUILD)}/src",
             "python -m " + _INSTALL.format(site=_rel(SITE["torch"])) + "   # real torch's build",
             "python -m torchproxy.facade.cpp_extension -- python -m "
             + _INSTALL.format(site=_rel(SITE["paddle"])) + "   # Paddle's build",
             "python -m compat_matrix.specs.extension_cpp   # does all three"),
    pythonpath=(os.path.relpath(SITE["paddle"], os.path.dirname(os.path.abspath(__file__))),),
    devices=("cpu", "gpu"),
    setup=(("torch", "*", "compat_matrix.specs.extension_cpp:use_torch_build"),
           ("torchproxy", "*", "compat_matrix.specs.extension_cpp:use_paddle_build"),
           ("paddle_compat", "*", "compat_matrix.specs.extension_cpp:use_paddle_build")),
    notes="C++ extension built from source against real torch and against Paddle's "
          "torch-compatible headers (Paddle >= 3.3)",
)


def _first_on_path(side):
    import sys
    site = SITE[side]
    if not os.path.isdir(os.path.join(site, "extension_cpp")):
        raise RuntimeError(f"extension_cpp is not built for {side} in {site}: run "
                           "python -m compat_matrix.specs.extension_cpp")
    other = SITE["paddle" if side == "torch" else "torch"]
    sys.path[:] = [site] + [p for p in sys.path if os.path.normpath(p) not in (site, other)]


def use_torch_build():
    _first_on_path("torch")


def use_paddle_build():
    _first_on_path("paddle")


def mymuladd(a, b, c):
    import extension_cpp
    return extension_cpp.ops.mymuladd(a, b, c)


def mymuladd_backward(a, b, c, g):
    import torch
    import extension_cpp
    out = extension_cpp.ops.mymuladd(a, b, c)
    return (out,) + torch.autograd.grad(out, [a, b], g)


def mymul(a, b):
    import torch
    import extension_cpp  # noqa: F401 - registers the operators
    return torch.ops.extension_cpp.mymul.default(a, b), torch.ops.extension_cpp.mymul(a, b)


def myadd_out(a, b, o):
    import extension_cpp
    extension_cpp.ops.myadd_out(a, b, o)
    return o


def _muladd(a, b, c):
    return (a * b + c).astype("float32")


CASES = [
    Case("mymuladd", mymuladd, inputs=[randn(3), randn(3), value(1.0)], reference=_muladd),
    Case("mymuladd_2d", mymuladd, inputs=[randn(2, 3), randn(2, 3), value(-0.3)],
         reference=_muladd),
    Case("mymuladd_backward", mymuladd_backward,
         inputs=[randn(20, grad=True), randn(20, grad=True), value(3.14), randn(20)]),
    Case("mymul", mymul, inputs=[randn(4, 5), randn(4, 5)],
         reference=lambda a, b: ((a * b).astype("float32"),) * 2),
    Case("myadd_out", myadd_out, inputs=[randn(20), randn(20), randn(20)],
         reference=lambda a, b, o: (a + b).astype("float32")),
]


MIRRORS_ENV = "TORCHPROXY_GIT_MIRRORS"   # a folder of git mirrors laid out <owner>+<name>/repo
ARCHIVE = f"https://codeload.github.com/pytorch/extension-cpp/tar.gz/{SHA}"


class SourceUnavailable(Exception):
    """The pinned source can be had from neither a mirror nor GitHub: the message says how."""


def _mirror_git_dir():
    """(git directory or None, what was looked at)."""
    base = os.environ.get(MIRRORS_ENV)
    if not base:
        return None, f"{MIRRORS_ENV} unset"
    repo = os.path.join(base, "pytorch+extension-cpp", "repo")
    for path in (repo, os.path.join(repo, ".git")):  # bare, or with a work tree
        if os.path.isdir(path) and os.path.exists(os.path.join(path, "HEAD")):
            return path, path
    return None, f"no git directory at {repo}"


def fetch_source(src: str, sha: str = SHA, marker: str = "setup.py") -> str:
    """Put the source at commit ``sha`` (default: the pin) in ``src`` (kept when its ``marker``
    file is there already): from the git mirror under $TORCHPROXY_GIT_MIRRORS when it has the
    commit, else GitHub's archive of the commit (the network); SourceUnavailable, one line
    saying what to provide, when neither works.  tests/cpp_extension/test_lltm.py fetches the
    classic LLTM's commit with it."""
    import io
    import subprocess
    import tarfile
    import urllib.request

    if os.path.exists(os.path.join(src, marker)):
        return src
    tried = []
    mirror, looked = _mirror_git_dir()
    if mirror:
        r = subprocess.run(["git", "--git-dir", mirror, "archive", sha], capture_output=True)
        if r.returncode == 0:
            os.makedirs(src, exist_ok=True)
            tarfile.open(fileobj=io.BytesIO(r.stdout)).extractall(src)
            return src
        tried.append(f"the mirror {mirror} lacks the commit")
    else:
        tried.append(looked)
    try:
        archive = ARCHIVE if sha == SHA else ARCHIVE.replace(SHA, sha)
        data = urllib.request.urlopen(archive, timeout=60).read()
    except OSError as e:  # URLError, timeouts, DNS: no GitHub from here
        tried.append(f"GitHub unreachable ({getattr(e, 'reason', e)})")
        raise SourceUnavailable(
            f"pytorch/extension-cpp@{sha[:12]} is needed from GitHub (codeload.github.com) or a "
            f"git mirror: set {MIRRORS_ENV} to a folder holding pytorch+extension-cpp/repo with "
            f"that commit. Tried: {'; '.join(tried)}") from None
    os.makedirs(src, exist_ok=True)
    with tarfile.open(fileobj=io.BytesIO(data)) as tf:
        prefix = tf.getnames()[0].split("/")[0] + "/"
        for m in tf.getmembers():
            if m.name.startswith(prefix) and len(m.name) > len(prefix):
                m.name = m.name[len(prefix):]
                tf.extract(m, src)
    return src


def build() -> None:
    """Fetch the pinned source and build it for real torch and for Paddle (skips what exists).

    The two builds run side by side (each is one compiler process: on two cores this halves
    the wait), each into its own log beside its tree; a failed build's log end is printed."""
    import subprocess
    import sys

    src = fetch_source(os.path.join(BUILD, "src"))
    running = []
    for side in ("torch", "paddle"):
        site = SITE[side]
        if os.path.isdir(os.path.join(site, "extension_cpp")):
            print(f"[extension_cpp] {side} build present: {site}")
            continue
        tree = os.path.join(BUILD, f"src-{side}")  # one build tree per side
        subprocess.run(["rm", "-rf", tree], check=True)
        subprocess.run(["cp", "-r", src, tree], check=True)
        cmd = [sys.executable, "-m"] + _INSTALL.format(site=site).split()
        if side == "paddle":
            cmd = [sys.executable, "-m", "torchproxy.facade.cpp_extension", "--"] + cmd
        log = f"{tree}.log"
        print(f"[extension_cpp] building for {side}: {' '.join(cmd)} (log: {log})", flush=True)
        with open(log, "w") as f:
            p = subprocess.Popen(cmd, cwd=tree, env=dict(os.environ, PYTHONPATH=_ROOT),
                                 stdout=f, stderr=subprocess.STDOUT)
        running.append((side, cmd, tree, log, p))
    failed = []
    for side, cmd, tree, log, p in running:
        if p.wait():
            with open(log, errors="replace") as f:
                print(f"[extension_cpp] the {side} build failed; the end of {log}:\n"
                      + "".join(f.readlines()[-30:]), file=sys.stderr)
            failed.append(f"the {side} build failed (exit {p.returncode}): {' '.join(cmd)} "
                          f"in {tree}")
    if failed:
        raise SourceUnavailable("; ".join(failed))


def main() -> int:
    import sys
    try:
        build()
    except SourceUnavailable as e:
        print(f"[extension_cpp] not built: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
