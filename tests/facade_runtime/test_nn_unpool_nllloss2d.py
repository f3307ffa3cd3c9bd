"""torch.nn.MaxUnpool1d/2d/3d and the deprecated torch.nn.NLLLoss2d vs real torch 2.13:
forward (MaxPool's indices round-tripped, output_size=), gradients, repr, the classes at torch's
module paths, and NLLLoss2d's FutureWarning."""
import numpy as np
import pytest

from difftest import check

pytest.importorskip("torch")

rng = np.random.default_rng(5)


@pytest.mark.parametrize("nd,shape,ks,extra", [
    (1, (2, 3, 8), 2, ""), (1, (3, 9), 3, ", stride=2, padding=1"),
    (2, (2, 2, 4, 6), 2, ""), (2, (1, 5, 6), (2, 3), ", stride=(2, 1)"),
    (3, (1, 2, 4, 4, 6), 2, ", stride=2"),
])
def test_max_unpool(nd, shape, ks, extra):
    check(f"""
import torch
import torch.nn as nn
def f(x):
    x.requires_grad_()
    pool = nn.MaxPool{nd}d({ks!r}{extra}, return_indices=True)
    unpool = nn.MaxUnpool{nd}d({ks!r}{extra})
    y, i = pool(x)
    z = unpool(y, i)
    z2 = unpool(y, i, output_size=x.shape)
    (z * torch.arange(z.numel()).reshape(z.shape)).sum().backward()
    return repr(unpool), z, z2, x.grad, unpool.kernel_size, unpool.stride, unpool.padding
""", rng.standard_normal(shape).astype("float32"))


def test_max_unpool_errors():
    check("""
import torch
def f(x):
    y, i = torch.nn.MaxPool2d(2, return_indices=True)(x)
    return torch.nn.MaxUnpool2d(2)(y, i, output_size=(9, 9))
""", rng.standard_normal((1, 1, 4, 4)).astype("float32"))


def test_module_paths():
    check("""
import torch
import torch.nn.modules.pooling as P
import torch.nn.modules.loss as L
def f():
    return [(c.__module__, c.__qualname__) for c in
            (torch.nn.MaxUnpool1d, P.MaxUnpool2d, torch.nn.modules.MaxUnpool3d,
             torch.nn.NLLLoss2d, L.NLLLoss2d)], issubclass(torch.nn.NLLLoss2d, torch.nn.NLLLoss)
""")


def test_nllloss2d():
    check("""
import torch, warnings
def f(x, t, w):
    x.requires_grad_()
    with warnings.catch_warnings(record=True) as rec:
        warnings.simplefilter("always")
        m = torch.nn.NLLLoss2d(weight=w, ignore_index=1)
    cats = [r.category.__name__ for r in rec]
    out = [m(x.log_softmax(1), t), torch.nn.NLLLoss2d(reduction="none")(x, t)]
    out[0].backward()
    return cats, out, x.grad, repr(torch.nn.NLLLoss2d(size_average=False))
""", rng.standard_normal((2, 3, 4, 5)).astype("float32"),
        rng.integers(0, 3, (2, 4, 5)).astype("int64"), np.array([0.2, 1.0, 3.0], "float32"))
