"""Row-wise softmax of a 2-D tensor: any width (the block is the next power of two, masked),
rows read through their stride, so a strided view (``x[:, ::2]`` has column stride 2; a row
slice has a row stride larger than the width) works without a copy."""
import torch
import triton
import triton.language as tl


@triton.jit
def softmax_kernel(out_ptr, in_ptr, in_row_stride, in_col_stride, out_row_stride, n_cols,
                   BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(in_ptr + row * in_row_stride + cols * in_col_stride, mask=mask,
                other=-float("inf")).to(tl.float32)
    x = x - tl.max(x, axis=0)
    num = tl.exp(x)
    y = num / tl.sum(num, axis=0)
    tl.store(out_ptr + row * out_row_stride + cols, y.to(out_ptr.dtype.element_ty), mask=mask)


def softmax(x):
    assert x.dim() == 2, "softmax takes a 2-D tensor"
    n_rows, n_cols = x.shape
    out = torch.empty((n_rows, n_cols), device=x.device, dtype=x.dtype)
    BLOCK_SIZE = triton.next_power_of_2(n_cols)
    softmax_kernel[(n_rows,)](out, x, x.stride(0), x.stride(1), out.stride(0), n_cols,
                              BLOCK_SIZE=BLOCK_SIZE)
    return out
