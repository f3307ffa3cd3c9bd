// torchproxy's ATen supplement: the ATen free functions, at::Tensor methods and operators that
// torch extension sources use most and Paddle 3.3's compat C++ API lacks, computed with Paddle's
// C++ API (paddle::experimental::*, in the same libpaddle).  Included at the end of the
// generated overlay of <ATen/core/TensorBody.h> (so every path to at::Tensor has them), after
// the class whose body got <torchproxy/aten/tensor_methods.inc>.
//
// Semantics follow torch's, not Paddle's: torch's type promotion (result_type: dimensioned
// tensors over 0-dim tensors over C++ scalars, bool < integral < floating < complex), integral
// inputs of float-only functions computed in the default dtype, sum of integers in int64, true
// division.  Functions Paddle's compat API already declares (at::cat, at::sum, at::abs,
// at::zeros_like, at::empty_like, ...) are not redefined: an identical signature would not
// compile.  The names here are listed in docs/cpp-extensions.md and each is tested against real
// torch in tests/cpp_extension (sources/aten_supplement.cpp).
#pragma once

#include <ATen/core/TensorBody.h>
#include <c10/core/DefaultDtype.h>
#include <c10/core/ScalarType.h>
#include <c10/core/TensorOptions.h>
#include <c10/util/ArrayRef.h>
#include <c10/util/Exception.h>
#include <c10/util/OptionalArrayRef.h>

#include <limits>
#include <optional>
#include <vector>

#include "paddle/phi/api/include/api.h"

namespace at {

using TensorList = c10::ArrayRef<Tensor>;

namespace tpx {  // helpers, not torch names

using PT = paddle::Tensor;

inline phi::DataType pd(ScalarType t) { return compat::_PD_AtenScalarTypeToPhiDataType(t); }
inline ScalarType st(phi::DataType t) { return compat::_PD_PhiDataTypeToAtenScalarType(t); }

// torch's type categories: bool < integral < floating < complex
inline int category(ScalarType t) {
  if (t == ScalarType::Bool) return 0;
  if (c10::isIntegralType(t, false)) return 1;
  if (c10::isComplexType(t)) return 3;
  return 2;
}

// c10::promoteTypes for two dtypes of one priority class
inline ScalarType promote(ScalarType a, ScalarType b) {
  if (a == b) return a;
  int ca = category(a), cb = category(b);
  if (ca != cb) return ca > cb ? a : b;
  if (ca == 1 && ((a == ScalarType::Byte && b == ScalarType::Char) ||
                  (a == ScalarType::Char && b == ScalarType::Byte)))
    return ScalarType::Short;
  if (ca == 2 && ((a == ScalarType::Half && b == ScalarType::BFloat16) ||
                  (a == ScalarType::BFloat16 && b == ScalarType::Half)))
    return ScalarType::Float;
  return phi::SizeOf(pd(a)) >= phi::SizeOf(pd(b)) ? a : b;
}

// torch.result_type(a, b) for two tensors: a 0-dim tensor counts only when its category is
// higher than the dimensioned one's
inline ScalarType result_type(const Tensor& a, const Tensor& b) {
  ScalarType ta = a.scalar_type(), tb = b.scalar_type();
  bool za = a.dim() == 0, zb = b.dim() == 0;
  if (za == zb) return promote(ta, tb);
  const ScalarType hi = za ? tb : ta, lo = za ? ta : tb;
  return category(lo) > category(hi) ? lo : hi;
}

inline int scalar_category(const Scalar& s) { return category(st(s.dtype())); }

// torch.result_type(tensor, C++ scalar): the scalar is a "wrapped number", the weakest operand
inline ScalarType result_type(const Tensor& a, const Scalar& s) {
  int ca = category(a.scalar_type()), cs = scalar_category(s);
  if (cs <= ca) return a.scalar_type();
  if (cs == 3) return ScalarType::ComplexFloat;
  if (cs == 2) return c10::get_default_dtype();
  return ScalarType::Long;
}

inline PT cast(const PT& x, ScalarType t) {
  return x.dtype() == pd(t) ? x : paddle::experimental::cast(x, pd(t));
}
inline PT in(const Tensor& t) { return t._PD_GetInner(); }
inline PT in(const Tensor& t, ScalarType as) { return cast(t._PD_GetInner(), as); }

// a C++ scalar as a 0-dim tensor of dtype t on x's device
inline PT scalar(const Scalar& s, ScalarType t, const Tensor& x) {
  return paddle::experimental::full({}, s, pd(t), in(x).place());
}

// float-only functions (sigmoid, exp, ...) compute integral inputs in the default dtype
inline PT floating(const Tensor& x) {
  ScalarType t = x.scalar_type();
  return category(t) >= 2 ? in(x) : cast(in(x), c10::get_default_dtype());
}

inline int64_t wrap_dim(int64_t dim, int64_t ndim) {
  int64_t n = ndim == 0 ? 1 : ndim;
  TORCH_CHECK(dim >= -n && dim < n, "Dimension out of range (expected to be in range of [",
              -n, ", ", n - 1, "], but got ", dim, ")");
  return dim < 0 ? dim + n : dim;
}

inline bool first_bool(const PT& t) {  // the value of a one-element bool tensor, any device
  PT cpu = t.is_cpu() ? t : t.copy_to(phi::CPUPlace(), true);
  return cpu.data<bool>()[0];
}

inline bool is_one(const Scalar& s) { return s.to<double>() == 1.0; }

// the broadcast shape of a shape and a tensor (numpy rules, as torch's)
inline std::vector<int64_t> broadcast_shape(std::vector<int64_t> s, const Tensor& b) {
  int64_t na = static_cast<int64_t>(s.size()), nb = b.dim(), n = std::max(na, nb);
  std::vector<int64_t> out(n);
  for (int64_t i = 1; i <= n; ++i) {
    int64_t sa = i <= na ? s[na - i] : 1, sb = i <= nb ? b.size(nb - i) : 1;
    out[n - i] = sa == 1 ? sb : sa;
  }
  return out;
}
inline std::vector<int64_t> broadcast_shape(const Tensor& a, const Tensor& b) {
  return broadcast_shape(std::vector<int64_t>(a.sizes().begin(), a.sizes().end()), b);
}

// torch's message for operands that do not broadcast (Paddle's kernels raise their own)
inline void check_broadcast(const Tensor& a, const Tensor& b) {
  int64_t na = a.dim(), nb = b.dim(), n = std::max(na, nb);
  for (int64_t i = 1; i <= n; ++i) {
    int64_t sa = i <= na ? a.size(na - i) : 1, sb = i <= nb ? b.size(nb - i) : 1;
    TORCH_CHECK(sa == sb || sa == 1 || sb == 1, "The size of tensor a (", sa,
                ") must match the size of tensor b (", sb, ") at non-singleton dimension ",
                n - i);
  }
}

}  // namespace tpx

// ---- element-wise arithmetic (torch type promotion) ------------------------------------------
inline Tensor mul(const Tensor& a, const Tensor& b) {
  tpx::check_broadcast(a, b);
  auto t = tpx::result_type(a, b);
  return paddle::experimental::multiply(tpx::in(a, t), tpx::in(b, t));
}
inline Tensor mul(const Tensor& a, const Scalar& b) {
  auto t = tpx::result_type(a, b);
  return paddle::experimental::multiply(tpx::in(a, t), tpx::scalar(b, t, a));
}
inline Tensor add(const Tensor& a, const Tensor& b, const Scalar& alpha = 1) {
  tpx::check_broadcast(a, b);
  auto t = tpx::result_type(a, b);
  return paddle::experimental::add(tpx::in(a, t), tpx::is_one(alpha) ? tpx::in(b, t)
                                                                     : tpx::in(mul(b, alpha), t));
}
inline Tensor add(const Tensor& a, const Scalar& b, const Scalar& alpha = 1) {
  auto t = tpx::result_type(a, b);
  return paddle::experimental::add(
      tpx::in(a, t), tpx::is_one(alpha) ? tpx::scalar(b, t, a)
                                        : tpx::scalar(b.to<double>() * alpha.to<double>(), t, a));
}
inline Tensor sub(const Tensor& a, const Tensor& b, const Scalar& alpha = 1) {
  TORCH_CHECK(a.scalar_type() != ScalarType::Bool || b.scalar_type() != ScalarType::Bool,
              "Subtraction, the `-` operator, with two bool tensors is not supported. Use the "
              "`^` or `logical_xor()` operator instead.");
  tpx::check_broadcast(a, b);
  auto t = tpx::result_type(a, b);
  return paddle::experimental::subtract(
      tpx::in(a, t), tpx::is_one(alpha) ? tpx::in(b, t) : tpx::in(mul(b, alpha), t));
}
inline Tensor sub(const Tensor& a, const Scalar& b, const Scalar& alpha = 1) {
  auto t = tpx::result_type(a, b);
  return paddle::experimental::subtract(
      tpx::in(a, t), tpx::is_one(alpha) ? tpx::scalar(b, t, a)
                                        : tpx::scalar(b.to<double>() * alpha.to<double>(), t, a));
}
// true division: integral operands give the default dtype
inline Tensor div(const Tensor& a, const Tensor& b) {
  tpx::check_broadcast(a, b);
  auto t = tpx::result_type(a, b);
  if (tpx::category(t) < 2) t = c10::get_default_dtype();
  return paddle::experimental::divide(tpx::in(a, t), tpx::in(b, t));
}
inline Tensor div(const Tensor& a, const Scalar& b) {
  auto t = tpx::result_type(a, b);
  if (tpx::category(t) < 2) t = c10::get_default_dtype();
  return paddle::experimental::divide(tpx::in(a, t), tpx::scalar(b, t, a));
}
inline Tensor neg(const Tensor& a) {
  TORCH_CHECK(a.scalar_type() != ScalarType::Bool,
              "Negation, the `-` operator, on a bool tensor is not supported. If you are trying "
              "to invert a mask, use the `~` or `logical_not()` operator instead.");
  return paddle::experimental::scale(tpx::in(a), -1.0, 0.0, true);
}
inline Tensor maximum(const Tensor& a, const Tensor& b) {
  auto t = tpx::result_type(a, b);
  return paddle::experimental::maximum(tpx::in(a, t), tpx::in(b, t));
}
inline Tensor minimum(const Tensor& a, const Tensor& b) {
  auto t = tpx::result_type(a, b);
  return paddle::experimental::minimum(tpx::in(a, t), tpx::in(b, t));
}

inline Tensor operator+(const Tensor& a, const Tensor& b) { return add(a, b); }
inline Tensor operator+(const Tensor& a, const Scalar& b) { return add(a, b); }
inline Tensor operator+(const Scalar& a, const Tensor& b) { return add(b, a); }
inline Tensor operator-(const Tensor& a, const Tensor& b) { return sub(a, b); }
inline Tensor operator-(const Tensor& a, const Scalar& b) { return sub(a, b); }
// torch (ATen/TensorOperators.h): Scalar - y and Scalar / y are empty_like(y).fill_(x).sub_(y)
// and .div_(y): y's dtype, the scalar truncated to it, an in-place cast check (1.0 / int fails)
inline Tensor operator-(const Scalar& a, const Tensor& b);
inline Tensor operator*(const Tensor& a, const Tensor& b) { return mul(a, b); }
inline Tensor operator*(const Tensor& a, const Scalar& b) { return mul(a, b); }
inline Tensor operator*(const Scalar& a, const Tensor& b) { return mul(b, a); }
inline Tensor operator/(const Tensor& a, const Tensor& b) { return div(a, b); }
inline Tensor operator/(const Tensor& a, const Scalar& b) { return div(a, b); }
inline Tensor operator/(const Scalar& a, const Tensor& b);
inline Tensor operator-(const Tensor& a) { return neg(a); }

// ---- comparisons: the common dtype, a bool result ---------------------------------------------
#define TPX_COMPARISON(name, pdop, op)                                              \
  inline Tensor name(const Tensor& a, const Tensor& b) {                           \
    tpx::check_broadcast(a, b);                                                    \
    auto t = tpx::result_type(a, b);                                               \
    return paddle::experimental::pdop(tpx::in(a, t), tpx::in(b, t));               \
  }                                                                                \
  inline Tensor name(const Tensor& a, const Scalar& b) {                           \
    auto t = tpx::result_type(a, b);                                               \
    return paddle::experimental::pdop(tpx::in(a, t), tpx::scalar(b, t, a));        \
  }                                                                                \
  inline Tensor operator op(const Tensor& a, const Tensor& b) { return name(a, b); } \
  inline Tensor operator op(const Tensor& a, const Scalar& b) { return name(a, b); }
TPX_COMPARISON(eq, equal, ==)
TPX_COMPARISON(ne, not_equal, !=)
TPX_COMPARISON(gt, greater_than, >)
TPX_COMPARISON(lt, less_than, <)
TPX_COMPARISON(ge, greater_equal, >=)
TPX_COMPARISON(le, less_equal, <=)
#undef TPX_COMPARISON
// scalar on the left: 0 < z is z > 0
inline Tensor operator==(const Scalar& a, const Tensor& b) { return eq(b, a); }
inline Tensor operator!=(const Scalar& a, const Tensor& b) { return ne(b, a); }
inline Tensor operator<(const Scalar& a, const Tensor& b) { return gt(b, a); }
inline Tensor operator>(const Scalar& a, const Tensor& b) { return lt(b, a); }
inline Tensor operator<=(const Scalar& a, const Tensor& b) { return ge(b, a); }
inline Tensor operator>=(const Scalar& a, const Tensor& b) { return le(b, a); }

// ---- unary math ---------------------------------------------------------------------------------
inline Tensor sigmoid(const Tensor& x) { return paddle::experimental::sigmoid(tpx::floating(x)); }
inline Tensor tanh(const Tensor& x) { return paddle::experimental::tanh(tpx::floating(x)); }
inline Tensor exp(const Tensor& x) { return paddle::experimental::exp(tpx::floating(x)); }
inline Tensor log(const Tensor& x) { return paddle::experimental::log(tpx::floating(x)); }
inline Tensor sqrt(const Tensor& x) { return paddle::experimental::sqrt(tpx::floating(x)); }
inline Tensor relu(const Tensor& x) {
  TORCH_CHECK(x.scalar_type() != ScalarType::Bool, "\"relu_cpu\" not implemented for 'Bool'");
  if (tpx::category(x.scalar_type()) < 2)  // Paddle's relu kernel is float-only
    return paddle::experimental::maximum(tpx::in(x), tpx::scalar(0, x.scalar_type(), x));
  return paddle::experimental::relu(tpx::in(x));
}
// torch: scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1))
inline Tensor elu(const Tensor& x, const Scalar& alpha = 1, const Scalar& scale = 1,
                  const Scalar& input_scale = 1) {
  TORCH_CHECK(tpx::category(x.scalar_type()) >= 2, "\"elu_cpu\" not implemented for '",
              c10::toString(x.scalar_type()), "'");
  if (tpx::is_one(scale) && tpx::is_one(input_scale))
    return paddle::experimental::elu(tpx::in(x), alpha.to<float>());
  Tensor neg_part = mul(sub(exp(mul(x, input_scale)), 1), alpha);
  return mul(Tensor(paddle::experimental::where(tpx::in(gt(x, 0)), tpx::in(x), tpx::in(neg_part))),
             scale);
}
inline Tensor pow(const Tensor& x, const Scalar& e) {
  auto t = tpx::result_type(x, e);
  return paddle::experimental::elementwise_pow(tpx::in(x, t), tpx::scalar(e, t, x));
}
inline Tensor pow(const Tensor& x, const Tensor& e) {
  auto t = tpx::result_type(x, e);
  return paddle::experimental::elementwise_pow(tpx::in(x, t), tpx::in(e, t));
}
inline Tensor pow(const Scalar& x, const Tensor& e) {
  auto t = tpx::result_type(e, x);
  return paddle::experimental::elementwise_pow(tpx::scalar(x, t, e), tpx::in(e, t));
}
inline Tensor clamp(const Tensor& x, const ::std::optional<Scalar>& min,
                    const ::std::optional<Scalar>& max = ::std::nullopt) {
  TORCH_CHECK(min.has_value() || max.has_value(),
              "torch.clamp: At least one of 'min' or 'max' must not be None");
  ScalarType t = x.scalar_type();
  if (min) t = tpx::promote(t, tpx::result_type(x, *min));
  if (max) t = tpx::promote(t, tpx::result_type(x, *max));
  tpx::PT r = tpx::in(x, t);
  if (min) r = paddle::experimental::maximum(r, tpx::scalar(*min, t, x));
  if (max) r = paddle::experimental::minimum(r, tpx::scalar(*max, t, x));
  return r;
}
inline Tensor where(const Tensor& cond, const Tensor& a, const Tensor& b) {
  TORCH_CHECK(cond.scalar_type() == ScalarType::Bool,
              "where expected condition to be a boolean tensor, but got a tensor with dtype ",
              c10::toString(cond.scalar_type()));
  auto t = tpx::result_type(a, b);
  // Paddle's where kernel does not broadcast: expand the three to one shape first
  tpx::check_broadcast(a, b);
  tpx::check_broadcast(cond, a);
  tpx::check_broadcast(cond, b);
  std::vector<int64_t> shape = tpx::broadcast_shape(tpx::broadcast_shape(cond, a), b);
  auto to = [&](const tpx::PT& x) {
    return paddle::experimental::expand(x, paddle::experimental::IntArray(shape));
  };
  return paddle::experimental::where(to(tpx::in(cond)), to(tpx::in(a, t)), to(tpx::in(b, t)));
}
inline Tensor where(const Tensor& cond, const Scalar& a, const Tensor& b) {
  return where(cond, Tensor(tpx::scalar(a, tpx::result_type(b, a), b)), b);
}
inline Tensor where(const Tensor& cond, const Tensor& a, const Scalar& b) {
  return where(cond, a, Tensor(tpx::scalar(b, tpx::result_type(a, b), a)));
}

// ---- matrices -----------------------------------------------------------------------------------
inline Tensor mm(const Tensor& a, const Tensor& b) {
  TORCH_CHECK(a.dim() == 2, "self must be a matrix");
  TORCH_CHECK(b.dim() == 2, "mat2 must be a matrix");
  TORCH_CHECK(a.size(1) == b.size(0), "mat1 and mat2 shapes cannot be multiplied (", a.size(0),
              "x", a.size(1), " and ", b.size(0), "x", b.size(1), ")");
  TORCH_CHECK(a.scalar_type() == b.scalar_type(),
              "expected m1 and m2 to have the same dtype, but got: ",
              c10::toString(a.scalar_type()), " != ", c10::toString(b.scalar_type()));
  return paddle::experimental::matmul(tpx::in(a), tpx::in(b));
}
inline Tensor matmul(const Tensor& a, const Tensor& b) {
  TORCH_CHECK(a.dim() > 0 && b.dim() > 0, "both arguments to matmul need to be at least 1D, but "
              "they are ", a.dim(), "D and ", b.dim(), "D");
  return paddle::experimental::matmul(tpx::in(a), tpx::in(b));
}
// beta * self + alpha * (mat1 @ mat2), self broadcast (torch's addmm)
inline Tensor addmm(const Tensor& self, const Tensor& mat1, const Tensor& mat2,
                    const Scalar& beta = 1, const Scalar& alpha = 1) {
  Tensor prod = mm(mat1, mat2);
  if (!tpx::is_one(alpha)) prod = mul(prod, alpha);
  if (beta.to<double>() == 0.0) return prod;  // torch ignores self (nan/inf included)
  return add(prod, tpx::is_one(beta) ? self : mul(self, beta));
}
inline Tensor t(const Tensor& x) {
  TORCH_CHECK(x.dim() <= 2, "t() expects a tensor with <= 2 dimensions, but self is ", x.dim(),
              "D");
  return x.dim() < 2 ? x : x.transpose(0, 1);
}

// ---- reductions ---------------------------------------------------------------------------------
inline ScalarType sum_dtype(const Tensor& x, ::std::optional<ScalarType> dtype) {
  if (dtype) return *dtype;
  return tpx::category(x.scalar_type()) < 2 ? ScalarType::Long : x.scalar_type();
}
inline Tensor mean(const Tensor& x, c10::OptionalIntArrayRef dim, bool keepdim = false,
                   ::std::optional<ScalarType> dtype = ::std::nullopt) {
  ScalarType t = dtype.value_or(x.scalar_type());
  TORCH_CHECK(tpx::category(t) >= 2,
              "mean(): could not infer output dtype. ",
              dtype ? "Optional" : "Input", " dtype must be either a floating point or complex "
              "dtype. Got: ", c10::toString(t));
  return paddle::experimental::mean(
      tpx::in(x, t), dim.has_value() ? dim.value()._PD_ToPaddleIntArray()
                                     : paddle::experimental::IntArray(), keepdim);
}
inline Tensor mean(const Tensor& x, ::std::optional<ScalarType> dtype = ::std::nullopt) {
  return mean(x, ::std::nullopt, false, dtype);
}
inline Tensor softmax(const Tensor& x, int64_t dim,
                      ::std::optional<ScalarType> dtype = ::std::nullopt) {
  tpx::PT v = dtype ? tpx::in(x, *dtype) : tpx::in(x);
  return paddle::experimental::softmax(v, static_cast<int>(tpx::wrap_dim(dim, x.dim())));
}
inline bool equal(const Tensor& a, const Tensor& b) {
  if (a.sizes() != b.sizes()) return false;
  auto t = tpx::result_type(a, b);
  return tpx::first_bool(paddle::experimental::equal_all(tpx::in(a, t), tpx::in(b, t)));
}
inline bool allclose(const Tensor& a, const Tensor& b, double rtol = 1e-05, double atol = 1e-08,
                     bool equal_nan = false) {
  TORCH_CHECK(a.scalar_type() == b.scalar_type(), c10::toString(a.scalar_type()),
              " did not match ", c10::toString(b.scalar_type()));
  return tpx::first_bool(paddle::experimental::allclose(tpx::in(a), tpx::in(b), rtol, atol,
                                                        equal_nan));
}

// ---- creation like another tensor ---------------------------------------------------------------
inline Tensor full_like(const Tensor& self, const Scalar& fill_value,
                        at::TensorOptions options = {},
                        ::std::optional<at::MemoryFormat> memory_format = ::std::nullopt) {
  TORCH_CHECK(!memory_format || *memory_format == c10::MemoryFormat::Contiguous ||
                  *memory_format == c10::MemoryFormat::Preserve,
              "torchproxy: full_like/ones_like support contiguous memory formats only");
  auto t = options.dtype_opt().value_or(self.scalar_type());
  auto place = options.device_opt().value_or(self.device());
  return paddle::experimental::full_like(tpx::in(self), fill_value, tpx::pd(t),
                                         place._PD_GetInner());
}
inline Tensor ones_like(const Tensor& self, at::TensorOptions options = {},
                        ::std::optional<at::MemoryFormat> memory_format = ::std::nullopt) {
  return full_like(self, 1, options, memory_format);
}

// ---- joining and splitting ----------------------------------------------------------------------
inline Tensor stack(TensorList tensors, int64_t dim = 0) {
  TORCH_CHECK(!tensors.empty(), "stack expects a non-empty TensorList");
  std::vector<tpx::PT> v;
  for (const auto& x : tensors) {
    TORCH_CHECK(x.sizes() == tensors[0].sizes(),
                "stack expects each tensor to be equal size, but got ", tensors[0].sizes(),
                " at entry 0 and ", x.sizes(), " at entry ", v.size());
    v.push_back(tpx::in(x));
  }
  return paddle::experimental::stack(v, static_cast<int>(tpx::wrap_dim(dim, tensors[0].dim() + 1)));
}
inline std::vector<Tensor> split(const Tensor& x, int64_t split_size, int64_t dim = 0) {
  TORCH_CHECK(x.dim() != 0, "split expects at least a 1-dimensional tensor");
  TORCH_CHECK(split_size >= 0, "split expects split_size be non-negative, but got split_size=",
              split_size);
  dim = tpx::wrap_dim(dim, x.dim());
  int64_t n = x.size(dim);
  std::vector<Tensor> out;
  if (split_size == 0) {
    TORCH_CHECK(n == 0, "split_size can only be 0 if dimension size is 0, but got dimension "
                "size of ", n);
    return {x};
  }
  for (int64_t s = 0; s < n || (n == 0 && out.empty()); s += split_size) {
    int64_t e = std::min(s + split_size, n);
    out.push_back(paddle::experimental::slice(tpx::in(x), {dim}, {s}, {e}, {1}, {}));
  }
  return out;
}
inline std::vector<Tensor> chunk(const Tensor& x, int64_t chunks, int64_t dim = 0) {
  TORCH_CHECK(x.dim() > 0, "chunk expects at least a 1-dimensional tensor");
  TORCH_CHECK(chunks > 0, "chunk expects `chunks` to be greater than 0, got: ", chunks);
  int64_t n = x.size(tpx::wrap_dim(dim, x.dim()));
  return split(x, (n + chunks - 1) / chunks, dim);
}

}  // namespace at

namespace torch {
using at::add;
using at::addmm;
using at::allclose;
using at::chunk;
using at::clamp;
using at::div;
using at::elu;
using at::eq;
using at::equal;
using at::exp;
using at::full_like;
using at::ge;
using at::gt;
using at::le;
using at::log;
using at::lt;
using at::matmul;
using at::maximum;
using at::mean;
using at::minimum;
using at::mm;
using at::mul;
using at::ne;
using at::neg;
using at::ones_like;
using at::pow;
using at::relu;
using at::sigmoid;
using at::softmax;
using at::split;
using at::sqrt;
using at::stack;
using at::sub;
using at::t;
using at::tanh;
using at::TensorList;
using at::where;
}  // namespace torch

// ---- the at::Tensor methods declared by tensor_methods.inc ---------------------------------------
namespace at {
inline Tensor Tensor::sigmoid() const { return at::sigmoid(*this); }
inline Tensor& Tensor::sigmoid_() const { return const_cast<Tensor&>(*this).copy_(at::sigmoid(*this)); }
inline Tensor Tensor::tanh() const { return at::tanh(*this); }
inline Tensor& Tensor::tanh_() const { return copy_(at::tanh(*this)); }
inline Tensor Tensor::relu() const { return at::relu(*this); }
inline Tensor& Tensor::relu_() const { return copy_(at::relu(*this)); }
inline Tensor Tensor::exp() const { return at::exp(*this); }
inline Tensor& Tensor::exp_() const { return copy_(at::exp(*this)); }
inline Tensor Tensor::log() const { return at::log(*this); }
inline Tensor Tensor::sqrt() const { return at::sqrt(*this); }
inline Tensor Tensor::neg() const { return at::neg(*this); }
// Paddle's at::abs (ATen/ops/abs.h) may be mid-inclusion here (it includes this header)
inline Tensor Tensor::abs() const { return paddle::experimental::abs(tensor_); }
inline Tensor Tensor::pow(const Scalar& e) const { return at::pow(*this, e); }
inline Tensor Tensor::pow(const Tensor& e) const { return at::pow(*this, e); }
inline Tensor Tensor::mm(const Tensor& m) const { return at::mm(*this, m); }
inline Tensor Tensor::matmul(const Tensor& o) const { return at::matmul(*this, o); }
inline Tensor Tensor::t() const { return at::t(*this); }
inline std::vector<Tensor> Tensor::chunk(int64_t c, int64_t d) const { return at::chunk(*this, c, d); }
inline std::vector<Tensor> Tensor::split(int64_t s, int64_t d) const { return at::split(*this, s, d); }
inline Tensor Tensor::type_as(const Tensor& o) const {
  return tpx::cast(tensor_, o.scalar_type());
}
inline Tensor Tensor::sum(::std::optional<ScalarType> dtype) const {
  return sum(::std::nullopt, false, dtype);
}
// not at::sum: Paddle's at::sum(self) sums every dtype into the default dtype (torch: integers
// into int64, floating types into their own)
inline Tensor Tensor::sum(c10::OptionalIntArrayRef dim, bool keepdim,
                          ::std::optional<ScalarType> dtype) const {
  ScalarType t = sum_dtype(*this, dtype);
  return paddle::experimental::sum(
      tpx::in(*this, t), dim.has_value() ? dim.value()._PD_ToPaddleIntArray()
                                         : paddle::experimental::IntArray(),
      tpx::pd(t), keepdim);
}
inline Tensor Tensor::mean(::std::optional<ScalarType> dtype) const { return at::mean(*this, dtype); }
inline Tensor Tensor::mean(c10::OptionalIntArrayRef dim, bool keepdim,
                           ::std::optional<ScalarType> dtype) const {
  return at::mean(*this, dim, keepdim, dtype);
}
inline Tensor Tensor::add(const Tensor& o, const Scalar& a) const { return at::add(*this, o, a); }
inline Tensor Tensor::add(const Scalar& o, const Scalar& a) const { return at::add(*this, o, a); }
inline Tensor Tensor::sub(const Tensor& o, const Scalar& a) const { return at::sub(*this, o, a); }
inline Tensor Tensor::sub(const Scalar& o, const Scalar& a) const { return at::sub(*this, o, a); }
inline Tensor Tensor::mul(const Tensor& o) const { return at::mul(*this, o); }
inline Tensor Tensor::mul(const Scalar& o) const { return at::mul(*this, o); }
inline Tensor Tensor::div(const Tensor& o) const { return at::div(*this, o); }
inline Tensor Tensor::div(const Scalar& o) const { return at::div(*this, o); }

namespace tpx {
// in-place: the result must keep self's dtype (torch: "result type Float can't be cast to the
// desired output type Long"), then is written into self's storage (views of self see it)
inline Tensor& inplace(const Tensor& self, const Tensor& r) {
  TORCH_CHECK(promote(r.scalar_type(), self.scalar_type()) == self.scalar_type() ||
                  category(r.scalar_type()) <= category(self.scalar_type()),
              "result type ", c10::toString(r.scalar_type()),
              " can't be cast to the desired output type ", c10::toString(self.scalar_type()));
  return self.copy_(r.scalar_type() == self.scalar_type() ? r : r.toType(self.scalar_type()));
}
}  // namespace tpx
inline Tensor& Tensor::add_(const Tensor& o, const Scalar& a) const { return tpx::inplace(*this, at::add(*this, o, a)); }
inline Tensor& Tensor::add_(const Scalar& o, const Scalar& a) const { return tpx::inplace(*this, at::add(*this, o, a)); }
inline Tensor& Tensor::sub_(const Tensor& o, const Scalar& a) const { return tpx::inplace(*this, at::sub(*this, o, a)); }
inline Tensor& Tensor::sub_(const Scalar& o, const Scalar& a) const { return tpx::inplace(*this, at::sub(*this, o, a)); }
inline Tensor& Tensor::mul_(const Tensor& o) const { return tpx::inplace(*this, at::mul(*this, o)); }
inline Tensor& Tensor::mul_(const Scalar& o) const { return tpx::inplace(*this, at::mul(*this, o)); }
inline Tensor& Tensor::div_(const Tensor& o) const { return tpx::inplace(*this, at::div(*this, o)); }
inline Tensor& Tensor::div_(const Scalar& o) const { return tpx::inplace(*this, at::div(*this, o)); }
inline Tensor operator-(const Scalar& a, const Tensor& b) {
  Tensor r = full_like(b, a);
  return r.sub_(b);
}
inline Tensor operator/(const Scalar& a, const Tensor& b) {
  Tensor r = full_like(b, a);
  return r.div_(b);
}
inline Tensor Tensor::clamp(const ::std::optional<Scalar>& mn, const ::std::optional<Scalar>& mx) const {
  return at::clamp(*this, mn, mx);
}
inline Tensor Tensor::masked_fill(const Tensor& mask, const Scalar& value) const {
  return at::where(mask, Tensor(tpx::scalar(value, scalar_type(), *this)), *this);
}
inline Tensor Tensor::eq(const Tensor& o) const { return at::eq(*this, o); }
inline Tensor Tensor::eq(const Scalar& o) const { return at::eq(*this, o); }
inline Tensor Tensor::ne(const Tensor& o) const { return at::ne(*this, o); }
inline Tensor Tensor::ne(const Scalar& o) const { return at::ne(*this, o); }
inline Tensor Tensor::gt(const Tensor& o) const { return at::gt(*this, o); }
inline Tensor Tensor::gt(const Scalar& o) const { return at::gt(*this, o); }
inline Tensor Tensor::lt(const Tensor& o) const { return at::lt(*this, o); }
inline Tensor Tensor::lt(const Scalar& o) const { return at::lt(*this, o); }
inline Tensor Tensor::ge(const Tensor& o) const { return at::ge(*this, o); }
inline Tensor Tensor::ge(const Scalar& o) const { return at::ge(*this, o); }
inline Tensor Tensor::le(const Tensor& o) const { return at::le(*this, o); }
inline Tensor Tensor::le(const Scalar& o) const { return at::le(*this, o); }
inline bool Tensor::equal(const Tensor& o) const { return at::equal(*this, o); }
inline bool Tensor::allclose(const Tensor& o, double r, double a, bool n) const {
  return at::allclose(*this, o, r, a, n);
}
inline Tensor Tensor::softmax(int64_t d, ::std::optional<ScalarType> t) const {
  return at::softmax(*this, d, t);
}
inline Tensor Tensor::expand_as(const Tensor& o) const {
  return paddle::experimental::expand(tensor_, o.sizes()._PD_ToPaddleIntArray());
}
inline Tensor Tensor::flatten(int64_t start, int64_t end) const {
  if (dim() == 0) return reshape({1});
  start = tpx::wrap_dim(start, dim());
  end = tpx::wrap_dim(end, dim());
  TORCH_CHECK(start <= end, "flatten() has invalid args: start_dim cannot come after end_dim");
  std::vector<int64_t> shape;
  for (int64_t i = 0; i < start; ++i) shape.push_back(size(i));
  int64_t n = 1;
  for (int64_t i = start; i <= end; ++i) n *= size(i);
  shape.push_back(n);
  for (int64_t i = end + 1; i < dim(); ++i) shape.push_back(size(i));
  return reshape(shape);
}
}  // namespace at
