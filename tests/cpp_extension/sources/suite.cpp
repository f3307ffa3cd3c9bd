// Differential suite (tests/cpp_extension): ATen calls, TensorOptions, dtypes, strides and
// TORCH_CHECK errors through pybind11, and TORCH_LIBRARY operators called through torch.ops
// (overloads, int/float/bool arguments, a mutating operator, errors).  Built once against
// real torch and once against Paddle's compat C++ API (Paddle >= 3.3) -- one translation unit,
// since parsing torch/extension.h is most of the build time; test_differential.py compares.
#include <torch/extension.h>
#include <torch/library.h>
// Paddle 3.3.1: torch/extension.h does not bring torch::sum; the op header does (in torch too)
#include <ATen/ops/sum.h>

#include <tuple>
#include <vector>

// creation with options and dtypes
at::Tensor make_empty_shape(int64_t a, int64_t b) {
  return torch::zeros({a, b}, torch::TensorOptions().dtype(torch::kFloat32));
}
at::Tensor make_ones_double(int64_t n) {
  return torch::ones({n}, torch::dtype(torch::kFloat64));
}
at::Tensor make_full_int(int64_t n, int64_t v) {
  return torch::full({n}, v, torch::TensorOptions().dtype(torch::kInt64));
}
at::Tensor make_arange(int64_t n) { return torch::arange(n); }
at::Tensor make_arange_float(int64_t n) {
  return torch::arange(n, torch::TensorOptions().dtype(torch::kFloat32));
}
at::Tensor zeros_like_options(const at::Tensor& x) {
  return torch::zeros(x.sizes(), x.options());
}
at::Tensor empty_like_fill(const at::Tensor& x, double v) {
  at::Tensor r = torch::empty_like(x);
  r.fill_(v);
  return r;
}

// metadata
std::vector<int64_t> sizes_of(const at::Tensor& x) { return x.sizes().vec(); }
std::vector<int64_t> strides_of(const at::Tensor& x) { return x.strides().vec(); }
std::tuple<int64_t, int64_t, int64_t, bool> meta(const at::Tensor& x) {
  return std::make_tuple(x.dim(), x.numel(), (int64_t)x.element_size(), x.is_contiguous());
}
std::string dtype_name(const at::Tensor& x) {
  switch (x.scalar_type()) {
    case at::kFloat: return "float32";
    case at::kDouble: return "float64";
    case at::kHalf: return "float16";
    case at::kBFloat16: return "bfloat16";
    case at::kInt: return "int32";
    case at::kLong: return "int64";
    case at::kBool: return "bool";
    case at::kByte: return "uint8";
    default: return "other";
  }
}
bool is_cpu(const at::Tensor& x) { return x.is_cpu() && x.device().type() == at::DeviceType::CPU; }

// raw data access by dtype, on contiguous copies
template <typename T>
at::Tensor scale_impl(const at::Tensor& x, double k) {
  at::Tensor c = x.contiguous();
  at::Tensor r = torch::empty(c.sizes(), c.options());
  const T* p = c.data_ptr<T>();
  T* q = r.data_ptr<T>();
  for (int64_t i = 0; i < c.numel(); i++) q[i] = static_cast<T>(p[i] * k);
  return r;
}
at::Tensor scale(const at::Tensor& x, double k) {
  if (x.scalar_type() == at::kFloat) return scale_impl<float>(x, k);
  if (x.scalar_type() == at::kDouble) return scale_impl<double>(x, k);
  if (x.scalar_type() == at::kLong) return scale_impl<int64_t>(x, k);
  if (x.scalar_type() == at::kInt) return scale_impl<int32_t>(x, k);
  TORCH_CHECK(false, "scale: unsupported dtype ", dtype_name(x));
  return x;
}
// strided access without contiguous(): sum of x[i][j] through strides
double strided_sum(const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 2, "strided_sum: expected a 2-D tensor, got ", x.dim(), "-D");
  TORCH_CHECK(x.scalar_type() == at::kFloat, "strided_sum: expected float32");
  const float* p = x.data_ptr<float>();
  double s = 0;
  for (int64_t i = 0; i < x.size(0); i++)
    for (int64_t j = 0; j < x.size(1); j++) s += p[i * x.stride(0) + j * x.stride(1)] * (i + 1);
  return s;
}

// ATen functions and methods
at::Tensor t_transpose(const at::Tensor& x) { return x.transpose(0, 1).contiguous(); }
at::Tensor t_permute(const at::Tensor& x) { return x.permute({2, 0, 1}).contiguous(); }
at::Tensor t_reshape(const at::Tensor& x) { return x.reshape({-1}); }
at::Tensor t_view(const at::Tensor& x, int64_t a) { return x.view({a, -1}); }
at::Tensor t_unsqueeze_squeeze(const at::Tensor& x) { return x.unsqueeze(0).squeeze(0).unsqueeze(-1); }
at::Tensor t_sum(const at::Tensor& x) { return torch::sum(x); }
at::Tensor t_abs(const at::Tensor& x) { return torch::abs(x); }
at::Tensor t_cat(const at::Tensor& a, const at::Tensor& b) { return torch::cat({a, b}, 0); }
at::Tensor t_clone_modify(const at::Tensor& x) {
  at::Tensor c = x.clone();
  c.zero_();
  return c;
}
at::Tensor t_copy(const at::Tensor& src) {
  at::Tensor dst = torch::empty(src.sizes(), src.options());
  dst.copy_(src);
  return dst;
}
at::Tensor t_to_double(const at::Tensor& x) { return x.to(torch::kFloat64); }
at::Tensor t_index_select(const at::Tensor& x, const at::Tensor& idx) {
  return x.index_select(0, idx);
}
// Paddle 3.3.1: Tensor::slice is not a const member (torch's is): call it on a copy
at::Tensor t_slice(const at::Tensor& x, int64_t start, int64_t end) {
  at::Tensor y = x;
  return y.slice(0, start, end).contiguous();
}
// in-place on the caller's tensor
void fill_inplace(at::Tensor x, double v) { x.fill_(v); }
// several outputs
std::vector<at::Tensor> split_pos_neg(const at::Tensor& x) {
  at::Tensor c = x.contiguous();
  at::Tensor pos = torch::zeros(c.sizes(), c.options());
  at::Tensor neg = torch::zeros(c.sizes(), c.options());
  const float* p = c.data_ptr<float>();
  float* a = pos.data_ptr<float>();
  float* b = neg.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); i++) (p[i] >= 0 ? a : b)[i] = p[i];
  return {pos, neg};
}
// errors
at::Tensor check_same_shape(const at::Tensor& a, const at::Tensor& b) {
  TORCH_CHECK(a.sizes() == b.sizes(), "check_same_shape: shapes differ");
  return a;
}
void check_positive(int64_t n) { TORCH_CHECK(n > 0, "n must be positive, got ", n); }

// -- TORCH_LIBRARY operators ------------------------------------------------------------------
namespace tpxlib {

at::Tensor axpb(const at::Tensor& x, double a, double b) {
  TORCH_CHECK(x.scalar_type() == at::kFloat, "axpb: expected float32 input");
  at::Tensor c = x.contiguous();
  at::Tensor r = torch::empty(c.sizes(), c.options());
  const float* p = c.data_ptr<float>();
  float* q = r.data_ptr<float>();
  for (int64_t i = 0; i < c.numel(); i++) q[i] = static_cast<float>(a * p[i] + b);
  return r;
}
at::Tensor axpb_int(const at::Tensor& x, int64_t a) { return axpb(x, static_cast<double>(a), 0.0); }
at::Tensor maybe_negate(const at::Tensor& x, bool neg) { return axpb(x, neg ? -1.0 : 1.0, 0.0); }
void add_into(const at::Tensor& a, const at::Tensor& b, at::Tensor& out) {
  TORCH_CHECK(a.sizes() == b.sizes() && b.sizes() == out.sizes(), "add_into: sizes differ");
  TORCH_CHECK(out.is_contiguous(), "add_into: out must be contiguous");
  at::Tensor ac = a.contiguous(), bc = b.contiguous();
  const float* p = ac.data_ptr<float>();
  const float* q = bc.data_ptr<float>();
  float* o = out.data_ptr<float>();
  for (int64_t i = 0; i < out.numel(); i++) o[i] = p[i] + q[i];
}
at::Tensor rowsum(const at::Tensor& x) {
  TORCH_CHECK(x.dim() == 2, "rowsum: expected 2-D input");
  at::Tensor c = x.contiguous();
  at::Tensor r = torch::zeros({c.size(0)}, c.options());
  const float* p = c.data_ptr<float>();
  float* q = r.data_ptr<float>();
  for (int64_t i = 0; i < c.size(0); i++)
    for (int64_t j = 0; j < c.size(1); j++) q[i] += p[i * c.size(1) + j];
  return r;
}
// mutates its input although its schema does not say so: what opcheck's test_schema must catch
at::Tensor undeclared_mutation(const at::Tensor& x) {
  at::Tensor r = x.clone();
  x.fill_(0.0);
  return r;
}

TORCH_LIBRARY(tpxlib, m) {
  m.def("axpb(Tensor x, float a, float b) -> Tensor");
  m.def("axpb.int(Tensor x, int a) -> Tensor");
  m.def("maybe_negate(Tensor x, bool neg) -> Tensor");
  m.def("add_into(Tensor a, Tensor b, Tensor(a!) out) -> ()");
  m.def("rowsum(Tensor x) -> Tensor");
  m.def("undeclared_mutation(Tensor x) -> Tensor");
}
TORCH_LIBRARY_IMPL(tpxlib, CPU, m) {
  m.impl("axpb", &axpb);
  m.impl("axpb.int", &axpb_int);
  m.impl("maybe_negate", &maybe_negate);
  m.impl("add_into", &add_into);
  m.impl("rowsum", &rowsum);
  m.impl("undeclared_mutation", &undeclared_mutation);
}

}  // namespace tpxlib

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  m.def("make_empty_shape", &make_empty_shape);
  m.def("make_ones_double", &make_ones_double);
  m.def("make_full_int", &make_full_int);
  m.def("make_arange", &make_arange);
  m.def("make_arange_float", &make_arange_float);
  m.def("zeros_like_options", &zeros_like_options);
  m.def("empty_like_fill", &empty_like_fill);
  m.def("sizes_of", &sizes_of);
  m.def("strides_of", &strides_of);
  m.def("meta", &meta);
  m.def("dtype_name", &dtype_name);
  m.def("is_cpu", &is_cpu);
  m.def("scale", &scale);
  m.def("strided_sum", &strided_sum);
  m.def("t_transpose", &t_transpose);
  m.def("t_permute", &t_permute);
  m.def("t_reshape", &t_reshape);
  m.def("t_view", &t_view);
  m.def("t_unsqueeze_squeeze", &t_unsqueeze_squeeze);
  m.def("t_sum", &t_sum);
  m.def("t_abs", &t_abs);
  m.def("t_cat", &t_cat);
  m.def("t_clone_modify", &t_clone_modify);
  m.def("t_copy", &t_copy);
  m.def("t_to_double", &t_to_double);
  m.def("t_index_select", &t_index_select);
  m.def("t_slice", &t_slice);
  m.def("fill_inplace", &fill_inplace);
  m.def("split_pos_neg", &split_pos_neg);
  m.def("check_same_shape", &check_same_shape);
  m.def("check_positive", &check_positive);
}
