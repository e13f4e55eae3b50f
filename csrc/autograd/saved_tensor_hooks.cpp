#include "autograd/saved_tensor_hooks.hpp"

#include <vector>

#include "runtime/errors.hpp"

namespace ember::autograd {

namespace {
thread_local std::vector<std::shared_ptr<SavedTensorHooks>> t_stack;
}  // namespace

void push_saved_tensor_hooks(std::shared_ptr<SavedTensorHooks> hooks) {
  t_stack.push_back(std::move(hooks));
}

void pop_saved_tensor_hooks() {
  EMBER_CHECK(!t_stack.empty(), "no saved tensor hooks to pop");
  t_stack.pop_back();
}

std::shared_ptr<SavedTensorHooks> current_saved_tensor_hooks() {
  return t_stack.empty() ? nullptr : t_stack.back();
}

}  // namespace ember::autograd
