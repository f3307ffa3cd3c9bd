import os

# Triton reads TRITON_INTERPRET when a kernel is decorated: set it before any kernel import.
# These tests run on CPU tensors; the GPU path is gpu/triton_check.py.
os.environ.setdefault("TRITON_INTERPRET", "1")
