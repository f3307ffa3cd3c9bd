"""``torch.distributions`` on Paddle tensors: the common distributions with torch's
parameterisations, shapes (``batch_shape``/``event_shape``, ``sample(sample_shape)``), argument
and support validation (``validate_args``, on by default as in torch), ``log_prob``,
``entropy``, ``cdf``/``icdf`` where torch has them, moments, and ``kl_divergence`` with
``register_kl``.

Log-probabilities, entropies, moments and KL divergences use torch's formulas (the same
expressions, so the values agree to float rounding).  Samples come from Paddle's generators
(facade/random.py): the right distribution, not torch's numbers for a seed.  ``rsample`` is
reparameterised (differentiable in the parameters) for Normal, Uniform, Exponential, Laplace
and MultivariateNormal; Gamma, Beta and Dirichlet sample by Marsaglia-Tsang rejection, which
has no reparameterised gradient here: their ``rsample`` raises (gaps.toml).
"""
from __future__ import annotations

import math
import numbers

import paddle
import paddle.nn.functional as PF

from ..errors import NotProvidedError
from .registry import adapter, module, type_, value

NAMES = (
    "torch.distributions", "torch.distributions.Distribution", "torch.distributions.Normal",
    "torch.distributions.Bernoulli", "torch.distributions.Categorical",
    "torch.distributions.Uniform", "torch.distributions.Beta", "torch.distributions.Gamma",
    "torch.distributions.Dirichlet", "torch.distributions.MultivariateNormal",
    "torch.distributions.Exponential", "torch.distributions.Laplace",
    "torch.distributions.Poisson", "torch.distributions.OneHotCategorical",
    "torch.distributions.Independent", "torch.distributions.kl_divergence",
    "torch.distributions.register_kl", "torch.distributions.kl",
    "torch.distributions.kl.kl_divergence", "torch.distributions.kl.register_kl",
    "torch.distributions.constraints", "torch.distributions.constraints.real",
    "torch.distributions.constraints.positive", "torch.distributions.constraints.unit_interval",
    "torch.distributions.constraints.simplex", "torch.distributions.constraints.boolean",
    "torch.distributions.constraints.nonnegative_integer",
    "torch.distributions.constraints.real_vector",
    "torch.distributions.constraints.positive_definite",
    "torch.distributions.constraints.lower_cholesky",
    "torch.distributions.constraints.Constraint",
    "torch.distributions.distribution", "torch.distributions.distribution.Distribution",
    "torch.distributions.Cauchy", "torch.distributions.HalfNormal", "torch.distributions.LogNormal",
    "torch.distributions.Chi2", "torch.distributions.StudentT", "torch.distributions.Geometric",
    "torch.distributions.Binomial", "torch.distributions.Multinomial",
)

module("torch.distributions")
module("torch.distributions.kl")
module("torch.distributions.constraints")
module("torch.distributions.distribution")

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))


def _size(shape):
    from .core import Size
    return Size(int(d) for d in shape)


def _default_float():
    return paddle.get_default_dtype()


def _as_tensor(x, dtype):
    if isinstance(x, paddle.Tensor):
        return x
    return paddle.to_tensor(x, dtype=dtype)


def _broadcast_all(*values):
    """torch.distributions.utils.broadcast_all: numbers become tensors of the tensors' dtype
    (the default dtype when there is none); everything is broadcast to one shape."""
    for v in values:
        if not isinstance(v, (paddle.Tensor, numbers.Number)):
            raise ValueError("Input arguments must all be instances of numbers.Number, "
                             "torch.Tensor or objects implementing __torch_function__.")
    dtype = next((v.dtype for v in values if isinstance(v, paddle.Tensor)), None) or \
        _default_float()
    ts = [_as_tensor(v, dtype) for v in values]
    shape = ts[0].shape
    for t in ts[1:]:
        shape = paddle.broadcast_shape(shape, t.shape)
    return [t if list(t.shape) == list(shape) else paddle.broadcast_to(t, shape) for t in ts]


def _xlogy(x, y):
    """torch.xlogy: 0 where x == 0 and y == 0; elsewhere x * log(y) (its gradient in x is
    log(y), at x == 0 too, as torch's)."""
    safe = paddle.where((x == 0) & (y == 0), paddle.ones_like(y), y)
    return x * paddle.log(safe)


def _sum_rightmost(x, n):
    if n <= 0:
        return x
    return x.reshape(list(x.shape[:-n]) + [-1]).sum(-1) if x.ndim >= n else x


def _finfo_eps(dtype):
    return float(paddle.finfo(dtype).eps)


def _rand(shape, dtype):
    compute = "float64" if dtype == paddle.float64 else "float32"
    return paddle.rand(list(shape), dtype=compute).astype(dtype)


def _randn(shape, dtype):
    compute = "float64" if dtype == paddle.float64 else "float32"
    return paddle.randn(list(shape), dtype=compute).astype(dtype)


def _standard_gamma(alpha):
    """Gamma(alpha, 1) samples: Marsaglia-Tsang (alpha < 1 boosted by U^(1/alpha))."""
    a = alpha.astype("float64")
    boost = paddle.where(a < 1, paddle.ones_like(a), paddle.zeros_like(a))
    a1 = paddle.where(a < 1, a + 1, a)
    d = a1 - 1.0 / 3
    c = 1.0 / paddle.sqrt(9 * d)
    out = paddle.zeros_like(a)
    done = paddle.zeros(a.shape, dtype="bool")
    for _ in range(64):
        z = paddle.randn(a.shape, dtype="float64")
        v = (1 + c * z) ** 3
        u = paddle.rand(a.shape, dtype="float64")
        ok = (v > 0) & (paddle.log(u.clip(min=1e-300)) <
                        0.5 * z * z + d - d * v + d * paddle.log(v.clip(min=1e-300)))
        new = ok & ~done
        out = paddle.where(new, d * v, out)
        done = done | ok
        if bool(done.all()):
            break
    u = paddle.rand(a.shape, dtype="float64")
    out = paddle.where(boost > 0, out * u ** (1.0 / a), out)
    tiny = float(paddle.finfo(alpha.dtype).tiny)
    return out.astype(alpha.dtype).clip(min=tiny)


# -- constraints -------------------------------------------------------------------------------
class Constraint:
    is_discrete = False
    event_dim = 0

    def check(self, value):
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + "()"


class _Real(Constraint):
    def check(self, value):
        return value == value


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound

    def check(self, value):
        return value > self.lower_bound

    def __repr__(self):
        return f"GreaterThan(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return value >= self.lower_bound

    def __repr__(self):
        return f"GreaterThanEq(lower_bound={self.lower_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound, half_open=False):
        self.lower_bound, self.upper_bound, self.half_open = lower_bound, upper_bound, half_open

    def check(self, value):
        upper = value < self.upper_bound if self.half_open else value <= self.upper_bound
        return (value >= self.lower_bound) & upper

    def __repr__(self):
        name = "HalfOpenInterval" if self.half_open else "Interval"
        return f"{name}(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _NonnegativeInteger(Constraint):
    is_discrete = True

    def check(self, value):
        return (value % 1 == 0) & (value >= 0)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound, self.upper_bound = lower_bound, upper_bound

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound) & (value <= self.upper_bound)

    def __repr__(self):
        return f"IntegerInterval(lower_bound={self.lower_bound}, upper_bound={self.upper_bound})"


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return paddle.all(value >= 0, axis=-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = paddle.all((value == 0) | (value == 1), axis=-1)
        return is_boolean & (value.sum(-1) == 1)


class _RealVector(Constraint):
    event_dim = 1

    def check(self, value):
        return paddle.all(value == value, axis=-1)


class _PositiveDefinite(Constraint):
    event_dim = 2

    def check(self, value):
        sym = paddle.all(paddle.all((value - value.transpose(_swap_last(value.ndim))).abs() < 1e-6,
                                    axis=-1), axis=-1)
        eig = paddle.linalg.eigvalsh(value)
        return sym & paddle.all(eig > 0, axis=-1)


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        lower = paddle.all(paddle.all(paddle.triu(value, 1) == 0, axis=-1), axis=-1)
        diag = paddle.diagonal(value, axis1=-2, axis2=-1)
        return lower & paddle.all(diag > 0, axis=-1)


def _swap_last(ndim):
    perm = list(range(ndim))
    perm[-1], perm[-2] = perm[-2], perm[-1]
    return perm


real = _Real()
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
unit_interval = _Interval(0.0, 1.0)
boolean = _Boolean()
nonnegative_integer = _NonnegativeInteger()
simplex = _Simplex()
one_hot = _OneHot()
real_vector = _RealVector()
positive_definite = _PositiveDefinite()
lower_cholesky = _LowerCholesky()

C = "torch.distributions.constraints."
for _n, _c in (("real", real), ("positive", positive), ("unit_interval", unit_interval),
               ("simplex", simplex), ("boolean", boolean),
               ("nonnegative_integer", nonnegative_integer), ("real_vector", real_vector),
               ("positive_definite", positive_definite), ("lower_cholesky", lower_cholesky)):
    value(C + _n, _c)
type_(C + "Constraint", Constraint)


# -- base class --------------------------------------------------------------------------------
class Distribution:
    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__
    arg_constraints: dict = {}
    support = None

    @staticmethod
    def set_default_validate_args(value):
        if value not in (True, False):
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            for param, constraint in self.arg_constraints.items():
                if param not in self.__dict__:
                    continue  # not given (torch checks only the given parameterisation)
                val = self.__dict__[param]
                valid = constraint.check(val)
                if not bool(paddle.all(valid)):
                    raise ValueError(
                        f"Expected parameter {param} (Tensor of shape {tuple(val.shape)}) of "
                        f"distribution {self!r} to satisfy the constraint {constraint!r}, but "
                        f"found invalid values:\n{val}")

    @property
    def batch_shape(self):
        return self._batch_shape

    @property
    def event_shape(self):
        return self._event_shape

    @property
    def mean(self):
        raise NotImplementedError

    @property
    def mode(self):
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        raise NotImplementedError

    @property
    def stddev(self):
        return paddle.sqrt(self.variance)

    def _extended_shape(self, sample_shape=()):
        return _size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def sample(self, sample_shape=()):
        with paddle.no_grad():
            return self.rsample(sample_shape).detach()

    def rsample(self, sample_shape=()):
        raise NotImplementedError

    def sample_n(self, n):
        return self.sample((n,))

    def log_prob(self, value):
        raise NotImplementedError

    def cdf(self, value):
        raise NotImplementedError

    def icdf(self, value):
        raise NotImplementedError

    def entropy(self):
        raise NotImplementedError

    def perplexity(self):
        return paddle.exp(self.entropy())

    def _validate_sample(self, value):
        if not isinstance(value, paddle.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = len(value.shape) - len(self._event_shape)
        if list(value.shape[event_dim_start:]) != list(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{tuple(value.shape)} vs {tuple(self._event_shape)}.")
        actual = list(value.shape)
        expected = list(self._batch_shape) + list(self._event_shape)
        for i, j in zip(reversed(actual), reversed(expected)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{tuple(actual)} vs {tuple(expected)}.")
        support = self.support
        if support is None:
            return
        valid = support.check(value)
        if not bool(paddle.all(valid)):
            raise ValueError(f"Expected value argument (Tensor of shape {tuple(value.shape)}) to "
                             f"be within the support ({support!r}) of the distribution "
                             f"{self!r}, but found invalid values:\n{value}")

    def __repr__(self):
        names = [k for k in self.arg_constraints if k in self.__dict__]
        args = ", ".join(f"{p}: {self.__dict__[p] if self.__dict__[p].size == 1 else tuple(self.__dict__[p].shape)}"
                         for p in names)
        return self.__class__.__name__ + "(" + args + ")"


class Normal(Distribution):
    arg_constraints = {"loc": real, "scale": positive}
    support = real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

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
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        return -((value - self.loc) ** 2) / (2 * var) - paddle.log(self.scale) - _LOG_SQRT_2PI

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + paddle.erf((value - self.loc) / (self.scale * math.sqrt(2))))

    def icdf(self, value):
        return self.loc + self.scale * paddle.erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + paddle.log(self.scale)


def _probs_to_logits(probs, is_binary=False):
    eps = _finfo_eps(probs.dtype)
    p = probs.clip(min=eps, max=1 - eps)
    return paddle.log(p) - paddle.log1p(-p) if is_binary else paddle.log(p)


class Bernoulli(Distribution):
    arg_constraints = {"probs": unit_interval, "logits": real}
    support = boolean
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = _broadcast_all(probs)
            shape = self.probs.shape
        else:
            (self.logits,) = _broadcast_all(logits)
            shape = self.logits.shape
        super().__init__(shape, validate_args=validate_args)

    def __getattr__(self, name):
        if name == "logits":
            return _probs_to_logits(self.__dict__["probs"], is_binary=True)
        if name == "probs" and "logits" in self.__dict__:
            return PF.sigmoid(self.__dict__["logits"])
        raise AttributeError(name)

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        p = paddle.broadcast_to(self.probs, list(shape))
        with paddle.no_grad():
            return (_rand(shape, p.dtype) < p).astype(p.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = _broadcast_all(self.logits, value)
        return -PF.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return PF.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")


class Categorical(Distribution):
    arg_constraints = {"probs": simplex, "logits": real_vector}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
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
        with paddle.no_grad():
            s = paddle.multinomial(probs_2d.astype("float32") if probs_2d.dtype in (
                paddle.float16, paddle.bfloat16) else probs_2d, n, True).t()
        return s.reshape(list(self._extended_shape(sample_shape))).astype("int64")

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
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


class OneHotCategorical(Distribution):
    arg_constraints = {"probs": simplex, "logits": real_vector}
    support = one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits, validate_args=validate_args)
        super().__init__(self._categorical.batch_shape, (self._categorical._num_events,),
                         validate_args=validate_args)

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def mean(self):
        return self.probs

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        idx = self._categorical.sample(sample_shape)
        return PF.one_hot(idx, self._categorical._num_events).astype(self.probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.argmax(axis=-1))

    def entropy(self):
        return self._categorical.entropy()


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
        if self._validate_args:
            self._validate_sample(value)
        lb = (self.low <= value).astype(self.low.dtype)
        ub = (self.high > value).astype(self.low.dtype)
        return paddle.log(lb * ub) - paddle.log(self.high - self.low)

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
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
        (self.rate,) = _broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

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
        if self._validate_args:
            self._validate_sample(value)
        return paddle.log(self.rate) - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - paddle.exp(-self.rate * value)

    def icdf(self, value):
        return -paddle.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - paddle.log(self.rate)


class Laplace(Distribution):
    arg_constraints = {"loc": real, "scale": positive}
    support = real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

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
        if self._validate_args:
            self._validate_sample(value)
        return -paddle.log(2 * self.scale) - (value - self.loc).abs() / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
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
        self.concentration, self.rate = _broadcast_all(concentration, rate)
        super().__init__(self.concentration.shape, validate_args=validate_args)

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
        if self._validate_args:
            self._validate_sample(value)
        value = _as_tensor(value, self.rate.dtype)
        return (_xlogy(self.concentration, self.rate) + _xlogy(self.concentration - 1, value)
                - self.rate * value - paddle.lgamma(self.concentration))

    def entropy(self):
        a = self.concentration
        return a - paddle.log(self.rate) + paddle.lgamma(a) + (1.0 - a) * paddle.digamma(a)


class Dirichlet(Distribution):
    arg_constraints = {"concentration": _GreaterThan(0.0)}
    support = simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.ndim < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:],
                         validate_args=validate_args)

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, keepdim=True)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, keepdim=True)
        return self.concentration * (con0 - self.concentration) / (con0 ** 2 * (con0 + 1))

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with paddle.no_grad():
            g = _standard_gamma(paddle.broadcast_to(self.concentration.detach(), shape))
            return g / g.sum(-1, keepdim=True)

    def rsample(self, sample_shape=()):
        raise NotProvidedError("torch.distributions.Dirichlet.rsample (no reparameterised gamma "
                               "sampler on Paddle; sample() works)")

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return (_xlogy(c - 1.0, value).sum(-1) + paddle.lgamma(c.sum(-1))
                - paddle.lgamma(c).sum(-1))

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        return (paddle.lgamma(c).sum(-1) - paddle.lgamma(a0) - (k - a0) * paddle.digamma(a0)
                - ((c - 1.0) * paddle.digamma(c)).sum(-1))


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
        if self._validate_args:
            self._validate_sample(value)
        heads_tails = paddle.stack([value, 1.0 - value], -1)
        return self._dirichlet.log_prob(heads_tails)

    def entropy(self):
        return self._dirichlet.entropy()


class Poisson(Distribution):
    arg_constraints = {"rate": nonnegative}
    support = nonnegative_integer

    def __init__(self, rate, validate_args=None):
        (self.rate,) = _broadcast_all(rate)
        super().__init__(self.rate.shape, validate_args=validate_args)

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def sample(self, sample_shape=()):
        shape = list(self._extended_shape(sample_shape))
        with paddle.no_grad():
            r = paddle.broadcast_to(self.rate, shape)
            compute = r.astype("float32") if r.dtype in (paddle.float16, paddle.bfloat16) else r
            return paddle.poisson(compute).astype(r.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = _broadcast_all(self.rate, value)
        return _xlogy(value, rate) - rate - paddle.lgamma(value + 1)


class MultivariateNormal(Distribution):
    arg_constraints = {"loc": real_vector, "covariance_matrix": positive_definite,
                       "precision_matrix": positive_definite, "scale_tril": lower_cholesky}
    support = real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.ndim < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) + \
                (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        given = scale_tril if scale_tril is not None else covariance_matrix \
            if covariance_matrix is not None else precision_matrix
        if given.ndim < 2:
            raise ValueError("scale_tril matrix must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        batch_shape = paddle.broadcast_shape(given.shape[:-2], loc.shape[:-1])
        n = loc.shape[-1]
        self.loc = paddle.broadcast_to(loc, list(batch_shape) + [n])
        if scale_tril is not None:
            self.scale_tril = paddle.broadcast_to(scale_tril, list(batch_shape) + [n, n])
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self.covariance_matrix = paddle.broadcast_to(covariance_matrix,
                                                         list(batch_shape) + [n, n])
            self._unbroadcasted_scale_tril = paddle.linalg.cholesky(covariance_matrix)
        else:
            self.precision_matrix = paddle.broadcast_to(precision_matrix,
                                                        list(batch_shape) + [n, n])
            self._unbroadcasted_scale_tril = paddle.linalg.cholesky(
                paddle.linalg.inv(precision_matrix))
        super().__init__(batch_shape, [n], validate_args=validate_args)

    def __getattr__(self, name):
        L = self.__dict__.get("_unbroadcasted_scale_tril")
        if L is None:
            raise AttributeError(name)
        shape = list(self._batch_shape) + list(self._event_shape) * 2
        if name == "scale_tril":
            return paddle.broadcast_to(L, shape)
        if name == "covariance_matrix":
            return paddle.broadcast_to(paddle.matmul(L, L, transpose_y=True), shape)
        if name == "precision_matrix":
            return paddle.broadcast_to(paddle.linalg.inv(paddle.matmul(L, L, transpose_y=True)),
                                       shape)
        raise AttributeError(name)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        L = self._unbroadcasted_scale_tril
        return paddle.broadcast_to((L ** 2).sum(-1), list(self._batch_shape) +
                                   list(self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _randn(shape, self.loc.dtype)
        return self.loc + paddle.matmul(self._unbroadcasted_scale_tril,
                                        eps.unsqueeze(-1)).squeeze(-1)

    def _mahalanobis(self, L, diff):
        n = diff.shape[-1]
        shape = paddle.broadcast_shape(L.shape[:-2], diff.shape[:-1])
        Lb = paddle.broadcast_to(L, list(shape) + [n, n])
        db = paddle.broadcast_to(diff, list(shape) + [n]).unsqueeze(-1)
        sol = paddle.linalg.triangular_solve(Lb, db, upper=False).squeeze(-1)
        return (sol ** 2).sum(-1)

    def _half_log_det(self):
        return paddle.log(paddle.diagonal(self._unbroadcasted_scale_tril, axis1=-2,
                                          axis2=-1)).sum(-1)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = self._mahalanobis(self._unbroadcasted_scale_tril, diff)
        n = self._event_shape[0]
        return -0.5 * (n * math.log(2 * math.pi) + M) - self._half_log_det()

    def entropy(self):
        n = self._event_shape[0]
        H = 0.5 * n * (1.0 + math.log(2 * math.pi)) + self._half_log_det()
        return paddle.broadcast_to(H, list(self._batch_shape)) if len(self._batch_shape) else H


class Independent(Distribution):
    arg_constraints = {}

    def __init__(self, base_distribution, reinterpreted_batch_ndims, validate_args=None):
        n = reinterpreted_batch_ndims
        if n > len(base_distribution.batch_shape):
            raise ValueError("Expected reinterpreted_batch_ndims <= len(base_distribution."
                             f"batch_shape), actual {n} vs {len(base_distribution.batch_shape)}")
        shape = tuple(base_distribution.batch_shape) + tuple(base_distribution.event_shape)
        event_dim = n + len(base_distribution.event_shape)
        self.base_dist = base_distribution
        self.reinterpreted_batch_ndims = n
        super().__init__(shape[:len(shape) - event_dim], shape[len(shape) - event_dim:],
                         validate_args=validate_args)

    @property
    def has_rsample(self):
        return self.base_dist.has_rsample

    @property
    def support(self):
        return None

    @property
    def mean(self):
        return self.base_dist.mean

    @property
    def variance(self):
        return self.base_dist.variance

    def sample(self, sample_shape=()):
        return self.base_dist.sample(sample_shape)

    def rsample(self, sample_shape=()):
        return self.base_dist.rsample(sample_shape)

    def log_prob(self, value):
        return _sum_rightmost(self.base_dist.log_prob(value), self.reinterpreted_batch_ndims)

    def entropy(self):
        return _sum_rightmost(self.base_dist.entropy(), self.reinterpreted_batch_ndims)

    def __repr__(self):
        return f"Independent({self.base_dist!r}, {self.reinterpreted_batch_ndims})"


# -- more distributions (Cauchy, HalfNormal, LogNormal, Chi2, StudentT, Geometric, Binomial,
#    Multinomial) --------------------------------------------------------------------------------
class Cauchy(Distribution):
    arg_constraints = {"loc": real, "scale": positive}
    support = real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = _broadcast_all(loc, scale)
        super().__init__(self.loc.shape, validate_args=validate_args)

    @property
    def mean(self):
        return paddle.full(list(self._extended_shape()), float("nan"), dtype=self.loc.dtype)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return paddle.full(list(self._extended_shape()), float("inf"), dtype=self.loc.dtype)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = _rand(shape, self.loc.dtype)
        return self.loc + self.scale * paddle.tan(math.pi * (u - 0.5))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - paddle.log(self.scale)
                - paddle.log1p(((value - self.loc) / self.scale) ** 2))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
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
        if self._validate_args:
            self._validate_sample(value)
        lp = self.base_dist.log_prob(value) + math.log(2)
        return paddle.where(value >= 0, lp, paddle.full_like(lp, -float("inf")))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
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
        if self._validate_args:
            self._validate_sample(value)
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
        self.df, self.loc, self.scale = _broadcast_all(df, loc, scale)
        super().__init__(self.df.shape, validate_args=validate_args)

    @property
    def mean(self):
        m = self.loc.clone()
        return paddle.where(self.df <= 1, paddle.full_like(m, float("nan")), m)

    @property
    def mode(self):
        return self.loc

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
        if self._validate_args:
            self._validate_sample(value)
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


class Geometric(Distribution):
    arg_constraints = {"probs": unit_interval, "logits": real}
    support = nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            (self.probs,) = _broadcast_all(probs)
            shape = self.probs.shape
        else:
            (self.logits,) = _broadcast_all(logits)
            shape = self.logits.shape
        super().__init__(shape, validate_args=validate_args)
        if self._validate_args and probs is not None and not bool(paddle.all(self.probs > 0)):
            raise ValueError(f"Expected parameter probs (Tensor of shape {tuple(shape)}) of "
                             f"distribution {self!r} to satisfy the constraint "
                             f"HalfOpenInterval(lower_bound=0.0, upper_bound=1.0), but found "
                             f"invalid values:\n{self.probs}")

    def __getattr__(self, name):
        if name == "logits":
            return _probs_to_logits(self.__dict__["probs"], is_binary=True)
        if name == "probs" and "logits" in self.__dict__:
            return PF.sigmoid(self.__dict__["logits"])
        raise AttributeError(name)

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
        if self._validate_args:
            self._validate_sample(value)
        value, probs = _broadcast_all(value, self.probs)
        probs = paddle.where((probs == 1) & (value == 0), paddle.zeros_like(probs), probs)
        return value * paddle.log1p(-probs) + paddle.log(self.probs)

    def entropy(self):
        return PF.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                   reduction="none") / self.probs


def _clamp_by_zero(x):
    return (x.clip(min=0) + x - x.clip(max=0)) / 2


class Binomial(Distribution):
    arg_constraints = {"total_count": nonnegative_integer, "probs": unit_interval,
                       "logits": real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            self.total_count, self.probs = _broadcast_all(total_count, probs)
            self.total_count = self.total_count.astype(self.probs.dtype)
            shape = self.probs.shape
        else:
            self.total_count, self.logits = _broadcast_all(total_count, logits)
            self.total_count = self.total_count.astype(self.logits.dtype)
            shape = self.logits.shape
        super().__init__(shape, validate_args=validate_args)

    def __getattr__(self, name):
        if name == "logits":
            return _probs_to_logits(self.__dict__["probs"], is_binary=True)
        if name == "probs" and "logits" in self.__dict__:
            return PF.sigmoid(self.__dict__["logits"])
        raise AttributeError(name)

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
        if self._validate_args:
            self._validate_sample(value)
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


class Multinomial(Distribution):
    arg_constraints = {"probs": simplex, "logits": real_vector}

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
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

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
        if self._validate_args:
            self._validate_sample(value)
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


D = "torch.distributions."
for _cls in (Distribution, Normal, Bernoulli, Categorical, Uniform, Beta, Gamma, Dirichlet,
             MultivariateNormal, Exponential, Laplace, Poisson, OneHotCategorical, Independent):
    type_(D + _cls.__name__, _cls,
          note="rsample raises: no reparameterised gamma sampler" if _cls in (Gamma, Beta,
                                                                               Dirichlet) else
          "samples from Paddle's generators" if _cls is not Distribution else "")
type_(D + "distribution.Distribution", Distribution)
for _cls in (Cauchy, HalfNormal, LogNormal, Chi2, StudentT, Geometric, Binomial, Multinomial):
    type_(D + _cls.__name__, _cls,
          note="rsample raises: no reparameterised gamma sampler" if _cls in (Chi2, StudentT)
          else "samples from Paddle's generators")
for _prefix in (D, D + "kl."):
    adapter(_prefix + "kl_divergence")(kl_divergence)
    adapter(_prefix + "register_kl")(register_kl)
