#pragma once
// State that replicas share through Redis (--redis): the outbound quota as
// one token bucket per upstream, an upstream's 429 hold-off, and the
// caches' second level with its single-flight lock. The commands and their
// scripts are built and read in store/redis_scripts, purely; REDIS actors
// run them on their own threads.

#include <cstdint>
#include <optional>
#include <string>
#include <utility>

#include <caf/fwd.hpp>

#include "transitd/messages/interfaces.hpp"
#include "transitd/store/redis_link.hpp"
#include "transitd/store/redis_scripts.hpp"

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

} // namespace transitd
