"""``torch.nn``: ``Module`` / ``Parameter`` for the layer wrappers kernel libraries ship
(Liger-Kernel's ``transformers/`` modules), and ``torch.nn.functional`` with torch signatures.

``torch.nn.Module`` is a ``paddle.nn.Layer`` subclass: Paddle's machinery (parameter and sublayer
registration on attribute assignment, ``__call__`` -> ``forward``, ``state_dict``) does the work;
the methods whose torch signature differs (``register_buffer(persistent=)``, ``to(dtype)``,
``zero_grad``, ``cuda``, ``half``...) are adapted here.  ``torch.nn.Parameter(t)`` is Paddle's
parameter type (``EagerParamBase``), sharing ``t``'s memory as torch's does.
"""
from __future__ import annotations

from .registry import manifest

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = manifest("""
    torch.nn: CrossEntropyLoss Dropout Embedding GELU Identity KLDivLoss LayerNorm Linear Module
        ModuleList Parameter ReLU SiLU Softmax modules parameter
    torch.nn.functional: conv1d conv2d cosine_similarity cross_entropy dropout embedding gelu
        kl_div layer_norm linear log_softmax logsigmoid mse_loss nll_loss normalize pad rms_norm
        sigmoid silu softmax softplus tanh
    torch.nn.modules: module utils
    torch.nn.modules.module: Module _IncompatibleKeys
    torch.nn.modules.utils: _pair _quadruple _single _triple
    torch.nn.parameter: Parameter
""")

import paddle
import paddle.nn.functional as PF
from ..paddle_shims import EagerParamBase, broadcast_tensors, is_meta

from . import dtypes as _dt
from .autograd import clear_grad
from ._accurate_sum import accurate_mean, accurate_sum, exact_broadcast
from ._nn_common import _floating, _is_int, _ntuple_values, _reduce, legacy_reduction  # noqa: F401
from ._inplace_checks import inplace_form, inplace_result
from ._opbase import log_softmax_kernel, opmath_function
from .ops import _cpp_name
from .ops import _relu as _ops_relu
from .random import dropout_cpu
from .registry import module, torch_function, type_

module("torch.nn")
module("torch.nn.functional")
module("torch.nn.parameter")

# -- Parameter ---------------------------------------------------------------------------------
class _ParameterMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, EagerParamBase)

    def __subclasscheck__(cls, sub):
        return issubclass(sub, EagerParamBase)


class Parameter(metaclass=_ParameterMeta):
    """``torch.nn.Parameter(data, requires_grad=True)`` -> a Paddle parameter sharing ``data``."""

    def __new__(cls, data=None, requires_grad: bool = True):
        if data is None:
            data = paddle.empty([0])
        if not isinstance(data, paddle.Tensor):
            raise TypeError(f"Parameter data must be a Tensor, got {type(data).__name__}")
        p = EagerParamBase.from_tensor(data.detach())
        p.stop_gradient = not requires_grad
        p.trainable = bool(requires_grad)
        return p


type_("torch.nn.Parameter", Parameter, note="Paddle's EagerParamBase (isinstance works both ways)")
type_("torch.nn.parameter.Parameter", Parameter)


def _paddle_dtype(dtype):
    from .runtime import paddle_dtype_of
    return paddle_dtype_of(dtype)


def _is_dtype(obj) -> bool:
    if obj is None or isinstance(obj, (str, int, paddle.Tensor)):
        return False
    name = type(obj).__name__
    return name in ("dtype", "VarType", "DataType") or "dtype" in type(obj).__module__ + name


# -- Module ------------------------------------------------------------------------------------
import paddle.nn.layer.layers as _layers  # noqa: E402

_LAYER_HELPERS = ("_helper", "_op_recorder")
# Paddle 2.6 spells the class LayerOpsRecoder
_OPS_RECORDER = getattr(_layers, "LayerOpsRecorder", None) or _layers.LayerOpsRecoder


class Module(paddle.nn.Layer):
    """torch.nn.Module on paddle.nn.Layer (torch signatures where they differ)."""

    def __init__(self, *args, **kwargs):
        if args or kwargs:  # torch: Module.__init__() takes no arguments
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        super().__init__()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # A pickled Module (``torch.save(model)``) leaves out the two Paddle helper objects every
    # Layer holds: torch's Module state has nothing like them, and a weights-only torch.load
    # refuses their classes (pytorch/examples super_resolve.py loads a saved model under
    # ``serialization.safe_globals([Net, ReLU, Conv2d, PixelShuffle])``, which real torch
    # accepts).  __setstate__ builds them again from the layer's name, as Layer.__init__ does.
    def __getstate__(self):
        state = dict(self.__dict__)
        for k in _LAYER_HELPERS:
            state.pop(k, None)
        return state

    def __setstate__(self, state):
        self.__dict__.update(state)
        d = self.__dict__
        if "_helper" not in d and "_full_name" in d:
            d["_helper"] = _layers.LayerObjectHelper(d["_full_name"])
        if "_op_recorder" not in d:
            d["_op_recorder"] = _OPS_RECORDER(ops=[], hooks=[])

    # Paddle's own Layer code calls these methods with its keywords (include_sublayers=,
    # persistable=...): the overrides accept both spellings.
    def register_buffer(self, name, tensor, persistent: bool = True, persistable=None):
        if tensor is not None and not isinstance(tensor, paddle.Tensor):
            raise TypeError(f"cannot assign '{type(tensor).__name__}' object to buffer "
                            f"'{name}' (torch Tensor or None required)")
        super().register_buffer(name, tensor,
                                persistable=persistent if persistable is None else persistable)

    def __setattr__(self, name, value):
        # torch's Module.__setattr__ registers a Parameter through self.register_parameter:
        # accelerate's and transformers' init_empty_weights patch that method on the class to
        # move each new parameter to the meta device, so the call must go through it
        if isinstance(value, EagerParamBase) and "_parameters" in self.__dict__:
            for d in (self.__dict__, self._buffers, self._sub_layers):
                d.pop(name, None)
            self.register_parameter(name, value)
            return
        super().__setattr__(name, value)

    def register_parameter(self, name, param):
        if param is None:
            object.__setattr__(self, name, None)
            return
        self.add_parameter(name, param)

    def register_module(self, name, module):
        self.add_sublayer(name, module)

    add_module = register_module

    def parameters(self, recurse: bool = True, include_sublayers=None):
        if include_sublayers is not None:  # Paddle's caller: Paddle's answer (a list)
            return super().parameters(include_sublayers=include_sublayers)
        return iter(super().parameters(include_sublayers=recurse))

    def named_parameters(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True,
                         include_sublayers=None):
        if include_sublayers is not None:
            recurse = include_sublayers
        if not remove_duplicate:  # torch: a tied parameter under each of its names
            return _all_named(self, "_parameters", prefix, recurse)
        return super().named_parameters(prefix=prefix, include_sublayers=recurse)

    def buffers(self, recurse: bool = True, include_sublayers=None):
        if include_sublayers is not None:
            return super().buffers(include_sublayers=include_sublayers)
        return iter(super().buffers(include_sublayers=recurse))

    def modules(self):
        return iter([self] + list(self.sublayers()))

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        return super().named_sublayers(prefix=prefix, include_self=True)

    # -- torch's mode switches and state_dict (Paddle 2.6's train() takes no mode) ------------
    def train(self, mode: bool = True):
        if not isinstance(mode, bool):
            raise ValueError("training mode is expected to be boolean")
        for m in [self] + list(paddle.nn.Layer.sublayers(self)):
            m.training = mode
        return self

    def eval(self):
        return self.train(False)

    @property
    def _modules(self):
        return self._sub_layers

    def children(self):
        return iter(self._sub_layers.values())

    def named_children(self):
        return iter(self._sub_layers.items())

    def apply(self, fn):
        for m in self.children():
            m.apply(fn) if isinstance(m, Module) else fn(m)
        fn(self)
        return self

    def get_submodule(self, target: str):
        m = self
        for part in target.split(".") if target else ():
            if part not in m._sub_layers:
                raise AttributeError(f"{type(m).__name__} has no attribute `{part}`")
            m = m._sub_layers[part]
        return m

    def get_parameter(self, target: str):
        mod, _, name = target.rpartition(".")
        m = self.get_submodule(mod)
        if name not in m._parameters:
            raise AttributeError(f"{type(m).__name__} has no parameter `{name}`")
        return m._parameters[name]

    def named_buffers(self, prefix: str = "", recurse: bool = True, remove_duplicate: bool = True,
                      include_sublayers=None):
        if include_sublayers is not None:
            recurse = include_sublayers
        if not remove_duplicate:
            return _all_named(self, "_buffers", prefix, recurse)
        return super().named_buffers(prefix=prefix, include_sublayers=recurse)

    def state_dict(self, *args, destination=None, prefix: str = "", keep_vars: bool = False,
                   **kwargs):
        """torch's ``state_dict(destination=None, prefix='', keep_vars=False)``: parameters and
        persistent buffers by dotted name (Paddle's callers' keywords get Paddle's answer)."""
        if args or kwargs:
            return super().state_dict(*args, **kwargs)
        import collections
        out = collections.OrderedDict() if destination is None else destination
        for k, v in super().state_dict().items():
            # an uninitialised (lazy) parameter stays itself, as torch's LazyModuleMixin saves it
            lazy = getattr(type(v), "_lazy_uninitialized", False)
            out[prefix + k] = v if keep_vars or lazy else v.detach()
        return out

    def load_state_dict(self, state_dict, strict: bool = True, assign: bool = False):
        """torch's rules: keys must match when ``strict``, shapes always; values are copied into
        the existing parameters and buffers (cast to their dtype).  Returns torch's
        ``_IncompatibleKeys(missing_keys, unexpected_keys)``."""
        if not isinstance(state_dict, dict):
            raise TypeError(f"Expected state_dict to be dict-like, got {type(state_dict)}.")
        # lazy modules (nn_modules_lazy) take their parameters' shapes from the checkpoint
        # first, as torch's _lazy_load_hook (a load_state_dict pre-hook) does
        for name, m in self.named_modules():
            if hasattr(type(m), "_lazy_load_hook"):
                m._lazy_load_hook(state_dict, f"{name}." if name else "")
        own = super().state_dict()
        missing = [k for k in own if k not in state_dict]
        unexpected = [k for k in state_dict if k not in own]
        errors = []
        if strict:
            if unexpected:
                errors.append("Unexpected key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in unexpected) + ". ")
            if missing:
                errors.append("Missing key(s) in state_dict: "
                              + ", ".join(f'"{k}"' for k in missing) + ". ")
        for k, v in state_dict.items():
            if k not in own:
                continue
            t = own[k]
            v = v if isinstance(v, paddle.Tensor) else paddle.to_tensor(v)
            if getattr(type(v), "_lazy_uninitialized", False) or \
                    getattr(type(t), "_lazy_uninitialized", False):
                continue  # an uninitialised entry (torch's is_lazy): nothing to copy or check
            if list(v.shape) != list(t.shape):
                errors.append(f"size mismatch for {k}: copying a param with shape "
                              f"{list(v.shape)} from checkpoint, the shape in current model is "
                              f"{list(t.shape)}.")
                continue
            if errors:
                continue
            if assign:
                _assign_entry(self, k, t, v)
            elif is_meta(t) and not is_meta(v):
                import warnings
                warnings.warn(f"for {k}: copying from a non-meta parameter in the checkpoint to "
                              "a meta parameter in the current model, which is a no-op. (Did "
                              "you mean to pass `assign=True` to assign items in the state "
                              "dictionary to their corresponding key in the module instead of "
                              "copying them in place?)", UserWarning, stacklevel=2)
            else:
                with paddle.no_grad():
                    paddle.assign(v.detach().astype(t.dtype), output=t)
        if errors:
            raise RuntimeError(f"Error(s) in loading state_dict for {type(self).__name__}:\n\t"
                               + "\n\t".join(errors))
        return _IncompatibleKeys(missing, unexpected)

    def to_empty(self, *, device=None, recurse: bool = True):
        """torch's meta-device materialisation step: parameters and buffers on ``device`` with
        unspecified contents.  A meta one becomes a new tensor (torch, too, makes a new
        Parameter there, keeping requires_grad); one with storage keeps its object and values
        (its contents are unspecified in torch)."""
        from .creation import empty_like
        for m in (self.modules() if recurse else [self]):
            for table in (m._parameters, m._buffers):
                for name, t in list(table.items()):
                    if t is None or not is_meta(t):
                        continue
                    new = empty_like(t, device=device)
                    if isinstance(t, EagerParamBase):
                        new = Parameter(new, requires_grad=not t.stop_gradient)
                    table[name] = new
        if device is not None:
            self.to(device)
        return self

    def get_buffer(self, target: str):
        mod, _, name = target.rpartition(".")
        m = self.get_submodule(mod)
        if name not in m._buffers:
            raise AttributeError(f"{type(m).__name__} has no buffer `{name}`")
        return m._buffers[name]

    def zero_grad(self, set_to_none: bool = True):
        for p in super().parameters():
            clear_grad(p, set_to_none)  # an assigned .grad too (autograd.py)

    def requires_grad_(self, requires_grad: bool = True):
        for p in super().parameters():
            p.stop_gradient = not requires_grad
        return self

    def to(self, *args, **kwargs):
        """``to(device)``, ``to(dtype)``, ``to(device, dtype)``, ``to(tensor)``, keywords too."""
        device = kwargs.pop("device", None)
        dtype = kwargs.pop("dtype", None)
        kwargs.pop("non_blocking", None)
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {sorted(kwargs)}")
        for a in args:
            if isinstance(a, paddle.Tensor):
                device, dtype = a.place, a.dtype
            elif _is_dtype(a):
                dtype = a
            else:
                device = a
        if device is not None:
            place = _paddle_place(device)
            if isinstance(place, str) and place.startswith("gpu"):
                from .cuda import _lazy_init
                _lazy_init()  # without CUDA: torch's AssertionError, not Paddle's ValueError
            super().to(device=place)
        if dtype is not None:
            super().to(dtype=_paddle_dtype(dtype))
        return self

    def cuda(self, device=None):
        from .cuda import _index
        return self.to(f"cuda:{_index(device, optional=True)}")

    def cpu(self):
        return self.to("cpu")

    def float(self):
        return self.to(dtype="float32")

    def half(self):
        return self.to(dtype="float16")

    def bfloat16(self):
        return self.to(dtype="bfloat16")

    def double(self):
        return self.to(dtype="float64")

    def extra_repr(self) -> str:
        return ""


import collections as _collections  # noqa: E402


def _all_named(module, table, prefix, recurse):
    """torch's named_parameters/named_buffers(remove_duplicate=False): every (name, tensor)
    of ``table``, a tensor shared by several modules or names once per name (Paddle's own
    walk drops repeats; transformers finds tied weights by comparing the two answers)."""
    def walk(m, pre, seen_path):
        for n, t in getattr(m, table).items():
            if t is not None:
                yield pre + n, t
        if recurse:
            for n, sub in m._sub_layers.items():
                if sub is not None and id(sub) not in seen_path:  # no cycles
                    yield from walk(sub, f"{pre}{n}.", seen_path | {id(sub)})
    return walk(module, f"{prefix}." if prefix else "", frozenset([id(module)]))


def _assign_entry(root, key, old, value):
    """load_state_dict(assign=True): ``value`` replaces the entry itself (no copy, its own
    dtype), torch's rule: a parameter stays a Parameter with the old requires_grad (a Parameter
    value is kept as it is, its requires_grad set to the old one's)."""
    path, _, name = key.rpartition(".")
    owner = root.get_submodule(path)
    if name in owner._parameters:
        requires_grad = not old.stop_gradient
        if isinstance(value, EagerParamBase):
            value.stop_gradient = not requires_grad
        else:
            value = Parameter(value, requires_grad=requires_grad)
        owner._parameters[name] = value
    else:
        owner._buffers[name] = value


class _IncompatibleKeys(_collections.namedtuple("IncompatibleKeys",
                                                ["missing_keys", "unexpected_keys"])):
    def __repr__(self):
        if not self.missing_keys and not self.unexpected_keys:
            return "<All keys matched successfully>"
        return super().__repr__()


def _paddle_place(device):
    """torch-style device (str / torch.device / int) -> Paddle place string."""
    if isinstance(device, int):
        return f"gpu:{device}"
    s = str(device)
    if s.startswith("cuda"):
        idx = s.partition(":")[2] or "0"
        return f"gpu:{idx}"
    if s.startswith("cpu"):
        return "cpu"
    return device  # a Paddle place


type_("torch.nn.Module", Module, note="a paddle.nn.Layer subclass")
module("torch.nn.modules")
module("torch.nn.modules.module")
type_("torch.nn.modules.module.Module", Module)
# what load_state_dict returns; Hugging Face transformers builds one itself (load_sharded_checkpoint)
type_("torch.nn.modules.module._IncompatibleKeys", _IncompatibleKeys)


# -- functional ----------------------------------------------------------------------------------
F = "torch.nn.functional."


def _cpu_half(fn):
    """float16/bfloat16 CPU inputs are computed in float32 and the result cast back, as torch's
    CPU kernels do ("opmath"); Paddle has no CPU half kernels for layer_norm, cross_entropy,
    log_softmax...  Keyword tensors (weight=) are widened too; gradients flow through the casts.
    On GPUs (and for other dtypes) Paddle's own kernels run."""
    from ._opbase import _down, _find_half, _up

    def run(*args, **kwargs):
        half = _find_half(list(args) + list(kwargs.values()))
        if half is None:
            return fn(*args, **kwargs)
        out = fn(*[_up(a) for a in args], **{k: _up(v) for k, v in kwargs.items()})
        return out if kwargs.get("dtype") is not None else _down(out, half)
    run.__name__ = fn.__name__
    run.__qualname__ = fn.__qualname__
    run.__doc__ = fn.__doc__
    run.__wrapped__ = fn
    return run


def _implicit_dim(ndim: int) -> int:
    # torch's legacy rule for softmax(dim=None) (it warns; the answer is this)
    return 0 if ndim in (0, 1, 3) else 1


def _cast(x, dtype):
    return x if dtype is None else x.astype(_paddle_dtype(dtype))


@torch_function(F + "softmax")
@_cpu_half
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim(input.ndim)
    return PF.softmax(_cast(input, dtype), axis=dim)


@torch_function(F + "log_softmax")
@_cpu_half
def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim(input.ndim)
    return log_softmax_kernel(_cast(input, dtype), dim)


@torch_function(F + "gelu")
@_cpu_half  # Paddle's CPU build has no half gelu/silu kernels (bfloat16 under torch.autocast)
def gelu(input, approximate: str = "none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh.")
    return PF.gelu(input, approximate=approximate == "tanh")


@torch_function(F + "silu")
@inplace_form
def silu(input, inplace: bool = False):
    if not input.stop_gradient and paddle.is_grad_enabled():
        return inplace_result(input, _silu_differentiable(input), inplace)
    return inplace_result(input, _silu(input), inplace)


_silu = _cpu_half(PF.silu)
# Paddle's silu gradient kernel is NaN below about x = -88 in float32 (its exp(-x) overflows:
# inf/inf), where torch's is -0 (Liger-Kernel's falcon_h1 MLP test: 15% NaN weight gradients).
# Where a gradient is recorded, x * sigmoid(x) differentiates through sigmoid's stable one;
# its values are the kernel's within rounding.
_silu_differentiable = _cpu_half(lambda x: x * PF.sigmoid(x))
_relu = _ops_relu  # one relu for torch.relu, Tensor.relu, F.relu and nn.ReLU (ops._relu)


@torch_function(F + "sigmoid")
def sigmoid(input):
    from .ops import UNARY  # torch.sigmoid: int/bool inputs give the default float dtype
    return UNARY["sigmoid"](input)


@torch_function(F + "tanh")
def tanh(input):
    from .ops import UNARY  # torch.tanh: int/bool inputs give the default float dtype
    return UNARY["tanh"](input)


@torch_function(F + "layer_norm")
@_cpu_half
def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    if isinstance(normalized_shape, int):  # torch's F.layer_norm refuses it (nn.LayerNorm does not)
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        "of ints, not int")
    normalized_shape = check_norm_shape(input, normalized_shape, weight, bias)
    if not 0.0 <= eps <= 1e-3:  # Paddle's kernel refuses other eps: torch's formula
        return layer_norm_formula(input, normalized_shape, weight, bias, eps)[0]
    if any(t is not None and t.stop_gradient for t in (weight, bias)) and not input.stop_gradient:
        # Paddle 2.6-3.3's layer_norm kernel returns a wrong input gradient when weight (or
        # bias) needs none: the affine part is applied outside the kernel then
        out = layer_norm(input, normalized_shape, None, None, eps)
        if weight is not None:
            out = out * exact_broadcast(weight, out.shape)
        return out + exact_broadcast(bias, out.shape) if bias is not None else out
    if len(normalized_shape) > 1:  # Paddle wants 1-D scale/bias: the flattened ones
        weight = weight.reshape([-1]) if weight is not None else None
        bias = bias.reshape([-1]) if bias is not None else None
    if len(normalized_shape) == input.ndim:  # Paddle needs begin_norm_axis > 0
        return PF.layer_norm(input.unsqueeze(0), normalized_shape, weight=weight, bias=bias,
                             epsilon=eps).squeeze(0)
    return PF.layer_norm(input, normalized_shape, weight=weight, bias=bias, epsilon=eps)


def layer_norm_formula(input, normalized_shape, weight, bias, eps):
    """torch's layer norm written out: (out, mean, rstd), mean/rstd of shape
    input.shape[:axis] + [1] * len(normalized_shape) (torch.native_layer_norm's results)."""
    k = len(check_norm_shape(input, normalized_shape, weight, bias))
    axes = list(range(input.ndim - k, input.ndim))
    mean = accurate_mean(input, axes, keepdim=True)
    var = accurate_mean((input - exact_broadcast(mean, input.shape)) ** 2, axes, keepdim=True)
    rstd = paddle.rsqrt(var + eps)
    out = (input - exact_broadcast(mean, input.shape)) * exact_broadcast(rstd, input.shape)
    if weight is not None:
        out = out * exact_broadcast(weight, out.shape)
    if bias is not None:
        out = out + exact_broadcast(bias, out.shape)
    return out, mean, rstd


def check_norm_shape(input, normalized_shape, weight=None, bias=None):
    """torch's layer_norm/rms_norm argument checks (RuntimeError with torch's message)."""
    shape = [int(d) for d in normalized_shape]
    if not shape:
        raise RuntimeError(f"Expected normalized_shape to be at least 1-dimensional, i.e., "
                           f"containing at least one element, but got normalized_shape = {shape}")
    for name, t in (("weight", weight), ("bias", bias)):
        if t is not None and list(t.shape) != shape:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got "
                               f"{name} of shape {list(t.shape)} and normalized_shape = {shape}")
    if len(shape) > input.ndim or list(input.shape[input.ndim - len(shape):]) != shape:
        raise RuntimeError(f"Given normalized_shape={shape}, expected input with shape "
                           f"[*, {', '.join(map(str, shape))}], but got input of size"
                           f"{list(input.shape)}")
    return shape


@torch_function(F + "rms_norm")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    normalized_shape = check_norm_shape(input, normalized_shape, weight)
    axes = list(range(input.ndim - len(normalized_shape), input.ndim))
    if eps is None:
        eps = float(paddle.finfo(input.dtype).eps)
    if 0 in list(input.shape):  # Paddle 2.6 refuses to reduce an empty tensor
        return input * weight if weight is not None else input.clone()
    rstd = paddle.rsqrt(accurate_mean(input * input, axes, keepdim=True) + eps)
    out = input * exact_broadcast(rstd, input.shape)
    return out * exact_broadcast(weight, out.shape) if weight is not None else out


@torch_function(F + "linear", note="weight is [out_features, in_features] (torch layout)")
def linear(input, weight, bias=None):
    if weight.dtype != input.dtype or (bias is not None and bias.dtype != weight.dtype):
        _linear_dtype_error(input, weight, bias)  # (Paddle promotes, or fails in its kernel)
    return linear_kernel(input, weight, bias)


def linear_kernel(input, weight, bias):
    """``input @ weight.T + bias`` (torch's layout, no argument checks), the bias gradient
    summed over the batch with torch's accuracy (_accurate_sum.py); F.linear, the RNN cells
    and multi-head attention's projections."""
    out = paddle.matmul(input, weight, transpose_y=True)
    if bias is None:
        return out
    # (a bias recording no graph is added as it is: no shape read, no call; F.linear's host
    # cost on CUDA tensors, bench/facade_ops_host.py)
    return out + (bias if bias.stop_gradient else exact_broadcast(bias, out.shape))


def _linear_dtype_error(input, weight, bias):
    """torch's refusal of mixed dtypes in F.linear: with a bias it is addmm's (mat1 = input,
    mat2 = weight, self = bias), without one matmul's."""
    legacy = _dt.LEGACY_NAMES.get
    if bias is None or input.ndim < 2:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_cpp_name(input.dtype)} != {_cpp_name(weight.dtype)}")
    first, second, what = ((input, weight, "mat1") if input.dtype != weight.dtype else
                           (bias, weight, "self"))
    a, b = _dt.torch_name(first.dtype), _dt.torch_name(second.dtype)
    raise RuntimeError(f"{what} and mat2 must have the same dtype, but got {legacy(a, a)} and "
                       f"{legacy(b, b)}")


@torch_function(F + "dropout")
def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if p == 0 or not training or 0 in input.shape:
        return input  # torch's _dropout_impl: the input itself, nothing written or checked
    if training and 0 < p < 1 and _is_cpu_tensor(input) and input.size:
        return inplace_result(input, dropout_cpu(input, p, list(input.shape)), inplace)
    out = PF.dropout(input, p=p, training=training)
    return inplace_result(input, out, inplace)


def _is_cpu_tensor(t) -> bool:
    return "cpu" in str(t.place).lower()


@torch_function(F + "embedding",
                note="padding_idx: torch's forward value (weight row) and zero grad; "
                     "sparse=True gives Paddle's row-sparse (SelectedRows) gradient")
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if max_norm is not None:  # torch's embedding_renorm_: the rows looked up, in place
        with paddle.no_grad():
            rows = paddle.unique(input.reshape([-1]))
            if rows.shape[0]:
                w = paddle.gather(weight, rows)
                norm = paddle.linalg.norm(w, p=float(norm_type), axis=1, keepdim=True)
                scale = paddle.where(norm > max_norm, max_norm / (norm + 1e-7),
                                     paddle.ones_like(norm))
                paddle.assign(paddle.scatter(weight, rows, w * scale, overwrite=True),
                              output=weight)
    # Paddle's padding_idx zeroes the *output* row; torch returns weight[padding_idx] and only
    # keeps its gradient at zero.  So: no padding_idx to Paddle, and the gradient masked here.
    out = PF.embedding(input, weight, sparse=bool(sparse))  # sparse: Paddle's row-sparse grad
    if scale_grad_by_freq and not weight.stop_gradient:  # gradient / occurrences in the batch
        flat = input.reshape([-1])
        counts = paddle.bincount(flat, minlength=weight.shape[0])
        freq = paddle.gather(counts, flat).reshape(input.shape).astype(out.dtype).unsqueeze(-1)
        out = out.detach() + (out - out.detach()) / freq
    if padding_idx is not None and not weight.stop_gradient:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        keep = (input != padding_idx).astype(out.dtype).unsqueeze(-1)
        out = out * keep + out.detach() * (1 - keep)
    return out


@torch_function(F + "cross_entropy", note="class dimension 1 as in torch; probabilities as targets")
@_cpu_half
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """torch's cross_entropy: log_softmax over the class dim (1, or 0 for a 1-D input), then
    nll_loss for class-index targets (weights, ignore_index, label smoothing as torch mixes
    them) or the weighted sum over classes for probability targets."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    axis = 1 if input.ndim >= 2 else 0
    n_classes = input.shape[axis]
    logp = log_softmax_kernel(input, axis)
    wshape = [1] * input.ndim
    wshape[axis] = n_classes
    if paddle.is_floating_point(target):  # class probabilities
        if list(target.shape) != list(input.shape):
            raise RuntimeError(f"Expected target size {list(input.shape)}, got "
                               f"{list(target.shape)}")
        if label_smoothing:
            target = target * (1 - label_smoothing) + label_smoothing / n_classes
        prod = logp * target
        if weight is not None:
            prod = prod * weight.reshape(wshape)
        loss = -accurate_sum(prod, [axis])  # torch's cascade-sum accuracy over the classes
        if reduction == "mean":
            return loss.sum() / (math.prod(input.shape) // n_classes)
        return _reduce(loss, reduction)
    nll = nll_loss(logp, target, weight=weight, ignore_index=ignore_index, reduction=reduction)
    if not label_smoothing:
        return nll
    valid = target != ignore_index
    # the sum over the classes with torch's float32 accuracy (a 32000-class sequential sum
    # drifted 6.6e-6 relative from torch's: Liger's cross-entropy test, rtol 1e-6)
    smooth = -accurate_sum(logp * weight.reshape(wshape) if weight is not None else logp, [axis])
    smooth = smooth * valid.astype(smooth.dtype)
    if reduction == "none":
        s = smooth
    elif reduction == "sum":
        s = smooth.sum()
    else:
        if weight is not None:
            safe = paddle.where(valid, target, paddle.zeros_like(target))
            denom = (paddle.gather(weight, safe.reshape([-1])).reshape(safe.shape)
                     * valid.astype(weight.dtype)).sum()
        else:
            denom = valid.astype(smooth.dtype).sum()
        s = smooth.sum() / denom
    return (1 - label_smoothing) * nll + (label_smoothing / n_classes) * s


@torch_function(F + "mse_loss")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    reduction = legacy_reduction(size_average, reduce, reduction)
    input, target = broadcast_tensors([input, target])
    loss = (input - target) ** 2
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


@torch_function(F + "pad",
                note="constant mode for any rank (negative pads crop); other modes as Paddle's "
                     "(last 1-3 dims of 3-5D inputs)")
def pad(input, pad, mode: str = "constant", value=None):
    pad = [int(p) for p in pad]
    if len(pad) % 2 or len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length must be divisible by 2 and at most twice the input's "
                           f"dimensions (got {len(pad)} for {input.ndim} dims)")
    n = len(pad) // 2
    # torch lists (left, right) pairs from the LAST dimension backwards
    pairs = [(0, 0)] * (input.ndim - n) + [(pad[2 * i], pad[2 * i + 1]) for i in range(n)][::-1]
    if mode == "constant":
        # crop first (negative pads), then pad what is left
        slices = [slice(max(-a, 0), d - max(-b, 0)) for (a, b), d in zip(pairs, input.shape)]
        x = input[tuple(slices)] if any(a < 0 or b < 0 for a, b in pairs) else input
        flat = []
        for a, b in pairs:
            flat += [max(a, 0), max(b, 0)]
        if not any(flat):
            return x.clone() if x is input else x
        if x.dtype == paddle.bool:  # Paddle has no bool pad kernel: exact through int32
            return PF.pad(x.astype("int32"), flat, mode="constant",
                          value=float(bool(value))).astype("bool")
        return PF.pad(x, flat, mode="constant", value=0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument.')
    if n not in (1, 2, 3) or input.ndim not in (n + 1, n + 2):
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":  # torch's wrap: negative pads crop, each side wraps at most once
        x = input
        for dim, (a, b) in enumerate(pairs):
            if a == 0 and b == 0:
                continue
            size = x.shape[dim]
            if a > size or b > size:
                raise RuntimeError("Padding value causes wrapping around more than once.")
            if size + a + b < 0:
                raise RuntimeError("Negative padding value is resulting in an empty dimension.")
            lo, hi = max(-a, 0), size - max(-b, 0)
            core = paddle.slice(x, [dim], [lo], [hi]) if (lo or hi != size) else x
            cs = core.shape[dim]
            parts = []
            if a > 0:
                parts.append(paddle.slice(core, [dim], [cs - a], [cs]))
            parts.append(core)
            if b > 0:
                parts.append(paddle.slice(core, [dim], [0], [b]))
            x = paddle.concat(parts, axis=dim) if len(parts) > 1 else core
        return x.clone() if x is input else x
    if n == input.ndim - 1 and input.ndim in (2, 3, 4):  # unbatched (C, ...) input, as torch
        return globals()["pad"](input.unsqueeze(0), pad, mode, value).squeeze(0)
    fmt = {3: "NCL", 4: "NCHW", 5: "NCDHW"}.get(input.ndim)
    if fmt is None or n != input.ndim - 2:
        raise NotImplementedError(f"torchproxy: pad(mode={mode!r}) pads the last {input.ndim - 2} "
                                  f"dims of a {input.ndim}-D input (got {n} pairs)")
    return PF.pad(input, pad, mode=mode, data_format=fmt)


@torch_function(F + "normalize")
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    if out is not None:
        raise NotImplementedError("torchproxy: normalize(out=) is not provided")
    if input.ndim == 0:  # torch normalizes a 0-d tensor over its one implicit dim
        if dim not in (0, -1):
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but "
                             f"got {dim})")
        return PF.normalize(input.unsqueeze(0), p=p, axis=0, epsilon=eps).squeeze(0)
    return PF.normalize(input, p=p, axis=dim, epsilon=eps)


# -- layers the kernel libraries' wrappers build on (Liger-Kernel's MLPs, norms) ---------------
# Torch's layouts and initialisations, not Paddle's: nn.Linear's weight is [out, in] here
# (paddle.nn.Linear keeps [in, out]), and forward goes through the functional adapters above.
import math  # noqa: E402

def _finish_layer(layer, device, dtype):
    """The factory keywords every torch layer takes (device=, dtype=)."""
    if dtype is not None:
        layer.to(dtype=dtype)
    if device is not None:
        layer.to(device)


def _new_param_tensor(shape, dtype=None):
    """An uninitialised CPU tensor of the layer's dtype (default: the default float) for
    ``reset_parameters`` to draw into: torch draws a parameter in its own dtype."""
    if dtype is not None and _dt.torch_name(_dt.to_paddle(dtype)) in (
            "float16", "bfloat16", "float32", "float64"):
        dt = _dt.to_paddle(dtype)
    else:
        dt = paddle.get_default_dtype()
    return paddle.empty(list(shape), dtype=dt)


class Linear(Module):
    """torch.nn.Linear: weight [out_features, in_features], torch's kaiming-uniform init."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        self.weight = Parameter(_new_param_tensor([self.out_features, self.in_features], dtype))
        if bias:
            self.bias = Parameter(_new_param_tensor([self.out_features], dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()
        _finish_layer(self, device, dtype)

    def reset_parameters(self):
        """torch's: kaiming_uniform_(a=sqrt(5)) for the weight, U(+-1/sqrt(fan_in)) for the
        bias, in that order (the draws of a seeded CPU stream are torch's)."""
        from . import nn_init as init
        init.kaiming_uniform_(self.weight, a=math.sqrt(5))
        if self.bias is not None:
            fan_in, _ = init._calculate_fan_in_and_fan_out(self.weight)
            bound = 1 / math.sqrt(fan_in) if fan_in > 0 else 0
            init.uniform_(self.bias, -bound, bound)

    def forward(self, input):
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


def _norm_affine_params(layer, shape, affine, bias=True):
    """A normalisation layer's ``weight`` (ones) and ``bias`` (zeros) over ``shape``, or None
    for either (not affine, ``bias=False``), under torch's names in torch's order (so
    ``state_dict()`` keys are torch's).  LayerNorm here; batch/instance/group norm in
    nn_modules_norm.py."""
    if affine:
        layer.weight = Parameter(paddle.ones(list(shape)))
        if bias:
            layer.bias = Parameter(paddle.zeros(list(shape)))
        else:
            layer.register_parameter("bias", None)
    else:
        layer.register_parameter("weight", None)
        layer.register_parameter("bias", None)


class LayerNorm(Module):
    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, int):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(int(d) for d in normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        self._has_bias = bool(bias)
        _norm_affine_params(self, self.normalized_shape, elementwise_affine, bias)
        _finish_layer(self, device, dtype)

    def forward(self, input):
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self._has_bias}")


class Embedding(Module):
    def __init__(self, num_embeddings, embedding_dim, padding_idx=None, max_norm=None,
                 norm_type=2.0, scale_grad_by_freq=False, sparse=False, _weight=None,
                 _freeze=False, device=None, dtype=None):
        super().__init__()
        self.num_embeddings, self.embedding_dim = int(num_embeddings), int(embedding_dim)
        if padding_idx is not None:
            if not -self.num_embeddings <= padding_idx < self.num_embeddings:
                raise AssertionError("Padding_idx must be within num_embeddings")
            padding_idx = padding_idx % self.num_embeddings
        self.padding_idx = padding_idx
        self.max_norm, self.scale_grad_by_freq, self.sparse = max_norm, scale_grad_by_freq, sparse
        if _weight is None:  # torch's reset_parameters: normal_(0, 1), the padding row zeroed
            from . import nn_init as init
            w = init.normal_(_new_param_tensor([self.num_embeddings, self.embedding_dim], dtype))
            if padding_idx is not None:
                w[padding_idx] = 0.0
        else:
            w = _weight
        self.weight = Parameter(w, requires_grad=not _freeze)
        _finish_layer(self, device, dtype)

    def forward(self, input):
        return embedding(input, self.weight, self.padding_idx, self.max_norm, 2.0,
                         self.scale_grad_by_freq, self.sparse)


class _DropoutNd(Module):
    """torch's base of the dropout modules: Dropout here, the channel-wise and alpha ones in
    nn_modules_dropout.py (not Dropout subclasses, as in torch).  ``_fn`` is the functional
    form the forward calls."""
    _fn = None

    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return type(self)._fn(input, self.p, self.training, self.inplace)

    def extra_repr(self):
        return f"p={self.p}, inplace={self.inplace}"


class Dropout(_DropoutNd):
    _fn = staticmethod(dropout)


class CrossEntropyLoss(Module):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__()
        self.register_buffer("weight", weight)  # torch's _WeightedLoss: a buffer
        self.ignore_index, self.label_smoothing = ignore_index, label_smoothing
        self.reduction = legacy_reduction(size_average, reduce, reduction)

    def forward(self, input, target):
        return cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                             reduction=self.reduction, label_smoothing=self.label_smoothing)


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return inplace_result(input, _relu(input), self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class SiLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return silu(input, self.inplace)

    def extra_repr(self):
        return "inplace=True" if self.inplace else ""


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return gelu(input, self.approximate)

    def extra_repr(self):
        return f"approximate={self.approximate!r}"


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return softmax(input, self.dim)

    def extra_repr(self):
        return f"dim={self.dim}"


class Identity(Module):
    def __init__(self, *args, **kwargs):
        super().__init__()

    def forward(self, input):
        return input


class ModuleList(Module, paddle.nn.LayerList):
    """torch.nn.ModuleList on Paddle's LayerList (indexing, len, iteration, append/extend)."""

    def __init__(self, modules=None):
        Module.__init__(self)
        if modules is not None:
            self.extend(modules)


for _cls in (Linear, LayerNorm, Embedding, Dropout, CrossEntropyLoss, ReLU, SiLU, GELU, Softmax,
             Identity, ModuleList):
    type_(f"torch.nn.{_cls.__name__}", _cls,
          note="torch's weight layout [out, in] and init (not paddle.nn.Linear)"
          if _cls is Linear else "")


# torch's CPU rule for float16/bfloat16 (computed in float32, rounded back: opmath_function);
# Paddle's CPU build has no float16 subtract kernel (Liger's JSD test, float16 with beta=1)
@opmath_function(F + "kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        reduction = legacy_reduction(size_average, reduce, reduction)
    if log_target:
        loss = paddle.exp(target) * (target - input)
    else:
        # torch: xlogy(target, target) - target * input (0 * log 0 = 0, log of a negative
        # target: nan)
        safe = paddle.where(target == 0, paddle.ones_like(target), target)
        loss = paddle.where(target == 0, paddle.zeros_like(target), target * paddle.log(safe)) \
            - target * input
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    if reduction == "mean":
        # sum / count: Paddle 3.3.1's CPU float32 mean of 20.9M terms was 3.1e-5 off (relative;
        # its sum 1.1e-7, torch's mean 2.0e-7): Liger's KL-div test compares at rtol 1e-6
        return loss.sum() / math.prod(loss.shape)
    raise ValueError(f"{reduction} is not a valid value for reduction")


class KLDivLoss(Module):
    """torch.nn.KLDivLoss (Liger-Kernel subclasses it at import: LigerKLDIVLoss)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__()
        # torch's _Loss: only the legacy pair is translated ("batchmean" is kept unchecked)
        self.reduction = reduction if size_average is None and reduce is None else \
            legacy_reduction(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


type_("torch.nn.KLDivLoss", KLDivLoss)


# -- more functional forms the kernel libraries call (FlashInfer, Liger-Kernel references) ----
@torch_function(F + "logsigmoid")
def logsigmoid(input):
    return PF.log_sigmoid(input)


@torch_function(F + "softplus")
def softplus(input, beta=1.0, threshold=20.0):
    return PF.softplus(input, beta=beta, threshold=threshold)


def check_conv_args(input, weight, bias, stride, padding, dilation, groups, nd,
                    transposed=False):
    """torch's convolution argument checks, RuntimeError with torch's messages."""
    if input.dtype != weight.dtype or (bias is not None and bias.dtype != input.dtype):
        raise RuntimeError(f"Input type ({input.dtype}) and weight type ({weight.dtype}) "
                           f"{'and bias type (' + str(bias.dtype) + ') ' if bias is not None else ''}"
                           f"should be the same")
    if weight.ndim < 3:
        raise RuntimeError(f"weight should have at least three dimensions")
    if weight.ndim != nd + 2:
        raise RuntimeError(f"Expected {weight.ndim}-dimensional input for {weight.ndim}-"
                           f"dimensional weight {list(weight.shape)}, but got {input.ndim}-"
                           f"dimensional input of size {list(input.shape)} instead")
    if any(s <= 0 for s in _ntuple_values(stride, nd)):
        raise RuntimeError("non-positive stride is not supported")
    if not isinstance(padding, str) and any(p < 0 for p in _ntuple_values(padding, nd)):
        raise RuntimeError("negative padding is not supported")
    if any(d <= 0 for d in _ntuple_values(dilation, nd)):
        raise RuntimeError("dilation should be greater than zero")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if not transposed and weight.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at "
                           f"dimension 0, but got weight of size {list(weight.shape)} instead")
    if not transposed and weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} "
                           f"at dimension 0, but got weight of size {list(weight.shape)} instead")


def _convnd(input, weight, bias, stride, padding, dilation, groups, nd):
    """torch's conv{nd}d on Paddle's kernels: unbatched inputs, padding='same' (asymmetric
    when the total is odd: the extra zero on the right, as torch) and 'valid'."""
    fn = {1: PF.conv1d, 2: PF.conv2d, 3: PF.conv3d}[nd]
    fmt = {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd]
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to "
                           f"conv{nd}d, but got input of size: {list(input.shape)}")
    check_conv_args(input, weight, bias, stride, padding, dilation, groups, nd)
    unb = input.ndim == nd + 1
    x = input.unsqueeze(0) if unb else input
    if x.shape[1] != weight.shape[1] * groups:
        raise RuntimeError(f"Given groups={groups}, weight of size {list(weight.shape)}, "
                           f"expected input{list(x.shape)} to have {weight.shape[1] * groups} "
                           f"channels, but got {x.shape[1]} channels instead")
    stride, dilation = list(_ntuple_values(stride, nd)), list(_ntuple_values(dilation, nd))
    if isinstance(padding, str):
        if padding == "valid":
            padding = [0] * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pairs = []
            for d, k in zip(dilation, weight.shape[2:]):
                total = d * (k - 1)
                pairs.append((total // 2, total - total // 2))
            if all(a == b for a, b in pairs):
                padding = [a for a, _ in pairs]
            else:
                flat = []
                for a, b in reversed(pairs):  # Paddle's pad lists the last dim first
                    flat += [a, b]
                x = PF.pad(x, flat, mode="constant", value=0.0, data_format=fmt)
                padding = [0] * nd
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = list(_ntuple_values(padding, nd))
    if _is_int(x):  # Paddle has float kernels only: exact in float64 below 2**53, as torch's
        out = fn(x.astype("float64"), weight.astype("float64"),
                 bias=bias.astype("float64") if bias is not None else None, stride=stride,
                 padding=padding, dilation=dilation, groups=groups, data_format=fmt)
        out = out.astype(x.dtype)
    else:
        out = fn(x, weight, bias=bias, stride=stride, padding=padding, dilation=dilation,
                 groups=groups, data_format=fmt)
    return out.squeeze(0) if unb else out


@torch_function(F + "conv1d")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 1)


@torch_function(F + "conv2d", note="torch's weight layout [out, in/groups, kh, kw] is Paddle's too")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 2)


@torch_function(F + "nll_loss")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """torch's nll_loss: class dim 1 (or 0 for a 1-D input), weights, ignore_index; 'mean'
    divides by the summed weights of the targets counted."""
    reduction = legacy_reduction(size_average, reduce, reduction)
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    if input.ndim == 1:
        if target.ndim != 0:
            raise ValueError(f"Expected input batch_size ({1}) to match target batch_size "
                             f"({target.shape[0] if target.ndim else 0}).")
        x, t = input.unsqueeze(0), target.unsqueeze(0)
    else:
        if target.shape[0] != input.shape[0]:
            raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target "
                             f"batch_size ({target.shape[0]}).")
        x, t = input, target
    c = x.shape[1]
    valid = t != ignore_index
    bad = valid & ((t < 0) | (t >= c))
    if bool(bad.any()):  # torch checks every target (Paddle 2.6 would read out of bounds)
        raise IndexError(f"Target {int(t[bad][0])} is out of bounds.")
    safe = paddle.where(valid, t, paddle.zeros_like(t))
    picked = -paddle.take_along_axis(x, safe.unsqueeze(1), axis=1).squeeze(1)
    w = paddle.gather(weight, safe.reshape([-1])).reshape(safe.shape) if weight is not None \
        else paddle.ones(safe.shape, dtype=x.dtype)
    w = w * valid.astype(w.dtype)
    loss = picked * w
    if input.ndim == 1:
        loss, w = loss.squeeze(0), w.squeeze(0)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "mean":
        # all targets ignored: torch's value is nan (0 / 0) and its gradient zero
        total = w.sum()
        empty = total == 0
        safe = paddle.where(empty, paddle.ones_like(total), total)
        return paddle.where(empty, paddle.full_like(total, float("nan")), loss.sum() / safe)
    raise ValueError(f"{reduction} is not a valid value for reduction")


@torch_function(F + "cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    """torch's formula: broadcast, divide each by its norm clamped to eps (the clamp outside
    autograd, as torch's no-grad in-place clamp), then sum the product over ``dim``."""
    x1, x2 = _floating(x1), _floating(x2)
    if x1.dtype != x2.dtype:
        x1, x2 = x1.astype(paddle.float64), x2.astype(paddle.float64)
    shape = paddle.broadcast_shape(x1.shape, x2.shape)
    x1, x2 = x1.expand(shape), x2.expand(shape)
    if not shape:
        if dim not in (0, -1):
            raise IndexError(f"Dimension out of range (expected to be in range of [-1, 0], but "
                             f"got {dim})")
        return cosine_similarity(x1.unsqueeze(0), x2.unsqueeze(0), 0, eps).squeeze(0)

    def unit(x):
        n = paddle.sqrt((x * x).sum(axis=dim, keepdim=True))
        n = n + (paddle.clip(n, min=eps) - n).detach()
        return x / n
    return (unit(x1) * unit(x2)).sum(axis=dim)


# torch.nn.modules.utils._pair & co. (Liger-Kernel's convolution ops import _pair)
module("torch.nn.modules.utils")


def _ntuple(n, name):
    import collections.abc

    def parse(x):
        if isinstance(x, collections.abc.Iterable):  # torch's rule (strings included)
            return tuple(x)
        return (x,) * n
    parse.__name__ = name
    return parse


for _n, _name in ((1, "_single"), (2, "_pair"), (3, "_triple"), (4, "_quadruple")):
    torch_function(f"torch.nn.modules.utils.{_name}")(_ntuple(_n, _name))
