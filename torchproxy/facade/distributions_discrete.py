"""``torch.distributions``: the discrete distributions (Bernoulli, Categorical,
OneHotCategorical, Poisson, Geometric, Binomial, Multinomial), with torch's probs/logits
parameterisations.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.distributions: Bernoulli Binomial Categorical Geometric Multinomial OneHotCategorical
        Poisson
""")

import math

import paddle
import paddle.nn.functional as PF

from .distributions import (_broadcast_all, _declare, _finfo_eps, _init_params, _rand, _reads,
                            _size, _xlogy, Distribution)
from .distributions_constraints import (_IntegerInterval, boolean, Constraint, nonnegative,
                                        nonnegative_integer, one_hot, real, real_vector, simplex,
                                        unit_interval)


def _probs_to_logits(probs, is_binary=False):
    eps = _finfo_eps(probs.dtype)
    p = probs.clip(min=eps, max=1 - eps)
    return paddle.log(p) - paddle.log1p(-p) if is_binary else paddle.log(p)


def _check_one_of(probs, logits):
    if (probs is None) == (logits is None):
        raise ValueError("Either `probs` or `logits` must be specified, but not both.")


class _BinaryProbs(Distribution):
    """A distribution of one success probability, given as ``probs`` or ``logits`` (Bernoulli,
    Geometric, Binomial): the other one is computed when read, as torch's lazy properties do."""

    def _keep_probs_or_logits(self, probs, logits):
        """Keep whichever of ``probs``/``logits`` is given, as a tensor; returns its shape."""
        _check_one_of(probs, logits)
        if probs is not None:
            (self.probs,) = _broadcast_all(probs)
            return self.probs.shape
        (self.logits,) = _broadcast_all(logits)
        return self.logits.shape

    def __getattr__(self, name):
        if name == "logits":
            return _probs_to_logits(self.__dict__["probs"], is_binary=True)
        if name == "probs" and "logits" in self.__dict__:
            return PF.sigmoid(self.__dict__["logits"])
        raise AttributeError(name)


class Bernoulli(_BinaryProbs):
    arg_constraints = {"probs": unit_interval, "logits": real}
    support = boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        shape = self._keep_probs_or_logits(probs, logits)
        super().__init__(shape, validate_args=validate_args)

    mean = _reads("probs")

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        p = paddle.broadcast_to(self.probs, list(shape))
        with paddle.no_grad():
            return (_rand(shape, p.dtype) < p).astype(p.dtype)

    def log_prob(self, value):
        self._maybe_validate(value)
        logits, value = _broadcast_all(self.logits, value)
        return -PF.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return PF.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


class Categorical(Distribution):
    arg_constraints = {"probs": simplex, "logits": real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        _check_one_of(probs, logits)
        if probs is not None:
            if probs.ndim < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
            param = self.probs
        else:
            if logits.ndim < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - paddle.logsumexp(logits, axis=-1, keepdim=True)
            param = self.logits
        self._num_events = param.shape[-1]
        super().__init__(param.shape[:-1], validate_args=validate_args)

    def __getattr__(self, name):
        if name == "logits":
            return _probs_to_logits(self.__dict__["probs"])
        if name == "probs" and "logits" in self.__dict__:
            return PF.softmax(self.__dict__["logits"], axis=-1)
        raise AttributeError(name)

    @property
    def support(self):
        return _IntegerInterval(0, self._num_events - 1)

    @property
    def param_shape(self):
        return _size((self.probs if "probs" in self.__dict__ else self.logits).shape)

    @property
    def mean(self):
        return paddle.full(list(self._extended_shape()), float("nan"), dtype=self.probs.dtype)

    @property
    def mode(self):
        return self.probs.argmax(axis=-1)

    @property
    def variance(self):
        return paddle.full(list(self._extended_shape()), float("nan"), dtype=self.probs.dtype)

    def sample(self, sample_shape=()):
        sample_shape = tuple(sample_shape)
        n = int(math.prod(sample_shape)) if sample_shape else 1
        probs_2d = self.probs.reshape([-1, self._num_events])
        from .random import multinomial  # torch's: multinomial(probs_2d, n, True).T
        with paddle.no_grad():
            s = multinomial(probs_2d, n, True).t()
        return s.reshape(list(self._extended_shape(sample_shape))).astype("int64")

    def log_prob(self, value):
        self._maybe_validate(value)
        value = value.astype("int64").unsqueeze(-1)
        logits = self.logits
        shape = paddle.broadcast_shape(value.shape, logits.shape)
        vshape = list(shape[:-1]) + [1]
        value = paddle.broadcast_to(value, vshape)
        log_pmf = paddle.broadcast_to(logits, shape)
        return paddle.take_along_axis(log_pmf, value, axis=-1).squeeze(-1)

    def entropy(self):
        min_real = float(paddle.finfo(self.logits.dtype).min)
        logits = self.logits.clip(min=min_real)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand=True):
        n = self._num_events
        values = paddle.arange(n, dtype="int64").reshape([-1] + [1] * len(self._batch_shape))
        if expand:
            values = paddle.broadcast_to(values, [n] + list(self._batch_shape))
        return values


class _OverCategorical(Distribution):
    """OneHotCategorical and Multinomial: their ``probs``/``logits`` are those of the Categorical
    they hold (``self._categorical``)."""
    arg_constraints = {"probs": simplex, "logits": real_vector}
    probs = _reads("_categorical.probs")
    logits = _reads("_categorical.logits")


class OneHotCategorical(_OverCategorical):
    support = one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        super().__init__(self._categorical.batch_shape, (self._categorical._num_events,),
                         validate_args=validate_args)

    # each category is a Bernoulli variable of its probability
    mean, variance = Bernoulli.mean, Bernoulli.variance

    def sample(self, sample_shape=()):
        idx = self._categorical.sample(sample_shape)
        return PF.one_hot(idx, self._categorical._num_events).astype(self.probs.dtype)

    def log_prob(self, value):
        self._maybe_validate(value)
        return self._categorical.log_prob(value.argmax(axis=-1))

    def entropy(self):
        return self._categorical.entropy()


class Poisson(Distribution):
    arg_constraints = {"rate": nonnegative}
    support = nonnegative_integer

    def __init__(self, rate, validate_args=None):
        _init_params(self, validate_args, rate=rate)

    mean = variance = _reads("rate")

    @property
    def mode(self):
        return self.rate.floor()

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with paddle.no_grad():
            r = paddle.broadcast_to(self.rate, shape)
            compute = r.astype("float32") if r.dtype in (paddle.float16, paddle.bfloat16) else r
            return paddle.poisson(compute).astype(r.dtype)

    def log_prob(self, value):
        self._maybe_validate(value)
        rate, value = _broadcast_all(self.rate, value)
        return _xlogy(value, rate) - rate - paddle.lgamma(value + 1)


class Geometric(_BinaryProbs):
    arg_constraints = {"probs": unit_interval, "logits": real}
    support = nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        shape = self._keep_probs_or_logits(probs, logits)
        super().__init__(shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool(paddle.all(self.probs > 0)):
            raise ValueError(f"Expected parameter probs (Tensor of shape {tuple(shape)}) of "
                             f"distribution {self!r} to satisfy the constraint "
                             f"HalfOpenInterval(lower_bound=0.0, upper_bound=1.0), but found "
                             f"invalid values:\n{self.probs}")

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return paddle.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = float(paddle.finfo(self.probs.dtype).tiny)
        with paddle.no_grad():
            u = _rand(shape, self.probs.dtype).clip(min=tiny)
            return (paddle.log(u) / paddle.log1p(-self.probs)).floor()

    def log_prob(self, value):
        self._maybe_validate(value)
        value, probs = _broadcast_all(value, self.probs)
        probs = paddle.where((probs == 1) & (value == 0), paddle.zeros_like(probs), probs)
        return value * paddle.log1p(-probs) + paddle.log(self.probs)

    def entropy(self):
        return PF.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                   reduction="none") / self.probs


def _clamp_by_zero(x):
    return (x.clip(min=0) + x - x.clip(max=0)) / 2


class Binomial(_BinaryProbs):
    arg_constraints = {"total_count": nonnegative_integer, "probs": unit_interval,
                       "logits": real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        _check_one_of(probs, logits)
        if probs is not None:
            self.total_count, self.probs = _broadcast_all(total_count, probs)
            self.total_count = self.total_count.astype(self.probs.dtype)
            shape = self.probs.shape
        else:
            self.total_count, self.logits = _broadcast_all(total_count, logits)
            self.total_count = self.total_count.astype(self.logits.dtype)
            shape = self.logits.shape
        super().__init__(shape, validate_args=validate_args)

    @property
    def support(self):
        return _IntegerInterval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return paddle.minimum(((self.total_count + 1) * self.probs).floor(), self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with paddle.no_grad():
            n = paddle.broadcast_to(self.total_count, shape)
            p = paddle.broadcast_to(self.probs, shape)
            n_max = int(n.max()) if n.size else 0
            if n_max == 0:
                return paddle.zeros(shape, dtype=p.dtype)
            # a sum of n Bernoulli draws (trials past an element's own count do not count)
            u = _rand(shape + [n_max], p.dtype)
            trials = paddle.arange(n_max, dtype=p.dtype)
            hits = (u < p.unsqueeze(-1)) & (trials < n.unsqueeze(-1))
            return hits.astype(p.dtype).sum(-1)

    def log_prob(self, value):
        self._maybe_validate(value)
        n, logits = self.total_count, self.logits
        log_factorial_n = paddle.lgamma(n + 1)
        log_factorial_k = paddle.lgamma(value + 1)
        log_factorial_nmk = paddle.lgamma(n - value + 1)
        normalize_term = (n * _clamp_by_zero(logits)
                          + n * paddle.log1p(paddle.exp(-logits.abs())) - log_factorial_n)
        return value * logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        total = int(self.total_count.max())
        if not int(self.total_count.min()) == total:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        lp = self.log_prob(self.enumerate_support(False))
        return -(paddle.exp(lp) * lp).sum(0)

    def enumerate_support(self, expand=True):
        total = int(self.total_count.max())
        if not int(self.total_count.min()) == total:
            raise NotImplementedError("Inhomogeneous total count not supported by "
                                      "`enumerate_support`.")
        values = paddle.arange(1 + total, dtype=self.probs.dtype)
        values = values.reshape([-1] + [1] * len(self._batch_shape))
        if expand:
            values = paddle.broadcast_to(values, [1 + total] + list(self._batch_shape))
        return values


class _MultinomialSupport(Constraint):
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return paddle.all(x >= 0, axis=-1) & (x.sum(-1) <= self.upper_bound)

    def __repr__(self):
        return f"Multinomial(upper_bound={self.upper_bound})"


class Multinomial(_OverCategorical):

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape,
                         self._categorical.param_shape[-1:], validate_args=validate_args)

    @property
    def support(self):
        return _MultinomialSupport(self.total_count)

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        k = self._categorical._num_events
        idx = self._categorical.sample((self.total_count,) + tuple(sample_shape))
        counts = PF.one_hot(idx, k).astype(self.probs.dtype).sum(0)
        return counts

    def log_prob(self, value):
        self._maybe_validate(value)
        logits, value = _broadcast_all(self.logits, value)
        log_factorial_n = paddle.lgamma(value.sum(-1) + 1)
        log_factorial_xs = paddle.lgamma(value + 1).sum(-1)
        logits = paddle.where((value == 0) & paddle.isinf(logits) & (logits < 0),
                              paddle.zeros_like(logits), logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers

    def entropy(self):
        n = float(self.total_count)
        term1 = n * self._categorical.entropy() - math.lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = paddle.exp(self._binomial.log_prob(support))
        weights = paddle.lgamma(support + 1)
        return term1 + (binomial_probs * weights).sum([0, -1])

_declare(Bernoulli, Categorical, OneHotCategorical, Poisson, Geometric, Binomial, Multinomial)
