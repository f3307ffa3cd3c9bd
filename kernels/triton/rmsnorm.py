"""RMSNorm over the last dim of a 2-D tensor, y = x / sqrt(mean(x^2) + eps) * weight, with a
Triton backward, wired through ``torch.autograd.Function``.

The backward computes dx per row and reduces dweight over rows in a second Triton kernel
(no framework reduction, so it needs nothing but Triton to run)."""
import torch
import triton
import triton.language as tl


@triton.jit
def rmsnorm_fwd_kernel(x_ptr, w_ptr, y_ptr, rstd_ptr, x_row_stride, y_row_stride, n_cols, eps,
                       BLOCK_SIZE: tl.constexpr):
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = 1.0 / tl.sqrt(tl.sum(x * x, axis=0) / n_cols + eps)
    tl.store(rstd_ptr + row, rstd)
    tl.store(y_ptr + row * y_row_stride + cols, (x * rstd * w).to(y_ptr.dtype.element_ty),
             mask=mask)


@triton.jit
def rmsnorm_bwd_kernel(dy_ptr, x_ptr, w_ptr, rstd_ptr, dx_ptr, dw_part_ptr, dy_row_stride,
                       x_row_stride, dx_row_stride, n_cols, BLOCK_SIZE: tl.constexpr):
    # dx = rstd * (dy*w - x * rstd^2 * mean(dy*w*x));  dw_part[row] = dy * x * rstd
    row = tl.program_id(0)
    cols = tl.arange(0, BLOCK_SIZE)
    mask = cols < n_cols
    dy = tl.load(dy_ptr + row * dy_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    x = tl.load(x_ptr + row * x_row_stride + cols, mask=mask, other=0.0).to(tl.float32)
    w = tl.load(w_ptr + cols, mask=mask, other=0.0).to(tl.float32)
    rstd = tl.load(rstd_ptr + row)
    dyw = dy * w
    c = tl.sum(dyw * x, axis=0) / n_cols
    dx = rstd * (dyw - x * rstd * rstd * c)
    tl.store(dx_ptr + row * dx_row_stride + cols, dx.to(dx_ptr.dtype.element_ty), mask=mask)
    tl.store(dw_part_ptr + row * n_cols + cols, dy * x * rstd, mask=mask)


@triton.jit
def column_sum_kernel(part_ptr, out_ptr, n_rows, n_cols, BLOCK_R: tl.constexpr,
                      BLOCK_C: tl.constexpr):
    pid = tl.program_id(0)
    cols = pid * BLOCK_C + tl.arange(0, BLOCK_C)
    acc = tl.zeros((BLOCK_C,), dtype=tl.float32)
    for r0 in range(0, n_rows, BLOCK_R):
        rows = r0 + tl.arange(0, BLOCK_R)
        m = (rows[:, None] < n_rows) & (cols[None, :] < n_cols)
        acc += tl.sum(tl.load(part_ptr + rows[:, None] * n_cols + cols[None, :], mask=m,
                              other=0.0), axis=0)
    tl.store(out_ptr + cols, acc.to(out_ptr.dtype.element_ty), mask=cols < n_cols)


class RMSNormFunction(torch.autograd.Function):
    @staticmethod
    def forward(ctx, x, weight, eps):
        assert x.dim() == 2 and x.stride(1) == 1, "rmsnorm takes rows of contiguous elements"
        n_rows, n_cols = x.shape
        y = torch.empty_like(x)
        rstd = torch.empty((n_rows,), device=x.device, dtype=torch.float32)
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
        rmsnorm_fwd_kernel[(n_rows,)](x, weight, y, rstd, x.stride(0), y.stride(0), n_cols, eps,
                                      BLOCK_SIZE=BLOCK_SIZE)
        ctx.save_for_backward(x, weight, rstd)
        return y

    @staticmethod
    def backward(ctx, dy):
        x, weight, rstd = ctx.saved_tensors
        n_rows, n_cols = x.shape
        assert dy.stride(1) == 1
        dx = torch.empty_like(x)
        dw_part = torch.empty((n_rows, n_cols), device=x.device, dtype=torch.float32)
        BLOCK_SIZE = triton.next_power_of_2(n_cols)
        rmsnorm_bwd_kernel[(n_rows,)](dy, x, weight, rstd, dx, dw_part, dy.stride(0), x.stride(0),
                                      dx.stride(0), n_cols, BLOCK_SIZE=BLOCK_SIZE)
        dw = torch.empty_like(weight)
        BLOCK_C = 32
        column_sum_kernel[(triton.cdiv(n_cols, BLOCK_C),)](dw_part, dw, n_rows, n_cols,
                                                           BLOCK_R=16, BLOCK_C=BLOCK_C)
        return dx, dw, None


def rmsnorm(x, weight, eps=1e-6):
    return RMSNormFunction.apply(x, weight, eps)
