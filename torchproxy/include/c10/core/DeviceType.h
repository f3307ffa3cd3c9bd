// torchproxy: Paddle's <c10/core/DeviceType.h> (c10::DeviceType = phi::AllocationType), plus
// c10::DeviceTypeName, which it lacks (TorchCodec's DeviceInterface.cpp uses it).
#pragma once
#include_next <c10/core/DeviceType.h>

#include <string>

#include <c10/util/Exception.h>

namespace c10 {
// torch's names (c10/core/DeviceType.cpp) for the device types Paddle has: GPU is CUDA, a
// custom device is torch's PrivateUse1 backend
inline std::string DeviceTypeName(DeviceType d, bool lower_case = false) {
  switch (d) {
    case DeviceType::CPU:
      return lower_case ? "cpu" : "CPU";
    case DeviceType::GPU:
      return lower_case ? "cuda" : "CUDA";
    case DeviceType::XPU:
      return lower_case ? "xpu" : "XPU";
    case DeviceType::IPU:
      return lower_case ? "ipu" : "IPU";
    case DeviceType::CUSTOM:
      return lower_case ? "privateuseone" : "PrivateUse1";
    default:
      TORCH_CHECK(false, "Unknown device: ", static_cast<int16_t>(d),
                  ". If you have recently updated the caffe2.proto file to add a new device "
                  "type, did you forget to update the DeviceTypeName() function to reflect "
                  "such recent changes?");
  }
}
}  // namespace c10
namespace at {
using c10::DeviceTypeName;
}  // namespace at
namespace torch {
using c10::DeviceTypeName;
}  // namespace torch
