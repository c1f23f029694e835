// The embedding API: a CAF application spawns the engine in its own actor
// system and calls tools with typed requests. No HTTP on our side (the mock
// upstream stands in for Digitransit).

#include "actors/engine.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>

#include "providers/mock/mock_upstream.hpp"

using namespace transitd;
using namespace std::chrono_literals;

TEST_CASE("spawn_engine serves get_departures without HTTP",
          "[engine][embedding]") {
  mock::mock_upstream upstream;
  upstream.start();
  {
    caf::actor_system_config cfg;
    cfg.set("scheduler.max-threads", size_t{2});
    add_message_types(cfg);
    caf::actor_system sys{cfg};
    engine_config config;
    config.digitransit_routing.url = upstream.routing_url();
    config.http_workers_per_upstream = 2;
    auto engine = spawn_engine(sys, config);
    {
      caf::scoped_actor self{sys};
      get_departures_request request;
      request.stop = {stop_ref::kind::id, "HSL:1040129"};
      request.limit = 5;
      bool answered = false;
      self->request(engine.router, 10s, request)
        .receive(
          [&](get_departures_reply& reply) {
            answered = true;
            CHECK(reply.stop_id == "HSL:1040129");
            CHECK(reply.correlation_id.size() == 36);
            CHECK_FALSE(reply.departures.empty());
            CHECK(reply.departures.size() <= 5);
            // No demo flag: no demo warning.
            for (const auto& w : reply.warnings)
              CHECK(w.code != "demo-data");
          },
          [&](caf::error& err) { FAIL(caf::to_string(err)); });
      CHECK(answered);
      // Unknown stops come back as validation errors, typed.
      request.stop.value = "HSL:0000";
      self->request(engine.router, 10s, request)
        .receive([&](get_departures_reply&) { FAIL("expected an error"); },
                 [&](caf::error& err) {
                   CHECK(to_failure(err).code == ec::validation_error);
                 });
    }
    engine.shutdown();
  }
  CHECK(upstream.stats().requests == 2);
  upstream.stop();
}

namespace {

/// A TIMETABLE of an embedding application's own: one departure at any
/// stop, no upstream at all.
timetable_actor::behavior_type own_timetable() {
  return {
    [](const stop_departures_query& q) -> caf::result<stop_departures> {
      stop_departures out;
      out.stop_id = q.stop_id;
      out.stop_name = "Own stop";
      out.timezone = "Europe/Helsinki";
      stop_time t;
      t.line = "X1";
      t.headsign = "Elsewhere";
      t.scheduled_departure = q.start_time + 60;
      out.stop_times.push_back(t);
      out.fetched_ms = q.start_time * 1000;
      return out;
    },
    [](const nearby_stops_query&) -> caf::result<nearby_stops> {
      return nearby_stops{};
    },
  };
}

/// A JOURNEY_PLANNER that finds nothing.
journey_planner_actor::behavior_type no_journeys() {
  return {
    [](const trip_plan_query&) -> caf::result<trip_plans> {
      return trip_plans{};
    },
    [](const cancel_call&) {},
  };
}

} // namespace

TEST_CASE("spawn_engine takes its providers from the configuration",
          "[engine][embedding][providers]") {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", size_t{2});
  add_message_types(cfg);
  caf::actor_system sys{cfg};
  engine_config config;
  // Nothing listens here: a call that reached Digitransit would fail.
  config.digitransit_routing.url = "http://127.0.0.1:9";
  int made = 0;
  config.providers.timetable = [&made](provider_context& ctx)
    -> timetable_actor {
    ++made;
    return ctx.system.spawn(own_timetable);
  };
  config.providers.journey_planner = [](provider_context& ctx)
    -> journey_planner_actor { return ctx.system.spawn(no_journeys); };
  auto engine = spawn_engine(sys, config);
  CHECK(made == 1);
  // No provider asked for the Digitransit routing gate; the defaults for
  // the other roles still made theirs.
  CHECK_FALSE(engine.gate("digitransit-routing"));
  CHECK(engine.gate("digitransit-geocoding"));
  CHECK(engine.gate("tfl"));
  {
    caf::scoped_actor self{sys};
    get_departures_request request;
    request.stop = {stop_ref::kind::id, "OWN:1"};
    self->request(engine.router, 10s, request)
      .receive(
        [&](get_departures_reply& reply) {
          CHECK(reply.stop_id == "OWN:1");
          REQUIRE(reply.departures.size() == 1);
          CHECK(reply.departures[0].line == "X1");
        },
        [&](caf::error& err) { FAIL(caf::to_string(err)); });
  }
  engine.shutdown();
}
