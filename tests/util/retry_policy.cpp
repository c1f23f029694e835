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

TEST_CASE("circuit breaker: opens, fails fast, probes, closes",
          "[upstream_policy][breaker]") {
  circuit_breaker b{3, 1000};
  CHECK(b.allow(0));
  b.on_failure(0);
  b.on_failure(0);
  b.on_success(); // a success resets the run
  b.on_failure(10);
  b.on_failure(10);
  CHECK(b.current(10) == circuit_breaker::state::closed);
  b.on_failure(10);
  CHECK(b.current(10) == circuit_breaker::state::open);
  CHECK(b.times_opened() == 1);
  CHECK_FALSE(b.allow(500));
  CHECK(b.retry_in_ms(500) == 510);
  // After the cooldown exactly one probe goes out.
  CHECK(b.current(1010) == circuit_breaker::state::half_open);
  CHECK(b.allow(1010));
  CHECK_FALSE(b.allow(1011));
  // The probe fails: another cooldown.
  b.on_failure(1100);
  CHECK_FALSE(b.allow(1500));
  CHECK(b.allow(2100));
  // An abandoned probe frees the slot for another.
  b.on_abandoned();
  CHECK(b.allow(2101));
  b.on_success();
  CHECK(b.current(2101) == circuit_breaker::state::closed);
  CHECK(b.allow(2101));
  CHECK(b.allow(2101));
  CHECK(b.times_opened() == 1);
}
