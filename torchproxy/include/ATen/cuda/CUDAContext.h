// torchproxy: Paddle's <ATen/cuda/CUDAContext.h>, plus at::cuda::getCurrentCUDABlasLtHandle
// (DeepGEMM), which Paddle lacks: the cuBLASLt handle of Paddle's context for the current
// device.  Under the same guard as Paddle's own declarations in this header.
#pragma once
#include_next <ATen/cuda/CUDAContext.h>

#if defined(PADDLE_WITH_CUDA)
#include <cublasLt.h>

#include "paddle/phi/api/include/context_pool.h"
#include "paddle/phi/backends/gpu/gpu_context.h"
#include "paddle/phi/backends/gpu/gpu_info.h"

namespace at::cuda {
inline cublasLtHandle_t getCurrentCUDABlasLtHandle() {
  phi::GPUPlace place(phi::backends::gpu::GetCurrentDeviceId());
  return paddle::experimental::DeviceContextPool::Instance()
      .Get<phi::AllocationType::GPU>(place)
      ->cublaslt_handle();
}
}  // namespace at::cuda
#endif  // PADDLE_WITH_CUDA
