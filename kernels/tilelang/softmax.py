"""Row-wise softmax, online (one pass for max and sum, as in flash attention):
for each tile of the row, m' = max(m, max(tile)); s = s * exp(m - m') + sum(exp(tile - m')).
A second pass writes exp(x - m) / s.  fp32, one row per block, N a multiple of block_N."""
import tilelang
import tilelang.language as T
import torch


@tilelang.jit
def softmax_kernel(M, N, block_N=128, dtype="float32"):
    assert N % block_N == 0, "N must be a multiple of block_N"
    n_tiles = N // block_N

    @T.prim_func
    def softmax(
            X: T.Tensor((M, N), dtype),
            Y: T.Tensor((M, N), dtype),
    ):
        with T.Kernel(M, threads=128) as bx:
            tile = T.alloc_fragment((block_N,), "float")
            tile_max = T.alloc_fragment((1,), "float")
            tile_sum = T.alloc_fragment((1,), "float")
            m = T.alloc_fragment((1,), "float")
            s = T.alloc_fragment((1,), "float")
            m_new = T.alloc_fragment((1,), "float")
            T.fill(m, -T.infinity("float"))
            T.fill(s, 0)
            for k in T.serial(n_tiles):
                T.copy(X[bx, k * block_N], tile)
                T.reduce_max(tile, tile_max, dim=0)
                m_new[0] = T.max(m[0], tile_max[0])
                for j in T.Parallel(block_N):
                    tile[j] = T.exp(tile[j] - m_new[0])
                T.reduce_sum(tile, tile_sum, dim=0)
                s[0] = s[0] * T.exp(m[0] - m_new[0]) + tile_sum[0]
                m[0] = m_new[0]
            for k in T.serial(n_tiles):
                T.copy(X[bx, k * block_N], tile)
                for j in T.Parallel(block_N):
                    tile[j] = T.exp(tile[j] - m[0]) / s[0]
                T.copy(tile, Y[bx, k * block_N])

    return softmax


def softmax(x: torch.Tensor) -> torch.Tensor:
    """Softmax over the last dimension of a 2-D fp32 CUDA tensor."""
    M, N = x.shape
    y = torch.empty_like(x)
    softmax_kernel(M, N)(x, y)
    return y
