"""A new user's first hour (issue 20): every misstep gets one line that names the fix.

Each test runs what the user ran (the `torchproxy` command line, a script) in a subprocess and
asserts the exact line; the code paths are those of an installed torchproxy."""
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from matrix_testpaths import ROOT

KERNEL = '''
import torch
import triton
import triton.language as tl


@triton.jit
def add_kernel(x_ptr, y_ptr, out_ptr, n, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    m = offs < n
    tl.store(out_ptr + offs, tl.load(x_ptr + offs, mask=m) + tl.load(y_ptr + offs, mask=m), mask=m)


def add(x, y):
    out = torch.empty_like(x)
    add_kernel[(triton.cdiv(out.numel(), 64),)](x, y, out, out.numel(), BLOCK=64)
    return out
'''

SCRIPT = '''
import paddle
from tp_msg_kernels import add
x = paddle.ones([100])
print("SUM", add(x, x).sum().item())
'''

INTERPRETER_OUT_OF_SCOPE = (
    "Triton's interpreter (TRITON_INTERPRET=1) got a Paddle tensor but is not in torchproxy's "
    "scope: add \"triton\" to the scope (enable(scope={..., \"triton\"}), --scope ...,triton or "
    "TORCHPROXY_SCOPE=...,triton), and launch a kernel imported inside a guard while that guard "
    "is active")
NO_DRIVER_CPU = (
    "Triton has no driver on this machine (\"0 active drivers\": no GPU): set TRITON_INTERPRET=1 "
    "before Triton is imported to run kernels in Triton's interpreter, with \"triton\" in "
    "torchproxy's scope (torchproxy doctor checks this machine)")
SCOPE_HELP = ("Expected a comma-separated list of module names (e.g. 'mylib,triton'; each an "
              "identifier or identifiers joined by dots), or '*' for global mode; unset it to "
              "leave torchproxy off.")


def _env(**extra):
    env = {k: v for k, v in os.environ.items()
           if k not in ("TORCHPROXY_SCOPE", "TORCHPROXY_BLOCKED", "TRITON_INTERPRET",
                        "PYTHONPATH")}
    env["PYTHONPATH"] = ROOT
    env.update(extra)
    return env


def _cli(args, cwd, python_args=(), **env):
    return subprocess.run([sys.executable, *python_args, "-m", "torchproxy", *args], cwd=cwd,
                          env=_env(**env), capture_output=True, text=True, timeout=300)


@pytest.fixture
def kernel_dir(tmp_path):
    (tmp_path / "tp_msg_kernels.py").write_text(KERNEL)
    (tmp_path / "script.py").write_text(SCRIPT)
    return tmp_path


def _needs_cpu_only():
    from torchproxy import paddle_shims
    if paddle_shims.has_cuda():
        pytest.skip("a GPU is visible: Triton has a driver here")


def test_interpreter_out_of_scope_is_one_line(kernel_dir):
    r = _cli(["run", "--scope", "tp_msg_kernels", "script.py"], kernel_dir, TRITON_INTERPRET="1")
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.strip().splitlines() == ["torchproxy run: " + INTERPRETER_OUT_OF_SCOPE]
    ok = _cli(["run", "--scope", "tp_msg_kernels,triton", "script.py"], kernel_dir,
              TRITON_INTERPRET="1")
    assert ok.returncode == 0 and "SUM 200.0" in ok.stdout, ok.stdout + ok.stderr


def test_kernel_launched_after_its_guard_exited(kernel_dir):
    (kernel_dir / "guarded.py").write_text(textwrap.dedent('''
        import paddle, torchproxy
        from torchproxy.integrations.triton_messages import InterpreterScopeError
        x = paddle.ones([10])
        with torchproxy.guard(scope={"tp_msg_kernels", "triton"}):
            from tp_msg_kernels import add
            print("INSIDE", add(x, x).sum().item())
        try:
            add(x, x)
        except InterpreterScopeError as e:
            print("OUTSIDE", e)
    '''))
    r = subprocess.run([sys.executable, "guarded.py"], cwd=kernel_dir, capture_output=True,
                       text=True, timeout=300, env=_env(TRITON_INTERPRET="1"))
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines() == ["INSIDE 20.0", "OUTSIDE " + INTERPRETER_OUT_OF_SCOPE]


def test_no_driver_says_to_use_the_interpreter(kernel_dir):
    _needs_cpu_only()
    r = _cli(["run", "--scope", "tp_msg_kernels,triton", "script.py"], kernel_dir)
    assert r.returncode == 1, r.stdout + r.stderr
    assert r.stderr.strip().splitlines() == ["torchproxy run: " + NO_DRIVER_CPU]


def test_no_driver_message_only_while_enabled(kernel_dir):
    # after disable(), Triton's own error and sys.meta_path exactly as before enable()
    _needs_cpu_only()
    (kernel_dir / "toggle.py").write_text(textwrap.dedent('''
        import sys
        import paddle, torchproxy
        before = list(sys.meta_path)
        torchproxy.enable(scope={"tp_msg_kernels", "triton"})
        from tp_msg_kernels import add
        x = paddle.ones([10])
        try:
            add(x, x)
        except RuntimeError as e:
            print("ON", type(e).__name__, str(e)[:40])
        torchproxy.disable()
        print("META", sys.meta_path == before)
        d = sys.modules["triton.runtime.driver"]  # the module (the package attribute is a config)
        try:
            d._create_driver()
        except RuntimeError as e:
            print("OFF", type(e).__name__, str(e))
    '''))
    r = subprocess.run([sys.executable, "toggle.py"], cwd=kernel_dir, capture_output=True,
                       text=True, timeout=300, env=_env())
    assert r.returncode == 0, r.stdout + r.stderr
    assert r.stdout.splitlines() == [
        "ON NoDriverError " + NO_DRIVER_CPU[:40], "META True",
        "OFF RuntimeError 0 active drivers ([]). There should only be one."]


def test_bad_scope_variable_status_and_doctor_still_run(tmp_path):
    msg = ("TORCHPROXY_SCOPE=',,' is not valid: ',,' names no module (expected e.g. 'mylib' or "
           "'a,b'). " + SCOPE_HELP)
    status = _cli(["status"], tmp_path, TORCHPROXY_SCOPE=",,")
    assert status.returncode == 0, status.stderr
    assert status.stderr.strip().splitlines() == ["torchproxy status: " + msg]
    assert status.stdout.splitlines()[0].split() == ["enabled", "False"]
    doctor = _cli(["doctor"], tmp_path, TORCHPROXY_SCOPE=",,")
    assert doctor.returncode == 1 and doctor.stderr == "", doctor.stderr
    assert doctor.stdout.strip().splitlines()[-1] == "PROBLEM: " + msg
    run = _cli(["run", "--scope", "x", "x.py"], tmp_path, TORCHPROXY_SCOPE=",,")
    assert run.returncode == 2 and run.stderr.strip().splitlines() == ["torchproxy run: " + msg]


def test_bad_blocked_variable_says_what_unsetting_does(tmp_path):
    r = _cli(["status"], tmp_path, TORCHPROXY_BLOCKED="a-b")
    assert r.stderr.strip().splitlines() == [
        "torchproxy status: TORCHPROXY_BLOCKED='a-b' is not valid: 'a-b' is not a module name "
        "(expected e.g. 'liger_kernel' or 'pkg.sub': identifiers joined by dots). Expected a "
        "comma-separated list of module names (e.g. 'tvm_ffi,otherlib'); unset it to block only "
        "the default modules (tvm_ffi)."]


def test_a_user_script_still_gets_the_error(tmp_path):
    # only the command line reports and goes on: a program importing torchproxy must not run
    # with a torch it did not ask for
    r = subprocess.run([sys.executable, "-c", "import torchproxy"], cwd=tmp_path,
                       env=_env(TORCHPROXY_SCOPE=",,"), capture_output=True, text=True,
                       timeout=300)
    assert r.returncode == 1
    assert r.stderr.strip().splitlines()[-1].startswith(
        "torchproxy.errors.ConfigurationError: TORCHPROXY_SCOPE=',,' is not valid")


def test_empty_scope_option_is_refused_like_commas(tmp_path):
    for value in ("", ",,"):
        r = _cli(["run", "--scope", value, "x.py"], tmp_path)
        assert r.returncode == 2
        assert r.stderr.strip().splitlines() == [
            f"torchproxy run: --scope {value!r} names no module (expected e.g. 'mylib' or 'a,b')"]


def test_doctor_runs_without_paddle(tmp_path):
    # python -S: no site-packages, so no Paddle (and nothing else installed) is importable
    hint = ("install PaddlePaddle >= 2.6.2 first: `pip install paddlepaddle` (CPU) or the GPU "
            "build for your CUDA version (`pip install paddlepaddle-gpu`, see "
            "paddlepaddle.org.cn/install)")
    r = _cli(["doctor"], tmp_path, python_args=("-S",))
    assert r.returncode == 1 and r.stderr == "", r.stderr
    lines = r.stdout.strip().splitlines()
    assert lines[0] == "Paddle       NOT IMPORTABLE (see PROBLEM below)"
    assert "real torch   not installed" in lines
    assert lines[-1] == ("PROBLEM: Paddle cannot be imported (ModuleNotFoundError: No module "
                         "named 'paddle'); " + hint)
    other = _cli(["status"], tmp_path, python_args=("-S",))
    assert other.returncode == 2
    assert other.stderr.strip().splitlines() == [
        "torchproxy status: PaddlePaddle is not installed; " + hint]


def test_refused_matrix_leaves_no_reports_folder(tmp_path):
    r = subprocess.run([sys.executable, "-m", "compat_matrix", "--libs", "nosuchlib", "--out",
                        str(tmp_path / "reports")], cwd=ROOT, env=_env(), capture_output=True,
                       text=True, timeout=300)
    assert r.returncode == 2
    assert r.stderr.strip().splitlines()[-1].startswith("error: unknown libraries ['nosuchlib']")
    assert not (tmp_path / "reports").exists()


def test_torchproxy_matrix_unknown_library_is_one_line(tmp_path):
    # what the user typed (the issue's `torchproxy matrix --libs nosuchlib`), from a clone
    # (PYTHONPATH: the clone's root, where compat_matrix/ lives) in a folder of their own: the
    # refusal is the only line (no progress note first) and no reports/ folder is left
    r = _cli(["matrix", "--libs", "nosuchlib"], tmp_path)
    assert r.returncode == 2, r.stdout + r.stderr
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith(
        "error: unknown libraries ['nosuchlib']; known: ['cut_cross_entropy', "), r.stderr
    assert "'liger_kernel'" in lines[0]
    assert not (tmp_path / "reports").exists()


def test_importing_torchproxy_first_hides_paddles_ccache_notice(tmp_path):
    if shutil.which("ccache"):
        pytest.skip("ccache is installed: Paddle has no notice to give")
    code = "import {}; import paddle"
    plain = subprocess.run([sys.executable, "-c", code.format("sys")], cwd=tmp_path, env=_env(),
                           capture_output=True, text=True, timeout=300)
    assert "No ccache found" in plain.stderr  # Paddle's own behaviour, without torchproxy
    ours = subprocess.run([sys.executable, "-c", code.format("torchproxy")], cwd=tmp_path,
                          env=_env(), capture_output=True, text=True, timeout=300)
    assert ours.returncode == 0 and "No ccache found" not in ours.stderr, ours.stderr


def test_extension_cpp_offline_is_one_line(tmp_path, monkeypatch, capsys):
    import urllib.error
    import urllib.request
    from compat_matrix.specs import extension_cpp as spec
    monkeypatch.setattr(spec, "BUILD", str(tmp_path / "build"))
    monkeypatch.setenv("TORCHPROXY_GIT_MIRRORS", str(tmp_path / "mirrors"))

    def offline(*a, **k):
        raise urllib.error.URLError("[Errno -3] Temporary failure in name resolution")
    monkeypatch.setattr(urllib.request, "urlopen", offline)
    assert spec.main() == 1
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        "[extension_cpp] not built: pytorch/extension-cpp@0ec4969c7bc8 is needed from GitHub "
        "(codeload.github.com) or a git mirror: set TORCHPROXY_GIT_MIRRORS to a folder holding "
        "pytorch+extension-cpp/repo with that commit. Tried: no git directory at "
        f"{tmp_path / 'mirrors' / 'pytorch+extension-cpp' / 'repo'}; GitHub unreachable "
        "([Errno -3] Temporary failure in name resolution)"]
    assert not (tmp_path / "build" / "src").exists()


def _dev_function(name):
    """The text of one shell function of ./dev (the tests run it alone: ./dev itself would set
    up environments)."""
    return re.search(rf"^{name}\(\) \{{.*?^\}}", Path(ROOT, "dev").read_text(),
                     re.M | re.S).group(0)


def _refuse_shared_env(tmp_path, venv_name):
    """Run ./dev's refuse_shared_env on ``venv_name`` inside a scratch clone folder."""
    body = _dev_function("refuse_shared_env")
    clone = tmp_path / "clone"
    clone.mkdir()
    (tmp_path / "other_env").mkdir()
    (clone / ".venv-linked").symlink_to(tmp_path / "other_env")
    (clone / ".venv-own").mkdir()
    script = f'{body}\ncd "{clone}"\nrefuse_shared_env {venv_name}\necho passed\n'
    return subprocess.run(["bash", "-c", script], capture_output=True, text=True)


def test_dev_refuses_to_repoint_an_environment_linked_from_another_clone(tmp_path):
    # a git worktree sharing the main clone's venvs: an editable install from the worktree would
    # switch every user of those venvs to the worktree's code
    r = _refuse_shared_env(tmp_path, ".venv-linked")
    assert r.returncode == 2 and "passed" not in r.stdout
    lines = r.stderr.strip().splitlines()
    assert len(lines) == 1 and "another clone's environment" in lines[0], r.stderr
    assert str(tmp_path / "other_env") in lines[0]


def test_dev_installs_into_its_own_environment(tmp_path):
    r = _refuse_shared_env(tmp_path, ".venv-own")
    assert r.returncode == 0 and r.stdout.strip() == "passed", r.stderr


# ./dev's environment names and their folders, as its setup_one builds them
def _env_dirs():
    body = _dev_function("setup_one")
    arms = re.findall(r"^    (\w+)\)\n(.*?);;", body, re.M | re.S)
    return {name: re.search(r"make_env (\.venv[\w-]*)", arm).group(1) for name, arm in arms}


def _envs_for(command):
    r = subprocess.run(["bash", "-c", _dev_function("envs_for") + f'\nenvs_for "{command}"'],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    return r.stdout.split()


def _command_arm(command):
    """The lines ./dev runs for ``command`` (its arm of the final case statement)."""
    text = Path(ROOT, "dev").read_text()
    main = text[text.index('\ncase "$cmd" in\n'):]
    return re.search(rf"^  {command}\)\n(.*?)^  \S", main, re.M | re.S).group(1)


DEV_COMMANDS = ("matrix", "test", "opinfo", "fuzz", "bench")


@pytest.mark.parametrize("command", DEV_COMMANDS)
def test_dev_command_builds_the_environments_it_runs_in(command):
    # issue 20: a fresh clone's `./dev matrix` built five venvs and used two.  Each command sets
    # up envs_for's list, and that list is exactly the venvs the command's lines run (for
    # `test`, those of ci/test-chunks.txt): none built idle, none used unbuilt
    arm = _command_arm(command)
    assert re.findall(r"^\s*setup\b.*$", arm, re.M) == [f"    setup $(envs_for {command})"]
    used = set(re.findall(r"(?<![\w/])\.venv[\w-]*(?=[/:;\s])", arm))
    if command == "test":
        chunks = Path(ROOT, "ci", "test-chunks.txt").read_text().splitlines()
        used |= {line.split()[1] for line in chunks if line.strip() and not line.startswith("#")}
    dirs = _env_dirs()
    assert {dirs[e] for e in _envs_for(command)} == used


def test_dev_setup_builds_only_the_named_environments(tmp_path):
    # ./dev's setup() itself, with each environment's build replaced by a note of its name:
    # `setup $(envs_for matrix)` builds .venv and .venv-tlu and nothing else; `./dev setup`
    # with no names builds all of them
    script = "\n".join([
        "set -euo pipefail", _dev_function("envs_for"), _dev_function("setup"),
        'setup_one() { echo "$1" >> built.txt; }', "rebuild_if_changed() { :; }",
        'setup $(envs_for matrix); echo --- >> built.txt; setup'])
    r = subprocess.run(["bash", "-c", script], cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0, r.stderr
    matrix, everything = (tmp_path / "built.txt").read_text().split("---\n")
    assert sorted(matrix.split()) == ["main", "tlu"]  # two build at once: either order
    assert sorted(everything.split()) == sorted(_env_dirs())


def test_readme_table_names_what_each_command_builds():
    text = Path(ROOT, "README.md").read_text()
    rows = dict(re.findall(r"^\| (`\./dev [^|]*`) \| (.*) \|$", text, re.M))
    names = lambda cell: set(re.findall(r"`(\.venv[\w-]*)`", cell))  # noqa: E731
    dirs = _env_dirs()
    matrix = names(rows["`./dev matrix`"])
    assert matrix == {dirs[e] for e in _envs_for("matrix")}
    # the test row: "those two and ..."
    assert matrix | names(rows["`./dev test`"]) == {dirs[e] for e in _envs_for("test")}
    row = rows["`./dev opinfo`, `./dev bench`, `./dev fuzz`"]
    for command in ("opinfo", "bench", "fuzz"):
        assert names(row) == {dirs[e] for e in _envs_for(command)}


def _disk_line(results_file):
    """README's line for one setup-cost file: the total, then each folder `du` measured, in
    the file's order ("SIZE<tab>NAME" lines)."""
    rows = re.findall(r"^(\S+)\t(\S+)$", Path(ROOT, "docs", "results", results_file).read_text(),
                      re.M)
    sizes = dict((name, size) for size, name in rows)
    parts = ", ".join(f"`{name}` {size}" for size, name in rows if name != "total")
    return f"{sizes['total']} in all: {parts}"


@pytest.mark.parametrize("command,results_file", [("./dev test", "setup-cost.txt"),
                                                  ("./dev matrix", "setup-cost-matrix.txt")])
def test_readme_states_the_clones_disk_size_as_measured(command, results_file):
    # issue 20: a clone ends at 11-12 GB, which the README must say, with the breakdown; the
    # figures are those of the generated file (regenerating it makes this test name the change)
    line = next(line for line in Path(ROOT, "README.md").read_text().splitlines()
                if line.startswith(f"- after `{command}`"))
    assert f": {_disk_line(results_file)} ([`docs/results/{results_file}`]" in line, line


def test_dev_matrix_offline_flashinfer_upstream_is_one_line(tmp_path):
    # ./dev matrix installs the flashinfer_upstream row's wheels from PyPI; offline, pip's
    # retries and traceback went to the terminal.  Here .venv/bin/python is a stand-in that
    # answers the spec's command and fails its pip run as pip does offline
    fake = tmp_path / ".venv" / "bin" / "python"
    fake.parent.mkdir(parents=True)
    fake.write_text(textwrap.dedent('''\
        #!/bin/sh
        if [ "$1" = -c ]; then echo "pip install --no-deps --target site flashinfer-python==9"; exit 0; fi
        echo "WARNING: Retrying (Retry(total=4)) after connection broken by NewConnectionError" >&2
        echo "ERROR: Could not find a version that satisfies the requirement flashinfer-python==9" >&2
        echo "ERROR: No matching distribution found for flashinfer-python==9" >&2
        exit 1
    '''))
    fake.chmod(0o755)
    r = subprocess.run(["bash", "-c", _dev_function("install_flashinfer_upstream")
                        + "\ninstall_flashinfer_upstream; echo went-on"],
                       cwd=tmp_path, capture_output=True, text=True)
    assert r.returncode == 0 and r.stdout == "went-on\n", r.stdout + r.stderr
    assert r.stderr.splitlines() == [
        "[dev] flashinfer_upstream not installed (needs PyPI): ERROR: No matching distribution "
        "found for flashinfer-python==9 (pip's output: build/setup-logs/flashinfer-upstream.log); "
        "its matrix row will say so"]
