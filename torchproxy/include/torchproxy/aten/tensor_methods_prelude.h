// torchproxy: what the member declarations of <torchproxy/aten/tensor_methods.inc> need, included
// by the generated overlay of <ATen/core/TensorBody.h> before Paddle's class (not by users).
#pragma once
#include <c10/core/ScalarType.h>
#include <c10/util/Exception.h>
#include <c10/util/OptionalArrayRef.h>
#include <optional>
#include <vector>
