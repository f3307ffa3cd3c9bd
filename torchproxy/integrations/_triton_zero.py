"""A Triton kernel writing zeros (int32 words): the driver's cache flush and scratch zeroing.
Its own module so Triton sees ``tl`` as a module global (and imported only when needed)."""
import triton
import triton.language as tl


@triton.jit
def zero_kernel(ptr, n_words, BLOCK: tl.constexpr):
    offs = tl.program_id(0) * BLOCK + tl.arange(0, BLOCK)
    tl.store(ptr + offs, tl.zeros((BLOCK,), dtype=tl.int32), mask=offs < n_words)


def zero(buf) -> None:
    """Zero a 1-D int32 GPU tensor on the current stream of the active driver."""
    n_words = buf.shape[0]
    zero_kernel[(triton.cdiv(n_words, 4096),)](buf, n_words, BLOCK=4096)
