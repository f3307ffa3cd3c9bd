"""The rows of Triton kernel libraries with torch-style wrappers (Liger-Kernel, FLA, FlagGems,
Cut Cross-Entropy, our kernels/triton): in scope together with Triton, run on CPU (Triton's
interpreter) and GPU, and on a GPU torchproxy users bind Triton's runtime (driver, stream) to
Paddle once, as the setup hook does."""
from compat_matrix.spec import Library

BIND = ("torchproxy", "gpu", "torchproxy.integrations.triton:bind")


def triton_library(name: str, package: str | None = None, *, requires: tuple | None = None,
                   imports: tuple | None = None, setup: tuple = (), **fields) -> Library:
    """The row of a Triton library: ``package`` (default ``name``) is its import name, scanned
    and in scope with ``triton``; ``requires`` defaults to it and ``triton``, ``imports`` to
    it; ``setup`` adds hooks to the GPU binding; the other fields (pip, install, notes...) are
    Library's."""
    package = package or name
    return Library(name=name, scope=(package, "triton"),
                   requires=(package, "triton") if requires is None else requires,
                   imports=(package,) if imports is None else imports, scan=(package,),
                   devices=("cpu", "gpu"), setup=(BIND,) + tuple(setup), **fields)
