"""``torch.distributions.kl``: ``kl_divergence`` and ``register_kl`` (torch's most-specific-match
rule) with torch's closed forms for the pairs the families provide.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.distributions: kl kl_divergence register_kl
    torch.distributions.kl: kl_divergence register_kl
""")

import paddle
import paddle.nn.functional as PF

from .distributions import _sum_rightmost, D, Distribution
from .distributions_continuous import (Beta, Cauchy, Exponential, Gamma, HalfNormal, Laplace,
                                       LogNormal, Normal, Uniform)
from .distributions_discrete import (Bernoulli, Binomial, Categorical, Geometric,
                                     OneHotCategorical, Poisson)
from .distributions_multivariate import Dirichlet, Independent, MultivariateNormal
from .registry import module, torch_function


module("torch.distributions.kl")


# -- KL divergence -----------------------------------------------------------------------------
_KL_REGISTRY: dict = {}


def register_kl(type_p, type_q):
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        return fun
    return decorator


def kl_divergence(p, q):
    best = None
    for (tp, tq), fn in _KL_REGISTRY.items():
        if isinstance(p, tp) and isinstance(q, tq):
            rank = (type(p).__mro__.index(tp), type(q).__mro__.index(tq))
            if best is None or rank < best[0]:
                best = (rank, fn)
    if best is None:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type "
                                  f"{p.__class__.__name__} and q type {q.__class__.__name__}")
    return best[1](p, q)


def _inf_where(t, mask):
    return paddle.where(mask, paddle.full_like(t, float("inf")), t)


def _zero_where(t, mask):
    return paddle.where(mask, paddle.zeros_like(t), t)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale) ** 2
    t1 = ((p.loc - q.loc) / q.scale) ** 2
    return 0.5 * (var_ratio + t1 - 1 - paddle.log(var_ratio))


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (PF.softplus(-q.logits) - PF.softplus(-p.logits))
    t1 = _zero_where(_inf_where(t1, q.probs == 0), p.probs == 0)
    t2 = (1 - p.probs) * (PF.softplus(q.logits) - PF.softplus(p.logits))
    t2 = _zero_where(_inf_where(t2, q.probs == 1), p.probs == 1)
    return t1 + t2


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _inf_where(t, paddle.broadcast_to(q.probs == 0, t.shape))
    t = _zero_where(t, paddle.broadcast_to(p.probs == 0, t.shape))
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehot_onehot(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = paddle.log((q.high - q.low) / (p.high - p.low))
    return _inf_where(result, (q.low > p.low) | (q.high < p.high))


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    return -paddle.log(rate_ratio) + rate_ratio - 1


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * paddle.log(p.rate / q.rate)
    t2 = paddle.lgamma(q.concentration) - paddle.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * paddle.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = paddle.lgamma(q.concentration1) + paddle.lgamma(q.concentration0) + paddle.lgamma(sum_p)
    t2 = paddle.lgamma(p.concentration1) + paddle.lgamma(p.concentration0) + paddle.lgamma(sum_q)
    t3 = (p.concentration1 - q.concentration1) * paddle.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * paddle.digamma(p.concentration0)
    t5 = (sum_q - sum_p) * paddle.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = paddle.lgamma(sum_p) - paddle.lgamma(sum_q)
    t2 = (paddle.lgamma(p.concentration) - paddle.lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = paddle.digamma(p.concentration) - paddle.digamma(sum_p).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -paddle.log(scale_ratio)
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * paddle.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (paddle.log(p.rate) - paddle.log(q.rate)) - (p.rate - q.rate)


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_mvn_mvn(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with different event "
                         "shapes cannot be computed")
    half_term1 = q._half_log_det() - p._half_log_det()
    n = p.event_shape[0]
    Lq, Lp = q._unbroadcasted_scale_tril, p._unbroadcasted_scale_tril
    shape = paddle.broadcast_shape(Lq.shape[:-2], Lp.shape[:-2])
    Lqb = paddle.broadcast_to(Lq, list(shape) + [n, n])
    Lpb = paddle.broadcast_to(Lp, list(shape) + [n, n])
    term2 = (paddle.linalg.triangular_solve(Lqb, Lpb, upper=False) ** 2).sum([-2, -1])
    term3 = q._mahalanobis(Lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term3 + term2 - n)


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = paddle.log((p.scale + q.scale) ** 2 + (p.loc - q.loc) ** 2)
    t2 = paddle.log(4 * p.scale * q.scale)
    return t1 - t2


@register_kl(HalfNormal, HalfNormal)
@register_kl(LogNormal, LogNormal)
def _kl_same_transform(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - paddle.log1p(-q.probs) / p.probs - q.logits


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count "
                                  "is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + paddle.log1p(-p.probs)
                          - paddle.log1p(-q.probs))
    inf_idxs = p.total_count > q.total_count
    return paddle.where(inf_idxs, paddle.full_like(kl, float("inf")), kl)

for _prefix in (D, D + "kl."):
    torch_function(_prefix + "kl_divergence")(kl_divergence)
    torch_function(_prefix + "register_kl")(register_kl)
