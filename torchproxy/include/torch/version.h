// torchproxy: <torch/version.h>, which Paddle's compat API does not ship.  The version is the
// one torchproxy's facade reports as torch.__version__ (torchproxy/facade/core.py,
// TORCH_VERSION: "2.6.0+torchproxy"), so C++ and Python feature checks agree;
// tests/cpp_extension/test_declarations.py keeps the two equal.
#pragma once

#define TORCH_VERSION_MAJOR 2
#define TORCH_VERSION_MINOR 6
#define TORCH_VERSION_PATCH 0
#define TORCH_VERSION "2.6.0"
