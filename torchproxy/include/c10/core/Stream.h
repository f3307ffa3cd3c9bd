// torchproxy: <c10/core/Stream.h>, which Paddle's compat API does not ship: c10::Stream (also
// at::Stream, torch::Stream), torch's device-generic stream handle, a (device, id) pair.  DeepEP
// returns its CUDA streams as torch::Stream.  In CUDA builds a c10::cuda::CUDAStream converts to
// it (torch: CUDAStream::operator Stream(); Paddle's CUDAStream has that operator commented out,
// so the conversion is a constructor here) and back (c10::cuda::CUDAStream's constructor from a
// raw stream, with native_handle()); the id is the raw stream pointer, as Paddle's
// CUDAStream::id() has it.
#pragma once

#include <cstdint>
#include <functional>
#include <ostream>

#include <c10/core/Device.h>
#include <c10/core/DeviceType.h>
#if defined(PADDLE_WITH_CUDA) || defined(PADDLE_WITH_HIP)
#include <c10/cuda/CUDAStream.h>
#include "paddle/phi/backends/gpu/gpu_info.h"
#endif

namespace c10 {

using StreamId = int64_t;

struct StreamData3 {
  StreamId stream_id;
  DeviceIndex device_index;
  DeviceType device_type;
};

class Stream final {
 private:
  Device device_;
  StreamId id_;

 public:
  enum Unsafe { UNSAFE };
  enum Default { DEFAULT };

  explicit Stream(Unsafe, Device device, StreamId id) : device_(device), id_(id) {}
  explicit Stream(Default, Device device) : device_(device), id_(0) {}
#if defined(PADDLE_WITH_CUDA) || defined(PADDLE_WITH_HIP)
  /*implicit*/ Stream(const c10::cuda::CUDAStream& s)  // NOLINT: torch converts implicitly
      : device_(DeviceType::GPU, phi::backends::gpu::GetCurrentDeviceId()), id_(s.id()) {}
  operator c10::cuda::CUDAStream() const {  // NOLINT
    return c10::cuda::CUDAStream(reinterpret_cast<gpuStream_t>(id_));
  }
#endif

  bool operator==(const Stream& o) const noexcept { return device_ == o.device_ && id_ == o.id_; }
  bool operator!=(const Stream& o) const noexcept { return !(*this == o); }
  Device device() const noexcept { return device_; }
  DeviceType device_type() const noexcept { return device_.type(); }
  DeviceIndex device_index() const noexcept { return device_.index(); }
  StreamId id() const noexcept { return id_; }
  void* native_handle() const { return reinterpret_cast<void*>(id_); }
  uint64_t hash() const noexcept {
    return static_cast<uint64_t>(device_type()) << 56 |
           static_cast<uint64_t>(static_cast<uint8_t>(device_index())) << 48 |
           (static_cast<uint64_t>(id()) & ((1ull << 48) - 1));
  }
  StreamData3 pack3() const { return {id(), device_index(), device_type()}; }
  static Stream unpack3(StreamId id, DeviceIndex index, DeviceType type) {
    return Stream(UNSAFE, Device(type, index), id);
  }
};

inline std::ostream& operator<<(std::ostream& os, const Stream& s) {
  return os << "stream " << s.id() << " on device " << s.device();
}

}  // namespace c10

namespace std {
template <>
struct hash<c10::Stream> {
  size_t operator()(c10::Stream s) const noexcept { return std::hash<uint64_t>{}(s.hash()); }
};
}  // namespace std

namespace at {
using c10::Stream;
}  // namespace at
namespace torch {
using c10::Stream;
}  // namespace torch
