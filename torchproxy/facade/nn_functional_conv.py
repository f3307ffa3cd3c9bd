"""``torch.nn.functional`` convolution functions beyond conv1d/conv2d (facade/nn.py): conv3d,
the transposed convolutions, ``unfold``/``fold``, the ``torch.conv*`` aliases, and
``torch.nn.grad`` (a convolution's gradient with respect to its input or weight).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: conv1d conv2d conv3d conv_transpose1d conv_transpose2d conv_transpose3d
    torch.nn.functional: conv3d conv_transpose1d conv_transpose2d conv_transpose3d fold unfold
    torch.nn: grad
    torch.nn.grad: conv1d_input conv1d_weight conv2d_input conv2d_weight conv3d_input conv3d_weight
""")

import paddle
import paddle.nn.functional as PF

from .nn_functional import _ntuple, F
from .nn_functional_norm import _bshape
from .nn_functional_pooling import _batched, _windows
from .registry import module, torch_function


# -- convolutions -----------------------------------------------------------------------------------
def _conv_fmt(nd):
    return {1: "NCL", 2: "NCHW", 3: "NCDHW"}[nd]


@torch_function(F + "conv3d")
def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    from .nn import _convnd
    return _convnd(input, weight, bias, stride, padding, dilation, groups, 3)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, nd):
    """torch's transposed convolution: Paddle's kernel without padding (its output_padding
    checks are stricter than torch's), then torch's crop of ``padding`` on both sides and
    ``output_padding`` zeros (plus bias) on the right."""
    from .nn import _is_int
    name = f"conv_transpose{nd}d"
    from .nn import check_conv_args
    check_conv_args(input, weight, bias, stride, padding, dilation, groups, nd, transposed=True)
    x, unb = _batched(input, nd, name)
    ss, ps, ops, ds = (_ntuple(v, nd) for v in (stride, padding, output_padding, dilation))
    if any(o >= s and o >= d for o, s, d in zip(ops, ss, ds)):
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but "
                           f"got output_padding {list(ops)}, stride {list(ss)}, dilation "
                           f"{list(ds)}")
    if weight.ndim != nd + 2:
        raise RuntimeError(f"Expected {nd + 2}-dimensional weight for {name}, but got weight of "
                           f"size {list(weight.shape)}")
    if x.shape[1] != weight.shape[0] or weight.shape[0] % groups:
        raise RuntimeError(f"Given transposed=1, weight of size {list(weight.shape)}, expected "
                           f"input{list(x.shape)} to have {weight.shape[0]} channels, but got "
                           f"{x.shape[1]} channels instead")
    fn = {1: PF.conv1d_transpose, 2: PF.conv2d_transpose, 3: PF.conv3d_transpose}[nd]
    integral = _is_int(x)
    xx, ww = (x.astype("float64"), weight.astype("float64")) if integral else (x, weight)
    full = fn(xx, ww, bias=None, stride=list(ss), padding=[0] * nd, output_padding=[0] * nd,
              dilation=list(ds), groups=groups, data_format=_conv_fmt(nd))
    sl, flat = [slice(None), slice(None)], []
    for L, F_, k, s, p, o, d in zip(x.shape[2:], full.shape[2:], weight.shape[2:], ss, ps, ops, ds):
        target = (L - 1) * s - 2 * p + d * (k - 1) + o + 1
        if target <= 0:
            raise RuntimeError(f"Given input size per channel: {list(x.shape[2:])}. Calculated "
                               f"output size per channel is too small")
        sl.append(slice(p, p + target))
        flat = [0, max(p + target - F_, 0)] + flat  # Paddle lists the last dim first
    if any(flat):
        full = PF.pad(full, flat, mode="constant", value=0.0, data_format=_conv_fmt(nd))
    out = full[tuple(sl)]
    if bias is not None:
        out = out + _bshape(bias.astype(out.dtype), out.ndim)
    if integral:
        out = out.astype(x.dtype)
    return out.squeeze(0) if unb else out


@torch_function(F + "conv_transpose1d")
def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 1)


@torch_function(F + "conv_transpose2d")
def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 2)


@torch_function(F + "conv_transpose3d")
def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, 3)


def _conv_aliases():
    from . import nn as _nn
    for nd, (f, t) in enumerate(((_nn.conv1d, conv_transpose1d), (_nn.conv2d, conv_transpose2d),
                                 (conv3d, conv_transpose3d)), start=1):
        torch_function(f"torch.conv{nd}d")(f)  # torch's positional signature is F's
        torch_function(f"torch.conv_transpose{nd}d")(t)


_conv_aliases()


@torch_function(F + "unfold")
def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    x, unb = (input.unsqueeze(0), True) if input.ndim == 3 else (input, False)
    if x.ndim != 4:
        raise NotImplementedError("Input Error: Only 3D or 4D input Tensors are supported "
                                  f"(got {input.ndim}D)")
    ks, ds, ps, ss = (_ntuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    is_bool = x.dtype == paddle.bool  # Paddle has no bool pad kernel: exact through int32
    w, _, outs, _ = _windows(x.astype("int32") if is_bool else x, ks, ss, ps, ds, False, 0.0)
    n, c = x.shape[0], x.shape[1]
    out = w.transpose([1, 2, 0, 3, 4]).reshape([n, c * len(w), outs[0] * outs[1]])
    if is_bool:
        out = out.astype("bool")
    return out.squeeze(0) if unb else out


@torch_function(F + "fold")
def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    x, unb = (input.unsqueeze(0), True) if input.ndim == 2 else (input, False)
    ks, ds, ps, ss = (_ntuple(v, 2) for v in (kernel_size, dilation, padding, stride))
    out = PF.fold(x, list(_ntuple(output_size, 2)), list(ks), strides=list(ss), paddings=list(ps),
                  dilations=list(ds))
    return out.squeeze(0) if unb else out


# -- torch.nn.grad ----------------------------------------------------------------------------------
module("torch.nn.grad")
G = "torch.nn.grad."


def _conv_grad(nd, which, x, w, grad_output, stride, padding, dilation, groups):
    """The gradient of conv{nd}d(x, w) with respect to ``which`` ("input" or "weight") for the
    output gradient ``grad_output``, as torch's ``aten.convolution_backward`` gives it: the
    convolution is linear in each argument, so the gradient is that of the facade's own
    conv{nd}d taken at a zero tensor of the asked shape, never depending on its values."""
    from .nn import _convnd
    with paddle.set_grad_enabled(True):  # torch computes it under no_grad too
        x = x.detach()
        w = w.detach()
        wrt = x if which == "input" else w
        wrt.stop_gradient = False
        out = _convnd(x, w, None, stride, padding, dilation, groups, nd)
        if list(out.shape) != list(grad_output.shape):
            raise RuntimeError(f"Expected grad_output of size {list(out.shape)} for "
                               f"conv{nd}d_{which}, but got {list(grad_output.shape)}")
        (grad,) = paddle.grad([out], [wrt], [grad_output.astype(out.dtype)])
    return grad


def _declare_conv_grads(nd):
    def conv_input(input_size, weight, grad_output, stride=1, padding=0, dilation=1, groups=1):
        x = paddle.zeros([int(n) for n in input_size], dtype=grad_output.dtype)
        return _conv_grad(nd, "input", x, weight, grad_output, stride, padding, dilation, groups)

    def conv_weight(input, weight_size, grad_output, stride=1, padding=0, dilation=1, groups=1):
        w = paddle.zeros([int(n) for n in weight_size], dtype=grad_output.dtype)
        return _conv_grad(nd, "weight", input, w, grad_output, stride, padding, dilation, groups)

    for fn, which in ((conv_input, "input"), (conv_weight, "weight")):
        fn.__name__ = fn.__qualname__ = f"conv{nd}d_{which}"
        torch_function(G + fn.__name__)(fn)
    return conv_input, conv_weight


conv1d_input, conv1d_weight = _declare_conv_grads(1)
conv2d_input, conv2d_weight = _declare_conv_grads(2)
conv3d_input, conv3d_weight = _declare_conv_grads(3)
