"""Progress bar and live summary on stderr.

On a terminal: one line redrawn in place (bar, counts per backend, the last cell).  Otherwise
(CI logs): one line per finished cell, so the log is readable without carriage returns.
"""
from __future__ import annotations

import sys
import threading
import time
from collections import Counter, defaultdict

STATUSES = ("matches", "runs", "imports", "fails", "n/a")
_SHORT = {"matches": "M", "runs": "R", "imports": "I", "fails": "F", "n/a": "-"}


class Progress:
    def __init__(self, stream=None, width=24):
        self.stream = stream or sys.stderr
        self.tty = hasattr(self.stream, "isatty") and self.stream.isatty()
        self.width = width
        self.lock = threading.Lock()
        self.counts: dict[str, Counter] = defaultdict(Counter)
        self.total = self.done = 0

    def note(self, msg: str):
        """A line of its own, before the cells start (planning, probing)."""
        with self.lock:
            self._write(f"[matrix] {msg}\n")

    def start(self, total: int, already=()):
        self.total, self.t0 = total, time.time()
        for rec in already:
            self._count(rec)
        if already:
            self._write(f"resuming: {self.done} cell(s) already done\n")
        self._write(f"[matrix] running {total - self.done} cell(s); each line is one finished cell\n")

    def _count(self, rec):
        self.done += 1
        self.counts[rec["backend"]][rec["status"]] += 1

    def summary(self) -> str:
        parts = []
        for backend, c in self.counts.items():
            parts.append(f"{backend}: " + " ".join(f"{c[s]}{_SHORT[s]}" for s in STATUSES if c[s]))
        return " | ".join(parts)

    def update(self, rec):
        with self.lock:
            self._count(rec)
            frac = self.done / self.total if self.total else 1.0
            bar = "#" * int(frac * self.width)
            what = f"{rec['lib']}/{rec['case']} [{rec['backend']},{rec['device']}]: {rec['status']}"
            if rec.get("reason"):
                what += f" ({rec['reason']})"
            elapsed = time.time() - self.t0
            if self.tty:
                line = (f"\r[{bar:<{self.width}}] {self.done}/{self.total} {elapsed:5.0f}s  "
                        f"{self.summary()}  {what}")
                self._write(line[:200].ljust(200))
            else:
                self._write(f"[{self.done}/{self.total} {elapsed:.0f}s] {what}\n")

    def finish(self):
        with self.lock:
            self._write(("\n" if self.tty else "") + f"done: {self.done}/{self.total} cells in "
                        f"{time.time() - self.t0:.0f}s  {self.summary()}\n"
                        "  (M matches, R runs, I imports, F fails, - n/a)\n")

    def _write(self, s):
        self.stream.write(s)
        self.stream.flush()
