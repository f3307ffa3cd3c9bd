"""``torch.nn`` dropout modules beyond ``Dropout`` (facade/nn.py): the channel-wise and alpha
dropouts.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: AlphaDropout Dropout1d Dropout2d Dropout3d FeatureAlphaDropout
""")

from .nn import _DropoutNd
from .nn_functional_dropout import (alpha_dropout, dropout1d, dropout2d, dropout3d,
                                    feature_alpha_dropout)
from .nn_modules import _export


# -- dropout variants (their base, _DropoutNd, is Dropout's: facade/nn.py) ----------------------
def _variant(name, fn):
    """The ``torch.nn.<name>`` module: a _DropoutNd whose forward applies ``fn`` (the variants
    differ only in that function, as in torch)."""
    return _export(type(name, (_DropoutNd,), {"_fn": staticmethod(fn), "__module__": __name__,
                                              "__qualname__": name}))


Dropout1d = _variant("Dropout1d", dropout1d)
Dropout2d = _variant("Dropout2d", dropout2d)
Dropout3d = _variant("Dropout3d", dropout3d)
AlphaDropout = _variant("AlphaDropout", alpha_dropout)
FeatureAlphaDropout = _variant("FeatureAlphaDropout", feature_alpha_dropout)
