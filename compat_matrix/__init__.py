"""The compatibility matrix: libraries x cases x backends x devices (see README.md).

``python -m compat_matrix`` / ``torchproxy matrix`` run it; specs are data files in
``compat_matrix/specs/``.  Nothing here imports torch, Paddle or torchproxy at import time:
all of that happens in the worker subprocesses.
"""
from .spec import BACKENDS, DEVICES, Case, Library, load_specs  # noqa: F401
