"""``torch.nn.functional`` dropout functions beyond ``dropout`` (facade/nn.py): the channel-wise
forms and the alpha dropouts, with torch's masks and scaling.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn.functional: alpha_dropout dropout1d dropout2d dropout3d feature_alpha_dropout
""")

import paddle

from ._inplace_checks import inplace_result
from .nn_functional import _SELU_ALPHA, _SELU_SCALE, F
from .random import dropout_cpu
from .registry import torch_function


# -- dropout variants -------------------------------------------------------------------------------
def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _feature_dropout(input, p, training, inplace, batched_ndim, name):
    _check_p(p)
    if not training or p == 0:
        return input
    unbatched = input.ndim == batched_ndim - 1
    x = input.unsqueeze(0) if unbatched else input
    if p == 1:
        out = x * 0
    elif "cpu" in str(x.place).lower():
        out = dropout_cpu(x, p, x.shape[:2] + [1] * (x.ndim - 2))
    else:
        keep = paddle.bernoulli(paddle.full(x.shape[:2] + [1] * (x.ndim - 2), 1 - p, dtype=x.dtype))
        out = x * keep / (1 - p)
    out = out.squeeze(0) if unbatched else out
    return inplace_result(input, out, inplace)


@torch_function(F + "dropout1d")
def dropout1d(input, p=0.5, training=True, inplace=False):
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D "
                           "input.")
    return _feature_dropout(input, p, training, inplace, 3, "dropout1d")


@torch_function(F + "dropout2d")
def dropout2d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 4, "dropout2d")


@torch_function(F + "dropout3d")
def dropout3d(input, p=0.5, training=True, inplace=False):
    return _feature_dropout(input, p, training, inplace, 5, "dropout3d")


def _alpha(input, p, training, inplace, feature):
    _check_p(p)
    if not training or p == 0:
        return input
    if p == 1:  # torch: input * 0 (nan stays nan)
        return inplace_result(input, input * paddle.zeros([], dtype=input.dtype), inplace)
    alpha_p = -_SELU_ALPHA * _SELU_SCALE
    a = ((1 - p) * (1 + p * alpha_p ** 2)) ** -0.5
    b = -a * alpha_p * p
    shape = input.shape[:2] + [1] * (input.ndim - 2) if feature else input.shape
    keep = paddle.bernoulli(paddle.full(shape, 1 - p, dtype=input.dtype))
    out = (input * keep + alpha_p * (1 - keep)) * a + b
    return inplace_result(input, out, inplace)


@torch_function(F + "alpha_dropout")
def alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha(input, p, training, inplace, False)


@torch_function(F + "feature_alpha_dropout")
def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    return _alpha(input, p, training, inplace, True)
