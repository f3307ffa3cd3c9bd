"""``torch.nn.utils``: gradient clipping, parameter vectors, and ``torch.nn.utils.rnn``
(PackedSequence and its pack/pad helpers, accepted by the facade's RNN/LSTM/GRU)."""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.nn: utils
    torch.nn.utils: clip_grad_norm_ clip_grad_value_ clip_grads_with_norm_ get_total_norm
        parameters_to_vector parametrizations parametrize remove_spectral_norm remove_weight_norm
        rnn spectral_norm vector_to_parameters weight_norm
    torch.nn.utils.parametrizations: weight_norm
    torch.nn.utils.parametrize: cached is_parametrized register_parametrization
        remove_parametrizations
    torch.nn.utils.rnn: PackedSequence pack_padded_sequence pack_sequence pad_packed_sequence
        pad_sequence
""")

import collections
import contextlib
import math

import paddle

from .autograd import grad_of
from .linalg import vector_norm
from .registry import module, torch_function, type_

U = "torch.nn.utils."
module("torch.nn.utils")
module("torch.nn.utils.rnn")


def _tensors(parameters):
    if isinstance(parameters, paddle.Tensor):
        return [parameters]
    return list(parameters)


def _grads(parameters):
    """The parameters' gradients as torch's .grad (grad_of: an assigned tensor itself)."""
    return [g for g in map(grad_of, _tensors(parameters)) if g is not None]


@torch_function(U + "get_total_norm")
def get_total_norm(tensors, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    tensors = _tensors(tensors)
    norm_type = float(norm_type)
    if not tensors:
        return paddle.to_tensor(0.0)
    # torch's: each tensor's vector_norm, then the norm of those (Paddle's p_norm kernel sums
    # sequentially: its total of a model's gradients was 2e-5 relative off, which scaled every
    # clipped gradient by that much: linalg.vector_norm sums as torch does)
    norms = [vector_norm(t.detach().astype("float32"), norm_type) for t in tensors]
    total = vector_norm(paddle.stack(norms), norm_type)
    if error_if_nonfinite and not bool(paddle.isfinite(total)):
        raise RuntimeError(f"The total norm of order {norm_type} for gradients from `parameters` "
                           "is non-finite, so it cannot be clipped. To disable this error and "
                           "scale the gradients by the non-finite norm anyway, set "
                           "`error_if_nonfinite=False`")
    return total.astype(tensors[0].dtype)


@torch_function(U + "clip_grads_with_norm_")
def clip_grads_with_norm_(parameters, max_norm, total_norm, foreach=None):
    coef = float(max_norm) / (float(total_norm) + 1e-6)
    coef = min(coef, 1.0)
    for g in _grads(parameters):
        with paddle.no_grad():
            paddle.assign((g.astype("float32") * coef).astype(g.dtype), output=g)


@torch_function(U + "clip_grad_norm_")
def clip_grad_norm_(parameters, max_norm, norm_type=2.0, error_if_nonfinite=False, foreach=None):
    params = _tensors(parameters)
    grads = _grads(params)
    if not grads:
        return paddle.to_tensor(0.0)
    total = get_total_norm(grads, norm_type, error_if_nonfinite, foreach)
    clip_grads_with_norm_(params, max_norm, total, foreach)
    return total


@torch_function(U + "clip_grad_value_")
def clip_grad_value_(parameters, clip_value, foreach=None):
    clip_value = float(clip_value)
    for g in _grads(parameters):
        with paddle.no_grad():
            paddle.assign(paddle.clip(g, -clip_value, clip_value), output=g)


@torch_function(U + "parameters_to_vector")
def parameters_to_vector(parameters):
    return paddle.concat([p.reshape([-1]) for p in _tensors(parameters)])


@torch_function(U + "vector_to_parameters")
def vector_to_parameters(vec, parameters):
    if not isinstance(vec, paddle.Tensor):
        raise TypeError(f"expected torch.Tensor, but got: {type(vec).__name__}")
    offset = 0
    for p in _tensors(parameters):
        n = math.prod(p.shape)
        with paddle.no_grad():
            paddle.assign(vec[offset:offset + n].reshape(p.shape).astype(p.dtype), output=p)
        offset += n


# -- rnn ---------------------------------------------------------------------------------------
_PS = collections.namedtuple("PackedSequence",
                             ["data", "batch_sizes", "sorted_indices", "unsorted_indices"])


class PackedSequence(_PS):
    """torch.nn.utils.rnn.PackedSequence: ``data`` holds the time steps' rows, longest
    sequences first; ``batch_sizes[t]`` how many sequences have a step ``t``."""

    def __new__(cls, data, batch_sizes=None, sorted_indices=None, unsorted_indices=None):
        if unsorted_indices is None and sorted_indices is not None:
            unsorted_indices = _invert(sorted_indices)
        return super().__new__(cls, data, batch_sizes, sorted_indices, unsorted_indices)

    def to(self, *args, **kwargs):
        return type(self)(self.data.to(*args, **kwargs) if hasattr(self.data, "to") else self.data,
                          self.batch_sizes, self.sorted_indices, self.unsorted_indices)

    @property
    def is_cuda(self):
        return not self.data.place.is_cpu_place()

    def is_pinned(self):
        return False


def _invert(perm):
    out = paddle.zeros_like(perm)
    return paddle.scatter(out, perm, paddle.arange(perm.shape[0], dtype=perm.dtype))


@torch_function("torch.nn.utils.rnn.pack_padded_sequence")
def pack_padded_sequence(input, lengths, batch_first=False, enforce_sorted=True):
    if isinstance(lengths, paddle.Tensor):
        lengths = lengths.tolist()
    lengths = [int(v) for v in lengths]
    if enforce_sorted:
        if any(a < b for a, b in zip(lengths, lengths[1:])):
            raise RuntimeError("`lengths` array must be sorted in decreasing order when "
                               "`enforce_sorted` is True. You can pass `enforce_sorted=False` "
                               "to pack_padded_sequence and/or pack_sequence to sidestep this "
                               "requirement if you do not need ONNX exportability.")
        sorted_indices = None
        order = list(range(len(lengths)))
    else:
        order = sorted(range(len(lengths)), key=lambda i: -lengths[i])
        sorted_indices = paddle.to_tensor(order, dtype="int64")
    if any(v <= 0 for v in lengths):
        raise RuntimeError("Length of all samples has to be greater than 0, but found an "
                           "element in 'lengths' that is <= 0")
    x = input.transpose([1, 0] + list(range(2, input.ndim))) if batch_first else input
    if sorted_indices is not None:
        x = paddle.gather(x, sorted_indices, axis=1)
    sl = [lengths[i] for i in order]
    T = sl[0]
    rows, batch_sizes = [], []
    for t in range(T):
        bs = sum(1 for v in sl if v > t)
        batch_sizes.append(bs)
        rows.append(x[t, :bs])
    data = paddle.concat(rows, axis=0)
    return PackedSequence(data, paddle.to_tensor(batch_sizes, dtype="int64"), sorted_indices, None)


def _unpack_to_padded(seq, padding_value=0.0, total_length=None):
    """(padded [T, B, *] in the packed (sorted) order, lengths in that order)."""
    bsz = [int(v) for v in seq.batch_sizes.tolist()]
    B, T = bsz[0], len(bsz)
    feat = seq.data.shape[1:]
    rows, off = [], 0
    for t, bs in enumerate(bsz):
        step = seq.data[off:off + bs]
        off += bs
        if bs < B:
            pad = paddle.full([B - bs] + feat, padding_value, dtype=seq.data.dtype)
            step = paddle.concat([step, pad], axis=0)
        rows.append(step)
    if total_length is not None and total_length > T:
        rows += [paddle.full([B] + feat, padding_value, dtype=seq.data.dtype)] * (total_length - T)
    lengths = [sum(1 for bs in bsz if bs > b) for b in range(B)]
    return paddle.stack(rows), lengths


def _pack_from_padded(padded, like):
    bsz = [int(v) for v in like.batch_sizes.tolist()]
    data = paddle.concat([padded[t, :bs] for t, bs in enumerate(bsz)], axis=0)
    return PackedSequence(data, like.batch_sizes, like.sorted_indices, like.unsorted_indices)


@torch_function("torch.nn.utils.rnn.pad_packed_sequence")
def pad_packed_sequence(sequence, batch_first=False, padding_value=0.0, total_length=None):
    T = sequence.batch_sizes.shape[0]
    if total_length is not None and total_length < T:
        raise ValueError(f"Expected total_length to be at least the length of the longest "
                         f"sequence in input, but got total_length={total_length} and max "
                         f"sequence length being {T}")
    padded, lengths = _unpack_to_padded(sequence, padding_value, total_length)
    lengths = paddle.to_tensor(lengths, dtype="int64")
    if sequence.unsorted_indices is not None:
        padded = paddle.gather(padded, sequence.unsorted_indices, axis=1)
        lengths = paddle.gather(lengths, sequence.unsorted_indices)
    if batch_first:
        padded = padded.transpose([1, 0] + list(range(2, padded.ndim)))
    return padded, lengths


@torch_function("torch.nn.utils.rnn.pad_sequence")
def pad_sequence(sequences, batch_first=False, padding_value=0.0, padding_side="right"):
    if padding_side not in ("left", "right"):
        raise ValueError(f"Expected padding_side to be one of left or right, but got "
                         f"{padding_side}.")
    sequences = list(sequences)
    T = max(s.shape[0] for s in sequences)
    out = []
    for s in sequences:
        n = s.shape[0]
        if n < T:
            pad = paddle.full([T - n] + list(s.shape[1:]), padding_value, dtype=s.dtype)
            s = paddle.concat([s, pad] if padding_side == "right" else [pad, s], axis=0)
        out.append(s)
    return paddle.stack(out, axis=0 if batch_first else 1)


@torch_function("torch.nn.utils.rnn.pack_sequence")
def pack_sequence(sequences, enforce_sorted=True):
    lengths = [s.shape[0] for s in sequences]
    return pack_padded_sequence(pad_sequence(sequences), lengths, enforce_sorted=enforce_sorted)


type_("torch.nn.utils.rnn.PackedSequence", PackedSequence)


# -- weight norm / spectral norm (the forward pre-hook forms) -------------------------------------
def _norm_except_dim(v, dim):
    if dim is None:
        return paddle.sqrt((v * v).sum())
    dim = dim % v.ndim
    axes = [i for i in range(v.ndim) if i != dim]
    return paddle.sqrt((v * v).sum(axis=axes, keepdim=True)) if axes else paddle.abs(v)


def _set_plain(module, name, value):
    """A computed tensor as a plain attribute (not a parameter, not in the state_dict)."""
    object.__setattr__(module, name, value)


def _attach_norm_hook(module, name, hook):
    """Recompute ``name`` before every forward; remembered for remove_weight_norm /
    remove_spectral_norm."""
    handle = module.register_forward_pre_hook(hook)
    module.__dict__.setdefault("_torchproxy_norm_hooks", {})[name] = (hook, handle)
    return module


def _remove_norm_hook(module, name, hook_cls):
    """Undo weight_norm / spectral_norm: the last computed weight becomes the parameter
    ``name`` again and the reparametrization's tensors (``hook_cls.PARTS``) go."""
    from .nn import Parameter
    hooks = module.__dict__.get("_torchproxy_norm_hooks", {})
    entry = hooks.get(name)
    if entry is None or not isinstance(entry[0], hook_cls):
        raise ValueError(f"{hook_cls.LABEL} of '{name}' not found in {module}")
    hook, handle = hooks.pop(name)
    weight = hook.final(module).detach()
    handle.remove()
    for store, suffix in hook_cls.PARTS:
        del getattr(module, store)[name + suffix]
    module.__dict__.pop(name, None)
    module.add_parameter(name, Parameter(weight))
    return module


class _WeightNormHook:
    LABEL = "weight_norm"
    PARTS = (("_parameters", "_g"), ("_parameters", "_v"))

    def __init__(self, name, dim):
        self.name, self.dim = name, dim

    def final(self, module):
        return self.compute(module)

    def compute(self, module):
        g = getattr(module, self.name + "_g")
        v = getattr(module, self.name + "_v")
        if self.dim is None:
            return v * (g / paddle.sqrt((v * v).sum()))
        return v * (g / _norm_except_dim(v, self.dim))

    def __call__(self, module, inputs):
        _set_plain(module, self.name, self.compute(module))


@torch_function(U + "weight_norm")
def weight_norm(module, name="weight", dim=0):
    from .nn import Parameter
    for h in getattr(module, "_torchproxy_norm_hooks", {}).values():
        if isinstance(h[0], _WeightNormHook) and h[0].name == name:
            raise RuntimeError(f"Cannot register two weight_norm hooks on the same parameter "
                               f"{name}")
    weight = getattr(module, name)
    hook = _WeightNormHook(name, dim)
    del module._parameters[name]
    g = _norm_except_dim(weight, dim) if dim is not None else paddle.sqrt((weight * weight).sum())
    module.add_parameter(name + "_g", Parameter(g.detach()))
    module.add_parameter(name + "_v", Parameter(weight.detach()))
    _set_plain(module, name, hook.compute(module))
    return _attach_norm_hook(module, name, hook)


@torch_function(U + "remove_weight_norm")
def remove_weight_norm(module, name="weight"):
    return _remove_norm_hook(module, name, _WeightNormHook)


class _SpectralNormHook:
    LABEL = "spectral_norm"
    PARTS = (("_parameters", "_orig"), ("_buffers", "_u"), ("_buffers", "_v"))

    def __init__(self, name, n_power_iterations, dim, eps):
        self.name, self.n, self.dim, self.eps = name, n_power_iterations, dim, eps

    def final(self, module):
        return self.compute(module, False)

    def _matrix(self, w):
        if self.dim != 0:
            perm = [self.dim] + [d for d in range(w.ndim) if d != self.dim]
            w = w.transpose(perm)
        return w.reshape([w.shape[0], -1])

    def compute(self, module, do_power_iteration):
        w = getattr(module, self.name + "_orig")
        u = getattr(module, self.name + "_u")
        v = getattr(module, self.name + "_v")
        mat = self._matrix(w)
        if do_power_iteration:
            with paddle.no_grad():
                for _ in range(self.n):
                    v_new = _normalize(paddle.mv(mat.t(), u), self.eps)
                    u_new = _normalize(paddle.mv(mat, v_new), self.eps)
                    paddle.assign(v_new, output=v)
                    paddle.assign(u_new, output=u)
        sigma = (u * paddle.mv(mat, v)).sum()
        return w / sigma

    def __call__(self, module, inputs):
        _set_plain(module, self.name, self.compute(module, module.training))


def _normalize(x, eps):
    return x / paddle.maximum(paddle.sqrt((x * x).sum()), paddle.to_tensor(eps, dtype=x.dtype))


@torch_function(U + "spectral_norm")
def spectral_norm(module, name="weight", n_power_iterations=1, eps=1e-12, dim=None):
    from .nn import Parameter
    if n_power_iterations <= 0:
        raise ValueError("Expected n_power_iterations to be positive, but got "
                         f"n_power_iterations={n_power_iterations}")
    if dim is None:
        dim = 1 if type(module).__name__.startswith("ConvTranspose") else 0
    weight = getattr(module, name)
    hook = _SpectralNormHook(name, n_power_iterations, dim, eps)
    mat = hook._matrix(weight.detach())
    h, w = mat.shape
    u = _normalize(paddle.normal(0.0, 1.0, [h]).astype(weight.dtype), eps)
    v = _normalize(paddle.normal(0.0, 1.0, [w]).astype(weight.dtype), eps)
    del module._parameters[name]
    module.add_parameter(name + "_orig", Parameter(weight.detach()))
    module.register_buffer(name + "_u", u)
    module.register_buffer(name + "_v", v)
    _set_plain(module, name, weight.detach().clone())
    return _attach_norm_hook(module, name, hook)


@torch_function(U + "remove_spectral_norm")
def remove_spectral_norm(module, name="weight"):
    return _remove_norm_hook(module, name, _SpectralNormHook)


# -- torch.nn.utils.parametrize ---------------------------------------------------------------
module("torch.nn.utils.parametrize")
module("torch.nn.utils.parametrizations")
_CACHE = [None]


def _plist_cls():
    from .nn import Module
    from .nn import ModuleList

    class ParametrizationList(ModuleList):
        """torch's ParametrizationList: the parametrizations ``0``, ``1``... and the
        ``original`` tensor (``original0``, ``original1``... when right_inverse returns
        several)."""

        def __init__(self, modules, original, unsafe=False):
            ModuleList.__init__(self, modules)
            from .nn import Parameter
            self.unsafe = unsafe
            new = original
            with paddle.no_grad():
                for m in reversed(list(modules)):
                    if hasattr(m, "right_inverse"):
                        new = m.right_inverse(new)
            self.is_tensor = isinstance(new, paddle.Tensor)
            self.ntensors = 1 if self.is_tensor else len(new)
            if self.is_tensor:
                with paddle.no_grad():
                    paddle.assign(new.astype(original.dtype), output=original)
                self.add_parameter("original", original if isinstance(original, Parameter)
                                   else Parameter(original))
            else:
                for i, t in enumerate(new):
                    p = Parameter(t.detach().clone())
                    p.stop_gradient = original.stop_gradient
                    self.add_parameter(f"original{i}", p)

        def right_inverse(self, value):
            with paddle.no_grad():
                for m in reversed(list(self)):
                    if hasattr(m, "right_inverse"):
                        value = m.right_inverse(value)
                if self.is_tensor:
                    paddle.assign(value.astype(self.original.dtype), output=self.original)
                else:
                    for i, t in enumerate(value):
                        o = getattr(self, f"original{i}")
                        paddle.assign(t.astype(o.dtype), output=o)

        def forward(self):
            if self.is_tensor:
                x = self[0](self.original)
            else:
                x = self[0](*[getattr(self, f"original{i}") for i in range(self.ntensors)])
            for m in list(self)[1:]:
                x = m(x)
            return x
    return ParametrizationList


_PLIST = [None]


def _parametrized_class(module):
    cls = type(module)
    if getattr(cls, "_torchproxy_parametrized", False):
        return cls
    new = type(f"Parametrized{cls.__name__}", (cls,), {"_torchproxy_parametrized": True,
                                                        "__module__": cls.__module__})
    module.__class__ = new
    return new


def _inject_property(cls, name):
    def get(self):
        p = self.parametrizations[name]
        if _CACHE[0] is not None:
            key = (id(self), name)
            if key not in _CACHE[0]:
                _CACHE[0][key] = p()
            return _CACHE[0][key]
        return p()

    def set_(self, value):
        self.parametrizations[name].right_inverse(value)
    setattr(cls, name, property(get, set_))


@torch_function("torch.nn.utils.parametrize.register_parametrization")
def register_parametrization(module, tensor_name, parametrization, *, unsafe=False):
    from .nn_modules import ModuleDict
    if _PLIST[0] is None:
        _PLIST[0] = _plist_cls()
    if is_parametrized(module, tensor_name):
        module.parametrizations[tensor_name].append(parametrization)
        return module
    if tensor_name in module._parameters:
        original = module._parameters.pop(tensor_name)
    elif tensor_name in module._buffers:
        original = module._buffers.pop(tensor_name)
    else:
        raise ValueError(f"Module '{module}' does not have a parameter, a buffer, or a "
                         f"parametrized element with name '{tensor_name}'")
    if not is_parametrized(module):
        module.add_module("parametrizations", ModuleDict())
    module.parametrizations[tensor_name] = _PLIST[0]([parametrization], original, unsafe)
    cls = _parametrized_class(module)
    _inject_property(cls, tensor_name)
    return module


@torch_function("torch.nn.utils.parametrize.is_parametrized")
def is_parametrized(module, tensor_name=None):
    plist = module._sub_layers.get("parametrizations") if hasattr(module, "_sub_layers") else None
    if plist is None:
        return False
    return tensor_name is None or tensor_name in plist._sub_layers


@torch_function("torch.nn.utils.parametrize.remove_parametrizations")
def remove_parametrizations(module, tensor_name, leave_parametrized=True):
    from .nn import Parameter
    if not is_parametrized(module, tensor_name):
        raise ValueError(f"Module {module} does not have a parametrization on {tensor_name}")
    plist = module.parametrizations[tensor_name]
    if leave_parametrized:
        with paddle.no_grad():
            value = getattr(module, tensor_name).detach()
    else:
        if not plist.is_tensor:
            raise ValueError("Cannot leave unparametrized (`leave_parametrized=False`) a tensor "
                             "that is parametrized in terms of a sequence of tensors.")
        value = plist.original.detach()
    cls = type(module)
    delattr(cls, tensor_name)
    del module.parametrizations._sub_layers[tensor_name]
    module.add_parameter(tensor_name, Parameter(value.clone()))
    if not is_parametrized(module) or not module.parametrizations._sub_layers:
        del module._sub_layers["parametrizations"]
        module.__class__ = cls.__bases__[0]
    return module


@torch_function("torch.nn.utils.parametrize.cached")
@contextlib.contextmanager
def cached():
    outer = _CACHE[0] is None
    if outer:
        _CACHE[0] = {}
    try:
        yield
    finally:
        if outer:
            _CACHE[0] = None


def _weight_norm_module():
    from .nn import Module

    class _WeightNorm(Module):
        def __init__(self, dim=0):
            super().__init__()
            self.dim = -1 if dim is None else dim

        def forward(self, weight_g, weight_v):
            if self.dim == -1:
                return weight_v * (weight_g / paddle.sqrt((weight_v * weight_v).sum()))
            return weight_v * (weight_g / _norm_except_dim(weight_v, self.dim))

        def right_inverse(self, weight):
            if self.dim == -1:
                g = paddle.sqrt((weight * weight).sum())
            else:
                g = _norm_except_dim(weight, self.dim)
            return g, weight
    return _WeightNorm


@torch_function("torch.nn.utils.parametrizations.weight_norm")
def parametrizations_weight_norm(module, name="weight", dim=0):
    return register_parametrization(module, name, _weight_norm_module()(dim), unsafe=True)
