"""The facade functions behind ``torch.ops.aten``'s declared operators (``_aten.ATEN``).

Each has the semantics of one ATen overload on CPU (aten/src/ATen/native/*.cpp of torch 2.13):
argument checks and their exception classes, result dtype, in-place updates, views.  Where a
public facade function already computes the operator it is called through the registry's
table at call time (``_t("torch.softmax")``): the areas defining them load after this
module (library.py imports it).  Arguments arrive bound to the schema's names
(``_aten.OpOverload``)."""
from __future__ import annotations

import math

import numpy as np
import paddle

from ..errors import NotProvidedError
from ._opbase import wrap_dim
from .dtypes import LEGACY_NAMES, to_paddle, torch_name
from .registry import TABLE


def _t(name):
    return TABLE[name].impl


def _not_implemented(kernel, dtype):
    return NotImplementedError(f'"{kernel}" not implemented for '
                               f"'{LEGACY_NAMES.get(torch_name(dtype), torch_name(dtype))}'")


_FLOATS = ("float16", "bfloat16", "float32", "float64")


# -- aten::slice.Tensor ------------------------------------------------------------------------
def slice_tensor(self, dim=0, start=None, end=None, step=1):
    """A view of ``self`` along ``dim`` (ATen's TensorShape.cpp slice: negative bounds wrap
    once, then clamp to [0, size]; end < start is empty)."""
    if self.ndim == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, self.ndim)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    n = self.shape[d]
    s = 0 if start is None else start
    e = n if end is None else end
    s, e = s + n if s < 0 else s, e + n if e < 0 else e
    s = min(max(s, 0), n)
    e = min(max(e, s), n)
    part = _t("torch.narrow")(self, d, s, e - s)  # a view; Paddle 2.6's 0-size case handled
    if step == 1 or e == s:
        return part
    return paddle.strided_slice(part, axes=[d], starts=[0], ends=[e - s], strides=[step])


# -- softmax family ----------------------------------------------------------------------------
def softmax_backward_data(grad_output, output, dim, input_dtype):
    """grad_input = output * (grad - sum(grad * output, dim)), in grad's dtype (SoftMax.cpp:
    the CPU kernel needs grad, output and input_dtype alike, except that input_dtype may
    differ when no half-to-float conversion is asked)."""
    if list(grad_output.shape) != list(output.shape):
        raise RuntimeError(f"Expected tensor for argument #1 'grad' to have same size as tensor "
                           f"for argument #2 'output'; but {list(grad_output.shape)} does not "
                           f"equal {list(output.shape)} (while checking arguments for "
                           f"softmax_backward)")
    d = wrap_dim(dim, grad_output.ndim)
    g, want = torch_name(grad_output.dtype), torch_name(to_paddle(input_dtype))
    if g not in _FLOATS:
        raise _not_implemented("softmax_backward_lastdim_kernel_impl", grad_output.dtype)
    if output.dtype != grad_output.dtype:
        raise RuntimeError(f"expected scalar type {LEGACY_NAMES[g]} but found "
                           f"{LEGACY_NAMES.get(torch_name(output.dtype))}")
    if g == "float32" and want == "float16":  # half-to-float: a CUDA-only kernel
        raise RuntimeError("expected scalar type Float but found Half")
    go, out = grad_output, output
    if g in ("float16", "bfloat16"):  # CPU opmath: half precision computed in float32
        go, out = go.astype("float32"), out.astype("float32")
    if go.ndim == 0:
        res = out * (go - go * out)
    else:
        res = out * (go - (go * out).sum(axis=d, keepdim=True))
    return res.astype(grad_output.dtype) if res.dtype != grad_output.dtype else res


def safe_softmax(self, dim, dtype=None):
    """softmax, with 0 (not NaN) in the slices where every input is -inf (SoftMax.cpp
    _safe_softmax: the fully masked rows of attention)."""
    out = _t("torch.softmax")(self, dim, dtype=dtype)
    if self.ndim == 0 or torch_name(self.dtype) not in _FLOATS:
        return out
    d = wrap_dim(dim, self.ndim)
    masked = paddle.all(self == float("-inf"), axis=d, keepdim=True)
    return paddle.where(masked, paddle.zeros_like(out), out)


# -- dropout -----------------------------------------------------------------------------------
def native_dropout_backward(grad_output, mask, scale):
    """``grad * mask * scale`` with torch's type promotion (Dropout.cpp)."""
    mul = _t("torch.mul")
    return mul(mul(grad_output, mask), scale)


# -- batch norm --------------------------------------------------------------------------------
def batch_norm_with_update(input, weight, bias, running_mean, running_var, momentum, eps):
    """Training batch norm that updates the running statistics in place: (out, save_mean,
    save_invstd, reserve), reserve an empty uint8 tensor on CPU (Normalization.cpp)."""
    out, mean, invstd = _t("torch.native_batch_norm")(
        input, weight, bias, running_mean, running_var, True, momentum, eps)
    return out, mean, invstd, paddle.zeros([0], dtype="uint8")


# -- antialiased bilinear resampling ----------------------------------------------------------
def _aa_scale(in_size, out_size, align_corners, scale, f):
    """area_pixel_compute_scale (UpSample.h) in the kernel's scalar type ``f``."""
    if align_corners:
        return f(in_size - 1) / f(out_size - 1) if out_size > 1 else f(0)
    return f(1.0 / scale) if scale is not None and scale > 0 else f(in_size) / f(out_size)


def _aa_weights(in_size, out_size, align_corners, scale, dtype):
    """The (out_size, in_size) matrix of UpSampleKernel.cpp's antialiased bilinear pass
    (_compute_indices_min_size_weights_aa): a triangle filter widened by the scale when
    downsampling, its taps normalised to sum 1.  Computed in the kernel's scalar type with
    its C++ mixed float/double steps: the taps feed sums whose terms cancel, so float32 taps
    rounded otherwise move results by 1e-4 relative."""
    f = np.float32 if dtype == "float32" else np.float64
    s = _aa_scale(in_size, out_size, align_corners, scale, f)
    support = f(float(s)) if s >= 1.0 else f(1.0)  # (interp_size / 2) * scale, interp_size 2
    invscale = f(1.0 / float(s)) if s >= 1.0 else f(1.0)
    max_taps = math.ceil(support) * 2 + 1
    w = np.zeros((out_size, in_size), dtype=dtype)
    for i in range(out_size):
        center = f(float(s) * (i + 0.5))
        xmin = max(int(float(center - support) + 0.5), 0)
        xsize = min(max(min(int(float(center + support) + 0.5), in_size) - xmin, 0), max_taps)
        taps = []
        for j in range(xsize):
            x = abs(f((float(f(j + xmin) - center) + 0.5) * float(invscale)))
            taps.append(f(1.0 - float(x)) if x < 1.0 else f(0.0))
        total = f(0.0)
        for t in taps:
            total = f(total + t)
        if total != 0.0:
            taps = [f(t / total) for t in taps]
        w[i, xmin:xmin + xsize] = taps
    return paddle.to_tensor(w)


def upsample_bilinear2d_aa(self, output_size, align_corners, scales_h=None, scales_w=None):
    """F.interpolate(mode="bilinear", antialias=True)'s kernel: separable, one weight matrix
    per spatial dimension (differentiable: two matmuls)."""
    if self.ndim != 4:
        raise RuntimeError(f"It is expected input_size equals to 4, but got size {self.ndim}")
    if len(output_size) != 2:
        raise RuntimeError(f"It is expected output_size equals to 2, but got size "
                           f"{len(output_size)}")
    oh, ow = output_size
    h, w = self.shape[2], self.shape[3]
    if min(h, w, oh, ow) <= 0:
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"(H: {h}, W: {w}) output (H: {oh}, W: {ow})")
    name = torch_name(self.dtype)
    if name == "uint8":  # ATen's uint8 path rounds per pass in fixed point
        raise NotProvidedError("torch.ops.aten._upsample_bilinear2d_aa on uint8 tensors")
    if name not in ("float32", "float64"):
        raise _not_implemented("compute_index_ranges_weights", self.dtype)
    wh = _aa_weights(h, oh, align_corners, scales_h, name)
    ww = _aa_weights(w, ow, align_corners, scales_w, name)
    return paddle.matmul(wh, paddle.matmul(self, ww, transpose_y=True))


def upsample_bilinear2d_aa_vec(input, output_size, align_corners, scale_factors):
    """The ``.vec`` overload: an output size or scale factors (exactly one), the sizes from
    the factors truncated as UpSample.cpp's compute_output_size does."""
    if (output_size is None) == (scale_factors is None):
        raise RuntimeError("Must specify exactly one of output_size and scale_factors")
    if scale_factors is not None:
        if input.ndim != 4:
            raise RuntimeError(f"It is expected input_size equals to 4, but got size "
                               f"{input.ndim}")
        if len(scale_factors) != 2:
            raise RuntimeError("Expected static_cast<int64_t>(scale_factors->size()) == "
                               "spatial_dimensions to be true, but got false.  (Could this "
                               "error message be improved?  If so, please report an "
                               "enhancement request to PyTorch.)")
        output_size = [int(input.shape[2 + i] * float(scale_factors[i])) for i in range(2)]
        return upsample_bilinear2d_aa(input, output_size, align_corners, *scale_factors)
    return upsample_bilinear2d_aa(input, output_size, align_corners)
