// The Digitransit routing client's pure half, against recorded payloads.

#include "transitd/providers/digitransit_routing.hpp"


#include <boost/json.hpp>
#include <catch2/catch.hpp>

#include "support/stand_ins.hpp"

namespace json = boost::json;
using namespace transitd;
using test::fixture;

namespace {

constexpr const char* recorded_departures
  = "digitransit-routing/recorded-hsl/"
    "hsl-stop-HSL2434202-departures-2022-06-06.response.json";

std::string one_stoptime(const std::string& state, bool realtime,
                         int scheduled, int estimated,
                         const std::string& platform = "null") {
  return R"({"data":{"stop":{"gtfsId":"HSL:1","name":"Kamppi",
    "timezone":"Europe/Helsinki","stoptimes":[{"serviceDay":1757883600,
    "scheduledDeparture":)"
         + std::to_string(scheduled) + R"(,"realtimeDeparture":)"
         + std::to_string(estimated) + R"(,"realtime":)"
         + (realtime ? "true" : "false") + R"(,"realtimeState":")" + state
         + R"(","headsign":"Pasila","stop":{"platformCode":)" + platform
         + R"(},"trip":{"route":{"shortName":"7","mode":"TRAM"}}}]}}})";
}

} // namespace

TEST_CASE("parses the recorded HSL stop departures", "[digitransit][parser]") {
  auto parsed = digitransit::parse_departures(fixture(recorded_departures),
                                              "HSL:2434202", 1000);
  REQUIRE(parsed);
  CHECK(parsed->stop_id == "HSL:2434202");
  CHECK(parsed->fetched_ms == 1000);
  REQUIRE(parsed->stop_times.size() == 100);
  const auto& first = parsed->stop_times.front();
  // serviceDay 1654462800 + 36300 s: 2022-06-06 10:05 Helsinki time.
  CHECK(first.scheduled_departure == 1654462800 + 36300);
  CHECK(first.line == "159");
  CHECK(first.mode == transit_mode::bus);
  CHECK(first.headsign == "Matinkylä (M)");
  CHECK_FALSE(first.realtime);
  CHECK_FALSE(first.cancelled);
  CHECK_FALSE(first.platform);
  for (const auto& t : parsed->stop_times) {
    CHECK(t.mode == transit_mode::bus);
    CHECK_FALSE(t.line.empty());
  }
}

TEST_CASE("realtime states map to realtime and cancellation flags",
          "[digitransit][parser]") {
  auto updated = digitransit::parse_departures(
    one_stoptime("UPDATED", true, 36000, 36090, "\"3\""), "HSL:1", 0);
  REQUIRE(updated);
  const auto& u = updated->stop_times.at(0);
  CHECK(u.realtime);
  CHECK_FALSE(u.cancelled);
  CHECK(u.realtime_departure - u.scheduled_departure == 90);
  CHECK(u.platform == std::optional<std::string>{"3"});
  CHECK(u.mode == transit_mode::tram);
  CHECK(updated->timezone == "Europe/Helsinki");
  CHECK(updated->stop_name == std::optional<std::string>{"Kamppi"});

  auto cancelled = digitransit::parse_departures(
    one_stoptime("CANCELED", true, 36000, 36000), "HSL:1", 0);
  REQUIRE(cancelled);
  CHECK(cancelled->stop_times.at(0).cancelled);

  auto scheduled = digitransit::parse_departures(
    one_stoptime("SCHEDULED", false, 36000, 36000), "HSL:1", 0);
  REQUIRE(scheduled);
  CHECK_FALSE(scheduled->stop_times.at(0).realtime);
}

TEST_CASE("an unknown stop is a validation error naming it",
          "[digitransit][parser]") {
  auto parsed = digitransit::parse_departures(R"({"data":{"stop":null}})",
                                              "HSL:nope", 0);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().code == ec::validation_error);
  CHECK_THAT(parsed.error().message, Catch::Contains("HSL:nope"));
}

TEST_CASE("GraphQL errors are upstream errors with a sanitised message",
          "[digitransit][parser]") {
  auto parsed = digitransit::parse_departures(
    R"({"errors":[{"message":"Exception\nwhile fetching","locations":[]}],
        "data":null})",
    "HSL:1", 0);
  REQUIRE_FALSE(parsed);
  CHECK(parsed.error().code == ec::upstream_error);
  CHECK_THAT(parsed.error().message, Catch::Contains("Exception while"));
  CHECK(parsed.error().message.find('\n') == std::string::npos);
}

TEST_CASE("malformed and truncated bodies are upstream errors",
          "[digitransit][parser]") {
  auto body = fixture(recorded_departures);
  for (auto text : {std::string{"{\"data\": [unterminated"},
                    body.substr(0, body.size() / 2), std::string{"[]"},
                    std::string{"{\"data\":{}}"}}) {
    auto parsed = digitransit::parse_departures(text, "HSL:1", 0);
    REQUIRE_FALSE(parsed);
    CHECK(parsed.error().code == ec::upstream_error);
  }
}

TEST_CASE("the departures query asks for cancelled departures",
          "[digitransit][request]") {
  stop_departures_query q;
  q.stop_id = "HSL:1040129";
  q.start_time = 1757930400;
  q.time_range_seconds = 1200;
  q.max_departures = 20;
  q.language = "sv";
  auto body = json::parse(digitransit::make_departures_body(q)).as_object();
  CHECK(body.at("operationName").as_string() == "StopDepartures");
  auto query = std::string{body.at("query").as_string()};
  CHECK_THAT(query, Catch::Contains("stoptimesWithoutPatterns"));
  CHECK_THAT(query, Catch::Contains("omitCanceled: false"));
  const auto& vars = body.at("variables").as_object();
  CHECK(vars.at("id").as_string() == "HSL:1040129");
  CHECK(vars.at("startTime").as_int64() == 1757930400);
  CHECK(vars.at("timeRange").as_int64() == 1200);
  CHECK(vars.at("numberOfDepartures").as_int64() == 20);
  CHECK(vars.at("language").as_string() == "sv");
}

// Every field, argument and variable type the queries use is checked
// against the recorded HSL schema by graphql-js: tests/graphql/.

TEST_CASE("stop times shaped like OTP's own test expectations parse",
          "[digitransit][parser]") {
  // OTP's realtime-trip expectation lists stoptimes {stop, scheduledDeparture,
  // realtimeDeparture}; under a stop they come with serviceDay and route.
  auto expected = json::parse(
    fixture("digitransit-routing/otp-test-expectations/"
            "realtime-trip.response.json"));
  const auto& stoptimes
    = expected.at("data").at("replacementTrip").at("stoptimes").as_array();
  json::array enriched;
  for (const auto& item : stoptimes) {
    auto st = item.as_object();
    st["serviceDay"] = 1704060000; // 2024-01-01 00:00 +02:00
    st["realtime"] = true;
    st["realtimeState"] = "UPDATED";
    st["trip"] = json::object{
      {"route", json::object{{"shortName", "R"}, {"mode", "RAIL"}}}};
    enriched.push_back(std::move(st));
  }
  json::object body{
    {"data",
     json::object{{"stop", json::object{{"gtfsId", "F:Stop_0"},
                                        {"stoptimes", enriched}}}}}};
  auto parsed = digitransit::parse_departures(json::serialize(body),
                                              "F:Stop_0", 0);
  REQUIRE(parsed);
  REQUIRE(parsed->stop_times.size() == stoptimes.size());
  for (std::size_t i = 0; i < stoptimes.size(); ++i) {
    const auto& source = stoptimes[i].as_object();
    const auto& t = parsed->stop_times[i];
    CHECK(t.scheduled_departure
          == 1704060000 + source.at("scheduledDeparture").as_int64());
    CHECK(t.realtime_departure
          == 1704060000 + source.at("realtimeDeparture").as_int64());
    CHECK(t.mode == transit_mode::rail);
  }
}

TEST_CASE("parses the official stopsByRadius example", "[digitransit][stops]") {
  auto parsed = digitransit::parse_nearby_stops(
    fixture("digitransit-routing/docs-examples/"
            "docs-stopsByRadius-page1.response.json"),
    7);
  REQUIRE(parsed);
  REQUIRE(parsed->stops.size() == 2);
  CHECK(parsed->stops[0].name == "Asemapäällikönkatu");
  CHECK(parsed->stops[0].distance == 136);
  CHECK(parsed->stops[0].position.lat == Approx(60.199135));
  CHECK(parsed->stops[1].distance == 285);
  CHECK(parsed->fetched_ms == 7);
}

TEST_CASE("parses OTP's nearest expectation, skipping non-stops",
          "[digitransit][stops]") {
  auto parsed = digitransit::parse_nearby_stops(
    fixture("digitransit-routing/otp-test-expectations/nearest.response.json"),
    0);
  REQUIRE(parsed);
  // One stop; the rental station and vehicle are not stops.
  REQUIRE(parsed->stops.size() == 1);
  CHECK(parsed->stops[0].id == "F:A");
  CHECK(parsed->stops[0].modes == std::vector<transit_mode>{transit_mode::other});
}

TEST_CASE("nearest stops carry vehicle and route modes",
          "[digitransit][stops]") {
  auto parsed = digitransit::parse_nearby_stops(
    R"({"data":{"nearest":{"edges":[{"node":{"distance":42,"place":{
      "gtfsId":"HSL:1","name":"Kamppi","lat":60.1,"lon":24.9,
      "vehicleMode":"TRAM","routes":[{"mode":"TRAM"},{"mode":"BUS"}]}}}]}}})",
    0);
  REQUIRE(parsed);
  CHECK(parsed->stops.at(0).modes
        == std::vector<transit_mode>{transit_mode::tram, transit_mode::bus});
  CHECK(parsed->stops.at(0).distance == 42);
  auto none = digitransit::parse_nearby_stops(R"({"data":{"nearest":null}})",
                                              0);
  REQUIRE(none);
  CHECK(none->stops.empty());
  CHECK_FALSE(digitransit::parse_nearby_stops(R"({"data":{}})", 0));
  CHECK_FALSE(digitransit::parse_nearby_stops(
    R"({"errors":[{"message":"x"}]})", 0));
}

TEST_CASE("the nearby query filters by place type and modes",
          "[digitransit][stops]") {
  nearby_stops_query q;
  q.center = {60.17, 24.94};
  q.radius = 500;
  q.max_results = 7;
  q.modes = {transit_mode::tram};
  auto body = json::parse(digitransit::make_nearby_stops_body(q)).as_object();
  auto query = std::string{body.at("query").as_string()};
  CHECK_THAT(query, Catch::Contains("filterByPlaceTypes: [STOP]"));
  CHECK_THAT(query, Catch::Contains("filterByModes: $modes"));
  const auto& vars = body.at("variables").as_object();
  CHECK(vars.at("maxDistance").as_int64() == 500);
  CHECK(vars.at("maxResults").as_int64() == 7);
  CHECK(vars.at("modes").at(0).as_string() == "TRAM");
  q.modes.clear();
  body = json::parse(digitransit::make_nearby_stops_body(q)).as_object();
  CHECK(body.at("variables").at("modes").is_null());
}

TEST_CASE("parses OTP's planConnection expectation (extended)",
          "[digitransit][plan]") {
  auto parsed = digitransit::parse_plan(
    fixture("digitransit-routing/otp-test-expectations/"
            "planConnection-extended.response.json"),
    3);
  REQUIRE(parsed);
  REQUIRE_FALSE(parsed->itineraries.empty());
  const auto& it = parsed->itineraries[0];
  CHECK(it.transfers == 1);
  CHECK(it.walk_distance == Approx(28.0));
  REQUIRE(it.legs.size() >= 3);
  CHECK(it.legs[0].mode == transit_mode::walk);
  CHECK_FALSE(it.legs[0].realtime_start);
  const auto& bus = it.legs[1];
  CHECK(bus.mode == transit_mode::bus);
  // 2020-02-02T10:51:00Z scheduled, estimated 11:01: ten minutes late.
  CHECK(bus.scheduled_start == 1580640660);
  REQUIRE(bus.realtime_start);
  CHECK(*bus.realtime_start - bus.scheduled_start == 600);
  CHECK(bus.from.name == "B");
  CHECK(parsed->fetched_ms == 3);
}

TEST_CASE("parses OTP's planConnection tutorial answer",
          "[digitransit][plan]") {
  auto parsed = digitransit::parse_plan(
    fixture("digitransit-routing/otp-test-expectations/"
            "planConnection-tutorial.response.json"),
    0);
  REQUIRE(parsed);
  CHECK_FALSE(parsed->itineraries.empty());
  for (const auto& it : parsed->itineraries)
    CHECK_FALSE(it.legs.empty());
  // Times on from.departure / to.arrival: the bus is ten minutes late.
  const auto& bus = parsed->itineraries.at(0).legs.at(1);
  CHECK(bus.mode == transit_mode::bus);
  REQUIRE(bus.realtime_start);
  CHECK(*bus.realtime_start - bus.scheduled_start == 600);
}

TEST_CASE("plan legs carry the line's colours and OTP's leg geometry",
          "[digitransit][plan]") {
  auto leg_with = [](const std::string& route, const std::string& geometry) {
    auto parsed = digitransit::parse_plan(
      R"({"data":{"planConnection":{"edges":[{"node":{"numberOfTransfers":0,
        "walkDistance":0,"legs":[{"mode":"TRAM","transitLeg":true,
        "route":)" + route + R"(,"legGeometry":)" + geometry + R"(,
        "start":{"scheduledTime":"2025-09-15T10:00:00+03:00"},
        "end":{"scheduledTime":"2025-09-15T10:10:00+03:00"},
        "from":{"name":"A","lat":38.5,"lon":-120.2},
        "to":{"name":"B","lat":43.252,"lon":-126.453}}]}}]}}})",
      0);
    REQUIRE(parsed);
    return parsed->itineraries.at(0).legs.at(0);
  };
  // The polyline format's own example: three points.
  auto leg = leg_with(R"({"shortName":"4","color":"00985F","textColor":"FFFFFF"})",
                      R"({"points":"_p~iF~ps|U_ulLnnqC_mqNvxq`@"})");
  CHECK(leg.color == std::optional<std::string>{"00985F"});
  CHECK(leg.text_color == std::optional<std::string>{"FFFFFF"});
  REQUIRE(leg.path.size() == 3);
  CHECK(leg.path[1].lat == Approx(40.7));
  // What is not a colour or a polyline is left out, not passed on.
  auto bad = leg_with(R"({"shortName":"4","color":"red;x","textColor":null})",
                      R"({"points":"_p~iF~ps|U_"})");
  CHECK_FALSE(bad.color);
  CHECK_FALSE(bad.text_color);
  CHECK(bad.path.empty());
  CHECK(leg_with(R"({"shortName":"4"})", "null").path.empty());
}

TEST_CASE("plan answers: cancellations, empty, errors", "[digitransit][plan]") {
  auto cancelled = digitransit::parse_plan(
    R"({"data":{"planConnection":{"edges":[{"node":{"numberOfTransfers":0,
      "walkDistance":10,"legs":[{"mode":"BUS","transitLeg":true,
      "realtimeState":"CANCELED","route":{"shortName":"550"},
      "start":{"scheduledTime":"2025-09-15T10:00:00+03:00","estimated":null},
      "end":{"scheduledTime":"2025-09-15T10:10:00+03:00","estimated":null},
      "from":{"name":"A","lat":60.1,"lon":24.9,"stop":{"gtfsId":"HSL:1"}},
      "to":{"name":"B","lat":60.2,"lon":24.8,"stop":null}}]}}]}}})",
    0);
  REQUIRE(cancelled);
  const auto& leg = cancelled->itineraries.at(0).legs.at(0);
  CHECK(leg.cancelled);
  CHECK(leg.line == std::optional<std::string>{"550"});
  CHECK(leg.from.stop_id == std::optional<std::string>{"HSL:1"});
  CHECK_FALSE(leg.to.stop_id);
  CHECK(leg.scheduled_start == 1757919600);
  auto empty = digitransit::parse_plan(
    R"({"data":{"planConnection":{"edges":[]}}})", 0);
  REQUIRE(empty);
  CHECK(empty->itineraries.empty());
  CHECK_FALSE(digitransit::parse_plan(R"({"errors":[{"message":"x"}]})", 0));
  CHECK_FALSE(digitransit::parse_plan(R"({"data":{}})", 0));
}

TEST_CASE("the plan query uses planConnection with the preferences",
          "[digitransit][plan]") {
  trip_plan_query q;
  q.from = {60.17, 24.94};
  q.to = {60.20, 24.66};
  q.time = 1757930400;
  q.arrive_by = true;
  q.first = 5;
  q.walk_reluctance = 1.6;
  q.wheelchair = true;
  auto body = json::parse(digitransit::make_plan_body(q)).as_object();
  auto query = std::string{body.at("query").as_string()};
  CHECK_THAT(query, Catch::Contains("planConnection("));
  CHECK_THAT(query, Catch::Contains("maximumTransfers"));
  const auto& vars = body.at("variables").as_object();
  CHECK(vars.at("origin").at("location").at("coordinate").at("latitude")
          .as_double()
        == Approx(60.17));
  CHECK(vars.at("dateTime").at("latestArrival").as_string()
        == "2025-09-15T10:00:00Z");
  CHECK(vars.at("walkReluctance").as_double() == Approx(1.6));
  CHECK(vars.at("wheelchair").as_bool());
}

TEST_CASE("numbers out of range are refused, not undefined behaviour "
          "(fuzz findings)",
          "[digitransit][parser][fuzz]") {
  // A distance of 2.9e99 metres: dropped, not cast.
  auto stops = digitransit::parse_nearby_stops(
    R"({"data":{"stopsByRadius":{"edges":[{"node":{"distance":2.88889e99,
        "stop":{"gtfsId":"HSL:1","name":"A","lat":60.1,"lon":24.9}}}]}}})",
    1);
  CHECK(stops);
  // A service day far beyond any calendar would overflow when added.
  auto departures = digitransit::parse_departures(
    R"({"data":{"stop":{"gtfsId":"HSL:1","name":"A","stoptimesWithoutPatterns":[
        {"serviceDay":9.0e18,"scheduledDeparture":9.0e18,
         "realtimeDeparture":9.0e18}]}}})",
    "HSL:1", 1);
  if (departures)
    CHECK(departures->stop_times.empty());
  else
    CHECK(departures.error().code == ec::upstream_error);
}

TEST_CASE("Digitransit alerts: the query asks for a stop's, a route's or "
          "a feed's alerts with every text and entity",
          "[digitransit][alerts]") {
  alerts_query q;
  q.stop_id = "HSL:1040129";
  auto stop = json::parse(digitransit::make_alerts_body(q, "HSL")).as_object();
  CHECK(stop.at("operationName").as_string() == "StopAlerts");
  CHECK(stop.at("variables").at("id").as_string() == "HSL:1040129");
  auto text = std::string{stop.at("query").as_string()};
  CHECK(text.find("stop(id: $id)") != std::string::npos);
  CHECK(text.find("alertHeaderTextTranslations") != std::string::npos);
  CHECK(text.find("... on StopOnRoute") != std::string::npos);
  q.stop_id.clear();
  q.route_id = "HSL:2550";
  auto route = json::parse(digitransit::make_alerts_body(q, "HSL")).as_object();
  CHECK(route.at("operationName").as_string() == "RouteAlerts");
  q.route_id.clear();
  q.trip_id = "HSL:2550_20251124_Ma_2_0712";
  auto trip = json::parse(digitransit::make_alerts_body(q, "HSL")).as_object();
  CHECK(trip.at("operationName").as_string() == "TripAlerts");
  CHECK(trip.at("variables").at("id").as_string() == q.trip_id);
  q.trip_id.clear();
  auto feed = json::parse(digitransit::make_alerts_body(q, "HSL")).as_object();
  CHECK(feed.at("operationName").as_string() == "FeedAlerts");
  CHECK(feed.at("variables").at("feeds").as_array()
        == json::array{json::string{"HSL"}});
}

TEST_CASE("Digitransit alerts: in force at the time asked, texts in the "
          "language (else English), entities by name",
          "[digitransit][alerts]") {
  auto body = fixture("digitransit-routing/written/stop-alerts.response.json");
  alerts_query q;
  q.stop_id = "HSL:1040129";
  q.time = 1763970000; // 2025-11-24 07:40 UTC
  auto parsed = digitransit::parse_alerts(body, q, 42);
  REQUIRE(parsed);
  CHECK(parsed->fetched_ms == 42);
  CHECK(parsed->timezone == "Europe/Helsinki");
  // The maintenance starting two days later is not in force yet.
  REQUIRE(parsed->alerts.size() == 2);
  const auto& moved = parsed->alerts[0];
  CHECK(moved.header == "Stop moves");
  CHECK(moved.language == "en");
  CHECK(moved.description == "The Arkadian puistikko stop moves 50 metres.");
  CHECK(moved.cause == "construction");
  CHECK(moved.effect == "stop-moved");
  CHECK(moved.severity == "warning");
  REQUIRE(moved.periods.size() == 1);
  CHECK(moved.periods[0].start == 1763960400);
  CHECK(moved.periods[0].end == 1764028800);
  REQUIRE(moved.subjects.size() == 1);
  CHECK(moved.subjects[0].type == "stop");
  CHECK(moved.subjects[0].name == "Arkadian puistikko");
  const auto& late = parsed->alerts[1];
  CHECK(late.severity == "severe");
  CHECK(late.url == "https://www.hsl.fi/en");
  CHECK_FALSE(late.periods[0].end);
  std::vector<std::string> kinds;
  for (const auto& s : late.subjects)
    kinds.push_back(s.type + ":" + s.name);
  CHECK(kinds
        == std::vector<std::string>{"route:550",
                                    "trip:550 to Westendinasema",
                                    "stop:Arkadian puistikko",
                                    "agency:Helsingin seudun liikenne",
                                    "route-type:"});
  CHECK(late.subjects[4].id == "3");

  // Swedish where given; English where not.
  q.language = "sv";
  auto swedish = digitransit::parse_alerts(body, q, 42);
  CHECK(swedish->alerts[0].header == "Hållplatsen flyttas");
  CHECK(swedish->alerts[0].language == "sv");
  CHECK(swedish->alerts[0].description
        == "The Arkadian puistikko stop moves 50 metres.");
  CHECK(swedish->alerts[1].header == "Line 550 late");
  // Before any starts: none; two days on: the maintenance only.
  q.time = 1763950000;
  CHECK(digitransit::parse_alerts(body, q, 42)->alerts.empty());
  q.time = 1764120000;
  auto later = digitransit::parse_alerts(body, q, 42);
  REQUIRE(later->alerts.size() == 2);
  CHECK(later->alerts[1].header == "Tuleva remontti");
  CHECK(later->alerts[1].language.empty());
}

TEST_CASE("Digitransit alerts: an unknown stop or route is named back; "
          "GraphQL errors and malformed bodies are upstream errors",
          "[digitransit][alerts]") {
  alerts_query q;
  q.stop_id = "HSL:nope";
  auto unknown = digitransit::parse_alerts(R"({"data":{"stop":null}})", q, 0);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == ec::validation_error);
  CHECK(unknown.error().message.find("HSL:nope") != std::string::npos);
  alerts_query trip;
  trip.trip_id = "HSL:gone";
  auto no_trip = digitransit::parse_alerts(R"({"data":{"trip":null}})", trip, 0);
  REQUIRE_FALSE(no_trip);
  CHECK(no_trip.error().message.find("trip \"HSL:gone\"") != std::string::npos);
  auto error = digitransit::parse_alerts(
    R"({"errors":[{"message":"boom"}]})", q, 0);
  REQUIRE_FALSE(error);
  CHECK(error.error().code == ec::upstream_error);
  CHECK_FALSE(digitransit::parse_alerts("{", q, 0));
  CHECK_FALSE(digitransit::parse_alerts(R"({"data":{}})", q, 0));
  alerts_query all;
  auto none = digitransit::parse_alerts(R"({"data":{"alerts":null}})", all, 0);
  REQUIRE(none);
  CHECK(none->alerts.empty());
  CHECK_FALSE(digitransit::parse_alerts(R"({"data":{"alerts":7}})", all, 0));
}
