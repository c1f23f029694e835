// UPSTREAM_GATE on the deterministic scheduler with scripted workers:
// retries, the breaker, 429 hold-offs, outbound limits, queueing, cancel.

#include "transitd/actors/upstream_gate.hpp"

#include <deque>
#include <memory>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>
#include <httplib.h>

#include "transitd/actors/http_client.hpp"
#include "transitd/actors/rate_limiter.hpp"
#include "transitd/messages/time.hpp"
#include "support/deterministic.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

struct step {
  step(int status_ = 200, std::string retry_after_ = {},
       ec failure_ = ec::none)
    : status(status_), retry_after(std::move(retry_after_)),
      failure(failure_) {
  }
  int status;
  std::string retry_after;
  ec failure;
};

/// What a scripted worker answers, in order, and what it was asked.
struct script {
  std::deque<step> steps;
  std::vector<http_call> seen;
  /// Promises of a worker that answers only when the test says so.
  std::vector<caf::typed_response_promise<http_response>> held;
};

struct worker_state {
  std::shared_ptr<script> s;
};

http_client_actor::behavior_type
scripted_worker(http_client_actor::stateful_pointer<worker_state> self,
                std::shared_ptr<script> s, bool manual) {
  self->state.s = s;
  return {
    [self, manual](const http_call& call) -> caf::result<http_response> {
      auto& s = *self->state.s;
      if (manual && call.target == "/release") {
        // The test releases the held attempt (from inside the actor).
        http_response late;
        late.status = 200;
        s.held.front().deliver(late);
        s.held.erase(s.held.begin());
        return late;
      }
      s.seen.push_back(call);
      if (manual) {
        auto rp = self->make_response_promise<http_response>();
        s.held.push_back(rp);
        return rp;
      }
      auto next = s.steps.empty() ? step{} : s.steps.front();
      if (!s.steps.empty())
        s.steps.pop_front();
      if (next.failure != ec::none)
        return make_error(next.failure, "scripted failure");
      http_response r;
      r.status = next.status;
      r.retry_after = next.retry_after;
      r.received_ms = now_ms();
      return r;
    },
  };
}

struct gate_fixture : test::deterministic_fixture {
  std::shared_ptr<script> s = std::make_shared<script>();

  upstream_gate_actor spawn(upstream_gate_options options,
                            std::vector<rate_limit> limits = {},
                            std::size_t workers = 1, bool manual = false) {
    options.name = "u";
    options.retry.base_ms = 100;
    limiter = sys.spawn(rate_limiter, std::move(limits));
    std::vector<http_worker> pool;
    for (std::size_t i = 0; i < workers; ++i) {
      aborts.push_back(std::make_shared<http_abort>());
      pool.push_back({sys.spawn(scripted_worker, s, manual), aborts.back()});
    }
    first_worker = pool.front().actor;
    return sys.spawn(upstream_gate, options, limiter, pool);
  }

  /// Runs messages and lets virtual time pass (backoffs, hold-offs).
  void settle(std::chrono::milliseconds step = 100ms, int rounds = 30) {
    for (int i = 0; i < rounds; ++i) {
      sched.run();
      sched.advance_time(step);
    }
    sched.run();
  }

  caf::expected<http_response> result() {
    caf::expected<http_response> out{caf::error{}};
    self->receive([&](http_response& r) { out = std::move(r); },
                  [&](caf::error& e) { out = std::move(e); });
    return out;
  }

  static http_call call(std::string cid = "c", int64_t deadline_ms = 0,
                        std::string target = "/x") {
    http_call c;
    c.context.correlation_id = std::move(cid);
    c.context.deadline_ms = deadline_ms;
    c.origin = "http://upstream";
    c.target = std::move(target);
    c.timeout_ms = 1000;
    return c;
  }

  ~gate_fixture() {
    // Held promises point back at their worker: break the cycle.
    s->held.clear();
  }

  rate_limiter_actor limiter;
  http_client_actor first_worker;
  std::vector<std::shared_ptr<http_abort>> aborts;
};

} // namespace

TEST_CASE_METHOD(gate_fixture, "gate: 5xx and refused connections are "
                               "retried with backoff until success",
                 "[upstream_gate][actor][retry]") {
  s->steps = {{503}, {0, "", ec::network_error}, {200}};
  upstream_gate_options o;
  o.retry.max_attempts = 3;
  auto gate = spawn(o);
  self->send(gate, call());
  settle();
  auto r = result();
  REQUIRE(r);
  CHECK(r->status == 200);
  CHECK(r->attempts == 3);
  CHECK(s->seen.size() == 3);
}

TEST_CASE_METHOD(gate_fixture, "gate: the attempt cap ends retries with the "
                               "last failure",
                 "[upstream_gate][actor][retry]") {
  s->steps = {{503}, {503}, {503}, {200}};
  upstream_gate_options o;
  o.retry.max_attempts = 2;
  auto gate = spawn(o);
  self->send(gate, call());
  settle();
  auto r = result();
  REQUIRE(r);
  CHECK(r->status == 503);
  CHECK(s->seen.size() == 2);
  // A 4xx other than 429 is an answer, never retried.
  s->steps = {{404}};
  self->send(gate, call());
  settle();
  CHECK(result()->status == 404);
  CHECK(s->seen.size() == 3);
}

TEST_CASE_METHOD(gate_fixture, "gate: the breaker opens, fails fast with a "
                               "hint, and closes after a good probe",
                 "[upstream_gate][actor][breaker]") {
  s->steps = {{503}, {0, "", ec::upstream_timeout}, {200}};
  upstream_gate_options o;
  o.retry.max_attempts = 1;
  o.breaker.min_calls = 2;
  o.breaker.cooldown_ms = 1000;
  auto gate = spawn(o);
  self->send(gate, call("a", 0, "/a"));
  sched.run();
  CHECK(result()->status == 503);
  self->send(gate, call("b", 0, "/b"));
  sched.run();
  auto timed_out = result();
  REQUIRE_FALSE(timed_out);
  CHECK(to_failure(timed_out.error()).code == ec::upstream_timeout);
  // Two distinct calls, both failed: open, no request goes out.
  self->send(gate, call("c", 0, "/c"));
  sched.run();
  auto fast = result();
  REQUIRE_FALSE(fast);
  auto f = to_failure(fast.error());
  CHECK(f.code == ec::upstream_error);
  CHECK_THAT(f.message, Catch::Contains("failing"));
  CHECK_THAT(f.hint, Catch::Contains("retry in about 1 s"));
  CHECK(s->seen.size() == 2);
  // After the cooldown one probe goes out; its success closes the breaker.
  sched.advance_time(1000ms);
  self->send(gate, call("d", 0, "/d"));
  sched.run();
  CHECK(result()->status == 200);
  CHECK(s->seen.size() == 3);
  self->send(gate, get_counters{});
  sched.run();
  self->receive([](counters& c) {
    for (const auto& [name, value] : c.values) {
      if (name == "u.breaker_opened")
        CHECK(value == 1);
      if (name == "u.breaker_open")
        CHECK(value == 0);
      if (name == "u.rejected_breaker_open")
        CHECK(value == 1);
    }
  });
}

TEST_CASE_METHOD(gate_fixture, "gate: one poisoned query, with its retries, "
                               "its relaxed form and its repeats, never makes "
                               "other calls fail fast",
                 "[upstream_gate][actor][breaker]") {
  upstream_gate_options o;
  o.retry.max_attempts = 3;
  o.breaker.min_calls = 3;
  o.breaker.failure_rate_percent = 50;
  o.breaker.cooldown_ms = 10'000;
  auto gate = spawn(o);
  // The poisoned plan query: three attempts, then its relaxed query with
  // three more, then the same query again from another agent, five times.
  s->steps.assign(9 + 15, step{502});
  self->send(gate, call("plan-1", 0, "/poisoned"));
  settle();
  CHECK(result()->status == 502);
  self->send(gate, call("plan-1:relaxed", 0, "/poisoned-relaxed"));
  settle();
  CHECK(result()->status == 502);
  for (int i = 0; i < 5; ++i) {
    self->send(gate, call("other-" + std::to_string(i), 0, "/poisoned"));
    settle();
    CHECK(result()->status == 502);
  }
  // 21 failed attempts, yet one failed call: the next distinct calls go out.
  CHECK(s->seen.size() == 21);
  s->steps.clear();
  for (int i = 0; i < 3; ++i) {
    self->send(gate, call("good-" + std::to_string(i), 0,
                          "/stop/" + std::to_string(i)));
    settle();
    CHECK(result()->status == 200);
  }
  CHECK(s->seen.size() == 24);
  self->send(gate, get_counters{});
  sched.run();
  self->receive([](counters& c) {
    for (const auto& [name, value] : c.values) {
      if (name == "u.breaker_opened")
        CHECK(value == 0);
      if (name == "u.breaker_window_calls")
        CHECK(value == 4);
      if (name == "u.breaker_window_failures")
        CHECK(value == 1);
    }
  });
}

TEST_CASE_METHOD(gate_fixture, "gate: a 429 holds every call back for its "
                               "Retry-After, then retries",
                 "[upstream_gate][actor][rate_limit]") {
  s->steps = {{429, "2"}, {200}, {200}};
  auto gate = spawn({}, {}, 2);
  self->send(gate, call("first"));
  sched.run();
  CHECK(s->seen.size() == 1);
  // Another call during the hold-off waits too: nothing goes out.
  self->send(gate, call("second"));
  sched.run();
  sched.advance_time(1900ms);
  sched.run();
  CHECK(s->seen.size() == 1);
  sched.advance_time(200ms);
  settle(10ms, 5);
  CHECK(s->seen.size() == 3);
  auto a = result();
  auto b = result();
  REQUIRE(a);
  REQUIRE(b);
  CHECK(a->status == 200);
  CHECK(b->status == 200);
}

TEST_CASE_METHOD(gate_fixture, "gate: a Retry-After past the deadline answers "
                               "the 429 at once",
                 "[upstream_gate][actor][rate_limit]") {
  s->steps = {{429, "30"}, {200}};
  auto gate = spawn({});
  self->send(gate, call("c", now_ms() + 3000));
  sched.run();
  auto r = result();
  REQUIRE(r);
  CHECK(r->status == 429);
  CHECK(r->retry_after == "30");
  CHECK(s->seen.size() == 1);
}

TEST_CASE_METHOD(gate_fixture, "gate: the outbound limit never lets more "
                               "requests out than the quota",
                 "[upstream_gate][actor][rate_limit]") {
  auto gate = spawn({}, {{"upstream:u", 2, 2}}, 4);
  for (int i = 0; i < 5; ++i)
    self->send(gate, call("c" + std::to_string(i), now_ms() + 400));
  sched.run();
  // Two tokens: two requests; the rest cannot get one before the deadline.
  CHECK(s->seen.size() == 2);
  int limited = 0;
  for (int i = 0; i < 5; ++i) {
    auto r = result();
    if (!r) {
      auto f = to_failure(r.error());
      CHECK(f.code == ec::rate_limited);
      CHECK(f.retry_after == 1);
      ++limited;
    }
  }
  CHECK(limited == 3);
}

TEST_CASE_METHOD(gate_fixture, "gate: calls queue for a free worker; a "
                               "cancelled call ends, queued or in flight",
                 "[upstream_gate][actor][cancel]") {
  auto gate = spawn({}, {}, 1, true);
  self->send(gate, call("a"));
  self->send(gate, call("b"));
  sched.run();
  REQUIRE(s->seen.size() == 1); // one worker: b waits
  self->send(gate, cancel_call{"b"});
  sched.run();
  auto b = result();
  REQUIRE_FALSE(b);
  CHECK(to_failure(b.error()).code == ec::cancelled);
  self->send(gate, cancel_call{"a"});
  sched.run();
  // The worker's attempt ends (aborted); a is answered as cancelled, not
  // with the response that came too late.
  auto release = call("release");
  release.target = "/release";
  self->send(first_worker, release);
  sched.run();
  REQUIRE(result()); // the release's own reply
  auto a = result();
  REQUIRE_FALSE(a);
  CHECK(to_failure(a.error()).code == ec::cancelled);
  // The worker is free again; b never went out.
  self->send(gate, call("c"));
  sched.run();
  CHECK(s->seen.size() == 2);
  CHECK(s->seen.back().context.correlation_id == "c");
  self->send(first_worker, release);
  sched.run();
  CHECK(result()); // the release's reply
  CHECK(result()->status == 200); // c
}

TEST_CASE_METHOD(gate_fixture, "gate: a worker stuck past its attempt's "
                               "guard is aborted, and the call answered",
                 "[upstream_gate][actor][timeout]") {
  upstream_gate_options o;
  o.retry.max_attempts = 1;
  auto gate = spawn(o, {}, 1, true); // the worker never answers by itself
  // The worker is inside a request (a client no test server answers).
  httplib::Client stuck{"http://127.0.0.1:9"};
  aborts.front()->begin(&stuck);
  self->send(gate, call());
  settle(100ms, 25); // 2.5 s: the 1-s attempt's guard (+2 s) not yet fired
  CHECK(aborts.front()->aborted() == 0);
  CHECK(s->held.size() == 1);
  settle(100ms, 10); // past it
  CHECK(aborts.front()->aborted() == 1);
  auto r = result();
  REQUIRE_FALSE(r);
  CHECK(to_failure(r.error()).code == ec::upstream_timeout);
  aborts.front()->end();
}

TEST_CASE_METHOD(gate_fixture, "gate: admission is decided at once: calls "
                               "reserve the tokens due before their "
                               "deadline, the rest are refused at once",
                 "[upstream_gate][actor][rate_limit]") {
  // 2 requests a second, burst 1; calls with 1.3 s to their deadline.
  auto gate = spawn({}, {{upstream_key("u"), 2, 1, false}});
  auto deadline = now_ms() + 1300;
  for (int i = 0; i < 6; ++i)
    self->send(gate, call("c" + std::to_string(i), deadline,
                          "/x" + std::to_string(i)));
  sched.run();
  // Now: one request out; two more have tokens reserved (0.5 s, 1 s); the
  // last three were answered rate-limited without waiting.
  CHECK(s->seen.size() == 1);
  int limited = 0;
  int answered = 0;
  for (int i = 0; i < 4; ++i) {
    auto r = result();
    if (r) {
      ++answered;
    } else {
      auto f = to_failure(r.error());
      CHECK(f.code == ec::rate_limited);
      CHECK(f.retry_after >= 1);
      ++limited;
    }
  }
  CHECK(answered == 1);
  CHECK(limited == 3);
  settle(100ms, 12);
  CHECK(s->seen.size() == 3);
  CHECK(result()->status == 200);
  CHECK(result()->status == 200);
}
