"""``torch.nn``: ``Module`` / ``Parameter`` for the layer wrappers kernel libraries ship
(Liger-Kernel's ``transformers/`` modules), and ``torch.nn.functional`` with torch signatures.

``torch.nn.Module`` is a ``paddle.nn.Layer`` subclass: Paddle's machinery (parameter and sublayer
registration on attribute assignment, ``__call__`` -> ``forward``, ``state_dict``) does the work;
the methods whose torch signature differs (``register_buffer(persistent=)``, ``to(dtype)``,
``zero_grad``, ``cuda``, ``half``...) are adapted here.  ``torch.nn.Parameter(t)`` is Paddle's
parameter type (``EagerParamBase``), sharing ``t``'s memory as torch's does.
"""
from __future__ import annotations

# The torch names this area registers (registry.check_area compares them with what its
# import registered: a name added or removed must be added or removed here).
NAMES = (
    "torch.nn.CrossEntropyLoss", "torch.nn.Dropout", "torch.nn.Embedding", "torch.nn.GELU",
    "torch.nn.Identity", "torch.nn.KLDivLoss", "torch.nn.LayerNorm", "torch.nn.Linear",
    "torch.nn.Module", "torch.nn.ModuleList", "torch.nn.Parameter", "torch.nn.ReLU",
    "torch.nn.SiLU", "torch.nn.Softmax", "torch.nn.functional.conv1d",
    "torch.nn.functional.conv2d", "torch.nn.functional.cosine_similarity",
    "torch.nn.functional.cross_entropy", "torch.nn.functional.dropout",
    "torch.nn.functional.embedding", "torch.nn.functional.gelu", "torch.nn.functional.kl_div",
    "torch.nn.functional.layer_norm", "torch.nn.functional.linear",
    "torch.nn.functional.log_softmax", "torch.nn.functional.logsigmoid",
    "torch.nn.functional.mse_loss", "torch.nn.functional.nll_loss",
    "torch.nn.functional.normalize", "torch.nn.functional.pad", "torch.nn.functional.rms_norm",
    "torch.nn.functional.sigmoid", "torch.nn.functional.silu", "torch.nn.functional.softmax",
    "torch.nn.functional.softplus", "torch.nn.functional.tanh", "torch.nn.modules",
    "torch.nn.modules.module", "torch.nn.modules.module.Module", "torch.nn.modules.utils",
    "torch.nn.modules.utils._pair", "torch.nn.modules.utils._quadruple",
    "torch.nn.modules.utils._single", "torch.nn.modules.utils._triple", "torch.nn.parameter",
    "torch.nn.parameter.Parameter",
)

import paddle
import paddle.nn.functional as PF
from ..paddle_shims import EagerParamBase

from .registry import adapter, module, type_

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
class Module(paddle.nn.Layer):
    """torch.nn.Module on paddle.nn.Layer (torch signatures where they differ)."""

    def __init__(self, *args, **kwargs):
        if args or kwargs:  # torch: Module.__init__() takes no arguments
            raise TypeError(f"{type(self).__name__}.__init__() got unexpected arguments")
        super().__init__()

    def forward(self, *args, **kwargs):
        raise NotImplementedError(f'Module [{type(self).__name__}] is missing the required '
                                  '"forward" function')

    # Paddle's own Layer code calls these methods with its keywords (include_sublayers=,
    # persistable=...): the overrides accept both spellings.
    def register_buffer(self, name, tensor, persistent: bool = True, persistable=None):
        super().register_buffer(name, tensor,
                                persistable=persistent if persistable is None else persistable)

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
        return super().named_parameters(prefix=prefix, include_sublayers=recurse)

    def buffers(self, recurse: bool = True, include_sublayers=None):
        if include_sublayers is not None:
            return super().buffers(include_sublayers=include_sublayers)
        return iter(super().buffers(include_sublayers=recurse))

    def modules(self):
        return iter([self] + list(self.sublayers()))

    def named_modules(self, memo=None, prefix: str = "", remove_duplicate: bool = True):
        return super().named_sublayers(prefix=prefix, include_self=True)

    def zero_grad(self, set_to_none: bool = True):
        for p in super().parameters():
            p.clear_gradient(not set_to_none)

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


@adapter(F + "softmax")
@_cpu_half
def softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim(input.ndim)
    return PF.softmax(_cast(input, dtype), axis=dim)


@adapter(F + "log_softmax")
@_cpu_half
def log_softmax(input, dim=None, _stacklevel=3, dtype=None):
    if dim is None:
        dim = _implicit_dim(input.ndim)
    return PF.log_softmax(_cast(input, dtype), axis=dim)


@adapter(F + "gelu")
def gelu(input, approximate: str = "none"):
    if approximate not in ("none", "tanh"):
        raise RuntimeError(f"approximate argument must be either none or tanh.")
    return PF.gelu(input, approximate=approximate == "tanh")


@adapter(F + "silu")
def silu(input, inplace: bool = False):
    return _maybe_inplace(input, PF.silu(input), inplace)


@adapter(F + "sigmoid")
def sigmoid(input):
    return PF.sigmoid(input)


@adapter(F + "tanh")
def tanh(input):
    return paddle.tanh(input)


def _maybe_inplace(input, out, inplace):
    if not inplace:
        return out
    paddle.assign(out, input)
    return input


@adapter(F + "layer_norm")
@_cpu_half
def layer_norm(input, normalized_shape, weight=None, bias=None, eps: float = 1e-5):
    if isinstance(normalized_shape, int):  # torch's F.layer_norm refuses it (nn.LayerNorm does not)
        raise TypeError("layer_norm(): argument 'normalized_shape' (position 2) must be tuple "
                        "of ints, not int")
    return PF.layer_norm(input, list(normalized_shape), weight=weight, bias=bias, epsilon=eps)


@adapter(F + "rms_norm")
def rms_norm(input, normalized_shape, weight=None, eps=None):
    if isinstance(normalized_shape, int):
        normalized_shape = [normalized_shape]
    axes = list(range(input.ndim - len(normalized_shape), input.ndim))
    if eps is None:
        eps = float(paddle.finfo(input.dtype).eps)
    out = input * paddle.rsqrt(paddle.mean(input * input, axis=axes, keepdim=True) + eps)
    return out * weight if weight is not None else out


@adapter(F + "linear", note="weight is [out_features, in_features] (torch layout)")
def linear(input, weight, bias=None):
    out = paddle.matmul(input, weight, transpose_y=True)
    return out + bias if bias is not None else out


@adapter(F + "dropout")
def dropout(input, p: float = 0.5, training: bool = True, inplace: bool = False):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    out = PF.dropout(input, p=p, training=training)
    return _maybe_inplace(input, out, inplace)


@adapter(F + "embedding", note="padding_idx: torch's forward value (weight row) and zero grad")
def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    if max_norm is not None or scale_grad_by_freq or sparse:
        raise NotImplementedError("torchproxy: embedding(max_norm=, scale_grad_by_freq=, "
                                  "sparse=) is not provided")
    # Paddle's padding_idx zeroes the *output* row; torch returns weight[padding_idx] and only
    # keeps its gradient at zero.  So: no padding_idx to Paddle, and the gradient masked here.
    out = PF.embedding(input, weight)
    if padding_idx is not None and not weight.stop_gradient:
        if padding_idx < 0:
            padding_idx += weight.shape[0]
        keep = (input != padding_idx).astype(out.dtype).unsqueeze(-1)
        out = out * keep + out.detach() * (1 - keep)
    return out


@adapter(F + "cross_entropy", note="class dimension 1 as in torch; probabilities as targets")
@_cpu_half
def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    if size_average is not None or reduce is not None:
        raise NotImplementedError("torchproxy: cross_entropy(size_average=, reduce=) (deprecated "
                                  "in torch) is not provided; use reduction=")
    axis = 1 if input.ndim >= 2 else 0
    soft = target.dtype == input.dtype and target.shape == input.shape
    if soft:
        return PF.cross_entropy(input, target, weight=weight, reduction=reduction, soft_label=True,
                                axis=axis, label_smoothing=label_smoothing)
    if label_smoothing:
        return _smoothed_cross_entropy(input, target, weight, ignore_index, reduction,
                                       label_smoothing, axis)
    label = target.unsqueeze(axis)
    out = PF.cross_entropy(input, label, weight=weight, ignore_index=ignore_index,
                           reduction=reduction, axis=axis, label_smoothing=label_smoothing)
    if reduction == "none":
        out = out.squeeze(axis)
    return out


def _smoothed_cross_entropy(input, target, weight, ignore_index, reduction, eps, axis):
    """torch's label smoothing for class-index targets (Paddle's kernel wants float labels):
    (1 - eps) * nll + eps * mean over classes of -log p, ignored targets left out."""
    if weight is not None:
        raise NotImplementedError("torchproxy: cross_entropy(weight=, label_smoothing=) with "
                                  "class-index targets is not provided")
    logp = PF.log_softmax(input, axis=axis)
    n_classes = input.shape[axis]
    valid = target != ignore_index
    safe = paddle.where(valid, target, paddle.zeros_like(target))
    picked = paddle.take_along_axis(logp, safe.unsqueeze(axis), axis=axis).squeeze(axis)
    loss = -(1 - eps) * picked - eps * logp.sum(axis=axis) / n_classes
    loss = loss * valid.astype(loss.dtype)
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    return loss.sum() / valid.astype(loss.dtype).sum()


@adapter(F + "mse_loss")
def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    if size_average is not None or reduce is not None or weight is not None:
        raise NotImplementedError("torchproxy: mse_loss(size_average=, reduce=, weight=) is not provided")
    return PF.mse_loss(input, target, reduction=reduction)


@adapter(F + "pad", note="constant mode for any rank (negative pads crop); other modes as Paddle's "
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
        return PF.pad(x, flat, mode="constant", value=0.0 if value is None else value)
    if mode not in ("reflect", "replicate", "circular"):
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None and value != 0:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument.')
    if n == input.ndim - 1 and input.ndim in (2, 3, 4):  # unbatched (C, ...) input, as torch
        return globals()["pad"](input.unsqueeze(0), pad, mode, value).squeeze(0)
    fmt = {3: "NCL", 4: "NCHW", 5: "NCDHW"}.get(input.ndim)
    if fmt is None or n != input.ndim - 2:
        raise NotImplementedError(f"torchproxy: pad(mode={mode!r}) pads the last {input.ndim - 2} "
                                  f"dims of a {input.ndim}-D input (got {n} pairs)")
    return PF.pad(input, pad, mode=mode, data_format=fmt)


@adapter(F + "normalize")
def normalize(input, p=2.0, dim=1, eps=1e-12, out=None):
    if out is not None:
        raise NotImplementedError("torchproxy: normalize(out=) is not provided")
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


def _uniform(shape, bound):
    return paddle.uniform(shape, min=-bound, max=bound, dtype=paddle.get_default_dtype())


class Linear(Module):
    """torch.nn.Linear: weight [out_features, in_features], torch's kaiming-uniform init."""

    def __init__(self, in_features, out_features, bias=True, device=None, dtype=None):
        super().__init__()
        self.in_features, self.out_features = int(in_features), int(out_features)
        # kaiming_uniform_(a=sqrt(5)) and the bias rule of torch's reset_parameters: both
        # bounds are 1/sqrt(fan_in)
        bound = 1.0 / math.sqrt(self.in_features) if self.in_features > 0 else 0.0
        self.weight = Parameter(_uniform([self.out_features, self.in_features], bound))
        if bias:
            self.bias = Parameter(_uniform([self.out_features], bound))
        else:
            self.register_parameter("bias", None)
        _finish_layer(self, device, dtype)

    def forward(self, input):
        return linear(input, self.weight, self.bias)

    def extra_repr(self):
        return (f"in_features={self.in_features}, out_features={self.out_features}, "
                f"bias={self.bias is not None}")


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
        if elementwise_affine:
            self.weight = Parameter(paddle.ones(list(self.normalized_shape)))
            if bias:
                self.bias = Parameter(paddle.zeros(list(self.normalized_shape)))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
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
        if _weight is None:
            w = paddle.randn([self.num_embeddings, self.embedding_dim])  # torch: normal_(0, 1)
            if padding_idx is not None:
                w[padding_idx] = 0.0
        else:
            w = _weight
        self.weight = Parameter(w, requires_grad=not _freeze)
        _finish_layer(self, device, dtype)

    def forward(self, input):
        return embedding(input, self.weight, self.padding_idx, self.max_norm, 2.0,
                         self.scale_grad_by_freq, self.sparse)


class Dropout(Module):
    def __init__(self, p=0.5, inplace=False):
        super().__init__()
        if p < 0 or p > 1:
            raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
        self.p, self.inplace = p, inplace

    def forward(self, input):
        return dropout(input, self.p, self.training, self.inplace)


class CrossEntropyLoss(Module):
    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__()
        if size_average is not None or reduce is not None:
            raise NotImplementedError("torchproxy: CrossEntropyLoss(size_average=, reduce=) "
                                      "(deprecated in torch) is not provided; use reduction=")
        self.weight = weight
        self.ignore_index, self.reduction, self.label_smoothing = ignore_index, reduction, label_smoothing

    def forward(self, input, target):
        return cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                             reduction=self.reduction, label_smoothing=self.label_smoothing)


class ReLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return _maybe_inplace(input, PF.relu(input), self.inplace)


class SiLU(Module):
    def __init__(self, inplace=False):
        super().__init__()
        self.inplace = inplace

    def forward(self, input):
        return silu(input, self.inplace)


class GELU(Module):
    def __init__(self, approximate="none"):
        super().__init__()
        self.approximate = approximate

    def forward(self, input):
        return gelu(input, self.approximate)


class Softmax(Module):
    def __init__(self, dim=None):
        super().__init__()
        self.dim = dim

    def forward(self, input):
        return softmax(input, self.dim)


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


@adapter(F + "kl_div")
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    if size_average is not None or reduce is not None:
        raise NotImplementedError("torchproxy: kl_div(size_average=, reduce=) is not provided")
    if log_target:
        loss = paddle.exp(target) * (target - input)
    else:
        # xlogy: 0 where target == 0, as torch
        safe = paddle.where(target > 0, target, paddle.ones_like(target))
        loss = paddle.where(target > 0, target * (paddle.log(safe) - input),
                            paddle.zeros_like(input))
    if reduction == "none":
        return loss
    if reduction == "sum":
        return loss.sum()
    if reduction == "batchmean":
        return loss.sum() / input.shape[0] if input.ndim else loss.sum()
    if reduction == "mean":
        return loss.mean()
    raise ValueError(f"{reduction} is not a valid value for reduction")


class KLDivLoss(Module):
    """torch.nn.KLDivLoss (Liger-Kernel subclasses it at import: LigerKLDIVLoss)."""

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__()
        if size_average is not None or reduce is not None:
            raise NotImplementedError("torchproxy: KLDivLoss(size_average=, reduce=) "
                                      "(deprecated in torch) is not provided; use reduction=")
        self.reduction, self.log_target = reduction, log_target

    def forward(self, input, target):
        return kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


type_("torch.nn.KLDivLoss", KLDivLoss)


# -- more functional forms the kernel libraries call (FlashInfer, Liger-Kernel references) ----
@adapter(F + "logsigmoid")
def logsigmoid(input):
    return PF.log_sigmoid(input)


@adapter(F + "softplus")
def softplus(input, beta=1.0, threshold=20.0):
    return PF.softplus(input, beta=beta, threshold=threshold)


def _conv_padding(padding):
    return padding.upper() if isinstance(padding, str) else padding  # "same"/"valid"


@adapter(F + "conv1d")
def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return PF.conv1d(input, weight, bias=bias, stride=stride, padding=_conv_padding(padding),
                     dilation=dilation, groups=groups)


@adapter(F + "conv2d", note="torch's weight layout [out, in/groups, kh, kw] is Paddle's too")
def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    return PF.conv2d(input, weight, bias=bias, stride=stride, padding=_conv_padding(padding),
                     dilation=dilation, groups=groups)


@adapter(F + "nll_loss")
def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    if size_average is not None or reduce is not None:
        raise NotImplementedError("torchproxy: nll_loss(size_average=, reduce=) is not provided")
    return PF.nll_loss(input, target, weight=weight, ignore_index=ignore_index, reduction=reduction)


@adapter(F + "cosine_similarity")
def cosine_similarity(x1, x2, dim=1, eps=1e-8):
    return PF.cosine_similarity(x1, x2, axis=dim, eps=eps)


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
    adapter(f"torch.nn.modules.utils.{_name}")(_ntuple(_n, _name))
