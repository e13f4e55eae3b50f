// Autocast (torch.autocast): thread-local mixed-precision state, the cast
// cache, and the helpers the ops on torch's autocast lists call first.
//
// State per thread (torch's is thread-local too): per device type (cpu, cuda)
// an enabled flag and a dtype (cpu: bfloat16, cuda: float16 by default), the
// nesting depth of autocast regions, and whether casts are cached. With
// autocast off an op pays one thread-local byte load (any_enabled()).
//
// How an op on a list hooks itself in (its autograd function, the one every
// Python spelling reaches), before anything else:
//
//   Tensor mm(const Tensor& a, const Tensor& b) {
//     if (autocast::any_enabled()) {
//       if (auto ac = autocast::enter(a, autocast::kBothLists, autocast::Policy::Lower)) {
//         return autograd::mm(ac.cast(a), ac.cast(b));
//       }
//     }
//     ...
//
// enter() decides from the op's first tensor argument which device type's
// state applies (torch: the autocast dispatch key of the tensors' device);
// it returns an inactive scope when autocast is off for that device type or
// the op is not on that device type's list. An active scope suspends autocast
// until it ends, so the ops the call runs inside do not autocast again
// (torch's ExcludeDispatchKeyGuard). ac.cast(t) casts t to the policy's dtype
// when t is eligible: floating, not float64, on that device type; the cast is
// autograd-aware (ToCopyBackward: gradients reach the float32 leaf).
//
// EMBER_AUTOCAST(Policy, Lists, first, statement) is the same in one line for
// ops written elsewhere, e.g. layer_norm (fp32, cuda list) and conv2d (lower,
// both lists):
//   EMBER_AUTOCAST(Float32, kCudaList, x, return layer_norm(ac.cast(x), shape, ac.cast(w), ac.cast(b), eps));
//   EMBER_AUTOCAST(Lower, kBothLists, x, return conv2d(ac.cast(x), ac.cast(w), ac.cast(b), ...));
//
// Cast cache: casts to the lower-precision dtype of float32 leaves that
// require grad (the weights) are kept until the outermost autocast region
// exits, so a weight used by several ops of one forward is cast once (torch
// caches the same ones). An entry is reused only while the source has the same
// version (not written in place since) and, in grad mode, only if it recorded
// its history.
#pragma once

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "runtime/device.hpp"
#include "tensor/tensor.hpp"

namespace ember::autocast {

// ember::DeviceType (runtime/device.hpp): CPU = 0, CUDA = 1.
constexpr int kDeviceTypes = 2;

// Which device types' op lists an op is on (torch has one list per device type).
enum Lists : uint8_t { kCpuList = 1, kCudaList = 2, kBothLists = 3 };

// torch's cast policies: lower_precision_fp, fp32, promote (widest input type).
enum class Policy : uint8_t { Lower, Float32, Promote };

namespace detail {
// Bits 0-1: autocast enabled for device type 0 (cpu) / 1 (cuda); bit 7: suspended
// inside an op that already cast its inputs.
extern thread_local uint8_t t_state;
constexpr uint8_t kSuspended = 0x80;
}  // namespace detail

// Autocast is on for some device type and not suspended: one thread-local load.
inline bool any_enabled() noexcept {
  const uint8_t s = detail::t_state;
  return s != 0 && s < detail::kSuspended;
}

// ---- state (torch.is_autocast_enabled & co) -----------------------------------
bool is_enabled(DeviceType d) noexcept;
void set_enabled(DeviceType d, bool enabled) noexcept;
ScalarType get_dtype(DeviceType d) noexcept;
void set_dtype(DeviceType d, ScalarType dtype) noexcept;
bool is_cache_enabled() noexcept;
void set_cache_enabled(bool enabled) noexcept;
int increment_nesting() noexcept;
int decrement_nesting() noexcept;
int nesting() noexcept;
// Drops this thread's cached casts.
void clear_cache() noexcept;
size_t cache_size() noexcept;  // tests

// ---- casts ---------------------------------------------------------------------
// Floating, not float64, on device type d (torch's is_eligible).
bool is_eligible(const Tensor& t, DeviceType d) noexcept;
// t cast to `to` when eligible for d (cached as described above); t otherwise.
Tensor cached_cast(ScalarType to, const Tensor& t, DeviceType d);
// The brief's names: cast to d's autocast dtype / to float32 when eligible and
// autocast is on for d; t otherwise.
Tensor lower(const Tensor& t, DeviceType d);
Tensor to_float32(const Tensor& t, DeviceType d);
// The widest floating type among the eligible tensors: float32 if any is,
// else d's autocast dtype (float64 inputs are ignored, as torch does).
ScalarType promote_type(const std::vector<const Tensor*>& ts, DeviceType d);

// fp32_set_opt_dtype ops (softmax, sum, cumsum, ...): float32 when no dtype was
// given and x is eligible on a device type with autocast on whose list has the op.
std::optional<ScalarType> opt_dtype(const Tensor& x, std::optional<ScalarType> dtype,
                                    uint8_t lists) noexcept;

// The scope of one autocast op (see the header comment).
class Scope {
 public:
  Scope() noexcept = default;
  Scope(DeviceType d, ScalarType to) noexcept;
  ~Scope();
  Scope(const Scope&) = delete;
  Scope& operator=(const Scope&) = delete;

  explicit operator bool() const noexcept { return active_; }
  DeviceType device_type() const noexcept { return device_; }
  ScalarType dtype() const noexcept { return to_; }
  // t cast to the policy's dtype when eligible (undefined stays undefined).
  Tensor cast(const Tensor& t) const;
  std::vector<Tensor> cast(const std::vector<Tensor>& ts) const;

 private:
  bool active_ = false;
  DeviceType device_ = DeviceType::CPU;
  ScalarType to_ = ScalarType::Float32;
};

// The device type whose autocast applies to an op on `lists` with first tensor
// argument `first`; nullopt when none does.
std::optional<DeviceType> applies(const Tensor& first, uint8_t lists) noexcept;
Scope enter(const Tensor& first, uint8_t lists, Policy policy);
// Promote ops: the target is the widest of `ts` (ts[0] decides the device type).
Scope enter_promote(const std::vector<const Tensor*>& ts, uint8_t lists);

}  // namespace ember::autocast

#define EMBER_AUTOCAST(POLICY, LISTS, FIRST, ...)                                          \
  if (::ember::autocast::any_enabled()) {                                                  \
    if (auto ac = ::ember::autocast::enter((FIRST), ::ember::autocast::LISTS,              \
                                           ::ember::autocast::Policy::POLICY)) {           \
      __VA_ARGS__;                                                                         \
    }                                                                                      \
  }
