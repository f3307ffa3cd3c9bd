"""FlashInfer upstream (flashinfer-ai/flashinfer, the ``flashinfer-python`` wheel), next to the
Paddle-maintained port of the ``flashinfer`` row: the same package name, so it cannot share
.venv's site-packages with the port.  It lives in its own folder (``--target``, no
dependencies: its ``torch`` requirement would pull real torch's CUDA wheels, and its other
CUDA-only requirements, cuda-python, cuda-tile, nccl4py, cudnn-frontend, cutlass-dsl, are not
needed to import it) that only this library's workers put first on ``sys.path``; the port's
dependencies in .venv (apache-tvm-ffi, jinja2, requests...) serve it, plus ``nvidia-ml-py``
(``pynvml``, imported at the top).

CPU: the import (its torch-side Python under each backend).  GPU: the norm / activation ops
against numpy references, as for the port.  Kernels need an sm_75+ GPU; the JIT build on CPU
is exercised by the port's row.
"""
# the same flashinfer API as the port: the cases are shared with specs/flashinfer.py
from compat_matrix.shared.flashinfer_cases import FUSED_ADD_RMSNORM, RMSNORM_99x1024, SILU_AND_MUL
from compat_matrix.spec import Library

PINS = ("flashinfer-python==0.7.2.post1", "nvidia-ml-py==13.615.71")
SITE = "../../build/matrix-flashinfer-upstream/site"   # relative to this file

LIBRARY = Library(
    name="flashinfer_upstream",
    scope=("flashinfer",),
    requires=("flashinfer", "tvm_ffi", "pynvml"),
    imports=("flashinfer", "flashinfer.norm", "flashinfer.activation"),
    # not pip=: ./dev installs pip= pins into .venv, where this would replace the port
    install=("pip install --no-deps --target build/matrix-flashinfer-upstream/site "
             + " ".join(PINS),),
    pythonpath=(SITE,),
    scan=("flashinfer",),
    # the wheel's data/ is the JIT's vendored source tree (CUTLASS's and CCCL's Python, csrc
    # templates: 913 of its 3237 .py files), not FlashInfer's own Python: scanned, it took
    # the scan past its 300 s timeout on a loaded 2-core machine and gave no report at all
    scan_exclude=("data/*",),
    devices=("cpu", "gpu"),
    notes="upstream wheel in its own --target folder (same package name as the Paddle port)",
)


CASES = [RMSNORM_99x1024, FUSED_ADD_RMSNORM, SILU_AND_MUL]
