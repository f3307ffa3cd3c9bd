"""Run a library's own test suite under the proxy.

    pytest -p torchproxy.pytest_plugin --torchproxy-scope=liger_kernel,triton tests/

The proxy is enabled with that scope in ``pytest_load_initial_conftests``, i.e. before pytest
imports the suite's ``conftest.py`` files and the helpers they import, so those get the facade
too when they are named in the scope (``--torchproxy-scope=liger_kernel,triton,test`` covers
``test.conftest`` and ``test.utils``; a rootdir ``conftest.py`` outside a package is
``conftest``).  That hook runs for plugins given with ``-p`` or installed as entry points; a
plugin listed in a conftest's ``pytest_plugins`` is enabled at ``pytest_configure`` (later).
The test modules themselves are not in scope unless named: a test that builds inputs with real
torch and hands them to the library is exactly what the proxy cannot serve, and the run says so.  Every facade name touched is traced; the terminal
summary lists the torch names the facade lacks, with the tests that needed them, and
``--torchproxy-report=FILE`` writes them as JSON.
"""
from __future__ import annotations

import json
import os
from collections import defaultdict

import pytest

_STATE = {"trace_cm": None, "trace": None, "per_test": defaultdict(set), "scope": None}


def pytest_addoption(parser):
    group = parser.getgroup("torchproxy", "run the tests with torchproxy's torch facade")
    group.addoption("--torchproxy-scope", default=None,
                    help="comma-separated modules that get the facade ('*' = global mode)")
    group.addoption("--torchproxy-blocked", default=None,
                    help="comma-separated modules that always get real torch")
    group.addoption("--torchproxy-interpreter-fixes", action="store_true", default=False,
                    help="apply torchproxy's fixes to Triton's CPU interpreter before the suite "
                         "loads (torchproxy/integrations/triton_interpreter.py; also without a "
                         "scope, e.g. for the real-torch run of the same suite)")
    group.addoption("--torchproxy-report", default=None,
                    help="write the missing torch names (name -> tests) to this JSON file")


def _start(scope, blocked):
    if not scope or _STATE["trace"] is not None:
        return
    import warnings
    with warnings.catch_warnings():
        # Paddle's import warns about ccache (meant for C++ extension builders) on every run
        warnings.filterwarnings("ignore", message="No ccache found", category=UserWarning)
        import torchproxy
        import paddle  # noqa: F401 - imported here, inside the filter
    torchproxy.enable(None if scope.strip() == "*" else scope, blocked=blocked or None)
    # tests that start processes with spawn (DataLoader workers...) run them with the same rules
    from torchproxy import children
    children.propagate()
    cm = torchproxy.trace()
    _STATE.update(trace_cm=cm, trace=cm.__enter__(), scope=scope)


@pytest.hookimpl(tryfirst=True)
def pytest_load_initial_conftests(early_config, parser, args):
    """Before the suite's conftest.py files (and what they import) are loaded."""
    ns = early_config.known_args_namespace
    if getattr(ns, "torchproxy_interpreter_fixes", False):
        _interpreter_fixes()
    _start(getattr(ns, "torchproxy_scope", None), getattr(ns, "torchproxy_blocked", None))


def _interpreter_fixes():
    from torchproxy.integrations import triton_interpreter
    _STATE["interpreter_fixes"] = triton_interpreter.ensure_fixes()


def pytest_configure(config):
    if config.getoption("--torchproxy-interpreter-fixes") and "interpreter_fixes" not in _STATE:
        _interpreter_fixes()
    _start(config.getoption("--torchproxy-scope"), config.getoption("--torchproxy-blocked"))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    """A trace of its own per test (traces nest): names are attributed to the tests that
    needed them, also when an earlier test already needed them."""
    if _STATE["trace"] is None:
        yield
        return
    import torchproxy
    with torchproxy.trace() as t:
        yield
    for name, sites in t.missing.items():
        if _outside_pytest(sites):
            _STATE["per_test"][name].add(item.nodeid)


def _outside_pytest(sites) -> bool:
    """Whether a missing name was read by code other than pytest's own: pytest probes the
    attributes of every object a test module or conftest holds (``_mock_name`` to detect mocks
    while collecting fixtures), a facade module among them; those reads are no one's need."""
    import _pytest
    own = os.path.dirname(_pytest.__file__) + os.sep
    return any(not site.startswith(own) for site in sites)


def _report() -> dict:
    t = _STATE["trace"]
    out = {}
    for name in sorted(n for n, sites in t.missing.items() if _outside_pytest(sites)):
        tests = sorted(_STATE["per_test"].get(name, ())) or ["<collection>"]
        out[name] = tests
    return out


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if _STATE["trace"] is None:
        return
    report = _report()
    tr = terminalreporter
    tr.section("torchproxy")
    tr.write_line(f"scope: {_STATE['scope']}; facade names used: {len(_STATE['trace'].used)}; "
                  f"missing: {len(report)}")
    for name, tests in report.items():
        shown = ", ".join(tests[:3]) + (f" (+{len(tests) - 3} more)" if len(tests) > 3 else "")
        tr.write_line(f"  missing {name}  <- {shown}")
    path = config.getoption("--torchproxy-report")
    if path:
        with open(path, "w") as f:
            json.dump({"scope": _STATE["scope"], "missing": report,
                       "used": sorted(_STATE["trace"].used)}, f, indent=1)


def pytest_unconfigure(config):
    cm = _STATE["trace_cm"]
    if cm is not None:
        cm.__exit__(None, None, None)
        _STATE.update(trace_cm=None, trace=None)
        import torchproxy
        from torchproxy import children
        children.stop()
        torchproxy.disable()
