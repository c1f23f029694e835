// The London tools' rules: D19's order of journeys and suggestions, D20's
// station matching, from unsorted inputs (TfL's answers and data files).

#include "transitd/actors/london_rules.hpp"

#include <string>
#include <vector>

#include <catch2/catch.hpp>

#include "transitd/providers/tfl_journey.hpp"
#include "support/stand_ins.hpp"

using namespace transitd;

namespace {

const std::string data_2024 = std::string{TRANSITD_FIXTURES_DIR}
                              + "/tfl-station-data/"
                                "tfl-stationdata-detailed-2024-07-31";

journey_plan_reply ordered(int status, std::string body) {
  http_response r;
  r.status = status;
  r.body = std::move(body);
  auto reply = tfl::parse_journey_response(r);
  REQUIRE(reply);
  apply_journey_rules(*reply);
  return *reply;
}

} // namespace

TEST_CASE("the recorded itinerary, fastest first, ties by arrival (D19)",
          "[tfl][journey][rules]") {
  auto reply = ordered(200, test::fixture("tfl-journey/recorded/"
                                          "itinerary-bank-to-mile-end-tube-"
                                          "2015-10-21.200.json"));
  REQUIRE(reply.journeys.size() == 4);
  // Durations 7, 7, 7, 60: ties by arrival.
  CHECK(reply.journeys[0].duration_minutes == 7);
  CHECK(reply.journeys[3].duration_minutes == 60);
  CHECK(reply.journeys[0].arrival_time <= reply.journeys[1].arrival_time);
}

TEST_CASE("the recorded disambiguation, best match first",
          "[tfl][journey][rules]") {
  auto reply = ordered(300, test::fixture(
    "tfl-journey/recorded/"
    "disambiguation-bethnal-green-to-white-city-2015-10-21.300.json"));
  REQUIRE(reply.from_suggestions.size() >= 4);
  CHECK(reply.from_suggestions[0].parameter_value == "1000022");
  for (std::size_t i = 1; i < reply.from_suggestions.size(); ++i)
    CHECK(reply.from_suggestions[i - 1].match_quality
          >= reply.from_suggestions[i].match_quality);
}

TEST_CASE("more than five journeys: the five fastest", "[tfl][journey]") {
  std::string journeys;
  for (int d : {30, 10, 50, 20, 40, 60, 5}) {
    if (!journeys.empty())
      journeys += ",";
    journeys += R"({"duration":)" + std::to_string(d)
                + R"(,"startDateTime":"2026-01-01T10:00:00","arrivalDateTime":"2026-01-01T11:00:00","legs":[]})";
  }
  http_response r;
  r.status = 200;
  r.body = R"({"journeys":[)" + journeys + "]}";
  auto reply = tfl::parse_journey_response(r);
  REQUIRE(reply);
  apply_journey_rules(*reply);
  REQUIRE(reply->journeys.size() == 5);
  std::vector<int32_t> durations;
  for (const auto& j : reply->journeys)
    durations.push_back(j.duration_minutes);
  CHECK(durations == std::vector<int32_t>{5, 10, 20, 30, 40});
}

TEST_CASE("equal durations: the earlier arrival first (D19)",
          "[tfl][journey]") {
  // Given latest arrival first, so only the tie-break can order them.
  http_response r;
  r.status = 200;
  r.body = R"({"journeys":[
    {"duration":20,"startDateTime":"2026-01-01T11:10:00","arrivalDateTime":"2026-01-01T11:30:00","legs":[]},
    {"duration":20,"startDateTime":"2026-01-01T10:50:00","arrivalDateTime":"2026-01-01T11:10:00","legs":[]},
    {"duration":10,"startDateTime":"2026-01-01T11:50:00","arrivalDateTime":"2026-01-01T12:00:00","legs":[]},
    {"duration":20,"startDateTime":"2026-01-01T11:00:00","arrivalDateTime":"2026-01-01T11:20:00","legs":[]}]})";
  auto reply = tfl::parse_journey_response(r);
  REQUIRE(reply);
  apply_journey_rules(*reply);
  std::vector<std::string> arrivals;
  for (const auto& j : reply->journeys)
    arrivals.push_back(j.arrival_time);
  CHECK(arrivals
        == std::vector<std::string>{"2026-01-01T12:00:00", "2026-01-01T11:10:00",
                                    "2026-01-01T11:20:00",
                                    "2026-01-01T11:30:00"});
}

TEST_CASE("disambiguation options come best match first, whatever TfL's "
          "order",
          "[tfl][journey]") {
  http_response r;
  r.status = 300;
  r.body = R"({"fromLocationDisambiguation":{"disambiguationOptions":[
    {"parameterValue":"low","place":{"commonName":"Low"},"matchQuality":200},
    {"parameterValue":"high","place":{"commonName":"High"},"matchQuality":900},
    {"parameterValue":"mid","place":{"commonName":"Mid"},"matchQuality":500}],
    "matchStatus":"list"}})";
  auto reply = tfl::parse_journey_response(r);
  REQUIRE(reply);
  apply_journey_rules(*reply);
  REQUIRE(reply->disambiguation_required);
  std::vector<std::string> order;
  for (const auto& s : reply->from_suggestions)
    order.push_back(s.parameter_value);
  CHECK(order == std::vector<std::string>{"high", "mid", "low"});
}

TEST_CASE("station matching: exact wins, else candidates (D20)",
          "[tfl][matching]") {
  auto data = load_station_data(directory_reader(data_2024));
  REQUIRE(data);
  // Exact, whatever the case and punctuation.
  auto exact = match_station(*data, "abbey WOOD");
  REQUIRE(exact.station);
  CHECK(exact.station->unique_id == "HUBABW");
  auto kings = match_station(*data, "Kings Cross St Pancras");
  REQUIRE(kings.station);
  CHECK(kings.station->unique_id == "HUBKGX");
  // "Shepherd's Bush" exists exactly, beside "Shepherd's Bush Market".
  auto bush = match_station(*data, "shepherds bush");
  REQUIRE(bush.station);
  CHECK(bush.station->unique_id == "HUBSPB");
  // "Abbey" matches Abbey Wood and Abbey Road: disambiguation, prefix first.
  auto abbey = match_station(*data, "Abbey");
  CHECK_FALSE(abbey.station);
  REQUIRE(abbey.suggestions.size() >= 2);
  for (const auto& s : abbey.suggestions)
    CHECK_THAT(s.name, Catch::Contains("Abbey"));
  CHECK(abbey.suggestions[0].match_quality
        >= abbey.suggestions.back().match_quality);
  // Nothing at all.
  auto none = match_station(*data, "Hogwarts");
  CHECK_FALSE(none.station);
  CHECK(none.suggestions.empty());
}

TEST_CASE("station suggestions: prefix before word before substring, the "
          "closer length first, then by name (D20)",
          "[tfl][matching]") {
  // In the order a data file might list them: worst first.
  station_dataset data;
  for (const char* name : {"Tabbey Lane", "Old Abbey Wood", "Abbey Road",
                           "Abbey Wood Central", "Abbey Wood"}) {
    station_record s;
    s.name = name;
    s.unique_id = name;
    s.key = normalise_station_name(name);
    data.stations.push_back(std::move(s));
  }
  auto abbey = match_station(data, "abbey");
  REQUIRE_FALSE(abbey.station);
  std::vector<std::string> order;
  for (const auto& s : abbey.suggestions)
    order.push_back(s.name);
  // Prefix matches (shorter name nearer the query first; "Abbey Road" and
  // "Abbey Wood" tie on length and go by name), then the word inside a
  // name, then a bare substring.
  CHECK(order
        == std::vector<std::string>{"Abbey Road", "Abbey Wood",
                                    "Abbey Wood Central", "Old Abbey Wood",
                                    "Tabbey Lane"});
  for (std::size_t i = 1; i < abbey.suggestions.size(); ++i)
    CHECK(abbey.suggestions[i - 1].match_quality
          >= abbey.suggestions[i].match_quality);
}
