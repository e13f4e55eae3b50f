#include "runtime/sync_debug.hpp"

#include <cstdio>
#include <string>

#include "runtime/errors.hpp"

namespace ember::cuda {

namespace detail {
std::atomic<int> g_sync_debug_mode{0};
}  // namespace detail

namespace {
std::atomic<SyncWarnHandler> g_handler{nullptr};
}  // namespace

void set_sync_warn_handler(SyncWarnHandler handler) noexcept { g_handler.store(handler); }

void set_sync_debug_mode(SyncDebugMode mode) noexcept {
  detail::g_sync_debug_mode.store(static_cast<int>(mode), std::memory_order_relaxed);
}

SyncDebugMode sync_debug_mode() noexcept {
  return static_cast<SyncDebugMode>(detail::g_sync_debug_mode.load(std::memory_order_relaxed));
}

void detail::report_host_sync(const char* what) {
  // torch's message first (code that matches on it keeps working), then what waited.
  const std::string msg = ember::detail::str("called a synchronizing CUDA operation: ", what,
                                             ". (ember.cuda.set_sync_debug_mode(\"default\") "
                                             "turns this check off)");
  if (sync_debug_mode() == SyncDebugMode::Error) throw Error(msg);
  if (SyncWarnHandler h = g_handler.load()) {
    h(msg.c_str());
  } else {
    std::fprintf(stderr, "ember warning: %s\n", msg.c_str());
  }
}

}  // namespace ember::cuda
