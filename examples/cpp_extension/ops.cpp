// An ember extension built ahead of time with CMake (CMakeLists.txt): scale_(x, a)
// multiplies a float32 tensor by `a` in place, on the CPU or (when built with CUDA)
// with the kernel of scale.cu on the GPU.
#include <ember/extension.h>

#ifdef EMBER_EXAMPLE_WITH_CUDA
void scale_cuda(const ember::Tensor& x, float a);  // scale.cu
#endif

void scale_(ember::Tensor x, double a) {
  EMBER_CHECK_TYPE(x.dtype() == ember::kFloat32, "scale_ takes float32, got ",
                   ember::dtype_name(x.dtype()));
  EMBER_CHECK_VALUE(x.is_contiguous(), "scale_ takes a contiguous tensor: call .contiguous()");
  if (x.is_cuda()) {
#ifdef EMBER_EXAMPLE_WITH_CUDA
    scale_cuda(x, static_cast<float>(a));
#else
    throw ember::Error("this build of ember_ops_aot has no CUDA kernel: rebuild with nvcc");
#endif
  } else {
    float* p = x.data_ptr<float>();
    for (int64_t i = 0; i < x.numel(); ++i) p[i] *= static_cast<float>(a);
  }
  x.bump_version();  // autograd sees the in-place write
}

bool has_cuda() {
#ifdef EMBER_EXAMPLE_WITH_CUDA
  return true;
#else
  return false;
#endif
}

PYBIND11_MODULE(ember_ops_aot, m) {
  ember::init_extension(m);
  m.def("scale_", &scale_, "x *= a, in place (float32, contiguous)");
  m.def("has_cuda", &has_cuda, "whether the CUDA kernel was built");
}
