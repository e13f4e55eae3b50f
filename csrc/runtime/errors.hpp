// ember's error types and the checks every CUDA call goes through.
//
// C++ throws these types; the bindings map each to one Python exception, once
// (csrc/bindings/errors.cpp):
//   Error            -> RuntimeError
//   ValueError       -> ValueError
//   TypeError        -> TypeError
//   IndexError       -> IndexError
//   CudaError        -> ember.cuda.CudaError        (a RuntimeError)
//   OutOfMemoryError -> ember.cuda.OutOfMemoryError (a RuntimeError)
// Messages say what went wrong and what to do next. Destructors never throw:
// they use EMBER_CUDA_WARN, which reports and tolerates a runtime being unloaded.
#pragma once

#include <cstddef>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>

#if EMBER_WITH_CUDA
#include <cuda_runtime_api.h>
#endif

namespace ember {

class Error : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class ValueError : public Error {
 public:
  using Error::Error;
};

class TypeError : public Error {
 public:
  using Error::Error;
};

class IndexError : public Error {
 public:
  using Error::Error;
};

// An op without a kernel for a dtype (torch's NotImplementedError, which
// Python derives from RuntimeError).
class NotImplementedError : public Error {
 public:
  using Error::Error;
};

// A failed CUDA runtime, driver or library call. `code` is the numeric status.
class CudaError : public Error {
 public:
  CudaError(std::string message, int code, std::string name)
      : Error(std::move(message)), code_(code), name_(std::move(name)) {}
  int code() const noexcept { return code_; }
  const std::string& name() const noexcept { return name_; }

 private:
  int code_;
  std::string name_;
};

// The figures a user needs to understand an out-of-memory failure.
struct OomInfo {
  int device = 0;
  size_t requested = 0;        // bytes asked for by the caller
  size_t gpu_total = 0;        // the device's total memory
  size_t gpu_free = 0;         // free on the device, as the driver sees it
  size_t allocated = 0;        // held by live ember allocations
  size_t reserved_unused = 0;  // cached by ember but not allocated
  size_t largest_free_block = 0;
  size_t limit = 0;            // per-process cap in bytes (0 = none)
};

class OutOfMemoryError : public Error {
 public:
  OutOfMemoryError(std::string message, OomInfo info)
      : Error(std::move(message)), info_(info) {}
  const OomInfo& info() const noexcept { return info_; }

 private:
  OomInfo info_;
};

namespace detail {

// Builds a message from parts: str("x = ", 3). Strings, chars, integers,
// floating-point numbers and anything with a `std::string str() const`. No
// iostreams: they depend on the process's C++ locale, which another library
// loaded into Python may have set up with a different libstdc++.
inline void append(std::string& out, const std::string& s) { out += s; }
inline void append(std::string& out, std::string_view s) { out += s; }
inline void append(std::string& out, const char* s) { out += s ? s : "(null)"; }
inline void append(std::string& out, char c) { out += c; }
inline void append(std::string& out, bool b) { out += b ? "True" : "False"; }
void append(std::string& out, double v);
void append(std::string& out, const void* p);  // 0x-prefixed hex
template <typename T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
void append(std::string& out, T v) {
  out += std::to_string(v);
}
template <typename T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0>
void append(std::string& out, T v) {
  append(out, static_cast<double>(v));
}
template <typename T, typename = decltype(std::declval<const T&>().str())>
void append(std::string& out, const T& v) {
  out += v.str();
}

template <typename... Args>
std::string str(const Args&... args) {
  std::string out;
  (append(out, args), ...);
  return out;
}

[[noreturn]] void throw_cuda_error(int code, const char* call, const char* file, int line);
void warn_cuda_error(int code, const char* call, const char* file, int line) noexcept;

}  // namespace detail

// Raises ember::Error (RuntimeError) with the message built from the arguments.
#define EMBER_CHECK(cond, ...)                                              \
  do {                                                                      \
    if (!(cond)) throw ::ember::Error(::ember::detail::str(__VA_ARGS__));   \
  } while (0)

#define EMBER_CHECK_VALUE(cond, ...)                                            \
  do {                                                                          \
    if (!(cond)) throw ::ember::ValueError(::ember::detail::str(__VA_ARGS__));  \
  } while (0)

#define EMBER_CHECK_TYPE(cond, ...)                                            \
  do {                                                                         \
    if (!(cond)) throw ::ember::TypeError(::ember::detail::str(__VA_ARGS__));  \
  } while (0)

#if EMBER_WITH_CUDA
// Every CUDA runtime call goes through this: it throws CudaError naming the
// call, the error's name and description, and what to try next.
#define EMBER_CUDA_CHECK(expr)                                                       \
  do {                                                                               \
    cudaError_t ember_err_ = (expr);                                                 \
    if (ember_err_ != cudaSuccess)                                                   \
      ::ember::detail::throw_cuda_error(static_cast<int>(ember_err_), #expr,         \
                                        __FILE__, __LINE__);                         \
  } while (0)

// For destructors and other no-throw paths: report on stderr, never throw.
#define EMBER_CUDA_WARN(expr)                                                        \
  do {                                                                               \
    cudaError_t ember_err_ = (expr);                                                 \
    if (ember_err_ != cudaSuccess)                                                   \
      ::ember::detail::warn_cuda_error(static_cast<int>(ember_err_), #expr,          \
                                       __FILE__, __LINE__);                          \
  } while (0)

// After every kernel launch.
#define EMBER_KERNEL_LAUNCH_CHECK() EMBER_CUDA_CHECK(cudaGetLastError())
#endif

}  // namespace ember
