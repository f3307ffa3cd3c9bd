"""``torch.distributions``: the univariate continuous distributions (Normal, Laplace, Cauchy on
one location-scale base; Uniform, Exponential, Gamma, Beta, HalfNormal, LogNormal, Chi2,
StudentT).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.distributions: Beta Cauchy Chi2 Exponential Gamma HalfNormal Laplace LogNormal Normal
        StudentT Uniform
""")

import math

import paddle

from ..errors import NotProvidedError
from .distributions import (_as_tensor, _broadcast_all, _declare, _finfo_eps, _init_params,
                            _LOG_SQRT_2PI, _NO_RSAMPLE, _rand, _randn, _reads, _standard_gamma,
                            _xlogy, Distribution)
from .distributions_constraints import _Interval, nonnegative, positive, real, unit_interval
from .distributions_multivariate import Dirichlet


class _LocScale(Distribution):
    """What torch's Normal, Laplace and Cauchy share: a real ``loc`` and a positive ``scale``
    broadcast together; the mode (and, but for Cauchy, the mean) is ``loc``."""
    arg_constraints = {"loc": real, "scale": positive}
    support = real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        _init_params(self, validate_args, loc=loc, scale=scale)

    mean = mode = _reads("loc")


class Normal(_LocScale):
    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.scale ** 2

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.loc + _randn(shape, self.loc.dtype) * self.scale

    def log_prob(self, value):
        self._maybe_validate(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - paddle.log(self.scale) - _LOG_SQRT_2PI

    def cdf(self, value):
        self._maybe_validate(value)
        return 0.5 * (1 + paddle.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return self.loc + self.scale * paddle.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + paddle.log(self.scale)


class Uniform(Distribution):
    has_rsample = True

    def __init__(self, low, high, validate_args=None):
        self.low, self.high = _broadcast_all(low, high)
        if validate_args is not False and (validate_args or Distribution._validate_args):
            if not bool(paddle.all(self.low < self.high)):
                raise ValueError(f"Expected parameter low (Tensor of shape "
                                 f"{tuple(self.low.shape)}) of distribution {self!r} to satisfy "
                                 f"the constraint LessThan(upper_bound=high), but found invalid "
                                 f"values:\n{self.low}")
        super().__init__(self.low.shape, validate_args=validate_args)

    arg_constraints = {}

    @property
    def support(self):
        return _Interval(self.low, self.high, half_open=True)

    @property
    def mean(self):
        return (self.high + self.low) / 2

    @property
    def stddev(self):
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self):
        return (self.high - self.low) ** 2 / 12

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.low + _rand(shape, self.low.dtype) * (self.high - self.low)

    def log_prob(self, value):
        self._maybe_validate(value)
        lb = (self.low <= value).astype(self.low.dtype)
        ub = (self.high > value).astype(self.low.dtype)
        return paddle.log(lb * ub) - paddle.log(self.high - self.low)

    def cdf(self, value):
        self._maybe_validate(value)
        return ((value - self.low) / (self.high - self.low)).clip(min=0, max=1)

    def icdf(self, value):
        return value * (self.high - self.low) + self.low

    def entropy(self):
        return paddle.log(self.high - self.low)


class Exponential(Distribution):
    arg_constraints = {"rate": positive}
    support = nonnegative
    has_rsample = True

    def __init__(self, rate, validate_args=None):
        _init_params(self, validate_args, rate=rate)

    @property
    def mean(self):
        return 1 / self.rate

    @property
    def mode(self):
        return paddle.zeros_like(self.rate)

    @property
    def stddev(self):
        return 1 / self.rate

    @property
    def variance(self):
        return self.rate ** -2

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _rand(shape, self.rate.dtype)
        return -paddle.log1p(-u) / self.rate

    def log_prob(self, value):
        self._maybe_validate(value)
        return paddle.log(self.rate) - self.rate * value

    def cdf(self, value):
        self._maybe_validate(value)
        return 1 - paddle.exp(-self.rate * value)

    def icdf(self, value):
        return -paddle.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - paddle.log(self.rate)


class Laplace(_LocScale):
    @property
    def variance(self):
        return 2 * self.scale ** 2

    @property
    def stddev(self):
        return 2 ** 0.5 * self.scale

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _finfo_eps(self.loc.dtype)
        u = _rand(shape, self.loc.dtype) * (2 - eps) + (eps - 1)  # uniform_(eps - 1, 1)
        return self.loc - self.scale * paddle.sign(u) * paddle.log1p(-u.abs())

    def log_prob(self, value):
        self._maybe_validate(value)
        return -paddle.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        self._maybe_validate(value)
        return 0.5 - 0.5 * paddle.sign(value - self.loc) * paddle.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * paddle.sign(term) * paddle.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + paddle.log(2 * self.scale)


class Gamma(Distribution):
    arg_constraints = {"concentration": positive, "rate": positive}
    support = nonnegative
    has_rsample = True

    def __init__(self, concentration, rate, validate_args=None):
        _init_params(self, validate_args, concentration=concentration, rate=rate)

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clip(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate ** 2

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with paddle.no_grad():
            a = paddle.broadcast_to(self.concentration.detach(), shape)
            r = paddle.broadcast_to(self.rate.detach(), shape)
            value = _standard_gamma(a) / r
            tiny = float(paddle.finfo(value.dtype).tiny)
            return value.clip(min=tiny)

    def rsample(self, sample_shape=()):
        raise NotProvidedError("torch.distributions.Gamma.rsample (no reparameterised gamma "
                               "sampler on Paddle; sample() works)")

    def log_prob(self, value):
        self._maybe_validate(value)
        value = _as_tensor(value, self.rate.dtype)
        return (_xlogy(self.concentration, self.rate) + _xlogy(self.concentration - 1, value)
                - self.rate * value - paddle.lgamma(self.concentration))

    def entropy(self):
        a = self.concentration
        return a - paddle.log(self.rate) + paddle.lgamma(a) + (1.0 - a) * paddle.digamma(a)


class Beta(Distribution):
    arg_constraints = {"concentration1": positive, "concentration0": positive}
    support = unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = _broadcast_all(concentration1, concentration0)
        self._dirichlet = Dirichlet(paddle.stack([self.concentration1, self.concentration0], -1),
                                    validate_args=validate_args)
        super().__init__(self._dirichlet.batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def variance(self):
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total ** 2 * (total + 1))

    def sample(self, sample_shape=()):
        return self._dirichlet.sample(sample_shape)[..., 0]

    def rsample(self, sample_shape=()):
        raise NotProvidedError("torch.distributions.Beta.rsample (no reparameterised gamma "
                               "sampler on Paddle; sample() works)")

    def log_prob(self, value):
        self._maybe_validate(value)
        heads_tails = paddle.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()


# -- more continuous distributions (Cauchy, HalfNormal, LogNormal, Chi2, StudentT) -----------
class Cauchy(_LocScale):
    @property
    def mean(self):
        return paddle.full(list(self._extended_shape()), float("nan"), dtype=self.loc.dtype)

    @property
    def variance(self):
        return paddle.full(list(self._extended_shape()), float("inf"), dtype=self.loc.dtype)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _rand(shape, self.loc.dtype)
        return self.loc + self.scale * paddle.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        self._maybe_validate(value)
        return (-math.log(math.pi) - paddle.log(self.scale)
                - paddle.log1p(((value - self.loc) / self.scale) ** 2))

    def cdf(self, value):
        self._maybe_validate(value)
        return paddle.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return paddle.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + paddle.log(self.scale)


class HalfNormal(Distribution):
    arg_constraints = {"scale": positive}
    support = nonnegative
    has_rsample = True

    def __init__(self, scale, validate_args=None):
        (self.scale,) = _broadcast_all(scale)
        self.base_dist = Normal(paddle.zeros_like(self.scale), self.scale,
                                validate_args=validate_args)
        super().__init__(self.scale.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.scale * math.sqrt(2 / math.pi)

    @property
    def mode(self):
        return paddle.zeros_like(self.scale)

    @property
    def variance(self):
        return self.scale ** 2 * (1 - 2 / math.pi)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape).abs()

    def log_prob(self, value):
        self._maybe_validate(value)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return paddle.where(value >= 0, lp, paddle.full_like(lp, -float("inf")))

    def cdf(self, value):
        self._maybe_validate(value)
        return 2 * self.base_dist.cdf(value) - 1

    def icdf(self, prob):
        return self.base_dist.icdf((prob + 1) / 2)

    def entropy(self):
        return self.base_dist.entropy() - math.log(2)


class LogNormal(Distribution):
    arg_constraints = {"loc": real, "scale": positive}
    support = positive
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.base_dist = Normal(loc, scale, validate_args=validate_args)
        self.loc, self.scale = self.base_dist.loc, self.base_dist.scale
        super().__init__(self.base_dist.batch_shape, validate_args=validate_args)

    @property
    def mean(self):
        return paddle.exp(self.loc + self.scale ** 2 / 2)

    @property
    def mode(self):
        return paddle.exp(self.loc - self.scale ** 2)

    @property
    def variance(self):
        s2 = self.scale ** 2
        return paddle.expm1(s2) * paddle.exp(2 * self.loc + s2)

    def rsample(self, sample_shape=()):
        return paddle.exp(self.base_dist.rsample(sample_shape))

    def log_prob(self, value):
        self._maybe_validate(value)
        x = paddle.log(value)
        return self.base_dist.log_prob(x) - x

    def cdf(self, value):
        return self.base_dist.cdf(paddle.log(value))

    def icdf(self, value):
        return paddle.exp(self.base_dist.icdf(value))

    def entropy(self):
        return self.base_dist.entropy() + self.loc


class Chi2(Gamma):
    arg_constraints = {"df": positive}

    def __init__(self, df, validate_args=None):
        (df,) = _broadcast_all(df)
        self.df = df
        super().__init__(0.5 * df, paddle.full_like(df, 0.5), validate_args=validate_args)


class StudentT(Distribution):
    arg_constraints = {"df": positive, "loc": real, "scale": positive}
    support = real
    has_rsample = True

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        _init_params(self, validate_args, df=df, loc=loc, scale=scale)

    @property
    def mean(self):
        m = self.loc.clone()
        return paddle.where(self.df <= 1, paddle.full_like(m, float("nan")), m)

    mode = _reads("loc")

    @property
    def variance(self):
        df = self.df
        v = self.scale ** 2 * df / (df - 2)
        v = paddle.where(df <= 2, paddle.full_like(v, float("inf")), v)
        return paddle.where(df <= 1, paddle.full_like(v, float("nan")), v)

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with paddle.no_grad():
            x = _randn(shape, self.df.dtype)
            df = paddle.broadcast_to(self.df, shape)
            z = 2 * _standard_gamma(0.5 * df)          # Chi2(df)
            return self.loc + self.scale * x * paddle.rsqrt(z / df)

    def rsample(self, sample_shape=()):
        raise NotProvidedError("torch.distributions.StudentT.rsample (it needs a "
                               "reparameterised gamma sampler; sample() works)")

    def log_prob(self, value):
        self._maybe_validate(value)
        y = (value - self.loc) / self.scale
        Z = (paddle.log(self.scale) + 0.5 * paddle.log(self.df) + 0.5 * math.log(math.pi)
             + paddle.lgamma(0.5 * self.df) - paddle.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * paddle.log1p(y ** 2.0 / self.df) - Z

    def entropy(self):
        df = self.df
        lbeta = (paddle.lgamma(0.5 * df) + math.lgamma(0.5) - paddle.lgamma(0.5 * (df + 1)))
        return (paddle.log(self.scale) + 0.5 * (df + 1)
                * (paddle.digamma(0.5 * (df + 1)) - paddle.digamma(0.5 * df))
                + 0.5 * paddle.log(df) + lbeta)

_declare(Normal, Uniform, Exponential, Laplace, Cauchy, HalfNormal, LogNormal)
_declare(Gamma, Beta, Chi2, StudentT, note=_NO_RSAMPLE)
