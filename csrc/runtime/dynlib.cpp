#include "runtime/dynlib.hpp"

#include <dlfcn.h>

namespace ember {

DynLib::DynLib(std::initializer_list<const char*> names) {
  for (const char* name : names) {
    handle_ = dlopen(name, RTLD_NOW | RTLD_LOCAL);
    if (handle_) return;
    const char* err = dlerror();
    if (err) error_ += std::string(error_.empty() ? "" : "; ") + err;
  }
}

// Libraries stay loaded until exit: unloading a driver library while other
// statics may still call into it is worse than the few bytes kept.
DynLib::~DynLib() = default;

void* DynLib::symbol(const char* name) const noexcept {
  return handle_ ? dlsym(handle_, name) : nullptr;
}

}  // namespace ember
