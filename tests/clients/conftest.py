import os

# Triton reads TRITON_INTERPRET when a kernel is decorated: set it before any kernel import.
os.environ.setdefault("TRITON_INTERPRET", "1")

# Triton 3.6's interpreter + numpy >= 2.4 (and Python float kernel arguments): the fixes of
# torchproxy/integrations/triton_interpreter.py, applied alike for real torch and the proxy.
from torchproxy.integrations import triton_interpreter as _ti  # noqa: E402

(getattr(_ti, "ensure_fixes", None) or _ti.ensure_index_fix)()
