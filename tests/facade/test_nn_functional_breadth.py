"""torch.nn.functional breadth vs real torch 2.13: convolutions (torch.conv* aliases, padding=
'same' with asymmetric totals, integer inputs, transposed convolutions with torch's
output_padding rule), norms (torch.layer_norm/group_norm/rms_norm, the native_* tuples),
padding modes, interpolation (non-integer scales, nearest-exact, 1-d nearest), max_unpool,
grid_sample, channel_shuffle, and torch's exception classes for bad arguments."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def _r(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def _i(*shape):
    return RNG.integers(-5, 5, shape).astype("int64")


# -- convolutions ---------------------------------------------------------------------------------
def test_conv_same_padding_asymmetric():
    check("""
import torch
def f(x, w, b):
    return [torch.conv2d(x, w, b, stride=1, padding="same", dilation=3),
            torch.nn.functional.conv2d(x[0], w, b, padding="same", dilation=(2, 1)),
            torch.conv1d(x[:, :, 0], w[:, :, 0], b, padding="same", dilation=3),
            torch.conv3d(x.unsqueeze(2).expand(1, 4, 3, 5, 5).contiguous(),
                         w.unsqueeze(2).expand(1, 4, 2, 2, 3).contiguous(), b, padding="same")]
""", _r(1, 4, 5, 5), _r(1, 4, 2, 3), _r(1), rtol=1e-4, atol=1e-4)


def test_conv_integer_inputs():
    check("""
import torch
def f(x, w):
    return [torch.conv1d(x[:, :, 0], w[:, :, 0], stride=2),
            torch.nn.functional.conv2d(x, w, padding=1, groups=1),
            torch.conv_transpose1d(x[:, :, 0], w.transpose(0, 1)[:, :, 0].contiguous(), stride=2),
            torch.conv_transpose2d(x, w.transpose(0, 1).contiguous(), padding=1)]
""", _i(2, 3, 5, 4), _i(4, 3, 2, 2))


@pytest.mark.parametrize("kw", [
    dict(stride=(2, 2), padding=2, output_padding=(1, 1)),
    dict(stride=(3, 2), padding=(1, 2), output_padding=(2, 3), groups=2, dilation=(4, 4)),
    dict(stride=1, padding=0, output_padding=0, groups=2),
    dict(stride=2, padding=1, output_padding=1, dilation=2),
])
def test_conv_transpose2d_output_padding(kw):
    check(f"""
import torch
def f(x, w, b):
    x = x.requires_grad_()
    out = torch.conv_transpose2d(x, w, b, **{kw!r})
    out2 = torch.nn.functional.conv_transpose2d(x[0], w, None, **{kw!r})
    (out.sum() + (out2 * out2).sum()).backward()
    return [out, out2, x.grad]
""", _r(2, 2, 4, 4), _r(2, 2, 4, 5), _r(4 if kw.get("groups") == 2 else 2), rtol=1e-4, atol=1e-4)


def test_conv_transpose1d_3d():
    check("""
import torch
def f(x, w):
    return [torch.conv_transpose3d(x, w, None, (3, 2, 1), (1, 2, 3), (2, 3, 1), 2, (4, 4, 4)),
            torch.conv_transpose1d(x[:, :, :, 0, 0], w[:, :, :, 0, 0], None, 2, 1, 1)]
""", _r(2, 2, 4, 4, 4), _r(2, 2, 4, 5, 6), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("src", [
    "torch.conv2d(x.long(), w.long(), b)",                       # dtypes differ
    "torch.conv2d(x, w, b, stride=-1)",
    "torch.conv2d(x, w, b, padding=-1)",
    "torch.conv2d(x, w, b, dilation=0)",
    "torch.conv2d(x, w, b, groups=0)",
    "torch.conv2d(x, w, b, groups=3)",
    "torch.conv2d(x, w[0], b)",
    "torch.conv_transpose2d(x, w, None, stride=1, output_padding=1)",
])
def test_conv_errors(src):
    check(f"""
import torch
def f(x, w, b):
    return {src}
""", _r(1, 2, 5, 5), _r(2, 2, 3, 3), _r(2))


# -- norms ----------------------------------------------------------------------------------------
def test_layer_norm_every_dim_and_large_eps():
    check("""
import torch
def f(x, w, b):
    x = x.requires_grad_()
    outs = [torch.layer_norm(x, (1, 2, 3), w, b, 0.5),
            torch.nn.functional.layer_norm(x, [2, 3], w[0], b[0], eps=1e-5),
            torch.nn.functional.layer_norm(x, (1, 2, 3))]
    sum(o.sum() * (i + 1) for i, o in enumerate(outs)).backward()
    return outs + [x.grad]
""", _r(1, 2, 3), _r(1, 2, 3), _r(1, 2, 3), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("src", [
    "torch.nn.functional.layer_norm(x, ())",
    "torch.nn.functional.layer_norm(x, (1, 2, 3), x[0])",
    "torch.nn.functional.layer_norm(x, (2, 2))",
    "torch.native_layer_norm(x, (1, 2, 3), None, x[0], 1e-5)",
    "torch.rms_norm(x, (2, 2))",
])
def test_norm_shape_errors(src):
    check(f"""
import torch
def f(x):
    return {src}
""", _r(1, 2, 3))


def test_native_norms():
    check("""
import torch
def f(x, w, b, rm, rv):
    rm2, rv2 = rm.clone(), rv.clone()
    return [torch.native_layer_norm(x, [4, 5], w, b, 1e-5),
            torch.native_layer_norm(x, [3, 4, 5], None, None, 0.5),
            torch.native_group_norm(x, rm, rv, 2, 4, 5, 2, 1e-5),
            torch.native_batch_norm(x.transpose(0, 1).contiguous(), rm, rv, rm2, rv2, True,
                                    0.5, 1e-5), rm2, rv2,
            torch.native_batch_norm(x.transpose(0, 1).contiguous(), None, None, rm, rv.abs(),
                                    False, 0.5, 1e-5),
            torch._native_batch_norm_legit(x.transpose(0, 1).contiguous(), rm, rv, True, 0.1,
                                           1e-5),
            torch.group_norm(x.transpose(0, 1).contiguous(), 2, rm, rv),
            torch.rms_norm(x, [5], b[0]),
            torch.batch_norm(x.transpose(0, 1).contiguous(), rm, rv, rm.clone(), rv.abs(), False,
                             0.1, 1e-5, False)]
""", _r(2, 4, 5), _r(4, 5), _r(4, 5), _r(4), _r(4), rtol=1e-4, atol=1e-5)


def test_batch_norm_empty_1d():
    check("""
import torch
def f(x):
    return [torch.nn.functional.batch_norm(x, x, x, training=True),
            torch.nn.functional.batch_norm(x, x, x, training=False)]
""", np.zeros((0,), "float32"))
