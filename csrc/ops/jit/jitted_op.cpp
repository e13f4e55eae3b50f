#include "ops/jit/jitted_op.hpp"

#if EMBER_WITH_CUDA

#include <memory>
#include <mutex>

namespace ember::ops::jit {

JitFunction& jitted_function(const std::string& name, const std::function<std::string()>& code) {
  // One JitFunction per op, never freed (kernels may still be queued at exit).
  static std::mutex mutex;
  static auto* functions = new std::vector<std::unique_ptr<JitFunction>>();
  const std::string fname = "ember_" + name;
  std::lock_guard<std::mutex> lock(mutex);
  for (const auto& f : *functions) {
    if (f->name() == fname) return *f;
  }
  functions->push_back(std::make_unique<JitFunction>(code(), fname, 1));
  return *functions->back();
}

void run_jitted(const std::string& name, const std::function<std::string()>& code,
                const ElementwiseIter& it) {
  run_elementwise(jitted_function(name, code), it);
}

std::string jitted_source(const std::string& name, const std::string& code, ScalarType common,
                          const std::vector<ScalarType>& inputs) {
  JitVariantKey key;
  key.common = common;
  key.input_dtypes = inputs;
  key.by_value.assign(inputs.size(), false);
  key.out = static_cast<int8_t>(common);
  return jiterator_source(code, "ember_" + name, 1, key);
}

}  // namespace ember::ops::jit

#endif  // EMBER_WITH_CUDA
