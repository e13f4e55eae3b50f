// GradScaler's steps (ops/optim/amp.hpp): argument checks (torch's messages),
// grouping by dtype, the CPU loops, and the hand-off to amp.cu.
#include "ops/optim/amp.hpp"

#include <cmath>
#include <map>
#include <type_traits>

#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

void check_one_float(const Tensor& t, const char* name) {
  EMBER_CHECK(t.defined() && t.numel() == 1, name, " must be a 1-element tensor.");
  EMBER_CHECK(t.dtype() == ScalarType::Float32, name, " must be a float tensor.");
}

template <typename T>
using Acc = std::conditional_t<std::is_same<T, double>::value, double, float>;

template <typename T>
void unscale_cpu(const Tensor& g, float* found_inf, float inv_scale) {
  using A = Acc<T>;
  T* p = static_cast<T*>(g.data_ptr());
  const int64_t n = g.numel();
  bool bad = false;
  const A inv = static_cast<A>(inv_scale);
  for (int64_t j = 0; j < n; ++j) {
    const A v = static_cast<A>(p[j]);
    bad |= !std::isfinite(v);
    if (inv_scale != 1.0f) p[j] = static_cast<T>(v * inv);
  }
  if (bad) *found_inf = 1.0f;
}

template <typename F>
void float_types(ScalarType t, F&& f) {
  dispatch_floating(t, std::forward<F>(f), [t] {
    throw TypeError(detail::str("_amp_foreach_non_finite_check_and_unscale_: gradients must be "
                                "floating point, got ", dtype_name(t)));
  });
}

}  // namespace

void amp_non_finite_check_and_unscale_(const std::vector<Tensor>& grads, const Tensor& found_inf,
                                       const Tensor& inv_scale) {
  check_one_float(found_inf, "found_inf");
  check_one_float(inv_scale, "inv_scale");
  EMBER_CHECK(found_inf.device() == inv_scale.device(),
              "found_inf and inv_scale must be on the same device, got ", found_inf.device().str(),
              " and ", inv_scale.device().str());
  std::map<int, std::vector<Tensor>> by_dtype;
  for (size_t i = 0; i < grads.size(); ++i) {
    const Tensor& g = grads[i];
    EMBER_CHECK(g.defined(), "_amp_foreach_non_finite_check_and_unscale_: tensor ", i,
                " is undefined");
    EMBER_CHECK(g.device() == found_inf.device(),
                "_amp_foreach_non_finite_check_and_unscale_: tensor ", i, " is on ",
                g.device().str(), " but found_inf and inv_scale are on ", found_inf.device().str(),
                "; group the gradients by device");
    EMBER_CHECK(g.is_contiguous(), "_amp_foreach_non_finite_check_and_unscale_: tensor ", i,
                " is not contiguous");
    float_types(g.dtype(), [](auto) {});
    if (g.numel() > 0) by_dtype[static_cast<int>(g.dtype())].push_back(g);
  }
  if (found_inf.is_cuda()) {
#if EMBER_WITH_CUDA
    for (auto& [dt, list] : by_dtype) {
      internal::amp_unscale_cuda(list, static_cast<float*>(found_inf.data_ptr()),
                                 static_cast<const float*>(inv_scale.data_ptr()));
    }
    return;
#endif
  }
  float* fi = static_cast<float*>(found_inf.data_ptr());
  const float inv = *static_cast<const float*>(inv_scale.data_ptr());
  for (auto& [dt, list] : by_dtype) {
    for (const Tensor& g : list) {
      float_types(g.dtype(), [&](auto tag) { unscale_cpu<typename decltype(tag)::type>(g, fi, inv); });
    }
  }
}

void amp_update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                       double growth_factor, double backoff_factor, int64_t growth_interval) {
  EMBER_CHECK(scale.defined() && scale.numel() == 1, "current_scale must be a 1-element tensor.");
  EMBER_CHECK(growth_tracker.defined() && growth_tracker.numel() == 1,
              "growth_tracker must be a 1-element tensor.");
  EMBER_CHECK(found_inf.defined() && found_inf.numel() == 1, "found_inf must be a 1-element tensor.");
  EMBER_CHECK(scale.dtype() == ScalarType::Float32, "current_scale must be a float tensor.");
  EMBER_CHECK(growth_tracker.dtype() == ScalarType::Int32, "growth_tracker must be an int tensor.");
  EMBER_CHECK(found_inf.dtype() == ScalarType::Float32, "found_inf must be a float tensor.");
  EMBER_CHECK(growth_tracker.device() == scale.device() && found_inf.device() == scale.device(),
              "_amp_update_scale_: current_scale, growth_tracker and found_inf must be on one "
              "device, got ", scale.device().str(), ", ", growth_tracker.device().str(), " and ",
              found_inf.device().str());
  float* s = static_cast<float*>(scale.data_ptr());
  int32_t* tracker = static_cast<int32_t*>(growth_tracker.data_ptr());
  const float* fi = static_cast<const float*>(found_inf.data_ptr());
  if (scale.is_cuda()) {
#if EMBER_WITH_CUDA
    internal::amp_update_scale_cuda(s, tracker, fi, growth_factor, backoff_factor, growth_interval,
                                    scale.device().index);
    return;
#endif
  }
  if (*fi != 0.0f) {
    *s = static_cast<float>(static_cast<double>(*s) * backoff_factor);
    *tracker = 0;
    return;
  }
  const int64_t successful = static_cast<int64_t>(*tracker) + 1;
  if (successful == growth_interval) {
    const float grown = static_cast<float>(static_cast<double>(*s) * growth_factor);
    if (std::isfinite(grown)) *s = grown;
    *tracker = 0;
  } else {
    *tracker = static_cast<int32_t>(successful);
  }
}

}  // namespace ember::ops
