#include "ops/jit/kernel_signature.hpp"

#include <cctype>
#include <unordered_map>

namespace ember::ops::jit {

namespace {

// Identifiers, numbers and single punctuation characters; comments, string
// literals and preprocessor lines are dropped.
std::vector<std::string> tokenize(const std::string& s) {
  std::vector<std::string> out;
  const size_t n = s.size();
  size_t i = 0;
  bool line_start = true;
  while (i < n) {
    const char c = s[i];
    if (c == '\n') {
      line_start = true;
      ++i;
      continue;
    }
    if (std::isspace(static_cast<unsigned char>(c))) {
      ++i;
      continue;
    }
    if (line_start && c == '#') {  // a directive, with its continuation lines
      while (i < n && s[i] != '\n') i += (s[i] == '\\' && i + 1 < n) ? 2 : 1;
      continue;
    }
    line_start = false;
    if (c == '/' && i + 1 < n && s[i + 1] == '/') {
      while (i < n && s[i] != '\n') ++i;
    } else if (c == '/' && i + 1 < n && s[i + 1] == '*') {
      const size_t end = s.find("*/", i + 2);
      i = end == std::string::npos ? n : end + 2;
    } else if (c == '"' || c == '\'') {
      ++i;
      while (i < n && s[i] != c) i += (s[i] == '\\') ? 2 : 1;
      ++i;
      out.emplace_back("\"\"");
    } else if (std::isalnum(static_cast<unsigned char>(c)) || c == '_') {
      const size_t b = i;
      while (i < n && (std::isalnum(static_cast<unsigned char>(s[i])) || s[i] == '_')) ++i;
      out.emplace_back(s, b, i - b);
    } else if (c == ':' && i + 1 < n && s[i + 1] == ':') {
      out.emplace_back("::");
      i += 2;
    } else {
      out.emplace_back(1, c);
      ++i;
    }
  }
  return out;
}

bool is_ident(const std::string& t) {
  return !t.empty() && (std::isalpha(static_cast<unsigned char>(t[0])) || t[0] == '_');
}

// Splits tokens [b, e) at top-level commas.
std::vector<std::vector<std::string>> split_commas(const std::vector<std::string>& t, size_t b,
                                                   size_t e) {
  std::vector<std::vector<std::string>> out(1);
  int depth = 0;
  for (size_t i = b; i < e; ++i) {
    const std::string& x = t[i];
    if (x == "(" || x == "<" || x == "[" || x == "{") ++depth;
    if (x == ")" || x == ">" || x == "]" || x == "}") --depth;
    if (x == "," && depth == 0) {
      out.emplace_back();
    } else {
      out.back().push_back(x);
    }
  }
  if (out.size() == 1 && out[0].empty()) out.clear();
  return out;
}

// Index of the token that closes the bracket opened at `open`, or t.size().
size_t closing(const std::vector<std::string>& t, size_t open, const char* o, const char* c) {
  int depth = 0;
  for (size_t i = open; i < t.size(); ++i) {
    if (t[i] == o) ++depth;
    if (t[i] == c && --depth == 0) return i;
  }
  return t.size();
}

const std::unordered_map<std::string, ParamKind>& type_names() {
  static const auto* m = new std::unordered_map<std::string, ParamKind>{
      {"bool", ParamKind::Bool},
      {"char", ParamKind::Int8},
      {"signed char", ParamKind::Int8},
      {"int8_t", ParamKind::Int8},
      {"unsigned char", ParamKind::UInt8},
      {"uint8_t", ParamKind::UInt8},
      {"short", ParamKind::Int16},
      {"short int", ParamKind::Int16},
      {"signed short", ParamKind::Int16},
      {"int16_t", ParamKind::Int16},
      {"unsigned short", ParamKind::UInt16},
      {"unsigned short int", ParamKind::UInt16},
      {"uint16_t", ParamKind::UInt16},
      {"int", ParamKind::Int32},
      {"signed", ParamKind::Int32},
      {"signed int", ParamKind::Int32},
      {"int32_t", ParamKind::Int32},
      {"unsigned", ParamKind::UInt32},
      {"unsigned int", ParamKind::UInt32},
      {"uint32_t", ParamKind::UInt32},
      {"long", ParamKind::Int64},
      {"long int", ParamKind::Int64},
      {"signed long", ParamKind::Int64},
      {"long long", ParamKind::Int64},
      {"long long int", ParamKind::Int64},
      {"signed long long", ParamKind::Int64},
      {"int64_t", ParamKind::Int64},
      {"ptrdiff_t", ParamKind::Int64},
      {"ssize_t", ParamKind::Int64},
      {"intptr_t", ParamKind::Int64},
      {"unsigned long", ParamKind::UInt64},
      {"unsigned long int", ParamKind::UInt64},
      {"unsigned long long", ParamKind::UInt64},
      {"unsigned long long int", ParamKind::UInt64},
      {"uint64_t", ParamKind::UInt64},
      {"size_t", ParamKind::UInt64},
      {"uintptr_t", ParamKind::UInt64},
      {"float", ParamKind::Float32},
      {"double", ParamKind::Float64},
      {"half", ParamKind::Float16},
      {"__half", ParamKind::Float16},
      {"Half", ParamKind::Float16},
      {"__nv_bfloat16", ParamKind::BFloat16},
      {"nv_bfloat16", ParamKind::BFloat16},
      {"BFloat16", ParamKind::BFloat16},
  };
  return *m;
}

bool is_qualifier(const std::string& t) {
  return t == "const" || t == "volatile" || t == "__restrict__" || t == "__restrict" ||
         t == "restrict" || t == "struct" || t == "class" || t == "typename" || t == "union" ||
         t == "enum" || t == "__grid_constant__";
}

bool is_builtin_word(const std::string& t) {
  return t == "bool" || t == "char" || t == "short" || t == "int" || t == "long" || t == "signed" ||
         t == "unsigned" || t == "float" || t == "double";
}

ParamType classify(std::vector<std::string> toks) {
  ParamType p;
  // Drop a default argument.
  for (size_t i = 0; i < toks.size(); ++i) {
    if (toks[i] == "=") {
      toks.resize(i);
      break;
    }
  }
  std::string prev;
  for (const std::string& t : toks) {
    const bool glue = t == "*" || t == "&" || t == "[" || t == "]" || t == "::" || prev == "::" ||
                      prev == "[" || prev.empty();
    if (!glue) p.spelling += ' ';
    p.spelling += t;
    prev = t;
  }
  int indirections = 0;
  std::vector<std::string> words;
  for (const std::string& t : toks) {
    if (t == "*" || t == "[" || t == "&") ++indirections;
    if (is_qualifier(t) || t == "*" || t == "&" || t == "[" || t == "]") continue;
    if (is_ident(t) || t == "::") words.push_back(t);
  }
  // A trailing identifier after a type is the parameter's name.
  if (words.size() >= 2 && is_ident(words.back()) && !is_builtin_word(words.back()) &&
      words[words.size() - 2] != "::") {
    words.pop_back();
  }
  // Qualified names: keep the last component (std::int64_t, ember::Half).
  while (words.size() >= 3 && words[1] == "::") words.erase(words.begin(), words.begin() + 2);
  std::string joined;
  for (const std::string& w : words) joined += (joined.empty() ? "" : " ") + w;
  const auto& names = type_names();
  auto it = names.find(joined);
  const ParamKind named = it == names.end() ? ParamKind::Opaque : it->second;
  if (indirections > 0) {
    p.kind = ParamKind::Pointer;
    // char* and unsigned char* address raw bytes: any dtype goes.
    const bool bytes = joined == "char" || joined == "unsigned char" || joined == "uint8_t" ||
                       joined == "int8_t" || joined == "signed char";
    p.pointee = indirections == 1 && !bytes ? named : ParamKind::Opaque;
    return p;
  }
  p.kind = named;
  return p;
}

// "k<float, 4>" -> ("k", {{"float"}, {"4"}}).
void split_name_expression(const std::string& expr, std::string* base,
                           std::vector<std::vector<std::string>>* args) {
  const std::vector<std::string> t = tokenize(expr);
  size_t lt = 0;
  while (lt < t.size() && t[lt] != "<") ++lt;
  base->clear();
  for (size_t i = 0; i < lt; ++i) *base += t[i];
  if (lt < t.size()) {
    size_t gt = t.size();
    while (gt > lt && t[gt - 1] != ">") --gt;
    if (gt > lt + 1) *args = split_commas(t, lt + 1, gt - 1);
  }
  // "::" qualified names: the last component is the function's name.
  const size_t colons = base->rfind("::");
  if (colons != std::string::npos) *base = base->substr(colons + 2);
}

}  // namespace

size_t param_kind_size(ParamKind k) {
  switch (k) {
    case ParamKind::Pointer:
      return 8;
    case ParamKind::Bool:
    case ParamKind::Int8:
    case ParamKind::UInt8:
      return 1;
    case ParamKind::Int16:
    case ParamKind::UInt16:
    case ParamKind::Float16:
    case ParamKind::BFloat16:
      return 2;
    case ParamKind::Int32:
    case ParamKind::UInt32:
    case ParamKind::Float32:
      return 4;
    case ParamKind::Int64:
    case ParamKind::UInt64:
    case ParamKind::Float64:
      return 8;
    case ParamKind::Opaque:
      return 0;
  }
  return 0;
}

const char* param_kind_name(ParamKind k) {
  switch (k) {
    case ParamKind::Pointer:
      return "pointer";
    case ParamKind::Bool:
      return "bool";
    case ParamKind::Int8:
      return "int8";
    case ParamKind::UInt8:
      return "uint8";
    case ParamKind::Int16:
      return "int16";
    case ParamKind::UInt16:
      return "uint16";
    case ParamKind::Int32:
      return "int32";
    case ParamKind::UInt32:
      return "uint32";
    case ParamKind::Int64:
      return "int64";
    case ParamKind::UInt64:
      return "uint64";
    case ParamKind::Float16:
      return "float16";
    case ParamKind::BFloat16:
      return "bfloat16";
    case ParamKind::Float32:
      return "float32";
    case ParamKind::Float64:
      return "float64";
    case ParamKind::Opaque:
      return "opaque";
  }
  return "opaque";
}

std::optional<std::vector<ParamType>> parse_kernel_params(const std::string& source,
                                                          const std::string& name) {
  std::string base;
  std::vector<std::vector<std::string>> targs;
  split_name_expression(name, &base, &targs);
  const std::vector<std::string> t = tokenize(source);
  for (size_t i = 0; i + 1 < t.size(); ++i) {
    if (t[i] != base || t[i + 1] != "(") continue;
    // The declaration's start: after the previous ';', '{' or '}' at top level.
    size_t start = i;
    while (start > 0 && t[start - 1] != ";" && t[start - 1] != "{" && t[start - 1] != "}") {
      --start;
    }
    bool global = false;
    std::vector<std::string> tparams;
    for (size_t j = start; j < i; ++j) {
      if (t[j] == "__global__") global = true;
      if (t[j] == "template" && j + 1 < i && t[j + 1] == "<") {
        const size_t close = closing(t, j + 1, "<", ">");
        for (auto& item : split_commas(t, j + 2, std::min(close, i))) {
          size_t end = item.size();
          for (size_t k = 0; k < item.size(); ++k) {
            if (item[k] == "=") {
              end = k;
              break;
            }
          }
          tparams.push_back(end > 0 ? item[end - 1] : "");
        }
      }
    }
    if (!global) continue;
    const size_t close = closing(t, i + 1, "(", ")");
    if (close >= t.size()) return std::nullopt;
    std::vector<ParamType> params;
    for (auto& toks : split_commas(t, i + 2, close)) {
      if (toks.size() == 1 && toks[0] == "void") continue;
      // Substitute the name expression's template arguments.
      std::vector<std::string> subst;
      for (const std::string& tok : toks) {
        size_t k = 0;
        while (k < tparams.size() && tparams[k] != tok) ++k;
        if (k < tparams.size() && k < targs.size()) {
          subst.insert(subst.end(), targs[k].begin(), targs[k].end());
        } else {
          subst.push_back(tok);
        }
      }
      params.push_back(classify(subst));
    }
    return params;
  }
  return std::nullopt;
}

}  // namespace ember::ops::jit
