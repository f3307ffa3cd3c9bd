"""torch.distributions on Paddle tensors vs real torch 2.13: log-probs, entropies, moments,
cdf/icdf and KL divergences on fixed values (exact up to float rounding), gradients of
log_prob, shapes and validation; samples checked in distribution (moments)."""
import numpy as np
import pytest

from difftest import check, load

pytest.importorskip("torch")

# name -> (constructor, values to score)
DISTS = {
    "normal": ("D.Normal(torch.tensor([0.0, 1.5, -2.0]), torch.tensor([1.0, 0.5, 3.0]))",
               "torch.tensor([[0.3, 1.0, -5.0], [2.0, -1.0, 0.0]])"),
    "normal_scalar": ("D.Normal(0.5, 2.0)", "torch.tensor([0.1, -3.0])"),
    "bernoulli_p": ("D.Bernoulli(probs=torch.tensor([0.2, 0.7, 0.5]))",
                    "torch.tensor([1.0, 0.0, 1.0])"),
    "bernoulli_l": ("D.Bernoulli(logits=torch.tensor([-1.0, 2.0]))", "torch.tensor([[0.0, 1.0], [1.0, 1.0]])"),
    "categorical_p": ("D.Categorical(probs=torch.tensor([[0.1, 0.6, 0.3], [0.5, 0.25, 0.25]]))",
                      "torch.tensor([[2, 0], [1, 1]])"),
    "categorical_l": ("D.Categorical(logits=torch.tensor([1.0, -0.5, 2.0, 0.0]))",
                      "torch.tensor([0, 3, 2])"),
    "uniform": ("D.Uniform(torch.tensor([0.0, -1.0]), torch.tensor([2.0, 3.0]))",
                "torch.tensor([1.5, 2.5])"),
    "exponential": ("D.Exponential(torch.tensor([0.5, 2.0]))", "torch.tensor([0.3, 4.0])"),
    "laplace": ("D.Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.3]))",
                "torch.tensor([-0.7, 1.2])"),
    "gamma": ("D.Gamma(torch.tensor([0.5, 2.0, 7.5]), torch.tensor([1.0, 0.5, 3.0]))",
              "torch.tensor([0.2, 3.0, 2.5])"),
    "beta": ("D.Beta(torch.tensor([0.5, 2.0]), torch.tensor([3.0, 2.0]))",
             "torch.tensor([0.1, 0.8])"),
    "dirichlet": ("D.Dirichlet(torch.tensor([[1.0, 2.0, 0.5], [3.0, 3.0, 3.0]]))",
                  "torch.tensor([[0.2, 0.5, 0.3], [0.1, 0.1, 0.8]])"),
    "poisson": ("D.Poisson(torch.tensor([0.5, 4.0, 10.0]))", "torch.tensor([0.0, 3.0, 12.0])"),
    "onehot": ("D.OneHotCategorical(probs=torch.tensor([0.2, 0.3, 0.5]))",
               "torch.tensor([[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]])"),
    "mvn_cov": ("D.MultivariateNormal(torch.tensor([0.0, 1.0]), "
                "covariance_matrix=torch.tensor([[2.0, 0.3], [0.3, 0.5]]))",
                "torch.tensor([[0.5, 0.5], [-1.0, 2.0]])"),
    "mvn_tril": ("D.MultivariateNormal(torch.zeros(2, 3), "
                 "scale_tril=torch.tensor([[1.0, 0.0, 0.0], [0.5, 2.0, 0.0], [-0.3, 0.1, 0.7]]))",
                 "torch.tensor([0.2, -0.4, 1.0])"),
    "mvn_prec": ("D.MultivariateNormal(torch.tensor([1.0, -1.0]), "
                 "precision_matrix=torch.tensor([[1.5, -0.2], [-0.2, 0.8]]))",
                 "torch.tensor([0.0, 0.0])"),
    "independent": ("D.Independent(D.Normal(torch.zeros(3, 2), torch.ones(3, 2) * 2), 1)",
                    "torch.tensor([[0.1, 0.2], [1.0, -1.0], [3.0, 0.0]])"),
    "float64": ("D.Normal(torch.tensor([0.0, 1.0], dtype=torch.float64), 2.0)",
                "torch.tensor([0.5, 0.25], dtype=torch.float64)"),
    "cauchy": ("D.Cauchy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.5]))",
               "torch.tensor([0.3, -2.0])"),
    "halfnormal": ("D.HalfNormal(torch.tensor([1.0, 2.5]))", "torch.tensor([0.3, 4.0])"),
    "lognormal": ("D.LogNormal(torch.tensor([0.0, 1.0]), torch.tensor([0.5, 0.25]))",
                  "torch.tensor([0.7, 3.0])"),
    "chi2": ("D.Chi2(torch.tensor([1.0, 4.0]))", "torch.tensor([0.5, 3.5])"),
    "studentt": ("D.StudentT(torch.tensor([0.5, 1.5, 5.0]), torch.tensor([0.0, 1.0, -1.0]), "
                 "torch.tensor([1.0, 2.0, 0.5]))", "torch.tensor([0.2, 3.0, -1.0])"),
    "geometric_p": ("D.Geometric(probs=torch.tensor([0.2, 0.9, 1.0]))", "torch.tensor([3.0, 0.0, 0.0])"),
    "geometric_l": ("D.Geometric(logits=torch.tensor([-1.0, 2.0]))", "torch.tensor([2.0, 5.0])"),
    "binomial": ("D.Binomial(torch.tensor([5.0, 10.0]), probs=torch.tensor([0.3, 0.5]))",
                 "torch.tensor([2.0, 10.0])"),
    "binomial_l": ("D.Binomial(6, logits=torch.tensor([[0.5], [-1.0]]))", "torch.tensor([0.0, 3.0, 6.0])"),
    "multinomial": ("D.Multinomial(5, probs=torch.tensor([0.2, 0.3, 0.5]))",
                    "torch.tensor([[1.0, 1.0, 3.0], [0.0, 5.0, 0.0]])"),
}


def _run(body):
    return f"""
import torch
import torch.distributions as D
def f():
{body}
"""


@pytest.mark.parametrize("name", sorted(DISTS))
def test_log_prob_entropy_moments_shapes_match_torch(name):
    ctor, values = DISTS[name]
    check(_run(f"""
    d = {ctor}
    v = {values}
    out = {{"log_prob": d.log_prob(v), "batch": tuple(d.batch_shape), "event": tuple(d.event_shape),
           "has_rsample": d.has_rsample, "sample": tuple(d.sample((4, 2)).shape),
           "sample_dtype": d.sample().dtype}}
    for attr in ("mean", "variance", "stddev"):
        out[attr] = getattr(d, attr)
    try:
        out["entropy"] = d.entropy()
    except NotImplementedError:
        out["entropy"] = "not implemented"
    return out
"""), rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["normal", "uniform", "exponential", "laplace", "cauchy",
                                  "halfnormal", "lognormal"])
def test_cdf_icdf_match_torch(name):
    ctor, values = DISTS[name]
    check(_run(f"""
    d = {ctor}
    v = {values}
    p = d.cdf(v)
    return p, d.icdf(torch.full_like(d.mean, 0.3)), d.icdf(torch.full_like(d.mean, 0.9))
"""), rtol=2e-5, atol=1e-5)


KL = [
    ("D.Normal(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))",
     "D.Normal(torch.tensor([0.5, -1.0]), torch.tensor([0.3, 1.0]))"),
    ("D.Bernoulli(probs=torch.tensor([0.2, 0.0, 1.0, 0.5]))",
     "D.Bernoulli(probs=torch.tensor([0.6, 0.3, 0.4, 0.0]))"),
    ("D.Categorical(probs=torch.tensor([[0.2, 0.8, 0.0], [0.3, 0.3, 0.4]]))",
     "D.Categorical(probs=torch.tensor([[0.5, 0.25, 0.25], [0.0, 0.5, 0.5]]))"),
    ("D.OneHotCategorical(logits=torch.tensor([1.0, 2.0, 0.0]))",
     "D.OneHotCategorical(logits=torch.tensor([0.0, 0.0, 1.0]))"),
    ("D.Uniform(torch.tensor([0.0, 0.0]), torch.tensor([1.0, 2.0]))",
     "D.Uniform(torch.tensor([-1.0, 0.5]), torch.tensor([2.0, 3.0]))"),
    ("D.Exponential(torch.tensor([0.5, 3.0]))", "D.Exponential(torch.tensor([1.0, 1.0]))"),
    ("D.Gamma(torch.tensor([0.5, 3.0]), torch.tensor([1.0, 2.0]))",
     "D.Gamma(torch.tensor([2.0, 1.0]), torch.tensor([0.5, 4.0]))"),
    ("D.Beta(torch.tensor([0.5, 3.0]), torch.tensor([1.0, 2.0]))",
     "D.Beta(torch.tensor([2.0, 1.0]), torch.tensor([0.5, 4.0]))"),
    ("D.Dirichlet(torch.tensor([[1.0, 2.0, 3.0]]))", "D.Dirichlet(torch.tensor([[0.5, 0.5, 4.0]]))"),
    ("D.Laplace(torch.tensor([0.0, 2.0]), torch.tensor([1.0, 0.5]))",
     "D.Laplace(torch.tensor([1.0, 2.0]), torch.tensor([2.0, 0.1]))"),
    ("D.Poisson(torch.tensor([1.0, 5.0]))", "D.Poisson(torch.tensor([2.0, 4.5]))"),
    ("D.MultivariateNormal(torch.tensor([0.0, 1.0]), covariance_matrix=torch.tensor([[2.0, 0.3], [0.3, 0.5]]))",
     "D.MultivariateNormal(torch.tensor([1.0, -1.0]), scale_tril=torch.tensor([[1.0, 0.0], [0.4, 0.9]]))"),
    ("D.Independent(D.Normal(torch.zeros(2, 3), torch.ones(2, 3)), 1)",
     "D.Independent(D.Normal(torch.ones(2, 3), torch.ones(2, 3) * 2), 1)"),
    ("D.Cauchy(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 2.0]))", "D.Cauchy(1.0, 0.5)"),
    ("D.HalfNormal(torch.tensor([1.0, 2.0]))", "D.HalfNormal(torch.tensor([0.5, 3.0]))"),
    ("D.LogNormal(torch.tensor([0.0, 1.0]), 0.5)", "D.LogNormal(torch.tensor([0.5, 0.0]), 2.0)"),
    ("D.Chi2(torch.tensor([2.0, 5.0]))", "D.Chi2(torch.tensor([3.0, 1.0]))"),
    ("D.Geometric(probs=torch.tensor([0.2, 0.7]))", "D.Geometric(probs=torch.tensor([0.5, 0.1]))"),
    ("D.Binomial(torch.tensor([5.0, 8.0]), probs=torch.tensor([0.2, 0.7]))",
     "D.Binomial(torch.tensor([5.0, 5.0]), probs=torch.tensor([0.5, 0.1]))"),
]


@pytest.mark.parametrize("p,q", KL)
def test_kl_divergence_matches_torch(p, q):
    check(_run(f"""
    return D.kl_divergence({p}, {q}), torch.distributions.kl.kl_divergence({q}, {p})
"""), rtol=2e-5, atol=1e-5)


@pytest.mark.parametrize("name", ["normal", "gamma", "beta", "dirichlet", "mvn_cov", "bernoulli_l",
                                  "categorical_l", "laplace", "poisson", "exponential", "cauchy",
                                  "lognormal", "studentt", "binomial", "geometric_p"])
def test_log_prob_gradients_match_torch(name):
    ctor, values = DISTS[name]
    # every float tensor built in the constructor requires grad
    ctor = ctor.replace("])", "], requires_grad=True)").replace("]]))", "]], requires_grad=True))")
    check(_run(f"""
    params = []
    orig = torch.tensor
    def tensor(*a, **k):
        t = orig(*a, **{{kk: vv for kk, vv in k.items() if kk != "requires_grad"}})
        if k.get("requires_grad") and t.is_floating_point():
            t.requires_grad_(True)
            params.append(t)
        return t
    torch.tensor = tensor
    try:
        d = {ctor}
        v = {values}
    finally:
        torch.tensor = orig
    d.log_prob(v).sum().backward()
    return [p.grad for p in params]
"""), rtol=2e-5, atol=1e-5)


def test_rsample_is_differentiable_like_torch():
    check(_run("""
    loc = torch.tensor([0.0, 1.0], requires_grad=True)
    scale = torch.tensor([1.0, 2.0], requires_grad=True)
    s = D.Normal(loc, scale).rsample((5,))
    s.sum().backward()
    low = torch.tensor([0.0], requires_grad=True)
    u = D.Uniform(low, 3.0).rsample((4,))
    u.sum().backward()
    return loc.grad, s.requires_grad, low.grad is not None, D.Normal(loc, scale).sample().requires_grad
"""))


# analytic (mean, variance) of each distribution's samples
MOMENT_CASES = {
    "normal": ("D.Normal(torch.tensor([0.0, 1.5]), torch.tensor([1.0, 0.5]))", None),
    "bernoulli": ("D.Bernoulli(probs=torch.tensor([0.2, 0.7]))", None),
    "uniform": ("D.Uniform(torch.tensor([0.0, -1.0]), torch.tensor([2.0, 3.0]))", None),
    "exponential": ("D.Exponential(torch.tensor([0.5, 2.0]))", None),
    "laplace": ("D.Laplace(torch.tensor([0.0, 1.0]), torch.tensor([1.0, 0.3]))", None),
    "gamma": ("D.Gamma(torch.tensor([0.5, 2.0, 7.5]), torch.tensor([1.0, 0.5, 3.0]))", None),
    "beta": ("D.Beta(torch.tensor([0.5, 2.0]), torch.tensor([3.0, 2.0]))", None),
    "dirichlet": ("D.Dirichlet(torch.tensor([1.0, 2.0, 0.5]))", None),
    "poisson": ("D.Poisson(torch.tensor([0.5, 4.0]))", None),
    "onehot": ("D.OneHotCategorical(probs=torch.tensor([0.2, 0.3, 0.5]))", None),
    "mvn": ("D.MultivariateNormal(torch.tensor([0.0, 1.0]), "
            "covariance_matrix=torch.tensor([[2.0, 0.3], [0.3, 0.5]]))", None),
    "categorical": ("D.Categorical(probs=torch.tensor([0.1, 0.6, 0.3]))",
                    (1.2, 0.36)),
    "halfnormal": ("D.HalfNormal(torch.tensor([1.0, 2.5]))", None),
    "lognormal": ("D.LogNormal(torch.tensor([0.0, 1.0]), torch.tensor([0.5, 0.25]))", None),
    "chi2": ("D.Chi2(torch.tensor([1.0, 4.0]))", None),
    "studentt": ("D.StudentT(torch.tensor([5.0, 9.0]), torch.tensor([0.0, 1.0]), 2.0)", None),
    "geometric": ("D.Geometric(probs=torch.tensor([0.2, 0.9]))", None),
    "binomial": ("D.Binomial(torch.tensor([5.0, 10.0]), probs=torch.tensor([0.3, 0.5]))", None),
    "multinomial": ("D.Multinomial(5, probs=torch.tensor([0.2, 0.3, 0.5]))", None),
}


@pytest.mark.parametrize("name", sorted(MOMENT_CASES))
def test_sample_moments(name):
    ctor, exact = MOMENT_CASES[name]
    mod = load(f"""
import torch
import torch.distributions as D
def f():
    torch.manual_seed(0)
    d = {ctor}
    s = d.sample((20000,))
    if isinstance(d, D.Categorical):
        return s.numpy(), None, None
    return s.numpy(), d.mean.numpy(), d.variance.numpy()
""", scoped=True)
    s, mean, var = mod.f()
    s = s.astype("float64")
    if exact is not None:
        mean, var = np.full(1, exact[0]), np.full(1, exact[1])
    n = s.shape[0]
    np.testing.assert_array_less(np.abs(s.mean(0) - mean), 5 * np.sqrt(var / n) + 1e-9)
    np.testing.assert_allclose(s.var(0), var, rtol=0.1, atol=1e-3)
    if name == "mvn":  # the covariance, not only the variances
        np.testing.assert_allclose(np.cov(s.T), [[2.0, 0.3], [0.3, 0.5]], atol=0.08)


@pytest.mark.parametrize("call", [
    "D.Normal(0.0, -1.0)", "D.Normal(torch.tensor([0.0]), torch.tensor([0.0]))",
    "D.Bernoulli(probs=torch.tensor([1.5]))", "D.Bernoulli(probs=0.5, logits=0.0)",
    "D.Bernoulli()", "D.Categorical(probs=torch.tensor([-0.5, 1.5]))",
    "D.Categorical(probs=torch.tensor(0.5))", "D.Uniform(1.0, 0.0)",
    "D.Exponential(torch.tensor([1.0])).log_prob(torch.tensor([-1.0]))",
    "D.Bernoulli(probs=torch.tensor([0.5])).log_prob(torch.tensor([0.5]))",
    "D.Categorical(probs=torch.tensor([0.5, 0.5])).log_prob(torch.tensor([2]))",
    "D.Beta(1.0, 1.0).log_prob(torch.tensor([1.5]))",
    "D.Dirichlet(torch.tensor([1.0, 1.0])).log_prob(torch.tensor([0.5, 0.6]))",
    "D.Poisson(torch.tensor([1.0])).log_prob(torch.tensor([1.5]))",
    "D.Poisson(torch.tensor([1.0])).entropy()",
    "D.Gamma(torch.tensor([1.0]), torch.tensor([-1.0]))",
    "D.MultivariateNormal(torch.zeros(2))",
    "D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.eye(2), scale_tril=torch.eye(2))",
    "D.MultivariateNormal(torch.zeros(2), covariance_matrix=torch.tensor([[1.0, 2.0], [2.0, 1.0]]))",
    "D.kl_divergence(D.Categorical(probs=torch.tensor([0.5, 0.5])), D.Normal(0.0, 1.0))",
    "D.Independent(D.Normal(torch.zeros(2), torch.ones(2)), 2)",
    "D.Normal(torch.zeros(3), 1.0).log_prob(torch.zeros(2))",
    "D.HalfNormal(1.0).log_prob(torch.tensor([-1.0]))", "D.Geometric(probs=torch.tensor([0.0]))",
    "D.Binomial(5, probs=torch.tensor([0.5])).log_prob(torch.tensor([6.0]))",
    "D.Binomial(torch.tensor([2.0, 3.0]), probs=torch.tensor([0.5, 0.5])).entropy()",
    "D.Multinomial(3, probs=torch.tensor([0.5, 0.5])).log_prob(torch.tensor([3.0, 1.0]))",
    "D.StudentT(torch.tensor([-1.0]))", "D.LogNormal(0.0, 1.0).log_prob(torch.tensor([-1.0]))",
    "D.kl_divergence(D.Binomial(2, probs=torch.tensor([0.5])), D.Binomial(3, probs=torch.tensor([0.5])))",
])
def test_validation_errors_like_torch(call):
    check(_run(f"    return {call}"))


def test_validate_args_false_and_register_kl():
    check(_run("""
    d = D.Normal(0.0, -1.0, validate_args=False)
    class MyNormal(D.Normal):
        pass
    @D.register_kl(MyNormal, D.Normal)
    def _kl(p, q):
        return torch.tensor(42.0)
    a = D.kl_divergence(MyNormal(0.0, 1.0), D.Normal(0.0, 1.0))
    b = D.kl_divergence(D.Normal(0.0, 1.0), MyNormal(1.0, 1.0))   # the parent's rule
    return float(d.scale), a, b, isinstance(MyNormal(0.0, 1.0), D.Distribution)
"""))


def test_categorical_extras_like_torch():
    check(_run("""
    d = D.Categorical(probs=torch.tensor([[0.2, 0.8], [0.6, 0.4]]))
    return d.probs, d.logits, d.mode, d.enumerate_support(), d.param_shape, d.mean
"""))


def test_import_forms():
    check("""
import torch
from torch.distributions import Normal, kl_divergence
from torch.distributions.kl import register_kl
from torch.distributions import constraints
def f():
    return (constraints.positive.check(torch.tensor([1.0, -1.0])),
            constraints.simplex.check(torch.tensor([0.5, 0.5])), Normal(0.0, 1.0).entropy())
""")
