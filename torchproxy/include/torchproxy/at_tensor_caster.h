// torchproxy: the pybind11 caster for at::Tensor <-> paddle.Tensor on Paddle builds without CUDA.
//
// Paddle's compat C++ API (paddle/phi/api/include/compat, Paddle >= 3.2) makes at::Tensor a
// thin wrapper of paddle::Tensor.  paddle/utils/pybind.h defines the pybind11 caster for
// at::Tensor only under PADDLE_WITH_CUDA / PADDLE_WITH_HIP, so on a CPU build a pybind11
// function taking or returning at::Tensor fails with "incompatible function arguments".  This
// header adds the same caster (same code as Paddle's CUDA one) for the other builds.  torchproxy
// puts torchproxy/include first on the include path of every extension it builds; the shim
// paddle/utils/pybind.h there includes Paddle's header and then this one.
#pragma once

#if !defined(PADDLE_WITH_CUDA) && !defined(PADDLE_WITH_HIP) && \
    !defined(TORCHPROXY_AT_TENSOR_CASTER)
#define TORCHPROXY_AT_TENSOR_CASTER 1

#include <ATen/core/TensorBody.h>

#include "paddle/phi/api/include/tensor.h"
#include "pybind11/pybind11.h"

namespace pybind11 {
namespace detail {

template <>
struct type_caster<at::Tensor> {
 public:
  PYBIND11_TYPE_CASTER(at::Tensor, _("paddle.Tensor"));

  bool load(handle src, bool) {
    paddle::pybind::EnableTensorOperantsToPhiMode();
    PyObject* obj = src.ptr();
    if (paddle::pybind::PyCheckTensor(obj)) {
      value = paddle::pybind::CastPyArg2Tensor(obj, 0);
      return true;
    }
    return false;
  }

  static handle cast(const at::Tensor& src, return_value_policy /* policy */,
                     handle /* parent */) {
    const auto& inner = src._PD_GetInner();
#ifdef PADDLE_WITH_DISTRIBUTE
    bool return_none =
        phi::distributed::DistTensor::classof(inner.impl().get()) ? false : true;
#else
    bool return_none = true;
#endif
    return handle(paddle::pybind::ToPyObject(inner, return_none));
  }
};

}  // namespace detail
}  // namespace pybind11

#endif
