// torchproxy: Paddle's <c10/cuda/CUDAStream.h> (c10::cuda::CUDAStream, getCurrentCUDAStream), plus
// the stream functions torch has there and Paddle lacks: getStreamFromPool,
// getStreamFromExternal, setCurrentCUDAStream (DeepEP, TorchCodec).  CUDA builds only: Paddle's
// header itself needs PADDLE_WITH_CUDA (it includes phi's GPU context), as torch's needs the CUDA
// toolkit.  The current stream is Paddle's (its GPUContext for the device), so Paddle kernels
// launched afterwards run on the stream set here, as torch kernels do on torch's.
#pragma once
#include_next <c10/cuda/CUDAStream.h>

#if defined(PADDLE_WITH_CUDA)
#include <array>
#include <atomic>
#include <map>
#include <mutex>
#include <utility>

#include <cuda_runtime_api.h>

#include "paddle/phi/api/include/context_pool.h"
#include "paddle/phi/backends/gpu/gpu_context.h"
#include "paddle/phi/backends/gpu/gpu_info.h"
#include "paddle/phi/core/cuda_stream.h"

namespace c10::cuda {

namespace tpx_detail {
inline DeviceIndex device_or_current(DeviceIndex d) {
  return d == -1 ? static_cast<DeviceIndex>(phi::backends::gpu::GetCurrentDeviceId()) : d;
}
// torch keeps 32 streams per device and priority class, created lazily, handed out round robin
constexpr int kStreamsPerPool = 32;
struct Pool {
  std::once_flag once;
  std::array<cudaStream_t, kStreamsPerPool> streams{};
  std::atomic<uint32_t> next{0};
};
inline Pool& pool(DeviceIndex device, bool high_priority) {
  static std::mutex m;
  static std::map<std::pair<DeviceIndex, bool>, Pool> pools;  // node-based: references stay
  std::lock_guard<std::mutex> g(m);
  return pools[{device, high_priority}];
}
}  // namespace tpx_detail

inline CUDAStream getStreamFromPool(const bool isHighPriority = false,
                                    DeviceIndex device = -1) {
  device = tpx_detail::device_or_current(device);
  auto& p = tpx_detail::pool(device, isHighPriority);
  std::call_once(p.once, [&] {
    phi::backends::gpu::GPUDeviceGuard guard(device);
    int least = 0, greatest = 0;
    C10_CUDA_CHECK(cudaDeviceGetStreamPriorityRange(&least, &greatest));
    for (auto& s : p.streams)
      C10_CUDA_CHECK(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking,
                                                  isHighPriority ? greatest : least));
  });
  return CUDAStream(p.streams[p.next++ % tpx_detail::kStreamsPerPool]);
}

inline CUDAStream getStreamFromPool(const int priority, DeviceIndex device = -1) {
  return getStreamFromPool(priority < 0, device);  // torch: negative is higher priority
}

inline CUDAStream getStreamFromExternal(cudaStream_t ext_stream, DeviceIndex device_index) {
  (void)device_index;  // Paddle's CUDAStream is the raw stream alone
  return CUDAStream(ext_stream);
}

// Paddle's own way (paddle.device.set_stream -> GPUContext::SetCUDAStream(stream, clear=false)):
// the device's context runs on a phi::CUDAStream wrapping the raw stream, not owning it
inline void setCurrentCUDAStream(CUDAStream stream) {
  auto device = tpx_detail::device_or_current(-1);
  phi::GPUPlace place(device);
  static std::mutex m;
  static std::map<std::pair<DeviceIndex, cudaStream_t>, phi::CUDAStream*> wrappers;
  phi::CUDAStream* wrapper;
  {
    std::lock_guard<std::mutex> g(m);
    auto& w = wrappers[{device, stream.stream()}];
    if (w == nullptr) w = new phi::CUDAStream(place, stream.stream());  // lives for the process
    wrapper = w;
  }
  auto* ctx = static_cast<phi::GPUContext*>(
      paddle::experimental::DeviceContextPool::Instance().GetMutable(place));
  ctx->SetCUDAStream(wrapper, /*clear=*/false);
}

}  // namespace c10::cuda

namespace at::cuda {
using c10::cuda::getStreamFromExternal;
using c10::cuda::getStreamFromPool;
using c10::cuda::setCurrentCUDAStream;
}  // namespace at::cuda
#endif  // PADDLE_WITH_CUDA
