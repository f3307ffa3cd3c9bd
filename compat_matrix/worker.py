"""Cases on one backend, in a process of their own.

``python -m compat_matrix.worker TASK.json`` runs one task; ``python -m compat_matrix.worker
--serve TASK_FD DONE_FD`` runs the tasks whose paths the runner writes to TASK_FD, one a line,
and answers each with a line on DONE_FD once its result is on disk.  The runner sends a worker
the cells of one library x backend x device, in the spec's order: the backend is enabled, its
setup hooks called and the library imported once, as a user's process does.  A crash or a hang
ends the worker; the runner reports that cell and starts a fresh worker for the rest.

Writes into each task's directory:
- ``phase``        how far it got (started / imported / called), rewritten as it goes, so the
                   runner can say "imports, then crashed" when this process dies;
- ``outputs.npz``  the case's outputs (see values.py);
- ``result.json``  status, reason, detail, missing torch names, outputs' metadata, timings.
Comparison with the oracle is the runner's job (it has both results).
"""
from __future__ import annotations

import json
import os
import sys
import time
import traceback


def _write(path, text):
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        f.write(text)
    os.replace(tmp, path)


class _NullTrace:
    missing: dict = {}
    used: dict = {}


def _enable_backend(backend: str, scope: list[str]):
    """Switch the backend on (once per process)."""
    if backend == "torchproxy":
        import torchproxy
        torchproxy.enable(scope=scope)
    elif backend == "paddle_compat":
        import paddle
        compat = getattr(paddle, "compat", None)
        if compat is None or not hasattr(compat, "enable_torch_proxy"):
            raise _Unavailable(f"Paddle {paddle.__version__} has no paddle.compat.enable_torch_proxy")
        compat.enable_torch_proxy(scope=set(scope), silent=True)


def _tracer(backend: str):
    """A fresh trace per task (torchproxy), else nothing."""
    import contextlib
    if backend == "torchproxy":
        import torchproxy
        return torchproxy.trace()
    return contextlib.nullcontext(_NullTrace())


# what this process already did: the backend it enabled (or why it could not), setup hooks
_PROCESS = {"backend": None, "enable_error": None, "setup": {}}


class _Unavailable(Exception):
    pass


def _interpreter_fix() -> dict:
    """Triton's CPU interpreter made to do what compiled Triton does (numpy >= 2.4 ``__index__``,
    Python float arguments as fp32 scalars, autotuning without a driver, libdevice stubs): see
    torchproxy/integrations/triton_interpreter.py.  Applied in every backend's worker alike, the
    oracle's included, so that the comparison stays fair.  Loaded from its file: the module
    needs only numpy and Triton, and importing the torchproxy package would import Paddle into
    the oracle's process."""
    mod = sys.modules.get("_compat_matrix_interpreter_fix")
    if mod is None:
        import importlib.util
        here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
        path = os.path.join(here, "torchproxy", "integrations", "triton_interpreter.py")
        spec = importlib.util.spec_from_file_location("_compat_matrix_interpreter_fix", path)
        mod = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(mod)
        sys.modules["_compat_matrix_interpreter_fix"] = mod
    return mod.ensure_fixes()


def _versions() -> dict:
    out = {"python": sys.version.split()[0]}
    for name in ("paddle", "triton"):
        mod = sys.modules.get(name)
        if mod is not None:
            out[name] = getattr(mod, "__version__", "?")
    torch = sys.modules.get("torch")
    if torch is not None and type(torch).__name__ == "module" and not getattr(torch, "__torchproxy__", False):
        out["torch"] = getattr(torch, "__version__", "?")
    return out


def _setup_once(target: str):
    """A spec's setup hook, called once per process (what a user does once); a hook that
    failed fails every later task of this process the same way."""
    import importlib

    from . import classify
    if target not in _PROCESS["setup"]:
        mod_name, _, fn_name = target.partition(":")
        try:
            getattr(importlib.import_module(mod_name), fn_name)()
            _PROCESS["setup"][target] = None
        except Exception as exc:  # noqa: BLE001 - reported as the cell's error
            _PROCESS["setup"][target] = f"spec setup {target} failed: {classify.describe(exc)}"
    if _PROCESS["setup"][target]:
        raise RuntimeError(_PROCESS["setup"][target])


def run_task(task: dict) -> dict:
    from . import classify, spec as spec_mod, values

    out_dir = task["dir"]
    backend, device = task["backend"], task["device"]
    phase_file = os.path.join(out_dir, "phase")
    _write(phase_file, "started")
    result = {"status": "fails", "reason": None, "detail": "", "unsupported": [], "missing": [],
              "used": 0, "outputs": None}
    t0 = time.perf_counter()

    # the spec module joins the scope: its case functions' `import torch` get the backend
    scope = list(task["scope"]) + [task["module_name"]]
    if _PROCESS["backend"] is None:
        _PROCESS["backend"] = (backend, tuple(scope))
        try:
            _enable_backend(backend, scope)
        except _Unavailable as e:
            _PROCESS["enable_error"] = ("n/a", "unavailable", str(e))
        except Exception as exc:  # noqa: BLE001 - the backend itself is broken: every case says so
            _PROCESS["enable_error"] = (
                "fails", "error", f"enabling {backend} failed: {classify.describe(exc)}\n"
                + "".join(traceback.format_exception(type(exc), exc, exc.__traceback__)[-4:]))
    elif _PROCESS["backend"] != (backend, tuple(scope)):
        raise RuntimeError(f"worker enabled {_PROCESS['backend']}, task wants {(backend, scope)}")
    if _PROCESS["enable_error"]:
        status, reason, detail = _PROCESS["enable_error"]
        result.update(status=status, reason=reason, detail=detail)
        return result
    tracer = _tracer(backend)

    with tracer as t:
        stage = "import"
        try:
            for target in task.get("setup", []):
                _setup_once(target)
            result["setup"] = task.get("setup", [])
            if task.get("interpreter_fix") and device == "cpu":
                result["interpreter_fix"] = _interpreter_fix()
            # Paddle's proxy marks modules it loads for a scope with this attribute and looks for
            # it on the stack; our spec loader bypasses its finder, so mark it the same way.
            pre = (lambda m: m.__dict__.__setitem__("__enable_torch_proxy__", True)) \
                if backend == "paddle_compat" else None
            mod = _PROCESS.get("spec")  # imported once per process, like the library
            if mod is None or mod.__file__ != task["spec_path"]:
                mod = spec_mod.import_spec(task["spec_path"], task["module_name"], pre_exec=pre)
                _PROCESS["spec"] = mod
            import importlib
            for name in task["imports"]:
                importlib.import_module(name)
            result["import_s"] = round(time.perf_counter() - t0, 3)
            _write(phase_file, "imported")
            result["status"] = "imports"
            if task["case"] == "import":
                result["status"] = "runs"
            else:
                stage = "call"
                case = {c.name: c for c in mod.CASES}[task["case"]]
                import numpy as np
                with np.load(task["inputs"], allow_pickle=True) as z:
                    arrays = [z[f"i{i}"] for i in range(len(case.inputs))]
                args = [values.to_backend(a.item() if inp.kind == "value" else a, inp, backend, device)
                        for a, inp in zip(arrays, case.inputs)]
                t1 = time.perf_counter()
                out = case.fn(*args, **case.kwargs)
                leaves = values.flatten(out)
                result["call_s"] = round(time.perf_counter() - t1, 3)
                _write(phase_file, "called")
                result["outputs"] = values.save(leaves, os.path.join(out_dir, "outputs.npz"))
                result["status"] = "runs"
        except Exception as exc:  # noqa: BLE001 - any failure of the case is the result
            reason, detail, names = classify.classify(exc, backend, stage)
            result.update(reason=reason, detail=detail, unsupported=names)
        except SystemExit as exc:
            result.update(reason="error", detail=f"SystemExit({exc.code!r}) raised by the case")
        result["missing"] = sorted(t.missing)
        result["used"] = len(t.used)
    result["versions"] = _versions()
    result["wall_s"] = round(time.perf_counter() - t0, 3)
    return result


def _cpu_s() -> float:
    """CPU seconds (user + system) of this process so far, and of its children it waited for
    (compilers, ffmpeg)."""
    import resource
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


# CPU seconds already accounted to earlier tasks of this process: a task's cpu_s is what the
# process used since, so the first task of a worker carries its start (Python, the backend,
# the library's import) and the cpu_s of a run's cells add up to its workers' CPU
_CPU_SEEN = [0.0]


def _one(task_path: str):
    with open(task_path) as f:
        task = json.load(f)
    try:
        result = run_task(task)
    except BaseException:  # a bug of ours (or a KeyboardInterrupt): still say what happened
        result = {"status": "fails", "reason": "error",
                  "detail": "worker error: " + traceback.format_exc()[-1500:]}
    now = _cpu_s()
    result["cpu_s"] = round(now - _CPU_SEEN[0], 3)
    _CPU_SEEN[0] = now
    _write(os.path.join(task["dir"], "result.json"), json.dumps(result))


def _redirect(task_path: str):
    """This task's stdout/stderr (also C-level output, and faulthandler's) go to its own files."""
    sys.stdout.flush()
    sys.stderr.flush()
    tdir = os.path.dirname(os.path.abspath(task_path))
    for fd, name in ((1, "stdout.txt"), (2, "stderr.txt")):
        f = os.open(os.path.join(tdir, name), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(f, fd)
        os.close(f)


def serve(task_fd: int, done_fd: int):
    with os.fdopen(task_fd, "r") as tasks, os.fdopen(done_fd, "w") as done:
        for line in tasks:
            path = line.strip()
            if not path:
                continue
            _redirect(path)
            _one(path)
            sys.stdout.flush()
            sys.stderr.flush()
            done.write(path + "\n")
            done.flush()


def main(argv=None) -> int:
    from .lifeline import die_with_parent
    die_with_parent()
    argv = sys.argv[1:] if argv is None else argv
    if argv and argv[0] == "--serve":
        serve(int(argv[1]), int(argv[2]))
    else:
        _one(argv[0])
    sys.stdout.flush()
    sys.stderr.flush()
    # skip interpreter teardown: some libraries hang or crash in atexit handlers, and the
    # results are already on disk
    os._exit(0)


if __name__ == "__main__":
    main()
