// The autograd-aware ops: the same signatures as the functions of tensor/views.hpp
// and ops/*.hpp, plus recording the graph when grad mode is on and an input
// requires grad. The Python bindings call these (never ops:: directly for
// anything differentiable), and so do the backward formulas, which is what
// makes create_graph=True work.
//
// Defined by op family in formulas_*.cpp.
#pragma once

#include <optional>
#include <utility>
#include <string>
#include <vector>

#include "ops/pointwise/binary.hpp"
#include "ops/pointwise/bitwise.hpp"
#include "ops/pointwise/compare.hpp"
#include "ops/nn/conv.hpp"
#include "ops/elementwise.hpp"
#include "ops/nn/pool.hpp"
#include "ops/reduce/reduce.hpp"
#include "ops/reduce/scan.hpp"
#include "ops/pointwise/unary.hpp"
#include "tensor/generator.hpp"
#include "tensor/scalar.hpp"
#include "tensor/tensor.hpp"

namespace ember::autograd {

// ---- helpers of formulas and the engine (no graph of their own) ---------------
Tensor zeros(const Shape& sizes, ScalarType dtype, const Device& device);
Tensor zeros_like(const Tensor& t);
Tensor ones_like(const Tensor& t);
// self += other, no autograd (gradient accumulation).
void add_into(const Tensor& self, const Tensor& other);
// Sums `grad` down to `shape` (the reverse of broadcasting); grad itself when
// the shapes match.
Tensor sum_to(const Tensor& grad, const Shape& shape);
// `shape` broadcasts to `to`.
bool is_expandable_to(const Shape& shape, const Shape& to);
// t * s (autograd-aware); t itself when s is 1.
Tensor scaled(const Tensor& t, const Scalar& s);

// ---- arithmetic (formulas_math.cpp) ------------------------------------------------
// ops::binary / ops::compare with autograd (the math bindings call these).
Tensor binary(ops::BinaryOp op, const ops::Operand& a, const ops::Operand& b,
              const ops::BinaryArgs& args = {}, const Tensor& out = Tensor(),
              bool inplace = false);
Tensor compare(ops::CompareOp op, const ops::Operand& a, const ops::Operand& b,
               const Tensor& out = Tensor(), bool inplace = false);
Tensor add(const ops::Operand& a, const ops::Operand& b, const Scalar& alpha = Scalar::from_int(1));
Tensor sub(const ops::Operand& a, const ops::Operand& b, const Scalar& alpha = Scalar::from_int(1));
Tensor mul(const ops::Operand& a, const ops::Operand& b);
Tensor div(const ops::Operand& a, const ops::Operand& b);
Tensor pow(const ops::Operand& a, const ops::Operand& b);
Tensor neg(const Tensor& t);

// ---- unary math and bitwise ops (formulas_unary.cpp) --------------------------------
Tensor unary(ops::UnaryOp op, const Tensor& x, const ops::UnaryArgs& args = {},
             const Tensor& out = Tensor(), bool inplace = false);
Tensor log(const Tensor& t);
Tensor bitwise(ops::BitwiseOp op, const ops::Operand& a, const ops::Operand& b,
               const Tensor& out = Tensor(), bool inplace = false);
Tensor bitwise_not(const Tensor& x, const Tensor& out = Tensor(), bool inplace = false);

// ---- where, clamp, lerp, addcmul, addcdiv (formulas_ternary.cpp) ---------------------
Tensor where(const Tensor& cond, const ops::Operand& a, const ops::Operand& b,
             const Tensor& out = Tensor());
Tensor clamp(const Tensor& x, const std::optional<ops::Operand>& min,
             const std::optional<ops::Operand>& max, const Tensor& out = Tensor(),
             bool inplace = false);
Tensor lerp(const Tensor& start, const Tensor& end, const ops::Operand& weight,
            const Tensor& out = Tensor(), bool inplace = false);
Tensor addcmul(const Tensor& x, const Tensor& t1, const Tensor& t2,
               const Scalar& value = Scalar::from_int(1), const Tensor& out = Tensor(),
               bool inplace = false);
Tensor addcdiv(const Tensor& x, const Tensor& t1, const Tensor& t2,
               const Scalar& value = Scalar::from_int(1), const Tensor& out = Tensor(),
               bool inplace = false);

// ---- reductions, scans, softmax (formulas_reduce.cpp) ---------------------------------
Tensor reduce(ops::ReduceOp op, const Tensor& x, const ops::Dims& dims, bool keepdim,
              std::optional<ScalarType> dtype = std::nullopt, const ops::ReduceArgs& args = {},
              const Tensor& out = Tensor());
std::pair<Tensor, Tensor> max_min_dim(bool is_max, const Tensor& x, int64_t dim, bool keepdim);
Tensor scan(ops::ScanOp op, const Tensor& x, int64_t dim,
            std::optional<ScalarType> dtype = std::nullopt, const Tensor& out = Tensor());
Tensor softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);
Tensor log_softmax(const Tensor& x, int64_t dim, std::optional<ScalarType> dtype = std::nullopt);

// ---- losses (formulas_loss.cpp) ------------------------------------------------------
enum class Reduction : uint8_t { None, Mean, Sum };
// mean/sum/none of (input - target)^2 (broadcasting), one node.
Tensor mse_loss(const Tensor& input, const Tensor& target, Reduction reduction);
// ctc_loss of (T, N, C) log-probabilities: each sample's negative log-likelihood
// ([N], zeros for infinite ones with zero_infinity); one node, C++ kernels
// (ops/nn/ctc.hpp). targets padded (N, S) or concatenated 1-D.
Tensor ctc_loss(const Tensor& log_probs, const Tensor& targets,
                const std::vector<int64_t>& input_lengths,
                const std::vector<int64_t>& target_lengths, int64_t blank, bool zero_infinity);

// ---- convolution and pooling (formulas_conv.cpp, formulas_pool.cpp) -----------------
// input [N, C, H, W] or unbatched [C, H, W]; one node with its own backward
// (grad_input skipped when the input needs none). Backward is not itself
// differentiable: RuntimeError under create_graph=True.
Tensor conv2d(const Tensor& input, const Tensor& weight, const Tensor& bias,
              const ops::Conv2dParams& p);
// (output, indices); indices undefined unless return_indices.
std::pair<Tensor, Tensor> max_pool2d(const Tensor& x, const ops::Pool2dParams& p,
                                     bool return_indices);
Tensor avg_pool2d(const Tensor& x, const ops::Pool2dParams& p);
// An output size of -1 keeps the input's size (torch's None).
Tensor adaptive_avg_pool2d(const Tensor& x, int64_t oh, int64_t ow);
// ---- normalisation (formulas_norm.cpp) and embeddings (formulas_embedding.cpp) ----
// batch_norm over dim 1 of an (N, C, *) input. training: normalises with the
// batch's statistics and, when running_mean/running_var are defined, updates
// them in place (running = (1 - momentum) * running + momentum * batch, the
// unbiased variance); otherwise normalises with the running statistics.
// weight/bias may be undefined. One node with a fused backward.
Tensor batch_norm(const Tensor& input, const Tensor& running_mean, const Tensor& running_var,
                  const Tensor& weight, const Tensor& bias, bool training, double momentum,
                  double eps);
// layer_norm over the last normalized_shape.size() dims; weight/bias (of
// normalized_shape) may be undefined. One node with a fused backward.
Tensor layer_norm(const Tensor& input, const Shape& normalized_shape, const Tensor& weight,
                  const Tensor& bias, double eps);
// group_norm of an (N, C, *) input: C in `groups` groups, each (sample, group)
// normalised by its mean and biased variance, then weight[c] / bias[c] (both
// may be undefined). One node with a fused backward (ops/nn/group_norm.hpp).
Tensor group_norm(const Tensor& input, int64_t groups, const Tensor& weight, const Tensor& bias,
                  double eps);
// embedding_bag over 1-D indices and offsets (ops/nn/embedding_bag.hpp); mode
// 0 sum, 1 mean, 2 max. Returns {output [B, D], bag sizes, max indices
// (undefined unless max)}; one node for weight and per_sample_weights.
std::vector<Tensor> embedding_bag(const Tensor& weight, const Tensor& indices,
                                  const Tensor& offsets, int64_t mode,
                                  const Tensor& per_sample_weights, bool include_last_offset,
                                  int64_t padding_idx);
// weight[indices] (an int64/int32 tensor of any shape); rows equal to
// padding_idx (-1: none, already wrapped) get no gradient.
Tensor embedding(const Tensor& weight, const Tensor& indices, int64_t padding_idx,
                 bool scale_grad_by_freq);
// In place, without autograd: rows of weight named by indices whose norm_type
// norm exceeds max_norm are scaled to max_norm (torch.embedding_renorm_).
void embedding_renorm_(const Tensor& weight, const Tensor& indices, double max_norm,
                       double norm_type);

// ---- views (formulas_views.cpp) -----------------------------------------------
Tensor view(const Tensor& t, const Shape& shape);
Tensor reshape(const Tensor& t, const Shape& shape);
Tensor flatten(const Tensor& t, int64_t start_dim, int64_t end_dim);
Tensor squeeze(const Tensor& t);
Tensor squeeze(const Tensor& t, const std::vector<int64_t>& dims);
Tensor unsqueeze(const Tensor& t, int64_t dim);
Tensor permute(const Tensor& t, const std::vector<int64_t>& dims);
Tensor transpose(const Tensor& t, int64_t d0, int64_t d1);
Tensor t_2d(const Tensor& t);
Tensor reverse_dims(const Tensor& t);
Tensor matrix_transpose(const Tensor& t, const char* name = "mT");  // mT, mH
Tensor movedim(const Tensor& t, const std::vector<int64_t>& src, const std::vector<int64_t>& dst);
Tensor expand(const Tensor& t, const Shape& sizes);
Tensor narrow(const Tensor& t, int64_t dim, int64_t start, int64_t length);
Tensor slice(const Tensor& t, int64_t dim, std::optional<int64_t> start,
             std::optional<int64_t> stop, int64_t step);
Tensor select(const Tensor& t, int64_t dim, int64_t index);
std::vector<Tensor> split(const Tensor& t, int64_t split_size, int64_t dim);
std::vector<Tensor> split_with_sizes(const Tensor& t, const std::vector<int64_t>& sizes,
                                     int64_t dim);
std::vector<Tensor> chunk(const Tensor& t, int64_t chunks, int64_t dim);
std::vector<Tensor> unbind(const Tensor& t, int64_t dim);
Tensor diagonal(const Tensor& t, int64_t offset, int64_t dim1, int64_t dim2);
Tensor as_strided(const Tensor& t, const Shape& sizes, const Shape& strides,
                  std::optional<int64_t> offset);
// Not differentiable (torch: a view with another dtype has no gradient).
Tensor view_dtype(const Tensor& t, ScalarType dtype);
// A view of `t` with the same geometry (Tensor.data's tensor, alias()).
Tensor alias(const Tensor& t);
// squeeze_/unsqueeze_/transpose_/t_: `t` takes the geometry of `v` (a view of
// t made by the autograd function of the op), and v's history.
void set_metadata_inplace(const Tensor& t, const Tensor& v);

// ---- copies (formulas_copy.cpp) -----------------------------------------------
Tensor clone(const Tensor& t);
Tensor contiguous(const Tensor& t);
Tensor to(const Tensor& t, const Device& device, ScalarType dtype, bool non_blocking = false,
          bool copy = false, bool pin_memory = false);
Tensor cat(const std::vector<Tensor>& tensors, int64_t dim);
Tensor stack(const std::vector<Tensor>& tensors, int64_t dim);
// In-place writes from Python: version bump, leaf checks, history.
void copy_(const Tensor& dst, const Tensor& src, bool non_blocking = false);
void fill_(const Tensor& t, const Scalar& v);
void fill_(const Tensor& t, const Tensor& value);  // a 0-d tensor value
void zero_(const Tensor& t);
// After an in-place write of values that do not depend on the old ones (a
// random draw): bumps the version and gives the old values zero gradient.
void overwritten(const Tensor& t, const char* node_name);

// ---- random draws in place (formulas_random.cpp) -------------------------------
// Tensor.uniform_, normal_, random_, exponential_, bernoulli_ from Python: the
// in-place check (a leaf that requires grad raises), the draw, the version
// bump, and zero gradient for the old values (torch's <Name>Backward0 nodes).
void uniform_(const Tensor& t, double from, double to, const Generator& gen);
void normal_(const Tensor& t, double mean, double std, const Generator& gen);
void random_(const Tensor& t, int64_t low, int64_t high, const Generator& gen);
void exponential_(const Tensor& t, double lambd, const Generator& gen);
void bernoulli_(const Tensor& t, double p, const Generator& gen);
void bernoulli_(const Tensor& t, const Tensor& p, const Generator& gen);

// ---- matrix products (formulas_linalg.cpp) -------------------------------------
Tensor mm(const Tensor& a, const Tensor& b);
Tensor bmm(const Tensor& a, const Tensor& b);
Tensor matmul(const Tensor& a, const Tensor& b);
Tensor mv(const Tensor& mat, const Tensor& vec);
Tensor dot(const Tensor& a, const Tensor& b);
Tensor outer(const Tensor& a, const Tensor& b);
Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
             const Scalar& alpha);
Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha);
Tensor baddbmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
               const Scalar& alpha);
Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias);
Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands);
// out= forms (RuntimeError when an input requires grad) and in-place forms.
void mm_out(const Tensor& out, const Tensor& a, const Tensor& b);
void bmm_out(const Tensor& out, const Tensor& a, const Tensor& b);
void matmul_out(const Tensor& out, const Tensor& a, const Tensor& b);
void addmm_out(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b,
               const Scalar& beta, const Scalar& alpha);
void addmm_(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
            const Scalar& alpha);
void baddbmm_(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
              const Scalar& alpha);

// ---- complex numbers (formulas_complex.cpp) -------------------------------------
// Gradients follow torch's convention: the conjugate Wirtinger derivative, so
// that for a real loss L of z = a + ib the gradient is dL/da + i dL/db. A real
// input receiving a complex gradient keeps its real part (the engine converts
// it to the input's dtype).
Tensor view_as_real(const Tensor& t);
Tensor view_as_complex(const Tensor& t);
Tensor real(const Tensor& t);  // t itself for real dtypes
Tensor imag(const Tensor& t);
// Complex: a materialised conjugate (ember has no conjugate bit); real: t itself.
Tensor conj(const Tensor& t);
Tensor conj_physical(const Tensor& t, const Tensor& out = Tensor(), bool inplace = false);
Tensor sgn(const Tensor& t, const Tensor& out = Tensor(), bool inplace = false);
Tensor angle(const Tensor& t, const Tensor& out = Tensor());
Tensor complex(const Tensor& real, const Tensor& imag, const Tensor& out = Tensor());
Tensor polar(const Tensor& abs, const Tensor& angle, const Tensor& out = Tensor());

// ---- indexing (formulas_index.cpp) ----------------------------------------------
Tensor index(const Tensor& self, const std::vector<Tensor>& indices);
void index_put_(const Tensor& self, const std::vector<Tensor>& indices, const Tensor& values,
                bool accumulate = false);

}  // namespace ember::autograd
