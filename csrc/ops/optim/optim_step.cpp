// The optimisers' fused updates: argument checks, grouping by device and
// dtype, the CPU loops, and the hand-off to the multi-tensor kernels
// (optim_step.cu).
#include "ops/optim/optim_step.hpp"

#include <algorithm>
#include <cmath>
#include <string>
#include <type_traits>
#include <map>
#include <utility>

#include "runtime/errors.hpp"
#include "tensor/dispatch.hpp"

namespace ember::ops {

namespace {

using Lists = std::vector<std::vector<Tensor>>;

// Checks one parameter's operands: same shape, device and dtype, contiguous.
void check_slot(const Lists& lists, size_t i, const char* fn) {
  const Tensor& p = lists[0][i];
  EMBER_CHECK(is_floating(p.dtype()), fn, ": parameters must be floating point, got ",
              dtype_name(p.dtype()));
  for (size_t k = 0; k < lists.size(); ++k) {
    const Tensor& t = lists[k][i];
    EMBER_CHECK(t.defined(), fn, ": tensor ", k, " of parameter ", i, " is missing");
    check_same_device(p, t);
    EMBER_CHECK(t.sizes() == p.sizes(), fn, ": parameter ", i, " has shape ",
                shape_str(p.sizes()), " but its gradient or state has shape ",
                shape_str(t.sizes()));
    EMBER_CHECK(t.dtype() == p.dtype(), fn, ": parameter ", i, " is ", dtype_name(p.dtype()),
                " but its gradient or state is ", dtype_name(t.dtype()));
    EMBER_CHECK(t.is_contiguous(), fn, ": tensor ", k, " of parameter ", i,
                " is not contiguous");
  }
}

// Indices of the parameters, grouped by (device, dtype), in order.
std::vector<std::vector<size_t>> group(const std::vector<Tensor>& params) {
  std::map<std::pair<std::string, int>, size_t> where;
  std::vector<std::vector<size_t>> groups;
  for (size_t i = 0; i < params.size(); ++i) {
    const auto key = std::make_pair(params[i].device().str(), static_cast<int>(params[i].dtype()));
    auto it = where.find(key);
    if (it == where.end()) {
      it = where.emplace(key, groups.size()).first;
      groups.emplace_back();
    }
    groups[it->second].push_back(i);
  }
  return groups;
}

Lists select(const Lists& lists, const std::vector<size_t>& idx) {
  Lists out(lists.size());
  for (size_t k = 0; k < lists.size(); ++k) {
    for (size_t i : idx) out[k].push_back(lists[k][i]);
  }
  return out;
}

template <typename T>
using Acc = std::conditional_t<std::is_same<T, double>::value, double, float>;

template <typename T>
void sgd_cpu(const Lists& l, const std::vector<bool>& first, const SgdOptions& o) {
  using A = Acc<T>;
  const bool has_buf = o.momentum != 0.0;
  for (size_t i = 0; i < l[0].size(); ++i) {
    T* p = static_cast<T*>(l[0][i].data_ptr());
    const T* g = static_cast<const T*>(l[1][i].data_ptr());
    T* buf = has_buf ? static_cast<T*>(l[2][i].data_ptr()) : nullptr;
    const int64_t n = l[0][i].numel();
    for (int64_t j = 0; j < n; ++j) {
      A d = static_cast<A>(g[j]);
      if (o.maximize) d = -d;
      if (o.weight_decay != 0.0) d += static_cast<A>(o.weight_decay) * static_cast<A>(p[j]);
      if (has_buf) {
        A b = first[i] ? d
                       : static_cast<A>(o.momentum) * static_cast<A>(buf[j]) +
                             static_cast<A>(1.0 - o.dampening) * d;
        buf[j] = static_cast<T>(b);
        d = o.nesterov ? d + static_cast<A>(o.momentum) * b : b;
      }
      p[j] = static_cast<T>(static_cast<A>(p[j]) - static_cast<A>(o.lr) * d);
    }
  }
}

template <typename T>
void adam_cpu(const Lists& l, const std::vector<internal::AdamScalars>& s, const AdamOptions& o) {
  using A = Acc<T>;
  for (size_t i = 0; i < l[0].size(); ++i) {
    T* p = static_cast<T*>(l[0][i].data_ptr());
    const T* g = static_cast<const T*>(l[1][i].data_ptr());
    T* m = static_cast<T*>(l[2][i].data_ptr());
    T* v = static_cast<T*>(l[3][i].data_ptr());
    T* vmax = o.amsgrad ? static_cast<T*>(l[4][i].data_ptr()) : nullptr;
    const int64_t n = l[0][i].numel();
    const A step_size = static_cast<A>(s[i].step_size), bc2 = static_cast<A>(s[i].bc2_sqrt);
    const A b1 = static_cast<A>(o.beta1), b2 = static_cast<A>(o.beta2);
    const A wd = static_cast<A>(o.weight_decay), lr = static_cast<A>(o.lr);
    for (int64_t j = 0; j < n; ++j) {
      A grad = static_cast<A>(g[j]);
      if (o.maximize) grad = -grad;
      A param = static_cast<A>(p[j]);
      if (wd != 0) {
        if (o.decoupled) {
          param *= A(1) - lr * wd;
        } else {
          grad += wd * param;
        }
      }
      const A mj = static_cast<A>(m[j]) + (A(1) - b1) * (grad - static_cast<A>(m[j]));
      const A vj = b2 * static_cast<A>(v[j]) + (A(1) - b2) * grad * grad;
      m[j] = static_cast<T>(mj);
      v[j] = static_cast<T>(vj);
      A vhat = vj;
      if (vmax) {
        vhat = std::max(static_cast<A>(vmax[j]), vj);
        vmax[j] = static_cast<T>(vhat);
      }
      const A denom = std::sqrt(vhat) / bc2 + static_cast<A>(o.eps);
      p[j] = static_cast<T>(param - step_size * (mj / denom));
    }
  }
}

}  // namespace

void sgd_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
              const std::vector<Tensor>& bufs, const std::vector<bool>& first,
              const SgdOptions& o) {
  const size_t n = params.size();
  const bool has_buf = o.momentum != 0.0;
  EMBER_CHECK(grads.size() == n && (!has_buf || (bufs.size() == n && first.size() == n)),
              "sgd_step: the lists of parameters, gradients and momentum buffers differ in length");
  Lists all{params, grads};
  if (has_buf) all.push_back(bufs);
  for (size_t i = 0; i < n; ++i) check_slot(all, i, "SGD");
  for (const auto& idx : group(params)) {
    const Lists l = select(all, idx);
    std::vector<bool> f;
    for (size_t i : idx) f.push_back(has_buf && first[i]);
    if (l[0][0].is_cuda()) {
#if EMBER_WITH_CUDA
      internal::sgd_cuda(l, f, o);
      continue;
#endif
    }
    internal::for_float_types(l[0][0].dtype(), [&](auto tag) {
      sgd_cpu<typename decltype(tag)::type>(l, f, o);
    });
  }
}

void adam_step(const std::vector<Tensor>& params, const std::vector<Tensor>& grads,
               const std::vector<Tensor>& exp_avgs, const std::vector<Tensor>& exp_avg_sqs,
               const std::vector<Tensor>& max_sqs, const std::vector<int64_t>& steps,
               const AdamOptions& o) {
  const size_t n = params.size();
  EMBER_CHECK(grads.size() == n && exp_avgs.size() == n && exp_avg_sqs.size() == n &&
                  steps.size() == n && (!o.amsgrad || max_sqs.size() == n),
              "adam_step: the lists of parameters, gradients and states differ in length");
  Lists all{params, grads, exp_avgs, exp_avg_sqs};
  if (o.amsgrad) all.push_back(max_sqs);
  for (size_t i = 0; i < n; ++i) check_slot(all, i, o.decoupled ? "AdamW" : "Adam");
  std::vector<internal::AdamScalars> scalars(n);
  for (size_t i = 0; i < n; ++i) {
    EMBER_CHECK(steps[i] >= 1, "adam_step: step counts start at 1");
    const double t = static_cast<double>(steps[i]);
    scalars[i].step_size = o.lr / (1.0 - std::pow(o.beta1, t));
    scalars[i].bc2_sqrt = std::sqrt(1.0 - std::pow(o.beta2, t));
  }
  for (const auto& idx : group(params)) {
    const Lists l = select(all, idx);
    std::vector<internal::AdamScalars> s;
    for (size_t i : idx) s.push_back(scalars[i]);
    if (l[0][0].is_cuda()) {
#if EMBER_WITH_CUDA
      internal::adam_cuda(l, s, o);
      continue;
#endif
    }
    internal::for_float_types(l[0][0].dtype(), [&](auto tag) {
      adam_cpu<typename decltype(tag)::type>(l, s, o);
    });
  }
}

}  // namespace ember::ops
