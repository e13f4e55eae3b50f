#include "ops/elementwise.hpp"

#include <algorithm>

#include "ops/element_access.hpp"
#include "ops/fill/fill.hpp"
#include "ops/overlap.hpp"
#include "ops/promotion.hpp"
#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"
#include "tensor/storage.hpp"

namespace ember::ops {

namespace {

// A 0-d CPU tensor beside CUDA tensors: read on the host and passed by value.
bool is_cpu_scalar(const Tensor& t) { return t.dim() == 0 && t.is_cpu(); }

Scalar read_scalar(const Tensor& t) {
  const char* p = static_cast<const char*>(t.data_ptr());
  if (is_complex(t.dtype())) {
    const Complex<double> v = load_as<Complex<double>>(p, t.dtype());
    return Scalar::from_complex(v.re, v.im);
  }
  if (t.dtype() == ScalarType::Bool) return Scalar::from_bool(load_as<bool>(p, t.dtype()));
  if (is_floating(t.dtype())) return Scalar::from_double(load_as<double>(p, t.dtype()));
  return Scalar::from_int(load_as<int64_t>(p, t.dtype()));
}


// s converted to dtype t and back (wrapped, rounded) -- what torch computes
// with after casting a wrapped number to the common dtype.
Scalar round_to_dtype(const Scalar& s, ScalarType t) {
  if (is_complex(t)) {
    return dispatch_complex(t, [&](auto tag) {
      using T = typename decltype(tag)::type;
      const Complex<double> v = convert<Complex<double>>(s.to<T>());
      return Scalar::from_complex(v.re, v.im);
    });
  }
  return dispatch(t, [&](auto tag) {
    using T = typename decltype(tag)::type;
    const T v = s.to<T>();
    if (t == ScalarType::Bool) return Scalar::from_bool(convert<bool>(v));
    if (is_floating(t)) return Scalar::from_double(convert<double>(v));
    return Scalar::from_int(convert<int64_t>(v));
  });
}

}  // namespace

// out= with another shape: an empty tensor takes the new shape (as torch
// resizes it); anything else is an error (torch would resize with a warning).
void resize_out(const Tensor& out, const Shape& shape) {
  if (out.numel() != 0) {
    throw Error(detail::str("out= has shape ", shape_str(out.sizes()),
                            " but the result has shape ", shape_str(shape),
                            "; pass an output of the result's shape (or an empty tensor)"));
  }
  const Tensor fresh = Tensor::empty(shape, out.dtype(), out.device());
  TensorImpl* impl = out.impl();
  impl->storage = fresh.storage();
  impl->sizes = fresh.sizes();
  impl->strides = fresh.strides();
  impl->offset = 0;
  impl->refresh();
}

void not_implemented(const char* op, ScalarType t, bool cuda) {
  throw NotImplementedError(detail::str("\"", op, cuda ? "_cuda" : "_cpu", "\" not implemented for '",
                          torch_scalar_name(t), "'"));
}

void check_out_dtype(const Tensor& out, ScalarType expected) {
  if (out.dtype() != expected) {
    throw Error(detail::str("Found dtype ", torch_scalar_name(out.dtype()), " but expected ",
                            torch_scalar_name(expected)));
  }
}

Tensor scalar_to_tensor(const Scalar& s) {
  Tensor t = Tensor::empty({}, s.default_type(), Device(DeviceType::CPU));
  fill_(t, s);
  return t;
}

ScalarType result_type(std::initializer_list<const Operand*> inputs) {
  ResultType rt;
  for (const Operand* o : inputs) {
    if (o->is_scalar()) {
      rt.add_scalar(o->scalar);
    } else {
      rt.add_tensor(o->tensor.dtype(), o->tensor.dim());
    }
  }
  return rt.result();
}

Shape broadcast_operands(std::initializer_list<const Operand*> inputs) {
  Shape shape;
  bool first = true;
  for (const Operand* o : inputs) {
    if (o->is_scalar()) continue;
    if (first) {
      shape = o->tensor.sizes();
      first = false;
    } else if (o->tensor.sizes() != shape) {
      shape = broadcast_shapes(shape, o->tensor.sizes());
    }
  }
  return shape;
}

Device common_device(std::initializer_list<const Operand*> inputs, const Tensor& out) {
  // The device of the first tensor that is not a 0-d CPU tensor; all 0-d CPU
  // tensors: the CPU (or out's device).
  const Tensor* lead = nullptr;
  for (const Operand* o : inputs) {
    if (!o->is_scalar() && !is_cpu_scalar(o->tensor)) {
      lead = &o->tensor;
      break;
    }
  }
  if (!lead && out.defined()) return out.device();
  if (!lead) return Device(DeviceType::CPU);
  for (const Operand* o : inputs) {
    if (o->is_scalar() || &o->tensor == lead) continue;
    if (lead->is_cuda() && is_cpu_scalar(o->tensor)) continue;
    check_same_device(*lead, o->tensor);
  }
  if (out.defined()) check_same_device(out, *lead);
  return lead->device();
}

Shape output_strides(const Shape& shape, std::initializer_list<const Operand*> inputs) {
  const int64_t n = static_cast<int64_t>(shape.size());
  if (n <= 1) return contiguous_strides(shape);
  // Element strides of each full-rank input broadcast to `shape`.
  std::vector<const Tensor*> ts;
  for (const Operand* o : inputs) {
    if (!o->is_scalar() && o->tensor.dim() > 0) ts.push_back(&o->tensor);
  }
  auto stride = [&](const Tensor* t, int64_t d) -> int64_t {
    const int64_t td = d - (n - t->dim());
    return (td < 0 || t->sizes()[td] == 1) ? 0 : t->strides()[td];
  };
  // > 0 when dim a should be inner to dim b (torch's should_swap).
  auto should_swap = [&](int64_t a, int64_t b) {
    for (const Tensor* t : ts) {
      const int64_t sa = stride(t, a), sb = stride(t, b);
      if (sa == 0 || sb == 0) continue;
      if (sa < sb) return -1;
      if (sa > sb) return 1;
      if (shape[a] > shape[b]) return 1;
    }
    return 0;
  };
  // perm[0] is the innermost dim.
  std::vector<int64_t> perm(n);
  for (int64_t i = 0; i < n; ++i) perm[i] = n - 1 - i;
  for (int64_t i = 1; i < n; ++i) {
    int64_t d1 = i;
    for (int64_t d0 = i - 1; d0 >= 0; --d0) {
      const int c = should_swap(perm[d0], perm[d1]);
      if (c > 0) {
        std::swap(perm[d0], perm[d1]);
        d1 = d0;
      } else if (c < 0) {
        break;
      }
    }
  }
  Shape strides(n);
  int64_t next = 1;
  for (int64_t i = 0; i < n; ++i) {
    strides[perm[i]] = next;
    next *= std::max<int64_t>(shape[perm[i]], 1);
  }
  return strides;
}

namespace {

// A complex input (or common dtype) of an op without complex kernels raises.
void check_complex(const ElementwiseSpec& spec, const Tensor& out,
                   std::initializer_list<const Operand*> inputs) {
  if (spec.complex) return;
  ScalarType found = spec.common;
  bool cuda = out.defined() && out.is_cuda();
  for (const Operand* o : inputs) {
    if (o->is_scalar()) continue;
    cuda = cuda || o->tensor.is_cuda();
    if (is_complex(o->tensor.dtype())) found = o->tensor.dtype();
  }
  if (is_complex(found)) not_implemented(spec.name, found, cuda);
}

}  // namespace

ElementwiseIter make_elementwise(const ElementwiseSpec& spec, const Tensor& out_arg, bool inplace,
                                 std::initializer_list<const Operand*> inputs) {
  check_complex(spec, out_arg, inputs);
  ElementwiseIter it;
  it.name = spec.name;
  it.nin = static_cast<int>(inputs.size());
  it.common = spec.common;
  const Device device = common_device(inputs, out_arg);
  const Shape shape = broadcast_operands(inputs);
  Tensor out = out_arg;
  if (!out.defined()) {
    out = Tensor::empty_strided(shape, output_strides(shape, inputs), spec.out_dtype, device);
  } else {
    if (out.sizes() != shape) {
      if (inplace) {
        throw Error(detail::str("output with shape ", shape_str(out.sizes()),
                                " doesn't match the broadcast shape ", shape_str(shape)));
      }
      resize_out(out, shape);
    }
    if (spec.check_cast) check_can_cast(spec.cast_from, out.dtype());
    check_no_internal_overlap(out);
    for (const Operand* o : inputs) {
      if (!o->is_scalar() && !(inplace && o == *inputs.begin())) check_no_partial_overlap(out, o->tensor);
    }
  }
  it.out = out;
  it.result = spec.out_dtype;
  it.round_out = out.dtype() != spec.out_dtype && rounds_through(spec.out_dtype);
  const int64_t n = static_cast<int64_t>(shape.size());
  EMBER_CHECK(n <= 64, "ember tensors have at most 64 dimensions, got ", n);
  int64_t st[kMaxInputs + 1][64] = {};
  char* data[kMaxInputs + 1] = {};
  detail::broadcast_strides(out, shape, st[0]);
  data[0] = static_cast<char*>(out.data_ptr());
  it.dtype[0] = out.dtype();
  int k = 1;
  for (const Operand* o : inputs) {
    if (o->is_scalar() || (device.is_cuda() && is_cpu_scalar(o->tensor))) {
      it.by_value[k] = true;
      it.value[k] = o->is_scalar() ? o->scalar : read_scalar(o->tensor);
      // A tensor's value is converted to the common dtype like any tensor
      // input; a Python number only where torch's kernel does so.
      const bool keep = !o->is_scalar() && ((spec.keep_scalar_tensors >> (k - 1)) & 1u) &&
                        is_floating(spec.common);
      const bool round_number = spec.round_numbers || ((spec.round_number_inputs >> (k - 1)) & 1u);
      if ((!o->is_scalar() && !keep) || round_number || !is_floating_or_complex(spec.common)) {
        it.value[k] = round_to_dtype(it.value[k], spec.common);
      }
      it.dtype[k] = o->dtype();
    } else {
      detail::broadcast_strides(o->tensor, shape, st[k]);
      data[k] = static_cast<char*>(o->tensor.data_ptr());
      it.dtype[k] = o->tensor.dtype();
      // (On the GPU only a CPU scalar passed by value is a scalar to torch.)
      const bool keep = ((spec.keep_scalar_tensors >> (k - 1)) & 1u) && o->tensor.numel() == 1 &&
                        is_floating(spec.common) && !device.is_cuda();
      it.round[k] = it.dtype[k] != spec.common && rounds_through(spec.common) && !keep;
      it.any_round = it.any_round || it.round[k];
    }
    ++k;
  }
  for (; k <= kMaxInputs; ++k) it.dtype[k] = it.dtype[0];
  it.layout = make_iter_strided<kMaxInputs + 1>(shape, st, data);
  return it;
}

}  // namespace ember::ops
