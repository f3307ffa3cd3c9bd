"""A child process that dies with the runner, also when the runner is SIGKILLed.

Linux: ``prctl(PR_SET_PDEATHSIG, SIGKILL)`` (the kernel kills the child when the thread that
started it exits), then a check that the parent is still the one that started us (it may have
died before the prctl).  Elsewhere: the child watches ``os.getppid()`` from a daemon thread.
The parent's pid comes in ``TORCHPROXY_MATRIX_PARENT``; without it nothing is done.
"""
from __future__ import annotations

import os
import signal
import sys
import threading
import time

ENV = "TORCHPROXY_MATRIX_PARENT"
PR_SET_PDEATHSIG = 1


def die_with_parent() -> str:
    """-> how ("prctl", "watch", or "" when there is no parent to follow)."""
    parent = os.environ.get(ENV)
    if not parent:
        return ""
    parent = int(parent)
    how = ""
    if sys.platform.startswith("linux"):
        try:
            import ctypes
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0) == 0:
                how = "prctl"
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:  # the runner died before the prctl took effect
        os._exit(137)
    if not how:
        def watch():
            while True:
                time.sleep(1.0)
                if os.getppid() != parent:
                    os._exit(137)
        threading.Thread(target=watch, name="lifeline", daemon=True).start()
        how = "watch"
    return how
