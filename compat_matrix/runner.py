"""Plan the cells, run them in worker subprocesses, compare, append results as they come.

One *cell* = (library, case, backend, device).  The cells of one library x backend x device
form a *unit*: one worker process runs them in the spec's order (the import case first), so the
backend is enabled and the library imported once, as in a user's process; a crash or a timeout
ends that worker, the cell is reported (``crash`` / ``timeout``) and a fresh worker takes the
rest.  ``jobs`` units run at a time, the costliest first.  A proxy cell is compared with the
oracle's cell (real torch) of the same case as soon as both have run, whichever finished first.

Every finished cell is appended to ``OUT/results.jsonl`` at once (one JSON object a line), so
an interrupted run keeps what it had; ``resume=True`` skips the cells already there (a torn last
line, from a run killed mid-write, is cut off first).  ``shard=(i, n)`` runs the i-th of n
disjoint parts (whole libraries, balanced by case count), for a CI job matrix; ``merge``
(reports.merge) joins the parts' OUT folders.
"""
from __future__ import annotations

import dataclasses
import heapq
import json
import os
import select
import signal
import subprocess
import sys
import threading
import time

import numpy as np

from . import forkserver, spec as spec_mod, values
from .lifeline import ENV as LIFELINE_ENV
from .probe import probe

REPO_ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
IMPORT_CASE = "import"
SCAN_COST = 20.0  # seconds a `torchproxy scan` of one package takes here (for the schedule)


@dataclasses.dataclass
class Options:
    out: str = "reports"
    libs: list | None = None
    backends: tuple = spec_mod.BACKENDS
    devices: tuple | None = None      # None: cpu, plus gpu when one is present
    jobs: int = 2
    timeout: float = 180.0
    resume: bool = False
    python: str = sys.executable
    specs: list | None = None          # spec files / folders (default: compat_matrix/specs)
    cases: list | None = None          # only these case names (and the import case)
    scan: bool = True                  # also run `torchproxy scan` on each library (static)
    interpreter_fix: bool = True       # torchproxy's Triton-interpreter fixes, all backends alike
    python_for: dict = dataclasses.field(default_factory=dict)  # library -> its own Python
    shard: tuple | None = None         # (i, n), 1-based: run only the i-th of n parts
    isolate: bool = False              # one worker process per cell (slow; for debugging)
    fork_server: bool = True           # CPU workers forked from a process that imported
                                       # Paddle / torch once (forkserver.py)


def cell_key(rec) -> tuple:
    return (rec["lib"], rec["case"], rec["backend"], rec["device"])


def read_results(path) -> dict:
    """key -> record; the last record of a key wins; a torn or corrupt line is ignored."""
    out = {}
    if not os.path.exists(path):
        return out
    with open(path, encoding="utf-8", errors="replace") as f:
        for line in f:
            line = line.strip()
            if not line:
                continue
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                continue  # an interrupted write
            if isinstance(rec, dict) and rec.get("type", "cell") == "cell" and "lib" in rec:
                out[cell_key(rec)] = rec
    return out


def cut_torn_tail(path) -> int:
    """A run killed while writing leaves a last line without its newline: cut it off, so the
    next record starts on a line of its own.  -> bytes removed."""
    if not os.path.exists(path):
        return 0
    with open(path, "rb+") as f:
        f.seek(0, os.SEEK_END)
        size = f.tell()
        if size == 0:
            return 0
        f.seek(size - 1)
        if f.read(1) == b"\n":
            return 0
        # find the last newline
        pos, chunk = size, 4096
        keep = 0
        while pos > 0:
            start = max(0, pos - chunk)
            f.seek(start)
            data = f.read(pos - start)
            i = data.rfind(b"\n")
            if i >= 0:
                keep = start + i + 1
                break
            pos = start
        f.truncate(keep)
        return size - keep


class ResultLog:
    def __init__(self, path, fresh: bool):
        self.path = path
        self.lock = threading.Lock()
        if fresh and os.path.exists(path):
            os.remove(path)
        self.cut = cut_torn_tail(path)

    def append(self, rec: dict):
        line = json.dumps(rec, default=str)
        with self.lock, open(self.path, "a") as f:
            f.write(line + "\n")
            f.flush()


@dataclasses.dataclass
class Unit:
    """The cells of one library x backend x device: run by one worker process, in order."""
    spec: object
    backend: str
    device: str
    cases: list           # Case objects; None = the import case
    cost: float = 0.0

    @property
    def lib(self):
        return self.spec.library.name


def estimate_cost(s, case) -> float:
    """Seconds a cell is expected to take, from the spec alone (deterministic: shards agree)."""
    if case is None:
        return 6.0  # starting a worker: Python, Paddle or torch, the library
    t = case.timeout or 0
    return 1.0 + (t / 10.0 if t > 180 else 0.0)  # long timeouts mark builds (nvcc, JIT)


def shard_libraries(specs, n: int) -> list[list[str]]:
    """Whole libraries to n shards, costliest first onto the least loaded (deterministic)."""
    cost = {s.library.name: estimate_cost(s, None) + sum(estimate_cost(s, c) for c in s.cases)
            for s in specs}
    shards = [[0.0, i, []] for i in range(n)]
    for name in sorted(cost, key=lambda k: (-cost[k], k)):
        target = min(shards, key=lambda x: (x[0], x[1]))
        target[0] += cost[name]
        target[2].append(name)
    return [sorted(x[2]) for x in shards]


class _WorkerProc:
    """One ``compat_matrix.worker --serve`` process: tasks in, "done" lines out."""

    def __init__(self, runner, python, env, server=None, path=None):
        """``server``: a ForkServer to fork this worker from (``path``: its sys.path), else
        a fresh ``python -m compat_matrix.worker``."""
        task_r, self.task_w = os.pipe()
        self.done_r, done_w = os.pipe()
        self.p = server.spawn(env, REPO_ROOT, path, (task_r, done_w)) if server else None
        if self.p is None:
            self.p = subprocess.Popen(
                [python, "-m", "compat_matrix.worker", "--serve", str(task_r), str(done_w)],
                stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                env=env, cwd=REPO_ROOT, pass_fds=(task_r, done_w),
                start_new_session=True)  # its own group: a kill takes its children too
        os.close(task_r)
        os.close(done_w)
        self.buf = b""
        self.runner = runner
        with runner.procs_lock:
            runner.procs[self.p.pid] = self

    def run(self, task_path, timeout) -> tuple[str, int | None]:
        """-> ("done", None) | ("timeout", None) | ("died", returncode)."""
        try:
            os.write(self.task_w, (task_path + "\n").encode())
        except (BrokenPipeError, OSError):
            return "died", self.p.wait()
        deadline = time.monotonic() + timeout
        while True:
            if b"\n" in self.buf:
                line, self.buf = self.buf.split(b"\n", 1)
                return "done", None
            left = deadline - time.monotonic()
            if left <= 0:
                return "timeout", None
            r, _, _ = select.select([self.done_r], [], [], min(left, 0.5))
            if r:
                chunk = os.read(self.done_r, 4096)
                if not chunk:  # the worker's end closed: it died
                    return "died", self.p.wait()
                self.buf += chunk
            elif self.p.poll() is not None:
                return "died", self.p.returncode

    def kill(self):
        _kill_group(self.p)
        try:
            self.p.wait(timeout=30)
        except subprocess.TimeoutExpired:
            pass
        self.close()

    def close(self):
        for fd in (self.task_w, self.done_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.task_w = self.done_r = -1
        with self.runner.procs_lock:
            self.runner.procs.pop(self.p.pid, None)

    def finish(self):
        """No more tasks: the worker reads EOF and exits (killed if it lingers)."""
        try:
            os.close(self.task_w)
        except OSError:
            pass
        self.task_w = -1
        try:
            self.p.wait(timeout=20)
        except subprocess.TimeoutExpired:
            _kill_group(self.p)
            self.p.wait()
        self.close()


class Runner:
    def __init__(self, opts: Options, progress=None):
        self.opts = opts
        self.progress = progress
        self.out = os.path.abspath(opts.out)
        self.work = os.path.join(self.out, "work")
        self.procs: dict[int, _WorkerProc] = {}
        self.procs_lock = threading.Lock()
        self.judge_lock = threading.Lock()
        self.stopping = False
        self.servers: dict[tuple, forkserver.ForkServer] = {}   # (python, preload) -> server
        self.servers_lock = threading.Lock()
        self.fork_notes: dict[str, str] = {}   # why some workers started fresh (meta.json)
        self._starter_q = None
        self._cpu_start = _cpu_now()
        self._scan_results: dict = {}
        self.scan_cpu: dict = {}   # "lib:target" -> CPU seconds of its scan (meta.json)

    def _say(self, msg):
        if self.progress and hasattr(self.progress, "note"):
            self.progress.note(msg)

    # -- planning --------------------------------------------------------------------------
    def plan(self):
        known = spec_mod.load_specs(self.opts.specs)
        specs = spec_mod.select_specs(known, self.opts.libs)
        # a --python-for of a known library that --libs leaves out is unused, not an error
        # (./dev matrix always names the TileLang row's Python; `./dev matrix --libs fla` ran
        # into "unknown libraries ['kernels_tilelang']")
        unknown = set(self.opts.python_for) - {s.library.name for s in known}
        if unknown:
            raise ValueError(f"--python-for names unknown libraries {sorted(unknown)}")
        if self.opts.shard:
            i, n = self.opts.shard
            if not (n >= 1 and 1 <= i <= n):
                raise ValueError(f"--shard takes i/n with 1 <= i <= n, not {i}/{n}")
            mine = set(shard_libraries(specs, n)[i - 1])
            specs = [s for s in specs if s.library.name in mine]
        n_cases = sum(len(s.cases) + 1 for s in specs)
        self._say(f"{len(specs)} libraries, {n_cases} cases"
                  + (f" (shard {self.opts.shard[0]}/{self.opts.shard[1]})" if self.opts.shard else "")
                  + "; probing the worker Python(s)...")
        # one probe per Python, at the same time: a library may need its own environment
        self.env_infos = {}
        pythons = sorted({self.python_of(s) for s in specs} | {self.opts.python})
        errors = {}

        def do_probe(py):
            mine = [s for s in specs if self.python_of(s) == py]
            modules = sorted({m for s in mine for m in s.library.requires})
            paths = [p for s in mine for p in self._pythonpath(s)]
            try:
                self.env_infos[py] = probe(py, modules, env=self._env(paths))
            except Exception as e:  # noqa: BLE001 - re-raised below, in this thread
                errors[py] = e
        threads = [threading.Thread(target=do_probe, args=(py,)) for py in pythons]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        if errors:
            raise next(iter(errors.values()))
        self.env_info = self.env_infos[self.opts.python]
        gpu = any(i.get("gpu_count", 0) > 0 for i in self.env_infos.values())
        devices = self.opts.devices or (("cpu", "gpu") if gpu else ("cpu",))
        backends = list(self.opts.backends)
        if any(b != spec_mod.ORACLE for b in backends) and spec_mod.ORACLE not in backends:
            backends.insert(0, spec_mod.ORACLE)  # the proxies are compared with it
        backends.sort(key=lambda b: b != spec_mod.ORACLE)
        groups, units = [], []
        for s in specs:
            cases = [None] + [c for c in s.cases
                              if not self.opts.cases or c.name in self.opts.cases]
            # costliest cases first within a unit, the import case always first
            ordered = [None] + sorted(cases[1:], key=lambda c: -estimate_cost(s, c))
            for dev in devices:
                for case in cases:
                    groups.append((s, case, dev, backends))
                for b in backends:
                    chunks = [[c] for c in ordered] if self.opts.isolate else [ordered]
                    for chunk in chunks:
                        cost = estimate_cost(s, None) + sum(estimate_cost(s, c) for c in chunk if c)
                        units.append(Unit(s, b, dev, chunk, cost))
        self.specs, self.devices, self.backends, self.groups = specs, devices, backends, groups
        self.units = units
        return groups

    def python_of(self, s) -> str:
        return self.opts.python_for.get(s.library.name, self.opts.python)

    def info_of(self, s) -> dict:
        return self.env_infos[self.python_of(s)]

    def total_cells(self) -> int:
        return sum(len(g[3]) for g in self.groups)

    # -- running ---------------------------------------------------------------------------
    def run(self) -> dict:
        os.makedirs(self.work, exist_ok=True)
        results_path = os.path.join(self.out, "results.jsonl")
        if not self.opts.resume and os.path.exists(results_path):
            os.remove(results_path)
        self.log = ResultLog(results_path, fresh=False)  # cuts a torn last line
        done = read_results(results_path) if self.opts.resume else {}
        self.done = done
        self.oracle_recs = {}     # (lib, case, device) -> the oracle's record
        self.pending = {}         # (lib, case, device) -> [(spec, case, backend, rec)]
        started = time.time()
        meta = {"started": started, "loadavg_start": _loadavg(), "cpus": os.cpu_count(), "options": dataclasses.asdict(self.opts), "env": self.env_info,
                "env_for": {s.library.name: self.info_of(s) for s in self.specs
                            if self.python_of(s) != self.opts.python},
                "devices": list(self.devices), "backends": list(self.backends),
                "libraries": {s.library.name: {"install": s.library.install_lines(),
                                               "scope": list(s.library.scope),
                                               "notes": s.library.notes,
                                               "devices": list(s.library.devices),
                                               "unavailable_reason": s.library.unavailable_reason,
                                               "cases": [c.name for c in s.cases]}
                              for s in self.specs}}
        for (lib, case, backend, dev), rec in done.items():
            if backend == spec_mod.ORACLE:
                self.oracle_recs[(lib, case, dev)] = rec
        for s, case, dev, _b in self.groups:  # every backend reads the same inputs file
            if case is not None:
                self._inputs(s, case, os.path.join(self.work, s.library.name, case.name))
        if self.progress:
            self.progress.start(self.total_cells(), already=[r for r in done.values()])
        queue = [(-u.cost, u.backend != spec_mod.ORACLE, i, "unit", u) for i, u in enumerate(self.units)]
        if self.opts.scan:  # a static scan takes about as long as a unit of a mid-sized library
            by_python: dict[str, list] = {}  # one scan process per Python (scanjob.py)
            for s in self.specs:
                if s.library.scan:
                    by_python.setdefault(self.python_of(s), []).append(s)
            queue += [(-SCAN_COST * sum(len(s.library.scan) for s in group), 1, 10_000 + i,
                       "scan", group) for i, group in enumerate(by_python.values())]
        heapq.heapify(queue)
        qlock = threading.Lock()
        errors = []

        def worker_thread():
            while not self.stopping:
                with qlock:
                    if not queue:
                        return
                    *_, kind, item = heapq.heappop(queue)
                try:
                    self._run_unit(item) if kind == "unit" else self._scan(item)
                except BaseException as e:  # noqa: BLE001 - re-raised in the main thread
                    errors.append(e)
                    self.stop()
                    return

        threads = [threading.Thread(target=worker_thread, name=f"matrix-{i}", daemon=True)
                   for i in range(max(1, self.opts.jobs))]
        import queue as queue_mod
        self._starter_q = queue_mod.Queue()
        starter = threading.Thread(target=self._starter, name="matrix-starter", daemon=True)
        starter.start()
        try:
            for t in threads:
                t.start()
            for t in threads:
                while t.is_alive():
                    t.join(0.2)
            if errors:
                raise errors[0]
            with self.judge_lock:  # proxies whose oracle cell never came (it should not happen)
                for gkey, items in list(self.pending.items()):
                    for args in items:
                        self._finish(*args, None)
                self.pending.clear()
        except KeyboardInterrupt:
            self.stop()
            for t in threads:
                t.join(60)
            raise
        finally:
            meta["finished"] = time.time()
            meta["loadavg_end"] = _loadavg()
            meta["wall_s"] = round(meta["finished"] - started, 1)
            self._close_servers()
            self._starter_q.put(None)
            meta["fork_server"] = {
                "used": {f"{py} ({pre})": sv.ready for (py, pre), sv in self.servers.items()},
                "fresh_workers": dict(self.fork_notes)}
            meta["cpu_s"] = _cpu_split(self._cpu_start)
            meta["scan_cpu_s"] = dict(self.scan_cpu)
            prev = _read_json(os.path.join(self.out, "meta.json"))
            if self.opts.resume and prev:
                meta["wall_s_previous_runs"] = round(prev.get("wall_s", 0)
                                                     + prev.get("wall_s_previous_runs", 0), 1)
            with open(os.path.join(self.out, "meta.json"), "w") as f:
                json.dump(meta, f, indent=1, default=str)
            if self.progress:
                self.progress.finish()
        return meta

    def stop(self):
        """Kill every worker still running (their process groups), and the fork servers."""
        self.stopping = True
        with self.procs_lock:
            procs = list(self.procs.values())
        for w in procs:
            _kill_group(w.p)
        with self.servers_lock:
            for sv in self.servers.values():
                sv.kill()

    # -- fork servers ----------------------------------------------------------------------
    def _fork_server_for(self, s, backend, device, env):
        """The fork server this unit's worker comes from, or None (a fresh process): CPU
        units only (a GPU worker initialises CUDA, which does not survive a fork, and the GPU
        run is not the one whose CPU time counts), and only where the library's own
        environment leaves alone what the preloaded modules read while importing."""
        if not self.opts.fork_server or device != "cpu":
            return None
        lib = s.library
        clash = [k for k, _ in lib.env if k.startswith(forkserver.IMPORT_TIME_ENV_PREFIXES)]
        if clash:
            self.fork_notes[lib.name] = (f"its environment sets {', '.join(clash)}, which the "
                                         "preloaded modules may read when imported")
            return None
        python = self.python_of(s)
        preload = "torch" if backend == spec_mod.ORACLE else "paddle"
        key = (python, preload)
        with self.servers_lock:
            if self.stopping:
                return None
            sv = self.servers.get(key)
            if sv is None or (sv.ready and not sv.alive):  # none yet, or it died: a new one
                base = self._env([])
                base.update({k: v for k, v in env.items()
                             if k in (LIFELINE_ENV, "PYTHONFAULTHANDLER", "TRITON_INTERPRET",
                                      "TORCHPROXY_INTERPRETER_FIX")})
                base.pop("TORCHPROXY_SCOPE", None)
                log = os.path.join(self.work, f"forkserver-{preload}-{len(self.servers)}.log")
                sv = self.servers[key] = self._in_starter(
                    lambda: forkserver.ForkServer(python, preload, base, REPO_ROOT, log))
        if not sv.wait_ready():  # outside the lock: another server may be importing meanwhile
            self.fork_notes[f"{python} ({preload})"] = f"fork server not used: {sv.why}"
            return None
        return sv

    def _in_starter(self, fn):
        """``fn()`` on the run's starter thread, which lives until the fork servers are closed:
        a server dies with the thread that started it (PR_SET_PDEATHSIG follows the thread),
        and the matrix-N threads end as soon as the queue runs dry, while the other thread's
        workers are still running."""
        box, done = {}, threading.Event()
        self._starter_q.put((fn, box, done))
        done.wait()
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _starter(self):
        while True:
            item = self._starter_q.get()
            if item is None:
                return
            fn, box, done = item
            try:
                box["value"] = fn()
            except BaseException as e:  # noqa: BLE001 - re-raised in the asking thread
                box["error"] = e
            done.set()

    def _close_servers(self):
        with self.servers_lock:
            servers = list(self.servers.values())
        for sv in servers:
            if sv.ready is None:
                sv.kill()  # started, never asked for (the run was stopped)
            sv.close()

    def _scan(self, specs):
        """`torchproxy scan --json --no-cpp` of the libraries' packages -> OUT/scan/<lib>.json,
        for the libraries of one Python in one process (compat_matrix/scanjob.py: Paddle and
        the facade's table loaded once, not once per library).

        Static: every torch name the package's code uses, provided or missing, also the names
        a run never reaches because it stops at the first missing one."""
        items, paths = [], {}
        for s in specs:
            lib = s.library
            installed = self.info_of(s)["installed"]
            path = os.path.join(self.out, "scan", f"{lib.name}.json")
            if self.opts.resume and os.path.exists(path):
                continue
            paths[lib.name] = path
            items += [{"lib": lib.name, "target": t, "paths": self._pythonpath(s),
                       "exclude": list(lib.scan_exclude)}
                      for t in lib.scan if installed.get(t.split(".")[0], True)]
        if not items or self.stopping:
            return
        os.makedirs(os.path.join(self.out, "scan"), exist_ok=True)
        os.makedirs(self.work, exist_ok=True)
        job = os.path.join(self.work, f"scan-{specs[0].library.name}.json")  # one job a Python
        with open(job, "w") as f:
            json.dump(items, f)
        got = job + ".out"
        env = self._env([])
        env[LIFELINE_ENV] = str(os.getpid())
        timeout = 300 + 60 * len(items)
        try:
            r = subprocess.run([self.python_of(specs[0]), "-m", "compat_matrix.scanjob", job, got],
                               capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT,
                               env=env)
            data = _read_json(got) if r.returncode == 0 else None
            failed = None if data is not None else f"exit {r.returncode}: {r.stderr[-800:]}"
        except subprocess.TimeoutExpired as e:
            data, failed = None, repr(e)[:800]
        if data is not None:
            self.scan_cpu.update(data.pop("_cpu_s", {}))
        for it in items:  # a report per target, or why the scan process gave none
            rep = (data or {}).get(it["lib"], {}).get(it["target"])
            data_for = self._scan_results.setdefault(it["lib"], {})
            data_for[it["target"]] = rep if rep is not None else {"error": failed or "no report"}
        for lib, path in paths.items():
            if lib in self._scan_results:
                with open(path, "w") as f:
                    json.dump(self._scan_results.pop(lib), f)

    def _emit(self, rec):
        self.log.append(rec)
        if self.progress:
            self.progress.update(rec)

    def _complete(self, s, case, backend, device, rec):
        """A cell ran (or was decided without running): judge it, record it.  A proxy cell
        waits for the oracle's cell of its case."""
        lib = s.library.name
        gkey = (lib, rec["case"], device)
        with self.judge_lock:
            if backend == spec_mod.ORACLE:
                self._finish(s, case, backend, rec, None)
                self.oracle_recs[gkey] = rec
                for args in self.pending.pop(gkey, []):
                    self._finish(*args, rec)
            elif spec_mod.ORACLE not in self.backends or gkey in self.oracle_recs:
                self._finish(s, case, backend, rec, self.oracle_recs.get(gkey))
            else:
                self.pending.setdefault(gkey, []).append((s, case, backend, rec))

    def _finish(self, s, case, backend, rec, oracle):
        if rec.pop("_ran", False) and case is not None and rec["status"] == "runs":
            gdir = os.path.join(self.work, s.library.name, case.name)
            tdir = os.path.join(self.out, rec["dir"])
            self._judge(rec, s, case, backend, tdir, oracle, os.path.join(gdir, "inputs.npz"))
        self._emit(rec)

    def _run_unit(self, unit: Unit):
        s, backend, device = unit.spec, unit.backend, unit.device
        lib = s.library
        proc = None
        try:
            for case in unit.cases:
                if self.stopping:
                    return
                case_name = case.name if case else IMPORT_CASE
                key = (lib.name, case_name, backend, device)
                if key in self.done:
                    continue
                rec = self._precheck(s, case, backend, device)
                if rec is not None:
                    self._complete(s, case, backend, device, rec)
                    continue
                task, tdir = self._task(s, case, backend, device)
                timeout = (case.timeout if case and case.timeout else None) or self.opts.timeout
                if proc is None:
                    env = self._worker_env(s, device)
                    server = self._fork_server_for(s, backend, device, env)
                    path = None
                    if server is not None:  # what a fresh `python -m` worker's sys.path is
                        path = [REPO_ROOT] + self._pythonpath(s) + server.path[1:]
                    proc = _WorkerProc(self, self.python_of(s), env, server, path)
                how = "fresh" if isinstance(proc.p, subprocess.Popen) else "forked"
                t0 = time.perf_counter()
                outcome, rc = proc.run(os.path.join(tdir, "task.json"), timeout)
                wall = round(time.perf_counter() - t0, 2)
                if outcome != "done":
                    proc.kill()
                    proc = None
                    if self.stopping:
                        return  # not recorded: --resume runs it again
                res = self._result(tdir, outcome, rc, wall, timeout)
                rec = self._base(s, case, backend, device)
                rec.update({k: v for k, v in res.items() if k != "type"})
                rec["dir"] = os.path.relpath(tdir, self.out)
                rec["worker"] = how
                if case is None and rec["status"] == "runs":
                    rec["status"] = "imports"  # the import case: importing is all it does
                rec["_ran"] = True
                self._complete(s, case, backend, device, rec)
        finally:
            if proc is not None:
                if self.stopping:
                    proc.kill()
                else:
                    proc.finish()

    def _base(self, s, case, backend, device):
        return {"type": "cell", "lib": s.library.name, "case": case.name if case else IMPORT_CASE,
                "backend": backend, "device": device, "status": "fails", "reason": None,
                "detail": "", "unsupported": [], "missing": []}

    def _precheck(self, s, case, backend, device) -> dict | None:
        """The record of a cell that cannot run here (n/a, not installed), else None."""
        lib = s.library
        rec = self._base(s, case, backend, device)
        devices_ok = case.devices if case and case.devices else lib.devices
        info = self.info_of(s)
        if device not in devices_ok:
            why = lib.unavailable_reason if device not in lib.devices else ""
            return {**rec, "status": "n/a", "reason": "unavailable",
                    "detail": f"{rec['case']} does not run on {device}" + (f": {why}" if why else "")}
        if device == "gpu" and not info.get("gpu_count"):
            return {**rec, "status": "n/a", "reason": "unavailable", "detail": "no GPU here"}
        if backend == "paddle_compat" and not info.get("paddle_compat"):
            return {**rec, "status": "n/a", "reason": "unavailable",
                    "detail": f"Paddle {info.get('paddle')} has no paddle.compat.enable_torch_proxy"}
        if backend == "torch" and not info.get("torch_installed"):
            return {**rec, "status": "n/a", "reason": "unavailable", "detail": "real torch is not installed"}
        missing = [m for m in lib.requires if not info["installed"].get(m)]
        if missing:
            return {**rec, "reason": "not_installed",
                    "detail": f"{', '.join(missing)} not installed; install: " + " && ".join(lib.install_lines())}
        return None

    def _task(self, s, case, backend, device):
        lib = s.library
        case_name = case.name if case else IMPORT_CASE
        gdir = os.path.join(self.work, lib.name, case_name)
        tdir = os.path.join(gdir, f"{backend}-{device}")
        os.makedirs(tdir, exist_ok=True)
        for fn in ("result.json", "outputs.npz", "phase"):
            if os.path.exists(os.path.join(tdir, fn)):
                os.remove(os.path.join(tdir, fn))
        inputs_path = self._inputs(s, case, gdir) if case else None
        task = {"dir": tdir, "spec_path": s.path, "module_name": s.module_name,
                "case": case_name, "backend": backend, "device": device,
                "scope": list(lib.scope), "inputs": inputs_path,
                "imports": list(lib.imports) + (list(case.imports) if case else []),
                "interpreter_fix": self.opts.interpreter_fix and "triton" in lib.requires,
                "setup": [fn for b, d, fn in lib.setup if b in ("*", backend) and d in ("*", device)]}
        with open(os.path.join(tdir, "task.json"), "w") as f:
            json.dump(task, f)
        return task, tdir

    def _inputs(self, s, case, gdir) -> str:
        path = os.path.join(gdir, "inputs.npz")
        if not os.path.exists(path):
            os.makedirs(gdir, exist_ok=True)
            arrays = spec_mod.make_inputs(s.library.name, case)
            packed = {}
            for i, a in enumerate(arrays):
                if isinstance(a, np.ndarray):
                    packed[f"i{i}"] = a
                else:
                    obj = np.empty((), dtype=object)
                    obj[()] = a
                    packed[f"i{i}"] = obj
            tmp = path + f".{os.getpid()}.{threading.get_ident()}.tmp.npz"
            np.savez(tmp, **packed)
            os.replace(tmp, path)
        return path

    # -- worker processes ------------------------------------------------------------------
    @staticmethod
    def _pythonpath_of(spec_path, lib) -> list[str]:
        return [os.path.normpath(os.path.join(os.path.dirname(spec_path), p)) for p in lib.pythonpath]

    def _pythonpath(self, s) -> list[str]:
        return self._pythonpath_of(s.path, s.library)

    @staticmethod
    def _env(extra_paths) -> dict:
        env = dict(os.environ)
        env["PYTHONPATH"] = os.pathsep.join(list(extra_paths) + [REPO_ROOT] + [
            p for p in env.get("PYTHONPATH", "").split(os.pathsep) if p])
        return env

    def _worker_env(self, s, device) -> dict:
        env = self._env(self._pythonpath(s))
        if device == "cpu":
            env["TRITON_INTERPRET"] = "1"
        else:
            env.pop("TRITON_INTERPRET", None)
        env.pop("TORCHPROXY_SCOPE", None)  # the worker enables the backend itself
        env.update(dict(s.library.env))
        env.setdefault("PYTHONFAULTHANDLER", "1")  # a segfault prints the Python stack
        env[LIFELINE_ENV] = str(os.getpid())  # the worker dies with this process
        if not self.opts.interpreter_fix:
            env["TORCHPROXY_INTERPRETER_FIX"] = "0"
        return env

    def _result(self, tdir, outcome, rc, wall, timeout) -> dict:
        result = _read_json(os.path.join(tdir, "result.json"))
        if result is not None and outcome == "done":
            result["proc_s"] = wall
            return result
        phase = _read_text(os.path.join(tdir, "phase")) or "not started"
        reached = "imports" if phase in ("imported", "called") else "fails"
        stderr_tail = _tail(os.path.join(tdir, "stderr.txt"))
        if outcome == "timeout":
            return {"status": reached, "reason": "timeout", "proc_s": wall,
                    "detail": f"no result after {timeout:g} s (phase: {phase}); killed.\n{stderr_tail}"}
        if rc is None:
            how = "ended without a result"
        elif rc < 0:
            how = f"killed by signal {signal.Signals(-rc).name}"
        else:
            how = f"exit code {rc}"
        return {"status": reached, "reason": "crash", "proc_s": wall,
                "detail": f"worker {how} (phase: {phase})\n{stderr_tail}"}

    # -- comparison ------------------------------------------------------------------------
    def _judge(self, rec, s, case, backend, tdir, oracle, inputs_path):
        """A cell that ran: compare with the oracle (or, failing that, the numpy reference)."""
        actual_npz = os.path.join(tdir, "outputs.npz")
        if backend == spec_mod.ORACLE:
            if case.reference is None:
                return  # the oracle stays "runs": nothing to check it against
            self._against_reference(rec, s, case, actual_npz, inputs_path)
            return
        # an oracle that ran has outputs, even when they disagree with the numpy reference
        if oracle and oracle.get("outputs") is not None:
            if not any("key" in m for m in oracle["outputs"]):
                rec["detail"] = "no numeric output to compare (the case returns no tensor or number)"
                return  # stays "runs": equal Nones are not a numerical match
            oracle_npz = os.path.join(self.out, oracle["dir"], "outputs.npz")
            diff = values.compare(oracle["outputs"], oracle_npz, rec["outputs"], actual_npz,
                                  case.tolerance)
            rec["compared_to"] = "torch"
            if diff is None:
                rec["status"] = "matches"
            else:
                rec.update(status="fails", reason="wrong_numbers", detail=diff)
            return
        why = (f"oracle (real torch) {oracle.get('status')}: {oracle.get('reason')}: "
               f"{(oracle.get('detail') or '')[:300]}") if oracle else "oracle not run"
        if case.reference is not None:
            self._against_reference(rec, s, case, actual_npz, inputs_path)
            rec["detail"] = (rec.get("detail") or "") + f" [no oracle result: {why}]"
            return
        rec.update(reason="oracle_failed", detail=why)

    def _against_reference(self, rec, s, case, actual_npz, inputs_path):
        with np.load(inputs_path, allow_pickle=True) as z:
            args = [z[f"i{i}"] for i in range(len(case.inputs))]
        args = [a.item() if a.dtype == object else a for a in args]
        rec["compared_to"] = "reference"
        try:
            ref = case.reference(*args, **case.kwargs)
            _numpy_leaves(ref)
        except Exception as e:  # noqa: BLE001 - a broken reference is reported, not hidden
            rec.update(status="runs", reason="error", detail=f"numpy reference raised {e!r}")
            return
        ref_leaves = _numpy_leaves(ref)
        got = rec["outputs"]
        if len(ref_leaves) != len(got):
            rec.update(status="fails", reason="wrong_numbers",
                       detail=f"{len(got)} output(s), the numpy reference gives {len(ref_leaves)}")
            return
        problems = []
        with np.load(actual_npz) as arrays:
            for ref_arr, meta in zip(ref_leaves, got):
                if "key" not in meta:  # None / str / an object: nothing numeric came back
                    problems.append(f"{meta['path']}: got {meta['kind']}, the reference gives a value")
                    continue
                a = arrays[meta["key"]]
                if a.shape != ref_arr.shape:
                    problems.append(f"{meta['path']}: shape {list(a.shape)}, reference {list(ref_arr.shape)}")
                    continue
                msg = values.compare_arrays(ref_arr.astype(a.dtype) if a.dtype.kind in "fc" else ref_arr,
                                            a, meta["dtype"], case.tolerance, label="reference")
                if msg:
                    problems.append(f"{meta['path']} vs numpy reference: {msg}")
        if problems:
            rec.update(status="fails", reason="wrong_numbers", detail="; ".join(problems[:4]))
        else:
            rec["status"] = "matches"


def _numpy_leaves(value) -> list:
    """A reference's result as a flat list of numpy arrays (tuples/lists flattened in order,
    numbers and numpy scalars as 0-d arrays); anything else is a broken reference."""
    if isinstance(value, (tuple, list)):
        return [leaf for v in value for leaf in _numpy_leaves(v)]
    arr = np.asarray(value)
    if arr.dtype.kind not in "biufc":
        raise TypeError(f"numpy reference returned {type(value).__name__}, not numbers")
    return [arr]


def _kill_group(p: subprocess.Popen):
    try:
        os.killpg(p.pid, signal.SIGKILL)
    except (ProcessLookupError, PermissionError):
        pass


def _cpu_now() -> dict:
    import resource
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return {"runner": me.ru_utime + me.ru_stime, "children": kids.ru_utime + kids.ru_stime}


def _cpu_split(start: dict) -> dict:
    """CPU seconds (user + system) of this run since ``start`` (the Runner's creation): the
    runner itself (its threads: planning, judging, reports) and its children it waited for
    (probes, fork servers, workers, scans); each cell's own share is its record's ``cpu_s``.
    Counted from the start because a process keeps its counters across exec: ./dev matrix
    execs the runner after its installs and builds, whose CPU would be counted here too."""
    now = _cpu_now()
    return {k: round(now[k] - start.get(k, 0.0), 1) for k in now}


def _loadavg():
    """1-minute load average (other jobs on the machine stretch the wall time), or None."""
    try:
        return round(os.getloadavg()[0], 1)
    except (OSError, AttributeError):
        return None


def _read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, json.JSONDecodeError):
        return None


def _read_text(path):
    try:
        with open(path) as f:
            return f.read().strip()
    except OSError:
        return None


def _tail(path, n=1500) -> str:
    try:
        with open(path, "rb") as f:
            f.seek(0, os.SEEK_END)
            size = f.tell()
            f.seek(max(0, size - n))
            return f.read().decode("utf-8", "replace")
    except OSError:
        return ""
