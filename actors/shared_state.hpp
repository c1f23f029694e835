#pragma once
// State that replicas share through Redis (--redis): the outbound quota as
// one token bucket per upstream, an upstream's 429 hold-off, and the
// caches' second level with its single-flight lock. The commands are built
// and read here, purely (tests check them without a socket); REDIS actors
// run them on their own threads.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <caf/fwd.hpp>

#include "messages/interfaces.hpp"
#include "providers/redis_link.hpp"

namespace transitd {

/// How an engine uses Redis; `url` empty = not at all (everything local).
struct shared_state_options {
  std::string url;
  /// Prefix of every key ("transitd:"), so that several deployments can
  /// share one Redis.
  std::string prefix = "transitd:";
  /// Replicas sharing the quota: while Redis is unreachable, each replica
  /// keeps to rate / replicas (fail-safe).
  int32_t replicas = 1;
  /// How long a caller waits for the REDIS actor before falling back: a
  /// guard above the link's own timeouts (250 ms to connect, 250 ms per
  /// command), for a replica too loaded to hear the answer in time.
  int32_t timeout_ms = 1000;
  /// How long a replica fetching for the fleet holds the lock at most.
  int32_t lock_ms = 5000;
  /// How often a replica waiting on another's fetch looks again.
  int32_t poll_ms = 20;
  redis_link_options link;
};

/// Spawns a REDIS actor (detached) on its own connection; `name` labels
/// its counters ("redis:quota").
redis_actor spawn_redis(caf::actor_system& system,
                        const shared_state_options& options,
                        const redis_endpoint& endpoint, std::string name);

// -- the quota ------------------------------------------------------------------

/// One token of the shared bucket `key` (rate per second, burst held at
/// most), on Redis's clock, refused while the key is held off. Atomic (one
/// script), so replicas together never take more than the bucket gives.
redis_command bucket_command(const std::string& prefix, const std::string& key,
                             double rate, double burst);
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
