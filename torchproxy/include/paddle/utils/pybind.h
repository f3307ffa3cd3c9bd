// torchproxy shim: Paddle's paddle/utils/pybind.h, then the at::Tensor caster that Paddle
// defines only in CUDA builds (see torchproxy/at_tensor_caster.h).  Found first because
// torchproxy puts its include directory ahead of Paddle's.
#pragma once
#include_next "paddle/utils/pybind.h"
#include "torchproxy/at_tensor_caster.h"
