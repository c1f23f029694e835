#pragma once
// Messages of the state replicas share: commands to Redis (quota, hold-offs,
// the second cache level and its single-flight lock) and the caches' poll
// timer while another replica fetches.

#include <cstdint>
#include <string>
#include <vector>

#include "transitd/messages/inspect_std.hpp"

namespace transitd {

/// One Redis command, binary-safe ("EVAL", script, numkeys, keys..., args...).
struct redis_command {
  std::vector<std::string> argv;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, redis_command& x) {
  return f(x.argv);
}

/// Redis's answer, flattened: an array's elements become `items` (integers
/// in decimal). `reachable == false` means no answer at all (down, timed
/// out, broken): the caller falls back to its local state.
struct redis_result {
  enum kind_type : int32_t {
    none = 0,
    nil = 1,
    integer = 2,
    string = 3,
    array = 4,
    error = 5,
  };
  bool reachable = false;
  int32_t kind = none;
  int64_t number = 0;
  std::string text;
  std::vector<std::string> items;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, redis_result& x) {
  return f(x.reachable, x.kind, x.number, x.text, x.items);
}

/// Internal timer of a cache: look again whether the replica holding the
/// lock for `key` has stored its answer (flight `flight` of kind `kind`).
struct cache_poll {
  std::string kind;
  std::string key;
  uint64_t flight = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cache_poll& x) {
  return f(x.kind, x.key, x.flight);
}

} // namespace transitd
