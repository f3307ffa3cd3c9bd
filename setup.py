"""Build configuration beyond pyproject.toml: the optional C dispatcher and DLPack exchange table.

``torchproxy._cdispatch`` (torchproxy/_dispatch.c) makes Tensor-method dispatch cheap for Paddle
code outside the scope.  It is optional: where it cannot be compiled (no C compiler, an
unsupported interpreter) the install still succeeds and torchproxy uses its pure-Python
dispatcher (torchproxy/facade/dispatch.py; ``TORCHPROXY_PURE_PYTHON=1`` selects that one too).

``torchproxy._cdlpack`` (torchproxy/_dlpack_exchange.c): the DLPack C exchange API for Paddle 2.6
tensors handed to tvm-ffi (issue 26); optional too: without it tvm-ffi reads them through the
facade's ``__dlpack__`` and torchproxy's Python stream wrappers (torchproxy/integrations/tvm_ffi.py).

``torchproxy._cptensor`` (torchproxy/_paddle_tensor.c): ``x.dtype`` of a Paddle tensor read through
Paddle's exported C++ tensor API (issue 26); optional: without it Paddle's own getter answers.
"""
import hashlib
import os

from setuptools import Extension, setup

SOURCE = "torchproxy/_dispatch.c"
# the source's hash goes into the build: torchproxy/facade/dispatch.py refuses a stale build
# (the source edited since) and says to rebuild, instead of running old code
with open(os.path.join(os.path.dirname(os.path.abspath(__file__)), SOURCE), "rb") as f:
    SHA = hashlib.sha1(f.read()).hexdigest()

# the Paddle tensor API capsule's struct, shared by the three (a build input, not package data)
API_HEADER = ["torchproxy/_tensor_api.h"]

setup(ext_modules=[Extension("torchproxy._cdispatch", [SOURCE], optional=True, depends=API_HEADER,
                             define_macros=[("TPX_SOURCE_SHA", f'"{SHA}"')]),
                   Extension("torchproxy._cdlpack", ["torchproxy/_dlpack_exchange.c"],
                             optional=True, depends=API_HEADER),
                   Extension("torchproxy._cptensor", ["torchproxy/_paddle_tensor.c"],
                             optional=True, depends=API_HEADER)])
