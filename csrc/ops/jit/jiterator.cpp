#include "ops/jit/jiterator.hpp"

#if EMBER_WITH_CUDA

#include <algorithm>
#include <cstring>

#include "ops/jit/kernel_cache.hpp"
#include "ops/jit/module.hpp"
#include "ops/promotion.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/stream.hpp"
#include "tensor/convert.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/iter.hpp"

namespace ember::ops::jit {

namespace {

constexpr int kMaxOperands = kMaxJitInputs + kMaxJitOutputs;
constexpr int kThreads = 256;

// Host mirror of include/ember/device/jiterator.cuh's Layout<N>.
template <int N>
struct JitLayout {
  int ndim;
  int index32;
  long long shape[kMaxIterDims];
  unsigned int magic[kMaxIterDims];
  unsigned int shift[kMaxIterDims];
  long long strides[N][kMaxIterDims];
  char* data[N];
};
static_assert(kMaxIterDims == 25, "jiterator.cuh's kMaxDims must equal kMaxIterDims");

// The element type the generated code names for a dtype.
const char* device_type_name(ScalarType t) {
  switch (t) {
    case ScalarType::Bool:
      return "bool";
    case ScalarType::UInt8:
      return "unsigned char";
    case ScalarType::Int8:
      return "signed char";
    case ScalarType::Int16:
      return "short";
    case ScalarType::Int32:
      return "int";
    case ScalarType::Int64:
      return "long long";
    case ScalarType::Float16:
      return "ember::Half";
    case ScalarType::BFloat16:
      return "ember::BFloat16";
    case ScalarType::Float32:
      return "float";
    case ScalarType::Float64:
      return "double";
    case ScalarType::ComplexHalf:
      return "ember::complex<ember::Half>";
    case ScalarType::ComplexFloat:
      return "ember::complex<float>";
    case ScalarType::ComplexDouble:
      return "ember::complex<double>";
  }
  return "float";
}

// The type the function computes in, torch's opmath_type: float for the
// 16-bit floats, complex<float> for complex32, the dtype itself otherwise.
ScalarType compute_dtype_of(ScalarType t) {
  return t == ScalarType::Float16 || t == ScalarType::BFloat16 ? ScalarType::Float32
         : t == ScalarType::ComplexHalf                        ? ScalarType::ComplexFloat
                                                               : t;
}

const char* extra_type_name(Scalar::Kind k) {
  return k == Scalar::Kind::Bool ? "bool" : k == Scalar::Kind::Int ? "long long" : "double";
}

bool is_cpu_scalar(const Tensor& t) { return t.dim() == 0 && t.is_cpu(); }

Scalar read_cpu_scalar(const Tensor& t) {
  return dispatch_all(t.dtype(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = *static_cast<const T*>(t.data_ptr());
    if (is_complex(t.dtype())) {
      const Complex<double> c = convert<Complex<double>>(v);
      return Scalar::from_complex(c.re, c.im);
    }
    if (t.dtype() == ScalarType::Bool) return Scalar::from_bool(convert<bool>(v));
    if (is_floating(t.dtype())) return Scalar::from_double(convert<double>(v));
    return Scalar::from_int(convert<int64_t>(v));
  });
}

// A number converted to `t`, as the bytes of a kernel argument.
void pack_scalar(const Scalar& s, ScalarType t, char* out) {
  dispatch_all(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = s.to<T>();
    std::memcpy(out, &v, sizeof(T));
  });
}

// A kernel's input and output expressions, shared by both kernels.
// `at(k, type)` is the address expression of tensor operand k.
template <typename At>
std::string body(const std::string& name, int nout, const JitVariantKey& key, At at) {
  std::string s;
  int operand = nout;
  const size_t nin = key.input_dtypes.size();
  std::string args;
  for (size_t i = 0; i < nin; ++i) {
    const std::string a = "a" + std::to_string(i);
    if (key.by_value[i]) {
      s += detail::str("    const ember_jit_c ", a, " = v", i, ";\n");
    } else {
      const char* st = device_type_name(key.input_dtypes[i]);
      s += detail::str("    const ember_jit_c ", a,
                       " = ember::jit::convert<ember_jit_c>(*reinterpret_cast<const ", st, "*>(",
                       at(operand++), "));\n");
    }
    args += (args.empty() ? "" : ", ") + a;
  }
  for (size_t j = 0; j < key.extra_kinds.size(); ++j) {
    args += (args.empty() ? "" : ", ") + detail::str("e", j);
  }
  if (nout == 1) {
    s +=
        detail::str("    *reinterpret_cast<ember_jit_s*>(", at(0),
                    ") = ember::jit::convert<ember_jit_s>(", name, "<ember_jit_c>(", args, "));\n");
  } else {
    s += "    ember_jit_c";
    for (int k = 0; k < nout; ++k) s += detail::str(k ? ", r" : " r", k);
    s += ";\n";
    for (int k = 0; k < nout; ++k) args += detail::str(", r", k);
    s += detail::str("    ", name, "<ember_jit_c>(", args, ");\n");
    for (int k = 0; k < nout; ++k) {
      s += detail::str("    *reinterpret_cast<ember_jit_s*>(", at(k),
                       ") = ember::jit::convert<ember_jit_s>(r", k, ");\n");
    }
  }
  return s;
}

// output_strides (ops/elementwise.hpp) takes its inputs as an initializer
// list; the jiterator knows their count only at run time.
Shape strides_for(const Shape& shape, const std::vector<Operand>& in) {
  const Operand* p = in.data();
  switch (in.size()) {
    case 1:
      return output_strides(shape, {p});
    case 2:
      return output_strides(shape, {p, p + 1});
    case 3:
      return output_strides(shape, {p, p + 1, p + 2});
    case 4:
      return output_strides(shape, {p, p + 1, p + 2, p + 3});
    case 5:
      return output_strides(shape, {p, p + 1, p + 2, p + 3, p + 4});
    case 6:
      return output_strides(shape, {p, p + 1, p + 2, p + 3, p + 4, p + 5});
    case 7:
      return output_strides(shape, {p, p + 1, p + 2, p + 3, p + 4, p + 5, p + 6});
    default:
      return output_strides(shape, {p, p + 1, p + 2, p + 3, p + 4, p + 5, p + 6, p + 7});
  }
}

// How many inputs travel by value (kernel arguments of their own).
int slot_count(const JitVariantKey& key) {
  int n = 0;
  for (bool v : key.by_value) n += v ? 1 : 0;
  return n;
}

void fast_divmod(uint32_t d, unsigned* magic, unsigned* shift) {
  unsigned sh = 0;
  while (sh < 32 && (uint64_t(1) << sh) < d) ++sh;
  *shift = sh;
  *magic = static_cast<uint32_t>(((uint64_t(1) << 32) * ((uint64_t(1) << sh) - d)) / d + 1);
}

}  // namespace

std::string JitVariantKey::str() const {
  std::string s = dtype_name(common);
  if (out >= 0) s += std::string("->") + dtype_name(out_dtype());
  s += "(";
  for (size_t i = 0; i < input_dtypes.size(); ++i) {
    s += (i ? "," : "") + std::string(dtype_name(input_dtypes[i])) + (by_value[i] ? "=v" : "");
  }
  s += ";";
  for (Scalar::Kind k : extra_kinds) s += extra_type_name(k)[0];
  return s + ")";
}

bool JitVariantKey::operator==(const JitVariantKey& o) const {
  return common == o.common && input_dtypes == o.input_dtypes && by_value == o.by_value &&
         extra_kinds == o.extra_kinds && out == o.out;
}

std::string jiterator_source(const std::string& code, const std::string& name, int num_outputs,
                             const JitVariantKey& key) {
  int ntensor = num_outputs;
  for (bool v : key.by_value) ntensor += v ? 0 : 1;
  std::string params;
  for (size_t i = 0; i < key.by_value.size(); ++i) {
    if (key.by_value[i]) params += detail::str(", ember_jit_c v", i);
  }
  for (size_t j = 0; j < key.extra_kinds.size(); ++j) {
    params += detail::str(", ", extra_type_name(key.extra_kinds[j]), " e", j);
  }
  std::string s;
  s += "// ember.cuda.jiterator: " + key.str() + "\n";
  s += "#include <ember/device/jiterator.cuh>\n";
  s += "#line 1 \"jiterator_code\"\n";
  s += code;
  s += "\n#line 1 \"ember_jiterator_kernels\"\n";
  // ember_jit_s: the outputs' element type (the common dtype); ember_jit_c:
  // what the function
  // computes in (float for float16/bfloat16, as torch's opmath_type).
  s += detail::str("typedef ", device_type_name(key.out_dtype()), " ember_jit_s;\n");
  s += detail::str("typedef ", device_type_name(compute_dtype_of(key.common)), " ember_jit_c;\n");
  s += detail::str("constexpr int kOperands = ", ntensor, ";\n");
  s += "extern \"C\" __global__ void ember_jiterator_flat(long long n, "
       "ember::jit::Layout<kOperands> L" +
       params + ") {\n";
  s += "  const long long step = (long long)gridDim.x * blockDim.x;\n";
  s += "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) "
       "{\n";
  // Flat: operand k is contiguous with its own element size.
  std::vector<std::string> types(static_cast<size_t>(ntensor), "ember_jit_s");
  {
    int k = num_outputs;
    for (size_t i = 0; i < key.by_value.size(); ++i) {
      if (!key.by_value[i]) types[k++] = device_type_name(key.input_dtypes[i]);
    }
  }
  s += body(name, num_outputs, key, [&](int k) {
    return detail::str("L.data[", k, "] + i * (long long)sizeof(", types[k], ")");
  });
  s += "  }\n}\n";
  s += "extern \"C\" __global__ void ember_jiterator_strided(long long n, "
       "ember::jit::Layout<kOperands> L" +
       params + ") {\n";
  s += "  const long long step = (long long)gridDim.x * blockDim.x;\n";
  s += "  for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) "
       "{\n";
  s += "    long long off[kOperands];\n    ember::jit::offsets(L, i, off);\n";
  s += body(name, num_outputs, key,
            [&](int k) { return detail::str("L.data[", k, "] + off[", k, "]"); });
  s += "  }\n}\n";
  return s;
}

JitFunction::JitFunction(std::string code, std::string name, int num_outputs)
    : code_(std::move(code)), name_(std::move(name)), num_outputs_(num_outputs) {
  EMBER_CHECK_VALUE(num_outputs >= 1 && num_outputs <= kMaxJitOutputs,
                    "the jiterator supports 1 to ", kMaxJitOutputs, " outputs, got ", num_outputs);
}

JitPlan JitFunction::plan(std::vector<Operand> inputs, std::vector<Scalar> extras) const {
  EMBER_CHECK(!inputs.empty() && inputs.size() <= size_t(kMaxJitInputs),
              "jiterator only supports 1 to ", kMaxJitInputs, " inputs, got ", inputs.size());
  JitPlan p;
  // The device: the first CUDA tensor's; 0-d CPU tensors join as numbers.
  const Tensor* lead = nullptr;
  for (const Operand& o : inputs) {
    if (!o.is_scalar() && o.tensor.is_cuda()) {
      lead = &o.tensor;
      break;
    }
  }
  EMBER_CHECK(lead != nullptr,
              "jiterator functions run on CUDA tensors: pass at least one tensor on a CUDA "
              "device (got only numbers and CPU tensors)");
  for (const Operand& o : inputs) {
    if (!o.is_scalar() && !is_cpu_scalar(o.tensor)) check_same_device(*lead, o.tensor);
  }
  p.device = lead->device();
  ResultType rt;
  Shape shape;
  bool first = true;
  for (const Operand& o : inputs) {
    if (o.is_scalar()) {
      rt.add_scalar(o.scalar);
      continue;
    }
    rt.add_tensor(o.tensor.dtype(), o.tensor.dim());
    if (first) {
      shape = o.tensor.sizes();
      first = false;
    } else if (o.tensor.sizes() != shape) {
      shape = broadcast_shapes(shape, o.tensor.sizes());
    }
  }
  p.key.common = rt.result();
  for (Operand& o : inputs) {
    const bool by_value = o.is_scalar() || is_cpu_scalar(o.tensor);
    p.key.input_dtypes.push_back(o.is_scalar() ? o.scalar.default_type() : o.tensor.dtype());
    p.key.by_value.push_back(by_value);
    if (by_value && !o.is_scalar()) o = Operand(read_cpu_scalar(o.tensor));
  }
  for (const Scalar& e : extras) p.key.extra_kinds.push_back(e.kind);
  const Shape strides = strides_for(shape, inputs);
  for (int k = 0; k < num_outputs_; ++k) {
    p.outputs.push_back(Tensor::empty_strided(shape, strides, p.key.common, p.device));
  }
  p.numel = numel_of(shape);
  p.inputs = std::move(inputs);
  p.extras = std::move(extras);
  return p;
}

const JitFunction::Variant* JitFunction::find(const JitVariantKey& key, int sm) {
  std::lock_guard<std::mutex> lock(mutex_);
  for (const auto& v : variants_) {
    if (v->sm == sm && v->key == key) return v.get();
  }
  return nullptr;
}

namespace {
int device_sm(const Device& d) {
  const cuda::DeviceProperties& p = cuda::get_device_properties(d.index);
  return p.major * 10 + p.minor;
}
}  // namespace

bool JitFunction::ready(const JitPlan& p) { return find(p.key, device_sm(p.device)) != nullptr; }

void JitFunction::prepare(const JitPlan& p) {
  const int sm = device_sm(p.device);
  if (find(p.key, sm)) return;
  Source src;
  src.code = jiterator_source(code_, name_, num_outputs_, p.key);
  src.file_name = "jiterator_" + name_ + ".cu";
  src.options = {"-std=c++17", "-default-device"};
  auto v = std::make_unique<Variant>();
  v->key = p.key;
  v->sm = sm;
  v->module = Module::load(compile_or_load(src, sm).binary);
  v->flat = &v->module->kernel("ember_jiterator_flat");
  v->strided = &v->module->kernel("ember_jiterator_strided");
  std::lock_guard<std::mutex> lock(mutex_);
  variants_.push_back(std::move(v));
}

namespace {

// Launches a compiled variant over a merged layout of n tensor operands
// (outputs first): the flat kernel when every operand is contiguous.
// `values`: the by-value inputs in order, converted to the compute type.
void launch(Kernel* flat_kernel, Kernel* strided_kernel, const JitVariantKey& key,
            const IterLayout<kMaxOperands>& it, int n, const int64_t* itemsize,
            const std::vector<Scalar>& values, const std::vector<Scalar>& extras,
            const Device& device) {
  bool flat = it.ndim == 1;
  for (int k = 0; k < n && flat; ++k) flat = it.strides[k][0] == itemsize[k];

  JitLayout<kMaxOperands> layout{};  // the kernel reads only the first n operands' rows
  static_assert(sizeof(JitLayout<kMaxOperands>) < 4096, "kernel parameters must stay small");
  layout.ndim = it.ndim;
  layout.index32 = it.numel < (int64_t(1) << 31) ? 1 : 0;
  for (int d = 0; d < it.ndim; ++d) {
    layout.shape[d] = it.shape[d];
    if (layout.index32) fast_divmod(uint32_t(it.shape[d]), &layout.magic[d], &layout.shift[d]);
  }
  // Layout<n> on the device: strides[n][25] then data[n]. Repack the rows.
  std::vector<char> packed(offsetof(JitLayout<kMaxOperands>, strides) +
                           size_t(n) * (sizeof(long long) * kMaxIterDims + sizeof(char*)));
  std::memcpy(packed.data(), &layout, offsetof(JitLayout<kMaxOperands>, strides));
  char* rows = packed.data() + offsetof(JitLayout<kMaxOperands>, strides);
  for (int k = 0; k < n; ++k) {
    long long row[kMaxIterDims] = {};
    for (int d = 0; d < it.ndim; ++d) row[d] = it.strides[k][d];
    std::memcpy(rows + size_t(k) * sizeof(row), row, sizeof(row));
  }
  std::memcpy(rows + size_t(n) * sizeof(long long) * kMaxIterDims, it.data,
              size_t(n) * sizeof(char*));

  Kernel* kernel = flat ? flat_kernel : strided_kernel;
  EMBER_CHECK(kernel->param_sizes().size() == 2 + extras.size() + values.size() &&
                  kernel->param_sizes()[1] == packed.size(),
              "jiterator: the compiled kernel's parameters (", kernel->param_sizes().size(),
              ", layout of ", kernel->param_sizes().size() > 1 ? kernel->param_sizes()[1] : 0,
              " bytes) differ from what ember packs (layout of ", packed.size(),
              " bytes): please report this to ember");

  // Kernel arguments: n, the layout, the by-value inputs, the extras.
  long long numel = it.numel;
  alignas(16) char slots[kMaxJitInputs + 16][16] = {};
  std::vector<void*> args = {&numel, packed.data()};
  int slot = 0;
  for (const Scalar& v : values) {
    pack_scalar(v, compute_dtype_of(key.common), slots[slot]);
    args.push_back(slots[slot++]);
  }
  for (const Scalar& e : extras) {
    if (e.kind == Scalar::Kind::Bool) {
      std::memcpy(slots[slot], &e.b, sizeof(bool));
    } else if (e.kind == Scalar::Kind::Int) {
      std::memcpy(slots[slot], &e.i, sizeof(int64_t));
    } else {
      std::memcpy(slots[slot], &e.d, sizeof(double));
    }
    args.push_back(slots[slot++]);
  }
  const cuda::StreamView stream = cuda::current_stream(device.index);
  const int sms = cuda::get_device_properties(device.index).multi_processor_count;
  const int64_t blocks = std::min<int64_t>((numel + kThreads - 1) / kThreads, int64_t(sms) * 8);
  LaunchConfig cfg;
  cfg.grid[0] = static_cast<unsigned>(std::max<int64_t>(blocks, 1));
  cfg.block[0] = kThreads;
  kernel->launch(cfg, stream, args.data());
}

}  // namespace

void JitFunction::run(const JitPlan& p) {
  if (p.numel == 0) return;
  const int sm = device_sm(p.device);
  const Variant* v = find(p.key, sm);
  if (!v) {
    prepare(p);
    v = find(p.key, sm);
  }
  // The layout over the tensor operands: outputs, then tensor inputs.
  const Shape& shape = p.outputs[0].sizes();
  const int64_t nd = static_cast<int64_t>(shape.size());
  EMBER_CHECK(nd <= 64, "ember tensors have at most 64 dimensions, got ", nd);
  static thread_local int64_t st[kMaxOperands][64];
  char* data[kMaxOperands] = {};
  int64_t itemsize[kMaxOperands] = {};
  int n = 0;
  for (const Tensor& o : p.outputs) {
    detail::broadcast_strides(o, shape, st[n]);
    itemsize[n] = int64_t(o.itemsize());
    data[n++] = static_cast<char*>(o.data_ptr());
  }
  std::vector<Scalar> values;
  for (size_t i = 0; i < p.inputs.size(); ++i) {
    if (p.key.by_value[i]) {
      values.push_back(p.inputs[i].scalar);
      continue;
    }
    const Tensor& t = p.inputs[i].tensor;
    detail::broadcast_strides(t, shape, st[n]);
    itemsize[n] = int64_t(t.itemsize());
    data[n++] = static_cast<char*>(t.data_ptr());
  }
  for (int k = n; k < kMaxOperands; ++k) std::fill(st[k], st[k] + nd, 0);
  const IterLayout<kMaxOperands> it = make_iter_strided<kMaxOperands>(shape, st, data);
  launch(v->flat, v->strided, p.key, it, n, itemsize, values, p.extras, p.device);
}

void JitFunction::run(const ElementwiseIter& e) {
  if (e.numel() == 0) return;
  JitPlan p;
  p.device = e.out.device();
  p.key.common = e.common;
  p.key.out = static_cast<int8_t>(e.dtype[0]);
  std::vector<Scalar> values;
  for (int k = 1; k <= e.nin; ++k) {
    p.key.input_dtypes.push_back(e.dtype[k]);
    p.key.by_value.push_back(e.by_value[k]);
    if (e.by_value[k]) values.push_back(e.value[k]);
  }
  const int sm = device_sm(p.device);
  const Variant* v = find(p.key, sm);
  if (!v) {
    prepare(p);
    v = find(p.key, sm);
  }
  // The iterator's operands, less the by-value inputs (null data, zero strides).
  IterLayout<kMaxOperands> it;
  it.ndim = e.layout.ndim;
  it.numel = e.layout.numel;
  for (int d = 0; d < it.ndim; ++d) it.shape[d] = e.layout.shape[d];
  int64_t itemsize[kMaxOperands] = {};
  int n = 0;
  for (int k = 0; k <= e.nin; ++k) {
    if (k > 0 && e.by_value[k]) continue;
    for (int d = 0; d < it.ndim; ++d) it.strides[n][d] = e.layout.strides[k][d];
    it.data[n] = e.layout.data[k];
    itemsize[n++] = int64_t(element_size(e.dtype[k]));
  }
  launch(v->flat, v->strided, p.key, it, n, itemsize, values, {}, p.device);
}

void run_elementwise(JitFunction& f, const ElementwiseIter& it) { f.run(it); }

}  // namespace ember::ops::jit

#endif  // EMBER_WITH_CUDA
