"""The fork server (compat_matrix/forkserver.py): CPU workers forked from one process per Python
that imported Paddle or torch once.  A forked worker must be what a fresh one is: its own
process (a crash or a hang ends it alone), the same cells; a server whose imports start a
thread (unsafe to fork) is not used, and the runner says so."""
import json
import os
import subprocess
import sys

from matrix_testpaths import FIXTURE_SPECS, HERE, ROOT


def _extra_threads(module):
    """Threads importing ``module`` starts after numpy's (OpenBLAS's pool)."""
    code = ("import os, numpy; n = len(os.listdir('/proc/self/task')); import {m}; "
            "print(len(os.listdir('/proc/self/task')) - n)")
    r = subprocess.run([sys.executable, "-W", "ignore", "-c", code.format(m=module)],
                       capture_output=True, text=True, timeout=120)
    return int(r.stdout.strip().splitlines()[-1])


def test_fixture_run_forks_its_cpu_workers_from_the_servers(fixture_run):
    out, cells = fixture_run
    with open(os.path.join(out, "meta.json")) as f:
        meta = json.load(f)
    used = {k.rsplit(" ", 1)[1].strip("()"): v for k, v in meta["fork_server"]["used"].items()}
    assert set(used) == {"paddle", "torch"}, used
    # a server serves exactly when its imports start no thread (Paddle 2.6.2 starts one)
    assert used == {"paddle": _extra_threads("paddle") == 0, "torch": _extra_threads("torch") == 0}
    notes = meta["fork_server"]["fresh_workers"]
    assert len(notes) == list(used.values()).count(False), notes
    assert all("thread(s) started by importing" in v for v in notes.values()), notes
    for (case, backend), rec in cells.items():
        if "worker" in rec:  # it ran
            server = "torch" if backend == "torch" else "paddle"
            assert rec["worker"] == ("forked" if used[server] else "fresh"), (case, backend, rec)
            if rec["reason"] not in ("crash", "timeout"):  # a killed worker wrote no result
                assert rec["cpu_s"] >= 0, rec
    assert meta["cpu_s"]["children"] > 0


_PROBE_SPEC = """
import json, os, sys
from compat_matrix.spec import Case, Library

LIBRARY = Library(name="probe", scope=("probe_extra",), requires=(), imports=(),
                  pythonpath=("extra",), env=(("PROBE_MARK", "unit-env"),))


def facts():
    import torch  # noqa: F401 - what every case does: the oracle's server imported it already
    import probe_extra  # from the library's own pythonpath
    mods = sys.modules
    json.dump({"argv0": os.path.basename(sys.argv[0]), "main": mods["__main__"].__spec__.name,
               "path": sys.path[:3], "mark": os.environ.get("PROBE_MARK"),
               "interpret": os.environ.get("TRITON_INTERPRET"), "extra": probe_extra.WHERE,
               "own_group": os.getpgid(0) == os.getpid(), "cwd": os.getcwd(),
               "paddle": "paddle" in mods, "real_torch": "torch._C" in mods},
              open(os.path.join(os.path.dirname(__file__), "facts-" + os.environ["PROBE_OUT"]
                                + "-" + str(len(os.listdir(os.path.dirname(__file__)))) + ".json"), "w"))
    return 1


CASES = [Case("facts", facts)]
"""


def _facts(tmp_path, fork_server):
    from compat_matrix.runner import Options, Runner
    spec_dir = tmp_path / f"specs-{fork_server}"
    (spec_dir / "extra").mkdir(parents=True)
    (spec_dir / "extra" / "probe_extra.py").write_text("import os\nWHERE = os.path.dirname(__file__)\n")
    (spec_dir / "probe.py").write_text(_PROBE_SPEC)
    os.environ["PROBE_OUT"] = str(fork_server)
    try:
        runner = Runner(Options(out=str(tmp_path / f"m-{fork_server}"), specs=[str(spec_dir)],
                                jobs=1, timeout=120, backends=("torch", "torchproxy"),
                                fork_server=fork_server, scan=False))
        runner.plan()
        runner.run()
    finally:
        del os.environ["PROBE_OUT"]
    out = {}
    for f in sorted(spec_dir.glob("facts-*.json")):
        d = json.loads(f.read_text())
        d["extra"] = os.path.relpath(d["extra"], spec_dir)
        d["path"] = [x.replace(str(spec_dir), "<spec>") for x in d["path"]]
        out[d.pop("backend", None) or f.name.split("-")[2]] = d
    return sorted(out.values(), key=lambda d: d["paddle"])


def test_forked_worker_sees_what_a_fresh_one_sees(tmp_path):
    """sys.argv, __main__, sys.path, the environment, the cwd, its own process group and the
    modules loaded (no Paddle in the oracle's worker) are those
    of a fresh `python -m compat_matrix.worker --serve R W`, on both kinds of server.  (One
    difference by design: the oracle's server imported torch before the spec and the library,
    as a torch program that imports torch first does.)"""
    forked, fresh = _facts(tmp_path, True), _facts(tmp_path, False)
    assert len(forked) == 2 and forked == fresh, (forked, fresh)
    assert [d["paddle"] for d in forked] == [False, True]
    assert forked[0]["real_torch"] and forked[0]["mark"] == "unit-env"
    assert forked[0]["interpret"] == "1" and forked[0]["own_group"]


def test_a_killed_forked_worker_is_reported_and_the_server_lives_on(tmp_path):
    from compat_matrix import forkserver
    from compat_matrix.lifeline import ENV
    env = dict(os.environ, PYTHONPATH=ROOT, **{ENV: str(os.getpid())})
    sv = forkserver.ForkServer(sys.executable, "torch", env, ROOT, str(tmp_path / "log"))
    try:
        assert sv.wait_ready(), sv.why
        for sig in (None, 9):
            task_r, task_w = os.pipe()
            done_r, done_w = os.pipe()
            p = sv.spawn(dict(env), ROOT, [ROOT] + sv.path[1:], (task_r, done_w))
            os.close(task_r)
            os.close(done_w)
            assert p is not None
            if sig:
                os.killpg(p.pid, sig)  # its own process group, as the runner's kill expects
                assert p.wait(30) == -sig
            else:
                os.close(task_w)  # no task: the worker reads EOF and exits 0
                task_w = None
                assert p.wait(30) == 0
            if task_w is not None:
                os.close(task_w)
            os.close(done_r)
            assert sv.alive and sv.p.poll() is None
    finally:
        sv.close()
    assert sv.p.returncode == 0


def test_a_server_whose_imports_start_a_thread_is_not_used(tmp_path):
    from compat_matrix import forkserver
    env = dict(os.environ, PYTHONPATH=f"{os.path.join(HERE, 'fixtures')}:{ROOT}")
    sv = forkserver.ForkServer(sys.executable, "threadstarter", env, ROOT, str(tmp_path / "log"))
    assert sv.wait_ready() is False
    assert "1 thread(s) started by importing threadstarter: not fork-safe" in sv.why, sv.why
    assert sv.p.poll() is not None  # it exited; nothing is forked from it


def test_paddle_and_torch_imports_start_no_thread():
    """What the servers rely on: after numpy (OpenBLAS's pool, fork-safe by its own atfork
    handler), importing Paddle 3 or torch starts no thread (no OpenMP/MKL pool yet).  Paddle
    2.6.2's import does start one: there the paddle server refuses (the test above)."""
    import paddle
    assert _extra_threads("torch") == 0
    if int(paddle.__version__.split(".")[0]) >= 3:
        assert _extra_threads("paddle") == 0


def test_fresh_workers_give_the_same_cells(fixture_run, tmp_path):
    """--no-fork-server: every worker a fresh Python; the cells equal the forked run's."""
    from compat_matrix.runner import Options, Runner, read_results
    _, forked = fixture_run
    cases = ["scale_add", "wrong", "unsupported", "crash"]
    runner = Runner(Options(out=str(tmp_path / "m"), specs=[FIXTURE_SPECS], jobs=2, timeout=60,
                            cases=cases, backends=("torch", "torchproxy"), fork_server=False,
                            scan=False))
    runner.plan()
    meta = runner.run()
    assert meta["fork_server"]["used"] == {}
    fresh = read_results(os.path.join(str(tmp_path / "m"), "results.jsonl"))
    assert len(fresh) == (len(cases) + 1) * 2
    for (_lib, case, backend, _dev), rec in fresh.items():
        assert rec.get("worker", "fresh") == "fresh"
        other = forked[(case, backend)]
        assert (rec["status"], rec["reason"]) == (other["status"], other["reason"]), (rec, other)
