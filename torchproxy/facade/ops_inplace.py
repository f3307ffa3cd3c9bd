"""``torch.<op>_`` functions: torch's function form of its Tensor in-place methods
(``torch.sigmoid_(x)`` is ``x.sigmoid_()``).  torch exports these in ``torch.__all__``; each is
the facade's own Tensor method (the in-place rules ``registry.op`` gives it), so there is one
implementation per name.  Listed after the areas that register the methods."""
from __future__ import annotations

from .registry import TENSOR_TABLE, torch_function

# the in-place methods torch also exports as torch.<name> (torch 2.13's torch.__all__)
_INPLACE = (
    "acos_", "acosh_", "addmv_", "arccos_", "arccosh_", "arcsin_", "arcsinh_", "arctan_",
    "arctanh_", "asin_", "asinh_", "atan_", "atanh_", "ceil_", "clamp_", "clamp_max_",
    "clamp_min_", "clip_", "conj_physical_", "cos_", "cosh_", "deg2rad_", "erf_", "erfc_",
    "exp2_", "exp_", "expm1_", "fill_", "fix_", "floor_", "frac_", "gcd_", "i0_", "lcm_",
    "ldexp_", "log10_", "log1p_", "log2_", "log_", "logit_", "nan_to_num_", "neg_", "negative_",
    "rad2deg_", "reciprocal_", "round_", "rsqrt_", "sigmoid_", "sin_", "sinc_", "sinh_", "sqrt_",
    "square_", "tan_", "tanh_", "trunc_", "xlogy_",
)

for _name in _INPLACE:
    torch_function(f"torch.{_name}")(TENSOR_TABLE[f"torch.Tensor.{_name}"].impl)

NAMES = (
    "torch.acos_", "torch.acosh_", "torch.addmv_", "torch.arccos_", "torch.arccosh_",
    "torch.arcsin_", "torch.arcsinh_", "torch.arctan_", "torch.arctanh_", "torch.asin_",
    "torch.asinh_", "torch.atan_", "torch.atanh_", "torch.ceil_", "torch.clamp_",
    "torch.clamp_max_", "torch.clamp_min_", "torch.clip_", "torch.conj_physical_", "torch.cos_",
    "torch.cosh_", "torch.deg2rad_", "torch.erf_", "torch.erfc_", "torch.exp2_", "torch.exp_",
    "torch.expm1_", "torch.fill_", "torch.fix_", "torch.floor_", "torch.frac_", "torch.gcd_",
    "torch.i0_", "torch.lcm_", "torch.ldexp_", "torch.log10_", "torch.log1p_", "torch.log2_",
    "torch.log_", "torch.logit_", "torch.nan_to_num_", "torch.neg_", "torch.negative_",
    "torch.rad2deg_", "torch.reciprocal_", "torch.round_", "torch.rsqrt_", "torch.sigmoid_",
    "torch.sin_", "torch.sinc_", "torch.sinh_", "torch.sqrt_", "torch.square_", "torch.tan_",
    "torch.tanh_", "torch.trunc_", "torch.xlogy_",
)
