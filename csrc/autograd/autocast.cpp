#include "autograd/autocast.hpp"

#include <memory>
#include <unordered_map>

#include "autograd/functions.hpp"
#include "autograd/grad_mode.hpp"
#include "autograd/meta.hpp"
#include "runtime/errors.hpp"

namespace ember::autocast {

namespace detail {
thread_local uint8_t t_state = 0;
}  // namespace detail

namespace {

thread_local ScalarType t_dtype[kDeviceTypes] = {ScalarType::BFloat16, ScalarType::Float16};
thread_local bool t_cache_enabled = true;
thread_local int t_nesting = 0;

struct CacheEntry {
  std::weak_ptr<TensorImpl> source;  // the key's TensorImpl is still this one
  uint32_t version = 0;              // the source's version when cast
  bool with_history = false;         // cast in grad mode (has ToCopyBackward)
  Tensor cast;
};

// Per thread, as the rest of the state (torch keeps one process-wide map under
// a mutex; a thread-local one needs no lock and one thread's region exit
// cannot drop another's casts).
std::unordered_map<const TensorImpl*, CacheEntry>& cache() {
  thread_local std::unordered_map<const TensorImpl*, CacheEntry> c;
  return c;
}

inline uint8_t bit(DeviceType d) noexcept { return static_cast<uint8_t>(1u << static_cast<int>(d)); }
inline int idx(DeviceType d) noexcept { return static_cast<int>(d); }

bool cacheable(ScalarType to, const Tensor& t, DeviceType d) {
  if (!t_cache_enabled || to != t_dtype[idx(d)] || t.dtype() != ScalarType::Float32) return false;
  const autograd::AutogradMeta* m = autograd::meta(t);
  return m && m->requires_grad && !m->grad_fn && !m->is_view;
}

Tensor cast_now(ScalarType to, const Tensor& t) {
  return autograd::to(t, t.device(), to);
}

}  // namespace

bool is_enabled(DeviceType d) noexcept { return (detail::t_state & bit(d)) != 0; }

void set_enabled(DeviceType d, bool enabled) noexcept {
  detail::t_state = enabled ? static_cast<uint8_t>(detail::t_state | bit(d))
                            : static_cast<uint8_t>(detail::t_state & ~bit(d));
}

ScalarType get_dtype(DeviceType d) noexcept { return t_dtype[idx(d)]; }
void set_dtype(DeviceType d, ScalarType dtype) noexcept { t_dtype[idx(d)] = dtype; }
bool is_cache_enabled() noexcept { return t_cache_enabled; }
void set_cache_enabled(bool enabled) noexcept { t_cache_enabled = enabled; }
int increment_nesting() noexcept { return ++t_nesting; }
int decrement_nesting() noexcept { return --t_nesting; }
int nesting() noexcept { return t_nesting; }
void clear_cache() noexcept { cache().clear(); }
size_t cache_size() noexcept { return cache().size(); }

bool is_eligible(const Tensor& t, DeviceType d) noexcept {
  return t.defined() && t.device().type == d && is_floating(t.dtype()) &&
         t.dtype() != ScalarType::Float64;
}

Tensor cached_cast(ScalarType to, const Tensor& t, DeviceType d) {
  if (!is_eligible(t, d) || t.dtype() == to) return t;
  if (!cacheable(to, t, d)) return cast_now(to, t);
  const bool grad = autograd::GradMode::is_enabled();
  auto& c = cache();
  auto it = c.find(t.impl());
  if (it != c.end()) {
    const CacheEntry& e = it->second;
    const bool same = !e.source.expired() && e.source.lock() == t.impl_ptr();
    if (same && e.version == autograd::version(t) && (e.with_history || !grad)) return e.cast;
  }
  CacheEntry e{t.impl_ptr(), autograd::version(t), grad, cast_now(to, t)};
  Tensor out = e.cast;
  c[t.impl()] = std::move(e);
  return out;
}

Tensor lower(const Tensor& t, DeviceType d) {
  return is_enabled(d) ? cached_cast(t_dtype[idx(d)], t, d) : t;
}

Tensor to_float32(const Tensor& t, DeviceType d) {
  return is_enabled(d) ? cached_cast(ScalarType::Float32, t, d) : t;
}

ScalarType promote_type(const std::vector<const Tensor*>& ts, DeviceType d) {
  const ScalarType low = t_dtype[idx(d)];
  ScalarType cur = low;
  for (const Tensor* t : ts) {
    if (!t || !is_eligible(*t, d)) continue;
    const ScalarType next = t->dtype();
    if (cur == ScalarType::Float32 || next == ScalarType::Float32) {
      cur = ScalarType::Float32;
    } else if (next != low) {
      throw Error(::ember::detail::str(
          "autocast: an op that runs in the widest input type got ", dtype_name(next),
          " beside the autocast dtype ", dtype_name(low), "; cast it to float32 or ",
          dtype_name(low), " first"));
    }
  }
  return cur;
}

std::optional<DeviceType> applies(const Tensor& first, uint8_t lists) noexcept {
  if (!any_enabled() || !first.defined()) return std::nullopt;
  const DeviceType d = first.device().type;
  if (!is_enabled(d) || !(lists & bit(d))) return std::nullopt;
  return d;
}

std::optional<ScalarType> opt_dtype(const Tensor& x, std::optional<ScalarType> dtype,
                                    uint8_t lists) noexcept {
  if (dtype) return dtype;
  const auto d = applies(x, lists);
  if (!d || !is_eligible(x, *d)) return dtype;
  return ScalarType::Float32;
}

Scope::Scope(DeviceType d, ScalarType to) noexcept : active_(true), device_(d), to_(to) {
  detail::t_state = static_cast<uint8_t>(detail::t_state | detail::kSuspended);
}

Scope::~Scope() {
  if (active_) detail::t_state = static_cast<uint8_t>(detail::t_state & ~detail::kSuspended);
}

Tensor Scope::cast(const Tensor& t) const {
  return active_ ? cached_cast(to_, t, device_) : t;
}

std::vector<Tensor> Scope::cast(const std::vector<Tensor>& ts) const {
  std::vector<Tensor> out;
  out.reserve(ts.size());
  for (const Tensor& t : ts) out.push_back(cast(t));
  return out;
}

Scope enter(const Tensor& first, uint8_t lists, Policy policy) {
  const auto d = applies(first, lists);
  if (!d) return Scope();
  switch (policy) {
    case Policy::Lower: return Scope(*d, t_dtype[idx(*d)]);
    case Policy::Float32: return Scope(*d, ScalarType::Float32);
    case Policy::Promote: return Scope(*d, promote_type({&first}, *d));
  }
  return Scope();
}

Scope enter_promote(const std::vector<const Tensor*>& ts, uint8_t lists) {
  const Tensor* first = nullptr;
  for (const Tensor* t : ts) {
    if (t && t->defined()) {
      first = t;
      break;
    }
  }
  if (!first) return Scope();
  const auto d = applies(*first, lists);
  if (!d) return Scope();
  const ScalarType to = promote_type(ts, *d);
  return Scope(*d, to);
}

}  // namespace ember::autocast
