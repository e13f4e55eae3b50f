// Matrix products (ops/blas/matmul.hpp, linear.hpp, einsum.hpp): the forward is the
// linear-algebra issue's (cuBLAS / NumPy); the backward is more products of
// transposed views, which cuBLAS reads in place through its transpose flags.
// Inputs that need no gradient cost nothing (n.needs(i)): the first layer of a
// network does not multiply for the gradient of its input data.
#include <algorithm>
#include <map>
#include <set>

#include "autograd/autocast.hpp"
#include "autograd/dispatch.hpp"
#include "autograd/functions.hpp"
#include "ops/blas/einsum.hpp"
#include "ops/blas/linear.hpp"
#include "ops/blas/matmul.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::autograd {

namespace {

bool is_zero(const Scalar& s) { return s.to_double() == 0.0 && s.to_complex().im == 0.0; }

Tensor mT(const Tensor& t) { return autograd::transpose(t, -2, -1); }
// Complex gradients multiply by the conjugates of the other operands (torch's
// convention, autograd::conj); for real tensors these are the tensors themselves.
Tensor mH(const Tensor& t) { return autograd::conj(mT(t)); }

}  // namespace

Tensor mm(const Tensor& a, const Tensor& b) {
  if (autocast::any_enabled()) {
    if (auto ac = autocast::enter(a, autocast::kBothLists, autocast::Policy::Lower)) {
      return autograd::mm(ac.cast(a), ac.cast(b));
    }
  }
  Tensor out = ops::mm(a, b);
  if (!needs_grad(a, b)) return out;
  auto node = record("MmBackward0", {&a, &b}, {&out}, [](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList r(2);
    if (n.needs(0)) r[0] = autograd::mm(g[0], mH(n.saved(1)));
    if (n.needs(1)) r[1] = autograd::mm(mH(n.saved(0)), g[0]);
    return r;
  });
  node->save(requires_grad(b) ? a : Tensor());
  node->save(requires_grad(a) ? b : Tensor());
  return out;
}

Tensor bmm(const Tensor& a, const Tensor& b) {
  if (autocast::any_enabled()) {
    if (auto ac = autocast::enter(a, autocast::kBothLists, autocast::Policy::Lower)) {
      return autograd::bmm(ac.cast(a), ac.cast(b));
    }
  }
  Tensor out = ops::bmm(a, b);
  if (!needs_grad(a, b)) return out;
  auto node = record("BmmBackward0", {&a, &b}, {&out}, [](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList r(2);
    if (n.needs(0)) r[0] = autograd::bmm(g[0], mH(n.saved(1)));
    if (n.needs(1)) r[1] = autograd::bmm(mH(n.saved(0)), g[0]);
    return r;
  });
  node->save(requires_grad(b) ? a : Tensor());
  node->save(requires_grad(a) ? b : Tensor());
  return out;
}

Tensor matmul(const Tensor& a, const Tensor& b) {
  if (autocast::any_enabled()) {
    if (auto ac = autocast::enter(a, autocast::kBothLists, autocast::Policy::Lower)) {
      return autograd::matmul(ac.cast(a), ac.cast(b));
    }
  }
  if (a.dim() == 2 && b.dim() == 2) return autograd::mm(a, b);
  Tensor out = ops::matmul(a, b);
  if (!needs_grad(a, b)) return out;
  const Shape as = a.sizes(), bs = b.sizes();
  auto node = record("MatmulBackward0", {&a, &b}, {&out},
                     [as, bs](FormulaNode& n, TensorList& g) -> TensorList {
    // 1-D operands as matrices: a [k] -> [1, k], b [k] -> [k, 1]; the
    // gradient gets the dims matmul removed back.
    Tensor A = n.saved(0), B = n.saved(1), G = g[0];
    const bool a1 = as.size() == 1, b1 = bs.size() == 1;
    if (A.defined() && a1) A = autograd::unsqueeze(A, 0);
    if (B.defined() && b1) B = autograd::unsqueeze(B, 1);
    if (a1) G = autograd::unsqueeze(G, G.dim() - (b1 ? 0 : 1));
    if (b1) G = autograd::unsqueeze(G, G.dim());
    Shape a2 = as, b2 = bs;
    if (a1) a2.insert(a2.begin(), 1);
    if (b1) b2.push_back(1);
    TensorList r(2);
    if (n.needs(0)) r[0] = autograd::reshape(sum_to(autograd::matmul(G, mH(B)), a2), as);
    if (n.needs(1)) r[1] = autograd::reshape(sum_to(autograd::matmul(mH(A), G), b2), bs);
    return r;
  });
  node->save(requires_grad(b) ? a : Tensor());
  node->save(requires_grad(a) ? b : Tensor());
  return out;
}

Tensor mv(const Tensor& mat, const Tensor& vec) {
  if (autocast::any_enabled()) {
    if (auto ac = autocast::enter(mat, autocast::kCudaList, autocast::Policy::Lower)) {
      return autograd::mv(ac.cast(mat), ac.cast(vec));
    }
  }
  Tensor out = ops::mv(mat, vec);
  if (!needs_grad(mat, vec)) return out;
  auto node = record("MvBackward0", {&mat, &vec}, {&out}, [](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList r(2);
    if (n.needs(0)) r[0] = autograd::outer(g[0], autograd::conj(n.saved(1)));
    if (n.needs(1)) r[1] = autograd::mv(autograd::conj(autograd::t_2d(n.saved(0))), g[0]);
    return r;
  });
  node->save(requires_grad(vec) ? mat : Tensor());
  node->save(requires_grad(mat) ? vec : Tensor());
  return out;
}

Tensor dot(const Tensor& a, const Tensor& b) {
  if (autocast::any_enabled()) {
    if (auto ac = autocast::enter_promote({&a, &b}, autocast::kCudaList)) {
      return autograd::dot(ac.cast(a), ac.cast(b));
    }
  }
  Tensor out = ops::dot(a, b);
  if (!needs_grad(a, b)) return out;
  auto node = record("DotBackward0", {&a, &b}, {&out}, [](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList r(2);
    if (n.needs(0)) r[0] = autograd::mul(autograd::conj(n.saved(1)), g[0]);
    if (n.needs(1)) r[1] = autograd::mul(autograd::conj(n.saved(0)), g[0]);
    return r;
  });
  node->save(requires_grad(b) ? a : Tensor());
  node->save(requires_grad(a) ? b : Tensor());
  return out;
}

Tensor outer(const Tensor& a, const Tensor& b) {
  Tensor out = ops::outer(a, b);
  if (!needs_grad(a, b)) return out;
  auto node = record("OuterBackward0", {&a, &b}, {&out}, [](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList r(2);
    if (n.needs(0)) r[0] = autograd::mv(g[0], autograd::conj(n.saved(1)));
    if (n.needs(1)) r[1] = autograd::mv(autograd::t_2d(g[0]), autograd::conj(n.saved(0)));
    return r;
  });
  node->save(requires_grad(b) ? a : Tensor());
  node->save(requires_grad(a) ? b : Tensor());
  return out;
}

namespace {

// beta * self + alpha * prod(a, b) for the three add* products.
template <typename Prod>
void record_addprod(const char* name, const Tensor& out, const Tensor& self, const Tensor& a,
                    const Tensor& b, const Scalar& beta, const Scalar& alpha, Prod prod,
                    bool vector) {
  const Shape ss = self.sizes();
  auto node = record(name, {&self, &a, &b}, {&out},
                     [=](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList r(3);
    if (n.needs(0) && !is_zero(beta)) r[0] = sum_to(scaled(g[0], beta.conj()), ss);
    if (n.needs(0) && is_zero(beta)) r[0] = zeros(ss, g[0].dtype(), g[0].device());
    if (n.needs(1)) {
      r[1] = vector ? autograd::outer(g[0], autograd::conj(n.saved(1))) : prod(g[0], mH(n.saved(1)));
      r[1] = scaled(r[1], alpha.conj());
    }
    if (n.needs(2)) {
      r[2] = vector ? autograd::mv(autograd::conj(autograd::t_2d(n.saved(0))), g[0])
                    : prod(mH(n.saved(0)), g[0]);
      r[2] = scaled(r[2], alpha.conj());
    }
    return r;
  });
  node->save(requires_grad(b) ? a : Tensor());
  node->save(requires_grad(a) ? b : Tensor());
}

}  // namespace

Tensor addmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
             const Scalar& alpha) {
  if (autocast::any_enabled()) {
    if (auto ac = autocast::enter(self, autocast::kBothLists, autocast::Policy::Lower)) {
      return autograd::addmm(ac.cast(self), ac.cast(a), ac.cast(b), beta, alpha);
    }
  }
  Tensor out = ops::addmm(self, a, b, beta, alpha);
  if (needs_grad(self, a, b)) {
    record_addprod("AddmmBackward0", out, self, a, b, beta, alpha,
                   [](const Tensor& x, const Tensor& y) { return autograd::mm(x, y); }, false);
  }
  return out;
}

Tensor addmv(const Tensor& self, const Tensor& mat, const Tensor& vec, const Scalar& beta,
             const Scalar& alpha) {
  if (autocast::any_enabled()) {
    if (auto ac = autocast::enter(self, autocast::kCudaList, autocast::Policy::Lower)) {
      return autograd::addmv(ac.cast(self), ac.cast(mat), ac.cast(vec), beta, alpha);
    }
  }
  Tensor out = ops::addmv(self, mat, vec, beta, alpha);
  if (needs_grad(self, mat, vec)) {
    record_addprod("AddmvBackward0", out, self, mat, vec, beta, alpha,
                   [](const Tensor& x, const Tensor& y) { return autograd::mm(x, y); }, true);
  }
  return out;
}

Tensor baddbmm(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
               const Scalar& alpha) {
  if (autocast::any_enabled()) {
    if (auto ac = autocast::enter(self, autocast::kBothLists, autocast::Policy::Lower)) {
      return autograd::baddbmm(ac.cast(self), ac.cast(a), ac.cast(b), beta, alpha);
    }
  }
  Tensor out = ops::baddbmm(self, a, b, beta, alpha);
  if (needs_grad(self, a, b)) {
    record_addprod("BaddbmmBackward0", out, self, a, b, beta, alpha,
                   [](const Tensor& x, const Tensor& y) { return autograd::bmm(x, y); }, false);
  }
  return out;
}

Tensor linear(const Tensor& x, const Tensor& weight, const Tensor& bias) {
  if (autocast::any_enabled()) {
    if (auto ac = autocast::enter(x, autocast::kBothLists, autocast::Policy::Lower)) {
      return autograd::linear(ac.cast(x), ac.cast(weight), ac.cast(bias));
    }
  }
  if (weight.dim() != 2) {  // y = x @ weight (+ bias): the general product
    Tensor y = autograd::matmul(x, weight);
    return bias.defined() ? autograd::add(y, bias) : y;
  }
  Tensor out = ops::linear(x, weight, bias);
  if (!needs_grad(x, weight, bias)) return out;
  const Shape bs = bias.defined() ? bias.sizes() : Shape{};
  const char* name = x.dim() == 2 ? (bias.defined() ? "AddmmBackward0" : "MmBackward0")
                                  : "LinearBackward0";
  auto node = record(name, {&x, &weight, &bias}, {&out},
                     [bs](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList r(3);
    const Tensor& G = g[0];  // [*, out]
    if (n.needs(0)) r[0] = autograd::matmul(G, autograd::conj(n.saved(1)));  // [*, out] @ [out, in]
    if (n.needs(1) || n.needs(2)) {
      const int64_t out_f = G.dim() ? G.sizes().back() : 1;
      const Tensor G2 = G.dim() == 2 ? G : autograd::reshape(G, {-1, out_f});
      if (n.needs(1)) {
        const Tensor X = n.saved(0);
        const Tensor X2 = X.dim() == 2 ? X : autograd::reshape(X, {-1, X.sizes().back()});
        r[1] = autograd::mm(autograd::t_2d(G2), autograd::conj(X2));  // [out, N] @ [N, in]
      }
      if (n.needs(2)) r[2] = sum_to(G2, bs);
    }
    return r;
  });
  node->save(requires_grad(weight) ? x : Tensor());
  node->save(requires_grad(x) ? weight : Tensor());
  return out;
}

// ---- einsum ------------------------------------------------------------------------

namespace {

// Subscripts with "..." spelled out as letters of their own, so that each
// operand's dims have one letter each.
struct Spelled {
  std::vector<std::string> inputs;
  std::string output;
};

Spelled spell_out(const std::string& eq, const std::vector<Tensor>& ops_) {
  std::string clean;
  for (char c : eq) {
    if (c != ' ') clean += c;
  }
  const size_t arrow = clean.find("->");
  const std::string lhs = clean.substr(0, arrow);
  std::vector<std::string> specs;
  size_t start = 0;
  for (;;) {
    const size_t comma = lhs.find(',', start);
    specs.push_back(lhs.substr(start, comma - start));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  std::set<char> used(clean.begin(), clean.end());
  std::string spare;  // letters for the ellipsis dims
  for (char c = 'A'; c <= 'Z'; ++c) if (!used.count(c)) spare += c;
  for (char c = 'a'; c <= 'z'; ++c) if (!used.count(c)) spare += c;
  int64_t ell = 0;
  for (size_t i = 0; i < specs.size() && i < ops_.size(); ++i) {
    const size_t p = specs[i].find("...");
    if (p == std::string::npos) continue;
    ell = std::max<int64_t>(ell, ops_[i].dim() - static_cast<int64_t>(specs[i].size() - 3));
  }
  EMBER_CHECK(ell <= static_cast<int64_t>(spare.size()), "einsum(): too many dims under '...'");
  const std::string ell_letters = spare.substr(0, static_cast<size_t>(ell));
  Spelled s;
  for (size_t i = 0; i < specs.size(); ++i) {
    std::string sp = specs[i];
    const size_t p = sp.find("...");
    if (p != std::string::npos) {
      const int64_t k = ops_[i].dim() - static_cast<int64_t>(sp.size() - 3);
      sp = sp.substr(0, p) + ell_letters.substr(ell_letters.size() - static_cast<size_t>(k)) +
           sp.substr(p + 3);
    }
    s.inputs.push_back(sp);
  }
  if (arrow != std::string::npos) {
    std::string out = clean.substr(arrow + 2);
    const size_t p = out.find("...");
    if (p != std::string::npos) out = out.substr(0, p) + ell_letters + out.substr(p + 3);
    s.output = out;
  } else {
    std::map<char, int> count;
    for (const std::string& sp : s.inputs) {
      for (char c : sp) count[c]++;
    }
    s.output = ell_letters;
    for (const auto& [c, k] : count) {
      if (k == 1 && ell_letters.find(c) == std::string::npos) s.output += c;
    }
  }
  return s;
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  if (autocast::any_enabled() && !operands.empty()) {
    if (auto ac = autocast::enter(operands[0], autocast::kCudaList, autocast::Policy::Lower)) {
      return autograd::einsum(equation, ac.cast(operands));
    }
  }
  Tensor out = ops::einsum(equation, operands);
  if (!needs_grad(operands)) return out;
  const Spelled sp = spell_out(equation, operands);
  for (const std::string& s : sp.inputs) {
    EMBER_CHECK(std::set<char>(s.begin(), s.end()).size() == s.size(),
                "einsum(): ember computes gradients only when no operand repeats a subscript "
                "(a diagonal), got '", s, "'");
  }
  std::vector<Shape> shapes;
  for (const Tensor& t : operands) shapes.push_back(t.sizes());
  auto node = record("EinsumBackward0", operands, {out},
                     [sp, shapes](FormulaNode& n, TensorList& g) -> TensorList {
    const size_t k = sp.inputs.size();
    TensorList saved;
    for (size_t i = 0; i < k; ++i) saved.push_back(n.saved(i));
    TensorList r(k);
    for (size_t i = 0; i < k; ++i) {
      if (!n.needs(i)) continue;
      // grad_i = einsum(out, others -> letters of i that appear elsewhere),
      // then the dims only operand i has are broadcast back.
      std::string eq = sp.output;
      std::set<char> elsewhere(sp.output.begin(), sp.output.end());
      TensorList args{g[0]};
      for (size_t j = 0; j < k; ++j) {
        if (j == i) continue;
        eq += "," + sp.inputs[j];
        elsewhere.insert(sp.inputs[j].begin(), sp.inputs[j].end());
        args.push_back(autograd::conj(saved[j]));
      }
      std::string target;
      for (char c : sp.inputs[i]) {
        if (elsewhere.count(c)) target += c;
      }
      Tensor gi = autograd::einsum(eq + "->" + target, args);
      const Shape& shape = shapes[i];
      Shape full;
      for (size_t d = 0; d < sp.inputs[i].size(); ++d) {
        if (!elsewhere.count(sp.inputs[i][d])) {
          gi = autograd::unsqueeze(gi, static_cast<int64_t>(d));
          full.push_back(shape[d]);
        } else {
          full.push_back(gi.sizes()[d]);
        }
      }
      if (gi.sizes() != full) gi = autograd::expand(gi, full);
      r[i] = sum_to(gi, shape);
    }
    return r;
  });
  for (const Tensor& t : operands) node->save(t);
  return out;
}

// ---- out= and in-place forms ------------------------------------------------------

void mm_out(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_out_no_grad("mm", {&a, &b, &out});
  ops::mm_out(out, a, b);
  mark_dirty(out);
}

void bmm_out(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_out_no_grad("bmm", {&a, &b, &out});
  ops::bmm_out(out, a, b);
  mark_dirty(out);
}

void matmul_out(const Tensor& out, const Tensor& a, const Tensor& b) {
  check_out_no_grad("matmul", {&a, &b, &out});
  ops::matmul_out(out, a, b);
  mark_dirty(out);
}

void addmm_out(const Tensor& out, const Tensor& self, const Tensor& a, const Tensor& b,
               const Scalar& beta, const Scalar& alpha) {
  check_out_no_grad("addmm", {&self, &a, &b, &out});
  ops::addmm_out(out, self, a, b, beta, alpha);
  mark_dirty(out);
}

namespace {

template <typename Op, typename Prod>
void addprod_inplace(const char* name, const Tensor& self, const Tensor& a, const Tensor& b,
                     const Scalar& beta, const Scalar& alpha, Op op, Prod prod) {
  check_inplace(self);
  op();
  mark_dirty(self);
  if (!needs_grad(self, a, b)) return;
  auto node = record_inplace(name, self, {&a, &b}, [=](FormulaNode& n, TensorList& g) -> TensorList {
    TensorList r(3);
    if (n.needs(0)) r[0] = scaled(g[0], beta.conj());
    if (n.needs(1)) r[1] = scaled(prod(g[0], mH(n.saved(1))), alpha.conj());
    if (n.needs(2)) r[2] = scaled(prod(mH(n.saved(0)), g[0]), alpha.conj());
    return r;
  });
  node->save(a);
  node->save(b);
}

}  // namespace

void addmm_(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
            const Scalar& alpha) {
  addprod_inplace("AddmmBackward0", self, a, b, beta, alpha,
                  [&] { ops::addmm_(self, a, b, beta, alpha); },
                  [](const Tensor& x, const Tensor& y) { return autograd::mm(x, y); });
}

void baddbmm_(const Tensor& self, const Tensor& a, const Tensor& b, const Scalar& beta,
              const Scalar& alpha) {
  addprod_inplace("BaddbmmBackward0", self, a, b, beta, alpha,
                  [&] { ops::baddbmm_(self, a, b, beta, alpha); },
                  [](const Tensor& x, const Tensor& y) { return autograd::bmm(x, y); });
}

}  // namespace ember::autograd
