#include "autograd/optim.hpp"

#include <utility>

#include "autograd/meta.hpp"
#include "ops/copy/copy.hpp"
#include "ops/optim/amp.hpp"

namespace ember::autograd {

namespace {

// The written tensors: non-contiguous ones are replaced by contiguous
// stand-ins, copied back by finish(); every original is remembered so that
// finish() can bump its version.
class Written {
 public:
  void add(std::vector<Tensor>& ts) {
    for (Tensor& t : ts) {
      originals_.push_back(t);
      if (t.is_contiguous()) continue;
      Tensor c = ops::contiguous(t);
      copies_.emplace_back(t, c);
      t = std::move(c);
    }
  }
  void finish() {
    for (auto& [orig, c] : copies_) ops::copy_(orig, c);
    for (const Tensor& t : originals_) bump_version(t);
  }

 private:
  std::vector<Tensor> originals_;
  std::vector<std::pair<Tensor, Tensor>> copies_;  // (original, contiguous stand-in)
};

// Read-only operands only need contiguous values.
void make_contiguous(std::vector<Tensor>& ts) {
  for (Tensor& t : ts) {
    if (!t.is_contiguous()) t = ops::contiguous(t);
  }
}

}  // namespace

void sgd_step(std::vector<Tensor> params, std::vector<Tensor> grads, std::vector<Tensor> bufs,
              const std::vector<bool>& first, const ops::SgdOptions& o) {
  Written w;
  w.add(params);
  w.add(bufs);
  make_contiguous(grads);
  ops::sgd_step(params, grads, bufs, first, o);
  w.finish();
}

void adam_step(std::vector<Tensor> params, std::vector<Tensor> grads,
               std::vector<Tensor> exp_avgs, std::vector<Tensor> exp_avg_sqs,
               std::vector<Tensor> max_exp_avg_sqs, const std::vector<int64_t>& steps,
               const ops::AdamOptions& o) {
  Written w;
  w.add(params);
  w.add(exp_avgs);
  w.add(exp_avg_sqs);
  w.add(max_exp_avg_sqs);
  make_contiguous(grads);
  ops::adam_step(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, o);
  w.finish();
}

void amp_non_finite_check_and_unscale_(std::vector<Tensor> grads, const Tensor& found_inf,
                                       const Tensor& inv_scale) {
  Written w;
  w.add(grads);
  ops::amp_non_finite_check_and_unscale_(grads, found_inf, inv_scale);
  w.finish();
  bump_version(found_inf);
}

void amp_update_scale_(const Tensor& scale, const Tensor& growth_tracker, const Tensor& found_inf,
                       double growth_factor, double backoff_factor, int64_t growth_interval) {
  ops::amp_update_scale_(scale, growth_tracker, found_inf, growth_factor, backoff_factor,
                         growth_interval);
  bump_version(scale);
  bump_version(growth_tracker);
}

}  // namespace ember::autograd
