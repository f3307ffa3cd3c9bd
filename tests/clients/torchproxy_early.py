"""pytest plugin for running a client's own suite (tests/clients/liger_suite.py), loaded with
``-p torchproxy_early`` before the suite's conftest.py files run:

- ``$TORCHPROXY_INTERPRETER_FIXES=1``: apply torchproxy's fixes to Triton's CPU interpreter
  (torchproxy/integrations/triton_interpreter.py: numpy >= 2.4, Python float kernel arguments,
  autotune without a driver...), the same on the real-torch side and the proxy side;
- ``$TORCHPROXY_EARLY_SCOPE=a,b,...``: enable torchproxy with that scope now, i.e. before the
  conftest files and the helpers they import, so those in scope get the facade too.  Stand-in
  until torchproxy.pytest_plugin enables the scope that early itself (issue 14); used together
  with it: ``-p torchproxy_early -p torchproxy.pytest_plugin --torchproxy-scope=...``.
"""
import os

if os.environ.get("TORCHPROXY_INTERPRETER_FIXES") == "1":
    from torchproxy.integrations import triton_interpreter as _ti
    _ti.ensure_fixes()

_scope = os.environ.get("TORCHPROXY_EARLY_SCOPE")
if _scope:
    import torchproxy
    torchproxy.enable(scope=set(_scope.split(",")))


# --- $TORCHPROXY_CASE_LOG=path: one JSON line per case outcome, appended as each case ends, so
# a run that is killed or times out keeps every case it finished (pytest's -rA summary and
# --junitxml are only written at the end of the session).  liger_suite.run reads it.  A
# "{file}" in the path is replaced by the case's test file name (one log per file in a batch).
_case_log = os.environ.get("TORCHPROXY_CASE_LOG")


def _log_case(nodeid, outcome, message, duration):
    import json
    import time
    # cpu: the process's CPU seconds over the case (all threads), which a loaded machine does
    # not stretch the way it stretches the wall-clock duration
    cpu = time.process_time() - _cpu_start.pop(nodeid, time.process_time())
    # code: liger_suite.code_fingerprint() of the code that ran the case (a resumed side
    # reruns the cases other code logged)
    line = json.dumps({"id": nodeid, "outcome": outcome, "message": message,
                       "duration": round(duration, 3), "cpu": round(cpu, 3),
                       "code": os.environ.get("TORCHPROXY_CASE_LOG_CODE", "")}) + "\n"
    path = _case_log.replace("{file}", os.path.basename(nodeid.split("::")[0]))
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
    try:
        os.write(fd, line.encode())  # one write: a line is whole or absent
    finally:
        os.close(fd)


def _message(report):
    """pytest's one-line reason (what -rA prints after " - ")."""
    lr = report.longrepr
    if isinstance(lr, tuple):  # a skip: (path, lineno, reason)
        return str(lr[2])[:300]
    crash = getattr(lr, "reprcrash", None)
    text = crash.message if crash is not None else str(lr or "")
    return text.strip().splitlines()[0][:300] if text.strip() else ""


_cpu_start = {}  # nodeid -> time.process_time() when the case started

if _case_log:
    _pending = {}  # nodeid -> duration so far (setup + call), written at teardown

    def pytest_runtest_logstart(nodeid, location):
        import time
        _cpu_start[nodeid] = time.process_time()

    def pytest_runtest_logreport(report):
        xfail = hasattr(report, "wasxfail")
        d = _pending.get(report.nodeid, 0.0) + report.duration
        if report.when == "setup":
            if report.failed:
                _log_case(report.nodeid, "ERROR", _message(report), d)
            elif report.skipped:
                _log_case(report.nodeid, "XFAIL" if xfail else "SKIPPED", _message(report), d)
            else:
                _pending[report.nodeid] = d
        elif report.when == "call":
            _pending.pop(report.nodeid, None)
            outcome = ("XPASS" if xfail else "PASSED") if report.passed else (
                "FAILED" if report.failed else ("XFAIL" if xfail else "SKIPPED"))
            _log_case(report.nodeid, outcome,
                      "" if report.passed else _message(report), d)
        elif report.failed:  # teardown error after the case's own outcome: recorded second
            _log_case(report.nodeid, "ERROR", "teardown: " + _message(report), d)

    def pytest_collectreport(report):
        if report.failed:  # a module that does not import: one ERROR for the file, as -rA
            _log_case(report.nodeid, "ERROR", _message(report), 0.0)


# --- $TORCHPROXY_COLLECT_SKIPS=path (with --collect-only): the collected cases that their own
# skip/skipif markers skip, as {nodeid: reason}, so that liger_suite --record --max-cases picks
# among cases that run.  pytest evaluates those markers only at setup; evaluating them here is
# the same evaluation (pytest's own evaluate_skip_marks, conditions computed at import or strings
# evaluated in the module's namespace), done early.  A skip made inside a test's body
# (pytest.skip(...)) cannot be known without running it and is not listed.
_collect_skips = os.environ.get("TORCHPROXY_COLLECT_SKIPS")
# --- $TORCHPROXY_COLLECT_BF16=path (with --collect-only): the collected cases whose parameters
# hold torch.bfloat16 (a ``dtype``, ``cast_dtype``, ``autocast_dtype``... parameter), as a JSON
# list, for liger_suite --rerecord-bf16 (the cases an interpreter fix for bfloat16 can change)
_collect_bf16 = os.environ.get("TORCHPROXY_COLLECT_BF16")

if _collect_skips or _collect_bf16:
    def pytest_collection_modifyitems(session, config, items):
        import json
        if _collect_skips:
            from _pytest.skipping import evaluate_skip_marks
            skips = {}
            for item in items:
                s = evaluate_skip_marks(item)  # raises (pytest's own error) if a condition does
                if s is not None:
                    skips[item.nodeid] = s.reason
            with open(_collect_skips, "w") as fh:
                json.dump(skips, fh, indent=1, sort_keys=True)
        if _collect_bf16:
            import torch
            bf16 = [item.nodeid for item in items
                    if any(v is torch.bfloat16 for v in
                           getattr(getattr(item, "callspec", None), "params", {}).values())]
            with open(_collect_bf16, "w") as fh:
                json.dump(bf16, fh, indent=1)
