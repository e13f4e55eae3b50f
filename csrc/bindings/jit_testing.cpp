// ember._C._jit_testing: the parts of runtime compilation that need no GPU,
// for the tests (the disk cache's format, corruption and concurrency; NVRTC
// compilation for a given architecture; the jiterator's generated source; the
// kernel signature parser), and the raw cuLaunchKernel floor for the
// benchmarks.
#include <Python.h>
#include <pybind11/stl.h>

#include <chrono>

#include "bindings/bindings.hpp"
#include "ops/jit/kernel_signature.hpp"
#include "runtime/disk_cache.hpp"
#include "runtime/errors.hpp"
#include "runtime/sha256.hpp"

#if EMBER_WITH_CUDA
#include "ops/jit/jiterator.hpp"
#include "ops/jit/jitted_op.hpp"
#include "ops/jit/kernel_cache.hpp"
#include "ops/pointwise/special_jit.hpp"
#include "ops/jit/module.hpp"
#include "ops/pointwise/unary.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/driver_api.hpp"
#include "runtime/nvrtc.hpp"
#include "runtime/stream.hpp"
#include "tensor/dtype.hpp"
#endif

namespace ember::bindings {

namespace {

Digest key_of(const std::string& material) { return sha256(material); }

const char* status_name(DiskCache::Status s) {
  return s == DiskCache::Status::Hit ? "hit" : s == DiskCache::Status::Miss ? "miss" : "corrupt";
}

#if EMBER_WITH_CUDA
const char* origin_name(ops::jit::Origin o) {
  return o == ops::jit::Origin::Memory ? "memory"
         : o == ops::jit::Origin::Disk ? "disk"
                                       : "compiled";
}
#endif

}  // namespace

void bind_jit_testing(py::module_& m) {
  py::module_ t = m.def_submodule("_jit_testing", "runtime compilation's testing hooks");
  t.def("sha256", [](py::bytes b) { return hex(sha256(std::string(b))); });
  t.def(
      "cache_path",
      [](const std::string& dir, const std::string& key) {
        return DiskCache(dir).path(key_of(key));
      },
      py::arg("dir"), py::arg("key"), "Where the entry of key material `key` lives.");
  t.def(
      "cache_store",
      [](const std::string& dir, const std::string& key, py::bytes payload) {
        std::string p(payload);
        py::gil_scoped_release nogil;
        return DiskCache(dir).store(key_of(key), p);
      },
      py::arg("dir"), py::arg("key"), py::arg("payload"),
      "Stores `payload` under the SHA-256 of `key`; False when it cannot be written.");
  t.def(
      "cache_load",
      [](const std::string& dir, const std::string& key) {
        DiskCache::Loaded r;
        {
          py::gil_scoped_release nogil;
          r = DiskCache(dir).load(key_of(key));
        }
        py::object payload = r.status == DiskCache::Status::Hit ? py::object(py::bytes(r.payload))
                                                                : py::object(py::none());
        return py::make_tuple(status_name(r.status), payload, r.reason);
      },
      py::arg("dir"), py::arg("key"), "(status 'hit'/'miss'/'corrupt', payload or None, reason).");
  t.def("cache_root", &cache_root,
        "$EMBER_CACHE_DIR, else $XDG_CACHE_HOME/ember, else ~/.cache/ember.");
  t.def(
      "parse_kernel_params",
      [](const std::string& source, const std::string& name) -> py::object {
        auto r = ops::jit::parse_kernel_params(source, name);
        if (!r) return py::none();
        py::list out;
        for (const auto& p : *r) {
          out.append(py::make_tuple(ops::jit::param_kind_name(p.kind),
                                    ops::jit::param_kind_name(p.pointee), p.spelling));
        }
        return std::move(out);
      },
      py::arg("source"), py::arg("name"));

#if EMBER_WITH_CUDA
  t.def("nvrtc_loaded", &nvrtc::nvrtc_loaded, "Whether NVRTC has been opened in this process.");
  t.def("nvrtc_version", &nvrtc::nvrtc_version);
  t.def("supported_archs", &nvrtc::supported_archs);
  t.def("include_dir", &ops::jit::ember_include_dir);
  t.def(
      "compile",
      [](const std::string& code, const std::string& file_name, std::vector<std::string> options,
         std::vector<std::string> name_expressions, int sm, const std::string& cache_dir,
         bool use_memory) {
        ops::jit::Source src{code, file_name, std::move(options), std::move(name_expressions)};
        ops::jit::Lookup r;
        {
          py::gil_scoped_release nogil;
          r = ops::jit::compile_or_load(src, sm, cache_dir, use_memory);
        }
        py::dict d;
        d["origin"] = origin_name(r.origin);
        d["target"] = r.binary->target;
        d["is_ptx"] = r.binary->is_ptx;
        d["size"] = r.binary->image.size();
        d["log"] = r.binary->log;
        d["lowered"] = r.binary->lowered;
        d["refused"] = r.refused;
        d["key"] = hex(r.binary->key);
        return d;
      },
      py::arg("code"), py::arg("file_name") = "kernel.cu",
      py::arg("options") = std::vector<std::string>{},
      py::arg("name_expressions") = std::vector<std::string>{}, py::arg("sm") = 90,
      py::arg("cache_dir") = "", py::arg("use_memory") = true,
      "compile_or_load for compute capability `sm` without a GPU: a dict with origin "
      "('memory', 'disk' or 'compiled'), target, is_ptx, size, log, lowered, refused, key.");
  t.def(
      "cache_counts",
      [] {
        const auto c = ops::jit::cache_counts();
        py::dict d;
        d["memory"] = c.memory;
        d["disk"] = c.disk;
        d["compiled"] = c.compiled;
        d["refused"] = c.refused;
        return d;
      },
      "How often compile_or_load was answered from memory, from disk, by NVRTC, and how "
      "many disk entries it refused.");
  t.def(
      "jiterator_source",
      [](const std::string& code, const std::string& name, int num_outputs,
         const std::string& common, std::vector<std::string> inputs, std::vector<bool> by_value,
         const std::string& extras) {
        ops::jit::JitVariantKey key;
        key.common = dtype_from_name(common);
        for (const std::string& d : inputs) key.input_dtypes.push_back(dtype_from_name(d));
        key.by_value = std::move(by_value);
        EMBER_CHECK_VALUE(key.by_value.size() == key.input_dtypes.size(),
                          "one by_value flag per input");
        for (char c : extras) {
          key.extra_kinds.push_back(c == 'b'   ? Scalar::Kind::Bool
                                    : c == 'l' ? Scalar::Kind::Int
                                               : Scalar::Kind::Float);
        }
        return ops::jit::jiterator_source(code, name, num_outputs, key);
      },
      py::arg("code"), py::arg("name"), py::arg("num_outputs"), py::arg("common"),
      py::arg("inputs"), py::arg("by_value"), py::arg("extras") = "",
      "The source the jiterator generates; extras is one letter per extra argument: "
      "'b' bool, 'l' int, 'd' float.");
  t.def(
      "unary_math_jit",
      [] {
        // The floating unary ops the GPU compiles at first use: name -> the source of
        // its function template ember_<name>, for the CPU tests that compile them.
        py::dict d;
        for (int k = 0; k <= int(ops::UnaryOp::Frac); ++k) {
          const auto op = static_cast<ops::UnaryOp>(k);
          if (!ops::internal::unary_math_is_jit(op)) continue;
          d[ops::unary_name(op)] = ops::internal::unary_math_jit_code(op);
        }
        return d;
      },
      "{op name: code of ember_<name>} of the unary ops compiled at first use on the GPU.");
  t.def(
      "special_jit_sources",
      [] {
        // (name, dtype, source) of every jitted torch.special kernel, for float32
        // and float64 tensors (a polynomial's n of the same dtype).
        py::list out;
        for (int i = 0; i < ops::kNumJitSpecialOps; ++i) {
          const auto op = static_cast<ops::JitSpecialOp>(i);
          const std::string code = ops::internal::jit_special_code(op);
          for (ScalarType t : {ScalarType::Float32, ScalarType::Float64}) {
            std::vector<ScalarType> inputs(ops::is_polynomial(op) ? 2 : 1, t);
            out.append(py::make_tuple(ops::jit_special_name(op), dtype_name(t),
                                      ops::jit::jitted_source(ops::jit_special_name(op), code, t,
                                                              inputs)));
          }
        }
        return out;
      },
      "(name, dtype, CUDA source) of each torch.special function the GPU compiles at "
      "first use (ops/pointwise/special_jit.hpp), for float32 and float64 inputs.");
  t.def(
      "launch_floor",
      [](int iterations, bool with_args) {
        // Without arguments: an empty kernel. With them: the benchmark's trivial
        // kernel (float* x, int n), given a null pointer and n = 1 (it writes
        // nothing), so the floor includes the driver's copy of the parameters.
        static const char* kEmpty = "extern \"C\" __global__ void ember_empty() {}";
        static const char* kTrivial =
            "extern \"C\" __global__ void ember_trivial(float* x, int n) "
            "{ if (threadIdx.x == 0 && n < 0) x[0] = 1.0f; }";
        const int device = cuda::current_device();
        const cuda::DeviceProperties& p = cuda::get_device_properties(device);
        ops::jit::Source src{with_args ? kTrivial : kEmpty,
                             with_args ? "ember_trivial.cu" : "ember_empty.cu", {}, {}};
        auto module =
            ops::jit::Module::load(ops::jit::compile_or_load(src, p.major * 10 + p.minor).binary);
        ops::jit::Kernel& k = module->kernel(with_args ? "ember_trivial" : "ember_empty");
        const cuda::StreamView s = cuda::current_stream(device);
        cuda::ensure_driver_context(device);
        const auto& api = cuda::driver_api();
        auto f = reinterpret_cast<CUfunction>(k.handle());
        auto stream = reinterpret_cast<CUstream>(s.handle());
        float* x = nullptr;
        int n = 1;
        void* params[2] = {&x, &n};
        void** kp = with_args ? params : nullptr;
        py::gil_scoped_release nogil;
        for (int i = 0; i < 100; ++i) {
          EMBER_CU_CHECK(api.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, kp, nullptr));
        }
        cuda::stream_synchronize(s);
        const auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < iterations; ++i) {
          EMBER_CU_CHECK(api.cuLaunchKernel(f, 1, 1, 1, 1, 1, 1, 0, stream, kp, nullptr));
        }
        const auto t1 = std::chrono::steady_clock::now();
        cuda::stream_synchronize(s);
        return std::chrono::duration<double, std::micro>(t1 - t0).count() / iterations;
      },
      py::arg("iterations") = 10000, py::arg("with_args") = false,
      "Microseconds per raw cuLaunchKernel on the current stream, in a C++ loop: of an "
      "empty kernel, or (with_args) of a trivial (float*, int) kernel with its two "
      "arguments -- the floor a RawKernel launch is compared with.");
#endif
}

}  // namespace ember::bindings
