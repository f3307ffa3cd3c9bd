// torchproxy: <torch/extension.h> = Paddle's, plus <torch/library.h>.  In torch,
// torch/extension.h reaches torch/library.h (through torch/types.h), so extension sources use
// TORCH_LIBRARY with that one include; Paddle 3.3's compat torch/extension.h does not.
#pragma once
#include_next <torch/extension.h>
#include <torch/library.h>
