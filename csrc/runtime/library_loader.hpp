// The shape every library ember opens at first use shares (cuSOLVER, cuFFT,
// NVRTC): open the first of several file names (the soname, then the toolkit's
// directory baked in at build time), resolve the entry points into typed
// pointers, remember which are missing and where the library was found, and
// raise the error naming the library when it cannot be used.
//
// Each user keeps its own typed API struct and its "loaded" flag; this class
// holds the handle and the bookkeeping. Not thread-safe by itself: users build
// it inside a function-local static (whose initialisation is).
#pragma once

#include <functional>
#include <initializer_list>
#include <string>

#include "runtime/dynlib.hpp"

namespace ember {

class LibraryLoader {
 public:
  explicit LibraryLoader(std::initializer_list<const char*> names) : lib_(names) {}

  bool ok() const noexcept { return lib_.ok(); }
  // dlopen's messages for every name tried.
  const std::string& open_error() const noexcept { return lib_.error(); }
  // The missing required entry points, comma-separated ("" when none).
  const std::string& missing() const noexcept { return missing_; }
  // The file the library was loaded from (after note_path).
  const std::string& path() const noexcept { return path_; }

  // A required entry point: `fn` is null and its name recorded when it is absent.
  template <typename Fn>
  void resolve(Fn& fn, const char* name) {
    fn = lib_.get<Fn>(name);
    if (!fn) missing_ += std::string(missing_.empty() ? "" : ", ") + name;
  }
  // An entry point newer libraries have: `fn` is null when it is absent.
  template <typename Fn>
  void resolve_optional(Fn& fn, const char* name) {
    fn = lib_.get<Fn>(name);
  }

  // Records the file holding `symbol` (dladdr) as path().
  void note_path(const void* symbol);

  // Throws ember::Error with cannot_open(open_error()) when the library did not
  // open, or lacks(path(), missing()) when an entry point is missing.
  void require(const std::function<std::string(const std::string&)>& cannot_open,
               const std::function<std::string(const std::string&, const std::string&)>& lacks)
      const;

 private:
  DynLib lib_;
  std::string missing_;
  std::string path_;
};

}  // namespace ember
