"""``torch.distributions`` on Paddle tensors: the common distributions with torch's
parameterisations, shapes (``batch_shape``/``event_shape``, ``sample(sample_shape)``), argument
and support validation (``validate_args``, on by default as in torch), ``log_prob``,
``entropy``, ``cdf``/``icdf`` where torch has them, moments, and ``kl_divergence`` with
``register_kl``.  Split as torch's own ``torch/distributions/``: this module holds the
``Distribution`` base class and the helpers the families share; ``distributions_constraints``,
``distributions_continuous``, ``distributions_discrete``, ``distributions_multivariate`` and
``distributions_kl`` hold the rest.

Log-probabilities, entropies, moments and KL divergences use torch's formulas (the same
expressions, so the values agree to float rounding).  Samples come from Paddle's generators
(facade/random.py): the right distribution, not torch's numbers for a seed.  ``rsample`` is
reparameterised (differentiable in the parameters) for Normal, Uniform, Exponential, Laplace
and MultivariateNormal; Gamma, Beta and Dirichlet sample by Marsaglia-Tsang rejection, which
has no reparameterised gradient here: their ``rsample`` raises (gaps.toml).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch: distributions
    torch.distributions: Distribution distribution
    torch.distributions.distribution: Distribution
""")

import math
import numbers
import operator

import paddle

from .registry import module, type_


module("torch.distributions")
module("torch.distributions.distribution")

_LOG_SQRT_2PI = math.log(math.sqrt(2 * math.pi))
D = "torch.distributions."
_PADDLE_SAMPLES = "samples from Paddle's generators"
_NO_RSAMPLE = "rsample raises: no reparameterised gamma sampler"


def _reads(path):
    """A read-only property returning the attribute at ``path`` (dotted): a moment that is
    one of the parameters (Normal's mean and mode are ``loc``) or a view onto a distribution
    held inside (Independent's mean is its base distribution's)."""
    return property(operator.attrgetter(path))


def _declare(*classes, note=_PADDLE_SAMPLES):
    """Register distribution classes as ``torch.distributions.<name>``, with the caveat the
    coverage file shows."""
    for cls in classes:
        type_(D + cls.__name__, cls, note=note)


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


def _init_params(dist, validate_args, **params):
    """What the __init__ of torch's families with tensor parameters does: broadcast the
    parameters together (broadcast_all), keep each as an attribute, and start the Distribution
    with their shape as its batch shape (validation then reads the attributes)."""
    values = _broadcast_all(*params.values())
    for name, value in zip(params, values):
        setattr(dist, name, value)
    Distribution.__init__(dist, values[0].shape, validate_args=validate_args)


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
    """``torch.rand(shape, dtype=dtype)`` on the current device: on the CPU the torch stream's
    numbers (so Uniform, Bernoulli... sample as torch's for a seed), on CUDA Paddle's."""
    from .random import _sample, current_place
    return _sample("uniform", list(shape), dtype, current_place(), None)


def _randn(shape, dtype):
    """``torch.empty(shape, dtype=dtype).normal_()``, as torch's distributions draw it."""
    from .random import _sample, current_place
    return _sample("normal", list(shape), dtype, current_place(), None)


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

    def _maybe_validate(self, value):
        """``_validate_sample`` when argument validation is on (torch checks the value in
        log_prob/cdf only then)."""
        if self._validate_args:
            self._validate_sample(value)

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


type_(D + "Distribution", Distribution)
type_(D + "distribution.Distribution", Distribution)
