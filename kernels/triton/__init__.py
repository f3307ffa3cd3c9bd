"""Triton kernels written the way torch users write them: ``import torch``, allocate with
``torch.empty_like``, read ``.stride()``, launch with a grid lambda.  Each module pairs the
``@triton.jit`` kernel with its host wrapper; ``reference.py`` holds the numpy references.

Modules: ``add`` (vector add), ``matmul`` (matmul + fused ReLU, plain and autotuned),
``softmax`` (row-wise, any width, strided rows), ``rmsnorm`` (forward and backward through
``torch.autograd.Function``), ``layernorm`` (forward), ``library_op`` (an op registered with
``torch.library.triton_op`` and launched through ``wrap_triton``)."""
