#include "memory/allocator_config.hpp"

#include <cerrno>
#include <cstdlib>
#include <mutex>
#include <optional>
#include <set>

#include "runtime/errors.hpp"

namespace ember::memory {

namespace {

constexpr size_t kMiB = 1024 * 1024;
constexpr const char* kVar = "EMBER_CUDA_ALLOC_CONF";
constexpr const char* kSupported =
    "max_split_size_mb, garbage_collection_threshold, roundup_power2_divisions, caching, "
    "backend, expandable_segments";

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

[[noreturn]] void bad_value(std::string_view key, std::string_view value, const char* expected) {
  throw ValueError(detail::str(kVar, ": invalid value '", value, "' for ", key, ": expected ",
                               expected, "."));
}

// A decimal integer with no sign, spaces or suffix.
size_t parse_uint(std::string_view key, std::string_view value, const char* expected) {
  if (value.empty() || value.size() > 18) bad_value(key, value, expected);
  size_t v = 0;
  for (char c : value) {
    if (c < '0' || c > '9') bad_value(key, value, expected);
    v = v * 10 + static_cast<size_t>(c - '0');
  }
  return v;
}

double parse_double(std::string_view key, std::string_view value, const char* expected) {
  const std::string s(value);
  char* end = nullptr;
  errno = 0;
  const double v = s.empty() ? 0.0 : std::strtod(s.c_str(), &end);
  if (s.empty() || end != s.c_str() + s.size() || errno != 0 || v != v) {
    bad_value(key, value, expected);
  }
  return v;
}

bool parse_bool(std::string_view key, std::string_view value) {
  if (value == "True" || value == "true" || value == "1") return true;
  if (value == "False" || value == "false" || value == "0") return false;
  bad_value(key, value, "True or False");
}

void apply(AllocatorConfig& c, std::string_view key, std::string_view value) {
  if (key == "max_split_size_mb") {
    const char* expected = "an integer number of MiB greater than 20";
    const size_t mb = parse_uint(key, value, expected);
    if (mb <= 20 || mb > std::numeric_limits<size_t>::max() / kMiB) bad_value(key, value, expected);
    c.max_split_size = mb * kMiB;
  } else if (key == "garbage_collection_threshold") {
    const char* expected = "a number strictly between 0 and 1, such as 0.8";
    const double t = parse_double(key, value, expected);
    if (!(t > 0.0 && t < 1.0)) bad_value(key, value, expected);
    c.garbage_collection_threshold = t;
  } else if (key == "roundup_power2_divisions") {
    const char* expected = "one power of two such as 4 (ember does not implement the [size:n] list form)";
    const size_t n = parse_uint(key, value, expected);
    if (n == 0 || (n & (n - 1)) != 0 || n > 1024) bad_value(key, value, expected);
    c.roundup_power2_divisions = n == 1 ? 0 : n;
  } else if (key == "caching") {
    c.caching = parse_bool(key, value);
  } else if (key == "backend") {
    if (value != "native") {
      bad_value(key, value, "native (ember has no cudaMallocAsync backend)");
    }
  } else if (key == "expandable_segments") {
    if (parse_bool(key, value)) {
      bad_value(key, value, "False (ember does not implement expandable segments)");
    }
  } else if (key == "release_lock_on_cudamalloc" || key == "pinned_use_cuda_host_register" ||
             key == "pinned_num_register_threads" || key == "pinned_use_background_threads" ||
             key == "max_non_split_rounding_mb" || key == "per_process_memory_fraction") {
    throw ValueError(detail::str(kVar, ": torch's option '", key,
                                 "' is not implemented by ember; supported options: ", kSupported,
                                 "."));
  } else {
    throw ValueError(detail::str(kVar, ": unknown option '", key, "'; supported options: ",
                                 kSupported, " (for example \"max_split_size_mb:128,",
                                 "garbage_collection_threshold:0.8\")."));
  }
}

}  // namespace

AllocatorConfig parse_alloc_conf(std::string_view text) {
  AllocatorConfig c;
  if (trim(text).empty()) return c;
  if (text.find('[') != std::string_view::npos) {
    throw ValueError(detail::str(kVar, ": the [size:n,...] list form is not supported by ember: ",
                                 "give roundup_power2_divisions a single power of two."));
  }
  std::set<std::string, std::less<>> seen;
  size_t start = 0;
  while (start <= text.size()) {
    size_t end = text.find(',', start);
    if (end == std::string_view::npos) end = text.size();
    const std::string_view entry = trim(text.substr(start, end - start));
    if (entry.empty()) {
      throw ValueError(detail::str(kVar, ": empty entry in '", text,
                                   "': write comma-separated key:value pairs."));
    }
    const size_t colon = entry.find(':');
    if (colon == std::string_view::npos) {
      throw ValueError(detail::str(kVar, ": '", entry, "' has no value: write key:value, e.g. ",
                                   "max_split_size_mb:128."));
    }
    const std::string_view key = trim(entry.substr(0, colon));
    const std::string_view value = trim(entry.substr(colon + 1));
    if (!seen.insert(std::string(key)).second) {
      throw ValueError(detail::str(kVar, ": option '", key, "' is given twice."));
    }
    apply(c, key, value);
    start = end + 1;
  }
  return c;
}

std::string AllocatorConfig::str() const {
  std::string s;
  auto add = [&s](const std::string& kv) { s += (s.empty() ? "" : ",") + kv; };
  if (max_split_size != std::numeric_limits<size_t>::max()) {
    add(detail::str("max_split_size_mb:", max_split_size / kMiB));
  }
  if (garbage_collection_threshold > 0) {
    add(detail::str("garbage_collection_threshold:", garbage_collection_threshold));
  }
  if (roundup_power2_divisions > 1) {
    add(detail::str("roundup_power2_divisions:", roundup_power2_divisions));
  }
  if (!caching) add("caching:False");
  return s;
}

const AllocatorConfig& process_alloc_conf() {
  static std::once_flag once;
  static std::optional<AllocatorConfig> config;
  static std::string error;
  std::call_once(once, [] {
    const char* env = std::getenv(kVar);
    try {
      config = parse_alloc_conf(env ? env : "");
    } catch (const ValueError& e) {
      error = e.what();
    }
  });
  if (!config) throw ValueError(error);
  return *config;
}

}  // namespace ember::memory
