"""A fork server: one process imports numpy and Paddle (or real torch) once, and forks the
matrix's CPU workers from that state.

Why: each worker used to start a fresh Python and import Paddle (about 5.5 s CPU) or torch
(about 3 s): 33 workers and their replacements after crashes were a fifth of a run's CPU.  A
forked worker is still a process of its own (a crash or a hang ends it alone: the runner kills
its process group and reports the cell, as before); only the import is shared, and what a fresh
import would give is what the fork copies, because nothing ran in the server but the import.

Safety of fork(): a process that forks must have no other threads (their locks would be copied
held).  After ``import numpy`` the only other thread is OpenBLAS's pool, which OpenBLAS shuts
down around fork() itself (its pthread_atfork handler) and restarts in the child on the next
BLAS call; importing Paddle or torch starts no thread (their OpenMP/MKL pools start at the first
parallel operation, which never runs here).  The server checks this after its imports: with a
thread beyond those numpy started it refuses to serve, says so, and the runner starts its
workers as fresh processes (meta.json records it).

Protocol (a Unix SOCK_SEQPACKET pair, one message a JSON object):
  server -> runner  {"ready": true, "threads": n, "preloaded": [...]} or {"ready": false, "why": ...}
  runner -> server  {"id": k, "env": {...}, "cwd": ..., "path": [...]} with two fds attached
                    (the worker's task pipe's read end and its done pipe's write end)
  server -> runner  {"id": k, "pid": p}   the worker is running ``worker.serve`` on those fds
  server -> runner  {"exited": p, "status": s}   waitpid's status of a worker that ended
The server reaps its workers (they are its children, not the runner's) and dies with the
runner (lifeline); its workers die with it.
"""
from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading

PRELOAD = {"torch": ("numpy", "torch"), "paddle": ("numpy", "paddle")}
_MAX_MSG = 1 << 20
# variables a preloaded module may read while it is imported: a unit whose environment sets
# one of these differently from the server's gets a fresh process (see Runner._fork_server_for)
IMPORT_TIME_ENV_PREFIXES = ("FLAGS_", "PADDLE", "TORCH", "PYTORCH", "OMP_", "MKL", "KMP_",
                            "OPENBLAS", "GOMP", "CUDA", "NVIDIA", "GLOG", "NCCL", "LD_", "PYTHON")


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return threading.active_count()


def _send(sock, obj, fds=()):
    data = json.dumps(obj).encode()
    if fds:
        socket.send_fds(sock, [data], list(fds))
    else:
        sock.send(data)


# -- the server process -------------------------------------------------------------------
def _child(sock, req, fds):
    """In the forked child: become the worker that serves the runner's tasks on ``fds``."""
    try:
        sock.close()
        # its own process group (the runner's kill takes its children too), in the server's
        # session, which has no terminal; set by the server as well, before it replies
        os.setpgid(0, 0)
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        os.environ.clear()
        os.environ.update(req["env"])
        # the worker dies with the server (which dies with the runner): its lifeline
        from .lifeline import ENV
        os.environ[ENV] = str(os.getppid())
        os.chdir(req["cwd"])
        sys.path[:] = req["path"]  # what `python -m compat_matrix.worker` would start with
        # what `python -m compat_matrix.worker --serve R W` does from here (main() ends with
        # os._exit: it never returns)
        import runpy
        sys.argv = ["-m", "--serve", str(fds[0]), str(fds[1])]
        runpy.run_module("compat_matrix.worker", run_name="__main__", alter_sys=True)
    except BaseException:  # noqa: BLE001 - never return into the server's loop
        import traceback
        traceback.print_exc()
        os._exit(1)
    os._exit(0)


def serve(fd: int, modules: str):
    """The server: import ``modules`` (comma-separated), then fork workers on request."""
    from .lifeline import die_with_parent
    die_with_parent()
    sock = socket.socket(fileno=fd)
    import importlib
    importlib.import_module("numpy")
    base = _threads()  # the process itself and OpenBLAS's pool (fork-safe, see above)
    names = [m for m in modules.split(",") if m]
    try:
        for name in names:
            importlib.import_module(name)
    except Exception as e:  # noqa: BLE001 - the runner starts fresh workers and says why
        _send(sock, {"ready": False, "why": f"import failed: {e!r}"})
        return
    n = _threads()
    if n != base:
        _send(sock, {"ready": False, "why": f"{n - base} thread(s) started by importing "
                                            f"{', '.join(names)}: not fork-safe"})
        return
    _send(sock, {"ready": True, "threads": n, "preloaded": names, "path": list(sys.path)})
    import select
    while True:
        _reap(sock)
        r, _, _ = select.select([sock], [], [], 0.1)
        if not r:
            continue
        try:
            data, fds, _flags, _addr = socket.recv_fds(sock, _MAX_MSG, 2)
        except OSError:
            data = b""
        if not data:  # the runner closed its end: no more workers
            break
        req = json.loads(data)
        pid = os.fork()
        if pid == 0:
            _child(sock, req, fds)
        try:  # before the reply: a kill right after it must find the group
            os.setpgid(pid, pid)
        except OSError:  # the child did it first
            pass
        for f in fds:  # the runner and the worker hold the pipe ends now
            os.close(f)
        _send(sock, {"id": req["id"], "pid": pid})
    # the runner is done: wait for the workers still finishing (the runner waits for them too)
    while True:
        try:
            pid, status = os.waitpid(-1, 0)
        except ChildProcessError:
            break
        try:
            _send(sock, {"exited": pid, "status": status})
        except OSError:
            pass


def _reap(sock):
    while True:
        try:
            pid, status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return
        _send(sock, {"exited": pid, "status": status})


# -- the runner's side --------------------------------------------------------------------
class ForkedProc:
    """A worker forked by the server, with the part of Popen's interface the runner uses."""

    def __init__(self, pid, server):
        self.pid = pid
        self.returncode = None
        self._server = server
        self._done = threading.Event()

    def _exited(self, status):
        self.returncode = os.waitstatus_to_exitcode(status)
        self._done.set()

    def poll(self):
        return self.returncode

    def wait(self, timeout=None):
        if not self._done.wait(timeout):
            raise subprocess.TimeoutExpired("forked worker", timeout)
        return self.returncode


class ForkServer:
    """The runner's handle on one server process (one Python, one set of preloaded modules).

    Start it from a thread that outlives its use (the server dies with the thread that started
    it: PR_SET_PDEATHSIG follows the thread); ``wait_ready()`` from any thread."""

    def __init__(self, python, preload, env, cwd, log_path):
        """``preload``: a key of PRELOAD, or the modules themselves, comma-separated."""
        self.preload = preload
        self.python = python
        mine, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock = mine
        with open(log_path, "ab") as log:
            self.p = subprocess.Popen(
                [python, "-c", "import sys; from compat_matrix.forkserver import serve; "
                               "serve(int(sys.argv[1]), sys.argv[2])",
                 str(theirs.fileno()), ",".join(PRELOAD.get(preload, (preload,)))],
                stdin=subprocess.DEVNULL, stdout=log, stderr=log, env=env, cwd=cwd,
                pass_fds=(theirs.fileno(),), start_new_session=True)
        theirs.close()
        self.lock = threading.Lock()
        self.procs: dict[int, ForkedProc] = {}
        self.exited: dict[int, int] = {}      # statuses that came before their "pid" reply
        self.replies: dict[int, int] = {}
        self.cond = threading.Condition()
        self.next_id = 0
        self.alive = True
        self.ready = None   # not known until wait_ready()
        self.why = ""
        self.path = []
        self._hello_lock = threading.Lock()

    def wait_ready(self) -> bool:
        """Wait for the server's imports; -> whether it serves (else ``why`` says why not)."""
        with self._hello_lock:
            if self.ready is None:
                hello = self._recv() or {"ready": False,
                                         "why": f"the server exited (exit {self.p.poll()})"}
                self.ready = bool(hello.get("ready"))
                self.why = hello.get("why", "")
                self.path = hello.get("path", [])
                if self.ready:
                    threading.Thread(target=self._read, name=f"forkserver-{self.preload}",
                                     daemon=True).start()
                else:
                    self.alive = False
                    self.close()
        return self.ready

    def _recv(self):
        try:
            data = self.sock.recv(_MAX_MSG)
        except OSError:
            return None
        return json.loads(data) if data else None

    def _read(self):
        while True:
            msg = self._recv()
            if msg is None:
                break
            with self.cond:
                if "exited" in msg:
                    proc = self.procs.pop(msg["exited"], None)
                    if proc is None:
                        self.exited[msg["exited"]] = msg["status"]
                    else:
                        proc._exited(msg["status"])
                else:
                    self.replies[msg["id"]] = msg["pid"]
                self.cond.notify_all()
        # the server is gone (its workers die with it: lifeline): whatever was running ended
        with self.cond:
            self.alive = False
            for proc in self.procs.values():
                proc.returncode = proc.returncode if proc.returncode is not None else -signal.SIGKILL
                proc._done.set()
            self.procs.clear()
            self.cond.notify_all()

    def spawn(self, env, cwd, path, fds) -> ForkedProc | None:
        """A worker serving on ``fds`` (closed here); None when the server is gone."""
        with self.cond:
            if not self.alive:
                return None
            self.next_id += 1
            rid = self.next_id
        try:
            with self.lock:
                _send(self.sock, {"id": rid, "env": env, "cwd": cwd, "path": path}, fds)
        except OSError:
            return None
        with self.cond:
            while rid not in self.replies and self.alive:
                self.cond.wait(1.0)
            if rid not in self.replies:
                return None
            pid = self.replies.pop(rid)
            proc = ForkedProc(pid, self)
            if pid in self.exited:
                proc._exited(self.exited.pop(pid))
            else:
                self.procs[pid] = proc
            return proc

    def close(self, timeout=60):
        """No more workers: the server waits for those still running, then exits."""
        try:
            self.sock.shutdown(socket.SHUT_WR)
        except OSError:
            pass
        try:
            self.p.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            try:
                os.killpg(self.p.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
            self.p.wait()

    def kill(self):
        try:
            os.killpg(self.p.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass
