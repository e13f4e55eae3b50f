// A shared library opened at run time (dlopen), for optional dependencies that
// ember must not load at import: NVML (device counts without initialising
// CUDA) and cuBLAS (0.5 GB that only matrix products need).
#pragma once

#include <initializer_list>
#include <string>

namespace ember {

class DynLib {
 public:
  // Tries each name in turn; `ok()` says whether one opened.
  explicit DynLib(std::initializer_list<const char*> names);
  ~DynLib();
  DynLib(const DynLib&) = delete;
  DynLib& operator=(const DynLib&) = delete;

  bool ok() const noexcept { return handle_ != nullptr; }
  const std::string& error() const noexcept { return error_; }
  // nullptr when the library or the symbol is missing.
  void* symbol(const char* name) const noexcept;

  template <typename Fn>
  Fn get(const char* name) const noexcept {
    return reinterpret_cast<Fn>(symbol(name));
  }

 private:
  void* handle_ = nullptr;
  std::string error_;
};

}  // namespace ember
