"""A user's path into their own environment, as the README writes it: the install lines of its
"Install" section are read from README.md and run verbatim, one by one, with bash in a copy of
the clone (its tracked and untracked files, not the build outputs), inside a FRESH virtual
environment that has only the CPU Paddle (no real torch).  Then, from the installed package
only (outside the clone): `torchproxy doctor`, a Triton kernel on Paddle CPU tensors, `torchproxy
coverage` (its data files are package data), the README's `[pytest]` extra line and the pytest
plugin on a user's test file, `torchproxy matrix` (not in the package: one line), and the wheel's
contents (only `torchproxy`).  Needs the package index (Paddle, Triton and the
build backend); skipped, saying so, when it is offline."""
import os
import re
import shutil
import subprocess
import sys
import textwrap
import time
import zipfile

import pytest

from matrix_testpaths import ROOT

PADDLE = "paddlepaddle==3.3.1"
OFFLINE = ("NewConnectionError", "Temporary failure", "Could not find a version",
           "Network is unreachable", "No matching distribution")

# a user's own kernel module: kernels/ is repository-only, not in the package
USER_KERNELS = textwrap.dedent('''
    import torch
    import triton
    import triton.language as tl


    @triton.jit
    def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
        offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
        m = offs < n
        tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m),
                 mask=m)


    @triton.jit
    def rowmax_kernel(x_ptr, out_ptr, n_cols, BLOCK: tl.constexpr):
        row = tl.program_id(0)
        offs = tl.arange(0, BLOCK)
        x = tl.load(x_ptr + row * n_cols + offs, mask=offs < n_cols, other=-float("inf"))
        tl.store(out_ptr + row, tl.max(x, axis=0))


    def add(x, y):
        out = torch.empty_like(x)
        n = out.numel()
        add_kernel[(triton.cdiv(n, 128),)](x, y, out, n, BLOCK=128)
        return out


    def rowmax(x):
        rows, cols = x.shape
        out = torch.empty(rows, dtype=x.dtype, device=x.device)
        rowmax_kernel[(rows,)](x, out, cols, BLOCK=triton.next_power_of_2(cols))
        return out
''')

USER_SCRIPT = textwrap.dedent('''
    import os
    os.environ["TRITON_INTERPRET"] = "1"          # CPU: Triton's interpreter
    import numpy as np
    import torchproxy
    import paddle
    from torchproxy.integrations.triton_interpreter import ensure_fixes
    ensure_fixes()
    torchproxy.enable(scope={"userkernels", "triton"})
    from userkernels import add, rowmax
    a = np.random.default_rng(0).standard_normal((4, 100)).astype("float32")
    b = np.random.default_rng(1).standard_normal((4, 100)).astype("float32")
    x, y = paddle.to_tensor(a), paddle.to_tensor(b)
    s = add(x, y)
    assert isinstance(s, paddle.Tensor), type(s)
    np.testing.assert_allclose(s.numpy(), a + b, rtol=1e-6)
    np.testing.assert_array_equal(rowmax(x).numpy(), a.max(-1))
    try:
        import torch  # this module is not in scope, and real torch is not installed
        raise SystemExit("real torch importable: " + repr(torch))
    except ImportError:
        pass
    print("USER-PATH-OK")
''')


def readme_install_lines() -> list[str]:
    """The command lines of the first ```bash block of README.md's "## Install" section,
    without their comments."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    section = text.split("\n## Install", 1)[1].split("\n## ", 1)[0]
    block = re.search(r"```bash\n(.*?)```", section, re.S).group(1)
    lines = []
    for line in block.splitlines():
        code = re.sub(r"\s+#.*$", "", line).strip()
        if code:
            lines.append(code)
    return lines


def readme_pytest_extra_line() -> str:
    """The install command of README.md's "Using it" row for the pytest plugin."""
    text = open(os.path.join(ROOT, "README.md"), encoding="utf-8").read()
    return re.search(r"^\| run a library's own test suite on the proxy \| `([^`]+)`", text,
                     re.M).group(1)


# a user's test file for their kernels, run by the plugin from the installed package (pytest
# comes from the `[pytest]` extra only: the fresh venv has no other)
USER_TEST = textwrap.dedent('''
    import numpy as np
    import paddle
    from userkernels import add


    def test_add_on_paddle_tensors():
        x = paddle.to_tensor(np.arange(10, dtype="float32"))
        np.testing.assert_array_equal(add(x, x).numpy(), 2 * np.arange(10, dtype="float32"))
''')


def _run(cmd, timeout, **kw):
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, **kw)


def _copy_clone(dest):
    """The clone as a user has it: tracked and untracked files, without ignored build outputs."""
    files = _run(["git", "ls-files", "-co", "--exclude-standard", "-z"], 60, cwd=ROOT).stdout
    for rel in filter(None, files.split("\0")):
        src = os.path.join(ROOT, rel)
        if os.path.isfile(src):
            os.makedirs(os.path.join(dest, os.path.dirname(rel)), exist_ok=True)
            shutil.copy2(src, os.path.join(dest, rel))
    return dest


def test_readme_install_block_is_what_ci_runs():
    assert readme_pytest_extra_line() == 'pip install ".[pytest]"'
    lines = readme_install_lines()
    assert lines[0] == 'pip install ".[triton]"', lines
    assert any(line.startswith("pip wheel") for line in lines), lines
    assert lines[-1] == "torchproxy doctor", lines


def test_every_data_file_of_the_package_is_package_data():
    # offline half of the check below (which needs the package index): a file under torchproxy/
    # that is neither Python nor a source or header of a C extension setup.py compiles is read
    # at run time, so the wheel must carry it (torch_layout.json once was missing, and a user
    # install failed at import)
    import re
    import tomllib
    from pathlib import Path
    with open(os.path.join(ROOT, "pyproject.toml"), "rb") as f:
        globs = tomllib.load(f)["tool"]["setuptools"]["package-data"]["torchproxy"]
    with open(os.path.join(ROOT, "setup.py")) as f:
        compiled = set(re.findall(r'"(torchproxy/[\w/]+\.[ch])"', f.read()))  # sources, headers
    assert {"torchproxy/_dispatch.c", "torchproxy/_dlpack_exchange.c"} <= compiled
    pkg = Path(ROOT, "torchproxy")
    declared = {p.relative_to(pkg).as_posix() for g in globs for p in pkg.glob(g)}
    tracked = _run(["git", "ls-files", "torchproxy"], 60, cwd=ROOT).stdout.split()
    data = {t.removeprefix("torchproxy/") for t in tracked
            if not t.endswith(".py") and t not in compiled}
    assert data and data - declared == set()


def test_readme_install_lines_in_a_fresh_venv_with_cpu_paddle(tmp_path):
    t0 = time.time()
    clone = _copy_clone(str(tmp_path / "clone"))
    venv = tmp_path / "venv"
    r = _run([sys.executable, "-m", "venv", str(venv)], 120)
    assert r.returncode == 0, r.stderr
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "TRITON_INTERPRET", "TORCHPROXY_SCOPE", "VIRTUAL_ENV")}
    env["PATH"] = f"{venv / 'bin'}{os.pathsep}{env.get('PATH', '')}"  # the venv, activated
    r = _run([str(venv / "bin" / "python"), "-m", "pip", "install", "-q", PADDLE], 900, env=env)
    if r.returncode != 0 and any(s in r.stderr for s in OFFLINE):
        pytest.skip(f"package index unreachable: {r.stderr.strip().splitlines()[-1][:200]}")
    assert r.returncode == 0, r.stderr[-3000:]

    for line in readme_install_lines():
        r = _run(["bash", "-c", line], 900, cwd=clone, env=env)
        if r.returncode != 0 and any(s in r.stderr for s in OFFLINE):
            pytest.skip(f"package index unreachable: {r.stderr.strip().splitlines()[-1][:200]}")
        assert r.returncode == 0, f"README line failed: {line}\n{r.stdout[-2000:]}{r.stderr[-3000:]}"
        if line == "torchproxy doctor":
            out = r.stdout + r.stderr
            assert "Paddle       3.3.1 (CPU build)" in out, out
            assert "Triton" in out and "interpreter off" in out and "TRITON_INTERPRET=1" in out, out
            assert "real torch   not installed" in out, out
            assert "No ccache found" not in out, out
    installed = time.time() - t0

    # the wheel the README's lines built: one package, and the coverage data with it
    (wheel,) = (tmp_path / "clone" / "dist").glob("torchproxy-0.1.0-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    assert {n.split("/")[0] for n in names} == {"torchproxy", "torchproxy-0.1.0.dist-info"}, \
        sorted({n.split("/")[0] for n in names})
    for data in ("gaps.toml", "verified.json", "tensor_policy.json", "torch_layout.json"):
        assert f"torchproxy/facade/{data}" in names, data

    # outside the clone: only what the wheel installed counts
    user = tmp_path / "user"
    user.mkdir()
    (user / "userkernels.py").write_text(USER_KERNELS)
    (user / "user_script.py").write_text(USER_SCRIPT)
    r = _run([str(venv / "bin" / "python"), "user_script.py"], 600, env=env, cwd=user)
    assert r.returncode == 0 and "USER-PATH-OK" in r.stdout, r.stdout[-2000:] + r.stderr[-3000:]
    assert "No ccache found" not in r.stderr, r.stderr

    cov = _run(["torchproxy", "coverage"], 300, env=env, cwd=user)
    assert cov.returncode == 0, cov.stderr[-2000:]
    gaps = re.search(r"known gaps \((\d+)\)", cov.stdout)
    assert gaps and int(gaps.group(1)) > 0, cov.stdout[-3000:]
    assert "no verification recorded" not in cov.stdout, cov.stdout[-3000:]

    # the pytest plugin: the README's `[pytest]` line in the clone, then the plugin from the
    # installed package on the user's own test file (issue 20: a pytest from elsewhere gave
    # "No module named 'torchproxy'"); pytest's own probes are not reported as missing names
    assert _run([str(venv / "bin" / "python"), "-c", "import pytest"], 60, env=env,
                cwd=user).returncode == 1  # not there before the extra
    line = readme_pytest_extra_line()
    r = _run(["bash", "-c", line], 900, cwd=clone, env=env)
    assert r.returncode == 0, f"README line failed: {line}\n{r.stderr[-3000:]}"
    (user / "test_userkernels.py").write_text(USER_TEST)
    r = _run([str(venv / "bin" / "python"), "-m", "pytest", "-p", "torchproxy.pytest_plugin",
              "--torchproxy-scope=userkernels,triton", "--torchproxy-interpreter-fixes",
              "-p", "no:cacheprovider", "test_userkernels.py"], 600,
             env=dict(env, TRITON_INTERPRET="1"), cwd=user)
    out = r.stdout + r.stderr
    assert r.returncode == 0 and "1 passed" in out, out[-3000:]
    assert "scope: userkernels,triton;" in out and "missing: 0" in out, out[-3000:]

    matrix = _run(["torchproxy", "matrix", "--libs", "liger_kernel"], 300, env=env, cwd=user)
    assert matrix.returncode == 2
    assert matrix.stderr.strip().splitlines() == [
        "torchproxy matrix: the compatibility matrix is not part of the installed package; run "
        "it from a clone of the torchproxy repository: `./dev matrix` (or `torchproxy matrix` "
        "in the clone's folder)"], matrix.stderr
    assert not (user / "reports").exists()
    print(f"install (paddle + the README's lines): {installed:.0f} s, all: {time.time() - t0:.0f} s")
