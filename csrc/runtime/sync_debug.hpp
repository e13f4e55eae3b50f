// torch.cuda.set_sync_debug_mode: report the host synchronisations that ops perform.
//
// Every place where an op blocks the host on the GPU (a blocking copy to or from
// the device -- .item(), .cpu(), .tolist(), printing --, the host-side index
// bounds check of advanced indexing) calls note_host_sync(what) first. In the
// default mode that is one relaxed atomic load; with "warn" it hands a message to
// the warning handler the bindings install (Python's warnings.warn, UserWarning);
// with "error" it throws ember::Error (RuntimeError). The user's own waits --
// ember.cuda.synchronize(), Stream.synchronize(), Event.synchronize() -- never
// call it (torch's rule: only synchronisations inside ops count), nor do the
// caching allocator's waits when it releases cached blocks.
//
// The mode is process-wide (like torch's); the handler is set once, by the
// bindings, at import.
#pragma once

#include <atomic>

namespace ember::cuda {

enum class SyncDebugMode : int { Default = 0, Warn = 1, Error = 2 };

// How a warning leaves the runtime: the bindings install one that calls Python's
// warnings.warn (it may throw, when warnings are errors). Without one, warnings
// go to stderr.
using SyncWarnHandler = void (*)(const char* message);
void set_sync_warn_handler(SyncWarnHandler handler) noexcept;

void set_sync_debug_mode(SyncDebugMode mode) noexcept;
SyncDebugMode sync_debug_mode() noexcept;

namespace detail {
extern std::atomic<int> g_sync_debug_mode;
void report_host_sync(const char* what);  // warns or throws per the mode
}  // namespace detail

// Called by an op just before it blocks the host on the GPU. `what` names the op
// and why it waits ("copy from the GPU to host memory (.item(), .cpu(), ...)").
inline void note_host_sync(const char* what) {
  if (detail::g_sync_debug_mode.load(std::memory_order_relaxed) != 0) {
    detail::report_host_sync(what);
  }
}

}  // namespace ember::cuda
