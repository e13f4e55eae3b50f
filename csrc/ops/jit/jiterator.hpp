// The jiterator: an elementwise CUDA kernel made at run time from a C++
// function template (torch.cuda.jiterator's semantics), on ember's
// elementwise rules.
//
//   template <typename T> T f(T x, T y, T alpha) { return -x + alpha * y; }
//
// - A call plans like make_elementwise (ops/elementwise.hpp), for up to 8
//   inputs and 8 outputs: every input is a tensor or a number; the device is
//   the first CUDA tensor's (0-d CPU tensors and numbers travel by value); the
//   common dtype is torch.result_type of the inputs (tensors with dims, 0-d
//   tensors and numbers promote in their categories); the shapes broadcast;
//   each output is a new tensor of the common dtype, dense in the inputs'
//   dimension order. Inputs are converted as they are loaded (torch's
//   conversion rules) to the type the function is instantiated with: torch's
//   opmath_type of the common dtype (float for float16 and bfloat16, the
//   dtype's own type otherwise); results are rounded to the common dtype
//   when stored.
// - Extra arguments (the Python keyword arguments) follow the inputs, typed
//   by their Python value: bool, long long (int) or double (float).
//   Several outputs are returned through references after them:
//   void f(T x, T alpha, T& out0, T& out1).
// - Code generation: one source per (function, common dtype, input dtypes,
//   which inputs travel by value, extra kinds) with two kernels: a flat one
//   when every tensor operand is contiguous, and a strided one that walks
//   the merged layout of tensor/iter.hpp (32-bit fast division when indices
//   fit). Compiled once through kernel_cache.hpp (memory, then disk, then
//   NVRTC) and kept by the function for later calls.
// - Launched on the current stream of the device; nothing waits for the GPU.
#pragma once

#if EMBER_WITH_CUDA

#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "ops/elementwise.hpp"
#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace ember::ops::jit {

constexpr int kMaxJitInputs = 8;
constexpr int kMaxJitOutputs = 8;

class Module;
class Kernel;

// What distinguishes one compiled instance of a jiterator function.
struct JitVariantKey {
  ScalarType common = ScalarType::Float32;
  std::vector<ScalarType> input_dtypes;
  std::vector<bool> by_value;  // inputs passed as kernel arguments
  std::vector<Scalar::Kind> extra_kinds;
  // The outputs' dtype; -1: the common dtype (the jiterator's rule). ember's
  // own ops store into any dtype (a real abs of complex values, an out=).
  int8_t out = -1;
  ScalarType out_dtype() const { return out < 0 ? common : static_cast<ScalarType>(out); }
  std::string str() const;
  bool operator==(const JitVariantKey& o) const;
};

// The generated CUDA source of a variant (exposed for the CPU tests, which
// compile it with NVRTC without a GPU).
std::string jiterator_source(const std::string& code, const std::string& name, int num_outputs,
                             const JitVariantKey& key);

// One call, planned: outputs allocated, the layout built. No CUDA call yet.
struct JitPlan {
  JitVariantKey key;
  Device device;
  std::vector<Tensor> outputs;
  std::vector<Operand> inputs;
  std::vector<Scalar> extras;
  int64_t numel = 0;
};

class JitFunction {
 public:
  JitFunction(std::string code, std::string name, int num_outputs);

  JitPlan plan(std::vector<Operand> inputs, std::vector<Scalar> extras) const;
  // True when the plan's variant is compiled and loaded (then run() is fast).
  bool ready(const JitPlan& p);
  // Compiles (or loads from the caches) the plan's variant. Slow the first
  // time: call without the GIL.
  void prepare(const JitPlan& p);
  // Launches the kernel on the current stream of the plan's device; prepares
  // first if needed.
  void run(const JitPlan& p);
  // Launches over an iterator planned by make_elementwise (run_elementwise).
  void run(const ElementwiseIter& it);

  const std::string& code() const noexcept { return code_; }
  const std::string& name() const noexcept { return name_; }
  int num_outputs() const noexcept { return num_outputs_; }

 private:
  struct Variant {
    JitVariantKey key;
    int sm = 0;  // the compute capability it was compiled for
    std::shared_ptr<Module> module;
    Kernel* flat = nullptr;
    Kernel* strided = nullptr;
  };
  const Variant* find(const JitVariantKey& key, int sm);

  std::string code_, name_;
  int num_outputs_;
  std::mutex mutex_;
  std::vector<std::unique_ptr<Variant>> variants_;
};

// ember's own elementwise ops compiled at first use (the complex functions
// on the GPU, ops/pointwise/complex.hpp): `f` (one output) over an iterator
// planned by make_elementwise, computing in the compute type of it.common,
// loading each input from its dtype and storing into it.out's dtype. The
// first call of a variant compiles it (or loads it from the disk cache).
void run_elementwise(JitFunction& f, const ElementwiseIter& it);

}  // namespace ember::ops::jit

#endif  // EMBER_WITH_CUDA
