"""Core Tensor methods (numel/size/shape/dim): torch semantics in scope, Paddle's outside."""
import numpy as np
import paddle
import pytest

from difftest import check

X = np.arange(24, dtype="float32").reshape(2, 3, 4)


@pytest.mark.parametrize("expr", ["x.numel()", "x.size()", "x.size(1)", "x.size(-1)", "x.shape",
                                  "x.dim()", "x.shape[1:]", "x.size()[0]", "x.shape.numel()",
                                  "tuple(x.shape) == (2, 3, 4)", "x.size(3)"])
def test_shape_queries(expr):
    check(f"""
import torch
def f(x):
    return {expr}
""", X)


def test_paddle_semantics_outside_scope():
    x = paddle.to_tensor(X)
    assert isinstance(x.numel(), paddle.Tensor)
    assert int(x.numel()) == 24
    assert x.size == 24  # Paddle 3.x property: element count
