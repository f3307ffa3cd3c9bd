"""Every kernel of kernels/triton under Triton's interpreter (CPU): the same module file runs on
Paddle tensors through the proxy and on real torch tensors, both checked against numpy."""
from __future__ import annotations

import numpy as np
import pytest

import kernel_loader as kl
from kernels.triton import reference as ref

paddle = pytest.importorskip("paddle")
torch = pytest.importorskip("torch")

RNG = np.random.default_rng(0)


def rand(*shape, dtype="float32"):
    return RNG.standard_normal(shape).astype(dtype)


def to_side(a, scoped):
    return paddle.to_tensor(a) if scoped else torch.from_numpy(a.copy())


def to_numpy(t):
    if isinstance(t, paddle.Tensor):
        return t.numpy()
    return t.detach().numpy()


def close(got, want, dtype=None):
    rtol, atol = ref.TOL[str(dtype or want.dtype)]
    np.testing.assert_allclose(to_numpy(got).astype(np.float64), want.astype(np.float64),
                               rtol=rtol, atol=atol)


def expect_type(t, scoped):
    assert isinstance(t, paddle.Tensor if scoped else torch.Tensor), type(t)


SIDES = [pytest.param(True, id="proxy-paddle"), pytest.param(False, id="real-torch")]


@pytest.mark.parametrize("scoped", SIDES)
@pytest.mark.parametrize("n,dtype", [(1, "float32"), (1000, "float32"), (4097, "float16")])
def test_add(scoped, n, dtype):
    m = kl.load("add", scoped)
    x, y = rand(n, dtype=dtype), rand(n, dtype=dtype)
    out = m.add(to_side(x, scoped), to_side(y, scoped))
    expect_type(out, scoped)
    close(out, ref.add(x, y))


@pytest.mark.parametrize("scoped", SIDES)
@pytest.mark.parametrize("M,N,K,dtype", [(16, 16, 16, "float32"), (17, 29, 23, "float32"),
                                         (33, 18, 40, "float16")])
def test_matmul_relu(scoped, M, N, K, dtype):
    m = kl.load_autotuned("matmul", scoped)
    a, b = rand(M, K, dtype=dtype), rand(K, N, dtype=dtype)
    c = m.matmul_relu(to_side(a, scoped), to_side(b, scoped))
    expect_type(c, scoped)
    assert (to_numpy(c) >= 0).all()
    close(c, ref.matmul_relu(a, b))


@pytest.mark.parametrize("scoped", SIDES)
def test_matmul_relu_transposed_operand(scoped):
    """b is a transposed view (strides (1, K)): the kernel reads it through .stride()."""
    m = kl.load_autotuned("matmul", scoped)
    a, bt = rand(19, 24), rand(21, 24)
    b_side = to_side(bt, scoped)
    b_side = b_side.transpose([1, 0]) if scoped else b_side.t()
    assert tuple(b_side.stride()) == (1, 24)
    c = m.matmul_relu(to_side(a, scoped), b_side)
    close(c, ref.matmul_relu(a, bt.T))


@pytest.mark.parametrize("scoped", SIDES)
@pytest.mark.parametrize("shape", [(3, 1), (5, 37), (4, 128)])
def test_softmax(scoped, shape):
    m = kl.load("softmax", scoped)
    x = rand(*shape)
    out = m.softmax(to_side(x, scoped))
    expect_type(out, scoped)
    close(out, ref.softmax(x))


@pytest.mark.parametrize("scoped", SIDES)
def test_softmax_strided_input(scoped):
    """Every other column of a row slice: row stride 50, column stride 2, offset 50."""
    m = kl.load("softmax", scoped)
    base = rand(6, 50)
    view = to_side(base, scoped)[1:, ::2]
    assert tuple(view.stride()) == (50, 2)
    out = m.softmax(view)
    close(out, ref.softmax(base[1:, ::2]))


@pytest.mark.parametrize("scoped", SIDES)
@pytest.mark.parametrize("shape,dtype", [((4, 33), "float32"), ((3, 64), "float16")])
def test_layernorm(scoped, shape, dtype):
    m = kl.load("layernorm", scoped)
    x, w, b = rand(*shape, dtype=dtype), rand(shape[1], dtype=dtype), rand(shape[1], dtype=dtype)
    y, mean, rstd = m.layernorm(to_side(x, scoped), to_side(w, scoped), to_side(b, scoped), 1e-5)
    want_y, want_mean, want_rstd = ref.layernorm(x, w, b, 1e-5)
    close(y, want_y)
    close(mean, want_mean, "float32" if dtype == "float32" else "float16")
    close(rstd, want_rstd, "float32" if dtype == "float32" else "float16")


@pytest.mark.parametrize("scoped", SIDES)
@pytest.mark.parametrize("shape", [(3, 40), (2, 64)])
def test_rmsnorm_forward_backward(scoped, shape):
    m = kl.load("rmsnorm", scoped)
    x, w, dy = rand(*shape), rand(shape[1]), rand(*shape)
    eps = 1e-6
    xs, ws, dys = to_side(x, scoped), to_side(w, scoped), to_side(dy, scoped)
    if scoped:
        xs.stop_gradient = False
        ws.stop_gradient = False
        y = m.rmsnorm(xs, ws, eps)
        dx, dw = paddle.grad([y], [xs, ws], grad_outputs=[dys])
    else:
        xs.requires_grad_(True)
        ws.requires_grad_(True)
        y = m.rmsnorm(xs, ws, eps)
        dx, dw = torch.autograd.grad([y], [xs, ws], grad_outputs=[dys])
    expect_type(y, scoped)
    close(y, ref.rmsnorm(x, w, eps))
    want_dx, want_dw = ref.rmsnorm_backward(x, w, eps, dy)
    np.testing.assert_allclose(to_numpy(dx), want_dx, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(to_numpy(dw), want_dw, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("scoped", SIDES)
def test_triton_op_with_wrap_triton(scoped):
    m = kl.load("library_op", scoped)
    x, y = rand(300), rand(300)
    out = m.silu_mul(to_side(x, scoped), to_side(y, scoped))
    expect_type(out, scoped)
    close(out, ref.silu_mul(x, y))
    if not scoped:  # real torch registered it as an operator
        out2 = torch.ops.torchproxy_kernels.silu_mul(to_side(x, False), to_side(y, False))
        close(out2, ref.silu_mul(x, y))


def test_same_file_two_importers_two_torches():
    """The scope is decided by the importing module: kernels.triton.* gets the facade, the same
    file loaded under an unscoped name gets real torch."""
    from torchproxy.hook import is_facade
    scoped, oracle = kl.load("add", True), kl.load("add", False)
    assert scoped.__file__ == oracle.__file__
    assert is_facade(scoped.torch) and not is_facade(oracle.torch)
    assert oracle.torch is torch
