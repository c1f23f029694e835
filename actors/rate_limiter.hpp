#pragma once
// RATE_LIMITER: token buckets by key, on an explicit clock. Inbound, one key
// per tool ("tool:planJourney"); outbound, one per upstream
// ("upstream:digitransit-routing"), so that no number of agents can push the
// daemon past an API key's quota. An upstream's 429 Retry-After holds its
// key back until then.

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include <caf/fwd.hpp>

#include "transitd/messages/interfaces.hpp"

namespace transitd {

/// A token bucket in milliseconds: `rate` tokens per second, at most
/// `burst` held; starts full.
class token_bucket {
public:
  explicit token_bucket(double rate = 10, double burst = 10);

  /// Empties the bucket at `now_ms`: its next token comes 1/rate later.
  void drain(int64_t now_ms);

  /// Takes one token at `now_ms`. Returns 0 when taken, else the
  /// milliseconds until one is back (at least 1).
  int64_t try_take(int64_t now_ms);

  /// Reserves the next token when it is due within `max_wait_ms` (the
  /// bucket goes below zero: later takers queue behind): the permit says
  /// how long to wait. Otherwise refused, with when it would be due.
  permit reserve(int64_t now_ms, int64_t max_wait_ms);

  /// A new rate and burst from `now_ms` on: what accrued so far accrued at
  /// the old rate; tokens over the new burst are dropped.
  void resize(double rate, double burst, int64_t now_ms);

  double rate() const {
    return rate_;
  }

private:
  void refill(int64_t now_ms);

  double rate_;
  double burst_;
  double tokens_;
  bool started_ = false;
  int64_t last_ms_ = 0;
};

/// One configured limit. `rate <= 0` means unlimited.
struct rate_limit {
  std::string key;
  double rate = 0;
  /// Tokens held at most; 0 = the rate (one second's worth, at least 1).
  double burst = 0;
  /// Kept in Redis for every replica when the limiter has a shared quota
  /// (outbound limits always; inbound ones when configured so).
  bool shared = false;
  /// With authentication on: the most one principal may take of this
  /// limit (0..1; 0 = no shares). Each principal asks under the key
  /// "<key>@<principal>" and gets an equal part of the limit among the
  /// principals active on it (asked in the last `share_window_ms`), never
  /// more than this; each replica keeps the shares for itself.
  double principal_share = 0;
};

/// The key of `principal`'s share of the limit `key`.
std::string share_key(const std::string& key, const std::string& principal);

/// Where shared limits are kept: a REDIS actor (null: every limit stays
/// local). While Redis does not answer within `timeout_ms`, a shared limit
/// falls back to this replica's share: rate and burst divided by
/// `replicas` (fail-safe: together the replicas still keep the quota).
struct shared_quota {
  redis_actor redis;
  std::string prefix = "transitd:";
  int32_t replicas = 1;
  int32_t timeout_ms = 1000;
};

/// A replica's share of `limits` while the shared quota is unreachable:
/// rate R/N rounded down to whole requests a second when R >= N (so that
/// N replicas together never pass R in a second), burst B/N (at least 1).
std::vector<rate_limit> replica_share(const std::vector<rate_limit>& limits,
                                      int32_t replicas);

/// The limiter's pure state: buckets and hold-offs by key.
class rate_limits {
public:
  explicit rate_limits(const std::vector<rate_limit>& limits = {});

  /// One permit for `key` at `now_ms`, reserving a token due within
  /// `max_wait_ms`. Keys without a limit are granted unless held off.
  permit acquire(const std::string& key, int64_t now_ms,
                 int64_t max_wait_ms = 0);

  /// Refuses `key` until `until_ms` (extends, never shortens).
  void hold(const std::string& key, int64_t until_ms);

  /// Empties `key`'s bucket at `now_ms` (a replica's share when Redis has
  /// just left: what Redis gave this second must not be given again).
  void drain(const std::string& key, int64_t now_ms);

  /// Whether `key` has a configured limit.
  bool limited(const std::string& key) const;

  /// Counts a decision taken elsewhere (the shared bucket) under `key`.
  void record(const std::string& key, bool granted);

  /// "<key>.granted", "<key>.refused" for every key seen; principals'
  /// shares for the `top_principals` most refused, the rest summed under
  /// "<key>@others" (bounded cardinality).
  counters snapshot() const;

  /// The principals active on `key` (those that asked its shares in the
  /// last `share_window_ms`), as the shares count them at `now_ms`.
  std::size_t active_principals(const std::string& key, int64_t now_ms);

  /// Principals' shares kept at most; the longest unused go first.
  static constexpr std::size_t max_shares = 10'000;
  static constexpr std::size_t top_principals = 10;
  /// How long a principal counts as active after its last ask.
  static constexpr int64_t share_window_ms = 10'000;

private:
  struct entry {
    bool has_bucket = false;
    token_bucket bucket;
    int64_t hold_until_ms = 0;
    int64_t granted = 0;
    int64_t refused = 0;
    int64_t used_ms = 0;
  };
  /// Principals active on one limit: counted afresh at most once a
  /// second, and one more as soon as a principal (re)appears.
  struct share_group {
    rate_limit limit;
    std::size_t active = 0;
    int64_t counted_ms = 0;
    bool counted = false;
  };
  /// A principal's share, made on first use from its limit's template.
  entry* share_entry(const std::string& key, int64_t now_ms);
  /// Sets a share's bucket to its part of the limit among the active.
  void fit_share(share_group& group, entry& e, int64_t now_ms);
  void count_active(const std::string& key, share_group& group,
                    int64_t now_ms);

  std::unordered_map<std::string, entry> entries_;
  /// Limits with principal shares, by key.
  std::unordered_map<std::string, share_group> shares_;
  std::size_t share_count_ = 0;
};

struct rate_limiter_state {
  static inline const char* name = "rate_limiter";
  rate_limits limits;
  /// Shared limits by key, the quota's Redis, and the local share used
  /// while Redis is unreachable.
  std::unordered_map<std::string, rate_limit> shared_limits;
  shared_quota shared;
  rate_limits fallback;
  std::unordered_map<std::string, int64_t> fallbacks;
  /// Keys whose last permit Redis decided: the next local one starts from
  /// an empty bucket.
  std::unordered_map<std::string, bool> on_redis;
};

/// RATE_LIMITER's behavior; time comes from the actor clock, so tests on
/// the deterministic scheduler drive it with virtual time.
rate_limiter_actor::behavior_type
rate_limiter(rate_limiter_actor::stateful_pointer<rate_limiter_state> self,
             std::vector<rate_limit> limits);

/// The same with shared limits kept in Redis (`shared.redis`).
rate_limiter_actor::behavior_type shared_rate_limiter(
  rate_limiter_actor::stateful_pointer<rate_limiter_state> self,
  std::vector<rate_limit> limits, shared_quota shared);

/// Milliseconds of the actor's clock (steady; virtual under test).
int64_t clock_ms(caf::local_actor* self);

/// The key of a tool's inbound bucket, e.g. "tool:plan_trip".
std::string tool_key(const std::string& tool);
/// The key of an upstream's outbound bucket, e.g.
/// "upstream:digitransit-routing".
std::string upstream_key(const std::string& upstream);

} // namespace transitd
