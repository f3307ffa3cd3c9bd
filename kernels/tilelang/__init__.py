"""TileLang kernels written the way TileLang users write them: plain ``import torch`` in the
host wrappers, ``tilelang.language`` in the kernels.  Nothing here knows about Paddle; run
them on Paddle tensors with ``torchproxy.enable(scope={"tilelang", "kernels.tilelang"})``.

Each module has a ``*_kernel(...)`` factory (a ``@tilelang.jit`` program that takes its
compile-time shape/tiling and an optional ``target``) and a torch-style host wrapper that
allocates the output with ``torch.empty`` and launches the kernel.
"""
