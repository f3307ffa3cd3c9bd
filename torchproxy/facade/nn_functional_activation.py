"""The torch.* (ATen) forms of torch.nn.functional's activations: ``torch.celu``, ``rrelu``,
``selu``, ``threshold`` and their in-place ``_`` forms.  They call the functional forms
(facade/nn_functional.py) with torch's ATen signatures: no ``inplace=``, ``rrelu``'s
``generator=``."""
from __future__ import annotations

from ..errors import NotProvidedError
from . import nn_functional as _F
from .registry import torch_function

from .registry import manifest

NAMES = manifest("""
    torch: celu celu_ rrelu rrelu_ selu selu_ threshold threshold_
""")


@torch_function("torch.celu")
def celu(input, alpha=1.0):
    return _F.celu(input, alpha)


@torch_function("torch.celu_")
def celu_(input, alpha=1.0):
    return _F.celu(input, alpha, True)


def _check_generator(generator, training):
    if generator is not None and training:
        raise NotProvidedError("torch.rrelu(generator=) (the slopes come from Paddle's global "
                               "generator)")


@torch_function("torch.rrelu", note="training=True: the slopes are drawn from Paddle's "
                                    "generator (torch's distribution, not its numbers)")
def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    _check_generator(generator, training)
    return _F.rrelu(input, lower, upper, training)


@torch_function("torch.rrelu_", note="see torch.rrelu")
def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    _check_generator(generator, training)
    return _F.rrelu(input, lower, upper, training, True)


@torch_function("torch.selu")
def selu(input):
    return _F.selu(input)


@torch_function("torch.selu_")
def selu_(input):
    return _F.selu(input, True)


@torch_function("torch.threshold")
def threshold(input, threshold, value):
    return _F.threshold(input, threshold, value)


@torch_function("torch.threshold_")
def threshold_(input, threshold, value):
    return _F.threshold(input, threshold, value, True)
