// UPSTREAM_GATE's pure rules: backoff, classification, circuit breaker.

#include "transitd/util/retry_policy.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("backoff: exponential ceilings with a cap, full jitter",
          "[upstream_policy]") {
  retry_policy p;
  p.base_ms = 100;
  p.cap_ms = 1000;
  CHECK(backoff_ceiling_ms(p, 1) == 100);
  CHECK(backoff_ceiling_ms(p, 2) == 200);
  CHECK(backoff_ceiling_ms(p, 3) == 400);
  CHECK(backoff_ceiling_ms(p, 4) == 800);
  CHECK(backoff_ceiling_ms(p, 5) == 1000);
  CHECK(backoff_ceiling_ms(p, 50) == 1000);
  // Full jitter: anywhere from 0 to the ceiling.
  CHECK(backoff_ms(p, 3, 0.0) == 0);
  CHECK(backoff_ms(p, 3, 0.5) == 200);
  CHECK(backoff_ms(p, 3, 0.999) == 399);
  CHECK(backoff_ms(p, 3, 7.0) == 400); // clamped
}

TEST_CASE("attempt classification follows the contracts' retry column",
          "[upstream_policy]") {
  CHECK(classify_status(200) == attempt_class::answer);
  CHECK(classify_status(300) == attempt_class::answer); // TfL disambiguation
  CHECK(classify_status(404) == attempt_class::answer);
  CHECK(classify_status(429) == attempt_class::throttled);
  CHECK(classify_status(500) == attempt_class::failed);
  CHECK(classify_status(503) == attempt_class::failed);
  CHECK(classify_failure(ec::network_error) == attempt_class::failed);
  CHECK(classify_failure(ec::upstream_timeout) == attempt_class::failed);
  CHECK(classify_failure(ec::cancelled) == attempt_class::final);
  CHECK(classify_failure(ec::internal_error) == attempt_class::final);
}

TEST_CASE("circuit breaker: opens on a failure rate over distinct calls, "
          "fails fast, probes, closes",
          "[upstream_policy][breaker]") {
  breaker_settings settings;
  settings.min_calls = 4;
  settings.failure_rate_percent = 50;
  settings.window_ms = 10'000;
  settings.cooldown_ms = 1000;
  circuit_breaker b{settings};
  CHECK(b.allow(0));
  // Three failures but fewer calls than the minimum: still closed.
  b.record("a", "qa", true, 0);
  b.record("b", "qb", true, 0);
  b.record("c", "qc", true, 0);
  CHECK(b.current(10) == circuit_breaker::state::closed);
  CHECK(b.calls_in_window() == 3);
  // The fourth distinct call, a failure: 4 of 4 failed.
  b.record("d", "qd", true, 10);
  CHECK(b.current(10) == circuit_breaker::state::open);
  CHECK(b.times_opened() == 1);
  CHECK_FALSE(b.allow(500));
  CHECK(b.retry_in_ms(500) == 510);
  // After the cooldown exactly one probe goes out.
  CHECK(b.current(1010) == circuit_breaker::state::half_open);
  CHECK(b.allow(1010));
  CHECK_FALSE(b.allow(1011));
  // A call let through before the breaker opened does not decide.
  b.record("old", "qold", false, 1050);
  CHECK_FALSE(b.allow(1060));
  // The probe fails: another cooldown.
  b.record("p", "qp", true, 1100, true);
  CHECK_FALSE(b.allow(1500));
  CHECK(b.allow(2100));
  // An abandoned probe frees the slot for another.
  b.on_abandoned();
  CHECK(b.allow(2101));
  b.record("p2", "qp2", false, 2101, true);
  CHECK(b.current(2101) == circuit_breaker::state::closed);
  CHECK(b.calls_in_window() == 0);
  CHECK(b.allow(2101));
  CHECK(b.times_opened() == 1);
}

TEST_CASE("circuit breaker: a call's retries, its relaxed query and a "
          "repeated query count once; below the rate it stays closed",
          "[upstream_policy][breaker]") {
  breaker_settings settings;
  settings.min_calls = 3;
  settings.failure_rate_percent = 50;
  settings.window_ms = 1000;
  circuit_breaker b{settings};
  // One poisoned query: its call, its relaxed form, the same query sent
  // again by other agents.
  for (int i = 0; i < 20; ++i) {
    b.record("call-1", "poisoned", true, i);
    b.record("call-" + std::to_string(i + 2), "poisoned", true, i);
  }
  CHECK(b.calls_in_window() == 1);
  CHECK(b.current(30) == circuit_breaker::state::closed);
  // Good calls keep the rate below 50 %.
  b.record("g1", "q1", false, 40);
  b.record("g2", "q2", false, 40);
  CHECK(b.calls_in_window() == 3);
  CHECK(b.failures_in_window() == 1);
  CHECK(b.current(40) == circuit_breaker::state::closed);
  // A later success of the same call replaces its failure.
  b.record("g3", "poisoned", false, 50);
  CHECK(b.failures_in_window() == 0);
  // The window slides: old outcomes leave it.
  b.record("x", "qx", true, 1045);
  CHECK(b.calls_in_window() == 2); // g3 (50) and x; the rest left
  b.record("y", "qy", true, 1046);
  CHECK(b.current(1046) == circuit_breaker::state::open); // 2 of 3 failed
}
