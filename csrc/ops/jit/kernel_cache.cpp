#include "ops/jit/kernel_cache.hpp"

#if EMBER_WITH_CUDA

#include <cuda.h>
#include <dirent.h>
#include <dlfcn.h>
#include <sys/stat.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <unordered_map>

#include "runtime/errors.hpp"
#include "runtime/nvrtc.hpp"

#define EMBER_STR2(x) #x
#define EMBER_STR(x) EMBER_STR2(x)

namespace ember::ops::jit {

namespace {

constexpr const char* kKeyVersion = "ember-jit-key-1";

std::mutex g_mutex;
std::unordered_map<std::string, std::shared_ptr<const Binary>>& memory_cache() {
  static auto* m = new std::unordered_map<std::string, std::shared_ptr<const Binary>>();
  return *m;
}
std::atomic<long long> g_memory{0}, g_disk{0}, g_compiled{0}, g_refused{0};

bool is_dir(const std::string& p) {
  struct stat st {};
  return ::stat(p.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

std::string read_text(const std::string& path) {
  std::string out;
  if (FILE* f = std::fopen(path.c_str(), "rb")) {
    char buf[4096];
    size_t n;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) out.append(buf, n);
    std::fclose(f);
  }
  return out;
}

// SHA-256 of ember's device headers (names and contents, sorted by name):
// part of every key, so a changed header recompiles what includes it.
const std::string& device_headers_digest() {
  static const std::string digest = [] {
    const std::string dir = ember_include_dir() + "/ember/device";
    std::vector<std::string> names;
    if (DIR* d = ::opendir(dir.c_str())) {
      while (const dirent* e = ::readdir(d)) {
        if (e->d_name[0] != '.') names.emplace_back(e->d_name);
      }
      ::closedir(d);
    }
    std::sort(names.begin(), names.end());
    Sha256 h;
    for (const std::string& n : names) h.update_field(n).update_field(read_text(dir + "/" + n));
    return hex(h.finish());
  }();
  return digest;
}

std::string kernel_cache_dir(const std::string& requested) {
  if (requested == "-") return "";
  if (!requested.empty()) return requested;
  return cache_root() + "/kernels";
}

// The architecture NVRTC compiles for on compute capability `sm`.
std::string target_for(int sm) {
  const std::vector<int> archs = nvrtc::supported_archs();
  if (std::find(archs.begin(), archs.end(), sm) != archs.end()) return detail::str("sm_", sm);
  int best = -1;
  for (int a : archs) {
    if (a <= sm && a > best) best = a;
  }
  if (best < 0) {
    throw Error(detail::str("NVRTC ", nvrtc::nvrtc_version() / 1000, ".",
                            nvrtc::nvrtc_version() % 1000 / 10,
                            " cannot compile for compute capability ", sm / 10, ".", sm % 10,
                            " (it knows ", archs.empty() ? 0 : archs.front(),
                            " and newer): "
                            "install the NVRTC of an older CUDA toolkit."));
  }
  return detail::str("compute_", best);  // PTX: the driver compiles it for this GPU
}

void put_field(std::string& out, const std::string& s) {
  const uint64_t n = s.size();
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<char>(n >> (8 * i)));
  out += s;
}

bool get_field(const std::string& in, size_t& pos, std::string* s) {
  if (in.size() - pos < 8) return false;
  uint64_t n = 0;
  for (int i = 0; i < 8; ++i) n |= uint64_t(static_cast<uint8_t>(in[pos + i])) << (8 * i);
  pos += 8;
  if (in.size() - pos < n) return false;
  s->assign(in, pos, n);
  pos += n;
  return true;
}

}  // namespace

const std::string& ember_include_dir() {
  static const std::string dir = [] {
    Dl_info info{};
    if (dladdr(reinterpret_cast<void*>(&device_headers_digest), &info) && info.dli_fname) {
      std::string so(info.dli_fname);
      return so.substr(0, so.rfind('/')) + "/include";
    }
    return std::string("include");
  }();
  return dir;
}

std::string cuda_include_dir() {
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(var);
    if (v && *v && is_dir(std::string(v) + "/include")) return std::string(v) + "/include";
  }
  return EMBER_CUDA_INCLUDE_DIR;
}

Digest cache_key(const Source& src, int sm) {
  Sha256 h;
  h.update_field(kKeyVersion)
      .update_field(EMBER_VERSION)
      .update_field(EMBER_STR(CUDA_VERSION))
      .update_field(EMBER_STR(EMBER_NVRTC_MAJOR))
      .update_field(device_headers_digest())
      .update_field(std::to_string(sm))
      .update_field(src.file_name)
      .update_field(src.code);
  h.update_field(std::to_string(src.options.size()));
  for (const std::string& o : src.options) h.update_field(o);
  h.update_field(std::to_string(src.name_expressions.size()));
  for (const std::string& e : src.name_expressions) h.update_field(e);
  return h.finish();
}

std::vector<std::string> full_options(const Source& src, int sm) {
  std::vector<std::string> opts = src.options;
  opts.push_back("-I" + ember_include_dir());
  opts.push_back("-I" + cuda_include_dir());
  opts.push_back("--gpu-architecture=" + target_for(sm));
  return opts;
}

std::string serialize(const Binary& b) {
  std::string out = "EJB1";
  out.push_back(b.is_ptx ? 1 : 0);
  put_field(out, b.target);
  put_field(out, b.image);
  put_field(out, b.log);
  put_field(out, std::to_string(b.lowered.size()));
  for (const auto& [expr, name] : b.lowered) {
    put_field(out, expr);
    put_field(out, name);
  }
  return out;
}

bool deserialize(const std::string& payload, Binary* b) {
  if (payload.size() < 5 || payload.compare(0, 4, "EJB1") != 0) return false;
  b->is_ptx = payload[4] != 0;
  size_t pos = 5;
  std::string count;
  if (!get_field(payload, pos, &b->target) || !get_field(payload, pos, &b->image) ||
      !get_field(payload, pos, &b->log) || !get_field(payload, pos, &count)) {
    return false;
  }
  char* end = nullptr;
  const unsigned long n = std::strtoul(count.c_str(), &end, 10);
  if (count.empty() || *end != '\0' || n > 100000) return false;
  b->lowered.clear();
  for (unsigned long i = 0; i < n; ++i) {
    std::string expr, name;
    if (!get_field(payload, pos, &expr) || !get_field(payload, pos, &name)) return false;
    b->lowered.emplace_back(std::move(expr), std::move(name));
  }
  return pos == payload.size() && !b->image.empty();
}

Lookup compile_or_load(const Source& src, int sm, const std::string& cache_dir, bool use_memory) {
  const Digest key = cache_key(src, sm);
  const std::string id = hex(key);
  Lookup r;
  if (use_memory) {
    std::lock_guard<std::mutex> lock(g_mutex);
    auto it = memory_cache().find(id);
    if (it != memory_cache().end()) {
      ++g_memory;
      r.binary = it->second;
      r.origin = Origin::Memory;
      return r;
    }
  }
  const DiskCache disk(kernel_cache_dir(cache_dir));
  DiskCache::Loaded loaded = disk.load(key);
  auto binary = std::make_shared<Binary>();
  if (loaded.status == DiskCache::Status::Hit && deserialize(loaded.payload, binary.get())) {
    ++g_disk;
    r.origin = Origin::Disk;
  } else {
    if (loaded.status != DiskCache::Status::Miss) {
      ++g_refused;
      r.refused =
          loaded.status == DiskCache::Status::Corrupt ? loaded.reason : "not a compiled kernel";
    }
    const std::vector<std::string> opts = full_options(src, sm);
    nvrtc::Compiled c = nvrtc::compile(src.code, src.file_name, opts, src.name_expressions);
    binary->target = opts.back().substr(std::strlen("--gpu-architecture="));
    binary->image = std::move(c.binary);
    binary->is_ptx = c.is_ptx;
    binary->log = std::move(c.log);
    binary->lowered = std::move(c.lowered);
    (void)disk.store(key, serialize(*binary));  // a read-only cache only costs speed
    ++g_compiled;
    r.origin = Origin::Compiled;
  }
  binary->key = key;
  std::lock_guard<std::mutex> lock(g_mutex);
  auto& slot = memory_cache()[id];
  if (!slot) slot = binary;
  r.binary = slot;
  return r;
}

CacheCounts cache_counts() {
  return {g_memory.load(), g_disk.load(), g_compiled.load(), g_refused.load()};
}

}  // namespace ember::ops::jit

#endif  // EMBER_WITH_CUDA
