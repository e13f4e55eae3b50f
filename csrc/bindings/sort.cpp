// The sorting and search family's cores (ember._C._sort): sort, searchsorted,
// cum_extreme (cummax/cummin), bincount. torch's signatures, argument checks,
// the composites built on these (argsort, topk, kthvalue, median, mode,
// quantile, unique, bucketize, histc, histogram ...) and autograd live in
// python/ember/_sorting.py. None of these records a graph: the Python layer
// reads the values through the indices where the input requires grad.
#include "bindings/bindings.hpp"
#include "bindings/tensor_common.hpp"
#include "ops/sort/bincount.hpp"
#include "ops/sort/cum_extreme.hpp"
#include "ops/sort/search.hpp"
#include "ops/sort/sort.hpp"
#include "ops/sort/topk.hpp"

namespace ember::bindings {

void bind_sort(py::module_& m) {
  py::module_ s = m.def_submodule("_sort", "the sorting and search family's cores");
  s.def(
      "sort",
      [](const Tensor& x, int64_t dim, bool descending) {
        py::gil_scoped_release nogil;
        return ops::sort(x, dim, descending);
      },
      py::arg("input"), py::arg("dim") = -1, py::arg("descending") = false,
      "(values, int64 indices) of input sorted along dim; always stable; NaN sorts last "
      "(first when descending). No autograd.");
  s.def(
      "unique_flat",
      [](const Tensor& x, bool sorted, bool return_inverse, bool return_counts) {
        py::gil_scoped_release nogil;
        return ops::unique_flat(x, sorted, return_inverse, return_counts);
      },
      py::arg("input"), py::arg("sorted"), py::arg("return_inverse"), py::arg("return_counts"),
      "(values, inverse, counts) of the distinct elements of a CUDA tensor (sorted) or of its "
      "runs of equal neighbours; inverse and counts empty unless asked for. One host sync.");
  s.def(
      "topk_candidates",
      [](const Tensor& x, int64_t k, bool largest) {
        py::gil_scoped_release nogil;
        return ops::topk_candidates(x, k, largest);
      },
      py::arg("input"), py::arg("k"), py::arg("largest"),
      "(values, int64 indices) of the k largest (smallest) elements of a CUDA tensor "
      "(flattened), by radix select: unsorted (those beyond the k-th, then enough equal to it, "
      "each in input order). No host sync.");
  s.def(
      "searchsorted",
      [](const Tensor& seq, const Tensor& values, bool right, bool out_int32) {
        py::gil_scoped_release nogil;
        return ops::searchsorted(seq, values, right, out_int32);
      },
      py::arg("sorted_sequence"), py::arg("values"), py::arg("right") = false,
      py::arg("out_int32") = false,
      "Insertion indices of values in sorted_sequence (one dtype, 1-D or of values' leading "
      "dims).");
  s.def(
      "cum_extreme",
      [](bool is_max, const Tensor& x, int64_t dim) {
        py::gil_scoped_release nogil;
        return ops::cum_extreme(is_max, x, dim);
      },
      py::arg("is_max"), py::arg("input"), py::arg("dim"),
      "(values, indices) of cummax (is_max) or cummin along dim. No autograd.");
  s.def(
      "bincount",
      [](const Tensor& idx, py::handle weights, int64_t nbins) {
        const Tensor w = weights.is_none() ? Tensor() : tensor_arg(weights, "weights");
        py::gil_scoped_release nogil;
        return ops::bincount(idx, w, nbins);
      },
      py::arg("indices"), py::arg("weights"), py::arg("nbins"),
      "Counts (or summed float32/float64 weights) of contiguous int64 indices in [0, nbins).");
}

}  // namespace ember::bindings
