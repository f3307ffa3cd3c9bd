"""``torch.distributions.constraints``: the constraints the distributions check their
arguments and samples against (``real``, ``positive``, ``simplex``, ``lower_cholesky``...).
"""
from __future__ import annotations

from .registry import manifest

NAMES = manifest("""
    torch.distributions: constraints
    torch.distributions.constraints: Constraint boolean lower_cholesky nonnegative_integer positive
        positive_definite real real_vector simplex unit_interval
""")

import paddle

from .registry import module, type_, value


module("torch.distributions.constraints")


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
