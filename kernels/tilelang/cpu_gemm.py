"""A GEMM written the CPU way (``target="c"``): plain serial loops over local tiles, fp32.

TileLang compiles it to C and runs it on host tensors; ``out_idx=-1`` makes the JIT allocate
C itself (with ``torch.empty``).  This is the kernel CI runs end to end without a GPU."""
import tilelang
import tilelang.language as T
import torch


@tilelang.jit(target="c", out_idx=-1)
def cpu_gemm_kernel(M, N, K, block_M=16, block_N=16, block_K=16, dtype="float32"):

    @T.prim_func
    def cpu_gemm(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M)) as (bx, by):
            A_local = T.alloc_local((block_M, block_K), dtype)
            B_local = T.alloc_local((block_K, block_N), dtype)
            C_local = T.alloc_local((block_M, block_N), dtype)
            for i, j in T.grid(block_M, block_N):
                C_local[i, j] = 0
            for ko in T.serial(K // block_K):
                for i, k in T.grid(block_M, block_K):
                    A_local[i, k] = A[by * block_M + i, ko * block_K + k]
                for k, j in T.grid(block_K, block_N):
                    B_local[k, j] = B[ko * block_K + k, bx * block_N + j]
                for i, j, k in T.grid(block_M, block_N, block_K):
                    C_local[i, j] += A_local[i, k] * B_local[k, j]
            for i, j in T.grid(block_M, block_N):
                C[by * block_M + i, bx * block_N + j] = C_local[i, j]

    return cpu_gemm


def cpu_gemm(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """a @ b for 2-D fp32 CPU tensors whose sizes are multiples of 16."""
    M, K = a.shape
    _, N = b.shape
    return cpu_gemm_kernel(M, N, K)(a, b)
