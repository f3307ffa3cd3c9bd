"""Host code in the style of kernel libraries (Liger-Kernel's ops/*.py wrappers), with the
Triton launch replaced by the same math in torch ops: the bookkeeping around a launch
(shapes, strides, dtypes, devices, allocation, casting back) must agree with real torch."""
import numpy as np
import pytest

from difftest import check

RMS_NORM = """
import math
import torch

def f(X, W, eps=1e-6, offset=0.0):
    shape = X.shape
    dim = shape[-1]
    X = X.view(-1, dim)
    n_rows, n_cols = X.shape
    BLOCK_SIZE = 1 << (n_cols - 1).bit_length()
    Y = torch.empty((n_rows, n_cols), dtype=X.dtype, device=X.device)
    RSTD = torch.empty(n_rows, dtype=torch.float32, device=X.device)
    assert X.shape[1] == W.shape[0], "Incompatible hidden size"
    Xf = X.to(torch.float32)
    rstd = torch.rsqrt((Xf * Xf).mean(dim=-1) + eps)
    RSTD.copy_(rstd)
    Y.copy_((Xf * rstd.unsqueeze(-1) * (offset + W.to(torch.float32))).to(X.dtype))
    return Y.view(*shape), RSTD, X.stride(0), Y.stride(1), BLOCK_SIZE, Y.element_size()
"""

CROSS_ENTROPY = """
import torch

def f(_input, target, ignore_index=-100, label_smoothing=0.0):
    BT, V = _input.shape
    n_rows = BT
    target_mask = target != ignore_index
    n_non_ignore = target_mask.sum().item()
    sum_non_ignore_weight = n_non_ignore
    loss_1d = torch.zeros(n_rows, dtype=_input.dtype, device=_input.device)
    if _input.stride(-1) != 1:
        _input = _input.contiguous()
    if target.stride(-1) != 1:
        target = target.contiguous()
    lse = torch.logsumexp(_input.float(), dim=-1)
    safe_t = torch.where(target_mask, target, torch.zeros_like(target))
    picked = torch.gather(_input.float(), 1, safe_t.unsqueeze(1)).squeeze(1)
    loss_1d.copy_(torch.where(target_mask, lse - picked, torch.zeros_like(lse)).to(loss_1d.dtype))
    loss = torch.sum(loss_1d) / max(sum_non_ignore_weight, 1)
    return loss, n_non_ignore, loss_1d.dtype
"""

SWIGLU = """
import torch

def f(a, b):
    ori_shape = a.shape
    n_cols = ori_shape[-1]
    a = a.view(-1, n_cols)
    b = b.view(-1, n_cols)
    c = torch.empty_like(a)
    n_rows = a.shape[0]
    c.copy_((a.float() * torch.sigmoid(a.float()) * b.float()).to(c.dtype))
    return a, b, c.view(*ori_shape), n_rows, c.is_contiguous(), c.dtype == a.dtype
"""


@pytest.mark.parametrize("dtype", ["float32", "float16"])
@pytest.mark.parametrize("shape", [(2, 3, 8), (4, 16), (1, 1, 1, 5)])
def test_rms_norm_host_code(dtype, shape):
    rng = np.random.default_rng(1)
    x = rng.standard_normal(shape).astype(dtype)
    w = rng.standard_normal(shape[-1]).astype(dtype)
    check(RMS_NORM, x, w, rtol=2e-3, atol=2e-3)


@pytest.mark.parametrize("transposed", [False, True])
@pytest.mark.parametrize("ignore", [[], [1, 3]])
def test_cross_entropy_host_code(transposed, ignore):
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((6, 10) if not transposed else (10, 6)).astype("float32")
    target = rng.integers(0, 10, 6).astype("int64")
    target[ignore] = -100
    src = CROSS_ENTROPY.replace("BT, V = _input.shape",
                                "_input = _input.t() if _input.shape[0] != target.shape[0] else _input\n"
                                "    BT, V = _input.shape")
    check(src, logits, target, rtol=1e-5)


@pytest.mark.parametrize("dtype", ["float32", "float16"])
def test_swiglu_host_code(dtype):
    rng = np.random.default_rng(3)
    a, b = (rng.standard_normal((2, 3, 4)).astype(dtype) for _ in range(2))
    check(SWIGLU, a, b, rtol=2e-3, atol=2e-3)
