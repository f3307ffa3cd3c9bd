"""FlagGems (FlagOpen/FlagGems): a Triton operator library for torch (ATen replacements).

Called through its public op functions (``flag_gems.add``, ``flag_gems.mm``...).  At import it
detects the accelerator vendor and refuses to import without one ("No device were detected"),
so on a CPU-only machine every case stops at the import stage: that is its reason in the matrix.
Its non-torch dependencies are listed in ``pip`` with it (installed ``--no-deps``).
"""
from compat_matrix.spec import Case, randn
from compat_matrix.shared.triton_rows import triton_library

LIBRARY = triton_library("flag_gems",
                         pip=("flag-gems==5.0.2", "PyYAML", "sqlalchemy", "packaging"))


def add(x, y):
    import flag_gems
    return flag_gems.add(x, y)


def mm(a, b):
    import flag_gems
    return flag_gems.mm(a, b)


def softmax(x):
    import flag_gems
    return flag_gems.softmax(x, -1)


def op(name, *extra):
    def fn(*args):
        import flag_gems
        return getattr(flag_gems, name)(*args, *extra)
    fn.__name__ = name
    return fn


def _np():
    import numpy
    return numpy


CASES = [
    Case("sub", op("sub"), inputs=[randn(1024), randn(1024)], reference=lambda x, y: x - y),
    Case("mul", op("mul"), inputs=[randn(1024), randn(1024)], reference=lambda x, y: x * y),
    Case("relu", op("relu"), inputs=[randn(1024)], reference=lambda x: _np().maximum(x, 0)),
    Case("exp", op("exp"), inputs=[randn(1024)], reference=lambda x: _np().exp(x),
         tol={"float32": (1e-5, 1e-6)}),
    Case("sum_dim", op("sum_dim", [1]), inputs=[randn(16, 64)], reference=lambda x: x.sum(1),
         tol={"float32": (1e-5, 1e-5)}),
    Case("bmm", op("bmm"), inputs=[randn(2, 8, 16), randn(2, 16, 8)], reference=lambda a, b: a @ b,
         tol={"float32": (1e-4, 1e-5)}),
    Case("add", add, inputs=[randn(1024), randn(1024)], reference=lambda x, y: x + y),
    Case("mm", mm, inputs=[randn(32, 16), randn(16, 24)], reference=lambda a, b: a @ b,
         tol={"float32": (1e-4, 1e-5)}),
    Case("softmax", softmax, inputs=[randn(8, 64)], tol={"float32": (1e-5, 1e-6)}),
]
