// End to end over MCP: the daemon serving the New York subway GTFS with
// its own router, at a simulated time inside the feed's validity.

#include <filesystem>
#include <fstream>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "gtfs_realtime.pb.h"
#include "support/daemon_harness.hpp"
#include "support/local_http_server.hpp"

using namespace transitd;
using test::daemon_harness;
namespace json = boost::json;

namespace {

test::harness_options nyc(bool with_digitransit) {
  test::harness_options options;
  options.gtfs_feeds = {
    {"nyc", {std::string{TRANSITD_FIXTURES_DIR}
             + "/gtfs/mta-subway-2026-09/mta-subway-gtfs.zip"}}};
  options.clock_start = 1791981000; // 2026-10-14T08:30:00-04:00
  options.digitransit_with_feeds = with_digitransit;
  return options;
}

json::object coords(double lat, double lon) {
  return {{"type", "coords"}, {"value", {{"lat", lat}, {"lon", lon}}}};
}

bool has_warning(const json::object& out, const char* code) {
  for (const auto& w : out.at("warnings").as_array())
    if (w.as_object().at("code").as_string() == code)
      return true;
  return false;
}

} // namespace

TEST_CASE("e2e feed: every tool answers from the GTFS feed",
          "[e2e][gtfs]") {
  daemon_harness daemon{nyc(false)};
  test::mcp_client client{daemon.port()};
  client.initialize();

  // The tools and the instructions name the feed's region.
  auto listed = client.post(json::object{{"jsonrpc", "2.0"},
                                         {"id", 90},
                                         {"method", "tools/list"}});
  auto tools = listed.json().at("result").at("tools").as_array();
  // Without --gtfs-rt the realtime tools are not offered.
  CHECK(tools.size() == 14);
  for (const auto& t : tools) {
    CHECK(t.at("name").as_string() != "vehicle_positions");
    CHECK(t.at("name").as_string() != "service_alerts");
  }
  for (const auto& t : tools) {
    auto name = t.at("name").as_string();
    if (name == "get_departures" || name == "plan_trip")
      CHECK_THAT(std::string{t.at("description").as_string()},
                 Catch::Contains("GTFS feed nyc")
                   && !Catch::Contains("Helsinki"));
  }

  std::vector<std::string> texts; // as the server wrote them
  auto call = [&](const char* tool, const json::object& args) {
    auto result = client.call_tool(tool, args);
    texts.emplace_back(
      result.at("content").as_array().at(0).at("text").as_string());
    return test::structured(result);
  };
  auto stops = call(
    "find_stops",
    {{"coordinate", {{"lat", 40.7527}, {"lon", -73.9772}}}, {"radius", 300}});
  auto first_stop = stops.at("stops").as_array().at(0).as_object();
  CHECK_THAT(std::string{first_stop.at("id").as_string()},
             Catch::StartsWith("nyc:631"));
  CHECK(has_warning(stops, "simulated-time"));

  auto board = call("get_departures", test::departures_args("nyc:631", 5));
  CHECK(board.at("stopName").as_string() == "Grand Central-42 St");
  auto departures = board.at("departures").as_array();
  REQUIRE(departures.size() == 5);
  CHECK_THAT(std::string{departures[0].at("scheduledTime").as_string()},
             Catch::StartsWith("2026-10-14T08:3") && Catch::EndsWith("-04:00"));
  CHECK(departures[0].at("status").as_string() == "scheduled_only");

  auto plan = call("plan_trip", {{"origin", coords(40.7527, -73.9772)},
                                 {"destination", coords(40.6782, -73.9442)},
                                 {"limit", 3}});
  auto itineraries = plan.at("itineraries").as_array();
  REQUIRE_FALSE(itineraries.empty());
  bool subway = false;
  for (const auto& leg : itineraries[0].at("legs").as_array())
    subway = subway || leg.at("mode").as_string() == "SUBWAY";
  CHECK(subway);
  CHECK_THAT(std::string{plan.at("requested").at("time").as_string()},
             Catch::StartsWith("2026-10-14T08:30") && Catch::EndsWith("-04:00"));
  CHECK(has_warning(plan, "simulated-time"));

  auto geo = call("geocode_address", {{"text", "Grand Central"}});
  auto results = geo.at("results").as_array();
  REQUIRE_FALSE(results.empty());
  CHECK(results[0].at("name").as_string() == "Grand Central-42 St");
  CHECK(results[0].at("type").as_string() == "stop");

  // No exponents anywhere (issue 17's rule holds for feed answers).
  for (const auto& text : texts)
    CHECK(test::exponent_number(text).empty());

  // Helsinki lies outside every area this daemon serves.
  auto outside = test::tool_error(client.call_tool(
    "plan_trip", {{"origin", coords(60.17, 24.94)},
                  {"destination", coords(60.20, 24.90)}}));
  CHECK(outside.at("code").as_string() == "unsupported-region");
  CHECK_THAT(std::string{outside.at("message").as_string()},
             Catch::Contains("nyc"));
  auto far = test::tool_error(client.call_tool(
    "find_stops", {{"coordinate", {{"lat", 0.0}, {"lon", 0.0}}}}));
  CHECK(far.at("code").as_string() == "unsupported-region");

  // /readyz reports the feed.
  auto ready = client.get("/readyz").json().as_object();
  CHECK_THAT(std::string{ready.at("checks").at("feeds").at("nyc").as_string()},
             Catch::StartsWith("ok: 1488 stops"));
  // /metrics too.
  auto metrics = client.get("/metrics").body;
  CHECK_THAT(metrics, Catch::Contains("transitd_feed_loaded{feed=\"nyc\"} 1")
                        && Catch::Contains(
                          "transitd_feed_stop_times{feed=\"nyc\"} 565093"));
  // The plan_trip's searches, counted with their engine time: the primary
  // and, unless it is still running, the relaxed one.
  auto count_of = [&](const std::string& series) {
    auto at = metrics.find(series + " ");
    REQUIRE(at != std::string::npos);
    return std::stod(metrics.substr(at + series.size() + 1));
  };
  auto searches = count_of("transitd_feed_plans_total{feed=\"nyc\"}");
  CHECK(searches >= 1);
  CHECK(searches <= 2);
  CHECK(count_of("transitd_feed_plan_seconds_total{feed=\"nyc\"}") > 0);
  CHECK_THAT(metrics,
             Catch::Contains("transitd_feed_cancelled_plans_total{feed=\"nyc\"}"));
}

TEST_CASE("e2e feed still loading: every call is told to retry and when, "
          "never that its point is not served",
          "[e2e][gtfs]") {
  // A feed URL whose zip arrives a byte every 10 ms: it stays loading for
  // the whole test.
  test::trickling_server slow{"HTTP/1.1 200 OK\r\nContent-Length: 100000\r\n"
                              "\r\n" + std::string(5000, 'x'),
                              std::chrono::milliseconds{10}};
  test::harness_options options;
  options.gtfs_feeds = {
    {"nyc", {"http://127.0.0.1:" + std::to_string(slow.port) + "/gtfs.zip"}}};
  options.wait_for_feeds = false;
  options.digitransit_with_feeds = false;
  {
    daemon_harness daemon{options};
    test::mcp_client client{daemon.port()};
    client.initialize();
    auto loading = [](const json::object& error) {
      CHECK(error.at("code").as_string() == "data-not-available");
      CHECK_THAT(std::string{error.at("message").as_string()},
                 Catch::Contains("feed nyc is loading, retry in about"));
      REQUIRE(error.contains("retryAfter"));
      CHECK(error.at("retryAfter").as_int64() >= 1);
    };
    // A point of the feed's area-to-be, and one of its stop ids.
    loading(test::tool_error(client.call_tool(
      "find_stops",
      json::object{{"coordinate", json::object{{"lat", 40.7527},
                                               {"lon", -73.9772}}}})));
    loading(test::tool_error(client.call_tool(
      "get_departures",
      json::object{{"stop", json::object{{"type", "id"},
                                         {"value", "nyc:631"}}}})));
    // Not ready until the feed has loaded.
    auto ready = client.get("/readyz");
    CHECK(ready.status == 503);
    CHECK_THAT(ready.body, Catch::Contains("loading"));
    // The download ends (failed): the daemon stops without waiting for it.
    slow.finish();
  }
}

TEST_CASE("e2e feed beside Digitransit: each id and area to its provider",
          "[e2e][gtfs]") {
  daemon_harness daemon{nyc(true)};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto hsl = test::structured(
    client.call_tool("get_departures", test::departures_args()));
  CHECK(hsl.at("stopId").as_string() == "HSL:1040129");
  auto ny = test::structured(
    client.call_tool("get_departures", test::departures_args("nyc:631N", 3)));
  CHECK(ny.at("stopId").as_string() == "nyc:631N");
  auto helsinki = test::structured(
    client.call_tool("plan_trip", test::trip_args()));
  CHECK_FALSE(helsinki.at("itineraries").as_array().empty());
  auto across = test::tool_error(client.call_tool(
    "plan_trip", {{"origin", coords(60.17, 24.94)},
                  {"destination", coords(40.6782, -73.9442)}}));
  CHECK(across.at("code").as_string() == "unsupported-region");
}

namespace {

/// Caltrain with its trip updates recorded 2023-11-07 17:05:34 PST, at
/// the instant they were recorded (or `later` seconds after).
test::harness_options caltrain_live(int64_t later = 0, int32_t max_age = 300) {
  const std::string dir
    = std::string{TRANSITD_FIXTURES_DIR} + "/gtfs/caltrain-2023-09/";
  test::harness_options options;
  options.gtfs_feeds = {{"caltrain", {dir + "caltrain-gtfs.zip"}}};
  options.gtfs_rt_feeds
    = {{"caltrain", {dir + "caltrain-trip-updates-2023-11-07.pb",
                     dir + "caltrain-vehicle-positions-2023-11-07.pb",
                     dir + "caltrain-alerts-2023-11-07.pb"}}};
  options.gtfs_rt_max_age_s = max_age;
  options.clock_start = 1699405534 + later;
  options.digitransit_with_feeds = false;
  return options;
}

} // namespace

TEST_CASE("e2e feed with realtime: recorded Caltrain trip updates on the "
          "board and in the plan",
          "[e2e][gtfs][realtime]") {
  daemon_harness daemon{caltrain_live()};
  test::mcp_client client{daemon.port()};
  client.initialize();
  // Train 124 leaves Mountain View (70242) at 17:10:01 by the feed.
  auto board = test::structured(client.call_tool(
    "get_departures", test::departures_args("caltrain:70242", 10)));
  CHECK(board.at("realtimeUsed").as_bool());
  CHECK_FALSE(has_warning(board, "realtime-stale"));
  bool seen = false;
  for (const auto& d : board.at("departures").as_array()) {
    auto o = d.as_object();
    if (o.contains("realtimeTime")
        && o.at("realtimeTime").as_string() == "2023-11-07T17:10:01-08:00") {
      seen = true;
      CHECK(o.contains("delaySeconds"));
      CHECK(o.at("status").as_string() != "scheduled_only");
    }
  }
  CHECK(seen);

  // Mountain View to Palo Alto: the plan rides on realtime times.
  auto plan = test::structured(client.call_tool(
    "plan_trip", {{"origin", coords(37.3945, -122.0761)},
                  {"destination", coords(37.4435, -122.1648)}}));
  auto itineraries = plan.at("itineraries").as_array();
  REQUIRE_FALSE(itineraries.empty());
  CHECK(plan.at("realtimeUsed").as_string() != "scheduled");

  // All 19 recorded updates matched; the newest message is the vehicle
  // positions' (25 s after the trip updates).
  auto metrics = client.get("/metrics").body;
  CHECK_THAT(metrics,
             Catch::Contains(
               "transitd_feed_realtime_matched{feed=\"caltrain\"} 19")
               && Catch::Contains(
                 "transitd_feed_realtime_timestamp_seconds{feed=\"caltrain\"} "
                 "1699405559"));
}

TEST_CASE("e2e feed with realtime: a source older than the allowed age is "
          "not applied, and answers say so",
          "[e2e][gtfs][realtime]") {
  daemon_harness daemon{caltrain_live(3600, 600)};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto board = test::structured(client.call_tool(
    "get_departures", test::departures_args("caltrain:70242", 10)));
  CHECK(has_warning(board, "realtime-stale"));
  CHECK_FALSE(board.at("realtimeUsed").as_bool());
  auto plan = test::structured(client.call_tool(
    "plan_trip", {{"origin", coords(37.3945, -122.0761)},
                  {"destination", coords(37.4435, -122.1648)}}));
  CHECK(has_warning(plan, "realtime-stale"));
}

TEST_CASE("e2e get_trip with realtime: a departure's trip, its predicted "
          "times and its vehicle",
          "[e2e][gtfs][realtime][get_trip]") {
  daemon_harness daemon{caltrain_live()};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto board = test::structured(client.call_tool(
    "get_departures", test::departures_args("caltrain:70242", 10)));
  std::optional<json::object> live;
  for (const auto& d : board.at("departures").as_array())
    if (d.as_object().contains("realtimeTime") && !live)
      live = d.as_object();
  REQUIRE(live);
  auto trip = test::structured(client.call_tool(
    "get_trip", {{"tripId", live->at("tripId")},
                 {"serviceDate", live->at("serviceDate")}}));
  CHECK(trip.at("state").as_string() == "running");
  CHECK(trip.at("realtimeUsed").as_bool());
  CHECK(trip.at("serviceDate").as_string() == "2023-11-07");
  bool predicted = false;
  for (const auto& c : trip.at("calls").as_array()) {
    const auto& call = c.as_object();
    if (call.at("stopId").as_string().starts_with("caltrain:70242")
        || call.at("stopId").as_string() == "caltrain:70241")
      if (call.contains("realtimeDeparture")) {
        predicted = true;
        CHECK(call.at("realtimeDeparture") == live->at("realtimeTime"));
      }
  }
  CHECK(predicted);
  CHECK(trip.contains("vehicle"));
}

TEST_CASE("e2e line_status with realtime: the recorded alerts and trip "
          "updates judge the lines",
          "[e2e][gtfs][realtime][line_status]") {
  daemon_harness daemon{caltrain_live()};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto status = test::structured(client.call_tool("line_status", {}));
  CHECK(status.at("realtimeUsed").as_bool());
  auto lines = status.at("lines").as_array();
  REQUIRE_FALSE(lines.empty());
  const std::vector<std::string> order{"suspended",    "part-suspended",
                                       "severe-delays", "minor-delays",
                                       "planned-works", "good-service"};
  auto rank = [&](const json::value& v) {
    return std::find(order.begin(), order.end(),
                     std::string{v.as_string()})
           - order.begin();
  };
  bool alerted = false;
  for (std::size_t i = 0; i < lines.size(); ++i) {
    const auto& l = lines[i].as_object();
    if (i > 0) // worst first
      CHECK(rank(lines[i - 1].at("status")) <= rank(l.at("status")));
    if (!l.contains("reasons")) {
      CHECK(l.at("status").as_string() == "good-service");
      continue;
    }
    // The status is its worst reason's.
    CHECK(l.at("status") == l.at("reasons").as_array()[0].at("status"));
    for (const auto& r : l.at("reasons").as_array())
      alerted = alerted || r.at("kind").as_string() == "alert";
  }
  CHECK(alerted);
  CHECK_FALSE(has_warning(status, "no-realtime"));
  auto one = test::structured(
    client.call_tool("line_status", {{"route", "Local"}}));
  CHECK(one.at("lines").as_array().size() >= 1);
  auto unknown = test::tool_error(
    client.call_tool("line_status", {{"route", "Z9"}}));
  CHECK(unknown.at("code").as_string() == "validation-error");
}

TEST_CASE("e2e feed with realtime: a source dated ahead of the clock is "
          "flagged",
          "[e2e][gtfs][realtime]") {
  daemon_harness daemon{caltrain_live(-3600)};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto board = test::structured(client.call_tool(
    "get_departures", test::departures_args("caltrain:70242", 10)));
  CHECK(has_warning(board, "realtime-future-dated"));
  CHECK_FALSE(has_warning(board, "realtime-stale"));
}

TEST_CASE("e2e realtime tools: vehicle_positions and service_alerts on the "
          "recorded Caltrain feed",
          "[e2e][gtfs][realtime]") {
  daemon_harness daemon{caltrain_live()};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto listed = client.post(json::object{{"jsonrpc", "2.0"},
                                         {"id", 91},
                                         {"method", "tools/list"}});
  auto body = listed.json();
  std::vector<std::string> names;
  for (const auto& t : body.at("result").at("tools").as_array())
    names.emplace_back(t.at("name").as_string());
  CHECK(std::count(names.begin(), names.end(), "vehicle_positions") == 1);
  CHECK(std::count(names.begin(), names.end(), "service_alerts") == 1);

  // Trains within 5 km of Mountain View, nearest first, dated and aged on
  // the simulated clock.
  auto near = test::structured(client.call_tool(
    "vehicle_positions",
    {{"near", {{"lat", 37.3945}, {"lon", -122.0761}}}, {"radius", 5000}}));
  auto vehicles = near.at("vehicles").as_array();
  for (const auto& v : vehicles) {
    CHECK(v.at("distance").to_number<int64_t>() <= 5000);
    CHECK(v.at("line").as_string().size() > 0);
    CHECK_THAT(std::string{v.at("reportedAt").as_string()},
               Catch::EndsWith("-08:00"));
    CHECK(v.at("ageSeconds").to_number<int64_t>() >= 0);
  }
  auto locals = test::structured(
    client.call_tool("vehicle_positions", {{"route", "L1"}, {"limit", 2}}));
  CHECK(locals.at("vehicles").as_array().size() == 2);
  CHECK(has_warning(locals, "truncated-results"));
  auto nothing = test::tool_error(client.call_tool("vehicle_positions", {}));
  CHECK(nothing.at("code").as_string() == "validation-error");
  auto unknown = test::tool_error(
    client.call_tool("vehicle_positions", {{"route", "Z9"}}));
  CHECK(unknown.at("code").as_string() == "validation-error");

  // The feed has English and Spanish (D24): Finnish is refused, naming
  // them; Spanish where an alert has it, else the feed's own English.
  auto finnish = test::tool_error(client.call_tool(
    "service_alerts", {{"stop", "caltrain:70211"}, {"language", "fi"}}));
  CHECK(finnish.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{finnish.at("hint").as_string()},
             Catch::Contains("en, es"));
  auto spanish = test::structured(client.call_tool(
    "service_alerts", {{"stop", "caltrain:70211"}, {"language", "es"}}));
  bool in_spanish = false;
  for (const auto& a : spanish.at("alerts").as_array())
    in_spanish = in_spanish || (a.at("language").as_string() == "es"
                                && std::string{a.at("header").as_string()}
                                       .find("andén") != std::string::npos);
  CHECK(in_spanish);
  auto at_stop = test::structured(client.call_tool(
    "service_alerts", {{"stop", "caltrain:70211"}}));
  auto alerts = at_stop.at("alerts").as_array();
  REQUIRE(alerts.size() == 3);
  CHECK(alerts[0].at("severity").as_string() == "severe");
  CHECK(alerts[1].at("id").as_string() == "platform-moved");
  CHECK(alerts[1].at("language").as_string() == "en");
  CHECK_THAT(std::string{alerts[1].at("header").as_string()},
             Catch::StartsWith("Mountain View: northbound"));
  CHECK(alerts[1].at("affected").as_array()[0].at("name").as_string()
        == "Mountain View Caltrain Station");
  CHECK(alerts[1].at("activePeriods").as_array()[0].at("end").as_string()
        == "2023-11-08T05:26:40-08:00");
  CHECK_THAT(std::string{at_stop.at("at").as_string()},
             Catch::StartsWith("2023-11-07T17:05"));
  auto by_trip = test::structured(
    client.call_tool("service_alerts", {{"trip", "caltrain:124"}}));
  CHECK(by_trip.at("alerts").as_array().size() == 2);
  auto by_feed = test::structured(
    client.call_tool("service_alerts", {{"feed", "caltrain"}}));
  CHECK(by_feed.at("alerts").as_array().size() == 3);
  auto earlier = test::structured(client.call_tool(
    "service_alerts",
    {{"feed", "caltrain"}, {"when", "2023-11-06T13:30:00-08:00"}}));
  CHECK(earlier.at("alerts").as_array().size() == 2);
  auto two = test::tool_error(client.call_tool(
    "service_alerts", {{"stop", "caltrain:70211"}, {"feed", "caltrain"}}));
  CHECK(two.at("code").as_string() == "validation-error");
  auto other = test::tool_error(
    client.call_tool("service_alerts", {{"feed", "nyc"}}));
  CHECK(other.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{other.at("message").as_string()},
             Catch::Contains("nyc"));
}

TEST_CASE("e2e realtime of one merged source: its alert finds its own line, "
          "not the first source's of the same id",
          "[e2e][gtfs][realtime][merge]") {
  namespace fs = std::filesystem;
  auto dir = fs::temp_directory_path()
             / ("transitd-e2e-merged-rt-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir / "zephyr");
  auto write = [&](const fs::path& path, const std::string& text) {
    std::ofstream out{path, std::ios::binary};
    out << text;
    REQUIRE(out);
  };
  // A second agency beside Caltrain, reusing its route id L1 (another
  // line), its stop id 70021 (another place, in Sacramento) and its trip
  // id 501 (another trip).
  write(dir / "zephyr" / "agency.txt",
        "agency_id,agency_name,agency_url,agency_timezone\n"
        "Z,Zephyr,http://z.example,America/Los_Angeles\n");
  write(dir / "zephyr" / "stops.txt",
        "stop_id,stop_name,stop_lat,stop_lon\n"
        "70021,Sacramento Valley,38.5842,-121.5005\n"
        "Z2,Davis,38.5435,-121.7376\n");
  write(dir / "zephyr" / "routes.txt",
        "route_id,route_short_name,route_long_name,route_type\n"
        "L1,Z1,Zephyr,2\n");
  write(dir / "zephyr" / "trips.txt",
        "route_id,service_id,trip_id\nL1,D,501\n");
  write(dir / "zephyr" / "stop_times.txt",
        "trip_id,arrival_time,departure_time,stop_id,stop_sequence\n"
        "501,17:30:00,17:30:00,70021,1\n"
        "501,17:50:00,17:50:00,Z2,2\n");
  write(dir / "zephyr" / "calendar.txt",
        "service_id,monday,tuesday,wednesday,thursday,friday,saturday,"
        "sunday,start_date,end_date\n"
        "D,1,1,1,1,1,1,1,20230101,20241231\n");
  // Its realtime: an alert on its L1 and its 501 five minutes late,
  // recorded at the clock's time.
  constexpr int64_t now = 1699405534; // 2023-11-07 17:05:34 PST
  gtfs_rt::pb::FeedMessage message;
  message.mutable_header()->set_gtfs_realtime_version("2.0");
  message.mutable_header()->set_timestamp(now);
  auto* entity = message.add_entity();
  entity->set_id("zephyr-delays");
  auto* alert = entity->mutable_alert();
  alert->add_informed_entity()->set_route_id("L1");
  alert->set_effect(gtfs_rt::pb::Alert::SIGNIFICANT_DELAYS);
  alert->mutable_header_text()->add_translation()->set_text(
    "Zephyr delays");
  auto* late = message.add_entity();
  late->set_id("zephyr-501");
  auto* update = late->mutable_trip_update();
  update->mutable_trip()->set_trip_id("501");
  update->mutable_trip()->set_start_date("20231107");
  auto* first_call = update->add_stop_time_update();
  first_call->set_stop_sequence(1);
  first_call->set_stop_id("70021");
  first_call->mutable_departure()->set_delay(300);
  std::string bytes;
  REQUIRE(message.SerializeToString(&bytes));
  write(dir / "zephyr-alerts.pb", bytes);

  test::harness_options options;
  options.gtfs_feeds = {
    {"cc", {std::string{TRANSITD_FIXTURES_DIR}
              + "/gtfs/caltrain-2023-09/caltrain-gtfs.zip",
            (dir / "zephyr").string()}}};
  options.gtfs_rt_feeds = {{"cc~2", {(dir / "zephyr-alerts.pb").string()}}};
  options.clock_start = now;
  options.digitransit_with_feeds = false;
  {
    daemon_harness daemon{options};
    test::mcp_client client{daemon.port()};
    client.initialize();
    auto alerted = [&](const char* route) {
      auto status = test::structured(
        client.call_tool("line_status", {{"route", route}}));
      auto lines = status.at("lines").as_array();
      REQUIRE(lines.size() == 1);
      const auto& line = lines[0].as_object();
      bool found = false;
      if (line.contains("reasons"))
        for (const auto& r : line.at("reasons").as_array())
          found = found || r.at("kind").as_string() == "alert";
      return std::make_pair(std::string{line.at("routeId").as_string()},
                            found);
    };
    // The second source's L1 is cc:L1~2, and the alert is on it.
    CHECK(alerted("cc:L1~2") == std::make_pair(std::string{"cc:L1~2"}, true));
    // Caltrain's L1 has none.
    CHECK(alerted("cc:L1") == std::make_pair(std::string{"cc:L1"}, false));
    // Its 501 is cc:501~2, and the delay is on it; Caltrain's 501 is
    // Caltrain's, with no realtime.
    auto trip = [&](const char* id) {
      return test::structured(client.call_tool(
        "get_trip", {{"tripId", id}, {"serviceDate", "2023-11-07"}}));
    };
    auto zephyr = trip("cc:501~2");
    CHECK(zephyr.at("routeId").as_string() == "cc:L1~2");
    CHECK(zephyr.at("realtimeUsed").as_bool());
    const auto& first = zephyr.at("calls").as_array().at(0).as_object();
    CHECK(first.at("stopId").as_string() == "cc:70021~2");
    REQUIRE(first.contains("delaySeconds"));
    CHECK(first.at("delaySeconds").as_int64() == 300);
    auto caltrain = trip("cc:501");
    CHECK(caltrain.at("routeId").as_string() == "cc:L5");
    CHECK_FALSE(caltrain.at("realtimeUsed").as_bool());
  }
  fs::remove_all(dir);
}
