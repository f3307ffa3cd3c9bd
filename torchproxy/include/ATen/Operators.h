// torchproxy: <ATen/Operators.h> for Paddle's compat C++ API, which does not ship it.
// In torch this header declares the at::_ops::<op> structs of every ATen operator; sources
// that include it for the common at:: functions (pytorch/extension-cpp's muladd.cpp) get them
// from <ATen/Functions.h>.  A Paddle that ships its own is used instead.
#pragma once
#if defined(__has_include_next) && __has_include_next(<ATen/Operators.h>)
#include_next <ATen/Operators.h>
#else
#include <ATen/Functions.h>
#endif
