// torch.multinomial: the checks (torch's messages) and the CPU version. The
// arithmetic is shared with the CUDA kernels (random_multinomial.hpp).
#include <algorithm>
#include <numeric>
#include <vector>

#include "ops/copy/copy.hpp"
#include "ops/random/random.hpp"
#include "ops/random/random_multinomial.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

#if EMBER_WITH_CUDA
namespace internal {
// random_multinomial.cu; returns the error flag's host copy (0: valid).
int multinomial_cuda(const Tensor& probs, const Tensor& out, int64_t k, bool replacement,
                     PhiloxState st);
}  // namespace internal
#endif

namespace {

enum Invalid { kOk = 0, kBadValue = 1, kZeroSum = 2, kTooFewCategories = 3 };

[[noreturn]] void raise_invalid(int code) {
  switch (code) {
    case kBadValue:
      throw Error("probability tensor contains either `inf`, `nan` or element < 0");
    case kZeroSum:
      throw Error("invalid multinomial distribution (sum of probabilities <= 0)");
    default:
      throw Error("invalid multinomial distribution (with replacement=False, not enough "
                  "non-negative category to sample)");
  }
}

// One row on the CPU; returns an Invalid code.
int sample_row(const double* p, int64_t n, int64_t k, bool replacement, int64_t row,
               PhiloxState st, int64_t* out) {
  for (int64_t j = 0; j < n; ++j) {
    if (!rnd::valid_probability(p[j])) return kBadValue;
  }
  if (replacement) {
    std::vector<double> cdf(static_cast<size_t>(n));
    double prefix = 0.0;
    for (int64_t c0 = 0; c0 < n; c0 += rnd::kMultinomialChunk) {
      const int64_t c1 = std::min(n, c0 + rnd::kMultinomialChunk);
      double local = 0.0;
      for (int64_t j = c0; j < c1; ++j) {
        local = rnd::add(local, p[j]);
        cdf[j] = local;
      }
      for (int64_t j = c0; j < c1; ++j) cdf[j] = rnd::add(prefix, cdf[j]);
      prefix = rnd::add(prefix, local);
    }
    const double total = prefix;
    if (!(total > 0.0)) return kZeroSum;
    for (int64_t s = 0; s < k; ++s) {
      const double u = rnd::draw_uniform53(st.seed, st.offset, row * k + s);
      out[s] = rnd::search_cdf(cdf.data(), p, n, rnd::mul(u, total));
    }
    return kOk;
  }
  std::vector<double> key(static_cast<size_t>(n));
  int64_t nonzero = 0;
  for (int64_t j = 0; j < n; ++j) {
    nonzero += p[j] > 0.0;
    key[j] = rnd::race_key(p[j], rnd::draw_uniform53(st.seed, st.offset, row * n + j));
  }
  if (nonzero == 0) return kZeroSum;
  if (nonzero < k) return kTooFewCategories;
  std::vector<int64_t> idx(static_cast<size_t>(n));
  std::iota(idx.begin(), idx.end(), int64_t(0));
  std::partial_sort(idx.begin(), idx.begin() + k, idx.end(), [&](int64_t a, int64_t b) {
    return key[a] < key[b] || (key[a] == key[b] && a < b);
  });
  std::copy(idx.begin(), idx.begin() + k, out);
  return kOk;
}

}  // namespace

Tensor multinomial(const Tensor& probs_in, int64_t k, bool replacement, const Generator& gen) {
  EMBER_CHECK(probs_in.dim() == 1 || probs_in.dim() == 2, "prob_dist must be 1 or 2 dim");
  EMBER_CHECK(is_floating(probs_in.dtype()), "multinomial only supports floating-point dtypes "
              "for input, got: ", dtype_name(probs_in.dtype()));
  EMBER_CHECK(k > 0, "cannot sample n_sample <= 0 samples");
  const int64_t n = probs_in.sizes().back();
  const int64_t rows = probs_in.dim() == 2 ? probs_in.sizes()[0] : 1;
  EMBER_CHECK(replacement || k <= n, "cannot sample n_sample > prob_dist.size(-1) samples "
              "without replacement");
  EMBER_CHECK(n <= (int64_t(1) << 24), "number of categories cannot exceed 2^24");
  const Generator g = generator_for(gen, probs_in.device(), "multinomial");
  Shape shape = probs_in.dim() == 2 ? Shape{rows, k} : Shape{k};
  Tensor out = Tensor::empty(shape, ScalarType::Int64, probs_in.device());
  if (rows == 0) return out;
  EMBER_CHECK(n > 0, "invalid multinomial distribution (sum of probabilities <= 0)");
  const Tensor probs = contiguous(to(probs_in, probs_in.device(), ScalarType::Float64));
  const PhiloxState st = g->reserve(internal::blocks_for_draw(rows * (replacement ? k : n), 2));
#if EMBER_WITH_CUDA
  if (probs.is_cuda()) {
    const int code = internal::multinomial_cuda(probs, out, k, replacement, st);
    if (code != kOk) raise_invalid(code);
    return out;
  }
#endif
  const double* p = static_cast<const double*>(probs.data_ptr());
  int64_t* o = static_cast<int64_t*>(out.data_ptr());
  for (int64_t r = 0; r < rows; ++r) {
    const int code = sample_row(p + r * n, n, k, replacement, r, st, o + r * k);
    if (code != kOk) raise_invalid(code);
  }
  return out;
}

}  // namespace ember::ops
