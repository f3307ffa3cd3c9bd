// ABI shim: the symbols a binary built against Paddle 3.4's torch-compatible C++ API
// (paddlecodec 0.2.0's libtorchcodec_*.so) needs and Paddle 3.3.1 either does not export or
// exports with another object layout, each defined on top of Paddle 3.3.1's own
// implementation.  torchproxy/abi_shim/__init__.py links it against the binaries it serves
// (DT_NEEDED) and loads it RTLD_LOCAL before them: those binaries then resolve their symbols
// in the shim first (a dlopen'ed object's local scope starts with itself), while Paddle and
// every other library keep Paddle's definitions.  That matters for c10::Device: same mangled
// names in 3.3.1 and 3.4, different layouts.
//
// The layouts below were read off paddlecodec 0.2.0's machine code (objdump), because its
// inline code (compiled with 3.4's headers) touches these objects directly:
// - c10::DispatchKey (3.4) is torch's uint16_t enum (CPU = 50, CUDA = 51); Paddle 3.3.1 has
//   torch::DispatchKey {Undefined = 0, CPU, CUDA} (an int enum).
// - torch::Library is 64 bytes in both: kind_ @0, ns_ @8, dispatch_key_ @40, file_ @48,
//   line_ @56.  Only dispatch_key_ differs: 3.4 std::optional<uint16_t enum> (value @40,
//   engaged @42) vs 3.3.1 std::optional<int enum> (value @40, engaged @44).  3.4's inline
//   Library::impl reads it as 3.4's.
// - torch::CppFunction (3.4) starts with a std::function<FunctionResult(const
//   FunctionArgs&)>, as 3.3.1's (its only member); the schema data after it stays with the
//   caller, which destroys it.  But the boxed values differ: 3.4's at::Tensor is 80 bytes
//   (paddle::Tensor tensor_ @0, then std::shared_ptr<c10::Storage> storage_, a cache) where
//   3.3.1's is 64 (tensor_ only), so 3.4's IValue is 96 bytes (tag @0, std::variant @8 with
//   its index @88) and 3.3.1's 80 (index @72); tags and the variant's alternatives are the
//   same (None, Bool, Int, Double, String, Tensor, GenericList, CustomClass, Tuple).
//   FunctionArgs is a std::vector<IValue> and FunctionResult an IValue in both.  So a kernel
//   of the 3.4 binary is registered wrapped: its 3.3.1 arguments are converted to 3.4
//   values, it runs, and its 3.4 result is converted back (Bridge below).
// - caffe2::TypeMeta (3.4) is a uint16_t index (returned in a register); typeMetaDatas()
//   returns 72-byte records whose name (a string_view) is read only for error messages.
#include <torch/library.h>

#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <stdexcept>
#include <variant>
#include <vector>
#include <new>
#include <optional>
#include <ostream>
#include <string>
#include <string_view>
#include <utility>

namespace {

enum class DispatchKey34 : uint16_t {};
constexpr uint16_t kCPU34 = 50;
constexpr uint16_t kCUDA34 = 51;

// A 3.4 key Paddle 3.3.1 has no counterpart for (BackendSelect, Meta, Autograd...) is
// registered as CPU: 3.3.1's registry has one implementation slot per operator that it ever
// calls (CPU), and paddlecodec registers its BackendSelect and CPU kernels under the same
// names with the same functions.
torch::DispatchKey to_331(DispatchKey34 key) {
  switch (static_cast<uint16_t>(key)) {
    case kCUDA34:
      return torch::DispatchKey::CUDA;
    default:
      return torch::DispatchKey::CPU;
  }
}

struct TypeMetaData34 {  // caffe2::detail::TypeMetaData of 3.4, 72 bytes
  size_t itemsize_;
  void* new_;
  void* placementNew_;
  void* copy_;
  void* placementDelete_;
  void* delete_;
  size_t id_;
  std::string_view name_;
};
static_assert(sizeof(TypeMetaData34) == 72, "3.4 TypeMetaData is 72 bytes");

struct TypeMeta34 {  // caffe2::TypeMeta of 3.4: trivially copyable, returned in %ax
  uint16_t index_;
};

constexpr size_t kTypeMetaSlots = 256;  // >= 3.4's kMaxTypeIndex + 1 for the scalar types

TypeMetaData34* type_meta_table() {
  static TypeMetaData34 table[kTypeMetaSlots];
  static bool filled = [] {
    for (auto& e : table) e.name_ = "nullptr (uninitialized)";
#define TORCHPROXY_FILL(cpp_type, _unused, name)                         \
  table[static_cast<uint16_t>(c10::ScalarType::name)].itemsize_ =        \
      sizeof(cpp_type);                                                  \
  table[static_cast<uint16_t>(c10::ScalarType::name)].name_ = #name;
    AT_FORALL_SCALAR_TYPES_WITH_COMPLEX_AND_QINTS(TORCHPROXY_FILL)
#undef TORCHPROXY_FILL
    table[static_cast<uint16_t>(c10::ScalarType::Undefined)].name_ = "Undefined";
    return true;
  }();
  (void)filled;
  return table;
}

// -- boxed values: mirrors of 3.4's and of 3.3.1's IValue (see the header comment) ----------
struct Tensor34 {  // 3.4's at::Tensor
  paddle::Tensor tensor_;
  std::shared_ptr<void> storage_;  // shared_ptr<c10::Storage>: same layout, type-erased release
};
static_assert(sizeof(Tensor34) == 80, "3.4's at::Tensor is 80 bytes");

template <class TensorT>
struct IValueMirror;

template <class TensorT>
struct TupleMirror {
  std::vector<IValueMirror<TensorT>> elements;
};

struct CustomClassMirror {
  std::shared_ptr<torch::CustomClassHolder> ptr;
  std::string class_name;
};

enum class Tag : int { None = 0, Bool, Int, Double, String, Tensor, GenericList, CustomClass, Tuple };

template <class TensorT>
struct IValueMirror {
  Tag tag_ = Tag::None;
  std::variant<std::monostate, bool, int64_t, double, std::string, TensorT,
               std::vector<IValueMirror>, CustomClassMirror, TupleMirror<TensorT>>
      value_;
};

using IValue34 = IValueMirror<Tensor34>;
using IValue331Mirror = IValueMirror<at::Tensor>;
static_assert(sizeof(IValue34) == 96, "3.4's IValue is 96 bytes");
static_assert(sizeof(IValue331Mirror) == sizeof(torch::IValue), "mirror of 3.3.1's IValue");

struct FunctionArgs34 {
  std::vector<IValue34> args_;
};
struct FunctionResult34 {
  IValue34 value_;
};
using Kernel34 = std::function<FunctionResult34(const FunctionArgs34&)>;

struct FunctionArgs331Mirror {
  std::vector<torch::IValue> args_;
};
static_assert(sizeof(FunctionArgs331Mirror) == sizeof(torch::FunctionArgs), "3.3.1 FunctionArgs");
struct CppFunction331Mirror {
  std::function<torch::FunctionResult(const torch::FunctionArgs&)> func_;
};
static_assert(sizeof(CppFunction331Mirror) == sizeof(torch::CppFunction), "3.3.1 CppFunction");

const IValue331Mirror& as_mirror(const torch::IValue& v) {
  return reinterpret_cast<const IValue331Mirror&>(v);
}

template <class Out, class In, class TensorFn>
Out convert(In&& in, TensorFn&& tensor) {
  Out out;
  out.tag_ = in.tag_;
  switch (in.value_.index()) {
    case 0: break;
    case 1: out.value_ = std::get<1>(in.value_); break;
    case 2: out.value_ = std::get<2>(in.value_); break;
    case 3: out.value_ = std::get<3>(in.value_); break;
    case 4: out.value_ = std::get<4>(std::forward<In>(in).value_); break;
    case 5: out.value_.template emplace<5>(tensor(std::get<5>(in.value_))); break;
    case 6: {
      auto& list = out.value_.template emplace<6>();
      for (auto& e : std::get<6>(in.value_)) list.push_back(convert<Out>(e, tensor));
      break;
    }
    case 7: out.value_ = CustomClassMirror(std::get<7>(in.value_)); break;
    case 8: {
      auto& tuple = out.value_.template emplace<8>();
      for (auto& e : std::get<8>(in.value_).elements)
        tuple.elements.push_back(convert<Out>(e, tensor));
      break;
    }
    default:  // valueless_by_exception: nothing to convert
      throw std::runtime_error("torchproxy ABI shim: a boxed value without a value");
  }
  return out;
}

IValue34 to_34(const IValue331Mirror& v) {
  return convert<IValue34>(v, [](const at::Tensor& t) {
    return Tensor34{t._PD_GetInner(), nullptr};
  });
}

IValue331Mirror to_331(IValue34&& v) {
  return convert<IValue331Mirror>(v, [](const Tensor34& t) { return at::Tensor(t.tensor_); });
}

}  // namespace

// -- c10::Device (3.4): torch's layout, {DeviceType type_ (int8: CPU 0, CUDA 1), DeviceIndex
// index_ (int8), then a std::string @8} (40 bytes, read off CpuDeviceInterface's
// constructor); 3.3.1's is a phi::Place.  The string is left empty: it names custom devices.
struct Device34 {
  int8_t type_;
  int8_t index_;
  std::string name_;
};
static_assert(sizeof(Device34) == 40, "3.4's c10::Device is 40 bytes");

extern "C" void torchproxy_device_ctor(Device34* self, const std::string& text)
    asm("_ZN3c106DeviceC1ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE");
extern "C" void torchproxy_device_ctor(Device34* self, const std::string& text) {
  // torch's grammar: ([a-zA-Z_]+)(:[0-9]+)?, "cpu"/"cuda" ("gpu": Paddle's name for cuda)
  auto colon = text.find(':');
  std::string name = text.substr(0, colon);
  int index = -1;
  if (colon != std::string::npos) {
    std::string digits = text.substr(colon + 1);
    bool ok = !digits.empty() && digits.size() < 4;
    for (char c : digits) ok = ok && c >= '0' && c <= '9';
    if (!ok)
      throw std::runtime_error("Invalid device string: '" + text + "'");
    index = std::stoi(digits);
  }
  int8_t type;
  if (name == "cpu") {
    type = 0;
  } else if (name == "cuda" || name == "gpu") {
    type = 1;
  } else {
    throw std::runtime_error("Invalid device string: '" + text +
                             "' (torchproxy ABI shim: cpu or cuda)");
  }
  if (type == 0 && index > 0)
    throw std::runtime_error("CPU device index must be -1 or zero, got " + std::to_string(index));
  new (self) Device34{type, static_cast<int8_t>(index), std::string()};
}
extern "C" void torchproxy_device_ctor2(Device34* self, const std::string& text)
    asm("_ZN3c106DeviceC2ERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEE");
extern "C" void torchproxy_device_ctor2(Device34* self, const std::string& text) {
  torchproxy_device_ctor(self, text);
}

static std::string device34_str(const Device34& d) {
  std::string out = d.type_ == 0 ? "cpu" : d.type_ == 1 ? "cuda" : "unknown";
  if (d.index_ != -1) out += ":" + std::to_string(static_cast<int>(d.index_));
  return out;
}

// std::string c10::Device::str() const
extern "C" std::string torchproxy_device_str(const Device34* self)
    asm("_ZNK3c106Device3strB5cxx11Ev");
extern "C" std::string torchproxy_device_str(const Device34* self) { return device34_str(*self); }

// std::ostream& c10::operator<<(std::ostream&, const c10::Device&)
extern "C" std::ostream& torchproxy_device_print(std::ostream& os, const Device34& d)
    asm("_ZN3c10lsERSoRKNS_6DeviceE");
extern "C" std::ostream& torchproxy_device_print(std::ostream& os, const Device34& d) {
  return os << device34_str(d);
}

// c10::get_default_dtype() of 3.4 returns caffe2::TypeMeta; 3.3.1's is an inline function
// returning ScalarType::Float in every translation unit, so this answers the same.
extern "C" TypeMeta34 torchproxy_get_default_dtype() asm("_ZN3c1017get_default_dtypeEv");
extern "C" TypeMeta34 torchproxy_get_default_dtype() {
  return TypeMeta34{static_cast<uint16_t>(c10::ScalarType::Float)};
}

// static caffe2::TypeMeta::typeMetaDatas()
extern "C" TypeMetaData34* torchproxy_type_meta_datas() asm("_ZN6caffe28TypeMeta13typeMetaDatasEv");
extern "C" TypeMetaData34* torchproxy_type_meta_datas() { return type_meta_table(); }

// torch::Library::Library(Kind, const std::string&, std::optional<c10::DispatchKey>,
//                         const char*, uint32_t)   (C1 and C2: same body, as g++ emits)
extern "C" void torchproxy_library_ctor(void* self, torch::Library::Kind kind,
                                        const std::string& ns,
                                        std::optional<DispatchKey34> key, const char* file,
                                        uint32_t line)
    asm("_ZN5torch7LibraryC1ENS0_4KindERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt8optionalIN3c1011DispatchKeyEEPKcj");
extern "C" void torchproxy_library_ctor(void* self, torch::Library::Kind kind,
                                        const std::string& ns,
                                        std::optional<DispatchKey34> key, const char* file,
                                        uint32_t line) {
  static_assert(sizeof(torch::Library) == 64, "Paddle 3.3.1's torch::Library is 64 bytes");
  std::optional<torch::DispatchKey> key331;
  if (key) key331 = to_331(*key);
  new (self) torch::Library(kind, ns, key331, file, line);
  // rewrite dispatch_key_ (bytes 40..47) in 3.4's representation, which the caller's inline
  // Library::impl reads; 3.3.1's out-of-line Library::def(schema) does not read it
  unsigned char* field = static_cast<unsigned char*>(self) + 40;
  std::memset(field, 0, 8);
  if (key) {
    uint16_t v = static_cast<uint16_t>(*key);
    std::memcpy(field, &v, sizeof v);
    field[2] = 1;
  }
}
extern "C" void torchproxy_library_ctor2(void* self, torch::Library::Kind kind,
                                         const std::string& ns,
                                         std::optional<DispatchKey34> key, const char* file,
                                         uint32_t line)
    asm("_ZN5torch7LibraryC2ENS0_4KindERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEESt8optionalIN3c1011DispatchKeyEEPKcj");
extern "C" void torchproxy_library_ctor2(void* self, torch::Library::Kind kind,
                                         const std::string& ns,
                                         std::optional<DispatchKey34> key, const char* file,
                                         uint32_t line) {
  torchproxy_library_ctor(self, kind, ns, key, file, line);
}

// void torch::OperatorRegistry::register_implementation(const std::string&, c10::DispatchKey,
//                                                       torch::CppFunction&&)
extern "C" void torchproxy_register_implementation(torch::OperatorRegistry* self,
                                                   const std::string& name,
                                                   DispatchKey34 key, void* func34)
    asm("_ZN5torch16OperatorRegistry23register_implementationERKNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEEEN3c1011DispatchKeyEONS_11CppFunctionE");
extern "C" void torchproxy_register_implementation(torch::OperatorRegistry* self,
                                                   const std::string& name,
                                                   DispatchKey34 key, void* func34) {
  // take the 3.4 kernel out of the caller's CppFunction (its leading std::function; moving
  // a std::function relocates its storage whatever the signature names) ...
  auto kernel = std::make_shared<Kernel34>(std::move(*static_cast<Kernel34*>(func34)));
  // ... and register a 3.3.1 CppFunction (its one member: the std::function) around it that
  // converts the values; exceptions pass through unchanged, as 3.4's own wrapper made them
  CppFunction331Mirror wrapped{[kernel](const torch::FunctionArgs& args) -> torch::FunctionResult {
    const auto& in = reinterpret_cast<const FunctionArgs331Mirror&>(args).args_;
    FunctionArgs34 args34;
    args34.args_.reserve(in.size());
    for (const auto& v : in) args34.args_.push_back(to_34(as_mirror(v)));
    FunctionResult34 out = (*kernel)(args34);
    IValue331Mirror back = to_331(std::move(out.value_));
    return torch::FunctionResult(std::move(reinterpret_cast<torch::IValue&>(back)));
  }};
  self->register_implementation(name, to_331(key),
                                std::move(reinterpret_cast<torch::CppFunction&>(wrapped)));
}

#ifdef TORCHPROXY_DEFINE_IOS_BASE_LIBRARY_INIT
// std::ios_base_library_init(): libstdc++ >= 13 (GLIBCXX_3.4.32) exports it so that a TU
// including <iostream> pulls in the library's stream initialisation; older libstdc++ lacks it
// and initialises the standard streams from every TU built with its headers (libpaddle's,
// loaded before this), so an empty body is that function's whole contract here.  Defined only
// when the running libstdc++ lacks it (__init__.py checks).
namespace std {
void ios_base_library_init() {}
}  // namespace std
#endif

// The schema string an operator was registered with (TORCH_LIBRARY's m.def), or nullptr.
// Paddle 3.3.1's Python binding (torch_compat._get_operation) appends keyword arguments in
// call order and fills no defaults, so torchproxy binds a call to the schema first
// (abi_shim.bind_arguments); the registry keeps the string alive.
extern "C" __attribute__((visibility("default"))) const char* torchproxy_operator_schema(
    const char* qualified_name) {
  auto* op = torch::OperatorRegistry::instance().find_operator(qualified_name);
  if (op == nullptr || op->schema.empty()) return nullptr;
  return op->schema.c_str();
}
