#pragma once
// The Redis commands and Lua scripts of the state replicas share: the
// outbound quota as one token bucket per upstream on Redis's clock, an
// upstream's 429 hold-off, and the caches' second level with its
// single-flight lock. Built and read purely (tests check them without a
// socket); store/redis_link sends them.

#include <cstdint>
#include <optional>
#include <string>

#include "transitd/messages/resilience.hpp"
#include "transitd/messages/shared.hpp"
#include "transitd/store/redis_link.hpp"

namespace transitd {

// -- the quota ------------------------------------------------------------------

/// One token of the shared bucket `key` (rate per second, burst held at
/// most), on Redis's clock, refused while the key is held off; a token due
/// within `max_wait_ms` is reserved (granted with its wait). Atomic (one
/// script), so replicas together never take more than the bucket gives.
redis_command bucket_command(const std::string& prefix, const std::string& key,
                             double rate, double burst,
                             int64_t max_wait_ms = 0);
/// The permit in a bucket_command reply; nullopt when the reply is not one.
std::optional<permit> parse_bucket_reply(const redis_result& reply);

/// Holds `key` off for every replica for `duration_ms` (extends, never
/// shortens).
redis_command hold_command(const std::string& prefix, const std::string& key,
                           int64_t duration_ms);

// -- the second cache level ------------------------------------------------------

/// The Redis key of a cached answer: prefix, cache, kind and a SHA-256 of
/// the query's own key (binary), e.g. "transitd:cache:timetable:departures:
/// 3f0a...".
std::string shared_cache_key(const std::string& prefix,
                             const std::string& cache,
                             const std::string& kind,
                             const std::string& query_key);

/// A cached answer and its milliseconds left, or, when there is none,
/// whether a replica holds the fetch lock: one round trip.
redis_command cache_get_command(const std::string& key,
                                const std::string& lock_key);
struct shared_lookup {
  bool found = false;
  std::string value;
  int64_t ttl_ms = 0;
  /// No value, and another replica is fetching it.
  bool locked = false;
};
/// nullopt when the reply is not a cache_get_command reply.
std::optional<shared_lookup> parse_cache_get(const redis_result& reply);
redis_command cache_put_command(const std::string& key, std::string value,
                                int64_t ttl_ms);

/// Takes the fetch lock of `key` for `ttl_ms` with `token`; the reply is
/// "OK" when taken (lock_taken).
redis_command lock_command(const std::string& key, const std::string& token,
                           int64_t ttl_ms);
bool lock_taken(const redis_result& reply);
/// Releases the lock if `token` still holds it.
redis_command unlock_command(const std::string& key, const std::string& token);

} // namespace transitd
