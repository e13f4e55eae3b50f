// ember._C._fft: the GPU cores of ember.fft (ops/fft/fft.hpp: torch's
// _fft_c2c/_fft_r2c/_fft_c2r through cuFFT) and the per-device cuFFT plan
// cache's controls (ember.backends.cuda.cufft_plan_cache). Argument checks,
// padding, dtype promotion, the CPU path (NumPy's pocketfft) and autograd live
// in python/ember/fft.py. The GIL is released around each transform (it only
// queues work; a plan-cache miss plans on the host).
#include "bindings/bindings.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/fft/fft.hpp"
#if EMBER_WITH_CUDA
#include "ops/fft/cufft_api.hpp"
#include "ops/fft/fft_plan_cache.hpp"
#endif
#include "runtime/errors.hpp"

namespace ember::bindings {

namespace {

#if EMBER_WITH_CUDA
namespace F = ops::fft;
#else
[[noreturn]] void no_cuda() {
  throw Error("cufft_plan_cache: ember was built without CUDA");
}
#endif

}  // namespace

void bind_fft(py::module_& m) {
  py::module_ s = m.def_submodule("_fft", "ember.fft's cuFFT cores and plan cache");
  s.def(
      "c2c",
      [](const Tensor& x, const std::vector<int64_t>& dims, double scale, bool forward) {
        py::gil_scoped_release nogil;
        return ops::fft::fft_c2c_cuda(x, dims, scale, forward);
      },
      py::arg("input"), py::arg("dims"), py::arg("scale"), py::arg("forward"),
      "Complex-to-complex DFT of a CUDA tensor over dims (wrapped, distinct), times scale.");
  s.def(
      "r2c",
      [](const Tensor& x, const std::vector<int64_t>& dims, double scale, bool onesided) {
        py::gil_scoped_release nogil;
        return ops::fft::fft_r2c_cuda(x, dims, scale, onesided);
      },
      py::arg("input"), py::arg("dims"), py::arg("scale"), py::arg("onesided"),
      "Real-to-complex forward DFT of a CUDA tensor over dims, times scale; onesided keeps "
      "the last dim's n // 2 + 1 frequencies.");
  s.def(
      "c2r",
      [](const Tensor& x, const std::vector<int64_t>& dims, double scale, int64_t last_dim_size) {
        py::gil_scoped_release nogil;
        return ops::fft::fft_c2r_cuda(x, dims, scale, last_dim_size);
      },
      py::arg("input"), py::arg("dims"), py::arg("scale"), py::arg("last_dim_size"),
      "Complex-to-real inverse DFT (Hermitian input, onesided along dims[-1]) of a CUDA "
      "tensor, times scale; the output has last_dim_size along dims[-1].");
  s.def("plan_cache_size", [](int device) -> int64_t {
#if EMBER_WITH_CUDA
    return F::plan_cache_size(device);
#else
    (void)device;
    no_cuda();
#endif
  }, py::arg("device"), "torch._cufft_get_plan_cache_size: the number of plans cached for device.");
  s.def("plan_cache_max_size", [](int device) -> int64_t {
#if EMBER_WITH_CUDA
    return F::plan_cache_max_size(device);
#else
    (void)device;
    no_cuda();
#endif
  }, py::arg("device"), "torch._cufft_get_plan_cache_max_size: the device's cache capacity.");
  s.def("set_plan_cache_max_size", [](int device, int64_t max_size) {
#if EMBER_WITH_CUDA
    F::set_plan_cache_max_size(device, max_size);
#else
    (void)device;
    (void)max_size;
    no_cuda();
#endif
  }, py::arg("device"), py::arg("max_size"),
        "torch._cufft_set_plan_cache_max_size: evicts the least recently used plans beyond it.");
  s.def("clear_plan_cache", [](int device) {
#if EMBER_WITH_CUDA
    F::clear_plan_cache(device);
#else
    (void)device;
    no_cuda();
#endif
  }, py::arg("device"), "torch._cufft_clear_plan_cache: destroys the device's cached plans.");
  s.def("cufft_loaded", []() {
#if EMBER_WITH_CUDA
    return F::cufft_api_loaded();
#else
    return false;
#endif
  }, "Whether libcufft has been opened (ember.fft on the GPU opens it at first use).");
}

}  // namespace ember::bindings
