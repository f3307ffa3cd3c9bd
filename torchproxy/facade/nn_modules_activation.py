"""``torch.nn`` activation modules (``ReLU6``, ``ELU``, ``Hardtanh``, ``PReLU``, ``Softmax2d``...)
on the functional forms of facade/nn_functional.py.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: CELU ELU GLU Hardshrink Hardsigmoid Hardswish Hardtanh LeakyReLU LogSigmoid
        LogSoftmax Mish PReLU RReLU ReLU6 SELU Sigmoid Softmax2d Softmin Softplus Softshrink
        Softsign Tanh Tanhshrink Threshold
""")

import paddle
import paddle.nn.functional as PF

from . import nn as _nn
from .nn import Module, Parameter, _finish_layer
from .nn_functional import (celu, elu, glu, hardshrink, hardsigmoid, hardswish, hardtanh,
                            leaky_relu, mish, prelu, relu6, rrelu, selu, softmin, softshrink,
                            softsign, tanhshrink, threshold)
from .nn_modules import _export


# -- activations -------------------------------------------------------------------------------
def _simple(name, fn, params=(), inplace=False, extra=""):
    """A module whose forward is ``fn(input, *[getattr(self, p) for p in params])``."""
    def __init__(self, *args, **kwargs):
        Module.__init__(self)
        names = list(params) + (["inplace"] if inplace else [])
        defaults = dict(_DEFAULTS.get(name, {}))
        for n, a in zip(names, args):
            defaults[n] = a
        for k, v in kwargs.items():
            if k not in names:
                raise TypeError(f"{name}.__init__() got an unexpected keyword argument '{k}'")
            defaults[k] = v
        if len(args) > len(names):
            raise TypeError(f"{name}.__init__() takes {len(names)} positional arguments")
        for n in names:
            setattr(self, n, defaults[n])

    def forward(self, input):
        args = [getattr(self, p) for p in params]
        if inplace:
            return fn(input, *args, inplace=self.inplace)
        return fn(input, *args)

    def extra_repr(self):
        # torch's: "name=value" per parameter, then ", inplace=True" only when set;
        # Hardshrink/Softshrink print the bare lambd, Hardswish/Hardsigmoid nothing
        if name in ("Hardshrink", "Softshrink"):
            return f"{self.lambd}"
        shown = [f"{p}={getattr(self, p)}" for p in params]
        if inplace and self.inplace and name not in ("Hardswish", "Hardsigmoid"):
            shown.append("inplace=True")
        return ", ".join(shown)
    cls = type(name, (Module,), {"__init__": __init__, "forward": forward,
                                 "extra_repr": extra_repr, "__module__": __name__})
    return _export(cls)


_DEFAULTS = {
    "ReLU6": {"inplace": False}, "ELU": {"alpha": 1.0, "inplace": False},
    "CELU": {"alpha": 1.0, "inplace": False}, "SELU": {"inplace": False}, "GLU": {"dim": -1},
    "Hardshrink": {"lambd": 0.5}, "Softshrink": {"lambd": 0.5},
    "Hardswish": {"inplace": False}, "Hardsigmoid": {"inplace": False},
    "LeakyReLU": {"negative_slope": 0.01, "inplace": False}, "Mish": {"inplace": False},
    "Threshold": {"inplace": False}, "Softmin": {"dim": None}, "LogSoftmax": {"dim": None},
    "Softplus": {"beta": 1.0, "threshold": 20.0},
}

ReLU6 = _simple("ReLU6", relu6, inplace=True)
ELU = _simple("ELU", elu, ("alpha",), inplace=True)
CELU = _simple("CELU", celu, ("alpha",), inplace=True)
SELU = _simple("SELU", selu, inplace=True)
GLU = _simple("GLU", glu, ("dim",))
Hardshrink = _simple("Hardshrink", hardshrink, ("lambd",))
Softshrink = _simple("Softshrink", softshrink, ("lambd",))
Hardswish = _simple("Hardswish", hardswish, inplace=True)
Hardsigmoid = _simple("Hardsigmoid", hardsigmoid, inplace=True)
LeakyReLU = _simple("LeakyReLU", leaky_relu, ("negative_slope",), inplace=True)
Mish = _simple("Mish", mish, inplace=True)
Softsign = _simple("Softsign", softsign)
Tanhshrink = _simple("Tanhshrink", tanhshrink)
Threshold = _simple("Threshold", threshold, ("threshold", "value"), inplace=True)
Softmin = _simple("Softmin", softmin, ("dim",))
LogSoftmax = _simple("LogSoftmax", _nn.log_softmax, ("dim",))
Softplus = _simple("Softplus", _nn.softplus, ("beta", "threshold"))
Sigmoid = _simple("Sigmoid", PF.sigmoid)
Tanh = _simple("Tanh", paddle.tanh)
LogSigmoid = _simple("LogSigmoid", PF.log_sigmoid)


@_export
class Hardtanh(Module):
    def __init__(self, min_val=-1.0, max_val=1.0, inplace=False, min_value=None, max_value=None):
        super().__init__()
        self.min_val = min_val if min_value is None else min_value
        self.max_val = max_val if max_value is None else max_value
        self.inplace = inplace
        if self.max_val <= self.min_val:
            raise AssertionError("max_val must be larger than min_val")

    def forward(self, input):
        return hardtanh(input, self.min_val, self.max_val, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"min_val={self.min_val}, max_val={self.max_val}{inplace}"


@_export
class RReLU(Module):
    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        inplace = ", inplace=True" if self.inplace else ""
        return f"lower={self.lower}, upper={self.upper}{inplace}"


@_export
class Softmax2d(Module):
    def forward(self, input):
        if input.ndim not in (3, 4):
            raise ValueError(f"Softmax2d: expected input to be 3D or 4D, got {input.ndim}D "
                             "instead")
        return _nn.softmax(input, -3)


@_export
class PReLU(Module):
    def __init__(self, num_parameters=1, init=0.25, device=None, dtype=None):
        super().__init__()
        self.num_parameters, self.init = num_parameters, init
        self.weight = Parameter(paddle.full([num_parameters], init,
                                            dtype=paddle.get_default_dtype()))
        _finish_layer(self, device, dtype)

    def forward(self, input):
        return prelu(input, self.weight)

    def extra_repr(self):
        return f"num_parameters={self.num_parameters}"
