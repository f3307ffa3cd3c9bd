"""Facade side of the view-chain fuzzer: a fork server (``python viewchild.py``).

The process imports Paddle and enables the facade once (global mode: ``import torch`` is the
facade), then reads one JSON request per line on stdin: {"chains": PATH, "out": PATH, "err": PATH}.
For each it forks; the fork runs the chains and exits, and the server answers one JSON line
{"status": waitpid status decoded: "exit N" or "signal N"}.  Forking keeps every batch on the
same clean post-import state and makes a rerun of one chain cost milliseconds, not an import.

glibc's heap checks are on in this process (tests/memory/fuzz.py starts it with MALLOC_CHECK_=3,
MALLOC_PERTURB_ and libc_malloc_debug preloaded), so a write past a buffer aborts the fork
instead of passing by luck.  Before each chain the fork appends ("start", i) to the results file
and flushes, after it ("done", i, record): after a crash the parent knows which chain ran.
"""
from __future__ import annotations

import faulthandler
import importlib
import json
import os
import pickle
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

CHAIN_TIMEOUT_S = 60
STALL_S = CHAIN_TIMEOUT_S + 30


def runner(request):
    """The function a request names ("module:function", tests/memory's modules): the view
    chains' by default; the training-loop state fuzzer (gradfuzz.py) names its own."""
    module, _, name = request.get("runner", "chainrun:run_chain").partition(":")
    return getattr(importlib.import_module(module), name)


def _run_batch(torch, header, request):
    run_chain = runner(request)

    err_fd = os.open(request["err"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(err_fd, 2)  # glibc's message (LIBC_FATAL_STDERR_=1) and faulthandler's stack
    faulthandler.enable(file=sys.stderr, all_threads=False)
    with open(request["chains"]) as f:
        chains = json.load(f)
    with open(request["out"], "wb") as out:
        pickle.dump(header, out)
        for i, chain in enumerate(chains):
            pickle.dump(("start", i), out)
            out.flush()
            # a chain that hangs (a deadlock, or a loop over a corrupted buffer) prints its stack
            # and ends the fork with status 1 instead of stalling the run
            faulthandler.dump_traceback_later(CHAIN_TIMEOUT_S, exit=True)
            record = run_chain(torch, chain)
            faulthandler.cancel_dump_traceback_later()
            pickle.dump(("done", i, record), out)
        out.flush()


def _wait(pid, progress_path):
    """waitpid, but a fork whose results file stops growing for STALL_S is stopped: SIGABRT
    first (faulthandler prints its stack), SIGKILL when even that hangs (a fork that deadlocked
    inside malloc cannot run the handler)."""
    last, last_change, aborted = -1, time.monotonic(), None
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return status
        try:
            size = os.path.getsize(progress_path)
        except OSError:
            size = -1
        now = time.monotonic()
        if size != last:
            last, last_change = size, now
        elif aborted is None and now - last_change > STALL_S:
            os.kill(pid, signal.SIGABRT)
            aborted = now
        elif aborted is not None and now - aborted > 5:
            os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)


def main() -> int:
    import paddle
    # Paddle's own signal handler can turn glibc's abort into a hang; faulthandler prints the
    # Python stack of the chain that crashed instead
    paddle.disable_signal_handler()
    faulthandler.enable()
    import torchproxy
    torchproxy.enable(scope=None)
    import torch  # the facade: global mode

    import chainrun  # noqa: F401 - imported before forking
    from torchproxy import paddle_shims
    flags = {name: bool(getattr(paddle_shims, name))
             for name in ("AS_STRIDED_NEEDS_CONTIGUOUS", "HAS_VIEW_DTYPE")
             if hasattr(paddle_shims, name)}
    flags["paddle_major"] = int(paddle.__version__.split(".")[0])
    header = ("paddle", paddle.__version__, flags)
    print(json.dumps({"ready": paddle.__version__}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        runner(request)  # imported here, once, not in each fork
        sys.stdout.flush()
        sys.stderr.flush()
        pid = os.fork()
        if pid == 0:
            code = 0
            try:
                _run_batch(torch, header, request)
            except BaseException:  # noqa: BLE001 - reported through the exit status
                import traceback
                traceback.print_exc()
                code = 3
            finally:
                sys.stderr.flush()
                os._exit(code)
        status = _wait(pid, request["out"])
        if os.WIFSIGNALED(status):
            answer = f"signal {os.WTERMSIG(status)}"
        else:
            answer = f"exit {os.WEXITSTATUS(status)}"
        print(json.dumps({"status": answer}), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
