// TIMETABLE_CACHE / GEOCODING_CACHE on the deterministic scheduler: TTL,
// single-flight, errors, freshness, cancellation.

#include "transitd/actors/provider_cache.hpp"

#include <memory>

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>

#include "support/deterministic.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

stop_departures answer(int64_t fetched_ms) {
  stop_departures a;
  a.stop_id = "HSL:1";
  a.fetched_ms = fetched_ms;
  return a;
}

/// A TIMETABLE that holds every query until the test answers it.
struct upstream_log {
  std::vector<stop_departures_query> departures;
  std::vector<caf::typed_response_promise<stop_departures>> pending;
  int stops = 0;
};

struct timetable_state {
  std::shared_ptr<upstream_log> log;
};

timetable_actor::behavior_type
held_timetable(timetable_actor::stateful_pointer<timetable_state> self,
               std::shared_ptr<upstream_log> log) {
  self->state.log = log;
  return {
    [self](const stop_departures_query& q) {
      self->state.log->departures.push_back(q);
      auto rp = self->make_response_promise<stop_departures>();
      self->state.log->pending.push_back(rp);
      return rp;
    },
    [self](const nearby_stops_query& q) {
      // The test's release of a held query, run inside this actor: radius
      // picks the query, max_results is its fetched_ms (-1: an error).
      if (q.context.correlation_id == "release") {
        auto& rp = self->state.log->pending.at(static_cast<std::size_t>(q.radius));
        if (q.max_results < 0)
          rp.deliver(make_error(ec::upstream_error, "boom"));
        else
          rp.deliver(answer(q.max_results));
        return nearby_stops{};
      }
      ++self->state.log->stops;
      return nearby_stops{{}, 42};
    },
  };
}

cancel_listener_actor::behavior_type
cancel_log(std::shared_ptr<std::vector<std::string>> out) {
  return {[out](const cancel_call& c) { out->push_back(c.correlation_id); }};
}

struct cache_fixture : test::deterministic_fixture {
  std::shared_ptr<upstream_log> log = std::make_shared<upstream_log>();
  std::shared_ptr<std::vector<std::string>> cancels
    = std::make_shared<std::vector<std::string>>();

  timetable_cache_actor spawn(int64_t ttl_ms = 15000) {
    provider_cache_options o;
    o.name = "timetable";
    o.departures_ttl_ms = ttl_ms;
    o.upstream_cancel = {sys.spawn(cancel_log, cancels)};
    timetable = sys.spawn(held_timetable, log);
    return spawn_timetable_cache(sys, timetable, o);
  }

  static stop_departures_query query(std::string cid, int64_t start = 1000) {
    stop_departures_query q;
    q.context.correlation_id = std::move(cid);
    q.stop_id = "HSL:1";
    q.start_time = start;
    q.time_range_seconds = 1800;
    return q;
  }

  /// Answers held query `index` with `fetched_ms` (-1: an upstream error).
  void release(int index, int fetched_ms) {
    nearby_stops_query q;
    q.context.correlation_id = "release";
    q.radius = index;
    q.max_results = fetched_ms;
    self->send(timetable, q);
    sched.run();
    self->receive([](nearby_stops&) {});
  }

  ~cache_fixture() {
    log->pending.clear();
  }

  timetable_actor timetable;

  caf::expected<stop_departures> result() {
    caf::expected<stop_departures> out{caf::error{}};
    self->receive([&](stop_departures& r) { out = std::move(r); },
                  [&](caf::error& e) { out = std::move(e); });
    return out;
  }
};

} // namespace

TEST_CASE_METHOD(cache_fixture, "cache: identical queries in flight share one "
                                "upstream call",
                 "[cache][actor][single_flight]") {
  auto cache = spawn();
  for (int i = 0; i < 100; ++i)
    self->send(cache, query("c" + std::to_string(i)));
  sched.run();
  REQUIRE(log->departures.size() == 1);
  // The shared call carries its first caller's id, marked as shared, and
  // asks for the window widened by the TTL.
  CHECK(log->departures[0].context.correlation_id == "c0:shared");
  CHECK(log->departures[0].time_range_seconds == 1800 + 15);
  release(0, 777);
  for (int i = 0; i < 100; ++i) {
    auto r = result();
    REQUIRE(r);
    CHECK(r->fetched_ms == 777);
  }
}

TEST_CASE_METHOD(cache_fixture, "cache: a hit within the TTL keeps the "
                                "upstream time; expiry asks again",
                 "[cache][actor][ttl]") {
  auto cache = spawn(15000);
  self->send(cache, query("a"));
  sched.run();
  release(0, 1111);
  CHECK(result()->fetched_ms == 1111);
  // 10 s later (virtual), a caller whose window starts 10 s later is still
  // covered: served from memory with the original freshness.
  sched.advance_time(10s);
  self->send(cache, query("b", 1010));
  sched.run();
  CHECK(log->departures.size() == 1);
  CHECK(result()->fetched_ms == 1111);
  // A different stop is a different key.
  auto other = query("c");
  other.stop_id = "HSL:2";
  self->send(cache, other);
  sched.run();
  CHECK(log->departures.size() == 2);
  release(1, 2222);
  CHECK(result()->fetched_ms == 2222);
  // After the TTL the entry is gone.
  sched.advance_time(5s);
  self->send(cache, query("d", 1015));
  sched.run();
  CHECK(log->departures.size() == 3);
  release(2, 3333);
  CHECK(result()->fetched_ms == 3333);
  self->send(cache, get_counters{});
  sched.run();
  self->receive([](counters& c) {
    for (const auto& [name, value] : c.values) {
      if (name == "timetable.departures.hits")
        CHECK(value == 1);
      if (name == "timetable.departures.misses")
        CHECK(value == 3);
    }
  });
}

TEST_CASE_METHOD(cache_fixture, "cache: every hit answers with the one "
                                "stored answer, shared, not a copy",
                 "[cache][actor][ttl]") {
  auto cache = spawn(15000);
  self->send(cache, query("a"));
  sched.run();
  release(0, 1111);
  CHECK(result()->fetched_ms == 1111);
  // Three hits answered before any is read: a copy per hit would give
  // three answers alive at once, at three addresses. Read in place
  // (const), they lie at one, the entry's.
  for (const auto* cid : {"b", "c", "d"})
    self->send(cache, query(cid));
  sched.run();
  std::vector<const stop_departures*> seen;
  for (int i = 0; i < 3; ++i) {
    self->receive(
      [&](const stop_departures& r) {
        CHECK(r.fetched_ms == 1111);
        seen.push_back(&r);
      },
      [&](caf::error& e) { FAIL(caf::to_string(e)); });
  }
  REQUIRE(seen.size() == 3);
  CHECK(seen[0] == seen[1]);
  CHECK(seen[1] == seen[2]);
  CHECK(log->departures.size() == 1);
}

TEST_CASE_METHOD(cache_fixture, "cache: errors reach every waiter and are "
                                "not stored",
                 "[cache][actor]") {
  auto cache = spawn();
  self->send(cache, query("a"));
  self->send(cache, query("b"));
  sched.run();
  release(0, -1);
  for (int i = 0; i < 2; ++i) {
    auto r = result();
    REQUIRE_FALSE(r);
    CHECK(to_failure(r.error()).code == ec::upstream_error);
  }
  self->send(cache, query("c"));
  sched.run();
  CHECK(log->departures.size() == 2);
}

TEST_CASE_METHOD(cache_fixture, "cache: cancelling one waiter keeps the shared "
                                "call; cancelling the last aborts it",
                 "[cache][actor][cancel]") {
  auto cache = spawn();
  self->send(cache, query("a"));
  self->send(cache, query("b"));
  sched.run();
  self->send(cache, cancel_call{"a"});
  sched.run();
  auto a = result();
  REQUIRE_FALSE(a);
  CHECK(to_failure(a.error()).code == ec::cancelled);
  CHECK(cancels->empty());
  self->send(cache, cancel_call{"b"});
  sched.run();
  CHECK(to_failure(result().error()).code == ec::cancelled);
  REQUIRE(cancels->size() == 1);
  CHECK(cancels->front() == "a:shared");
  // The aborted call ends in an error that reaches nobody; the next query
  // starts a new call.
  release(0, -1);
  self->send(cache, query("c"));
  sched.run();
  CHECK(log->departures.size() == 2);
}

TEST_CASE("cache keys ignore the call context; departures windows cover",
          "[cache]") {
  stop_departures_query a;
  a.context.correlation_id = "x";
  a.stop_id = "HSL:1";
  a.start_time = 100;
  auto b = a;
  b.context.correlation_id = "y";
  b.start_time = 200;
  CHECK(cache_key(a) == cache_key(b));
  b.language = "fi";
  CHECK(cache_key(a) != cache_key(b));
  auto wide = widen(a, 15000);
  CHECK(wide.time_range_seconds == a.time_range_seconds + 15);
  auto later = a;
  later.start_time = a.start_time + 15;
  CHECK(covers(wide, later));
  later.start_time = a.start_time + 16;
  CHECK_FALSE(covers(wide, later));
  geocode_query g;
  g.text = "kamppi";
  auto h = g;
  h.context.principal = "someone else";
  CHECK(cache_key(g) == cache_key(h));
}
