#pragma once
// The pure rules of UPSTREAM_GATE: which attempt outcomes are retried and
// after how long (exponential backoff with full jitter), and the circuit
// breaker. Times are explicit milliseconds, so tests need no clock.

#include <cstdint>
#include <optional>
#include <string>

#include "transitd/messages/error.hpp"

namespace transitd {

struct retry_policy {
  /// Attempts in all, first included (1 = never retry).
  int32_t max_attempts = 3;
  /// Backoff before retry n is uniform in [0, min(cap, base * 2^(n-1))].
  int64_t base_ms = 100;
  int64_t cap_ms = 2000;
  /// A retry is only started when at least this much of the deadline is
  /// left after its backoff.
  int64_t min_attempt_ms = 200;
};

/// The ceiling of the full-jitter backoff before retry `retry` (1-based).
int64_t backoff_ceiling_ms(const retry_policy& policy, int32_t retry);

/// Full-jitter backoff: `unit` in [0, 1) picks the point in the range.
int64_t backoff_ms(const retry_policy& policy, int32_t retry, double unit);

/// What one attempt's outcome means for the call.
enum class attempt_class : uint8_t {
  /// An answer to hand back (2xx, or a 4xx other than 429).
  answer,
  /// 429: hold the upstream back for its Retry-After, then retry.
  throttled,
  /// 5xx, timeout, refused/reset connection: retryable, counts against the
  /// breaker.
  failed,
  /// Not retried and not the upstream's fault (cancelled, internal).
  final,
};

/// Classifies an HTTP status (an answered attempt).
attempt_class classify_status(int status) noexcept;

/// Classifies a transport failure (no HTTP answer).
attempt_class classify_failure(ec code) noexcept;

/// A consecutive-failure circuit breaker. Closed: calls pass. After
/// `threshold` failures in a row it opens: calls fail fast for `cooldown_ms`.
/// Then one probe passes (half-open); its success closes the breaker, its
/// failure opens it again.
class circuit_breaker {
public:
  enum class state : uint8_t { closed, open, half_open };

  explicit circuit_breaker(int32_t threshold = 5, int64_t cooldown_ms = 10000);

  /// Whether a call may go out at `now_ms`. In half-open state only one
  /// probe is out at a time; the caller must report its outcome.
  bool allow(int64_t now_ms);
  void on_success();
  void on_failure(int64_t now_ms);
  /// A call allowed through ended without a verdict (cancelled).
  void on_abandoned();

  state current(int64_t now_ms) const;
  /// Milliseconds until the next probe may go out (open state), else 0.
  int64_t retry_in_ms(int64_t now_ms) const;
  /// How often it has opened.
  int64_t times_opened() const {
    return opened_;
  }

private:
  int32_t threshold_;
  int64_t cooldown_ms_;
  int32_t failures_ = 0;
  bool open_ = false;
  int64_t open_until_ms_ = 0;
  bool probe_out_ = false;
  int64_t opened_ = 0;
};

/// "closed", "open", "half_open".
const char* to_string(circuit_breaker::state s) noexcept;

} // namespace transitd
