#pragma once
// Messages of the resilience actors: rate-limit permits, upstream hold-offs,
// call cancellation and the counters that operators read.

#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "transitd/messages/inspect_std.hpp"

namespace transitd {

/// Asks RATE_LIMITER for one token of the bucket `key` ("tool:plan_trip",
/// "upstream:digitransit-routing").
struct acquire_permit {
  std::string key;
  /// How long the caller can wait for its token: a token due within this
  /// is reserved now (granted, with the wait to keep); one due later is
  /// refused at once. 0: only a token in hand.
  int64_t max_wait_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, acquire_permit& x) {
  return f(x.key, x.max_wait_ms);
}

/// RATE_LIMITER's answer: granted, or refused with the wait until a token
/// (or the end of a hold-off) is due.
struct permit {
  bool granted = true;
  /// Milliseconds until a retry can succeed (refusals only, at least 1).
  int64_t retry_after_ms = 0;
  /// Granted: the token is reserved this many milliseconds ahead; the
  /// caller waits them, then goes (no second permit).
  int64_t wait_ms = 0;
  /// Granted from a principal's share of a limit this replica keeps alone:
  /// the shares of the active principals add up to the whole, so the whole
  /// is charged already and needs no second permit.
  bool settled = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, permit& x) {
  return f(x.granted, x.retry_after_ms, x.wait_ms, x.settled);
}

/// Holds every permit of `key` back for `duration_ms` (an upstream's 429
/// Retry-After).
struct hold_off {
  std::string key;
  int64_t duration_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, hold_off& x) {
  return f(x.key, x.duration_ms);
}

/// Stops the work started for one call (notifications/cancelled, a client
/// that went away). Calls in flight upstream are aborted; queued ones end
/// with ec::cancelled.
struct cancel_call {
  std::string correlation_id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, cancel_call& x) {
  return f(x.correlation_id);
}

/// Whether cancelling the call `cancelled` stops work running under `id`:
/// the call's own id, or one of its own sub-queries ("<id>:relaxed", the
/// relaxed plan query), but never a flight shared with other callers
/// ("<id>:shared", which the caches cancel when its last waiter leaves).
inline bool cancel_covers(std::string_view cancelled, std::string_view id) {
  if (id == cancelled)
    return true;
  return id.size() > cancelled.size() + 1
         && id.substr(0, cancelled.size()) == cancelled
         && id[cancelled.size()] == ':'
         && id.substr(cancelled.size() + 1) != "shared";
}

/// Internal timer of UPSTREAM_GATE: resume the call `id` (after a backoff
/// or a hold-off).
struct gate_resume {
  uint64_t id = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, gate_resume& x) {
  return f(x.id);
}

/// Internal timer of FEED: check its sources again.
struct feed_refresh {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, feed_refresh&) {
  return f();
}

/// Internal timer of FEED: the speculative search `correlation_id`, whose
/// primary has answered, was not cancelled meanwhile: its call needs it,
/// so it runs now like any other search.
struct feed_search_due {
  std::string correlation_id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, feed_search_due& x) {
  return f(x.correlation_id);
}

/// Asks a resilience actor for its counters.
struct get_counters {};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_counters&) {
  return f();
}

/// Named monotonic counters and gauges of one actor, e.g.
/// {"digitransit-routing.retries", 3}. Names are stable (docs/operations.md).
struct counters {
  std::vector<std::pair<std::string, int64_t>> values;

  void add(std::string name, int64_t value) {
    values.emplace_back(std::move(name), value);
  }
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, counters& x) {
  return f(x.values);
}

} // namespace transitd
