"""An interrupted run keeps what it had; --resume runs only what is missing."""
import json
import os
import signal
import subprocess
import sys
import time

from matrix_testpaths import FIXTURE_SPECS, ROOT


def _lines(path):
    if not os.path.exists(path):
        return []
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def _cli(out, *extra):
    return [sys.executable, "-m", "compat_matrix", "--specs", FIXTURE_SPECS, "--out", out,
            "--backend", "torch,torchproxy", "--cases", "scale_add,wrong,hang", "-j", "1", *extra]


def test_sigint_keeps_results_and_resume_completes(tmp_path):
    out = str(tmp_path / "m")
    results = os.path.join(out, "results.jsonl")
    # the child gets SIGINT's default disposition, as a command typed at a terminal has: the
    # suite may run as a background job, whose children inherit SIGINT ignored (POSIX shells
    # without job control), and Python then keeps ignoring it
    p = subprocess.Popen(_cli(out), cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                         text=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    deadline = time.time() + 120
    while len(_lines(results)) < 3 and time.time() < deadline and p.poll() is None:
        time.sleep(0.2)
    p.send_signal(signal.SIGINT)
    _, err = p.communicate(timeout=60)
    assert p.returncode == 130, err
    assert "--resume continues" in err
    kept = _lines(results)
    assert 3 <= len(kept) < 8, kept  # 4 cases (import + 3) x 2 backends = 8 cells
    assert os.path.exists(os.path.join(out, "matrix.md"))  # reports of the partial run
    # no worker left behind: the interrupted one was killed with its process group
    kept_keys = {(r["case"], r["backend"]) for r in kept}

    r = subprocess.run(_cli(out, "--resume"), cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert r.returncode == 0, r.stderr
    assert f"resuming: {len(kept)} cell(s) already done" in r.stderr
    final = _lines(results)
    assert len({(x["case"], x["backend"]) for x in final}) == 8
    # the kept cells were not run again: each key appears once in the file
    assert len(final) == 8, [(x["case"], x["backend"]) for x in final]
    assert kept_keys <= {(x["case"], x["backend"]) for x in final[:len(kept)]}
    by_key = {(x["case"], x["backend"]): x for x in final}
    assert by_key[("scale_add", "torchproxy")]["status"] == "matches"
    assert by_key[("hang", "torch")]["reason"] == "timeout"
    with open(os.path.join(out, "meta.json")) as f:
        assert json.load(f)["wall_s_previous_runs"] > 0


def test_torn_last_line_is_ignored(tmp_path):
    from compat_matrix.runner import read_results
    path = tmp_path / "results.jsonl"
    rec = {"type": "cell", "lib": "l", "case": "c", "backend": "torch", "device": "cpu",
           "status": "runs"}
    path.write_text(json.dumps(rec) + "\n" + json.dumps(rec)[:20])
    assert list(read_results(str(path))) == [("l", "c", "torch", "cpu")]


def test_resume_after_a_torn_last_line_starts_a_new_line(tmp_path):
    # a run SIGKILLed mid-write leaves a fragment without its newline: the next record must not
    # be glued onto it (that cell's result would be lost, and the corrupt line would stay)
    from compat_matrix.runner import ResultLog, read_results
    path = tmp_path / "results.jsonl"
    a = {"type": "cell", "lib": "l", "case": "a", "backend": "torch", "device": "cpu", "status": "runs"}
    b = {**a, "case": "b"}
    path.write_text(json.dumps(a) + "\n" + json.dumps(b)[:25])
    log = ResultLog(str(path), fresh=False)
    assert log.cut == 25
    log.append(b)
    lines = path.read_text().splitlines()
    assert [json.loads(x)["case"] for x in lines] == ["a", "b"]  # every line parses
    assert set(read_results(str(path))) == {("l", "a", "torch", "cpu"), ("l", "b", "torch", "cpu")}


def _children(pid):
    """pids whose parent is pid (Linux /proc)."""
    out = []
    for d in os.listdir("/proc"):
        if d.isdigit():
            try:
                with open(f"/proc/{d}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
                if int(fields[1]) == pid:
                    out.append(int(d))
            except (OSError, IndexError, ValueError):
                pass
    return out


def _alive(pid):
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def test_sigkilled_runner_takes_its_hanging_worker_with_it(tmp_path):
    if not sys.platform.startswith("linux"):
        import pytest
        pytest.skip("reads /proc")
    out = str(tmp_path / "m")
    p = subprocess.Popen(_cli(out, "--cases", "hang", "--backend", "torch", "--no-scan"), cwd=ROOT,
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    phase = os.path.join(out, "work", "fakelib", "hang", "torch-cpu", "phase")
    deadline = time.time() + 120
    while time.time() < deadline and p.poll() is None:
        try:
            with open(phase) as f:
                if f.read().strip() == "imported":
                    break
        except OSError:
            pass
        time.sleep(0.05)
    workers = _children(p.pid)
    assert workers and all(_alive(w) for w in workers), "the hanging worker should be running"
    p.kill()  # SIGKILL: no handler of the runner runs
    p.wait()
    deadline = time.time() + 10
    while time.time() < deadline and any(_alive(w) for w in workers):
        time.sleep(0.1)
    assert not any(_alive(w) for w in workers), "a worker outlived the SIGKILLed runner"
