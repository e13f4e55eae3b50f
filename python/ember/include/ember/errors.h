// Errors in an ember extension: C++ exceptions that become ember's Python
// exceptions (ember/pybind.h registers the translation).
//
//   EMBER_CHECK(x.dim() == 2, "expected a matrix, got ", x.dim(), " dims");  // RuntimeError
//   EMBER_CHECK_VALUE(n > 0, "n must be positive");                          // ValueError
//   EMBER_CHECK_TYPE(x.dtype() == ember::kFloat32, "expected float32");      // TypeError
//   EMBER_CHECK_INDEX(i < x.size(0), "index ", i, " out of range");          // IndexError
//   EMBER_CUDA_CHECK(cudaGetLastError());        // ember.cuda.CudaError (ember/cuda.h)
#pragma once

#include <stdexcept>
#include <string>
#include <type_traits>

#include "ember/c_api.h"

namespace ember {

// Every error of the public API; kind() is the EmberStatus it maps from.
class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& msg, int kind = EMBER_ERROR_RUNTIME)
      : std::runtime_error(msg), kind_(kind) {}
  int kind() const noexcept { return kind_; }

 private:
  int kind_;
};

class ValueError : public Error {
 public:
  explicit ValueError(const std::string& m) : Error(m, EMBER_ERROR_VALUE) {}
};
class TypeError : public Error {
 public:
  explicit TypeError(const std::string& m) : Error(m, EMBER_ERROR_TYPE) {}
};
class IndexError : public Error {
 public:
  explicit IndexError(const std::string& m) : Error(m, EMBER_ERROR_INDEX) {}
};
class CudaError : public Error {
 public:
  explicit CudaError(const std::string& m) : Error(m, EMBER_ERROR_CUDA) {}
};
class OutOfMemoryError : public Error {
 public:
  explicit OutOfMemoryError(const std::string& m) : Error(m, EMBER_ERROR_OUT_OF_MEMORY) {}
};

namespace detail {

inline void append(std::string& out, const std::string& s) { out += s; }
inline void append(std::string& out, const char* s) { out += s ? s : "(null)"; }
inline void append(std::string& out, char c) { out += c; }
inline void append(std::string& out, bool b) { out += b ? "True" : "False"; }
template <typename T, typename std::enable_if<std::is_arithmetic<T>::value, int>::type = 0>
void append(std::string& out, T v) {
  out += std::to_string(v);
}

template <typename... Args>
std::string cat(const Args&... args) {
  std::string out;
  int unused[] = {0, (append(out, args), 0)...};
  (void)unused;
  return out;
}

// Throws the exception of an EmberStatus with `message`.
[[noreturn]] inline void throw_status(int status, const std::string& message) {
  switch (status) {
    case EMBER_ERROR_VALUE:
      throw ValueError(message);
    case EMBER_ERROR_TYPE:
      throw TypeError(message);
    case EMBER_ERROR_INDEX:
      throw IndexError(message);
    case EMBER_ERROR_CUDA:
      throw CudaError(message);
    case EMBER_ERROR_OUT_OF_MEMORY:
      throw OutOfMemoryError(message);
    default:
      throw Error(message);
  }
}

}  // namespace detail
}  // namespace ember

#define EMBER_CHECK(cond, ...)                                            \
  do {                                                                    \
    if (!(cond)) throw ::ember::Error(::ember::detail::cat(__VA_ARGS__)); \
  } while (0)
#define EMBER_CHECK_VALUE(cond, ...)                                           \
  do {                                                                         \
    if (!(cond)) throw ::ember::ValueError(::ember::detail::cat(__VA_ARGS__)); \
  } while (0)
#define EMBER_CHECK_TYPE(cond, ...)                                           \
  do {                                                                        \
    if (!(cond)) throw ::ember::TypeError(::ember::detail::cat(__VA_ARGS__)); \
  } while (0)
#define EMBER_CHECK_INDEX(cond, ...)                                           \
  do {                                                                         \
    if (!(cond)) throw ::ember::IndexError(::ember::detail::cat(__VA_ARGS__)); \
  } while (0)
