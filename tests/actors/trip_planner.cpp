// TRIP_PLANNER on the deterministic scheduler: the parallel fan-out (D12),
// the sequential switch, labels, and failures.

#include "transitd/actors/trip_planner.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>

#include "support/deterministic.hpp"
#include "support/stand_ins.hpp"

using namespace transitd;

namespace {

constexpr int64_t t0 = 1757930400;

trip_leg ride(std::string line, std::optional<int64_t> delay, bool cancel) {
  trip_leg l;
  l.mode = transit_mode::bus;
  l.transit = true;
  l.line = std::move(line);
  l.scheduled_start = t0 + 600;
  l.scheduled_end = t0 + 1500;
  if (delay) {
    l.realtime_start = l.scheduled_start + *delay;
    l.realtime_end = l.scheduled_end + *delay;
  }
  l.cancelled = cancel;
  l.from.stop_id = "HSL:1";
  l.to.stop_id = "HSL:2";
  return l;
}

/// Which queries the stand-in answers with no itinerary.
enum class blank { none, both, primary };

/// What the stand-in planner saw.
struct planner_log {
  std::vector<trip_plan_query> queries;
  /// The correlation ids it was told to cancel.
  std::vector<std::string> cancels;
  /// Most queries waiting for an answer at the same time.
  std::size_t max_overlap = 0;
};

/// Where the stand-ins place a stop: "HSL:..." ids near the Helsinki
/// centre (one per id), any other unknown.
caf::result<stop_place> scripted_stop(const stop_lookup& q) {
  if (q.stop_id.rfind("HSL:", 0) != 0)
    return make_error(ec::validation_error,
                      "stop \"" + q.stop_id + "\" belongs to no provider");
  auto shift = static_cast<double>(q.stop_id.size() % 7) / 100.0;
  return stop_place{q.stop_id, "Stop " + q.stop_id.substr(4),
                    {60.17 + shift, 24.94}, "Europe/Helsinki"};
}

struct scripted_planner_state {
  static inline const char* name = "scripted_planner";
  std::vector<std::pair<trip_plan_query,
                        caf::typed_response_promise<trip_plans>>>
    waiting;
};

/// A JOURNEY_PLANNER stand-in. It holds every query until `hold` of them are
/// waiting, then answers them all: with hold = 2 it answers only if the
/// planner asked both questions before seeing any answer. Line 550 is
/// disrupted as `disruption` says; the walkier tram 7 comes back only to
/// the relaxed query (lower walk reluctance); `empty` blanks the answers.
journey_planner_actor::behavior_type scripted_planner(
  journey_planner_actor::stateful_pointer<scripted_planner_state> self,
  std::shared_ptr<planner_log> log, std::size_t hold, std::string disruption,
  blank empty) {
  return {
    [=](const trip_plan_query& q) -> caf::result<trip_plans> {
      log->queries.push_back(q);
      auto rp = self->make_response_promise<trip_plans>();
      self->state.waiting.emplace_back(q, rp);
      log->max_overlap = std::max(log->max_overlap,
                                  self->state.waiting.size());
      if (self->state.waiting.size() < hold)
        return rp;
      for (auto& [query, promise] : self->state.waiting) {
        trip_plans answer;
        answer.fetched_ms = t0 * 1000;
        bool relaxed = query.walk_reluctance < 2.0;
        if (empty == blank::none || (empty == blank::primary && relaxed)) {
          itinerary bus;
          bus.legs.push_back(ride("550",
                                  disruption == "delay" ? 420 : 20,
                                  disruption == "cancel"));
          answer.itineraries.push_back(bus);
          if (relaxed) {
            itinerary tram;
            tram.walk_distance = 1700;
            tram.legs.push_back(ride("7", std::nullopt, false));
            answer.itineraries.push_back(tram);
          }
        }
        promise.deliver(answer);
      }
      self->state.waiting.clear();
      return rp;
    },
    [=](const cancel_call& cancel) { log->cancels.push_back(cancel.correlation_id); },
    [=](const stop_lookup& q) -> caf::result<stop_place> {
      return scripted_stop(q);
    },
  };
}

struct hanging_relaxed_state {
  static inline const char* name = "hanging_relaxed";
  std::vector<caf::typed_response_promise<trip_plans>> held;
};

/// A JOURNEY_PLANNER stand-in that answers the primary query at once
/// (line 550, `delay` seconds late) and never the relaxed one (lower walk
/// reluctance) until it is cancelled: then it fails it as `cancelled`, as
/// the upstream gate does.
journey_planner_actor::behavior_type hanging_relaxed(
  journey_planner_actor::stateful_pointer<hanging_relaxed_state> self,
  std::shared_ptr<planner_log> log, int64_t delay) {
  return {
    [=](const trip_plan_query& q) -> caf::result<trip_plans> {
      log->queries.push_back(q);
      if (q.walk_reluctance < 2.0) {
        auto rp = self->make_response_promise<trip_plans>();
        self->state.held.push_back(rp);
        return rp;
      }
      trip_plans answer;
      answer.fetched_ms = t0 * 1000;
      itinerary bus;
      bus.legs.push_back(ride("550", delay, false));
      answer.itineraries.push_back(bus);
      return answer;
    },
    [=](const cancel_call& cancel) {
      log->cancels.push_back(cancel.correlation_id);
      for (auto& rp : self->state.held)
        rp.deliver(make_error(ec::cancelled, "the call was cancelled"));
      self->state.held.clear();
    },
    [=](const stop_lookup& q) -> caf::result<stop_place> {
      return scripted_stop(q);
    },
  };
}

plan_trip_request request() {
  plan_trip_request r;
  r.context.correlation_id = "cid";
  r.context.received_ms = t0 * 1000;
  r.origin.position = {60.1699, 24.9384};
  r.destination.position = {60.2055, 24.6559};
  r.limit = 3;
  return r;
}

struct fixture : test::deterministic_fixture {
  std::shared_ptr<planner_log> log = std::make_shared<planner_log>();

  trip_planner_actor planner(std::size_t hold, std::string disruption,
                             bool speculative = true,
                             blank empty = blank::none) {
    trip_planner_options options;
    options.speculative_relax = speculative;
    auto upstream = sys.spawn(scripted_planner, log, hold, disruption, empty);
    return sys.spawn(trip_planner, upstream, sys.spawn(test::label_store), options);
  }

  caf::expected<plan_trip_reply> ask(const trip_planner_actor& p,
                                     plan_trip_request r) {
    self->send(p, std::move(r));
    sched.run();
    caf::expected<plan_trip_reply> out{caf::error{}};
    self->receive([&](plan_trip_reply& reply) { out = std::move(reply); },
                  [&](caf::error& err) { out = std::move(err); });
    return out;
  }
};

} // namespace

TEST_CASE_METHOD(fixture,
                 "disruption triggers the alternative search, in parallel",
                 "[plan_trip][contract][actor][fanout]") {
  // hold = 2: the stand-in answers only once both queries are waiting, so
  // an answer proves the relaxed query went out before the primary answer.
  auto reply = ask(planner(2, "delay"), request());
  REQUIRE(reply);
  CHECK(log->queries.size() == 2);
  CHECK(log->max_overlap == 2);
  REQUIRE(reply->itineraries.size() == 2);
  CHECK(reply->itineraries[0].legs[0].line == std::optional<std::string>{"7"});
  CHECK(reply->itineraries[0].disruption_alternative);
  CHECK_FALSE(reply->itineraries[1].disruption_alternative);
  // The bus came back from both queries: deduplicated.
  CHECK(reply->deduplicated_from == 3);
}

TEST_CASE_METHOD(fixture, "a healthy primary answer ignores the alternative",
                 "[plan_trip][actor][fanout]") {
  auto reply = ask(planner(2, "none"), request());
  REQUIRE(reply);
  CHECK(log->queries.size() == 2); // asked speculatively...
  REQUIRE(reply->itineraries.size() == 1); // ...but not merged
  CHECK_FALSE(reply->itineraries[0].disruption_alternative);
  CHECK(reply->deduplicated_from == 0);
}

TEST_CASE_METHOD(fixture, "the sequential switch relaxes only after a "
                          "disrupted answer",
                 "[plan_trip][actor][fanout]") {
  auto healthy = ask(planner(1, "none", false), request());
  REQUIRE(healthy);
  CHECK(log->queries.size() == 1);
  log->queries.clear();
  log->max_overlap = 0;
  auto disrupted = ask(planner(1, "cancel", false), request());
  REQUIRE(disrupted);
  CHECK(log->queries.size() == 2);
  CHECK(log->max_overlap == 1); // one after the other
  CHECK(disrupted->itineraries[0].disruption_alternative);
  CHECK(disrupted->itineraries[1].legs[0].cancelled);
}

TEST_CASE_METHOD(fixture, "includeDisruptionAlt false sends one query",
                 "[plan_trip][actor]") {
  auto r = request();
  r.include_disruption_alt = false;
  auto reply = ask(planner(1, "delay"), r);
  REQUIRE(reply);
  CHECK(log->queries.size() == 1);
  CHECK(reply->itineraries.size() == 1);
}

TEST_CASE_METHOD(fixture, "no itinerary even after the relaxed search",
                 "[plan_trip][contract][actor]") {
  auto reply = ask(planner(2, "none", true, blank::both), request());
  REQUIRE_FALSE(reply);
  auto f = to_failure(reply.error());
  CHECK(f.code == ec::no_itinerary_found);
  CHECK_FALSE(f.hint.empty());
  CHECK(log->queries.size() == 2);
}

TEST_CASE_METHOD(fixture,
                 "an empty primary answer takes the relaxed itineraries (D12)",
                 "[plan_trip][contract][actor][fanout]") {
  SECTION("in parallel") {
    auto reply = ask(planner(2, "none", true, blank::primary), request());
    REQUIRE(reply);
    CHECK(log->max_overlap == 2);
    REQUIRE(reply->itineraries.size() == 2);
    for (const auto& it : reply->itineraries)
      CHECK(it.disruption_alternative);
  }
  SECTION("in sequence") {
    auto reply = ask(planner(1, "none", false, blank::primary), request());
    REQUIRE(reply);
    CHECK(log->queries.size() == 2);
    CHECK(log->max_overlap == 1);
    CHECK(reply->itineraries.size() == 2);
  }
}

TEST_CASE_METHOD(fixture, "labels resolve before planning",
                 "[plan_trip][actor][labels]") {
  auto r = request();
  r.destination.type = location_input::kind::label;
  r.destination.label = "home";
  auto reply = ask(planner(2, "none"), r);
  REQUIRE(reply);
  CHECK(reply->destination.label == std::optional<std::string>{"home"});
  CHECK(reply->destination.name == std::optional<std::string>{"Home"});
  CHECK(reply->destination.address
        == std::optional<std::string>{"Kotikatu 1"});
  CHECK(reply->destination.raw_source == "variable");
  CHECK(log->queries.at(0).to.lat == Approx(60.2055));
  // An unknown label.
  for (std::string label : {"nowhere"}) {
    auto bad = request();
    bad.origin.type = location_input::kind::label;
    bad.origin.label = label;
    auto failed = ask(planner(2, "none"), bad);
    REQUIRE_FALSE(failed);
    auto f = to_failure(failed.error());
    CHECK(f.code == ec::validation_error);
    CHECK_THAT(f.message, Catch::Contains(label));
  }
}

TEST_CASE_METHOD(fixture,
                 "a stop is a trip end: given by id or by a saved stop (D21)",
                 "[plan_trip][actor][labels][stops]") {
  auto r = request();
  r.origin.type = location_input::kind::stop;
  r.origin.stop_id = "HSL:1040129";
  r.destination.type = location_input::kind::label;
  r.destination.label = "work"; // a saved stop: HSL:2222
  auto reply = ask(planner(2, "none"), r);
  REQUIRE(reply);
  // The LocationRefs name the stops, where their provider places them.
  CHECK(reply->origin.stop_id == std::optional<std::string>{"HSL:1040129"});
  CHECK(reply->origin.name == std::optional<std::string>{"Stop 1040129"});
  CHECK(reply->origin.raw_source == "input");
  CHECK(reply->origin.position.lat == Approx(60.17 + 0.04));
  CHECK(reply->destination.stop_id == std::optional<std::string>{"HSL:2222"});
  CHECK(reply->destination.label == std::optional<std::string>{"work"});
  CHECK(reply->destination.raw_source == "variable");
  // Both queries carry the stops for the router to board at.
  REQUIRE(log->queries.size() == 2);
  for (const auto& q : log->queries) {
    CHECK(q.from_stop == "HSL:1040129");
    CHECK(q.to_stop == "HSL:2222");
    CHECK(q.from.lat == Approx(60.21));
  }
  // An id no provider serves fails as the provider says, naming it.
  auto bad = request();
  bad.destination.type = location_input::kind::stop;
  bad.destination.stop_id = "tfl:940GZZLUOXC";
  auto failed = ask(planner(2, "none"), bad);
  REQUIRE_FALSE(failed);
  CHECK(to_failure(failed.error()).code == ec::validation_error);
  CHECK_THAT(to_failure(failed.error()).message,
             Catch::Contains("tfl:940GZZLUOXC"));
  // An empty id is refused before anything is asked.
  auto empty = request();
  empty.origin.type = location_input::kind::stop;
  log->queries.clear();
  auto refused = ask(planner(2, "none"), empty);
  REQUIRE_FALSE(refused);
  CHECK_THAT(to_failure(refused.error()).message,
             Catch::Contains("origin.stop_id"));
  CHECK(log->queries.empty());
}

TEST_CASE_METHOD(fixture, "region and same-place rules run after labels",
                 "[plan_trip][actor]") {
  auto r = request();
  r.destination.position = {61.4978, 23.7610}; // Tampere
  auto far = ask(planner(2, "none"), r);
  REQUIRE_FALSE(far);
  CHECK(to_failure(far.error()).code == ec::unsupported_region);
  r = request();
  r.destination.position = r.origin.position;
  auto same = ask(planner(2, "none"), r);
  REQUIRE_FALSE(same);
  CHECK(to_failure(same.error()).code == ec::validation_error);
  CHECK(log->queries.empty());
}

TEST_CASE_METHOD(fixture,
                 "a healthy primary answers at once and cancels the relaxed "
                 "query",
                 "[plan_trip][actor][fanout]") {
  trip_planner_options options;
  auto upstream = sys.spawn(hanging_relaxed, log, 20);
  auto p = sys.spawn(trip_planner, journey_planner_actor{upstream},
                     sys.spawn(test::label_store), options);
  // The relaxed query never answers: without the early answer the call
  // would wait for it (and end at its deadline).
  auto reply = ask(p, request());
  REQUIRE(reply);
  CHECK(log->queries.size() == 2);
  REQUIRE(reply->itineraries.size() == 1);
  CHECK(log->cancels == std::vector<std::string>{"cid:relaxed"});
  // The relaxed query went out under its own id, right after the primary:
  // a feed sees the search the answer waits for first (it takes the least
  // busy router; the speculative one only an idle one).
  REQUIRE(log->queries.size() == 2);
  CHECK(log->queries[0].context.correlation_id == "cid");
  CHECK(log->queries[1].context.correlation_id == "cid:relaxed");
}

TEST_CASE_METHOD(fixture,
                 "a disrupted primary waits for the relaxed answer",
                 "[plan_trip][actor][fanout]") {
  trip_planner_options options;
  auto upstream = sys.spawn(hanging_relaxed, log, 420);
  auto p = sys.spawn(trip_planner, journey_planner_actor{upstream},
                     sys.spawn(test::label_store), options);
  self->send(p, request());
  sched.run();
  // No reply while the relaxed query is out, and nothing cancelled.
  CHECK(self->mailbox().empty());
  CHECK(log->cancels.empty());
  // At the deadline the relaxed query times out: the primary answer stands.
  REQUIRE(sched.trigger_timeouts() > 0);
  sched.run();
  caf::expected<plan_trip_reply> out{caf::error{}};
  self->receive([&](plan_trip_reply& reply) { out = std::move(reply); },
                [&](caf::error& err) { out = std::move(err); });
  REQUIRE(out);
  CHECK(out->itineraries.size() == 1);
  // The held query would otherwise keep the stand-in alive forever.
  caf::anon_send_exit(upstream, caf::exit_reason::user_shutdown);
}
