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
