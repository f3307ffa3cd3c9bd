"""TileLang's quick-start kernel: C = relu(A @ B), fp16 in, fp32 accumulate, fp16 out."""
import tilelang
import tilelang.language as T
import torch


@tilelang.jit
def matmul_relu_kernel(M, N, K, block_M=128, block_N=128, block_K=32,
                       dtype="float16", accum_dtype="float"):

    @T.prim_func
    def matmul_relu(
            A: T.Tensor((M, K), dtype),
            B: T.Tensor((K, N), dtype),
            C: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(N, block_N), T.ceildiv(M, block_M), threads=128) as (bx, by):
            A_shared = T.alloc_shared((block_M, block_K), dtype)
            B_shared = T.alloc_shared((block_K, block_N), dtype)
            C_local = T.alloc_fragment((block_M, block_N), accum_dtype)

            T.clear(C_local)
            for ko in T.Pipelined(T.ceildiv(K, block_K), num_stages=3):
                T.copy(A[by * block_M, ko * block_K], A_shared)
                T.copy(B[ko * block_K, bx * block_N], B_shared)
                T.gemm(A_shared, B_shared, C_local)

            for i, j in T.Parallel(block_M, block_N):
                C_local[i, j] = T.max(C_local[i, j], 0)

            T.copy(C_local, C[by * block_M, bx * block_N])

    return matmul_relu


def matmul_relu(a: torch.Tensor, b: torch.Tensor) -> torch.Tensor:
    """relu(a @ b) for fp16 CUDA tensors a (M, K), b (K, N)."""
    M, K = a.shape
    K2, N = b.shape
    assert K == K2, f"inner dimensions differ: {K} vs {K2}"
    assert a.dtype == torch.float16 and b.dtype == torch.float16
    c = torch.empty((M, N), dtype=torch.float16, device=a.device)
    matmul_relu_kernel(M, N, K)(a, b, c)
    return c
