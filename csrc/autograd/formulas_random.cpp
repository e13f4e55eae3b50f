// The in-place random draws from Python (functions.hpp's "random draws"): the
// old values do not reach the result, so their gradient is zero.
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/random/random.hpp"

namespace ember::autograd {

namespace {

template <typename Draw>
void draw_in_place(const Tensor& t, const char* node, Draw&& draw) {
  check_inplace(t);
  draw();
  overwritten(t, node);
}

}  // namespace

void uniform_(const Tensor& t, double from, double to, const Generator& gen) {
  draw_in_place(t, "UniformBackward0", [&] { ops::uniform_(t, from, to, gen); });
}

void normal_(const Tensor& t, double mean, double std, const Generator& gen) {
  draw_in_place(t, "NormalBackward0", [&] { ops::normal_(t, mean, std, gen); });
}

void random_(const Tensor& t, int64_t low, int64_t high, const Generator& gen) {
  draw_in_place(t, "RandomBackward0", [&] { ops::random_(t, low, high, gen); });
}

void exponential_(const Tensor& t, double lambd, const Generator& gen) {
  draw_in_place(t, "ExponentialBackward0", [&] { ops::exponential_(t, lambd, gen); });
}

void bernoulli_(const Tensor& t, double p, const Generator& gen) {
  draw_in_place(t, "BernoulliBackward0", [&] { ops::bernoulli_(t, p, gen); });
}

void bernoulli_(const Tensor& t, const Tensor& p, const Generator& gen) {
  draw_in_place(t, "BernoulliBackward0", [&] { ops::bernoulli_(t, p, gen); });
}

}  // namespace ember::autograd
