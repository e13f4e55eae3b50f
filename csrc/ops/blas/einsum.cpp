#include "ops/blas/einsum.hpp"

#include <algorithm>
#include <map>

#include "ops/copy/copy.hpp"
#include "ops/fill/fill.hpp"
#include "ops/blas/matmul.hpp"
#include "runtime/errors.hpp"
#include "tensor/views.hpp"

namespace ember::ops {

namespace {

// Letters are their character codes; the dims of "..." are kEllipsis + j.
constexpr int kEllipsis = 256;
constexpr int kEllipsisMark = -1;  // "..." in a parsed operand spec

std::string label_name(int l) {
  return l >= kEllipsis ? "..." : std::string(1, static_cast<char>(l));
}

struct Term {
  Tensor t;
  std::vector<int> labels;  // one per dim of t, all different
};

// "ij,jk->ik" -> operand specs and the output spec (has_arrow false: implicit).
struct Parsed {
  std::vector<std::vector<int>> inputs;
  std::vector<int> output;
  bool has_arrow = false;
};

std::vector<int> parse_spec(const std::string& s, bool allow_ellipsis) {
  std::vector<int> out;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (c == ' ') continue;
    if (c == '.') {
      EMBER_CHECK(s.compare(i, 3, "...") == 0, "einsum(): invalid subscript given at index ", i,
                  " in the equation string, subscripts must be in [a-zA-Z] or '...'");
      EMBER_CHECK(allow_ellipsis && std::count(out.begin(), out.end(), kEllipsisMark) == 0,
                  "einsum(): found '.' for operand that is not part of any ellipsis");
      out.push_back(kEllipsisMark);
      i += 2;
      continue;
    }
    EMBER_CHECK((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'),
                "einsum(): invalid subscript given at index ", i,
                " in the equation string, subscripts must be in [a-zA-Z]");
    out.push_back(c);
  }
  return out;
}

Parsed parse(const std::string& eq) {
  Parsed p;
  const size_t arrow = eq.find("->");
  const std::string lhs = eq.substr(0, arrow);
  size_t start = 0;
  for (;;) {
    const size_t comma = lhs.find(',', start);
    p.inputs.push_back(parse_spec(lhs.substr(start, comma - start), true));
    if (comma == std::string::npos) break;
    start = comma + 1;
  }
  if (arrow != std::string::npos) {
    p.has_arrow = true;
    p.output = parse_spec(eq.substr(arrow + 2), true);
  }
  return p;
}

// The dims of operand `t` named by `spec`, "..." expanded to the ellipsis
// labels right-aligned to `ell` dims in all (leading size-1 dims added).
Term make_term(const Tensor& t, const std::vector<int>& spec, int64_t ell, size_t index) {
  const int64_t named = static_cast<int64_t>(spec.size()) -
                        std::count(spec.begin(), spec.end(), kEllipsisMark);
  const bool has_ell = named != static_cast<int64_t>(spec.size());
  EMBER_CHECK(has_ell ? t.dim() >= named : t.dim() == named,
              "einsum(): the number of subscripts in the equation (", named,
              ") does not match the number of dimensions (", t.dim(), ") for operand ", index,
              has_ell ? "" : " and no ellipsis was given");
  Term term{t, {}};
  const int64_t e = t.dim() - named;
  for (int l : spec) {
    if (l != kEllipsisMark) {
      term.labels.push_back(l);
      continue;
    }
    const int64_t pos = static_cast<int64_t>(term.labels.size());
    for (int64_t j = 0; j < ell - e; ++j) term.t = unsqueeze(term.t, pos);
    for (int64_t j = 0; j < ell; ++j) term.labels.push_back(kEllipsis + static_cast<int>(j));
  }
  // A letter repeated in one operand: its diagonal (a view, moved to the end).
  for (size_t i = 0; i < term.labels.size(); ++i) {
    for (size_t j = i + 1; j < term.labels.size(); ++j) {
      if (term.labels[i] != term.labels[j]) continue;
      EMBER_CHECK(term.t.sizes()[i] == term.t.sizes()[j], "einsum(): subscript ",
                  label_name(term.labels[i]), " is repeated for operand ", index,
                  " but the sizes don't match, ", term.t.sizes()[i], " != ", term.t.sizes()[j]);
      const int l = term.labels[i];
      term.t = diagonal(term.t, 0, static_cast<int64_t>(i), static_cast<int64_t>(j));
      term.labels.erase(term.labels.begin() + static_cast<int64_t>(j));
      term.labels.erase(term.labels.begin() + static_cast<int64_t>(i));
      term.labels.push_back(l);
      i = static_cast<size_t>(-1);  // rescan
      break;
    }
  }
  return term;
}

int64_t dim_of(const Term& t, int label) {
  const auto it = std::find(t.labels.begin(), t.labels.end(), label);
  return it == t.labels.end() ? -1 : static_cast<int64_t>(it - t.labels.begin());
}

bool contains(const std::vector<int>& v, int l) { return std::find(v.begin(), v.end(), l) != v.end(); }

// `t` permuted to `order` (labels it has) and reshaped to the products of the
// given groups' sizes.
Tensor grouped(const Term& t, const std::vector<std::vector<int>>& groups) {
  std::vector<int64_t> perm;
  Shape shape;
  for (const auto& g : groups) {
    int64_t n = 1;
    for (int l : g) {
      const int64_t d = dim_of(t, l);
      perm.push_back(d);
      n *= t.t.sizes()[d];
    }
    shape.push_back(n);
  }
  return reshape(permute(t.t, perm), shape);
}

// Sums the labels of `t` not in `keep` (a product with a vector of ones).
Term sum_out(const Term& t, const std::vector<int>& keep) {
  std::vector<int> kept, summed;
  for (int l : t.labels) (contains(keep, l) ? kept : summed).push_back(l);
  if (summed.empty()) return t;
  Shape kept_sizes;
  for (int l : kept) kept_sizes.push_back(t.t.sizes()[dim_of(t, l)]);
  const Tensor mat = grouped(t, {kept, summed});
  Tensor ones = Tensor::empty({mat.sizes()[1]}, t.t.dtype(), t.t.device());
  fill_(ones, Scalar::from_int(1));
  return Term{view(mv(mat, ones), kept_sizes), kept};
}

// Broadcasts a size-1 dim of one operand to the other's size for shared labels.
void broadcast_shared(Term& a, Term& b) {
  for (size_t i = 0; i < a.labels.size(); ++i) {
    const int64_t j = dim_of(b, a.labels[i]);
    if (j < 0) continue;
    const int64_t sa = a.t.sizes()[i], sb = b.t.sizes()[j];
    if (sa == sb) continue;
    EMBER_CHECK(sa == 1 || sb == 1, "einsum(): operands do not broadcast: subscript ",
                label_name(a.labels[i]), " has size ", sa, " in one operand and ", sb,
                " in the other");
    Term& small = sa == 1 ? a : b;
    const int64_t d = sa == 1 ? static_cast<int64_t>(i) : j;
    Shape s = small.t.sizes();
    s[d] = std::max(sa, sb);
    small.t = expand(small.t, s);
  }
}

// a (x) b over their shared labels, keeping the labels in `keep`.
Term contract(Term a, Term b, const std::vector<int>& keep) {
  std::vector<int> keep_a = keep, keep_b = keep;
  keep_a.insert(keep_a.end(), b.labels.begin(), b.labels.end());
  keep_b.insert(keep_b.end(), a.labels.begin(), a.labels.end());
  a = sum_out(a, keep_a);
  b = sum_out(b, keep_b);
  broadcast_shared(a, b);
  std::vector<int> batch, con, left, right;
  for (int l : a.labels) {
    if (!contains(b.labels, l)) left.push_back(l);
    else (contains(keep, l) ? batch : con).push_back(l);
  }
  for (int l : b.labels) {
    if (!contains(a.labels, l)) right.push_back(l);
  }
  const Tensor a3 = grouped(a, {batch, left, con});
  const Tensor b3 = grouped(b, {batch, con, right});
  Term r{bmm(a3, b3), {}};
  Shape sizes;
  for (const auto* g : {&batch, &left}) {
    for (int l : *g) {
      r.labels.push_back(l);
      sizes.push_back(a.t.sizes()[dim_of(a, l)]);
    }
  }
  for (int l : right) {
    r.labels.push_back(l);
    sizes.push_back(b.t.sizes()[dim_of(b, l)]);
  }
  r.t = view(r.t, sizes);
  return r;
}

std::vector<int> output_labels(const Parsed& p, const std::vector<Term>& terms, int64_t ell) {
  std::vector<int> out;
  if (p.has_arrow) {
    for (int l : p.output) {
      if (l == kEllipsisMark) {
        for (int64_t j = 0; j < ell; ++j) out.push_back(kEllipsis + static_cast<int>(j));
        continue;
      }
      EMBER_CHECK(!contains(out, l), "einsum(): output subscript ", label_name(l),
                  " appears more than once in the output");
      bool found = false;
      for (const auto& in : p.inputs) found = found || contains(in, l);
      EMBER_CHECK(found, "einsum(): output subscript ", label_name(l),
                  " does not appear in the equation for any input operand");
      out.push_back(l);
    }
    return out;
  }
  // Implicit: the ellipsis dims, then the letters used exactly once, sorted.
  for (int64_t j = 0; j < ell; ++j) out.push_back(kEllipsis + static_cast<int>(j));
  std::map<int, int> count;
  for (const auto& in : p.inputs) {
    for (int l : in) {
      if (l != kEllipsisMark) ++count[l];
    }
  }
  for (const auto& [l, n] : count) {
    if (n == 1) out.push_back(l);
  }
  (void)terms;
  return out;
}

}  // namespace

Tensor einsum(const std::string& equation, const std::vector<Tensor>& operands) {
  const Parsed p = parse(equation);
  EMBER_CHECK(!operands.empty(), "einsum(): must provide at least one operand");
  EMBER_CHECK(p.inputs.size() <= operands.size(),
              "einsum(): fewer operands were provided than specified in the equation");
  EMBER_CHECK(p.inputs.size() >= operands.size(),
              "einsum(): more operands were provided than specified in the equation");
  for (const Tensor& t : operands) check_same_device(operands[0], t);
  int64_t ell = 0;
  for (size_t i = 0; i < operands.size(); ++i) {
    const int64_t named = static_cast<int64_t>(p.inputs[i].size()) -
                          std::count(p.inputs[i].begin(), p.inputs[i].end(), kEllipsisMark);
    if (named < static_cast<int64_t>(p.inputs[i].size())) {
      ell = std::max(ell, operands[i].dim() - named);
    }
  }
  std::vector<Term> terms;
  for (size_t i = 0; i < operands.size(); ++i) {
    terms.push_back(make_term(operands[i], p.inputs[i], ell, i));
  }
  const std::vector<int> out = output_labels(p, terms, ell);
  Term cur = terms[0];
  for (size_t i = 1; i < terms.size(); ++i) {
    std::vector<int> keep = out;
    for (size_t j = i + 1; j < terms.size(); ++j) {
      keep.insert(keep.end(), terms[j].labels.begin(), terms[j].labels.end());
    }
    cur = contract(cur, terms[i], keep);
  }
  cur = sum_out(cur, out);
  std::vector<int64_t> perm;
  for (int l : out) {
    const int64_t d = dim_of(cur, l);
    if (d >= 0) perm.push_back(d);
  }
  Tensor result = permute(cur.t, perm);
  // Ellipsis dims no operand had (size 1) are already there; nothing else is missing.
  EMBER_CHECK(result.dim() == static_cast<int64_t>(out.size()),
              "einsum(): internal error: the result has ", result.dim(), " dims, expected ",
              out.size());
  return result;
}

}  // namespace ember::ops
