// Tensor.__getitem__ / __setitem__ with NumPy's and torch's rules: ints,
// slices (with steps), None, Ellipsis and bools give views; integer tensors,
// lists and boolean masks give copies (advanced indexing, ops/index/index.hpp).
#include <Python.h>

#include <optional>

#include "autograd/functions.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "ops/index/index.hpp"
#include "ops/overlap.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::bindings {

namespace {

// BoolTensor: a 0-d bool or uint8 tensor, which torch applies as a Python
// bool would be (a new dim of size 1), but through an int64 index tensor
// ([0] when true, [] when false): the result is a copy.
enum class Kind { Int, Slice, None, Ellipsis, Bool, Tensor, BoolTensor };

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
    // A 0-d integer tensor indexes like the int it holds, on any device (torch's
    // applySlicing reads it with item(): one host synchronisation for a GPU index).
    if (t.dim() == 0 && is_integral(t.dtype(), false) &&
        t.dtype() != ScalarType::UInt8) {
      return Item{Kind::Int, obj, py::cast<int64_t>(element_to_py(t))};
    }
    if (t.dim() == 0 && (t.dtype() == ScalarType::Bool || t.dtype() == ScalarType::UInt8)) {
      return Item{Kind::BoolTensor, obj, PyObject_IsTrue(element_to_py(t).ptr()) == 1};
    }
  } else if (PyList_Check(p) || PyTuple_Check(p) || is_numpy_array(obj)) {
    t = tensor_from_data(obj, std::nullopt, Device(DeviceType::CPU), false);
    if (t.numel() == 0 && !is_numpy_array(obj)) t = ops::to(t, t.device(), ScalarType::Int64);
  } else if (PyRange_Check(p)) {  // x[range(n), target]: the range's ints, as a list would
    const py::list items = py::reinterpret_steal<py::list>(PySequence_List(p));
    if (!items) throw py::error_already_set();
    t = tensor_from_data(items, ScalarType::Int64, Device(DeviceType::CPU), false);
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

// x[i] on dim d of v (dim real_dim of the indexed tensor), with torch's
// indexing messages (select() has its own).
Tensor select_index(const Tensor& v, int64_t d, int64_t i, int64_t real_dim) {
  if (v.dim() == 0) {
    throw IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                     "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number");
  }
  const int64_t n = v.sizes()[d];
  if (i < -n || i >= n) {
    throw IndexError(detail::str("index ", i, " is out of bounds for dimension ", real_dim,
                                 " with size ", n));
  }
  return autograd::select(v, d, i);
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
      case Kind::Int:
        // Errors name the dim of self (torch's real_dim), not of the view.
        v = select_index(v, d, it.i, real_dim);
        ++real_dim;
        break;
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
      case Kind::BoolTensor:
        v = autograd::unsqueeze(v, d);
        out.advanced = true;
        out.indices.insert(out.indices.end(), d - covered, Tensor());
        out.indices.push_back(Tensor::empty({it.i ? 1 : 0}, ScalarType::Int64, self.device()));
        if (it.i) ops::zero_(out.indices.back());
        ++d;
        covered = d;
        break;
    }
  }
  out.view = v;
  return out;
}

// x[a:b] of a 0-d tensor: torch's message for a lone slice (in a tuple it is
// "too many indices").
void check_lone_slice(const Tensor& self, py::handle index) {
  if (self.dim() == 0 && PySlice_Check(index.ptr())) {
    throw IndexError("slice() cannot be applied to a 0-dim tensor.");
  }
}

// A Python number on its way into a tensor of `dtype`, checked as torch
// checks it: ints beyond int64 raise ValueError, values out of the dtype's
// range RuntimeError (check_scalar_fits) -- except for float16 and bfloat16,
// which torch converts unchecked here (x[0] = 1e5 writes inf; their fill_
// and masked_fill_ do check).
Scalar setitem_number(py::handle value, ScalarType dtype) {
  PyObject* p = value.ptr();
  if (PyLong_Check(p) && !PyBool_Check(p)) {
    int overflow = 0;
    PyLong_AsLongLongAndOverflow(p, &overflow);
    if (overflow) throw ValueError("Overflow when unpacking long long");
  }
  const Scalar s = scalar_arg(value, "__setitem__", "value");
  if (dtype != ScalarType::Float16 && dtype != ScalarType::BFloat16) check_scalar_fits(s, dtype);
  return s;
}

// The value without its leading dims of size 1 (torch's slicePrefix1sSize):
// setitem broadcasts what is left to the indexed shape.
Tensor drop_leading_ones(const Tensor& v) {
  int64_t k = 0;
  while (k < v.dim() && v.sizes()[k] == 1) ++k;
  if (k == 0) return v;
  return autograd::view(v, Shape(v.sizes().begin() + k, v.sizes().end()));
}

// torch's canDispatchToMaskedFill: one element on the CPU as the value and,
// as the only index, one bool/uint8 mask on self's device. Returns the mask
// (after checking its shape, IndexError as torch), or nullptr.
const Tensor* masked_fill_mask(const Tensor& self, const std::vector<Tensor>& indices,
                               const Tensor& v) {
  if (v.numel() != 1 || !v.is_cpu()) return nullptr;
  const Tensor* mask = nullptr;
  int64_t d = 0, at = 0;
  for (const Tensor& idx : indices) {
    if (!idx.defined()) {
      ++d;
      continue;
    }
    if ((idx.dtype() != ScalarType::Bool && idx.dtype() != ScalarType::UInt8) ||
        idx.device() != self.device() || mask) {
      return nullptr;
    }
    mask = &idx;
    at = d;
    d += idx.dim();
  }
  if (!mask) return nullptr;
  for (int64_t k = 0; k < mask->dim(); ++k) {
    if (at + k >= self.dim() || mask->sizes()[k] != self.sizes()[at + k]) {
      throw IndexError(detail::str("The shape of the mask ", shape_str(mask->sizes()),
                                   " at index ", k,
                                   " does not match the shape of the indexed tensor ",
                                   shape_str(self.sizes()), " at index ", at + k));
    }
  }
  return mask;
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
    return py::cast(select_index(self, 0, int_arg(index, "__getitem__", "index"), 0));
  }
  check_lone_slice(self, index);
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
  // torch turns the value into a tensor before it reads the index: a number
  // out of the dtype's range raises before an index out of range.
  Tensor v;
  std::optional<Scalar> number;
  if (is_tensor(value)) {
    v = tensor_arg(value);
  } else if (is_scalar_like(value)) {
    number = setitem_number(value, self.dtype());
  } else {
    // Lists and arrays: ember converts them (torch raises TypeError).
    v = tensor_from_data(value, self.dtype(), self.device(), false);
  }
  check_lone_slice(self, index);
  Parsed r = apply(self, index);
  if (!r.advanced) {
    if (number) {
      // torch makes a number a 0-d tensor on self's device (the CPU for a
      // device tensor) and fills with it: a copy on the CPU, which refuses
      // a self whose elements overlap (an expanded view); a fill of the
      // number on a device, which writes it.
      if (r.view.is_cpu()) ops::check_no_internal_overlap(r.view);
      py::gil_scoped_release nogil;
      autograd::fill_(r.view, *number);
      return;
    }
    if (v.sizes() != r.view.sizes()) {
      // torch fills from a 0-d CPU value (on the GPU through its number,
      // range-checked, with no overlap check), and otherwise drops the
      // value's leading 1s before broadcasting it: x[0] = ones(1) writes one
      // element.
      if (v.dim() == 0 && v.is_cpu() && !r.view.is_cpu()) {
        check_scalar_fits(scalar_arg(value, "__setitem__", "value"), r.view.dtype());
        py::gil_scoped_release nogil;
        autograd::fill_(r.view, v);
        return;
      } else {
        // torch's expand_inplace: expand's errors for a value that does not fit.
        v = autograd::expand(drop_leading_ones(v), r.view.sizes());
      }
    }
    py::gil_scoped_release nogil;
    autograd::copy_(r.view, v);
    return;
  }
  std::vector<Tensor> indices = trim(std::move(r.indices));
  if (number) {
    // A 0-d CPU tensor of self's dtype (checked above), as torch's valueToTensor.
    v = Tensor::empty({}, self.dtype(), Device(DeviceType::CPU));
    ops::fill_(v, *number);
  } else {
    v = drop_leading_ones(v);
    if (v.device() != self.device() && !(v.dim() == 0 && v.is_cpu())) {
      check_same_device(self, v);
    }
  }
  if (const Tensor* mask = masked_fill_mask(r.view, indices, v)) {
    // torch's index_put_ fills through masked_fill_ here: the value is read
    // as a number (range-checked in every dtype but bool) and may have any
    // dtype; masks must be bool.
    if (mask->dtype() == ScalarType::UInt8) {
      throw Error("masked_fill_ only supports boolean masks, but got mask with dtype "
                  "unsigned char");
    }
    if (!number) {
      check_scalar_fits(scalar_arg(py::cast(v), "__setitem__", "value"), self.dtype());
      v = autograd::to(v, v.device(), self.dtype());
    }
  }
  py::gil_scoped_release nogil;
  autograd::index_put_(r.view, indices, v);
}

}  // namespace ember::bindings
