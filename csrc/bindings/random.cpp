// Random numbers from Python: ember.Generator, the default generators and
// their seeds and states (ember.manual_seed, ember.cuda.manual_seed, ...),
// the creation functions (rand, randn, randint, randperm, normal, bernoulli,
// multinomial, *_like) and the in-place Tensor methods (uniform_, normal_,
// random_, exponential_, bernoulli_). CPU draws release the GIL.
#include <Python.h>
#include <pybind11/stl.h>

#include <array>
#include <cstring>

#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "ops/random/random.hpp"
#include "ops/random/random_math.hpp"
#include "runtime/cuda_device.hpp"
#include "runtime/errors.hpp"
#include "runtime/init.hpp"
#include "tensor/generator.hpp"
#include "tensor/views.hpp"

namespace ember::bindings {

namespace {


// torch accepts seeds in [-2^63, 2^64): negative ones wrap to uint64.
uint64_t seed_arg(py::handle obj) {
  PyObject* as_int = PyNumber_Long(obj.ptr());
  if (!as_int) throw py::error_already_set();
  py::object i = py::reinterpret_steal<py::object>(as_int);
  unsigned long long u = PyLong_AsUnsignedLongLong(i.ptr());
  if (!(u == static_cast<unsigned long long>(-1) && PyErr_Occurred())) return u;
  PyErr_Clear();
  const long long s = PyLong_AsLongLong(i.ptr());
  if (s == -1 && PyErr_Occurred()) {
    PyErr_Clear();
    throw Error(detail::str("Overflow when unpacking long: a seed must be in [-2**63, 2**64), "
                            "got ", py::str(i).cast<std::string>()));
  }
  return static_cast<uint64_t>(s);
}

// The index of the CUDA default generator a `device=` argument names. The
// generators are host objects: without CUDA initialised the current device
// is 0, and nothing here initialises CUDA.
int cuda_generator_index(py::handle device) {
  int idx = device.is_none() ? -1 : cuda_index_from_py(device);
  if (idx < 0) idx = cuda::is_initialized() ? cuda::current_device() : 0;
  const int count = cuda::device_count();
  EMBER_CHECK(idx < cuda::kMaxDevices && (count <= 0 || idx < count), "Invalid device index ",
              idx, ": there are ", count < 0 ? 0 : count, " CUDA devices");
  return idx;
}

Generator generator_arg(py::handle obj) {
  if (obj.is_none()) return nullptr;
  try {
    return py::cast<Generator>(obj);
  } catch (const py::cast_error&) {
    throw TypeError(detail::str("generator must be an ember.Generator, got ", type_name(obj)));
  }
}

Tensor state_tensor(const GeneratorImpl& g) {
  const auto bytes = g.get_state();
  Tensor t = Tensor::empty({static_cast<int64_t>(bytes.size())}, ScalarType::UInt8, kCpu);
  std::memcpy(t.data_ptr(), bytes.data(), bytes.size());
  return t;
}

void set_state_from(GeneratorImpl& g, py::handle state) {
  const Tensor& t = tensor_arg(state, "new_state");
  EMBER_CHECK(t.dtype() == ScalarType::UInt8 && t.is_cpu(),
              "RNG state must be a uint8 CPU tensor (a torch.ByteTensor), but got ",
              dtype_name(t.dtype()), " on ", t.device().str());
  const Tensor c = t.is_contiguous() ? t : ops::contiguous(t);
  g.set_state(static_cast<const uint8_t*>(c.data_ptr()), static_cast<size_t>(c.numel()));
}

// ---- creation options ----------------------------------------------------------

struct DrawOptions {
  ScalarType dtype;
  Device device;
  bool pin;
  bool grad = false;  // requires_grad= (set on the new tensor after the draw)
};

DrawOptions draw_options(py::handle dtype, py::handle device, bool pin, bool grad, const char* fn,
                ScalarType fallback) {
  const Device d = device_arg(device);
  EMBER_CHECK(!pin || d.is_cpu(), fn, "(): only CPU tensors can be pinned");
  const ScalarType dt = dtype.is_none() ? fallback : dtype_from_py(dtype);
  if (grad && !is_floating_or_complex(dt)) {
    throw Error("Only Tensors of floating point and complex dtype can require gradients");
  }
  return DrawOptions{dt, d, pin, grad};
}

// Sizes given as f(2, 3), f((2, 3)), f([2, 3]) or f(size=(2, 3)).
Shape size_from(const py::args& args, py::handle size_kw, const char* fn) {
  if (!size_kw.is_none()) {
    EMBER_CHECK_TYPE(args.size() == 0, fn, "(): size given both positionally and as size=");
    return int_list_arg(size_kw, fn, "size");
  }
  return sizes_from_args(args, fn, "size");
}

// A new tensor, or `out` (which must have the shape and dtype), to draw into.
Tensor target(const Shape& shape, const DrawOptions& o, py::handle out, const char* fn) {
  if (out.is_none()) return apply_requires_grad(Tensor::empty(shape, o.dtype, o.device, o.pin), o.grad);
  const Tensor& t = tensor_arg(out, "out");
  EMBER_CHECK(t.sizes() == shape, fn, "(): out= has shape ", shape_str(t.sizes()),
              " but the result has shape ", shape_str(shape), "; ember does not resize out=");
  return t;
}

// Runs a draw, without the GIL for CPU tensors (a draw may take a while).
template <typename F>
void draw(const Tensor& t, F&& f) {
  maybe_nogil(t.is_cpu(), std::forward<F>(f));
}

py::object result(const Tensor& t, py::handle out) {
  if (!out.is_none()) {
    autograd::mark_dirty(t);  // out= was written in place
    return py::reinterpret_borrow<py::object>(out);
  }
  return py::cast(t);
}

Tensor like(const Tensor& t, py::handle dtype, py::handle device, bool grad, const char* fn) {
  const ScalarType dt = dtype.is_none() ? t.dtype() : dtype_from_py(dtype);
  const Device dev = device.is_none() ? t.device() : device_arg(device);
  return apply_requires_grad(
      Tensor::empty_strided(t.sizes(), dense_strides_like(t.sizes(), t.strides()), dt, dev), grad);
}

std::pair<int64_t, int64_t> randint_bounds(py::handle a, py::handle b, const char* fn) {
  if (b.is_none()) return {0, int_arg(a, fn, "high")};
  return {int_arg(a, fn, "low"), int_arg(b, fn, "high")};
}

// torch's random_() without bounds: [0, 2^digits] for floats, [0, max] for integers.
int64_t default_random_high(ScalarType t) {
  switch (t) {
    case ScalarType::Bool: return 2;
    case ScalarType::Float16: return (int64_t(1) << 11) + 1;
    case ScalarType::BFloat16: return (int64_t(1) << 8) + 1;
    case ScalarType::Float32: return (int64_t(1) << 24) + 1;
    case ScalarType::Float64: return (int64_t(1) << 53) + 1;
    case ScalarType::Int64: return iinfo(t).max;
    default: return iinfo(t).max + 1;
  }
}

// ---- the functions -----------------------------------------------------------

void bind_generator(py::module_& m) {
  py::class_<GeneratorImpl, std::shared_ptr<GeneratorImpl>> cls(m, "Generator", R"doc(
A Philox random number generator on the CPU or one GPU, like torch.Generator.
Its state is (seed, offset): the same state gives the same numbers on every run,
launch configuration and device (see ember's design notes). Pass it to rand, randn,
normal_, ... as ``generator=``.
)doc");
  cls.attr("__module__") = "ember";
  cls.def(py::init([](py::handle device) {
            Device d = device_spec(device);
            if (d.is_cuda()) {
              const py::object idx = d.has_index() ? py::object(py::int_(d.index)) : py::none();
              d = Device(DeviceType::CUDA, cuda_generator_index(idx));
            }
            return std::make_shared<GeneratorImpl>(d);
          }),
          py::arg("device") = "cpu");
  cls.def(
      "manual_seed",
      [](py::object self, py::handle seed) {
        py::cast<GeneratorImpl&>(self).manual_seed(seed_arg(seed));
        return self;
      },
      py::arg("seed"), "Sets the seed and rewinds the stream; returns the generator.");
  cls.def("seed", &GeneratorImpl::seed, "Seeds from a non-deterministic source; returns it.");
  cls.def("initial_seed", &GeneratorImpl::initial_seed);
  cls.def("get_state", [](const GeneratorImpl& g) { return state_tensor(g); },
          "The state as a uint8 tensor of 16 bytes: seed and offset (little-endian).");
  cls.def(
      "set_state",
      [](py::object self, py::handle state) {
        set_state_from(py::cast<GeneratorImpl&>(self), state);
        return self;
      },
      py::arg("new_state"));
  cls.def("get_offset", &GeneratorImpl::offset, "Philox blocks (4 x 32 bits) used so far.");
  cls.def(
      "set_offset",
      [](py::object self, uint64_t offset) {
        py::cast<GeneratorImpl&>(self).set_offset(offset);
        return self;
      },
      py::arg("offset"));
  cls.def_property_readonly("device", [](const GeneratorImpl& g) { return g.device(); });

  m.attr("default_generator") = py::cast(default_cpu_generator());
  m.def(
      "manual_seed",
      [](py::handle seed) {
        const uint64_t s = seed_arg(seed);
        default_cpu_generator()->manual_seed(s);
        manual_seed_all_cuda(s);
        return default_cpu_generator();
      },
      py::arg("seed"),
      "Seeds the CPU and every CUDA default generator; returns ember.default_generator.");
  m.def("seed", [] {
    const uint64_t s = nondeterministic_seed();
    default_cpu_generator()->manual_seed(s);
    manual_seed_all_cuda(s);
    return s;
  });
  m.def("initial_seed", [] { return default_cpu_generator()->initial_seed(); });
  m.def("get_rng_state", [] { return state_tensor(*default_cpu_generator()); });
  m.def("set_rng_state", [](py::handle s) { set_state_from(*default_cpu_generator(), s); },
        py::arg("new_state"));
}

void bind_cuda_seeds(py::module_& cuda) {
  cuda.def("manual_seed", [](py::handle seed) {
    default_cuda_generator(cuda_generator_index(py::none()))->manual_seed(seed_arg(seed));
  }, py::arg("seed"), "Seeds the current device's default generator.");
  cuda.def("manual_seed_all", [](py::handle seed) { manual_seed_all_cuda(seed_arg(seed)); },
           py::arg("seed"), "Seeds the default generator of every GPU.");
  cuda.def("seed", [] {
    return default_cuda_generator(cuda_generator_index(py::none()))->seed();
  });
  cuda.def("seed_all", [] {
    const uint64_t s = nondeterministic_seed();
    manual_seed_all_cuda(s);
    return s;
  });
  cuda.def("initial_seed", [] {
    return default_cuda_generator(cuda_generator_index(py::none()))->initial_seed();
  });
  cuda.def(
      "get_rng_state",
      [](py::handle device) {
        return state_tensor(*default_cuda_generator(cuda_generator_index(device)));
      },
      py::arg("device") = "cuda");
  cuda.def(
      "set_rng_state",
      [](py::handle state, py::handle device) {
        set_state_from(*default_cuda_generator(cuda_generator_index(device)), state);
      },
      py::arg("new_state"), py::arg("device") = "cuda");
  cuda.def("_default_generator", [](py::handle device) {
    return default_cuda_generator(cuda_generator_index(device));
  }, py::arg("device") = py::none());
}

void bind_creation(py::module_& m) {
  const auto gen = py::arg("generator") = py::none();
  const auto out = py::arg("out") = py::none();
  const auto dtype = py::arg("dtype") = py::none();
  const auto device = py::arg("device") = py::none();
  const auto grad = py::arg("requires_grad") = false;
  const auto pin = py::arg("pin_memory") = false;
  const auto layout = py::arg("layout") = py::none();
  const auto size = py::arg("size") = py::none();

  m.def(
      "rand",
      [](py::args args, py::handle size, py::handle g, py::handle out, py::handle dtype,
         py::handle device, bool grad, bool pin, py::handle) {
        const DrawOptions o = draw_options(dtype, device, pin, grad, "rand", default_dtype());
        const Tensor t = target(size_from(args, size, "rand"), o, out, "rand");
        const Generator gg = generator_arg(g);
        draw(t, [&] { ops::uniform_(t, 0.0, 1.0, gg); });
        return result(t, out);
      },
      py::kw_only(), size, gen, out, dtype, device, grad, pin, layout,
      "Uniform numbers in [0, 1): rand(2, 3) or rand((2, 3)).");
  m.def(
      "randn",
      [](py::args args, py::handle size, py::handle g, py::handle out, py::handle dtype,
         py::handle device, bool grad, bool pin, py::handle) {
        const DrawOptions o = draw_options(dtype, device, pin, grad, "randn", default_dtype());
        const Tensor t = target(size_from(args, size, "randn"), o, out, "randn");
        const Generator gg = generator_arg(g);
        draw(t, [&] { ops::normal_(t, 0.0, 1.0, gg); });
        return result(t, out);
      },
      py::kw_only(), size, gen, out, dtype, device, grad, pin, layout,
      "Standard normal numbers: randn(2, 3) or randn((2, 3)).");
  m.def(
      "randint",
      [](py::args args, py::handle size, py::handle g, py::handle out, py::handle dtype,
         py::handle device, bool grad, bool pin, py::handle) {
        // randint(high, size) or randint(low, high, size)
        EMBER_CHECK_TYPE(args.size() >= 1 && args.size() <= 3,
                         "randint() expects (high, size) or (low, high, size)");
        py::handle sz = size;
        size_t nb = args.size();
        if (sz.is_none()) {
          EMBER_CHECK_TYPE(nb >= 2, "randint() missing required argument 'size'");
          sz = args[nb - 1];
          --nb;
        }
        const auto [low, high] =
            nb == 1 ? randint_bounds(args[0], py::none(), "randint")
                    : randint_bounds(args[0], args[1], "randint");
        const DrawOptions o = draw_options(dtype, device, pin, grad, "randint", ScalarType::Int64);
        const Tensor t = target(int_list_arg(sz, "randint", "size"), o, out, "randint");
        const Generator gg = generator_arg(g);
        draw(t, [&] { ops::random_(t, low, high, gg); });
        return result(t, out);
      },
      py::kw_only(), size, gen, out, dtype, device, grad, pin, layout,
      "Integers uniform in [low, high): randint(high, size) or randint(low, high, size); int64 "
      "unless dtype= says otherwise.");
  m.def(
      "randperm",
      [](int64_t n, py::handle g, py::handle out, py::handle dtype, py::handle device, bool grad,
         bool pin, py::handle) {
        const DrawOptions o = draw_options(dtype, device, pin, grad, "randperm", ScalarType::Int64);
        const Generator gg = generator_arg(g);
        Tensor t;
        {
          py::gil_scoped_release nogil;
          t = ops::randperm(n, o.dtype, o.device, gg);
        }
        if (out.is_none()) return py::cast(t);
        ops::copy_(tensor_arg(out, "out"), t);
        return py::reinterpret_borrow<py::object>(out);
      },
      py::arg("n"), py::kw_only(), gen, out, dtype, device, grad, pin, layout,
      "A random permutation of 0 .. n-1 (int64 unless dtype= says otherwise).");

  m.def(
      "rand_like",
      [](const Tensor& t, py::handle dtype, py::handle device, bool grad, py::handle, py::handle,
         py::handle g) {
        Tensor r = like(t, dtype, device, grad, "rand_like");
        const Generator gg = generator_arg(g);
        draw(r, [&] { ops::uniform_(r, 0.0, 1.0, gg); });
        return r;
      },
      py::arg("input"), py::kw_only(), dtype, device, grad, layout,
      py::arg("memory_format") = py::none(), gen);
  m.def(
      "randn_like",
      [](const Tensor& t, py::handle dtype, py::handle device, bool grad, py::handle, py::handle,
         py::handle g) {
        Tensor r = like(t, dtype, device, grad, "randn_like");
        const Generator gg = generator_arg(g);
        draw(r, [&] { ops::normal_(r, 0.0, 1.0, gg); });
        return r;
      },
      py::arg("input"), py::kw_only(), dtype, device, grad, layout,
      py::arg("memory_format") = py::none(), gen);
  m.def(
      "randint_like",
      [](const Tensor& t, py::handle a, py::handle b, py::handle dtype, py::handle device,
         bool grad, py::handle, py::handle, py::handle g) {
        const auto [low, high] = randint_bounds(a, b, "randint_like");
        Tensor r = like(t, dtype, device, grad, "randint_like");
        const Generator gg = generator_arg(g);
        draw(r, [&] { ops::random_(r, low, high, gg); });
        return r;
      },
      py::arg("input"), py::arg("low"), py::arg("high") = py::none(), py::kw_only(), dtype,
      device, grad, layout, py::arg("memory_format") = py::none(), gen,
      "randint_like(input, high) or randint_like(input, low, high).");

  m.def(
      "normal",
      [](py::handle mean, py::handle std, py::handle size, py::handle g, py::handle out,
         py::handle dtype, py::handle device, bool grad, bool pin, py::handle) {
        const Generator gg = generator_arg(g);
        const bool tm = is_tensor(mean), ts = is_tensor(std);
        if (!tm && !ts) {  // normal(mean, std, size)
          EMBER_CHECK_TYPE(!size.is_none(), "normal(): with float mean and std, size= is "
                           "required: normal(0.0, 1.0, size=(2, 3))");
          const DrawOptions o = draw_options(dtype, device, pin, grad, "normal", default_dtype());
          const Tensor t = target(int_list_arg(size, "normal", "size"), o, out, "normal");
          const double mu = scalar_arg(mean, "normal", "mean").to_double();
          const double sd = scalar_arg(std, "normal", "std").to_double();
          draw(t, [&] { ops::normal_(t, mu, sd, gg); });
          return result(t, out);
        }
        const Tensor& ref = tm ? tensor_arg(mean) : tensor_arg(std);
        auto as_tensor = [&](py::handle h, const char* arg) {
          if (is_tensor(h)) return tensor_arg(h);
          Tensor s = Tensor::empty({}, ref.dtype(), ref.device());
          ops::fill_(s, scalar_arg(h, "normal", arg));
          return s;
        };
        const Tensor mt = as_tensor(mean, "mean"), st = as_tensor(std, "std");
        EMBER_CHECK(is_floating(mt.dtype()) && is_floating(st.dtype()),
                    "normal expects floating point mean and std, got ", dtype_name(mt.dtype()),
                    " and ", dtype_name(st.dtype()));
        const ScalarType rt = promote_types(mt.dtype(), st.dtype());
        const Shape shape = broadcast_shapes(mt.sizes(), st.sizes());
        const Tensor t = target(shape, DrawOptions{rt, ref.device(), false, grad}, out, "normal");
        draw(t, [&] { ops::normal_tensor_(t, mt, st, gg); });
        return result(t, out);
      },
      py::arg("mean"), py::arg("std") = 1.0, py::arg("size") = py::none(), py::kw_only(), gen,
      out, dtype, device, grad, pin, layout,
      "Normal numbers: normal(mean_tensor, std_tensor), normal(mean_tensor, std=1.0), "
      "normal(mean, std_tensor), normal(mean, std, size).");
  m.def(
      "bernoulli",
      [](const Tensor& input, py::handle p, py::handle g, py::handle out) {
        const Generator gg = generator_arg(g);
        const Tensor t = out.is_none() ? like(input, py::none(), py::none(), false, "bernoulli")
                                       : tensor_arg(out, "out");
        if (p.is_none()) {
          draw(t, [&] { ops::bernoulli_(t, input, gg); });
        } else {
          const double pv = scalar_arg(p, "bernoulli", "p").to_double();
          draw(t, [&] { ops::bernoulli_(t, pv, gg); });
        }
        return result(t, out);
      },
      py::arg("input"), py::arg("p") = py::none(), py::kw_only(), gen, out,
      "0/1 draws with the probabilities in input (or probability p for every element).");
  m.def(
      "multinomial",
      [](const Tensor& input, int64_t n, bool replacement, py::handle g) {
        const Generator gg = generator_arg(g);
        if (input.is_cpu()) {
          py::gil_scoped_release nogil;
          return ops::multinomial(input, n, replacement, gg);
        }
        return ops::multinomial(input, n, replacement, gg);
      },
      py::arg("input"), py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(),
      gen, "Indices drawn from the categorical distributions in the rows of input.");
}

void bind_methods(py::class_<Tensor>& cls) {
  const auto gen = py::arg("generator") = py::none();
  cls.def(
      "uniform_",
      [](py::object self, double from, double to, py::handle g) {
        const Tensor& t = tensor_arg(self);
        const Generator gg = generator_arg(g);
        draw(t, [&] { autograd::uniform_(t, from, to, gg); });
        return self;
      },
      py::arg("from") = 0.0, py::arg("to") = 1.0, py::kw_only(), gen);
  cls.def(
      "normal_",
      [](py::object self, double mean, double std, py::handle g) {
        const Tensor& t = tensor_arg(self);
        const Generator gg = generator_arg(g);
        draw(t, [&] { autograd::normal_(t, mean, std, gg); });
        return self;
      },
      py::arg("mean") = 0.0, py::arg("std") = 1.0, py::kw_only(), gen);
  cls.def(
      "random_",
      [](py::object self, py::handle a, py::handle b, py::handle g) {
        const Tensor& t = tensor_arg(self);
        int64_t low = 0, high = 0;
        if (a.is_none() && b.is_none()) {
          high = default_random_high(t.dtype());
        } else {
          std::tie(low, high) = randint_bounds(a, b, "random_");
        }
        const Generator gg = generator_arg(g);
        draw(t, [&] { autograd::random_(t, low, high, gg); });
        return self;
      },
      py::arg("from") = py::none(), py::arg("to") = py::none(), py::kw_only(), gen,
      "random_(to) or random_(from, to): integers in [from, to); random_(): [0, 2^digits] for "
      "floats, [0, max] for integers.");
  cls.def(
      "exponential_",
      [](py::object self, double lambd, py::handle g) {
        const Tensor& t = tensor_arg(self);
        const Generator gg = generator_arg(g);
        draw(t, [&] { autograd::exponential_(t, lambd, gg); });
        return self;
      },
      py::arg("lambd") = 1.0, py::kw_only(), gen);
  cls.def(
      "bernoulli_",
      [](py::object self, py::handle p, py::handle g) {
        const Tensor& t = tensor_arg(self);
        const Generator gg = generator_arg(g);
        if (is_tensor(p)) {
          const Tensor& pt = tensor_arg(p);
          draw(t, [&] { autograd::bernoulli_(t, pt, gg); });
        } else {
          const double pv = scalar_arg(p, "bernoulli_", "p").to_double();
          draw(t, [&] { autograd::bernoulli_(t, pv, gg); });
        }
        return self;
      },
      py::arg("p") = 0.5, py::kw_only(), gen);
  cls.def(
      "bernoulli",
      [](const Tensor& self, py::handle p, py::handle g) {
        const Generator gg = generator_arg(g);
        Tensor t = like(self, py::none(), py::none(), false, "bernoulli");
        if (p.is_none()) {
          draw(t, [&] { ops::bernoulli_(t, self, gg); });
        } else {
          const double pv = scalar_arg(p, "bernoulli", "p").to_double();
          draw(t, [&] { ops::bernoulli_(t, pv, gg); });
        }
        return t;
      },
      py::arg("p") = py::none(), py::kw_only(), gen);
  cls.def(
      "multinomial",
      [](const Tensor& self, int64_t n, bool replacement, py::handle g) {
        return ops::multinomial(self, n, replacement, generator_arg(g));
      },
      py::arg("num_samples"), py::arg("replacement") = false, py::kw_only(), gen);
}

// Test hooks: the generator and the shared math, callable from Python.
void bind_testing(py::module_& m) {
  m.def("_philox4x32_10", [](std::array<uint32_t, 4> c, std::array<uint32_t, 2> k) {
    const philox::Words w = philox::philox4x32_10(c[0], c[1], c[2], c[3], k[0], k[1]);
    return py::make_tuple(w.w[0], w.w[1], w.w[2], w.w[3]);
  });
  m.def("_rnd_log", [](double x, bool dbl) {
    return dbl ? rnd::log_(x) : static_cast<double>(rnd::log_(static_cast<float>(x)));
  }, py::arg("x"), py::arg("double") = false);
  m.def("_rnd_sincos_2pi", [](double u, bool dbl) -> py::tuple {
    if (dbl) {
      double s, c;
      rnd::sincos_2pi(u, s, c);
      return py::make_tuple(s, c);
    }
    float s, c;
    rnd::sincos_2pi(static_cast<float>(u), s, c);
    return py::make_tuple(static_cast<double>(s), static_cast<double>(c));
  }, py::arg("u"), py::arg("double") = false);
}

}  // namespace

void bind_random(py::module_& m, py::module_& cuda) {
  bind_testing(m);
  bind_generator(m);
  bind_cuda_seeds(cuda);
  bind_creation(m);
  auto cls = py::reinterpret_borrow<py::class_<Tensor>>(m.attr("Tensor"));
  bind_methods(cls);
}

}  // namespace ember::bindings
