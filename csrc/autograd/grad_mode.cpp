#include "autograd/grad_mode.hpp"

#include "runtime/errors.hpp"

namespace ember::autograd {

namespace {
thread_local bool t_grad_enabled = true;
thread_local bool t_inference = false;
}  // namespace

bool GradMode::is_enabled() noexcept { return t_grad_enabled; }
void GradMode::set_enabled(bool enabled) noexcept { t_grad_enabled = enabled; }
bool InferenceMode::is_enabled() noexcept { return t_inference; }
void InferenceMode::set_enabled(bool enabled) noexcept { t_inference = enabled; }

void refuse_double_backward(const char* op) {
  if (GradMode::is_enabled())
    throw Error(detail::str("the derivative of ", op, "'s backward is not implemented in ember: "
                            "call backward()/autograd.grad() through it without create_graph=True"));
}

}  // namespace ember::autograd
