"""FlagGems (FlagOpen/FlagGems): a Triton operator library for torch (ATen replacements).

Called through its public op functions (``flag_gems.add``, ``flag_gems.mm``...).  At import it
detects the accelerator vendor and refuses to import without one ("No device were detected"),
so on a CPU-only machine every case stops at the import stage: that is its reason in the matrix.
Needs its non-torch deps: ``pip install --no-deps flag-gems==5.0.2 PyYAML sqlalchemy packaging``.
"""
from compat_matrix.spec import Case, Library, randn

LIBRARY = Library(
    name="flag_gems",
    scope=("flag_gems", "triton"),
    requires=("flag_gems", "triton"),
    imports=("flag_gems",),
    install=("pip install --no-deps flag-gems==5.0.2", "pip install PyYAML sqlalchemy packaging"),
    scan=("flag_gems",),
    devices=("cpu", "gpu"),
    # on a GPU, torchproxy users bind Triton's runtime (driver, stream) to Paddle once
    setup=(("torchproxy", "gpu", "torchproxy.integrations.triton:bind"),),
)


def add(x, y):
    import flag_gems
    return flag_gems.add(x, y)


def mm(a, b):
    import flag_gems
    return flag_gems.mm(a, b)


def softmax(x):
    import flag_gems
    return flag_gems.softmax(x, -1)


CASES = [
    Case("add", add, inputs=[randn(1024), randn(1024)], reference=lambda x, y: x + y),
    Case("mm", mm, inputs=[randn(32, 16), randn(16, 24)], reference=lambda a, b: a @ b,
         tol={"float32": (1e-4, 1e-5)}),
    Case("softmax", softmax, inputs=[randn(8, 64)], tol={"float32": (1e-5, 1e-6)}),
]
