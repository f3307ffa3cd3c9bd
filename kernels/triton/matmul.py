"""C = relu(A @ B): fp16 or fp32 inputs, fp32 accumulation, masked edges (any M, N, K),
arbitrary strides.  ``matmul_relu_autotuned`` is the same body under ``triton.autotune``."""
import torch
import triton
import triton.language as tl


@triton.jit
def matmul_relu_kernel(a_ptr, b_ptr, c_ptr, M, N, K,
                       stride_am, stride_ak, stride_bk, stride_bn, stride_cm, stride_cn,
                       BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, BLOCK_K: tl.constexpr):
    pid_m = tl.program_id(0)
    pid_n = tl.program_id(1)
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = pid_n * BLOCK_N + tl.arange(0, BLOCK_N)
    offs_k = tl.arange(0, BLOCK_K)
    a_ptrs = a_ptr + offs_m[:, None] * stride_am + offs_k[None, :] * stride_ak
    b_ptrs = b_ptr + offs_k[:, None] * stride_bk + offs_n[None, :] * stride_bn
    acc = tl.zeros((BLOCK_M, BLOCK_N), dtype=tl.float32)
    for k in range(0, tl.cdiv(K, BLOCK_K)):
        k_left = K - k * BLOCK_K
        a = tl.load(a_ptrs, mask=(offs_m[:, None] < M) & (offs_k[None, :] < k_left), other=0.0)
        b = tl.load(b_ptrs, mask=(offs_k[:, None] < k_left) & (offs_n[None, :] < N), other=0.0)
        acc += tl.dot(a, b)
        a_ptrs += BLOCK_K * stride_ak
        b_ptrs += BLOCK_K * stride_bk
    acc = tl.maximum(acc, 0.0)
    c_ptrs = c_ptr + offs_m[:, None] * stride_cm + offs_n[None, :] * stride_cn
    c_mask = (offs_m[:, None] < M) & (offs_n[None, :] < N)
    tl.store(c_ptrs, acc.to(c_ptr.dtype.element_ty), mask=c_mask)


# Small configs on purpose: the CPU interpreter runs every program of every config.
AUTOTUNE_CONFIGS = [
    triton.Config({"BLOCK_M": 16, "BLOCK_N": 16, "BLOCK_K": 16}, num_warps=1),
    triton.Config({"BLOCK_M": 32, "BLOCK_N": 32, "BLOCK_K": 16}, num_warps=2),
    triton.Config({"BLOCK_M": 64, "BLOCK_N": 64, "BLOCK_K": 32}, num_warps=4),
]

# The same kernel under the autotuner (autotune wraps the JITFunction; the plain one stays).
matmul_relu_autotuned_kernel = triton.autotune(configs=AUTOTUNE_CONFIGS,
                                               key=["M", "N", "K"])(matmul_relu_kernel)


def _check(a, b):
    assert a.dim() == 2 and b.dim() == 2, "matmul_relu takes 2-D tensors"
    assert a.shape[1] == b.shape[0], f"incompatible shapes {tuple(a.shape)} @ {tuple(b.shape)}"
    assert a.dtype == b.dtype and a.dtype in (torch.float16, torch.float32), a.dtype


def matmul_relu(a, b, BLOCK_M=32, BLOCK_N=32, BLOCK_K=16):
    _check(a, b)
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))  # noqa: E731
    matmul_relu_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0), b.stride(1),
                             c.stride(0), c.stride(1), BLOCK_M=BLOCK_M, BLOCK_N=BLOCK_N,
                             BLOCK_K=BLOCK_K)
    return c


def matmul_relu_autotuned(a, b):
    _check(a, b)
    M, K = a.shape
    N = b.shape[1]
    c = torch.empty((M, N), device=a.device, dtype=a.dtype)
    grid = lambda meta: (triton.cdiv(M, meta["BLOCK_M"]), triton.cdiv(N, meta["BLOCK_N"]))  # noqa: E731
    matmul_relu_autotuned_kernel[grid](a, b, c, M, N, K, a.stride(0), a.stride(1), b.stride(0),
                                       b.stride(1), c.stride(0), c.stride(1))
    return c
