// TfL's StopPoint, Arrivals and Line Status parsers (providers/tfl_network),
// on answers written as TfL documents them.

#include "transitd/providers/tfl_network.hpp"

#include <string>

#include <catch2/catch.hpp>

#include "transitd/messages/time.hpp"

using namespace transitd;

namespace {

http_response answer(int status, std::string body) {
  http_response r;
  r.status = status;
  r.body = std::move(body);
  return r;
}

} // namespace

TEST_CASE("TfL stop ids: NaPTAN codes and hubs, nothing else", "[tfl]") {
  for (const char* id : {"940GZZLUOXC", "910GPADTON", "490008660N",
                         "490G00008660", "HUBOXC", "HUBKGX"})
    CHECK(tfl::is_stop_id(id));
  for (const char* id : {"", "1234", "1000173", "HSL:1040129", "nyc:127",
                         "940gzzluoxc", "HUB", "HUB-OX", "94OGZZ",
                         "940GZZLUOXC940GZZLU", "Oxford Circus"})
    CHECK_FALSE(tfl::is_stop_id(id));
}

TEST_CASE("TfL StopPoint: a hub's arrivals are its stations' and stops'",
          "[tfl]") {
  auto hub = tfl::parse_stop_point(answer(200, R"({
    "$type": "Tfl.Api.Presentation.Entities.StopPoint, Tfl.Api.Presentation.Entities",
    "naptanId": "HUBOXC", "commonName": "Oxford Circus",
    "stopType": "TransportInterchange",
    "children": [
      {"naptanId": "940GZZLUOXC", "stopType": "NaptanMetroStation",
       "children": [{"naptanId": "9400ZZLUOXC1", "stopType": "NaptanMetroPlatform"}]},
      {"naptanId": "490G00008660", "stopType": "NaptanOnstreetBusCoachStopCluster",
       "children": [
         {"naptanId": "490008660N", "stopType": "NaptanPublicBusCoachTram"},
         {"naptanId": "490008660S", "stopType": "NaptanPublicBusCoachTram"}]},
      {"naptanId": "940GZZLUOXC", "stopType": "NaptanMetroStation"},
      {"naptanId": "HUBOXC-car-park", "stopType": "CarPickupSetDownArea"}
    ]})"),
                                   "HUBOXC");
  REQUIRE(hub);
  CHECK(hub->name == "Oxford Circus");
  CHECK(hub->arrival_ids
        == std::vector<std::string>{"940GZZLUOXC", "490008660N",
                                    "490008660S"});
  auto station = tfl::parse_stop_point(
    answer(200, R"({"naptanId":"940GZZLUBNK","commonName":"Bank Underground Station","children":[]})"),
    "940GZZLUBNK");
  REQUIRE(station);
  CHECK(station->arrival_ids == std::vector<std::string>{"940GZZLUBNK"});
}

TEST_CASE("TfL StopPoint: an unknown id is the caller's mistake", "[tfl]") {
  auto missing = tfl::parse_stop_point(
    answer(404, R"({"$type":"Tfl.Api.Presentation.Entities.ApiError, Tfl.Api.Presentation.Entities","httpStatusCode":404,"message":"The following stop point is not recognised: 940GZZLUXXX"})"),
    "940GZZLUXXX");
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ec::validation_error);
  CHECK(missing.error().message.find("940GZZLUXXX") != std::string::npos);
  auto throttled = tfl::parse_stop_point(answer(429, "{}"), "HUBOXC");
  REQUIRE_FALSE(throttled);
  CHECK(throttled.error().code == ec::rate_limited);
  auto broken = tfl::parse_stop_point(answer(200, "{\"naptanId\":"),
                                      "HUBOXC");
  REQUIRE_FALSE(broken);
  CHECK(broken.error().code == ec::upstream_error);
  auto denied = tfl::parse_stop_point(
    answer(403, R"({"message":"Invalid app_key"})"), "HUBOXC");
  REQUIRE_FALSE(denied);
  CHECK(denied.error().code == ec::upstream_error);
  CHECK(denied.error().message.find("Invalid app_key") != std::string::npos);
}

TEST_CASE("TfL Arrivals: predictions as departures without a claimed delay",
          "[tfl]") {
  int64_t newest = 0;
  auto times = tfl::parse_arrivals(answer(200, R"([
    {"vehicleId":"LJ09KOU","naptanId":"490006170S","lineId":"243",
     "lineName":"243","platformName":"KJ","direction":"outbound",
     "destinationName":"Waterloo","timestamp":"2015-11-07T12:31:48.839Z",
     "timeToStation":338,"towards":"Aldgate or Old Street",
     "expectedArrival":"2015-11-07T12:37:27Z","modeName":"bus"},
    {"vehicleId":"LJ09KOU","naptanId":"490006170S","lineId":"243",
     "lineName":"243","platformName":"KJ","destinationName":"Waterloo",
     "expectedArrival":"2015-11-07T12:37:27Z","modeName":"bus"},
    {"vehicleId":"201","naptanId":"940GZZLUOXC","lineId":"victoria",
     "lineName":"Victoria","platformName":"null","towards":"Brixton",
     "timestamp":"2015-11-07T12:32:00Z",
     "expectedArrival":"2015-11-07T12:33:00Z","modeName":"tube"},
    {"vehicleId":"202","lineName":"Victoria","expectedArrival":"soon"}
  ])"),
                                   newest);
  REQUIRE(times);
  REQUIRE(times->size() == 2); // the repeat once, the timeless none
  const auto& bus = (*times)[0];
  CHECK(bus.line == "243");
  CHECK(bus.mode == transit_mode::bus);
  CHECK(bus.headsign == "Waterloo");
  CHECK(bus.platform == std::optional<std::string>{"KJ"});
  CHECK(bus.prediction_only);
  CHECK(bus.realtime);
  CHECK(bus.scheduled_departure == *parse_iso8601("2015-11-07T12:37:27Z"));
  CHECK(bus.realtime_departure == bus.scheduled_departure);
  const auto& tube = (*times)[1];
  CHECK(tube.mode == transit_mode::subway);
  CHECK(tube.headsign == "Brixton"); // no destination: towards
  CHECK_FALSE(tube.platform);        // TfL's "null" is no platform
  CHECK(newest == *parse_iso8601("2015-11-07T12:32:00Z") * 1000);
  auto not_a_list = tfl::parse_arrivals(answer(200, "{}"), newest);
  REQUIRE_FALSE(not_a_list);
  CHECK(not_a_list.error().code == ec::upstream_error);
}

TEST_CASE("TfL line status: severities as the six statuses, worst first",
          "[tfl]") {
  CHECK(tfl::status_of_severity(10) == "good-service");
  CHECK(tfl::status_of_severity(9) == "minor-delays");
  CHECK(tfl::status_of_severity(6) == "severe-delays");
  CHECK(tfl::status_of_severity(3) == "part-suspended");
  CHECK(tfl::status_of_severity(2) == "suspended");
  CHECK(tfl::status_of_severity(20) == "suspended");
  CHECK(tfl::status_of_severity(4) == "planned-works");
  CHECK(tfl::status_of_severity(5) == "planned-works");
  auto lines = tfl::parse_line_status(answer(200, R"([
    {"id":"bakerloo","name":"Bakerloo","modeName":"tube",
     "lineStatuses":[{"statusSeverity":10,"statusSeverityDescription":"Good Service"}]},
    {"id":"metropolitan","name":"Metropolitan","modeName":"tube",
     "lineStatuses":[
       {"statusSeverity":0,"statusSeverityDescription":"Special Service",
        "reason":"Metropolitan Line: trains not following the timetable."},
       {"statusSeverity":3,"statusSeverityDescription":"Part Suspended",
        "reason":"Metropolitan Line: no service between Harrow and Amersham."}]},
    {"id":"dlr","name":"DLR","modeName":"dlr",
     "lineStatuses":[{"statusSeverity":9,"statusSeverityDescription":"Minor Delays"}]},
    {"name":"nameless"}
  ])"));
  REQUIRE(lines);
  REQUIRE(lines->size() == 3);
  CHECK((*lines)[0].route_id == "metropolitan");
  CHECK((*lines)[0].status == "part-suspended");
  REQUIRE((*lines)[0].reasons.size() == 2);
  CHECK((*lines)[0].reasons[0].status == "part-suspended");
  CHECK((*lines)[0].reasons[1].status == "minor-delays");
  CHECK((*lines)[0].color == "9B0056");
  CHECK((*lines)[1].route_id == "dlr");
  CHECK((*lines)[1].mode == transit_mode::rail);
  REQUIRE((*lines)[1].reasons.size() == 1);
  CHECK((*lines)[1].reasons[0].text == "Minor Delays");
  CHECK((*lines)[2].route_id == "bakerloo");
  CHECK((*lines)[2].status == "good-service");
  CHECK((*lines)[2].reasons.empty());
}

TEST_CASE("TfL lines: riders' names as TfL's ids, a line's stops per "
          "direction", "[tfl][get_route]") {
  CHECK(tfl::line_id_of("Victoria") == "victoria");
  CHECK(tfl::line_id_of("Waterloo & City") == "waterloo-city");
  CHECK(tfl::line_id_of("Hammersmith & City") == "hammersmith-city");
  CHECK(tfl::line_id_of("Elizabeth line") == "elizabeth");
  CHECK(tfl::line_id_of("12") == "12");
  CHECK(tfl::make_route_sequence_target("", "waterloo-city")
        == "/Line/waterloo-city/Route/Sequence/all");
  auto line = tfl::parse_route_sequence(answer(200, R"({
    "lineId":"victoria","lineName":"Victoria","direction":"all","mode":"tube",
    "stopPointSequences":[
      {"direction":"outbound","branchId":0,"stopPoint":[
        {"id":"940GZZLUBXN","name":"Brixton Underground Station","lat":51.4627,"lon":-0.1145},
        {"id":"940GZZLUOXC","name":"Oxford Circus Underground Station","lat":51.5152,"lon":-0.1419},
        {"id":"940GZZLUWWL","name":"Walthamstow Central Underground Station","lat":51.583,"lon":-0.0197}]},
      {"direction":"outbound","branchId":1,"stopPoint":[
        {"id":"940GZZLUBXN","name":"Brixton Underground Station"},
        {"id":"940GZZLUSKW","name":"Stockwell Underground Station"}]},
      {"direction":"inbound","branchId":0,"stopPoint":[
        {"id":"940GZZLUWWL","name":"Walthamstow Central Underground Station"},
        {"id":"940GZZLUBXN","name":"Brixton Underground Station"}]}]})"),
                                        "victoria");
  REQUIRE(line);
  CHECK(line->line == "Victoria");
  CHECK(line->mode == transit_mode::subway);
  CHECK(line->color == "0098D4");
  REQUIRE(line->directions.size() == 2);
  // The longest branch stands for the direction; each branch's end is a
  // headsign.
  CHECK(line->directions[0].stops.size() == 3);
  CHECK(line->directions[0].headsigns
        == std::vector<std::string>{"Walthamstow Central Underground Station",
                                    "Stockwell Underground Station"});
  CHECK(line->directions[0].trips_today == -1);
  CHECK(line->directions[1].direction == 1);
  auto unknown = tfl::parse_route_sequence(
    answer(404, R"({"message":"The following line id is not recognised: purple"})"),
    "purple");
  REQUIRE_FALSE(unknown);
  CHECK(unknown.error().code == ec::validation_error);
}

TEST_CASE("TfL StopPoint: the lines at a hub with their modes",
          "[tfl][get_route]") {
  auto hub = tfl::parse_stop_point(answer(200, R"({
    "naptanId":"HUBOXC","commonName":"Oxford Circus","lat":51.515,"lon":-0.141,
    "lines":[],
    "children":[
      {"naptanId":"940GZZLUOXC","stopType":"NaptanMetroStation",
       "lines":[{"id":"victoria","name":"Victoria"},{"id":"central","name":"Central"}],
       "lineModeGroups":[{"modeName":"tube","lineIdentifier":["victoria","central"]}]},
      {"naptanId":"490008660N","stopType":"NaptanPublicBusCoachTram",
       "lines":[{"id":"12","name":"12"},{"id":"victoria","name":"Victoria"}],
       "lineModeGroups":[{"modeName":"bus","lineIdentifier":["12"]}]}]})"),
                                   "HUBOXC");
  REQUIRE(hub);
  CHECK(hub->position.lat == Approx(51.515));
  REQUIRE(hub->lines.size() == 3);
  CHECK(hub->lines[0].route_id == "victoria");
  CHECK(hub->lines[0].mode == transit_mode::subway);
  CHECK(hub->lines[2].route_id == "12");
  CHECK(hub->lines[2].mode == transit_mode::bus);
}
