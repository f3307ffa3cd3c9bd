// torchproxy: Paddle's <torch/types.h>, plus what torch's torch namespace has that Paddle's lacks
// by name: the dtype constants for every c10::ScalarType (Paddle's torch/types.h lists some;
// the rest reach torch:: only through `using namespace at`, which lexical tools such as
// `torchproxy scan --cpp` and readers cannot see), and torch::Stream (<c10/core/Stream.h>).
#pragma once
#include_next <torch/types.h>

#include <c10/core/DeviceType.h>
#include <c10/core/Stream.h>

namespace torch {
using c10::kBool;
using c10::kFloat8_e4m3fn;
using c10::kFloat8_e5m2;
using c10::kComplexFloat;
using c10::kComplexDouble;
using c10::kByte;
using c10::kChar;
using c10::kShort;
using c10::kInt;
using c10::kLong;
using c10::kHalf;
using c10::kFloat;
using c10::kDouble;
}  // namespace torch
