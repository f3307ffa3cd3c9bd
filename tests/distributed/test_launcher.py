"""`torchproxy run --nproc-per-node N` against real torchrun (the oracle venv's
``python -m torch.distributed.run``): the same script, the variables each rank sees and an
all_reduce over them; a failing rank stops the job; SIGINT reaches every rank and leaves no
process behind; misuse is one line and exit status 2.  One set of children per scenario."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time

import pytest

from distrun import ROOT, SCRIPTS

SCRIPT = os.path.join(SCRIPTS, "launched.py")


def _env(**extra):
    env = dict(os.environ, PYTHONPATH=ROOT, GLOG_minloglevel="2", **extra)
    for k in list(env):
        # a clean launcher environment: no Paddle launcher, scope or torchrun variables around
        if (k.startswith(("PADDLE_", "TORCHELASTIC_")) or k in ("TORCHPROXY_SCOPE", "RANK",
                "WORLD_SIZE", "LOCAL_RANK", "MASTER_ADDR", "MASTER_PORT", "OMP_NUM_THREADS")):
            del env[k]
    return env


def _torchproxy(*args):
    return [sys.executable, "-m", "torchproxy", "run", *args]


def _ranks(out: str) -> list:
    rows = [json.loads(ln) for ln in out.splitlines() if ln.startswith('{"env"')]
    return sorted(rows, key=lambda r: r["rank"])


def _run(cmd, timeout=240, **extra):
    p = subprocess.run(cmd, cwd=ROOT, env=_env(**extra), capture_output=True, text=True,
                       timeout=timeout)
    return p.returncode, p.stdout, p.stderr


def test_each_rank_sees_what_torchrun_gives_it():
    pytest.importorskip("torch")  # the oracle
    rc_t, out_t, err_t = _run([sys.executable, "-m", "torch.distributed.run",
                               "--nproc-per-node", "2", SCRIPT, "a", "--b"])
    assert rc_t == 0, err_t[-3000:]
    rc_f, out_f, err_f = _run(_torchproxy("--nproc-per-node", "2", SCRIPT, "a", "--b"))
    assert rc_f == 0, err_f[-3000:]
    torch_ranks, facade_ranks = _ranks(out_t), _ranks(out_f)
    assert [r["rank"] for r in torch_ranks] == [r["rank"] for r in facade_ranks] == [0, 1]
    for ranks, facade in ((torch_ranks, False), (facade_ranks, True)):
        # the values a launcher draws afresh: one port and run id for the job, a file per rank
        ports = {r["env"].pop("MASTER_PORT") for r in ranks}
        run_ids = {r["env"].pop("TORCHELASTIC_RUN_ID") for r in ranks}
        assert len(ports) == 1 and 0 < int(ports.pop()) < 65536
        assert len(run_ids) == 1 and len(run_ids.pop()) == 36  # a uuid4, as standalone torchrun
        for r in ranks:
            assert r["env"].pop("TORCHELASTIC_ERROR_FILE").endswith(f"/{r['rank']}/error.json")
            assert r.pop("facade") is facade
    # the one difference on purpose (torchproxy/launcher.py): no agent store to join
    for t, f in zip(torch_ranks, facade_ranks):
        assert (t["env"].pop("TORCHELASTIC_USE_AGENT_STORE"),
                f["env"].pop("TORCHELASTIC_USE_AGENT_STORE")) == ("True", "False")
    assert facade_ranks == torch_ranks
    assert torch_ranks[1]["all_reduce"] == [10.0, 12.0, 14.0]  # both ranks' inputs summed


def test_a_failing_rank_stops_the_others_and_is_named():
    # rank 1 exits 3 while rank 0 waits in a barrier only the launcher can end; torchrun then
    # sends rank 0 SIGTERM and exits 1 naming rank 1 and its exit code as the root cause
    start = time.monotonic()
    # (torchrun's own spellings of a one-node job are taken as they are)
    rc, out, err = _run(_torchproxy("--standalone", "--nnodes=1", "--nproc_per_node=2", SCRIPT),
                        FAIL_RANK="1")
    assert rc == 1, err[-3000:]
    root = err[err.index("Root Cause"):]
    assert "launched.py FAILED" in err
    assert root.splitlines()[1].startswith("  rank 1 (local_rank: 1): exitcode: 3 (pid: ")
    assert "rank 0 (local_rank: 0): exitcode: -15 (SIGTERM)" in root, err[-3000:]
    assert "stopped by the launcher" in root
    assert time.monotonic() - start < 200


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().split(") ")[1][0] != "Z"
    except FileNotFoundError:
        return False


def test_sigint_reaches_every_rank_and_nothing_is_left():
    launcher = subprocess.Popen(_torchproxy("--nproc-per-node", "2", SCRIPT), cwd=ROOT,
                                env=_env(SLEEP="1"), stdout=subprocess.PIPE,
                                stderr=subprocess.PIPE, text=True)
    pids = []
    try:
        while len(pids) < 2:
            line = launcher.stdout.readline()
            assert line, launcher.stderr.read()[-3000:]
            if line.startswith("pid "):
                pids.append(int(line.split()[1]))
        # the ranks' interpreters are the launcher's children, each leading its own session
        kids = {int(k) for k in open(f"/proc/{launcher.pid}/task/{launcher.pid}/children")
                .read().split()}
        assert set(pids) <= kids, (pids, kids)
        launcher.send_signal(signal.SIGINT)
        rc = launcher.wait(timeout=60)
    finally:
        if launcher.poll() is None:
            launcher.kill()
    err = launcher.stderr.read()
    assert rc == 1, err[-3000:]
    assert "got SIGINT, sending it to the 2 ranks" in err
    assert err.count("KeyboardInterrupt") == 2, err[-3000:]  # each rank got it, as Ctrl-C
    assert not [p for p in pids if _alive(p)]


@pytest.mark.parametrize("argv, message", [
    (["--nproc-per-node", "0"], "--nproc-per-node must be a whole number >= 1, got '0'"),
    (["--nproc-per-node", "two"], "--nproc-per-node must be a whole number >= 1, got 'two'"),
    (["--nproc-per-node", "2", "--master-port", "70000"],
     "--master-port must be a whole number 1..65535, got '70000'"),
    (["--master-port", "29500"], "--master-port goes with --nproc-per-node"),
    (["--nproc-per-node", "2", "--nnodes", "2"],
     "--nnodes 2: one node only (the ranks this machine starts)"),
    (["--nproc-per-node", "2", "-m", "no_such_module_here"], "no module named 'no_such_module_here'"),
])
def test_misuse_is_one_line_and_status_2(argv, message, capsys):
    from torchproxy import cli
    target = [] if "-m" in argv else [SCRIPT]
    assert cli.main(["run", *argv, *target]) == 2
    err = capsys.readouterr().err
    assert err == f"torchproxy run: {message}\n"
