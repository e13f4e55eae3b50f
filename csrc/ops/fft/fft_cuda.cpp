// ops/fft/fft.hpp's GPU cores: one cuFFT plan execution per group of up to
// three transformed dims, plans from the per-device LRU cache.
#include "ops/fft/fft.hpp"

#include <algorithm>
#include <numeric>

#include "runtime/errors.hpp"

#if EMBER_WITH_CUDA

#include <mutex>

#include "ops/copy/copy.hpp"
#include "ops/fft/cufft_api.hpp"
#include "ops/fft/fft_plan_cache.hpp"
#include "ops/pointwise/binary.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/stream.hpp"
#include "tensor/views.hpp"

namespace ember::ops::fft {

namespace {

bool is_pow2(int64_t v) { return v > 0 && (v & (v - 1)) == 0; }

int precision_of(ScalarType t) {
  switch (t) {
    case ScalarType::Float16:
    case ScalarType::ComplexHalf:
      return 0;
    case ScalarType::Float32:
    case ScalarType::ComplexFloat:
      return 1;
    case ScalarType::Float64:
    case ScalarType::ComplexDouble:
      return 2;
    default:
      throw TypeError(detail::str("Unsupported dtype ", dtype_name(t)));
  }
}

ScalarType complex_of(int precision) {
  return precision == 0 ? ScalarType::ComplexHalf
                        : precision == 1 ? ScalarType::ComplexFloat : ScalarType::ComplexDouble;
}
ScalarType real_of(int precision) {
  return precision == 0 ? ScalarType::Float16
                        : precision == 1 ? ScalarType::Float32 : ScalarType::Float64;
}

// x *= scale, through a real view of x's (packed) elements.
void scale_(const Tensor& x, double scale) {
  if (scale == 1.0 || x.numel() == 0) return;
  const bool cplx = is_complex(x.dtype());
  const int64_t k = cplx ? 2 : 1;
  Tensor flat = Tensor(x.storage(), real_of(precision_of(x.dtype())), {x.numel() * k}, {1},
                       x.storage_offset() * k);
  mul_(flat, Operand(scale));
}

// One cuFFT execution over `dims` (at most 3) of `input`: the transformed
// dims in the order given, the others batched. `signal` is the real-side
// signal size of each dim (the output's for c2r, the input's for r2c).
Tensor exec(const Tensor& input, const std::vector<int64_t>& dims, FftKind kind, bool forward,
            const std::vector<int64_t>& signal) {
  const int64_t nd = input.dim();
  const int rank = static_cast<int>(dims.size());
  const int prec = precision_of(input.dtype());
  // Permutation: batch dims (in order) then the transformed dims.
  std::vector<bool> is_sig(static_cast<size_t>(nd), false);
  for (int64_t d : dims) is_sig[static_cast<size_t>(d)] = true;
  std::vector<int64_t> perm;
  perm.reserve(static_cast<size_t>(nd));
  for (int64_t d = 0; d < nd; ++d)
    if (!is_sig[static_cast<size_t>(d)]) perm.push_back(d);
  const size_t nbatch_dims = perm.size();
  for (int64_t d : dims) perm.push_back(d);
  Tensor x = permute(input, perm);

  Shape in_sig(x.sizes().begin() + static_cast<int64_t>(nbatch_dims), x.sizes().end());
  Shape out_sig = signal;
  if (kind == FftKind::R2C) out_sig.back() = signal.back() / 2 + 1;
  if (kind == FftKind::C2R) in_sig.back() = signal.back() / 2 + 1;
  int64_t batch = 1;
  for (size_t i = 0; i < nbatch_dims; ++i) batch *= x.size(static_cast<int64_t>(i));
  int64_t in_sig_elems = 1;
  for (int64_t s : in_sig) in_sig_elems *= s;

  // Can cuFFT read x in place? The signal packed, the batch dims one stride.
  int64_t idist = in_sig_elems;
  bool usable = kind != FftKind::C2R;  // c2r overwrites its input: always a copy
  if (usable) {
    int64_t expect = 1;
    for (int64_t i = nd - 1; i >= static_cast<int64_t>(nbatch_dims) && usable; --i) {
      if (x.size(i) != 1 && x.stride(i) != expect) usable = false;
      expect *= x.size(i);
    }
    bool first = true;
    int64_t next = 0;
    for (int64_t i = static_cast<int64_t>(nbatch_dims) - 1; i >= 0 && usable; --i) {
      if (x.size(i) == 1) continue;
      if (first) {
        idist = x.stride(i);
        if (idist < in_sig_elems) usable = false;
        first = false;
      } else if (x.stride(i) != next) {
        usable = false;
      }
      next = x.stride(i) * x.size(i);
    }
    const size_t align = element_size(input.dtype()) < 16 ? element_size(input.dtype()) * 2 : 16;
    if (reinterpret_cast<uintptr_t>(x.data_ptr()) % align != 0) usable = false;
  }
  if (!usable) {
    Tensor c = Tensor::empty(x.sizes(), x.dtype(), x.device());
    copy_(c, x);
    x = c;
    idist = in_sig_elems;
  }

  Shape out_shape(x.sizes().begin(), x.sizes().begin() + static_cast<int64_t>(nbatch_dims));
  out_shape.insert(out_shape.end(), out_sig.begin(), out_sig.end());
  const ScalarType out_t = kind == FftKind::C2R ? real_of(prec) : complex_of(prec);
  Tensor out = Tensor::empty(out_shape, out_t, input.device());

  if (batch > 0) {
    const int device = input.device().index;
    PlanKey key;
    key.rank = static_cast<int8_t>(rank);
    key.kind = kind;
    key.precision = static_cast<int8_t>(prec);
    for (int i = 0; i < rank; ++i) key.n[i] = signal[static_cast<size_t>(i)];
    key.batch = batch;
    key.idist = batch == 1 ? in_sig_elems : idist;
    std::shared_ptr<Plan> plan = get_plan(device, key);
    const CufftApi& api = cufft_api();
    const cudaStream_t stream = cuda::current_stream(device).handle();
    Tensor work;
    if (plan->work_size > 0) {
      work = Tensor::empty({static_cast<int64_t>(plan->work_size)}, ScalarType::UInt8,
                           input.device());
    }
    std::lock_guard<std::mutex> lock(plan->mu);
    if (!plan->bound || plan->bound_stream != static_cast<void*>(stream)) {
      plan->bound = false;
      EMBER_CUFFT_CHECK(api.SetStream(plan->handle, stream));
      plan->bound_stream = static_cast<void*>(stream);
      plan->bound = true;
    }
    if (work.defined() && plan->bound_work != work.data_ptr()) {
      plan->bound_work = nullptr;
      EMBER_CUFFT_CHECK(api.SetWorkArea(plan->handle, work.data_ptr()));
      plan->bound_work = work.data_ptr();
    }
    EMBER_CUFFT_CHECK(api.XtExec(plan->handle, x.data_ptr(), out.data_ptr(),
                                 forward ? CUFFT_FORWARD : CUFFT_INVERSE));
  }
  // Back to the input's dim order.
  std::vector<int64_t> inv(perm.size());
  for (size_t i = 0; i < perm.size(); ++i) inv[static_cast<size_t>(perm[i])] = static_cast<int64_t>(i);
  return permute(out, inv);
}

void check_input(const Tensor& input, const std::vector<int64_t>& dims, const char* fn) {
  EMBER_CHECK(input.is_cuda(), fn, ": expected a CUDA tensor");
  EMBER_CHECK(!dims.empty(), fn, ": no dims to transform");
  for (int64_t d : dims) {
    EMBER_CHECK(d >= 0 && d < input.dim(), fn, ": dim ", d, " out of range");
  }
}

void check_half(int prec, const Tensor& out_or_in, const std::vector<int64_t>& dims,
                const std::vector<int64_t>& sizes) {
  if (prec != 0) return;
  bool ok = true;
  for (int64_t s : sizes) ok = ok && is_pow2(s);
  if (!ok) {
    std::string s = "[";
    for (size_t i = 0; i < sizes.size(); ++i) s += (i ? ", " : "") + std::to_string(sizes[i]);
    s += "]";
    throw Error(detail::str("cuFFT only supports dimensions whose sizes are powers of two when "
                            "computing in half precision, but got a signal size of", s));
  }
}

std::vector<int64_t> sizes_of(const Tensor& t, const std::vector<int64_t>& dims) {
  std::vector<int64_t> s;
  for (int64_t d : dims) s.push_back(t.size(d));
  return s;
}

}  // namespace

Tensor fft_c2c_cuda(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                    bool forward) {
  check_input(input, dims, "fft_c2c");
  EMBER_CHECK(is_complex(input.dtype()), "fft_c2c: expected a complex input, got ",
              dtype_name(input.dtype()));
  cuda::DeviceGuard guard(input.device().index);
  check_half(precision_of(input.dtype()), input, dims, sizes_of(input, dims));
  Tensor x = input;
  // The last dims first, in groups of up to three.
  size_t end = dims.size();
  while (end > 0) {
    const size_t begin = end >= kMaxPlanRank ? end - kMaxPlanRank : 0;
    std::vector<int64_t> group(dims.begin() + static_cast<int64_t>(begin),
                               dims.begin() + static_cast<int64_t>(end));
    x = exec(x, group, FftKind::C2C, forward, sizes_of(x, group));
    end = begin;
  }
  // exec returns a permuted view of a fresh packed tensor: scale it in place.
  scale_(x, scale);
  return x;
}

Tensor fft_r2c_cuda(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                    bool onesided) {
  check_input(input, dims, "fft_r2c");
  EMBER_CHECK(is_floating(input.dtype()), "fft_r2c: expected a real floating input, got ",
              dtype_name(input.dtype()));
  cuda::DeviceGuard guard(input.device().index);
  const int prec = precision_of(input.dtype());
  check_half(prec, input, dims, sizes_of(input, dims));
  if (!onesided) {
    // The full spectrum: a complex copy of the input, transformed c2c.
    Tensor c = Tensor::empty(input.sizes(), complex_of(prec), input.device());
    copy_(c, input);
    return fft_c2c_cuda(c, dims, scale, true);
  }
  const size_t nd = dims.size();
  const size_t begin = nd > kMaxPlanRank ? nd - kMaxPlanRank : 0;
  std::vector<int64_t> last(dims.begin() + static_cast<int64_t>(begin), dims.end());
  Tensor x = exec(input, last, FftKind::R2C, true, sizes_of(input, last));
  if (begin > 0) {
    std::vector<int64_t> rest(dims.begin(), dims.begin() + static_cast<int64_t>(begin));
    return fft_c2c_cuda(x, rest, scale, true);
  }
  scale_(x, scale);
  return x;
}

Tensor fft_c2r_cuda(const Tensor& input, const std::vector<int64_t>& dims, double scale,
                    int64_t last_dim_size) {
  check_input(input, dims, "fft_c2r");
  EMBER_CHECK(is_complex(input.dtype()), "fft_c2r: expected a complex input, got ",
              dtype_name(input.dtype()));
  EMBER_CHECK(last_dim_size >= 1, "Invalid number of data points (", last_dim_size,
              ") specified");
  cuda::DeviceGuard guard(input.device().index);
  std::vector<int64_t> out_sizes = sizes_of(input, dims);
  out_sizes.back() = last_dim_size;
  check_half(precision_of(input.dtype()), input, dims, out_sizes);
  // The one-sided input holds last_dim_size / 2 + 1 frequencies (more are ignored).
  const int64_t half = last_dim_size / 2 + 1;
  const int64_t have = input.size(dims.back());
  EMBER_CHECK(have >= half, "fft_c2r: the input has ", have, " frequencies along dim ",
              dims.back(), ", fewer than last_dim_size / 2 + 1 = ", half);
  Tensor x = have > half ? narrow(input, dims.back(), 0, half) : input;
  const size_t nd = dims.size();
  const size_t begin = nd > kMaxPlanRank ? nd - kMaxPlanRank : 0;
  if (begin > 0) {
    std::vector<int64_t> rest(dims.begin(), dims.begin() + static_cast<int64_t>(begin));
    x = fft_c2c_cuda(x, rest, 1.0, false);
  }
  std::vector<int64_t> last(dims.begin() + static_cast<int64_t>(begin), dims.end());
  std::vector<int64_t> signal(out_sizes.begin() + static_cast<int64_t>(begin), out_sizes.end());
  x = exec(x, last, FftKind::C2R, false, signal);
  scale_(x, scale);
  return x;
}

}  // namespace ember::ops::fft

#else  // !EMBER_WITH_CUDA

namespace ember::ops::fft {

namespace {
[[noreturn]] void no_cuda() {
  throw Error("ember.fft on the GPU needs an ember built with CUDA");
}
}  // namespace

Tensor fft_c2c_cuda(const Tensor&, const std::vector<int64_t>&, double, bool) { no_cuda(); }
Tensor fft_r2c_cuda(const Tensor&, const std::vector<int64_t>&, double, bool) { no_cuda(); }
Tensor fft_c2r_cuda(const Tensor&, const std::vector<int64_t>&, double, int64_t) { no_cuda(); }

}  // namespace ember::ops::fft

#endif  // EMBER_WITH_CUDA
