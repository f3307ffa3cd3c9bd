"""pytest plugin: enable torchproxy with $TORCHPROXY_EARLY_SCOPE when pytest loads plugins, i.e.
before the suite's conftest.py files (and the helpers they import) run, so those in scope get
the facade too.  Stand-in until torchproxy.pytest_plugin enables the scope that early itself
(issue 14); use it together with that plugin: ``-p torchproxy_early -p torchproxy.pytest_plugin``."""
import os

_scope = os.environ.get("TORCHPROXY_EARLY_SCOPE")
if _scope:
    import torchproxy
    torchproxy.enable(scope=set(_scope.split(",")))
