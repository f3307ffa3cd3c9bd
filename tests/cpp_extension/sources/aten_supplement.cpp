// The ATen surface of torchproxy's supplement (torchproxy/include/torchproxy/aten), one pybind11
// function per expression, written for torch: built against real torch and against Paddle
// through torchproxy and compared by tests/cpp_extension/test_aten_supplement.py (cases.py,
// group "aten").  Only <torch/extension.h> is included, as extension sources do.
#include <torch/extension.h>
#include <torch/version.h>

#include <string>
#include <vector>

using at::Tensor;
using torch::Scalar;

PYBIND11_MODULE(TORCH_EXTENSION_NAME, m) {
  // free functions
  m.def("sigmoid", [](Tensor x) { return torch::sigmoid(x); });
  m.def("tanh", [](Tensor x) { return torch::tanh(x); });
  m.def("relu", [](Tensor x) { return torch::relu(x); });
  m.def("elu", [](Tensor x) { return torch::elu(x); });
  m.def("elu_alpha", [](Tensor x, double a) { return torch::elu(x, /*alpha=*/a); });
  m.def("elu_scaled", [](Tensor x) { return torch::elu(x, 0.5, 2.0, 1.5); });
  m.def("addmm", [](Tensor b, Tensor x, Tensor w) { return torch::addmm(b, x, w); });
  m.def("addmm_ab", [](Tensor b, Tensor x, Tensor w) { return torch::addmm(b, x, w, 0.5, 2); });
  m.def("mm", [](Tensor a, Tensor b) { return torch::mm(a, b); });
  m.def("matmul", [](Tensor a, Tensor b) { return torch::matmul(a, b); });
  m.def("ones_like", [](Tensor x) { return torch::ones_like(x); });
  m.def("ones_like_f64", [](Tensor x) { return torch::ones_like(x, torch::kFloat64); });
  m.def("full_like", [](Tensor x, double v) { return torch::full_like(x, v); });
  m.def("full_like_int", [](Tensor x) { return torch::full_like(x, 7, torch::dtype(torch::kInt32)); });
  m.def("zeros_like", [](Tensor x) { return torch::zeros_like(x); });
  m.def("empty_like_shape", [](Tensor x) {
    auto e = torch::empty_like(x);
    return std::vector<int64_t>(e.sizes().begin(), e.sizes().end());
  });
  m.def("sum_all", [](Tensor x) { return x.sum(); });
  m.def("sum_dim", [](Tensor x, int64_t d, bool k) { return x.sum(d, k); });
  m.def("sum_dims", [](Tensor x) { return x.sum({0, 1}); });
  m.def("mean", [](Tensor x) { return torch::mean(x); });
  m.def("mean_dim", [](Tensor x, int64_t d, bool k) { return torch::mean(x, d, k); });
  m.def("mean_method", [](Tensor x) { return x.mean(); });
  m.def("exp", [](Tensor x) { return torch::exp(x); });
  m.def("log", [](Tensor x) { return torch::log(x); });
  m.def("sqrt", [](Tensor x) { return torch::sqrt(x); });
  m.def("pow_scalar", [](Tensor x, double e) { return torch::pow(x, e); });
  m.def("pow_int", [](Tensor x) { return torch::pow(x, 2); });
  m.def("pow_tensor", [](Tensor x, Tensor e) { return torch::pow(x, e); });
  m.def("pow_base", [](Tensor e) { return torch::pow(2.0, e); });
  m.def("where", [](Tensor c, Tensor a, Tensor b) { return torch::where(c, a, b); });
  m.def("where_scalar", [](Tensor c, Tensor b) { return torch::where(c, 0.5, b); });
  m.def("cat", [](Tensor a, Tensor b) { return torch::cat({a, b}, 1); });
  m.def("stack", [](Tensor a, Tensor b, int64_t d) { return torch::stack({a, b}, d); });
  m.def("equal", [](Tensor a, Tensor b) { return torch::equal(a, b); });
  m.def("allclose", [](Tensor a, Tensor b) { return torch::allclose(a, b); });
  m.def("allclose_tol", [](Tensor a, Tensor b) { return torch::allclose(a, b, 0.1, 0.1); });
  m.def("clamp", [](Tensor x) { return torch::clamp(x, -1.0, 2.0); });
  m.def("clamp_min", [](Tensor x) { return torch::clamp(x, 0); });
  m.def("maximum", [](Tensor a, Tensor b) { return torch::maximum(a, b); });
  m.def("minimum", [](Tensor a, Tensor b) { return torch::minimum(a, b); });
  m.def("softmax", [](Tensor x, int64_t d) { return torch::softmax(x, d); });
  m.def("neg", [](Tensor x) { return torch::neg(x); });
  m.def("add_alpha", [](Tensor a, Tensor b) { return torch::add(a, b, 2); });
  m.def("sub_alpha", [](Tensor a, Tensor b) { return torch::sub(a, b, 0.5); });
  m.def("div", [](Tensor a, Tensor b) { return torch::div(a, b); });
  m.def("t", [](Tensor x) { return torch::t(x); });
  m.def("chunk", [](Tensor x, int64_t c, int64_t d) { return torch::chunk(x, c, d); });
  m.def("split", [](Tensor x, int64_t s, int64_t d) { return torch::split(x, s, d); });
  // methods
  m.def("m_tanh", [](Tensor x) { return x.tanh(); });
  m.def("m_exp", [](Tensor x) { return x.exp(); });
  m.def("m_log", [](Tensor x) { return x.log(); });
  m.def("m_sigmoid", [](Tensor x) { return x.sigmoid(); });
  m.def("m_relu", [](Tensor x) { return x.relu(); });
  m.def("m_abs", [](Tensor x) { return x.abs(); });
  m.def("m_neg", [](Tensor x) { return x.neg(); });
  m.def("m_sqrt", [](Tensor x) { return x.sqrt(); });
  m.def("m_pow", [](Tensor x) { return x.pow(2); });
  m.def("m_pow_tensor", [](Tensor x, Tensor e) { return x.pow(e); });
  m.def("m_mm", [](Tensor a, Tensor b) { return a.mm(b); });
  m.def("m_matmul", [](Tensor a, Tensor b) { return a.matmul(b); });
  m.def("m_t", [](Tensor x) { return x.t(); });
  m.def("m_chunk", [](Tensor x, int64_t c, int64_t d) { return x.chunk(c, d); });
  m.def("m_split", [](Tensor x, int64_t s) { return x.split(s); });
  m.def("m_type_as", [](Tensor x, Tensor o) { return x.type_as(o); });
  m.def("m_contiguous", [](Tensor x) { return x.contiguous(); });
  m.def("m_to_double", [](Tensor x) { return x.to(torch::kFloat64); });
  m.def("m_to_int", [](Tensor x) { return x.to(torch::kInt32); });
  m.def("m_mean_dim", [](Tensor x) { return x.mean(1, true); });
  m.def("m_add", [](Tensor a, Tensor b) { return a.add(b); });
  m.def("m_sub", [](Tensor a, Tensor b) { return a.sub(b, 3); });
  m.def("m_mul", [](Tensor a, Tensor b) { return a.mul(b); });
  m.def("m_div", [](Tensor a, Tensor b) { return a.div(b); });
  m.def("m_add_", [](Tensor a, Tensor b) { a.add_(b); return a; });
  m.def("m_mul_scalar_", [](Tensor a) { a.mul_(3); return a; });
  m.def("m_clamp", [](Tensor x) { return x.clamp(0.0, 1.0); });
  m.def("m_masked_fill", [](Tensor x, Tensor mask) { return x.masked_fill(mask, -1.0); });
  m.def("m_cmp", [](Tensor a, Tensor b) {
    return std::vector<Tensor>{a.eq(b), a.ne(b), a.gt(b), a.lt(b), a.ge(b), a.le(b)};
  });
  m.def("m_cmp_scalar", [](Tensor a) {
    return std::vector<Tensor>{a.eq(1), a.ne(1), a.gt(0.5), a.lt(0.5), a.ge(1), a.le(1)};
  });
  m.def("m_equal", [](Tensor a, Tensor b) { return a.equal(b); });
  m.def("m_allclose", [](Tensor a, Tensor b) { return a.allclose(b); });
  m.def("m_softmax", [](Tensor x) { return x.softmax(-1); });
  m.def("m_expand_as", [](Tensor x, Tensor o) { return x.expand_as(o); });
  m.def("m_flatten", [](Tensor x) { return x.flatten(); });
  m.def("m_flatten_range", [](Tensor x) { return x.flatten(1, 2); });
  // operators
  m.def("op_add", [](Tensor a, Tensor b) { return a + b; });
  m.def("op_sub", [](Tensor a, Tensor b) { return a - b; });
  m.def("op_mul", [](Tensor a, Tensor b) { return a * b; });
  m.def("op_div", [](Tensor a, Tensor b) { return a / b; });
  m.def("op_neg", [](Tensor a) { return -a; });
  m.def("op_scalar_right", [](Tensor a) {
    return std::vector<Tensor>{a + 1, a - 2.5, a * 3, a / 2};
  });
  m.def("op_scalar_left", [](Tensor z) {
    return std::vector<Tensor>{1 - z, 2.5 + z, 3 * z, 1.0 / z};
  });
  m.def("op_scalar_object", [](Tensor z, double s) {
    Scalar alpha = s;
    return alpha * (z - 1);
  });
  m.def("op_cmp", [](Tensor a, Tensor b) {
    return std::vector<Tensor>{a == b, a != b, a > b, a < b, a >= b, a <= b};
  });
  m.def("op_cmp_scalar", [](Tensor z) {
    return std::vector<Tensor>{z > 0, z < 0, z >= 1, z <= 1, z == 1, z != 1, 0 < z};
  });
  m.def("op_iadd", [](Tensor a, Tensor b) { a += b; return a; });
  m.def("op_imul", [](Tensor a, Tensor b) { a *= b; return a; });
  m.def("op_isub_scalar", [](Tensor a) { a -= 1; return a; });
  m.def("op_idiv", [](Tensor a, Tensor b) { a /= b; return a; });
  m.def("op_imul_view_alias", [](Tensor a, Tensor b) {
    auto alias = a;  // shares storage: torch's in-place ops write where every alias sees it
    a *= b;
    return alias;
  });
  // declarations of issue 23 that compile in a CPU build (torch's do too)
  m.def("version", [] {
    return std::vector<int>{TORCH_VERSION_MAJOR, TORCH_VERSION_MINOR, TORCH_VERSION_PATCH};
  });
  m.def("device_type_names", [] {
    return std::vector<std::string>{torch::DeviceTypeName(torch::kCPU),
                                    torch::DeviceTypeName(torch::kCPU, true),
                                    torch::DeviceTypeName(torch::kCUDA),
                                    torch::DeviceTypeName(torch::kCUDA, true)};
  });
  m.def("dtype_constants", [](Tensor x) { return x.to(torch::kBool); });
  m.def("float8_constant", [] {
    return torch::kFloat8_e4m3fn == at::ScalarType::Float8_e4m3fn &&
           c10::elementSize(torch::kFloat8_e4m3fn) == 1;
  });
  m.def("stream", [] {
    torch::Stream s(torch::Stream::DEFAULT, torch::Device(torch::kCPU));
    auto p = s.pack3();
    auto u = torch::Stream::unpack3(p.stream_id, p.device_index, p.device_type);
    return std::vector<int64_t>{s.id(), u == s, s.device_type() == torch::kCPU};
  });
  m.def("d_elu", [](Tensor z, double a) {  // the LLTM expression, as written there
    Scalar alpha = a;
    auto e = z.exp();
    auto mask = (alpha * (e - 1)) < 0;
    return (z > 0).type_as(z) + mask.type_as(z) * (alpha * e);
  });
}
