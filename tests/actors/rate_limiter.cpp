// RATE_LIMITER: the token bucket, keyed limits with hold-offs, and the actor
// on virtual time.

#include "transitd/actors/rate_limiter.hpp"

#include <map>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>

#include "support/deterministic.hpp"

using namespace transitd;

TEST_CASE("the token bucket: burst, refill, wait", "[rate_limit]") {
  token_bucket bucket{2, 2};
  CHECK(bucket.try_take(1000) == 0);
  CHECK(bucket.try_take(1000) == 0);
  CHECK(bucket.try_take(1000) == 500); // one token at 2/s is 0.5 s away
  CHECK(bucket.try_take(1500) == 0);   // ... and back after 0.5 s
  CHECK(bucket.try_take(1500) > 0);
  CHECK(bucket.try_take(3000) == 0);
  CHECK(bucket.try_take(3000) == 0); // refilled to the burst, no more
  CHECK(bucket.try_take(3000) > 0);
  token_bucket slow{0.1, 1};
  CHECK(slow.try_take(0) == 0); // a clock starting at 0 works too
  CHECK(slow.try_take(0) == 10000);
  CHECK(slow.try_take(10000) == 0);
}

TEST_CASE("rate limits: unlimited keys, isolation, hold-offs",
          "[rate_limit]") {
  rate_limits limits{{{"tool:a", 1, 1}, {"tool:b", 1, 1}, {"tool:c", 0, 0}}};
  CHECK(limits.limited("tool:a"));
  CHECK_FALSE(limits.limited("tool:c")); // rate 0: unlimited
  CHECK_FALSE(limits.limited("tool:x"));
  CHECK(limits.acquire("tool:a", 0).granted);
  auto refused = limits.acquire("tool:a", 0);
  CHECK_FALSE(refused.granted);
  CHECK(refused.retry_after_ms == 1000);
  CHECK(limits.acquire("tool:b", 0).granted); // a's exhaustion is a's only
  for (int i = 0; i < 100; ++i)
    CHECK(limits.acquire("tool:x", 0).granted);
  // A hold-off (an upstream's Retry-After) refuses even unlimited keys and
  // does not spend tokens.
  limits.hold("upstream:u", 5000);
  auto held = limits.acquire("upstream:u", 1000);
  CHECK_FALSE(held.granted);
  CHECK(held.retry_after_ms == 4000);
  limits.hold("upstream:u", 2000); // never shortened
  CHECK(limits.acquire("upstream:u", 3000).retry_after_ms == 2000);
  CHECK(limits.acquire("upstream:u", 5000).granted);
  limits.hold("tool:b", 3000);
  CHECK_FALSE(limits.acquire("tool:b", 2500).granted);
  CHECK(limits.acquire("tool:b", 3000).granted); // the token was kept
  auto c = limits.snapshot();
  auto value = [&](const std::string& name) {
    for (const auto& [n, v] : c.values)
      if (n == name)
        return v;
    return int64_t{-1};
  };
  CHECK(value("tool:a.granted") == 1);
  CHECK(value("tool:a.refused") == 1);
  CHECK(value("upstream:u.refused") == 2);
}

TEST_CASE_METHOD(test::deterministic_fixture,
                 "RATE_LIMITER on virtual time: burst, refill, Retry-After",
                 "[rate_limit][actor]") {
  auto limiter = sys.spawn(rate_limiter,
                           std::vector<rate_limit>{{"tool:t", 2, 2}});
  auto ask = [&](const std::string& key) {
    permit out;
    self->send(limiter, acquire_permit{key});
    sched.run();
    self->receive([&](permit& p) { out = p; });
    return out;
  };
  CHECK(ask("tool:t").granted);
  CHECK(ask("tool:t").granted);
  auto third = ask("tool:t");
  CHECK_FALSE(third.granted);
  CHECK(third.retry_after_ms == 500);
  sched.advance_time(std::chrono::milliseconds{500});
  CHECK(ask("tool:t").granted);
  // An upstream's 429 with Retry-After: 3 holds the key for 3 s.
  self->send(limiter, hold_off{"upstream:u", 3000});
  sched.run();
  auto held = ask("upstream:u");
  CHECK_FALSE(held.granted);
  CHECK(held.retry_after_ms == 3000);
  sched.advance_time(std::chrono::milliseconds{2999});
  CHECK_FALSE(ask("upstream:u").granted);
  sched.advance_time(std::chrono::milliseconds{1});
  CHECK(ask("upstream:u").granted);
}

TEST_CASE("token bucket: reservations queue callers at the rate, and a "
          "caller that cannot wait is refused at once",
          "[rate_limit]") {
  token_bucket b{4, 1}; // a token every 250 ms
  CHECK(b.reserve(0, 0).granted); // the one in hand
  auto first = b.reserve(0, 1000);
  CHECK(first.granted);
  CHECK(first.wait_ms == 250);
  auto second = b.reserve(0, 1000);
  CHECK(second.granted);
  CHECK(second.wait_ms == 500);
  // Due in 750 ms: not within 600.
  auto refused = b.reserve(0, 600);
  CHECK_FALSE(refused.granted);
  CHECK(refused.retry_after_ms == 750);
  // Time pays the reservations back before anyone else takes a token.
  CHECK_FALSE(b.reserve(500, 0).granted);
  CHECK(b.reserve(750, 0).granted);
  rate_limits limits{{{"k", 4, 1, false}}};
  CHECK(limits.acquire("k", 0, 0).granted);
  auto waiting = limits.acquire("k", 0, 300);
  CHECK(waiting.granted);
  CHECK(waiting.wait_ms == 250);
}

TEST_CASE("principals' shares: each its own bucket under the whole limit, "
          "bounded in number and in metrics",
          "[rate_limit][share]") {
  rate_limit limit{"tool:t", 10, 10, false, 0.5};
  rate_limits limits{{limit}};
  // Alice floods: her share (5 a second) runs out, the rest is refused.
  int alice = 0;
  for (int i = 0; i < 100; ++i)
    if (limits.acquire(share_key("tool:t", "user:alice"), 0).granted)
      ++alice;
  CHECK(alice == 5);
  // Bob's share is untouched; a share of a limit kept here settles the
  // whole too (no second permit), and charges it.
  int bob = 0;
  for (int i = 0; i < 5; ++i) {
    auto p = limits.acquire(share_key("tool:t", "user:bob"), 0);
    CHECK(p.settled);
    if (p.granted)
      ++bob;
  }
  CHECK(bob == 5);
  CHECK_FALSE(limits.acquire("tool:t", 0).granted);
  // A key without a share template is not limited by name.
  CHECK(limits.acquire("tool:other@user:alice", 0).granted);
  // Metrics: the most refused principals by name, the rest summed.
  for (int p = 0; p < 30; ++p)
    for (int i = 0; i < 6 + p; ++i)
      limits.acquire(share_key("tool:t", "p" + std::to_string(p)), 0);
  auto c = limits.snapshot();
  int named = 0;
  int64_t others_refused = -1;
  for (const auto& [name, value] : c.values) {
    if (name.rfind("tool:t@", 0) == 0 && name.find(".refused") != std::string::npos) {
      if (name == "tool:t@others.refused")
        others_refused = value;
      else
        ++named;
    }
  }
  CHECK(named == static_cast<int>(rate_limits::top_principals));
  CHECK(others_refused > 0);
}

namespace {

/// One principal's asks in a simulated run: granted and asked.
struct tally {
  int granted = 0;
  int asked = 0;
};

} // namespace

TEST_CASE("principals' shares adapt: a flood by four leaves the fifth its "
          "share; a lone principal has the whole",
          "[rate_limit][share]") {
  // 10 a second in all; a principal may take all of it (100 %).
  rate_limits limits{{{"tool:t", 10, 10, false, 1.0}}};
  auto key = [](const std::string& who) { return share_key("tool:t", who); };
  const std::vector<std::string> flooders{"alice", "bob", "carol", "dan"};
  // Alice alone for 5 s, asking every 10 ms (ten times the limit): she has
  // the whole.
  tally alone;
  for (int64_t t = 0; t < 5000; t += 10) {
    auto p = limits.acquire(key("alice"), t);
    ++alone.asked;
    if (p.granted) {
      ++alone.granted;
    } else {
      CHECK(p.retry_after_ms >= 1);
    }
  }
  CHECK(alone.granted >= 10 + 49); // the burst, then the rate
  CHECK(alone.granted <= 10 + 50);
  // From 5 s, four flood and Eve asks at her fair share (10 / 5 = 2 a
  // second, every 500 ms) for 20 s.
  std::map<std::string, tally> runs;
  int64_t all_granted_in_second[30] = {};
  for (int64_t t = 5000; t < 25000; t += 10) {
    for (const auto& who : flooders) {
      auto p = limits.acquire(key(who), t);
      ++runs[who].asked;
      if (p.granted) {
        ++runs[who].granted;
        ++all_granted_in_second[t / 1000];
      }
    }
    if (t % 500 == 0) {
      auto p = limits.acquire(key("eve"), t);
      ++runs["eve"].asked;
      if (p.granted) {
        ++runs["eve"].granted;
        ++all_granted_in_second[t / 1000];
      }
    }
  }
  CHECK(limits.active_principals("tool:t", 25000) == 5);
  // Eve keeps at least 95 % of her share.
  CHECK(runs["eve"].asked == 40);
  CHECK(runs["eve"].granted >= 38);
  // The flooders are held to theirs (2 a second each, after the first
  // second's adjustment), and together with Eve never pass the limit by
  // more than the burst in a second.
  for (const auto& who : flooders) {
    CHECK(runs[who].granted <= 2 * 20 + 10);
    CHECK(runs[who].granted >= 2 * 19);
  }
  for (int second = 6; second < 25; ++second)
    CHECK(all_granted_in_second[second] <= 10 + 1);
  // They all go quiet; 10 s later Alice alone has the whole again.
  tally later;
  for (int64_t t = 36000; t < 40000; t += 10) {
    ++later.asked;
    if (limits.acquire(key("alice"), t).granted)
      ++later.granted;
  }
  CHECK(limits.active_principals("tool:t", 40000) == 1);
  CHECK(later.granted >= 4 * 10 - 1);
}

TEST_CASE("a share of a limit kept in Redis asks the whole too",
          "[rate_limit][share]") {
  rate_limits limits{{{"upstream:u", 10, 10, true, 1.0}}};
  auto p = limits.acquire(share_key("upstream:u", "alice"), 0);
  CHECK(p.granted);
  CHECK_FALSE(p.settled);
}
