"""``torch.nn`` lazy modules: ``UninitializedParameter``, ``LazyModuleMixin`` and the modules
torch builds on it here (``LazyLinear``, ``LazyConv1d``-``3d``, ``LazyConvTranspose1d``-``3d``).

torch's semantics (torch/nn/modules/lazy.py, torch/nn/parameter.py): a lazy module is
constructed without its input size; its parameters are ``UninitializedParameter`` objects until
the first call, which infers the size from the input (``initialize_parameters``), materialises
them in place, runs ``reset_parameters`` and turns the module into its ``cls_to_become``
(``LazyConv2d`` -> ``Conv2d``).  ``load_state_dict`` into an uninitialised module materialises
the parameters from the checkpoint's shapes instead (``_lazy_load_hook``; ``Module.
load_state_dict`` in facade/nn.py calls it on every submodule that still has one).

Paddle has no shapeless tensor: an ``UninitializedParameter`` here is a Paddle parameter of
shape ``[0]`` (carrying the factory dtype and place) whose class is a subclass of Paddle's
parameter type; ``materialize`` resizes it in place (``paddle.assign`` into it, so the object
the module and any reference hold stays the same) and sets its class back to the plain
parameter type, as torch swaps ``__class__``.  Differences a user can see (the entries'
notes): before materialisation ``.shape`` reads ``[0]`` where torch raises, and using the
parameter in an op gives Paddle's error, not torch's ValueError.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: LazyConv1d LazyConv2d LazyConv3d LazyConvTranspose1d LazyConvTranspose2d
        LazyConvTranspose3d LazyLinear UninitializedParameter
    torch.nn.modules.conv: _LazyConvXdMixin
    torch.nn.modules: lazy
    torch.nn.modules.lazy: LazyModuleMixin
    torch.nn.parameter: UninitializedParameter is_lazy
""")

import itertools
import math

import paddle

from ..paddle_shims import EagerParamBase
from . import nn_init as init
from .nn import Linear, _paddle_dtype, _paddle_place
from .nn_modules import _export
from .nn_modules_conv import (Conv1d, Conv2d, Conv3d, ConvTranspose1d, ConvTranspose2d,
                              ConvTranspose3d)
from .registry import module, torch_function, type_

module("torch.nn.modules.lazy")

_SHAPE_NOTE = ("a Paddle parameter of shape [0] until materialised: .shape reads [0] where "
               "torch raises, and an op on it raises Paddle's error, not torch's ValueError")


class UninitializedParameter(EagerParamBase):
    """``torch.nn.UninitializedParameter(requires_grad=True, device=None, dtype=None)``."""

    cls_to_become = EagerParamBase  # the facade's torch.nn.Parameter type
    _lazy_uninitialized = True  # what facade/nn.py's state_dict/load_state_dict look for

    def __new__(cls, requires_grad: bool = True, device=None, dtype=None):
        data = paddle.empty([0], dtype=_paddle_dtype(dtype) if dtype is not None
                            else paddle.get_default_dtype())
        if device is not None:
            data = paddle.to_tensor(data, place=_paddle_place(device))
        # Paddle's from_tensor calls cls(shape, dtype): build the plain parameter, then retype it
        p = EagerParamBase.from_tensor(data)
        p.__class__ = cls
        p.stop_gradient = not requires_grad
        p.trainable = bool(requires_grad)
        return p

    def __init__(self, *args, **kwargs):  # everything happened in __new__
        pass

    def materialize(self, shape, device=None, dtype=None) -> None:
        """Resize in place to ``shape`` (uninitialised values), keeping this object's dtype and
        place unless given, and become a plain parameter."""
        dt = _paddle_dtype(dtype) if dtype is not None else self.dtype
        new = paddle.empty([int(s) for s in shape], dtype=dt)
        place = _paddle_place(device) if device is not None else self.place
        if str(new.place) != str(place):
            new = paddle.to_tensor(new, place=place)
        with paddle.no_grad():
            paddle.assign(new, output=self)
        self.__class__ = self.cls_to_become

    def share_memory_(self):
        raise RuntimeError("Can't share memory on an uninitialized parameter or buffer. Call "
                           "`forward` to initialize the parameters before calling "
                           "`module.share_memory()`.")

    def __repr__(self) -> str:
        return f"<{type(self).__name__}>"

    __str__ = __repr__

    def __deepcopy__(self, memo):
        if id(self) not in memo:
            memo[id(self)] = type(self)(not self.stop_gradient, None, self.dtype)
        return memo[id(self)]


type_("torch.nn.UninitializedParameter", UninitializedParameter, note=_SHAPE_NOTE)
type_("torch.nn.parameter.UninitializedParameter", UninitializedParameter, note=_SHAPE_NOTE)


@torch_function("torch.nn.parameter.is_lazy")
def is_lazy(param) -> bool:
    return isinstance(param, UninitializedParameter)


class LazyModuleMixin:
    """torch's mixin: parameters inferred at the first call, then ``cls_to_become``."""

    cls_to_become = None

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)

    def __call__(self, *args, **kwargs):
        # torch runs _infer_parameters as the first forward pre-hook, registered in __init__
        # and removed after it ran: here the class swap removes this method; a mixin class
        # without cls_to_become keeps it, so the instance remembers that it ran
        if not self.__dict__.get("_lazy_initialized", False):
            self._infer_parameters(self, args, kwargs)
        if isinstance(self, LazyModuleMixin):
            return super().__call__(*args, **kwargs)
        return self(*args, **kwargs)

    def initialize_parameters(self, *args, **kwargs):
        raise NotImplementedError(
            f"initialize_parameters is not implemented for {self.__class__.__name__}")

    def has_uninitialized_params(self) -> bool:
        return any(is_lazy(t) for t in itertools.chain(self._parameters.values(),
                                                       self._buffers.values()))

    def _infer_parameters(self, module, args, kwargs=None):
        module.initialize_parameters(*args, **(kwargs or {}))
        if module.has_uninitialized_params():
            raise RuntimeError(f"module {type(self).__name__} has not been fully initialized")
        object.__setattr__(module, "_lazy_initialized", True)
        if module.cls_to_become is not None:
            module.__class__ = module.cls_to_become

    def _lazy_load_hook(self, state_dict, prefix, *unused):
        """Before ``load_state_dict`` copies values: an uninitialised parameter takes the
        shape of the checkpoint's (initialised) entry."""
        for name, param in itertools.chain(self._parameters.items(), self._buffers.items()):
            key = prefix + name
            if key in state_dict and param is not None and is_lazy(param):
                if not is_lazy(state_dict[key]):
                    param.materialize(state_dict[key].shape)

    def _replicate_for_data_parallel(self):
        raise RuntimeError("Modules with uninitialized parameters can't be used with "
                           "`DataParallel`. Run a dummy forward pass to correctly initialize "
                           "the modules")


type_("torch.nn.modules.lazy.LazyModuleMixin", LazyModuleMixin)


# -- LazyLinear ---------------------------------------------------------------------------------
@_export
class LazyLinear(LazyModuleMixin, Linear):
    """``torch.nn.LazyLinear(out_features, bias=True)``: ``in_features`` from the first input's
    last dimension."""

    cls_to_become = Linear

    def __init__(self, out_features, bias=True, device=None, dtype=None):
        super().__init__(0, 0, False, device, dtype)
        self.weight = UninitializedParameter(device=device, dtype=dtype)
        self.out_features = int(out_features)
        if bias:
            self.bias = UninitializedParameter(device=device, dtype=dtype)

    def reset_parameters(self):
        # torch's Linear.reset_parameters: kaiming_uniform_(a=sqrt(5)), bias U(+-1/sqrt(fan_in))
        if self.has_uninitialized_params() or self.in_features == 0:
            return
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            bound = 1 / math.sqrt(self.in_features)
            init.uniform_(self.bias, -bound, bound)

    def initialize_parameters(self, input, *args, **kwargs):
        if self.has_uninitialized_params():
            with paddle.no_grad():
                self.in_features = int(input.shape[-1])
                self.weight.materialize((self.out_features, self.in_features))
                if self.bias is not None:
                    self.bias.materialize((self.out_features,))
                self.reset_parameters()


# -- LazyConv*d, LazyConvTranspose*d --------------------------------------------------------------
class _LazyConvXdMixin(LazyModuleMixin):
    """``in_channels`` from the first input's channel dimension (dim 1 batched, 0 unbatched)."""

    def reset_parameters(self):
        if not self.has_uninitialized_params() and self.in_channels != 0:
            super().reset_parameters()

    def initialize_parameters(self, input, *args, **kwargs):
        if not self.has_uninitialized_params():
            return
        self.in_channels = self._get_in_channels(input)
        if self.in_channels % self.groups != 0:
            raise ValueError("in_channels must be divisible by groups")
        if self.transposed:
            shape = (self.in_channels, self.out_channels // self.groups, *self.kernel_size)
        else:
            shape = (self.out_channels, self.in_channels // self.groups, *self.kernel_size)
        self.weight.materialize(shape)
        if self.bias is not None:
            self.bias.materialize((self.out_channels,))
        self.reset_parameters()

    def _get_in_channels(self, input) -> int:
        no_batch = self._nd + 1
        if input.ndim not in (no_batch, no_batch + 1):
            raise RuntimeError(f"Expected {no_batch}D (unbatched) or {no_batch + 1}D (batched) "
                               f"input to {type(self).__name__}, but got input of size: "
                               f"torch.Size({[int(s) for s in input.shape]})")
        return int(input.shape[1] if input.ndim == no_batch + 1 else input.shape[0])


type_("torch.nn.modules.conv._LazyConvXdMixin", _LazyConvXdMixin)


def _lazy_conv_cls(base):
    class LazyConv(_LazyConvXdMixin, base):
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, dilation=1,
                     groups=1, bias=True, padding_mode="zeros", device=None, dtype=None):
            # as torch: the concrete module with 0 channels and no bias, then the
            # uninitialised parameters in their place
            super().__init__(0, 0, kernel_size, stride, padding, dilation, groups, False,
                             padding_mode, device, dtype)
            _lazy_params(self, out_channels, bias, device, dtype)
    LazyConv.__name__ = LazyConv.__qualname__ = f"Lazy{base.__name__}"
    return _export(LazyConv)


def _lazy_convt_cls(base):
    class LazyConvT(_LazyConvXdMixin, base):
        cls_to_become = base

        def __init__(self, out_channels, kernel_size, stride=1, padding=0, output_padding=0,
                     groups=1, bias=True, dilation=1, padding_mode="zeros", device=None,
                     dtype=None):
            super().__init__(0, 0, kernel_size, stride, padding, output_padding, groups, False,
                             dilation, padding_mode, device, dtype)
            _lazy_params(self, out_channels, bias, device, dtype)
    LazyConvT.__name__ = LazyConvT.__qualname__ = f"Lazy{base.__name__}"
    return _export(LazyConvT)


def _lazy_params(layer, out_channels, bias, device, dtype):
    layer.weight = UninitializedParameter(device=device, dtype=dtype)
    layer.out_channels = out_channels
    if bias:
        layer.bias = UninitializedParameter(device=device, dtype=dtype)


LazyConv1d, LazyConv2d, LazyConv3d = (_lazy_conv_cls(c) for c in (Conv1d, Conv2d, Conv3d))
LazyConvTranspose1d, LazyConvTranspose2d, LazyConvTranspose3d = (
    _lazy_convt_cls(c) for c in (ConvTranspose1d, ConvTranspose2d, ConvTranspose3d))
