// Grad mode: a thread-local flag that says whether operations record the
// graph (torch.is_grad_enabled), and inference mode (torch.inference_mode),
// which here is grad mode off plus a flag that is_inference_mode_enabled()
// reports. Reading the flag is one thread-local load: every op checks it.
#pragma once

namespace ember::autograd {

struct GradMode {
  static bool is_enabled() noexcept;
  static void set_enabled(bool enabled) noexcept;
};

struct InferenceMode {
  static bool is_enabled() noexcept;
  static void set_enabled(bool enabled) noexcept;
};

// For the backward of an op whose backward is not differentiable itself
// (conv2d, the pools): with grad mode on (create_graph=True) it throws an
// Error naming `op`; otherwise it does nothing.
void refuse_double_backward(const char* op);

// Sets grad mode for a scope and restores the previous value.
class GradModeGuard {
 public:
  explicit GradModeGuard(bool enabled) noexcept : prev_(GradMode::is_enabled()) {
    GradMode::set_enabled(enabled);
  }
  ~GradModeGuard() { GradMode::set_enabled(prev_); }
  GradModeGuard(const GradModeGuard&) = delete;
  GradModeGuard& operator=(const GradModeGuard&) = delete;

 private:
  bool prev_;
};

}  // namespace ember::autograd
