import os

# Triton reads TRITON_INTERPRET when a kernel is decorated: set it before any kernel import.
# These tests run on CPU tensors; the GPU path is gpu/triton_check.py.
os.environ.setdefault("TRITON_INTERPRET", "1")

# Triton 3.6's interpreter + numpy >= 2.4: `range(runtime_int)` in a kernel fails for every
# framework (see torchproxy/integrations/triton_interpreter.py); apply the fix Triton 3.9 has.
from torchproxy.integrations.triton_interpreter import ensure_index_fix  # noqa: E402

ensure_index_fix()
