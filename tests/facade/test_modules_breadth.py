"""torch.nn modules that ModuleInfo (tests/opinfo, module_db) found differing, vs real torch 2.13.

- CTCLoss / F.ctc_loss on float32: torch computes the alpha-beta recursions, the likelihood and
  the gradient in float32, operation by operation; the facade reproduces that order
  (facade/_ctc.py), so gradients agree to float32 rounding, not only to 1e-5.
- SoftMarginLoss / F.soft_margin_loss: torch has no derivative for ``target`` and refuses a
  target that requires grad (RuntimeError) while grad mode is on.
- FractionalMaxPool2d/3d: ``_random_samples`` must have the input's dtype (torch's
  RuntimeError); ``module.to(dtype)`` converts the buffer, after which the pooled values,
  indices and gradients are torch's.
"""
import numpy as np
import pytest

from difftest import check, load

pytest.importorskip("torch")

rng = np.random.default_rng(0)


def _log_softmax(shape, dtype="float32"):
    z = rng.standard_normal(shape)
    z = z - z.max(-1, keepdims=True)
    return (z - np.log(np.exp(z).sum(-1, keepdims=True))).astype(dtype)


LP = _log_softmax((50, 3, 15))
TG = rng.integers(1, 15, (3, 30)).astype("int64")
TG14 = rng.integers(0, 14, (3, 30)).astype("int64")  # blank=14: labels below it
SEED = rng.standard_normal(3).astype("float32")

CTC = """
import torch
def f(lp, tg, seed, reduction, blank, lengths_as, targets_1d, zero_infinity, il, tl):
    lp = lp.detach().requires_grad_(True)
    if targets_1d:
        tg = torch.cat([tg[i, :n] for i, n in enumerate(tl)])
    if lengths_as == "tensor":
        il, tl = torch.tensor(il), torch.tensor(tl)
    m = torch.nn.CTCLoss(blank=blank, reduction=reduction, zero_infinity=zero_infinity)
    out = m(lp, tg, il, tl)
    (out * seed).sum().backward() if reduction == "none" else (out * seed[0]).backward()
    return out, lp.grad
"""


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
@pytest.mark.parametrize("lengths_as", ["tuple", "tensor"])
def test_ctc_loss_float32_gradients_are_torchs(reduction, lengths_as):
    # tolerances at float32 rounding: the float64 computation rounded at the end was 1.5e-5 off
    check(CTC, LP, TG, SEED, reduction, 0, lengths_as, False, False, (50, 50, 50), (30, 25, 20),
          rtol=2e-6, atol=2e-7)


def test_ctc_loss_blank_and_concatenated_targets():
    check(CTC, LP, TG14, SEED, "sum", 14, "tuple", True, False, (50, 40, 50), (30, 25, 20),
          rtol=2e-6, atol=2e-7)


def test_ctc_loss_impossible_alignment_zero_infinity():
    # target 30 labels in 10 frames: infinite loss; zero_infinity gives 0 and a zero gradient
    for zi in (False, True):
        check(CTC, LP, TG, SEED, "none", 0, "tuple", False, zi, (10, 50, 50), (30, 25, 20),
              rtol=2e-6, atol=2e-7)


def test_ctc_loss_float64_and_functional():
    check("""
import torch
import torch.nn.functional as F
def f(lp, tg):
    lp = lp.detach().requires_grad_(True)
    out = F.ctc_loss(lp, tg, (50, 50, 50), (30, 25, 20), reduction="none")
    out.sum().backward()
    return out, lp.grad
""", _log_softmax((50, 3, 15), "float64"), TG, rtol=1e-9, atol=1e-11)


X = rng.standard_normal((5, 5)).astype("float32")
Y = np.sign(rng.standard_normal((5, 5))).astype("float32")


@pytest.mark.parametrize("form", ["module", "functional"])
def test_soft_margin_loss_refuses_a_target_that_requires_grad(form):
    src = f"""
import torch
def f(x, y):
    y = y.requires_grad_(True)
    if "{form}" == "module":
        return torch.nn.SoftMarginLoss()(x, y)
    return torch.nn.functional.soft_margin_loss(x, y)
"""
    check(src, X, Y)
    with pytest.raises(RuntimeError, match="not differentiable with respect to argument 'target'"):
        load(src, scoped=True).f(*[__import__("paddle").to_tensor(a) for a in (X, Y)])


@pytest.mark.parametrize("reduction", ["none", "sum", "mean"])
def test_soft_margin_loss_values_and_input_gradient(reduction):
    check(f"""
import torch
def f(x, y):
    x = x.requires_grad_(True)
    out = torch.nn.SoftMarginLoss(reduction="{reduction}")(x, y)
    out.sum().backward()
    with torch.no_grad():  # no grad mode: a target that requires grad is accepted
        again = torch.nn.SoftMarginLoss(reduction="{reduction}")(x, y.requires_grad_(True))
    return out, x.grad, again
""", X, Y)


S2 = rng.random((1, 3, 2))
S3 = rng.random((2, 4, 3))
I2 = rng.standard_normal((1, 3, 7, 6)).astype("float32")
I3 = rng.standard_normal((2, 4, 5, 5, 5)).astype("float32")


@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_max_pool_random_samples_dtype_is_checked(nd):
    # float64 samples with a float32 input: torch's RuntimeError, module and functional
    check(f"""
import torch
def f(x, s):
    return torch.nn.FractionalMaxPool{nd}d(2, output_ratio=0.5, _random_samples=s)(x)
""", I2 if nd == 2 else I3, S2 if nd == 2 else S3)
    check(f"""
import torch
def f(x, s):
    return torch.nn.functional.fractional_max_pool{nd}d(x, 2, output_ratio=(0.5,) * {nd},
                                                      _random_samples=s)
""", I2 if nd == 2 else I3, S2 if nd == 2 else S3)


@pytest.mark.parametrize("nd", [2, 3])
@pytest.mark.parametrize("kw", ["output_ratio=0.5", "output_size=3", "output_ratio=0.5, return_indices=True"])
def test_fractional_max_pool_after_to_dtype(nd, kw):
    check(f"""
import torch
def f(x, s):
    m = torch.nn.FractionalMaxPool{nd}d(2, {kw}, _random_samples=s)
    m.to(torch.float32)  # converts the float64 _random_samples buffer, as torch
    x = x.requires_grad_(True)
    out = m(x)
    first = out[0] if isinstance(out, tuple) else out
    (first * first).sum().backward()
    return out, x.grad, m._random_samples.dtype, sorted(m.state_dict())
""", I2 if nd == 2 else I3, S2 if nd == 2 else S3)


@pytest.mark.parametrize("nd", [2, 3])
def test_fractional_max_pool_float64_intervals(nd):
    # torch computes the pooling intervals in the input's scalar type (double here)
    x = rng.standard_normal((1, 3, 17, 13) if nd == 2 else (1, 2, 13, 11, 9))
    s = rng.random((1, 3, 2) if nd == 2 else (1, 2, 3))
    check(f"""
import torch
def f(x, s):
    return torch.nn.functional.fractional_max_pool{nd}d(x, 3, output_size=(5,) * {nd},
                                                      return_indices=True, _random_samples=s)
""", x, s)


@pytest.mark.parametrize("cls,reduction", [("KLDivLoss", "batchmean"), ("KLDivLoss", "sum"),
                                           ("L1Loss", "bogus"), ("MSELoss", "bogus"),
                                           ("SoftMarginLoss", "bogus")])
def test_loss_constructors_keep_the_reduction_string(cls, reduction):
    # torch's _Loss keeps the string (KLDivLoss's "batchmean" is valid); a bad one is the
    # functional's ValueError at the call, not the constructor's
    check(f"""
import torch
def f(x, y):
    m = torch.nn.{cls}(reduction="{reduction}")
    assert m.reduction == "{reduction}"
    return m(x.log_softmax(1) if "{cls}" == "KLDivLoss" else x, y.softmax(1))
""", X, Y)


def test_loss_constructors_translate_the_legacy_pair():
    check("""
import torch
def f(x, y):
    return [torch.nn.L1Loss(size_average=False).reduction, torch.nn.L1Loss(reduce=False).reduction,
            torch.nn.KLDivLoss(size_average=False).reduction,
            torch.nn.MSELoss(size_average=True, reduce=True)(x, y)]
""", X, Y)


# pytorch/examples dcgan prints its Generator and Discriminator (print(netG)): the facade showed
# ReLU(inplace=True) as ReLU(), LeakyReLU without inplace, Dropout(), PixelShuffle(),
# Upsample() -- extra_repr missing or dropping inplace
REPRS = [
    "nn.ReLU()", "nn.ReLU(True)", "nn.ReLU6(True)", "nn.ELU(0.5, True)", "nn.ELU()",
    "nn.CELU(inplace=True)", "nn.SELU(True)", "nn.SELU()", "nn.Hardswish(True)",
    "nn.Hardsigmoid(True)", "nn.Mish(True)", "nn.LeakyReLU(0.2, inplace=True)", "nn.LeakyReLU()",
    "nn.Threshold(0.1, 2.0, True)", "nn.SiLU(True)", "nn.SiLU()", "nn.GLU()", "nn.Hardshrink()",
    "nn.Softshrink(0.25)", "nn.Softplus()", "nn.LogSoftmax(1)", "nn.Dropout()",
    "nn.Dropout(0.25, True)", "nn.Dropout2d(0.25)", "nn.Dropout1d()", "nn.Dropout3d()",
    "nn.AlphaDropout(0.2)", "nn.FeatureAlphaDropout()", "nn.PixelShuffle(2)",
    "nn.PixelUnshuffle(3)", "nn.Upsample(scale_factor=2)",
    "nn.Upsample(size=(4, 5), mode='bilinear')",
    "nn.Upsample(scale_factor=(2, 3), mode='bilinear', align_corners=True)",
    "nn.UpsamplingNearest2d(scale_factor=2)", "nn.UpsamplingBilinear2d(size=3)", "nn.Unfold(2)",
    "nn.Fold((4, 4), 2)", "nn.Hardtanh()", "nn.Hardtanh(-2.0, 2.0, True)", "nn.GELU()",
    "nn.GELU('tanh')", "nn.Softmax(1)", "nn.PReLU()", "nn.PReLU(3)", "nn.RReLU()",
    "nn.RReLU(0.1, 0.2, True)",
]


@pytest.mark.parametrize("expr", REPRS)
def test_module_repr_like_torch(expr):
    check(f"import torch\nimport torch.nn as nn\ndef f():\n    return repr({expr})\n")
