// The embedding API: a CAF application spawns the engine in its own actor
// system and calls tools with typed requests. No HTTP on our side (the mock
// upstream stands in for Digitransit).

#include "transitd/actors/engine.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>
#include <spdlog/sinks/ostream_sink.h>
#include <spdlog/spdlog.h>

#include <atomic>
#include <future>
#include <sstream>
#include <thread>

#include "transitd/messages/time.hpp"
#include "transitd/providers/mock/mock_upstream.hpp"

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
    [](const stop_lookup&) -> caf::result<stop_place> {
      return make_error(ec::validation_error, "no stops here");
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
  // No provider asked for the Digitransit routing gate; the default
  // geocoder still made its own. TfL has no URL here: no gate (planJourney
  // answers that it is not configured).
  CHECK_FALSE(engine.gate("digitransit-routing"));
  CHECK(engine.gate("digitransit-geocoding"));
  CHECK_FALSE(engine.gate("tfl"));
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

TEST_CASE("an offline engine: a feed from its sources, heard loading by "
          "subscription, answers with no network and starts no provider it "
          "was not given",
          "[engine][embedding][gtfs]") {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", size_t{2});
  add_message_types(cfg);
  caf::actor_system sys{cfg};
  engine_config config;
  config.variables.path = ":memory:";
  gtfs_feed_options feed;
  feed.name = "caltrain";
  feed.sources = {std::string{TRANSITD_FIXTURES_DIR}
                  + "/gtfs/caltrain-2023-09/caltrain-gtfs.zip"};
  config.feeds.push_back(feed);
  // One clock for the engine and its feeds: Tuesday 2023-11-07 08:00 in
  // San Francisco, from whatever the real time is.
  config.clock_offset_ms = int64_t{1699372800} * 1000 - now_ms();
  // What the engine logs at warning or above while it starts.
  std::ostringstream complaints;
  auto previous = spdlog::default_logger();
  auto sink = std::make_shared<spdlog::sinks::ostream_sink_mt>(complaints);
  sink->set_level(spdlog::level::warn);
  spdlog::set_default_logger(std::make_shared<spdlog::logger>("t", sink));
  auto engine = spawn_engine(sys, config);
  // Nothing but the feed: no upstream gate, no TfL, no demo data, and
  // nothing to complain about (no unusable URL of a provider not given).
  CHECK(engine.gates.empty());
  {
    caf::scoped_actor self{sys};
    // Heard, not polled: the state at once, then each change.
    self->send(engine.feeds.at(0), feed_subscribe{});
    feed_event last;
    for (int i = 0; i < 3 && last.state != feed_state::loaded; ++i)
      self->receive([&](feed_event& e) { last = std::move(e); },
                    caf::after(60s) >> [&] { FAIL("no feed event"); });
    REQUIRE(last.state == feed_state::loaded);
    spdlog::set_default_logger(previous);
    CHECK(complaints.str().empty());
    CHECK(last.feed == "caltrain");
    CHECK(last.stops > 0);
    CHECK(last.first_day == "2023-09-23");
    get_departures_request departures;
    departures.stop = {stop_ref::kind::id, "caltrain:70021"};
    departures.window_minutes = 60;
    self->request(engine.router, 10s, departures)
      .receive(
        [&](get_departures_reply& reply) {
          CHECK(reply.stop_name == "22nd Street Caltrain Station");
          REQUIRE_FALSE(reply.departures.empty());
          CHECK_THAT(reply.departures[0].scheduled_time,
                     Catch::StartsWith("2023-11-07T0")
                       && Catch::EndsWith("-08:00"));
        },
        [&](caf::error& err) { FAIL(caf::to_string(err)); });
    plan_trip_request plan;
    plan.origin.position = {37.7576, -122.3919};
    plan.destination.position = {37.4434, -122.1647};
    self->request(engine.router, 10s, plan)
      .receive(
        [&](plan_trip_reply& reply) {
          CHECK(reply.timezone == "America/Los_Angeles");
          CHECK_FALSE(reply.itineraries.empty());
        },
        [&](caf::error& err) { FAIL(caf::to_string(err)); });
    find_stops_request stops;
    stops.center = {37.4434, -122.1647};
    self->request(engine.router, 10s, stops)
      .receive(
        [&](find_stops_reply& reply) {
          REQUIRE_FALSE(reply.stops.empty());
          CHECK(reply.stops[0].id.rfind("caltrain:", 0) == 0);
        },
        [&](caf::error& err) { FAIL(caf::to_string(err)); });
    // What was not given answers so, per call.
    journey_plan_request london;
    london.from = "Oxford Circus";
    london.to = "Bank";
    self->request(engine.router, 10s, london)
      .receive([&](journey_plan_reply&) { FAIL("expected an error"); },
               [&](caf::error& err) {
                 auto f = to_failure(err);
                 CHECK(f.code == ec::data_not_available);
                 CHECK_THAT(f.message, Catch::Contains("not configured"));
               });
    station_toilets_request toilets;
    toilets.station_name = "Oxford Circus";
    self->request(engine.router, 10s, toilets)
      .receive([&](station_toilets_reply&) { FAIL("expected an error"); },
               [&](caf::error& err) {
                 auto f = to_failure(err);
                 CHECK(f.code == ec::data_not_available);
                 CHECK_THAT(f.message, Catch::Contains("not configured"));
               });
  }
  engine.shutdown();
}

TEST_CASE("an engine with hundreds of HTTP workers shuts down, and its "
          "actor system ends",
          "[engine][embedding][shutdown]") {
  // CAF 0.17 stops its clock before it waits for detached actors; each
  // detached actor still ending then queues a cancellation in the clock,
  // and the 65th waits forever. await_detached_stopped() waits for every
  // worker's thread to end while the clock runs (the race itself, seen in
  // bench runs, is too rare to provoke here). Run apart, so that a hang
  // fails (bounded wait) instead of stopping the suite.
  mock::mock_upstream upstream;
  upstream.start();
  auto ended = std::make_shared<std::promise<void>>();
  auto done = ended->get_future();
  auto ended_in_time = std::make_shared<std::atomic<bool>>(false);
  std::thread{[routing = upstream.routing_url(), ended, ended_in_time] {
    {
      caf::actor_system_config cfg;
      cfg.set("scheduler.max-threads", size_t{2});
      add_message_types(cfg);
      caf::actor_system sys{cfg};
      auto own = sys.detached_actors();
      engine_config config;
      config.digitransit_routing.url = routing;
      config.digitransit_geocoding.url = routing;
      config.variables.path = ":memory:";
      config.http_workers_per_upstream = 300;
      {
        auto engine = spawn_engine(sys, config);
        engine.shutdown();
      } // its handles released: a detached actor's thread ends with them
      *ended_in_time = await_detached_stopped(sys, own, 30s)
                       && sys.detached_actors() == own;
    } // the actor system's destructor, where the hang was
    ended->set_value();
  }}.detach();
  REQUIRE(done.wait_for(60s) == std::future_status::ready);
  CHECK(*ended_in_time);
}
