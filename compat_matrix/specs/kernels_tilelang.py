"""Our own TileLang kernels (kernels/tilelang): torch-style host wrappers, unmodified.

Only ``cpu_gemm`` (target "c") runs without a GPU; the others are CUDA kernels (gpu only).
TileLang for Paddle is the ``tilelang-paddle`` wheel.
"""
from compat_matrix.spec import Case, Library, randn

LIBRARY = Library(
    name="kernels_tilelang",
    scope=("tilelang", "kernels.tilelang"),
    requires=("tilelang", "kernels"),
    imports=("kernels.tilelang",),
    scan=("kernels.tilelang",),
    # its own environment (./dev: .venv-tlu), --python-for kernels_tilelang=.venv-tlu/bin/python
    install=("pip install -r ci/requirements-tilelang.txt && "
             "pip install --no-deps -r ci/requirements-tlu-nodeps.txt",),
    devices=("cpu", "gpu"),
)


def cpu_gemm(a, b):
    from kernels.tilelang.cpu_gemm import cpu_gemm
    return cpu_gemm(a, b)


def matmul_relu(a, b):
    from kernels.tilelang.matmul_relu import matmul_relu
    return matmul_relu(a, b)


def rmsnorm(x, w):
    from kernels.tilelang.rmsnorm import rmsnorm
    return rmsnorm(x, w, 1e-6)


def softmax(x):
    from kernels.tilelang.softmax import softmax
    return softmax(x)


def _np():
    import numpy
    return numpy


GPU = ("gpu",)
CASES = [
    Case("cpu_gemm", cpu_gemm, inputs=[randn(32, 48), randn(48, 16)],
         reference=lambda a, b: a @ b, tol={"float32": (1e-4, 1e-5)},
         imports=("kernels.tilelang.cpu_gemm",), timeout=300),
    Case("matmul_relu", matmul_relu, inputs=[randn(128, 64), randn(64, 128)], devices=GPU,
         reference=lambda a, b: _np().maximum(a @ b, 0), tol={"float32": (1e-3, 1e-3)}),
    Case("rmsnorm", rmsnorm, inputs=[randn(16, 128), randn(128)], devices=GPU,
         reference=lambda x, w: x / _np().sqrt((x ** 2).mean(-1, keepdims=True) + 1e-6) * w,
         tol={"float32": (1e-4, 1e-5)}),
    Case("softmax", softmax, inputs=[randn(8, 256)], devices=GPU,
         tol={"float32": (1e-5, 1e-6)}),
]
