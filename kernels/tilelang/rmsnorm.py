"""RMSNorm over the last dimension: y = x / sqrt(mean(x^2) + eps) * w, fp32 math.

One block per ``block_M`` rows; the row is loaded whole into registers (N is a compile-time
constant), squared-summed with ``T.reduce_sum``, then scaled."""
import tilelang
import tilelang.language as T
import torch


@tilelang.jit
def rmsnorm_kernel(M, N, eps=1e-6, block_M=1, dtype="float32"):

    @T.prim_func
    def rmsnorm(
            X: T.Tensor((M, N), dtype),
            W: T.Tensor((N,), dtype),
            Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(T.ceildiv(M, block_M), threads=128) as bx:
            x_local = T.alloc_fragment((block_M, N), "float")
            sq = T.alloc_fragment((block_M, N), "float")
            ss = T.alloc_fragment((block_M,), "float")
            T.copy(X[bx * block_M, 0], x_local)
            for i, j in T.Parallel(block_M, N):
                sq[i, j] = x_local[i, j] * x_local[i, j]
            T.reduce_sum(sq, ss, dim=1)
            for i in T.Parallel(block_M):
                ss[i] = T.rsqrt(ss[i] / N + eps)
            for i, j in T.Parallel(block_M, N):
                x_local[i, j] = x_local[i, j] * ss[i] * W[j]
            T.copy(x_local, Y[bx * block_M, 0])

    return rmsnorm


def rmsnorm(x: torch.Tensor, weight: torch.Tensor, eps: float = 1e-6) -> torch.Tensor:
    """RMSNorm of a 2-D fp32 CUDA tensor with a 1-D weight."""
    M, N = x.shape
    assert weight.shape[0] == N
    y = torch.empty_like(x)
    rmsnorm_kernel(M, N, eps)(x, weight, y)
    return y
