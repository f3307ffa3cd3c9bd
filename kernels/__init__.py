"""Unmodified, torch-style kernels (each module does a plain ``import torch``).

Under ``torchproxy.enable(scope={"kernels", "triton"})`` their ``import torch`` is the facade and
they run on Paddle tensors; imported by anyone else they run on real torch, unchanged."""
