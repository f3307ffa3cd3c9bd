"""Build configuration beyond pyproject.toml: the optional C dispatcher.

``torchproxy._cdispatch`` (torchproxy/_dispatch.c) makes Tensor-method dispatch cheap for Paddle
code outside the scope.  It is optional: where it cannot be compiled (no C compiler, an
unsupported interpreter) the install still succeeds and torchproxy uses its pure-Python
dispatcher (torchproxy/facade/dispatch.py; ``TORCHPROXY_PURE_PYTHON=1`` selects that one too).
"""
from setuptools import Extension, setup

setup(ext_modules=[Extension("torchproxy._cdispatch", ["torchproxy/_dispatch.c"], optional=True)])
