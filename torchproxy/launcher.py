"""`torchproxy run --nproc-per-node N script.py`: torchrun's contract for one node.

N child processes, each a ``torchproxy run`` of the same script with the same scope options
(so each is in scope exactly as a single ``torchproxy run`` is), each given the variables
torchrun's agent gives its workers (torch/distributed/elastic/agent/server/
local_elastic_agent.py, ``_start_workers``): RANK, LOCAL_RANK, WORLD_SIZE, LOCAL_WORLD_SIZE,
GROUP_RANK, GROUP_WORLD_SIZE, ROLE_RANK, ROLE_NAME, ROLE_WORLD_SIZE, MASTER_ADDR, MASTER_PORT,
TORCHELASTIC_* and OMP_NUM_THREADS=1 when unset.  Like torchrun:

- each child runs in a session of its own, so a terminal's Ctrl-C reaches the launcher only,
  and the launcher signals each child's whole process group (DataLoader workers included);
- when a child exits non-zero (or dies of a signal), the others get SIGTERM, then SIGKILL after
  30 s, and the launcher prints which rank failed with which exit code (the first failure is
  the root cause; a ``@record``-decorated entry point's error file adds its traceback) and
  exits 1;
- SIGINT, SIGTERM, SIGHUP or SIGQUIT sent to the launcher is sent on to every child (the same
  signal; SIGKILL after 30 s) and the launcher exits 1 once none is left.

One difference, on purpose: TORCHELASTIC_USE_AGENT_STORE is "False".  torchrun's agent hosts a
TCP store on MASTER_PORT that rank 0 joins as a client; this launcher hosts none, so rank 0
(Paddle's, or real torch's for unscoped code) hosts its own there, as without an agent.
MASTER_PORT is a port free when the launcher looked (torchrun's standalone rendezvous picks
one the same way, but keeps it bound; here another process could take it before rank 0 does).

Only the standard library here: the launcher does not enable the proxy itself.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid

# torchrun's agent installs handlers for these (TORCHELASTIC_SIGNALS_TO_HANDLE's default)
SIGNALS = ("SIGTERM", "SIGINT", "SIGHUP", "SIGQUIT")
GRACE_S = 30  # torchrun's: a closing signal, then SIGKILL after this long
POLL_S = 0.1  # torchrun's --monitor-interval default

# the child: the launcher's own first sys.path entry where `-c` put the working directory (so
# torchproxy and a -m module resolve as they did for the launcher: the working directory under
# `python -m torchproxy`, the scripts folder under the `torchproxy` command), then
# `torchproxy run <options> script args` as from the shell
_CHILD_BOOT = ("import sys; sys.path[0] = sys.argv.pop(1); "
               "from torchproxy.cli import main; sys.exit(main(sys.argv[1:]))")


def free_port(addr: str) -> int:
    with socket.socket() as s:
        s.bind((addr if addr != "localhost" else "127.0.0.1", 0))
        return s.getsockname()[1]


def worker_env(rank: int, nprocs: int, addr: str, port: int, run_id: str,
               error_file: str) -> dict:
    """The variables torchrun's agent sets for local rank ``rank`` of a one-node job."""
    return {
        "RANK": str(rank), "GROUP_RANK": "0", "ROLE_RANK": str(rank), "ROLE_NAME": "default",
        "LOCAL_RANK": str(rank), "LOCAL_WORLD_SIZE": str(nprocs), "WORLD_SIZE": str(nprocs),
        "GROUP_WORLD_SIZE": "1", "ROLE_WORLD_SIZE": str(nprocs),
        "MASTER_ADDR": addr, "MASTER_PORT": str(port),
        "TORCHELASTIC_RESTART_COUNT": "0", "TORCHELASTIC_MAX_RESTARTS": "0",
        "TORCHELASTIC_RUN_ID": run_id,
        "TORCHELASTIC_USE_AGENT_STORE": "False",  # no agent store here (module docstring)
        "TORCHELASTIC_ERROR_FILE": error_file,
        "TORCHELASTIC_SIGNALS_TO_HANDLE": os.environ.get("TORCHELASTIC_SIGNALS_TO_HANDLE",
                                                         ",".join(SIGNALS)),
        "TORCH_NCCL_ASYNC_ERROR_HANDLING": os.environ.get("TORCH_NCCL_ASYNC_ERROR_HANDLING", "1"),
    }


class _Stop(Exception):
    def __init__(self, signum):
        super().__init__(signum)
        self.signum = signum


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(-code).name
    except ValueError:
        return f"signal {-code}"


def _killpg(proc: subprocess.Popen, sig) -> None:
    if proc.poll() is None:
        try:
            os.killpg(proc.pid, sig)  # the child's session: its own children too
        except ProcessLookupError:
            pass


def _close(procs, sig) -> None:
    """Send ``sig`` to every live child's group, wait GRACE_S, then SIGKILL what is left, and
    reap everything (no zombie, no orphan)."""
    for p in procs:
        _killpg(p, sig)
    end = time.monotonic() + GRACE_S
    for p in procs:
        try:
            p.wait(max(0.0, end - time.monotonic()))
        except subprocess.TimeoutExpired:
            pass
    for p in procs:
        if p.poll() is None:
            _killpg(p, signal.SIGKILL)
            p.wait()


def _error_file_message(path: str):
    """The message a ``@record`` entry point wrote (torch's error-file JSON), or None."""
    try:
        with open(path) as f:
            data = json.load(f)
        msg = data["message"]
        return msg.get("message") if isinstance(msg, dict) else str(msg)
    except (OSError, ValueError, KeyError, TypeError):
        return None


def _report(name: str, failures, error_files) -> str:
    """torchrun's failure summary, shorter: the root cause first, then the ranks stopped."""
    lines = ["=" * 60, f"{name} FAILED", "-" * 60, "Root Cause (first observed failure):"]

    def describe(rank, proc, stopped=False):
        code = proc.returncode
        how = f"exitcode: {code}" + (f" ({_signal_name(code)})" if code < 0 else "")
        row = f"  rank {rank} (local_rank: {rank}): {how} (pid: {proc.pid})"
        if stopped:
            row += ", stopped by the launcher"
        lines.append(row)
        msg = _error_file_message(error_files[rank])
        if msg:  # the file goes with the launcher's temporary folder: its message, here
            lines.append("  error (its @record error file):")
            lines.extend("    " + ln for ln in msg.rstrip().splitlines())
    root, *rest = failures
    describe(*root)
    if rest:
        lines.append("Other failures:")
        for rank, proc, stopped in rest:
            describe(rank, proc, stopped)
    lines.append("=" * 60)
    return "\n".join(lines)


def launch(child_args: list, nprocs: int, name: str, master_addr=None, master_port=None) -> int:
    """Run ``torchproxy run <child_args>`` as ``nprocs`` ranks; the exit status (0: every rank
    exited 0)."""
    # torchrun: an explicit --master-port is its static rendezvous (run id "none", address
    # --master-addr or 127.0.0.1); without one, its standalone c10d rendezvous on localhost
    # with a free port and a fresh run id
    if master_port is None:
        addr = master_addr or "localhost"
        port, run_id = free_port(addr), str(uuid.uuid4())
    else:
        addr, port, run_id = master_addr or "127.0.0.1", master_port, "none"
    if nprocs > 1 and "OMP_NUM_THREADS" not in os.environ:
        print("torchproxy run: OMP_NUM_THREADS=1 for each process (torchrun's default; set it "
              "to tune)", file=sys.stderr)
        omp = {"OMP_NUM_THREADS": "1"}
    else:
        omp = {}
    first = os.path.abspath(sys.path[0]) if sys.path and sys.path[0] else os.getcwd()
    cmd = [sys.executable, "-u", "-c", _CHILD_BOOT, first, "run", *child_args]
    errors_dir = tempfile.mkdtemp(prefix="torchproxy_run_")
    error_files = [os.path.join(errors_dir, f"{rank}", "error.json") for rank in range(nprocs)]

    stop = []

    def on_signal(signum, frame):
        stop.append(signum)

    previous = {}
    for s in SIGNALS:
        sig = getattr(signal, s)
        previous[sig] = signal.signal(sig, on_signal)
    procs: list = []
    try:
        for rank in range(nprocs):
            if stop:
                break
            os.makedirs(os.path.dirname(error_files[rank]))
            env = dict(os.environ, **omp,
                       **worker_env(rank, nprocs, addr, port, run_id, error_files[rank]))
            procs.append(subprocess.Popen(cmd, env=env, start_new_session=True))
        return _monitor(procs, stop, name, error_files)
    finally:
        _close(procs, signal.SIGKILL)  # nothing outlives the launcher, whatever happened
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        _rmtree(errors_dir)


def _monitor(procs, stop, name, error_files) -> int:
    first = None
    while True:
        if stop:
            signum = stop[0]
            signame = signal.Signals(signum).name
            print(f"torchproxy run: got {signame}, sending it to the {len(procs)} ranks",
                  file=sys.stderr)
            _close(procs, signum)
            return 1
        codes = [p.poll() for p in procs]
        failed = [r for r, c in enumerate(codes) if c not in (None, 0)]
        if failed:
            first = failed[0]
            break
        if all(c == 0 for c in codes):
            return 0
        time.sleep(POLL_S)
    live = [r for r, p in enumerate(procs) if p.poll() is None]
    _close(procs, signal.SIGTERM)
    failures = [(first, procs[first], False)]
    failures += [(r, procs[r], r in live) for r in range(len(procs))
                 if r != first and procs[r].returncode != 0]
    print(_report(name, failures, error_files), file=sys.stderr)
    return 1


def _rmtree(path: str) -> None:
    import shutil
    shutil.rmtree(path, ignore_errors=True)
