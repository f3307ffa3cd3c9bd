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

from .registry import manifest

NAMES = manifest("""
    torch: acos_ acosh_ addmv_ arccos_ arccosh_ arcsin_ arcsinh_ arctan_ arctanh_ asin_ asinh_
        atan_ atanh_ ceil_ clamp_ clamp_max_ clamp_min_ clip_ conj_physical_ cos_ cosh_ deg2rad_
        erf_ erfc_ exp2_ exp_ expm1_ fill_ fix_ floor_ frac_ gcd_ i0_ lcm_ ldexp_ log10_ log1p_
        log2_ log_ logit_ nan_to_num_ neg_ negative_ rad2deg_ reciprocal_ round_ rsqrt_ sigmoid_
        sin_ sinc_ sinh_ sqrt_ square_ tan_ tanh_ trunc_ xlogy_
""")
