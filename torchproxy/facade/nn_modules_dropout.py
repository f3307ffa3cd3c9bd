"""``torch.nn`` dropout modules beyond ``Dropout`` (facade/nn.py): the channel-wise and alpha
dropouts.
"""
from __future__ import annotations

NAMES = (
    "torch.nn.AlphaDropout", "torch.nn.Dropout1d", "torch.nn.Dropout2d", "torch.nn.Dropout3d",
    "torch.nn.FeatureAlphaDropout",
)

from .nn import _DropoutNd
from .nn_functional_dropout import (alpha_dropout, dropout1d, dropout2d, dropout3d,
                                    feature_alpha_dropout)
from .nn_modules import _export


# -- dropout variants (their base, _DropoutNd, is Dropout's: facade/nn.py) ----------------------
@_export
class Dropout1d(_DropoutNd):
    _fn = staticmethod(dropout1d)


@_export
class Dropout2d(_DropoutNd):
    _fn = staticmethod(dropout2d)


@_export
class Dropout3d(_DropoutNd):
    _fn = staticmethod(dropout3d)


@_export
class AlphaDropout(_DropoutNd):
    _fn = staticmethod(alpha_dropout)


@_export
class FeatureAlphaDropout(_DropoutNd):
    _fn = staticmethod(feature_alpha_dropout)
