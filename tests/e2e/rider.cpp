// End to end over MCP: what a rider's agent asks of the New York subway
// feed (issue 31): times as agents write them, stops as trip ends, stations
// before platforms, itineraries a rider would take.

#include <catch2/catch.hpp>

#include "support/daemon_harness.hpp"

using namespace transitd;
using test::daemon_harness;
namespace json = boost::json;

namespace {

test::harness_options subway() {
  test::harness_options options;
  options.gtfs_feeds = {
    {"nyc", {std::string{TRANSITD_FIXTURES_DIR}
             + "/gtfs/mta-subway-2026-09/mta-subway-gtfs.zip"}}};
  options.clock_start = 1791981000; // 2026-10-14T08:30:00-04:00
  return options;
}

json::object coords(double lat, double lon) {
  return {{"type", "coords"}, {"value", {{"lat", lat}, {"lon", lon}}}};
}

json::object plan_at(const char* time) {
  return {{"origin", coords(40.7527, -73.9772)},
          {"destination", coords(40.6782, -73.9442)},
          {"when", {{"type", "depart"}, {"time", time}}}};
}

} // namespace

TEST_CASE("e2e rider: times without seconds or offset are read where the "
          "trip starts (D22)",
          "[e2e][rider][time]") {
  daemon_harness daemon{subway()};
  test::mcp_client client{daemon.port()};
  client.initialize();

  // No offset: New York's wall clock, shown as the instant used.
  auto local = test::structured(
    client.call_tool("plan_trip", plan_at("2026-10-14T09:00")));
  CHECK(local.at("requested").at("time").as_string()
        == "2026-10-14T09:00:00-04:00");
  // No seconds, with an offset.
  auto minutes = test::structured(
    client.call_tool("plan_trip", plan_at("2026-10-14T15:00+02:00")));
  CHECK(minutes.at("requested").at("time").as_string()
        == "2026-10-14T09:00:00-04:00");
  // A refusal names the accepted forms.
  auto bad = test::tool_error(
    client.call_tool("plan_trip", plan_at("tomorrow at nine")));
  CHECK(bad.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{bad.at("message").as_string()},
             Catch::Contains("tomorrow at nine"));
  CHECK_THAT(std::string{bad.at("hint").as_string()},
             Catch::Contains("2026-10-14T08:00-04:00")
               && Catch::Contains("2026-10-14T08:00 "));
}

TEST_CASE("e2e rider: a stop or station is a trip end (D21)",
          "[e2e][rider][stops]") {
  daemon_harness daemon{subway()};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto stop = [](const char* id) {
    return json::object{{"type", "stop"}, {"value", id}};
  };
  // From the 96 St station (its platforms) to Flushing-Main St, walking at
  // most 10 m: the listed Times Sq transfer still joins the 1 and the 7.
  auto plan = test::structured(client.call_tool(
    "plan_trip", {{"origin", stop("nyc:120")},
                  {"destination", stop("nyc:701")},
                  {"constraints", {{"maxWalkingDistance", 10}}}}));
  const auto& origin = plan.at("origin").as_object();
  CHECK(origin.at("stopId").as_string() == "nyc:120");
  CHECK(origin.at("name").as_string() == "96 St");
  CHECK(origin.at("rawSource").as_string() == "input");
  CHECK(plan.at("destination").at("stopId").as_string() == "nyc:701");
  auto itineraries = plan.at("itineraries").as_array();
  REQUIRE_FALSE(itineraries.empty());
  for (const auto& it : itineraries) {
    auto legs = it.at("legs").as_array();
    // Boarded at a platform of the station, no walk to it.
    CHECK(legs.front().at("mode").as_string() == "SUBWAY");
    CHECK_THAT(std::string{legs.front().at("from").at("stopId").as_string()},
               Catch::StartsWith("nyc:120"));
    CHECK_THAT(std::string{legs.back().at("to").at("stopId").as_string()},
               Catch::StartsWith("nyc:701"));
    // Continuous legs.
    for (std::size_t i = 1; i < legs.size(); ++i)
      CHECK(legs[i].at("from").at("stopId")
            == legs[i - 1].at("to").at("stopId"));
  }
  // Queensboro Plaza's N/W station to Flushing: the change to the 7's
  // station (transfers.txt, 0 s) is the first leg, not a ride out and
  // back.
  auto queensboro = test::structured(client.call_tool(
    "plan_trip", {{"origin", stop("nyc:R09")},
                  {"destination", stop("nyc:701")},
                  {"when", {{"type", "depart"}, {"time", "2026-10-14T07:16"}}}}));
  auto first = queensboro.at("itineraries").as_array().at(0).as_object();
  auto qlegs = first.at("legs").as_array();
  REQUIRE(qlegs.size() == 2);
  CHECK(qlegs[0].at("mode").as_string() == "WALK");
  CHECK_THAT(std::string{qlegs[0].at("from").at("stopId").as_string()},
             Catch::StartsWith("nyc:R09"));
  CHECK_THAT(std::string{qlegs[0].at("to").at("stopId").as_string()},
             Catch::StartsWith("nyc:718"));
  CHECK(qlegs[1].at("line").as_string() == "7");
  CHECK(first.at("transfers").as_int64() == 0);
  // And back: the 7 to its Queensboro Plaza station, then the change to
  // the N/W's as the last leg, ending at the stop asked for.
  auto back = test::structured(client.call_tool(
    "plan_trip", {{"origin", stop("nyc:701")},
                  {"destination", stop("nyc:R09")},
                  {"when", {{"type", "depart"}, {"time", "2026-10-14T07:16"}}}}));
  auto home = back.at("itineraries").as_array().at(0).as_object();
  auto blegs = home.at("legs").as_array();
  REQUIRE(blegs.size() == 2);
  CHECK_THAT(std::string{blegs[0].at("line").as_string()},
             Catch::StartsWith("7")); // the 7 or the 7 express
  CHECK(blegs[1].at("mode").as_string() == "WALK");
  CHECK_THAT(std::string{blegs[1].at("from").at("stopId").as_string()},
             Catch::StartsWith("nyc:718"));
  CHECK_THAT(std::string{blegs[1].at("to").at("stopId").as_string()},
             Catch::StartsWith("nyc:R09"));
  // Arriving by a time (the backward search): the change from the N/W's
  // station is the first leg too.
  auto by = test::structured(client.call_tool(
    "plan_trip", {{"origin", stop("nyc:R09")},
                  {"destination", stop("nyc:701")},
                  {"when", {{"type", "arrive"}, {"time", "2026-10-14T08:00"}}}}));
  auto alegs = by.at("itineraries").as_array().at(0).at("legs").as_array();
  REQUIRE(alegs.size() == 2);
  CHECK(alegs[0].at("mode").as_string() == "WALK");
  CHECK_THAT(std::string{alegs[0].at("from").at("stopId").as_string()},
             Catch::StartsWith("nyc:R09"));
  CHECK_THAT(std::string{alegs[1].at("line").as_string()},
             Catch::StartsWith("7"));

  // A saved stop works as a label.
  client.call_tool("save_user_variable",
                   {{"key", "flushing"},
                    {"type", "stop"},
                    {"value", {{"stopId", "nyc:701"}}}});
  auto saved = test::structured(client.call_tool(
    "plan_trip", {{"origin", stop("nyc:120")},
                  {"destination", {{"type", "label"}, {"value", "flushing"}}}}));
  CHECK(saved.at("destination").at("stopId").as_string() == "nyc:701");
  CHECK(saved.at("destination").at("label").as_string() == "flushing");
  CHECK(saved.at("destination").at("rawSource").as_string() == "variable");
  // An id no provider serves names the forms served.
  auto bad = test::tool_error(client.call_tool(
    "plan_trip", {{"origin", stop("Times Square")},
                  {"destination", stop("nyc:701")}}));
  CHECK(bad.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{bad.at("message").as_string()},
             Catch::Contains("Times Square"));
  CHECK_THAT(std::string{bad.at("hint").as_string()},
             Catch::Contains("nyc:"));
  CHECK_THAT(std::string{bad.at("hint").as_string()},
             Catch::Contains("HUBOXC (TfL)"));
  // A London stop is TfL's: plan_trip does not route there.
  auto london = test::tool_error(client.call_tool(
    "plan_trip", {{"origin", stop("940GZZLUOXC")},
                  {"destination", stop("nyc:701")}}));
  CHECK(london.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{london.at("hint").as_string()},
             Catch::Contains("planJourney"));
}

TEST_CASE("e2e rider: dataFreshness is on the engine's clock, as every "
          "other time",
          "[e2e][rider][time]") {
  daemon_harness daemon{subway()};
  test::mcp_client client{daemon.port()};
  client.initialize();
  // The clock reads 2026-10-14T08:30-04:00 (12:30Z).
  auto board = test::structured(
    client.call_tool("get_departures", test::departures_args("nyc:631", 3)));
  CHECK_THAT(std::string{board.at("dataFreshness").as_string()},
             Catch::StartsWith("2026-10-14T12:3"));
  auto plan = test::structured(
    client.call_tool("plan_trip", plan_at("2026-10-14T09:00")));
  CHECK_THAT(std::string{plan.at("dataFreshness").as_string()},
             Catch::StartsWith("2026-10-14T12:3"));
}

TEST_CASE("e2e rider: get_trip follows a departure and a plan leg",
          "[e2e][rider][get_trip]") {
  daemon_harness daemon{subway()};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto board = test::structured(
    client.call_tool("get_departures", test::departures_args("nyc:631", 3)));
  auto first = board.at("departures").as_array().at(0).as_object();
  REQUIRE(first.contains("tripId"));
  CHECK(first.at("serviceDate").as_string() == "2026-10-14");
  auto trip = test::structured(client.call_tool(
    "get_trip", {{"tripId", first.at("tripId")},
                 {"serviceDate", first.at("serviceDate")}}));
  CHECK(trip.at("line") == first.at("line"));
  CHECK(trip.at("headsign") == first.at("destination"));
  CHECK(trip.at("state").as_string() == "scheduled");
  CHECK_FALSE(trip.at("realtimeUsed").as_bool());
  bool here = false;
  for (const auto& c : trip.at("calls").as_array())
    if (c.at("stopName").as_string() == "Grand Central-42 St") {
      here = true;
      CHECK(c.at("scheduledDeparture") == first.at("scheduledTime"));
    }
  CHECK(here);

  auto plan = test::structured(
    client.call_tool("plan_trip", plan_at("2026-10-14T09:00")));
  for (const auto& leg :
       plan.at("itineraries").as_array().at(0).at("legs").as_array())
    if (leg.as_object().contains("line")) {
      CHECK(leg.as_object().contains("tripId"));
      auto ride = test::structured(client.call_tool(
        "get_trip", {{"tripId", leg.at("tripId")},
                     {"serviceDate", leg.at("serviceDate")}}));
      CHECK(ride.at("line") == leg.at("line"));
    }

  // A trip no provider knows, a malformed date.
  auto unknown = test::tool_error(
    client.call_tool("get_trip", {{"tripId", "nyc:not-a-trip"}}));
  CHECK(unknown.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{unknown.at("hint").as_string()},
             Catch::Contains("get_departures"));
  // Digitransit's form: Digitransit answers that it knows no such trip.
  auto elsewhere = test::tool_error(
    client.call_tool("get_trip", {{"tripId", "HSL:1234"}}));
  CHECK(elsewhere.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{elsewhere.at("message").as_string()},
             Catch::Contains("Digitransit"));
  // No provider's form: the forms served.
  auto nobody = test::tool_error(
    client.call_tool("get_trip", {{"tripId", "trip-1234"}}));
  CHECK(nobody.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{nobody.at("hint").as_string()},
             Catch::Contains("nyc:"));
  auto bad_date = test::tool_error(client.call_tool(
    "get_trip", {{"tripId", first.at("tripId")}, {"serviceDate", "14.10."}}));
  CHECK(bad_date.at("code").as_string() == "validation-error");
}

TEST_CASE("e2e rider: reachable from a point, a stop and a saved place",
          "[e2e][rider][reachable]") {
  daemon_harness daemon{subway()};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto from_point = test::structured(client.call_tool(
    "reachable", {{"origin", coords(40.7527, -73.9772)},
                  {"when", "2026-10-14T09:00"},
                  {"maxMinutes", 20},
                  {"limit", 10}}));
  CHECK(from_point.at("requested").as_string() == "2026-10-14T09:00:00-04:00");
  auto stops = from_point.at("stops").as_array();
  REQUIRE(stops.size() == 10);
  const auto& summary = from_point.at("summary").as_object();
  CHECK(summary.at("stations").as_int64() > 10); // all counted, 10 listed
  CHECK_FALSE(summary.at("lines").as_array().empty());
  int64_t last = 0;
  for (const auto& s : stops) {
    auto minutes = s.at("minutes").as_int64();
    CHECK(minutes >= last);
    CHECK(minutes <= 20);
    last = minutes;
  }
  // Grand Central itself, on foot.
  CHECK(stops[0].at("stopId").as_string() == "nyc:631");
  CHECK(stops[0].at("rides").as_int64() == 0);

  // From a station: its platforms, named in the origin.
  auto from_stop = test::structured(client.call_tool(
    "reachable", {{"origin", {{"type", "stop"}, {"value", "nyc:127"}}},
                  {"maxMinutes", 15}}));
  CHECK(from_stop.at("origin").at("name").as_string() == "Times Sq-42 St");
  CHECK(from_stop.at("origin").at("stopId").as_string() == "nyc:127");
  // A longer budget reaches more.
  auto longer = test::structured(client.call_tool(
    "reachable", {{"origin", {{"type", "stop"}, {"value", "nyc:127"}}},
                  {"maxMinutes", 45}}));
  CHECK(longer.at("summary").at("stations").as_int64()
        > from_stop.at("summary").at("stations").as_int64());

  // A saved place.
  client.call_tool("save_user_variable",
                   {{"key", "office"},
                    {"type", "location"},
                    {"value", {{"lat", 40.7527}, {"lon", -73.9772}}}});
  auto saved = test::structured(client.call_tool(
    "reachable", {{"origin", {{"type", "label"}, {"value", "office"}}},
                  {"maxMinutes", 10}}));
  CHECK(saved.at("origin").at("label").as_string() == "office");

  // Out of range, and outside every area.
  auto too_long = test::tool_error(client.call_tool(
    "reachable", {{"origin", coords(40.7527, -73.9772)}, {"maxMinutes", 121}}));
  CHECK(too_long.at("code").as_string() == "validation-error");
  auto far = test::tool_error(client.call_tool(
    "reachable", {{"origin", coords(0.0, 0.0)}}));
  CHECK(far.at("code").as_string() == "unsupported-region");
}

TEST_CASE("e2e rider: transit_coverage says what is served, and the "
          "instructions say to ask it first",
          "[e2e][rider][coverage]") {
  auto options = subway();
  options.tfl_key.clear(); // an explicit TfL URL without a key
  daemon_harness daemon{options};
  test::mcp_client client{daemon.port()};
  auto init = client.post(json::object{
    {"jsonrpc", "2.0"},
    {"id", 1},
    {"method", "initialize"},
    {"params", {{"protocolVersion", "2025-11-25"},
                {"capabilities", json::object{}},
                {"clientInfo", {{"name", "rider"}, {"version", "1"}}}}}});
  CHECK_THAT(std::string{
               init.json().at("result").at("instructions").as_string()},
             Catch::Contains("transit_coverage first"));
  client.initialize();
  auto coverage = test::structured(client.call_tool("transit_coverage", {}));
  auto providers = coverage.at("providers").as_array();
  REQUIRE_FALSE(providers.empty());
  const auto& nyc = providers[0].as_object();
  CHECK(nyc.at("name").as_string() == "nyc");
  CHECK(nyc.at("kind").as_string() == "gtfs");
  CHECK(nyc.at("state").as_string() == "live");
  CHECK(nyc.at("idPrefix").as_string() == "nyc:");
  CHECK(nyc.at("agencies").as_array().at(0).as_string()
        == "MTA New York City Transit");
  CHECK(nyc.at("timezone").as_string() == "America/New_York");
  CHECK_FALSE(nyc.at("firstDay").as_string().empty());
  CHECK(nyc.at("area").at("minLat").as_double() < 40.7);
  // Loaded on the engine's clock (2026-10-14).
  CHECK_THAT(std::string{nyc.at("loadedAt").as_string()},
             Catch::StartsWith("2026-10-14"));
  // TfL at an explicit URL without a key says so (D18).
  bool keyless = false;
  for (const auto& p : providers)
    if (p.at("kind").as_string() == "tfl")
      keyless = p.as_object().contains("problem")
                && std::string{p.at("problem").as_string()}.find("no TfL key")
                     != std::string::npos;
  CHECK(keyless);
  bool reachable = false;
  for (const auto& t : nyc.at("tools").as_array())
    reachable = reachable || t.as_string() == "reachable";
  CHECK(reachable);
  // Arguments are refused: there are none.
  auto bad = test::tool_error(
    client.call_tool("transit_coverage", {{"region", "nyc"}}));
  CHECK(bad.at("code").as_string() == "validation-error");
}

TEST_CASE("e2e rider: get_route by a line's name, and the lines of a "
          "station complex",
          "[e2e][rider][get_route]") {
  daemon_harness daemon{subway()};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto seven = test::structured(client.call_tool("get_route", {{"route", "7"}}));
  auto lines = seven.at("lines").as_array();
  REQUIRE(lines.size() == 1);
  const auto& line = lines[0].as_object();
  CHECK(line.at("line").as_string() == "7");
  CHECK(line.at("mode").as_string() == "SUBWAY");
  CHECK(line.contains("color"));
  auto directions = line.at("directions").as_array();
  REQUIRE(directions.size() == 2);
  for (const auto& d : directions) {
    auto stops = d.at("stops").as_array();
    CHECK(stops.size() > 15);
    // Stations, not platforms; Flushing-Main St at one end.
    bool flushing = stops.front().at("name").as_string() == "Flushing-Main St"
                    || stops.back().at("name").as_string()
                         == "Flushing-Main St";
    CHECK(flushing);
    CHECK_THAT(std::string{d.at("firstDeparture").as_string()},
               Catch::StartsWith("2026-10-14T0"));
    // Wednesday 08:30: the 7 runs every few minutes.
    CHECK(d.at("headwayMinutes").to_number<double>() > 0);
    CHECK(d.at("headwayMinutes").to_number<double>() < 10);
  }
  CHECK(seven.at("serviceDate").as_string() == "2026-10-14");

  // Times Sq-42 St: four stations joined by transfers, every line there.
  auto complex = test::structured(
    client.call_tool("get_route", {{"stop", "nyc:127"}}));
  std::vector<std::string> stations;
  for (const auto& s : complex.at("complex").as_array())
    stations.emplace_back(s.at("stopId").as_string());
  CHECK(stations.front() == "nyc:127");
  for (const char* id : {"nyc:725", "nyc:R16", "nyc:902"})
    CHECK(std::find(stations.begin(), stations.end(), id) != stations.end());
  std::vector<std::string> names;
  for (const auto& l : complex.at("lines").as_array())
    names.emplace_back(l.at("line").as_string());
  for (const char* name : {"1", "2", "3", "7", "N", "Q", "R", "W", "S"})
    CHECK(std::find(names.begin(), names.end(), name) != names.end());

  // Neither route nor stop; a line the feed does not have.
  auto neither = test::tool_error(client.call_tool("get_route", json::object{}));
  CHECK(neither.at("code").as_string() == "validation-error");
  auto unknown = test::tool_error(
    client.call_tool("get_route", {{"route", "Z9"}}));
  CHECK(unknown.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{unknown.at("message").as_string()},
             Catch::Contains("Z9"));
}

TEST_CASE("e2e rider: line_status without realtime says there was nothing "
          "to judge by",
          "[e2e][rider][line_status]") {
  daemon_harness daemon{subway()};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto status = test::structured(client.call_tool("line_status", {}));
  CHECK_FALSE(status.at("realtimeUsed").as_bool());
  bool warned = false;
  for (const auto& w : status.at("warnings").as_array())
    warned = warned || w.at("code").as_string() == "no-realtime";
  CHECK(warned);
  for (const auto& l : status.at("lines").as_array())
    CHECK(l.at("status").as_string() == "good-service");
  auto far = test::tool_error(client.call_tool(
    "line_status", {{"near", {{"lat", 0.0}, {"lon", 0.0}}}}));
  CHECK(far.at("code").as_string() == "unsupported-region");
  auto no_feed = test::tool_error(
    client.call_tool("line_status", {{"feed", "london"}}));
  CHECK(no_feed.at("code").as_string() == "validation-error");
}

TEST_CASE("e2e rider: a feed answers in the languages it has (D24)",
          "[e2e][rider][language]") {
  test::harness_options options;
  options.gtfs_feeds = {
    {"hki", {std::string{TRANSITD_FIXTURES_DIR} + "/../gtfs/bilingual"}}};
  options.clock_start = 1791954000; // 2026-10-14T08:00:00+03:00
  daemon_harness daemon{options};
  test::mcp_client client{daemon.port()};
  client.initialize();
  // No language: the feed's own (Finnish).
  auto own = test::structured(
    client.call_tool("get_departures", test::departures_args("hki:RT", 2)));
  CHECK(own.at("stopName").as_string() == "Rautatientori");
  CHECK(own.at("departures").at(0).at("destination").as_string()
        == "Kauppatori");
  // Swedish from translations.txt.
  auto args = test::departures_args("hki:RT", 2);
  args["language"] = "sv";
  auto swedish = test::structured(client.call_tool("get_departures", args));
  CHECK(swedish.at("stopName").as_string() == "Järnvägstorget");
  CHECK(swedish.at("departures").at(0).at("destination").as_string()
        == "Salutorget");
  auto stops = test::structured(client.call_tool(
    "find_stops", {{"coordinate", {{"lat", 60.1677}, {"lon", 24.9528}}},
                   {"radius", 200},
                   {"language", "sv-FI"}}));
  CHECK(stops.at("stops").at(0).at("name").as_string() == "Salutorget");
  // A language the feed does not have: refused, naming those it has.
  args["language"] = "de";
  auto german = test::tool_error(client.call_tool("get_departures", args));
  CHECK(german.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{german.at("hint").as_string()},
             Catch::Contains("fi, sv"));
  // transit_coverage says which: the feed's own first.
  auto coverage = test::structured(client.call_tool("transit_coverage", {}));
  bool listed = false;
  for (const auto& p : coverage.at("providers").as_array())
    if (p.at("name").as_string() == "hki")
      listed = p.at("languages") == json::array{"fi", "sv"};
  CHECK(listed);
  // Not a language tag at all: refused before any provider is asked.
  args["language"] = "swedish please";
  auto nonsense = test::tool_error(client.call_tool("get_departures", args));
  CHECK(nonsense.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{nonsense.at("message").as_string()},
             Catch::Contains("language tag"));
}
