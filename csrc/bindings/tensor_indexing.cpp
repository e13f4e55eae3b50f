// Tensor.__getitem__ / __setitem__ with NumPy's and torch's rules: ints,
// slices (with steps), None, Ellipsis and bools give views; integer tensors,
// lists and boolean masks give copies (advanced indexing, ops/index/index.hpp).
#include <Python.h>

#include "autograd/functions.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "ops/index/index.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::bindings {

namespace {

enum class Kind { Int, Slice, None, Ellipsis, Bool, Tensor };

struct Item {
  Item(Kind k, py::handle o, int64_t v = 0) : kind(k), obj(o), i(v) {}
  Kind kind;
  py::handle obj;
  int64_t i;
  Tensor t;
};

bool is_int_index(PyObject* p) {
  return (PyLong_Check(p) && !PyBool_Check(p)) ||
         (!PyBool_Check(p) && !PyFloat_Check(p) && !is_tensor(p) && !is_numpy_array(p) &&
          PyIndex_Check(p));
}

Item classify(py::handle obj, const Tensor& self) {
  PyObject* p = obj.ptr();
  if (is_int_index(p)) return Item{Kind::Int, obj, int_arg(obj, "__getitem__", "index")};
  if (PySlice_Check(p)) return Item{Kind::Slice, obj};
  if (p == Py_None) return Item{Kind::None, obj};
  if (p == Py_Ellipsis) return Item{Kind::Ellipsis, obj};
  if (PyBool_Check(p)) return Item{Kind::Bool, obj, p == Py_True};
  Tensor t;
  if (is_tensor(obj)) {
    t = tensor_arg(obj);
    // A 0-d integer tensor on the CPU indexes like the int it holds.
    if (t.dim() == 0 && t.is_cpu() && is_integral(t.dtype(), false) &&
        t.dtype() != ScalarType::UInt8) {
      return Item{Kind::Int, obj, py::cast<int64_t>(element_to_py(t))};
    }
  } else if (PyList_Check(p) || PyTuple_Check(p) || is_numpy_array(obj)) {
    t = tensor_from_data(obj, std::nullopt, Device(DeviceType::CPU), false);
    if (t.numel() == 0 && !is_numpy_array(obj)) t = ops::to(t, t.device(), ScalarType::Int64);
  } else {
    throw IndexError(detail::str("only integers, slices (`:`), ellipsis (`...`), None and long "
                                 "or byte Variables are valid indices (got ",
                                 type_name(obj), ")"));
  }
  if (!is_integral(t.dtype(), true)) {
    throw IndexError("tensors used as indices must be long, int, byte or bool tensors");
  }
  Item it{Kind::Tensor, obj};
  it.t = std::move(t);
  return it;
}

// How many dims of self an item consumes.
int64_t consumed(const Item& it) {
  switch (it.kind) {
    case Kind::Int:
    case Kind::Slice:
      return 1;
    case Kind::Tensor:
      return (it.t.dtype() == ScalarType::Bool || it.t.dtype() == ScalarType::UInt8)
                 ? it.t.dim()
                 : 1;
    default:
      return 0;
  }
}

struct Parsed {
  Tensor view;                  // after ints, slices, None, Ellipsis, bools
  std::vector<Tensor> indices;  // per dim of `view`; undefined where not indexed
  bool advanced = false;
};

Parsed apply(const Tensor& self, py::handle index) {
  std::vector<Item> items;
  if (PyTuple_Check(index.ptr())) {
    for (py::handle h : py::reinterpret_borrow<py::tuple>(index)) items.push_back(classify(h, self));
  } else {
    items.push_back(classify(index, self));
  }
  int64_t used = 0, ellipses = 0;
  for (const Item& it : items) {
    used += consumed(it);
    ellipses += it.kind == Kind::Ellipsis;
  }
  if (ellipses > 1) throw IndexError("an index can only have a single ellipsis ('...')");
  if (used > self.dim()) {
    throw IndexError(detail::str("too many indices for tensor of dimension ", self.dim()));
  }
  Parsed out;
  Tensor v = self;
  int64_t d = 0;        // the dim of v the next item applies to
  int64_t covered = 0;  // dims of v that `indices` describes
  int64_t real_dim = 0; // the dim of self the next item applies to
  for (const Item& it : items) {
    switch (it.kind) {
      case Kind::Int: {
        // Errors name the dim of self (torch's real_dim), not of the view.
        const int64_t n = v.sizes()[d];
        if (it.i < -n || it.i >= n) {
          throw IndexError(detail::str("index ", it.i, " is out of bounds for dimension ",
                                       real_dim, " with size ", n));
        }
        v = autograd::select(v, d, it.i);
        ++real_dim;
        break;
      }
      case Kind::Slice: {
        Py_ssize_t start, stop, step;
        if (PySlice_Unpack(it.obj.ptr(), &start, &stop, &step) < 0) throw py::error_already_set();
        EMBER_CHECK_VALUE(step > 0, "step must be greater than zero");
        PySliceObject* s = reinterpret_cast<PySliceObject*>(it.obj.ptr());
        v = autograd::slice(v, d, s->start == Py_None ? std::nullopt : std::optional<int64_t>(start),
                  s->stop == Py_None ? std::nullopt : std::optional<int64_t>(stop), step);
        ++d;
        ++real_dim;
        break;
      }
      case Kind::None:
        v = autograd::unsqueeze(v, d);
        ++d;
        break;
      case Kind::Ellipsis:
        d += self.dim() - used;
        real_dim += self.dim() - used;
        break;
      case Kind::Bool:
        v = autograd::unsqueeze(v, d);
        if (!it.i) v = autograd::slice(v, d, 0, 0, 1);
        ++d;
        break;
      case Kind::Tensor:
        // `indices` is read like torch's index(): an undefined entry skips one
        // dim of the view, a mask covers as many dims as it has.
        out.advanced = true;
        out.indices.insert(out.indices.end(), d - covered, Tensor());
        out.indices.push_back(it.t);
        d += consumed(it);
        real_dim += consumed(it);
        covered = d;
        break;
    }
  }
  out.view = v;
  return out;
}

// Without trailing undefined entries.
std::vector<Tensor> trim(std::vector<Tensor> indices) {
  while (!indices.empty() && !indices.back().defined()) indices.pop_back();
  return indices;
}

}  // namespace

py::object tensor_getitem(const Tensor& self, py::handle index) {
  PyObject* p = index.ptr();
  // Fast paths: x[i] and x[a:b].
  if (PyLong_Check(p) && !PyBool_Check(p)) {
    return py::cast(autograd::select(self, 0, int_arg(index, "__getitem__", "index")));
  }
  Parsed r = apply(self, index);
  if (!r.advanced) {
    if (r.view.is_same(self)) return py::cast(autograd::view(self, self.sizes()));
    return py::cast(std::move(r.view));
  }
  Tensor out;
  {
    py::gil_scoped_release nogil;
    out = autograd::index(r.view, trim(std::move(r.indices)));
  }
  return py::cast(std::move(out));
}

void tensor_setitem(const Tensor& self, py::handle index, py::handle value) {
  Parsed r = apply(self, index);
  Tensor v;
  const bool scalar = !is_tensor(value) && is_scalar_like(value);
  if (is_tensor(value)) {
    v = tensor_arg(value);
  } else if (!scalar) {
    v = tensor_from_data(value, self.dtype(), self.device(), false);
  }
  if (!r.advanced) {
    if (scalar) {
      const Scalar s = scalar_arg(value, "__setitem__", "value");
      py::gil_scoped_release nogil;
      autograd::fill_(r.view, s);
    } else {
      py::gil_scoped_release nogil;
      autograd::copy_(r.view, v);
    }
    return;
  }
  if (scalar) {
    v = Tensor::empty({}, self.dtype(), Device(DeviceType::CPU));
    ops::fill_(v, scalar_arg(value, "__setitem__", "value"));
  } else if (v.device() != self.device() && !(v.dim() == 0 && v.is_cpu())) {
    check_same_device(self, v);
  }
  py::gil_scoped_release nogil;
  autograd::index_put_(r.view, trim(std::move(r.indices)), v);
}

}  // namespace ember::bindings
