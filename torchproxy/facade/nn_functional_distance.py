"""The torch.* (ATen) forms of torch.nn.functional's "Distance functions" (``torch.pdist``,
``torch.cosine_similarity``) and of its "Linear functions" ``bilinear``: the functional forms
(facade/nn.py, nn_functional.py, nn_functional_loss.py) under torch's top-level names."""
from __future__ import annotations

from .registry import torch_function

from .registry import manifest

NAMES = manifest("""
    torch: bilinear cosine_similarity pdist
""")


@torch_function("torch.pdist")
def pdist(input, p=2):
    from .nn_functional_loss import pdist as _pdist
    return _pdist(input, p)


@torch_function("torch.cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    from .nn import cosine_similarity as _cos
    return _cos(x1, x2, dim, eps)


@torch_function("torch.bilinear")
def bilinear(input1, input2, weight, bias=None):
    from .nn_functional import bilinear as _bilinear
    return _bilinear(input1, input2, weight, bias)
