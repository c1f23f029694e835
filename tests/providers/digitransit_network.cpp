// Digitransit's trips, lines and line status (providers/digitransit_network):
// answers shaped as OTP's GTFS GraphQL schema (HSL, 2024-10) writes them.

#include "transitd/providers/digitransit_network.hpp"

#include <string>

#include <boost/json.hpp>
#include <catch2/catch.hpp>

using namespace transitd;
namespace json = boost::json;

namespace {

// 2026-10-14 00:00 in Helsinki (UTC+3): OTP's serviceDay.
constexpr int64_t service_day = 1791925200;

trip_query trip_ask(std::string id) {
  trip_query q;
  q.trip_id = std::move(id);
  q.time = service_day + 8 * 3600;
  q.language = "en";
  return q;
}

} // namespace

TEST_CASE("Digitransit trip: the service date asked, else the day in "
          "Helsinki", "[digitransit][get_trip]") {
  auto q = trip_ask("HSL:1");
  CHECK(digitransit::service_date_of(q) == "20261014");
  // 21:30 UTC on the 13th is already the 14th in Helsinki.
  q.time = service_day + 30 * 60;
  CHECK(digitransit::service_date_of(q) == "20261014");
  q.service_day = 20000; // 2024-10-04
  CHECK(digitransit::service_date_of(q) == "20241004");
  auto body = json::parse(digitransit::make_trip_body(q, "20241004"));
  CHECK(body.at("operationName").as_string() == "TripCalls");
  CHECK(body.at("variables").at("id").as_string() == "HSL:1");
  CHECK(body.at("variables").at("date").as_string() == "20241004");
}

TEST_CASE("Digitransit trip: calls in order with realtime, skipped stops "
          "and no boarding at the end", "[digitransit][get_trip]") {
  auto body = R"({"data":{"trip":{
    "gtfsId":"HSL:1055_20261014_Ke_1_0712","tripHeadsign":"Pasila",
    "activeDates":["20261014"],
    "route":{"gtfsId":"HSL:1055","shortName":"55","mode":"BUS","color":null},
    "stoptimesForDate":[
      {"stop":{"gtfsId":"HSL:1","name":"Rautatientori","lat":60.17,"lon":24.94,"platformCode":"12"},
       "serviceDay":1791925200,"scheduledArrival":25920,"scheduledDeparture":25920,
       "realtimeArrival":26040,"realtimeDeparture":26040,"realtime":true,
       "realtimeState":"UPDATED","pickupType":"SCHEDULED","dropoffType":"NONE"},
      {"stop":{"gtfsId":"HSL:2","name":"Kaisaniemi","lat":60.172,"lon":24.946,"platformCode":null},
       "serviceDay":1791925200,"scheduledArrival":26040,"scheduledDeparture":26040,
       "realtimeArrival":26040,"realtimeDeparture":26040,"realtime":true,
       "realtimeState":"SKIPPED","pickupType":"SCHEDULED","dropoffType":"SCHEDULED"},
      {"stop":{"gtfsId":"HSL:3","name":"Pasila","lat":60.199,"lon":24.933},
       "serviceDay":1791925200,"scheduledArrival":26400,"scheduledDeparture":26400,
       "realtimeArrival":26500,"realtimeDeparture":26500,"realtime":true,
       "realtimeState":"UPDATED","pickupType":"NONE","dropoffType":"SCHEDULED"}
    ]}}})";
  auto q = trip_ask("HSL:1055_20261014_Ke_1_0712");
  auto trip = digitransit::parse_trip(body, q, "20261014", 1234);
  REQUIRE(trip);
  CHECK(trip->service_date == "2026-10-14");
  CHECK(trip->line == "55");
  CHECK(trip->mode == transit_mode::bus);
  CHECK(trip->headsign == "Pasila");
  CHECK(trip->state == "running");
  CHECK(trip->timezone == "Europe/Helsinki");
  REQUIRE(trip->calls.size() == 3);
  const auto& first = trip->calls[0];
  CHECK(first.stop_id == "HSL:1");
  CHECK(first.platform == std::optional<std::string>{"12"});
  CHECK(first.scheduled_departure == service_day + 25920);
  CHECK(first.realtime_departure == std::optional<int64_t>{service_day + 26040});
  CHECK_FALSE(first.drop_off);
  CHECK(trip->calls[1].skipped);
  CHECK_FALSE(trip->calls[1].platform);
  CHECK_FALSE(trip->calls[2].pickup);
}

TEST_CASE("Digitransit trip: unknown trips and days it does not run are "
          "the caller's to fix", "[digitransit][get_trip]") {
  auto q = trip_ask("HSL:nope");
  auto unknown = digitransit::parse_trip(R"({"data":{"trip":null}})", q,
                                         "20261014", 0);
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == ec::validation_error);
  CHECK(unknown.error().message.find("HSL:nope") != std::string::npos);
  auto not_today = digitransit::parse_trip(
    R"({"data":{"trip":{"gtfsId":"HSL:x","activeDates":["20261015","20261016"],
        "route":{"shortName":"55","mode":"BUS"},"stoptimesForDate":[]}}})",
    q, "20261014", 0);
  REQUIRE_FALSE(not_today);
  CHECK(not_today.error().code == ec::validation_error);
  CHECK(not_today.error().hint == "it runs on 2026-10-15, 2026-10-16");
  auto cancelled = digitransit::parse_trip(
    R"({"data":{"trip":{"gtfsId":"HSL:x","route":{"shortName":"55","mode":"BUS"},
        "stoptimesForDate":[{"stop":{"gtfsId":"HSL:1"},"serviceDay":1791925200,
        "scheduledArrival":100,"scheduledDeparture":100,"realtime":true,
        "realtimeState":"CANCELED"}]}}})",
    q, "20261014", 0);
  REQUIRE(cancelled);
  CHECK(cancelled->state == "cancelled");
  auto broken = digitransit::parse_trip(R"({"errors":[{"message":"boom"}]})",
                                        q, "20261014", 0);
  REQUIRE_FALSE(broken);
  CHECK(broken.error().code == ec::upstream_error);
}

TEST_CASE("Digitransit line status: the lines the alerts name, worst first",
          "[digitransit][line_status]") {
  alert_list alerts;
  service_alert delays;
  delays.id = "a1";
  delays.header = "Line 550: disruption";
  delays.effect = "significant-delays";
  delays.severity = "severe";
  delays.subjects = {{"route", "HSL:2550", "550", "BUS"}};
  service_alert works;
  works.id = "a2";
  works.header = "Tram 7: track work";
  works.effect = "detour";
  works.cause = "maintenance";
  works.subjects = {{"route", "HSL:1007", "7", "TRAM"},
                    {"stop", "HSL:1", "Kamppi", ""}};
  service_alert info;
  info.id = "a3";
  info.header = "Network running";
  info.effect = "other-effect";
  info.subjects = {{"agency", "HSL:HSL", "HSL", ""}};
  alerts.alerts = {works, delays, info};
  auto lines = digitransit::lines_of_alerts(alerts, "");
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].route_id == "HSL:2550");
  CHECK(lines[0].status == "severe-delays");
  CHECK(lines[0].reasons.at(0).alert_id == "a1");
  CHECK(lines[1].line == "7");
  CHECK(lines[1].mode == transit_mode::tram);
  CHECK(lines[1].status == "planned-works");
  auto seven = digitransit::lines_of_alerts(alerts, "7");
  REQUIRE(seven.size() == 1);
  CHECK(seven[0].route_id == "HSL:1007");
  CHECK(digitransit::lines_of_alerts(alerts, "hsl:2550").size() == 1);
  CHECK(digitransit::lines_of_alerts(alerts, "M1").empty());
}

TEST_CASE("Digitransit routes: a line's directions, or the lines at a stop",
          "[digitransit][get_route]") {
  route_query q;
  q.route = "55";
  q.time = service_day + 3600;
  auto body = json::parse(digitransit::make_routes_body(q));
  CHECK(body.at("variables").at("name").as_string() == "55");
  CHECK_FALSE(body.at("variables").at("atStop").as_bool());
  auto routes = digitransit::parse_routes(R"({"data":{"routes":[
    {"gtfsId":"HSL:1055","shortName":"55","longName":"Rautatientori - Koskela",
     "mode":"BUS","color":"007AC9","patterns":[
       {"directionId":0,"headsign":"Koskela","stops":[
         {"gtfsId":"HSL:1","name":"Rautatientori","lat":60.17,"lon":24.94},
         {"gtfsId":"HSL:2","name":"Koskela","lat":60.22,"lon":24.96}]},
       {"directionId":0,"headsign":"Koskela","stops":[
         {"gtfsId":"HSL:2","name":"Koskela","lat":60.22,"lon":24.96}]},
       {"directionId":1,"headsign":"Rautatientori","stops":[
         {"gtfsId":"HSL:2","name":"Koskela","lat":60.22,"lon":24.96},
         {"gtfsId":"HSL:1","name":"Rautatientori","lat":60.17,"lon":24.94}]}]},
    {"gtfsId":"HSL:1550","shortName":"550","mode":"BUS","patterns":[]}]}})",
                                          q, 7);
  REQUIRE(routes);
  REQUIRE(routes->lines.size() == 1); // 550 only starts like 55
  const auto& line = routes->lines[0];
  CHECK(line.color == "007AC9");
  REQUIRE(line.directions.size() == 2);
  CHECK(line.directions[0].headsigns == std::vector<std::string>{"Koskela"});
  CHECK(line.directions[0].stops.size() == 2);
  CHECK(line.directions[1].stops.front().stop_id == "HSL:2");
  CHECK(routes->service_date == "2026-10-14");
  auto none = digitransit::parse_routes(R"({"data":{"routes":[]}})", q, 7);
  REQUIRE_FALSE(none);
  CHECK(none.error().code == ec::validation_error);

  route_query at;
  at.stop = "HSL:1";
  at.time = q.time;
  auto stop_body = json::parse(digitransit::make_routes_body(at));
  CHECK(stop_body.at("variables").at("atStop").as_bool());
  auto at_stop = digitransit::parse_routes(R"({"data":{"stop":{
    "gtfsId":"HSL:1","name":"Rautatientori","lat":60.17,"lon":24.94,
    "routes":[{"gtfsId":"HSL:1055","shortName":"55","mode":"BUS"},
              {"gtfsId":"HSL:1007","shortName":"7","mode":"TRAM"}]}}})",
                                           at, 7);
  REQUIRE(at_stop);
  CHECK(at_stop->complex.at(0).name == "Rautatientori");
  REQUIRE(at_stop->lines.size() == 2);
  CHECK(at_stop->lines[1].mode == transit_mode::tram);
  CHECK(at_stop->lines[1].at_stop == "HSL:1");
  auto nowhere = digitransit::parse_routes(R"({"data":{"stop":null}})", at, 7);
  REQUIRE_FALSE(nowhere);
  CHECK(nowhere.error().code == ec::validation_error);
}
