#include "runtime/library_loader.hpp"

#include <dlfcn.h>

#include "runtime/errors.hpp"

namespace ember {

void LibraryLoader::note_path(const void* symbol) {
  Dl_info info{};
  if (symbol && dladdr(symbol, &info) && info.dli_fname) path_ = info.dli_fname;
}

void LibraryLoader::require(
    const std::function<std::string(const std::string&)>& cannot_open,
    const std::function<std::string(const std::string&, const std::string&)>& lacks) const {
  if (!ok()) throw Error(cannot_open(open_error()));
  if (!missing_.empty()) throw Error(lacks(path_, missing_));
}

}  // namespace ember
