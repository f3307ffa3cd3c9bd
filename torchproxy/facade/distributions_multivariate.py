"""``torch.distributions``: the multivariate distributions (Dirichlet, MultivariateNormal) and
``Independent``.
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.distributions: Dirichlet Independent MultivariateNormal
""")

import math

import paddle

from ..errors import NotProvidedError
from .distributions import (_declare, _NO_RSAMPLE, _randn, _reads, _standard_gamma,
                            _sum_rightmost, _xlogy, Distribution)
from .distributions_constraints import (_GreaterThan, lower_cholesky, positive_definite,
                                        real_vector, simplex)


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
        self._maybe_validate(value)
        c = self.concentration
        return (_xlogy(c - 1.0, value).sum(-1) + paddle.lgamma(c.sum(-1))
                - paddle.lgamma(c).sum(-1))

    def entropy(self):
        c = self.concentration
        k = c.shape[-1]
        a0 = c.sum(-1)
        return (paddle.lgamma(c).sum(-1) - paddle.lgamma(a0) - (k - a0) * paddle.digamma(a0)
                - ((c - 1.0) * paddle.digamma(c)).sum(-1))


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

    mean = mode = _reads("loc")

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
        self._maybe_validate(value)
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

    mean = _reads("base_dist.mean")
    variance = _reads("base_dist.variance")

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

_declare(MultivariateNormal, Independent)
_declare(Dirichlet, note=_NO_RSAMPLE)
