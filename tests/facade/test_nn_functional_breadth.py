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


# -- interpolation --------------------------------------------------------------------------------
@pytest.mark.parametrize("mode,shape", [
    ("nearest", (2, 3, 4)), ("nearest", (2, 3, 4, 5)), ("nearest-exact", (2, 3, 4)),
    ("nearest-exact", (2, 3, 4, 4, 4)), ("linear", (2, 3, 4)), ("bilinear", (2, 3, 4, 5)),
    ("bicubic", (2, 3, 4, 5)), ("trilinear", (2, 3, 4, 3, 5)),
])
def test_interpolate_scales_and_sizes(mode, shape):
    interp = mode in ("linear", "bilinear", "bicubic", "trilinear")
    nd = len(shape) - 2
    cases = [f"dict(size={(3,) * nd})", f"dict(size={(7,) * nd})",
             "dict(scale_factor=1.7)", "dict(scale_factor=0.6)",
             "dict(scale_factor=1.7, recompute_scale_factor=True)", "dict(scale_factor=2)"]
    if interp:
        cases += ["dict(scale_factor=0.6, align_corners=True)",
                  f"dict(size={(5,) * nd}, align_corners=True)"]
    check(f"""
import torch
def f(x):
    x = x.requires_grad_()
    outs = [torch.nn.functional.interpolate(x, mode={mode!r}, **kw) for kw in [{', '.join(cases)}]]
    sum((o * o).sum() for o in outs).backward()
    return outs + [x.grad]
""", _r(*shape), rtol=1e-4, atol=1e-5)


def test_interpolate_float64_and_upsample_aliases():
    check("""
import torch
F = torch.nn.functional
def f(x):
    return [F.interpolate(x.double(), scale_factor=1.3, mode="bilinear"),
            F.interpolate(x.double(), scale_factor=0.7, mode="bicubic", align_corners=False),
            F.upsample_nearest(x, scale_factor=2), F.upsample_nearest(x, size=(3, 7)),
            F.upsample_bilinear(x, scale_factor=2), F.upsample_bilinear(x, size=(5, 3)),
            F.upsample(x, scale_factor=1.5, mode="nearest-exact")]
""", _r(2, 3, 4, 5), rtol=1e-4, atol=1e-5)


@pytest.mark.parametrize("src", [
    "F.interpolate(x, mode='bilinear')",
    "F.interpolate(x, size=3, scale_factor=2, mode='bilinear')",
    "F.interpolate(x, size=3, mode='nearest', align_corners=True)",
    "F.interpolate(x, size=3, mode='linear')",
    "F.interpolate(x, scale_factor=(2, 2, 2), mode='nearest')",
    "F.interpolate(x, size=3, mode='bogus')",
])
def test_interpolate_errors(src):
    check(f"""
import torch
F = torch.nn.functional
def f(x):
    return {src}
""", _r(1, 2, 4, 4))


# -- pad, unfold, channel_shuffle, max_unpool ----------------------------------------------------
def test_pad_circular_and_bool():
    check("""
import torch
F = torch.nn.functional
def f(x):
    x = x.requires_grad_()
    outs = [F.pad(x, (-1, 1, -2, 1), mode="circular"), F.pad(x, (1, 2), mode="circular"),
            F.pad(x[0], (1, 2), mode="circular"), F.pad(x, (2, 0, 1, 3), mode="circular"),
            F.pad(x.unsqueeze(0), (1, 1, 1, 1, 1, 1), mode="circular")]
    sum((o * o).sum() for o in outs).backward()
    b = x.detach() > 0
    return outs + [x.grad, F.pad(b, (1, 2), value=True), F.pad(b, (1, 1, 0, 1)),
                   F.unfold(b.float().unsqueeze(0) > 0, 2, padding=1)]
""", _r(1, 3, 4, 4))


@pytest.mark.parametrize("src", [
    "F.pad(x, (5, 0), mode='circular')",
    "F.pad(x, (1, 1, 1, 1), mode='circular')",
    "F.pad(x[0, 0], (1, 1), mode='circular')",
])
def test_pad_circular_errors(src):
    check(f"""
import torch
F = torch.nn.functional
def f(x):
    return {src}
""", _r(1, 3, 4))


def test_channel_shuffle():
    check("""
import torch
def f(x):
    return [torch.nn.functional.channel_shuffle(x, 2), torch.channel_shuffle(x, 3),
            torch.native_channel_shuffle(x[0].unsqueeze(0), 6)]
""", _r(2, 6, 3, 2))


@pytest.mark.parametrize("groups,shape", [(0, (2, 6, 3)), (4, (2, 6, 3)), (2, (2, 6))])
def test_channel_shuffle_errors(groups, shape):
    check(f"""
import torch
def f(x):
    return torch.nn.functional.channel_shuffle(x, {groups})
""", _r(*shape))


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_max_unpool_round_trip(nd):
    shape = {1: (2, 3, 9), 2: (2, 3, 7, 6), 3: (1, 2, 5, 6, 5)}[nd]
    check(f"""
import torch
F = torch.nn.functional
def f(x):
    pool = getattr(F, "max_pool{nd}d")
    unpool = getattr(F, "max_unpool{nd}d")
    out = []
    for k, s, p in ((2, 2, 0), (3, 2, 1), (3, 1, 0)):
        v, i = pool(x, k, s, p, return_indices=True)
        v = v.detach().requires_grad_()
        u = unpool(v, i, k, s, p)
        u2 = unpool(v, i, k, s, p, output_size=x.shape)
        (u * u).sum().backward()
        out += [u, u2, v.grad]
    v, i = pool(x[0], 2, return_indices=True)
    return out + [unpool(v, i, 2)]
""", _r(*shape))


@pytest.mark.parametrize("src", [
    "F.max_unpool2d(v, i, 2, output_size=(9, 9))",
    "F.max_unpool2d(v, i + 100, 2)",
    "F.max_unpool2d(v, i[..., :1], 2)",
    "F.max_unpool2d(v, i, 2, output_size=(1, 2, 3))",
])
def test_max_unpool_errors(src):
    check(f"""
import torch
F = torch.nn.functional
def f(x):
    v, i = F.max_pool2d(x, 2, return_indices=True)
    return {src}
""", _r(1, 2, 4, 4))


# -- integer inputs, edge values ------------------------------------------------------------------
def test_integer_inputs_keep_torch_dtypes():
    check("""
import torch
F = torch.nn.functional
def f(x, y):
    return [F.relu(x), F.relu6(x * 3), F.hardtanh(x), F.hardtanh(x, -2, 3), F.tanhshrink(x),
            F.avg_pool1d(x.unsqueeze(0), 2), F.avg_pool2d(x.unsqueeze(0), 2, divisor_override=-2),
            F.avg_pool2d(x.unsqueeze(0), 3, 1, 1, count_include_pad=False),
            F.avg_pool3d(x.reshape(1, 1, 2, 2, 5), 2, ceil_mode=True),
            F.local_response_norm(x.unsqueeze(0), 3), F.cosine_embedding_loss(x, y, y[:, 0].sign()),
            F.poisson_nll_loss(x, y.abs()), F.poisson_nll_loss(x, y.abs(), log_input=False,
                                                                  full=True)]
""", _i(4, 5), _i(4, 5))


def test_edge_values():
    check("""
import torch
F = torch.nn.functional
def f(x, s):
    x = x.requires_grad_()
    outs = [F.cosine_similarity(x[:1], x.unsqueeze(1)[:, :, :3], dim=-2),
            F.cosine_similarity(s, -2 * s, dim=0), F.cosine_similarity(x.detach(), x.detach().long(), dim=1),
            F.normalize(s, p=1.2, dim=0), F.normalize(x, dim=-1), F.pdist(x, p=0.0),
            F.pdist(x, p=1.5), F.alpha_dropout(x, 1.0, True), F.feature_alpha_dropout(
                x.unsqueeze(0), 1.0, True)]
    sum(o.sum() for o in outs[:5]).backward()
    return outs + [x.grad]
""", _r(4, 3), np.array(-2.5, "float32"), rtol=1e-4, atol=1e-5)


def test_embedding_max_norm_and_bag():
    check("""
import torch
F = torch.nn.functional
def f(w, i):
    w1, w2 = w.clone(), w.clone()
    e = F.embedding(i, w1, max_norm=1.0)
    b = F.embedding_bag(i.reshape(-1), w2, torch.tensor([0, 3]), max_norm=1.0, norm_type=1.0,
                        mode="sum", padding_idx=-1)
    wg = w.clone().requires_grad_()
    g = F.embedding(i, wg, scale_grad_by_freq=True)
    (g * torch.arange(3.)).sum().backward()
    return [e, w1, b, w2, wg.grad, F.embedding_bag(i, w, mode="max")]
""", _r(5, 3) * 2, np.array([[0, 2, 2], [4, 1, 2]], "int64"), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("src", ["F.embedding(i, w[0])", "F.normalize(s, dim=1)",
                                 "F.cosine_similarity(s, s, dim=2)"])
def test_edge_errors(src):
    check(f"""
import torch
F = torch.nn.functional
def f(w, i, s):
    return {src}
""", _r(5, 3), np.array([0, 2], "int64"), np.array(1.5, "float32"))


# -- grid_sample -----------------------------------------------------------------------------------
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
def test_grid_sample_2d(mode, padding_mode):
    check(f"""
import torch
def f(x, g):
    x, g = x.requires_grad_(), (g * 1.3).requires_grad_()
    outs = [torch.nn.functional.grid_sample(x, g, mode={mode!r}, padding_mode={padding_mode!r},
                                            align_corners=a) for a in (False, True)]
    sum((o * o).sum() for o in outs).backward()
    return outs + [x.grad] + ([g.grad] if {mode!r} != "nearest" else [])
""", _r(2, 3, 5, 4), np.clip(_r(2, 4, 6, 2), -1.2, 1.2), rtol=1e-4, atol=1e-4)


def test_grid_sample_3d_and_samplers():
    check("""
import torch
def f(x, g):
    return [torch.nn.functional.grid_sample(x, g, padding_mode="reflection"),
            torch.nn.functional.grid_sample(x, g, mode="nearest", align_corners=True),
            torch.grid_sampler_3d(x, g, 0, 1, False), torch.grid_sampler(x, g, 1, 0, True),
            torch.grid_sampler_2d(x[:, :, 0], g[:, 0, :, :, :2], 2, 2, False)]
""", _r(1, 2, 3, 4, 5), np.clip(_r(1, 2, 3, 4, 3), -1.2, 1.2), rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("src", [
    "torch.nn.functional.grid_sample(x, g, mode='area')",
    "torch.nn.functional.grid_sample(x, g, padding_mode='wrap')",
    "torch.nn.functional.grid_sample(x, g[..., :1])",
    "torch.nn.functional.grid_sample(x, g.double())",
    "torch.nn.functional.grid_sample(x.unsqueeze(2), g.unsqueeze(1).expand(1, 1, 2, 2, 2), "
    "mode='bicubic')",
])
def test_grid_sample_errors(src):
    check(f"""
import torch
def f(x, g):
    return {src}
""", _r(1, 2, 3, 3), _r(1, 2, 2, 2))


def test_sdpa_broadcast_query_math_scaling():
    check("""
import torch
def f(q, k, v):
    F = torch.nn.functional
    return [F.scaled_dot_product_attention(q, k, v),
            F.scaled_dot_product_attention(q, k, v, scale=0.3),
            F.scaled_dot_product_attention(q, k, v, is_causal=True)]
""", _r(4, 3, 8), _r(4, 4, 6, 8), _r(4, 4, 6, 8), rtol=1e-5, atol=1e-6)


# -- torch's exception classes for bad arguments ---------------------------------------------------
@pytest.mark.parametrize("src", [
    "F.l1_loss(x, x[:, :3])", "F.soft_margin_loss(x, x[:, :3])",
    "F.poisson_nll_loss(x, x[:, :3])", "F.gaussian_nll_loss(x, x[:, :3], x.abs())",
    "F.triplet_margin_loss(x, x, x[:, :3])", "F.triplet_margin_loss(x, x, x, margin=-1.0)",
    "F.triplet_margin_with_distance_loss(x, x[:, :3], x)",
    "F.multi_margin_loss(x, x[:, 0].long(), reduction='abc')",
    "F.prelu(x[0, 0], x[0])", "F.prelu(x, x[0, :3])", "F.prelu(x, x)",
    "F.rrelu(x, 0.3, 0.1)", "F.adaptive_avg_pool2d(x, 2)", "F.adaptive_max_pool3d(x, 2)",
    "F.adaptive_avg_pool2d(x, (2, 2))", "F.adaptive_max_pool3d(x.unsqueeze(0), (1, 2, 2))",
    "F.adaptive_avg_pool2d(x.unsqueeze(0), -1)", "F.adaptive_max_pool1d(x.unsqueeze(0), ())",
    "F.avg_pool1d(x.unsqueeze(0), 2, padding=-1)", "F.max_pool1d(x.unsqueeze(0), 2, padding=-1)",
])
def test_argument_errors(src):
    check(f"""
import torch
F = torch.nn.functional
def f(x):
    return {src}
""", _r(3, 4))
