#pragma once
// UPSTREAM_GATE: the one door to an upstream (see interfaces.hpp). Owns its
// HTTP_CLIENT workers; a provider actor sends it http_calls and gets the
// final response after the outbound limit, the breaker and the retries.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <random>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/fwd.hpp>
#include <caf/typed_response_promise.hpp>

#include "transitd/actors/http_client.hpp"
#include "transitd/messages/interfaces.hpp"
#include "transitd/util/retry_policy.hpp"

namespace transitd {

struct upstream_gate_options {
  /// Names the upstream in keys, counters and messages
  /// ("digitransit-routing").
  std::string name = "upstream";
  retry_policy retry;
  /// When the breaker opens, and how long it stays open.
  breaker_settings breaker;
  /// Calls waiting for a free worker at most; more are refused
  /// (rate-limited, retryAfter 1).
  std::size_t max_queue = 4096;
  /// Each call's principal (but "local") is first held to its own share of
  /// the quota.
  bool principal_shares = false;
};

struct upstream_gate_state {
  static inline const char* name = "upstream_gate";

  struct call_entry {
    http_call call;
    caf::typed_response_promise<http_response> rp;
    /// Attempts sent so far.
    int32_t attempts = 0;
    /// Index of the worker running it, -1 when not in flight.
    int32_t worker = -1;
    bool cancelled = false;
    /// The breaker let it through (its retries need no second verdict);
    /// `probe` when it was the half-open probe.
    bool admitted = false;
    bool probe = false;
    /// Its outbound token is reserved: after the wait it goes straight to
    /// the queue.
    bool permitted = false;
    /// Its principal's share granted it a token (once per call).
    bool share_taken = false;
  };

  upstream_gate_options options;
  rate_limiter_actor limiter;
  std::vector<http_worker> workers;
  std::vector<bool> busy;
  std::deque<uint64_t> queue;
  std::unordered_map<uint64_t, call_entry> calls;
  uint64_t next_id = 0;
  circuit_breaker breaker;
  std::minstd_rand random{std::random_device{}()};
  // Counters.
  int64_t total_calls = 0;
  int64_t total_attempts = 0;
  int64_t retries = 0;
  int64_t failures = 0;
  int64_t throttled = 0;
  int64_t rejected_open = 0;
  int64_t rejected_limited = 0;
  int64_t cancelled = 0;
  int64_t attempt_ms_total = 0;
};

/// The behavior, with its workers given (tests pass stand-ins).
upstream_gate_actor::behavior_type
upstream_gate(upstream_gate_actor::stateful_pointer<upstream_gate_state> self,
              upstream_gate_options options, rate_limiter_actor limiter,
              std::vector<http_worker> workers);

/// Spawns the gate with `workers` detached HTTP_CLIENT workers.
upstream_gate_actor spawn_upstream_gate(caf::actor_system& system,
                                        upstream_gate_options options,
                                        rate_limiter_actor limiter,
                                        std::size_t workers);

} // namespace transitd
