// PROVIDER_SWITCH: which provider answers, and the engine with a feed.

#include "transitd/actors/provider_switch.hpp"

#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>
#include <caf/scoped_actor.hpp>
#include <caf/typed_event_based_actor.hpp>
#include <catch2/catch.hpp>

#include "transitd/actors/engine.hpp"
#include "transitd/messages/time.hpp"
#include "transitd/offline/gtfs_reader.hpp"
#include "support/deterministic.hpp"

using namespace transitd;
using namespace std::chrono_literals;

namespace {

region box(double lat0, double lat1, double lon0, double lon1,
           std::string name) {
  return {lat0, lat1, lon0, lon1, std::move(name)};
}

std::vector<provider_entry> three() {
  std::vector<provider_entry> e(3);
  e[0].name = "feed nyc";
  e[0].stop_prefix = "nyc:";
  e[0].area = [] {
    return std::optional<region>{box(40.5, 40.9, -74.3, -73.7, "nyc")};
  };
  e[1].name = "feed late";
  e[1].stop_prefix = "late:";
  e[1].area = [] { return std::optional<region>{}; }; // still loading
  e[2].name = "Digitransit";
  e[2].area = [] {
    return std::optional<region>{box(59.9, 60.8, 23.5, 26.0, "HSL")};
  };
  return e;
}

} // namespace

TEST_CASE("provider switch: stop ids go by prefix, the rest to Digitransit",
          "[switch]") {
  auto e = three();
  CHECK(entry_for_stop(e, "nyc:631") == std::optional<std::size_t>{0});
  CHECK(entry_for_stop(e, "late:1") == std::optional<std::size_t>{1});
  CHECK(entry_for_stop(e, "HSL:1040129") == std::optional<std::size_t>{2});
  e.pop_back();
  CHECK_FALSE(entry_for_stop(e, "HSL:1040129"));
}

TEST_CASE("provider switch: ids by their form; an id nobody serves is "
          "refused naming the forms", "[switch]") {
  auto e = three();
  e[2].claims = [](const std::string& id) {
    return id.find(':') != std::string::npos;
  };
  e[2].id_forms = "HSL:1040129 (Digitransit)";
  provider_entry tfl;
  tfl.name = "TfL";
  tfl.claims = [](const std::string& id) { return id.rfind("HUB", 0) == 0; };
  tfl.id_forms = "HUBOXC (TfL)";
  tfl.feed_name = "tfl";
  e.push_back(tfl);
  CHECK(entry_for_stop(e, "nyc:631") == std::optional<std::size_t>{0});
  CHECK(entry_for_stop(e, "HSL:1040129") == std::optional<std::size_t>{2});
  CHECK(entry_for_stop(e, "HUBOXC") == std::optional<std::size_t>{3});
  CHECK_FALSE(entry_for_stop(e, "1234"));
  auto refusal = unknown_stop(e, "1234");
  CHECK(refusal.code == ec::validation_error);
  CHECK(refusal.hint.find("nyc:...") != std::string::npos);
  CHECK(refusal.hint.find("HSL:1040129 (Digitransit)") != std::string::npos);
  CHECK(refusal.hint.find("HUBOXC (TfL)") != std::string::npos);
  CHECK(entry_named(e, "tfl") == std::optional<std::size_t>{3});
  CHECK(entry_named(e, "nyc") == std::optional<std::size_t>{0});
  CHECK_FALSE(entry_named(e, "paris"));
}

TEST_CASE("provider switch: a network question goes to the feed named, the "
          "id's, the area's, else the only one", "[switch]") {
  auto e = three();
  auto no_network = entry_for_network(e, ask_status, {}, {}, std::nullopt, "line", "h");
  REQUIRE_FALSE(no_network);
  CHECK(no_network.error().code == ec::validation_error);
  // Entries need a NETWORK_INFO to answer; a spawned dummy stands in.
  caf::actor_system_config cfg;
  caf::actor_system sys{cfg};
  auto dummy = sys.spawn([]() -> network_info_actor::behavior_type {
    return {[](trip_query&) -> caf::result<trip_details> { return trip_details{}; },
            [](reach_query&) -> caf::result<reach_result> { return reach_result{}; },
            [](route_query&) -> caf::result<route_details> { return route_details{}; },
            [](line_status_query&) -> caf::result<line_status_list> {
              return line_status_list{};
            }};
  });
  e[0].network = dummy;
  auto only = entry_for_network(e, ask_status, {}, {}, std::nullopt, "line", "h");
  REQUIRE(only);
  CHECK(*only == 0);
  e[2].network = dummy;
  e[2].feed_name = "tfl";
  std::string route = "nyc:7";
  CHECK(*entry_for_network(e, ask_status, {}, {&route}, std::nullopt, "line", "h") == 0);
  CHECK(*entry_for_network(e, ask_status, "tfl", {}, std::nullopt, "line", "h") == 2);
  CHECK(*entry_for_network(e, ask_status, {}, {}, coordinate{60.17, 24.94}, "line", "h")
        == 2);
  auto unnamed = entry_for_network(e, ask_status, "paris", {}, std::nullopt, "line", "h");
  REQUIRE_FALSE(unnamed);
  CHECK(unnamed.error().message.find("paris") != std::string::npos);
  std::string bare = "7";
  // One feed and TfL: a bare line name is the feed's.
  CHECK(*entry_for_network(e, ask_status, {}, {&bare}, std::nullopt, "line", "h") == 0);
  e[1].network = dummy;
  auto unclear = entry_for_network(e, ask_status, {}, {&bare}, std::nullopt, "line",
                                   "give feed");
  REQUIRE_FALSE(unclear);
  CHECK(unclear.error().hint.find("give feed") != std::string::npos);
  auto outside = entry_for_network(e, ask_status, {}, {}, coordinate{48.85, 2.35}, "line",
                                   "h");
  REQUIRE_FALSE(outside);
  CHECK(outside.error().code == ec::unsupported_region);
  // A question only one entry answers goes there: e[2] answers no routes.
  e[2].questions = ask_status;
  e[1].network = nullptr;
  CHECK(*entry_for_network(e, ask_routes, {}, {&bare}, std::nullopt, "line",
                           "h")
        == 0);
  e[0].questions = ask_trips;
  CHECK_FALSE(entry_for_network(e, ask_routes, {}, {&bare}, std::nullopt,
                                "line", "h"));
  anon_send_exit(dummy, caf::exit_reason::user_shutdown);
}

TEST_CASE("provider switch: points go to the first area holding them",
          "[switch]") {
  auto e = three();
  coordinate times_sq{40.7553, -73.9875};
  coordinate helsinki{60.17, 24.94};
  CHECK(entry_for_points(e, {times_sq}) == std::optional<std::size_t>{0});
  CHECK(entry_for_points(e, {helsinki}) == std::optional<std::size_t>{2});
  CHECK_FALSE(entry_for_points(e, {times_sq, helsinki}));
  CHECK_FALSE(entry_for_points(e, {{0, 0}}));
  // The order decides where areas overlap.
  e[2].area = [] {
    return std::optional<region>{box(40, 41, -75, -73, "wide")};
  };
  CHECK(entry_for_points(e, {times_sq}) == std::optional<std::size_t>{0});
  std::swap(e[0], e[2]);
  CHECK(entry_for_points(e, {times_sq}) == std::optional<std::size_t>{0});
  CHECK(e[0].name == "Digitransit");
}

TEST_CASE("provider switch: a point no loaded area holds waits for a feed "
          "still loading, never unsupported-region",
          "[switch]") {
  auto e = three();
  e[1].unavailable = [] {
    return std::optional<failure>{make_failure(
      ec::data_not_available, "feed late is loading, retry in about 5 s",
      "retry in about 5 s", 5)};
  };
  auto why = outside_every_area(e, "the point lies");
  CHECK(why.code == ec::data_not_available);
  CHECK(is_retryable(why));
  CHECK(why.retry_after == 5);
  CHECK_THAT(why.message, Catch::Contains("loading"));
  // Once its first load has failed it holds no point: the others' areas
  // are named.
  e[1].unavailable = [] {
    return std::optional<failure>{make_failure(
      ec::data_not_available, "feed late could not be loaded: gone")};
  };
  auto outside = outside_every_area(e, "the point lies");
  CHECK(outside.code == ec::unsupported_region);
  CHECK_THAT(outside.message, Catch::Contains("nyc"));
}

namespace {

realtime_info_actor::behavior_type no_realtime_answers() {
  return {
    [](const vehicles_query&) { return vehicle_list{}; },
    [](const alerts_query&) { return alert_list{}; },
  };
}

} // namespace

TEST_CASE_METHOD(test::deterministic_fixture,
                 "provider switch: realtime queries by feed name, id prefix, "
                 "point, else the only feed with realtime",
                 "[switch][realtime]") {
  auto e = three();
  auto rt = sys.spawn(no_realtime_answers);
  e[0].realtime = rt;
  coordinate times_sq{40.7553, -73.9875};
  coordinate helsinki{60.17, 24.94};
  auto pick = [&](const std::string& id, const std::string& feed,
                  std::optional<coordinate> at, bool ids = true) {
    return entry_for_realtime(e, id, feed, at, ids);
  };
  CHECK(*pick({}, "nyc", {}) == 0);
  CHECK(*pick("nyc:631", {}, {}) == 0);
  CHECK(*pick({}, {}, times_sq) == 0);
  // A line name alone: the only provider with realtime.
  CHECK(*pick("L1", {}, {}, false) == 0);
  // The feed named wins over the point.
  CHECK(*pick({}, "nyc", helsinki) == 0);
  auto unknown = pick({}, "paris", {});
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == ec::validation_error);
  CHECK_THAT(unknown.error().hint, Catch::Contains("nyc, late"));
  // An id without a known prefix goes to the provider of such ids, which
  // has no realtime here.
  auto hsl = pick("HSL:1040129", {}, {});
  REQUIRE_FALSE(hsl);
  CHECK(hsl.error().code == ec::data_not_available);
  CHECK_THAT(hsl.error().message, Catch::Contains("Digitransit"));
  auto outside = pick({}, {}, coordinate{0, 0});
  REQUIRE_FALSE(outside);
  CHECK(outside.error().code == ec::unsupported_region);
  // Two providers with realtime: a line name alone is ambiguous.
  e[1].realtime = rt;
  auto ambiguous = pick("L1", {}, {}, false);
  REQUIRE_FALSE(ambiguous);
  CHECK(ambiguous.error().code == ec::validation_error);
  CHECK_THAT(ambiguous.error().hint, Catch::Contains("near"));
  e[0].realtime = nullptr;
  e[1].realtime = nullptr;
  auto none = pick("L1", {}, {}, false);
  REQUIRE_FALSE(none);
  CHECK_THAT(none.error().hint, Catch::Contains("gtfs_feed_options::realtime"));
  caf::anon_send_exit(rt, caf::exit_reason::user_shutdown);
}

TEST_CASE("provider switch: outside every area names the areas",
          "[switch]") {
  auto problem = outside_every_area(three(), "the origin lies");
  CHECK(problem.code == ec::unsupported_region);
  CHECK_THAT(problem.message,
             Catch::Contains("the origin lies outside every area")
               && Catch::Contains("nyc (lat 40.50..40.90, lon -74.30..-73.70)")
               && Catch::Contains("HSL"));
  CHECK_FALSE(problem.hint.empty());
}

TEST_CASE("engine with a feed: the tools answer from it by id and area",
          "[switch][engine]") {
  auto tt = gtfs::load_timetable(
    "nyc", std::vector<std::string>{std::string{TRANSITD_FIXTURES_DIR}
                                    + "/gtfs/mta-subway-2026-09/"
                                      "mta-subway-gtfs.zip"});
  REQUIRE(tt);
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", size_t{2});
  add_message_types(cfg);
  caf::actor_system sys{cfg};
  engine_config config;
  config.variables.path = ":memory:";
  gtfs_feed_options feed;
  feed.name = "nyc";
  feed.preloaded = *tt;
  config.feeds.push_back(feed);
  // 2026-10-14 08:30 in New York, from whatever the real time is.
  config.clock_offset_ms = int64_t{1791981000} * 1000 - now_ms();
  auto engine = spawn_engine(sys, config);
  {
    caf::scoped_actor self{sys};
    get_departures_request request;
    request.stop = {stop_ref::kind::id, "nyc:631"};
    request.window_minutes = 10;
    request.limit = 5;
    self->request(engine.router, 10s, request)
      .receive(
        [&](get_departures_reply& reply) {
          CHECK(reply.stop_name == "Grand Central-42 St");
          REQUIRE(reply.departures.size() == 5);
          CHECK_THAT(reply.departures[0].scheduled_time,
                     Catch::StartsWith("2026-10-14T08:3")
                       && Catch::EndsWith("-04:00"));
          bool simulated = false;
          for (const auto& w : reply.warnings)
            simulated = simulated || w.code == "simulated-time";
          CHECK(simulated);
        },
        [&](caf::error& err) { FAIL(caf::to_string(err)); });
    // Digitransit is not configured beside the feed: HSL ids belong to no
    // provider, Helsinki lies outside every area.
    request.stop.value = "HSL:1040129";
    self->request(engine.router, 10s, request)
      .receive([&](get_departures_reply&) { FAIL("expected an error"); },
               [&](caf::error& err) {
                 CHECK(to_failure(err).code == ec::validation_error);
               });
    plan_trip_request plan;
    plan.origin.position = {40.7527, -73.9772};
    plan.destination.position = {40.6782, -73.9442};
    self->request(engine.router, 10s, plan)
      .receive(
        [&](plan_trip_reply& reply) {
          CHECK(reply.timezone == "America/New_York");
          CHECK_THAT(reply.requested_time, Catch::EndsWith("-04:00"));
          CHECK_FALSE(reply.itineraries.empty());
        },
        [&](caf::error& err) { FAIL(caf::to_string(err)); });
    plan.origin.position = {60.17, 24.94};
    self->request(engine.router, 10s, plan)
      .receive([&](plan_trip_reply&) { FAIL("expected an error"); },
               [&](caf::error& err) {
                 CHECK(to_failure(err).code == ec::unsupported_region);
               });
    find_stops_request stops;
    stops.center = {40.7527, -73.9772};
    self->request(engine.router, 10s, stops)
      .receive(
        [&](find_stops_reply& reply) {
          REQUIRE_FALSE(reply.stops.empty());
          CHECK(reply.stops[0].id.rfind("nyc:", 0) == 0);
        },
        [&](caf::error& err) { FAIL(caf::to_string(err)); });
    geocode_request geo;
    geo.text = "grand central";
    self->request(engine.router, 10s, geo)
      .receive(
        [&](geocode_reply& reply) {
          REQUIRE_FALSE(reply.results.empty());
          CHECK(reply.results[0].name == "Grand Central-42 St");
        },
        [&](caf::error& err) { FAIL(caf::to_string(err)); });
  }
  engine.shutdown();
}

TEST_CASE("engine with a feed that cannot load: data-not-available",
          "[switch][engine]") {
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", size_t{2});
  add_message_types(cfg);
  caf::actor_system sys{cfg};
  engine_config config;
  config.variables.path = ":memory:";
  gtfs_feed_options feed;
  feed.name = "gone";
  feed.sources = {"/nonexistent/gtfs.zip"};
  config.feeds.push_back(feed);
  auto engine = spawn_engine(sys, config);
  // The loader fails at once; the slot says so without waiting on time.
  gtfs_feed_options again = feed;
  load_feed(again, *engine.feed_slots[0]);
  CHECK_FALSE(engine.feed_slots[0]->status().loaded);
  CHECK_THAT(engine.feed_slots[0]->status().error,
             Catch::Contains("/nonexistent/gtfs.zip"));
  {
    caf::scoped_actor self{sys};
    get_departures_request request;
    request.stop = {stop_ref::kind::id, "gone:1"};
    self->request(engine.router, 10s, request)
      .receive([&](get_departures_reply&) { FAIL("expected an error"); },
               [&](caf::error& err) {
                 auto f = to_failure(err);
                 CHECK(f.code == ec::data_not_available);
                 CHECK_THAT(f.message, Catch::Contains("gone"));
               });
  }
  engine.shutdown();
}

TEST_CASE("engine with two feeds: a name without focus is sought in both",
          "[switch][engine]") {
  auto load = [](const char* name, const char* path) {
    auto tt = gtfs::load_timetable(
      name, std::vector<std::string>{std::string{TRANSITD_FIXTURES_DIR}
                                     + "/gtfs/" + path});
    REQUIRE(tt);
    gtfs_feed_options feed;
    feed.name = name;
    feed.preloaded = *tt;
    return feed;
  };
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", size_t{2});
  add_message_types(cfg);
  caf::actor_system sys{cfg};
  engine_config config;
  config.variables.path = ":memory:";
  config.feeds.push_back(
    load("nyc", "mta-subway-2026-09/mta-subway-gtfs.zip"));
  config.feeds.push_back(load("bart", "bart-2019/bart-gtfs.zip"));
  auto engine = spawn_engine(sys, config);
  {
    caf::scoped_actor self{sys};
    geocode_request geo;
    geo.text = "Embarcadero"; // a BART station; nyc is asked first
    self->request(engine.router, 10s, geo)
      .receive(
        [&](geocode_reply& reply) {
          REQUIRE_FALSE(reply.results.empty());
          CHECK_THAT(reply.results[0].name, Catch::StartsWith("Embarcadero"));
          CHECK(reply.results[0].position.lon < -122);
        },
        [&](caf::error& err) { FAIL(caf::to_string(err)); });
    // With a focus in New York, New York's names only.
    geo.text = "Times Sq";
    geo.focus = coordinate{40.75, -73.98};
    self->request(engine.router, 10s, geo)
      .receive(
        [&](geocode_reply& reply) {
          REQUIRE_FALSE(reply.results.empty());
          for (const auto& r : reply.results)
            CHECK(r.position.lon > -75);
        },
        [&](caf::error& err) { FAIL(caf::to_string(err)); });
  }
  engine.shutdown();
}
