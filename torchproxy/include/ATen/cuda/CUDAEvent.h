// torchproxy: <ATen/cuda/CUDAEvent.h>, which Paddle's compat API does not ship: at::cuda::CUDAEvent,
// torch's movable, non-copyable wrapper of a cudaEvent_t created lazily on first record
// (TorchCodec's CUDA device interface).  CUDA builds only, as the rest of Paddle's ATen/cuda.
#pragma once

#if defined(PADDLE_WITH_CUDA)
#include <cuda_runtime_api.h>

#include <utility>

#include <ATen/cuda/CUDAContext.h>
#include <c10/cuda/CUDAException.h>
#include <c10/cuda/CUDAStream.h>
#include <c10/util/Exception.h>

#include "paddle/phi/backends/gpu/gpu_info.h"

namespace at::cuda {

struct CUDAEvent {
  CUDAEvent() noexcept = default;
  explicit CUDAEvent(unsigned int flags) noexcept : flags_(flags) {}
  ~CUDAEvent() {
    if (is_created_) {
      phi::backends::gpu::GPUDeviceGuard guard(device_index_);
      cudaEventDestroy(event_);
    }
  }
  CUDAEvent(const CUDAEvent&) = delete;
  CUDAEvent& operator=(const CUDAEvent&) = delete;
  CUDAEvent(CUDAEvent&& other) noexcept { moveHelper(std::move(other)); }
  CUDAEvent& operator=(CUDAEvent&& other) noexcept {
    if (this != &other) moveHelper(std::move(other));
    return *this;
  }

  operator cudaEvent_t() const { return event(); }
  bool isCreated() const { return is_created_; }
  c10::DeviceIndex device_index() const { return device_index_; }
  cudaEvent_t event() const { return event_; }
  bool query() const {
    if (!is_created_) return true;
    cudaError_t err = cudaEventQuery(event_);
    if (err == cudaSuccess) return true;
    if (err != cudaErrorNotReady) C10_CUDA_CHECK(err);
    else (void)cudaGetLastError();  // clear the not-ready state
    return false;
  }
  void record() { record(c10::cuda::getCurrentCUDAStream()); }
  void recordOnce(const c10::cuda::CUDAStream& stream) {
    if (!was_recorded_) record(stream);
  }
  void record(const c10::cuda::CUDAStream& stream) {
    auto device = static_cast<c10::DeviceIndex>(phi::backends::gpu::GetCurrentDeviceId());
    if (!is_created_) createEvent(device);
    TORCH_CHECK(device_index_ == device, "Event device ", device_index_,
                " does not match recording stream's device ", device, ".");
    C10_CUDA_CHECK(cudaEventRecord(event_, stream.stream()));
    was_recorded_ = true;
  }
  void block(const c10::cuda::CUDAStream& stream) {
    if (is_created_) C10_CUDA_CHECK(cudaStreamWaitEvent(stream.stream(), event_, 0));
  }
  float elapsed_time(const CUDAEvent& other) const {
    TORCH_CHECK(is_created_ && other.isCreated(),
                "Both events must be recorded before calculating elapsed time.");
    float ms = 0;
    C10_CUDA_CHECK(cudaEventElapsedTime(&ms, event_, other.event_));
    return ms;
  }
  void synchronize() const {
    if (is_created_) C10_CUDA_CHECK(cudaEventSynchronize(event_));
  }

 private:
  unsigned int flags_ = cudaEventDisableTiming;
  bool is_created_ = false;
  bool was_recorded_ = false;
  c10::DeviceIndex device_index_ = -1;
  cudaEvent_t event_{};

  void createEvent(c10::DeviceIndex device) {
    device_index_ = device;
    phi::backends::gpu::GPUDeviceGuard guard(device);
    C10_CUDA_CHECK(cudaEventCreateWithFlags(&event_, flags_));
    is_created_ = true;
  }
  void moveHelper(CUDAEvent&& other) {
    std::swap(flags_, other.flags_);
    std::swap(is_created_, other.is_created_);
    std::swap(was_recorded_, other.was_recorded_);
    std::swap(device_index_, other.device_index_);
    std::swap(event_, other.event_);
  }
};

}  // namespace at::cuda
#endif  // PADDLE_WITH_CUDA
