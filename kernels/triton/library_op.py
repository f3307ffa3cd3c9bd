"""silu(x) * y as a custom op: ``torch.library.triton_op`` registers it (so torch.compile can
see through it) and ``wrap_triton`` launches the kernel inside it."""
import torch
import triton
import triton.language as tl
from torch.library import triton_op, wrap_triton

OP_NAME = "torchproxy_kernels::silu_mul"


@triton.jit
def silu_mul_kernel(x_ptr, y_ptr, out_ptr, n_elements, BLOCK_SIZE: tl.constexpr):
    offs = tl.program_id(0) * BLOCK_SIZE + tl.arange(0, BLOCK_SIZE)
    mask = offs < n_elements
    x = tl.load(x_ptr + offs, mask=mask).to(tl.float32)
    y = tl.load(y_ptr + offs, mask=mask).to(tl.float32)
    out = x / (1.0 + tl.exp(-x)) * y
    tl.store(out_ptr + offs, out.to(out_ptr.dtype.element_ty), mask=mask)


@triton_op(OP_NAME, mutates_args={})
def silu_mul(x: torch.Tensor, y: torch.Tensor) -> torch.Tensor:
    out = torch.empty_like(x)
    n = x.numel()
    wrap_triton(silu_mul_kernel)[(triton.cdiv(n, 256),)](x, y, out, n, BLOCK_SIZE=256)
    return out
