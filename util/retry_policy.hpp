#pragma once
// The pure rules of UPSTREAM_GATE: which attempt outcomes are retried and
// after how long (exponential backoff with full jitter), and the circuit
// breaker. Times are explicit milliseconds, so tests need no clock.

#include <cstddef>
#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

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

/// When the breaker opens (the model of Resilience4j's time-based sliding
/// window).
struct breaker_settings {
  /// Distinct calls the window must hold before its failure rate counts.
  int32_t min_calls = 10;
  /// Opens when at least this share of those calls failed, in percent.
  int32_t failure_rate_percent = 50;
  /// How far back the window reaches.
  int64_t window_ms = 60'000;
  /// How long it stays open before a probe.
  int64_t cooldown_ms = 10'000;
};

/// A circuit breaker on the failure rate of distinct calls. Closed: calls
/// pass, and each call's final outcome (after its retries) enters a sliding
/// window. Outcomes of one call (its `call` key) or of one query (its
/// `query` key: the same request sent again, or by another agent) count
/// once, the latest standing: a query the upstream refuses fails one call,
/// however often it is retried, relaxed or repeated. Once the window holds
/// `min_calls` such calls and `failure_rate_percent` of them failed, it
/// opens: calls fail fast for `cooldown_ms`. Then one probe passes
/// (half-open); its success closes the breaker with an empty window, its
/// failure opens it again.
class circuit_breaker {
public:
  enum class state : uint8_t { closed, open, half_open };

  explicit circuit_breaker(breaker_settings settings = {});

  /// Whether a call may go out at `now_ms`. In half-open state only one
  /// probe is out at a time; the caller must report its outcome.
  bool allow(int64_t now_ms);
  /// A call's final outcome; `probe` when it was let through half-open
  /// (while open only the probe's verdict counts).
  void record(const std::string& call, const std::string& query, bool failed,
              int64_t now_ms, bool probe = false);
  /// A call allowed through ended without a verdict (cancelled).
  void on_abandoned();

  state current(int64_t now_ms) const;
  /// Milliseconds until the next probe may go out (open state), else 0.
  int64_t retry_in_ms(int64_t now_ms) const;
  /// How often it has opened.
  int64_t times_opened() const {
    return opened_;
  }
  /// Distinct calls in the window, and how many of them failed.
  std::size_t calls_in_window() const {
    return window_.size();
  }
  std::size_t failures_in_window() const;

private:
  struct outcome {
    std::string call;
    /// The queries the call sent (its own and its relaxed one), at most a
    /// few.
    std::vector<std::string> queries;
    bool failed = false;
    int64_t at_ms = 0;
  };
  void open(int64_t now_ms);

  breaker_settings settings_;
  std::deque<outcome> window_;
  bool open_ = false;
  int64_t open_until_ms_ = 0;
  bool probe_out_ = false;
  int64_t opened_ = 0;
};

/// "closed", "open", "half_open".
const char* to_string(circuit_breaker::state s) noexcept;

} // namespace transitd
