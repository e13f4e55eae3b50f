// EMBER_CUDA_ALLOC_CONF: the caching allocator's settings, as comma-separated
// `key:value` pairs with torch's PYTORCH_CUDA_ALLOC_CONF keys that ember
// implements:
//
//   max_split_size_mb:N              blocks of N MiB or more are never split (N > 20)
//   garbage_collection_threshold:F   0 < F < 1: past F of the limit, free old cached blocks
//   roundup_power2_divisions:N       round sizes up to N steps per power of two (N = 2^k)
//   caching:False                    no caching: every allocation is its own cudaMalloc
//                                    (for compute-sanitizer and other memory checkers)
//   backend:native                   the only backend (accepted for torch compatibility)
//   expandable_segments:False        the only mode (accepted for torch compatibility)
//
// Unknown keys, torch keys ember does not implement and bad values raise
// ValueError naming the key, the value and what is accepted: nothing is
// silently ignored.
#pragma once

#include <cstddef>
#include <limits>
#include <string>
#include <string_view>

namespace ember::memory {

struct AllocatorConfig {
  size_t max_split_size = std::numeric_limits<size_t>::max();  // max: unlimited
  double garbage_collection_threshold = 0.0;                   // 0: off
  size_t roundup_power2_divisions = 0;                         // 0: off
  bool caching = true;

  // The configuration written back in EMBER_CUDA_ALLOC_CONF's syntax.
  std::string str() const;
};

// Parses `text` (the variable's value). A pure function; throws ValueError.
AllocatorConfig parse_alloc_conf(std::string_view text);

// The process's configuration from EMBER_CUDA_ALLOC_CONF, parsed on first
// use. Throws the same ValueError on every call while the variable is invalid.
const AllocatorConfig& process_alloc_conf();

}  // namespace ember::memory
