// The TfL Journey Planner client's pure half, against recorded answers.

#include "providers/tfl_journey.hpp"

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <catch2/catch.hpp>

using namespace transitd;

namespace {

http_response recorded(const std::string& file, int status) {
  std::ifstream in{std::string{TRANSITD_FIXTURES_DIR} + "/tfl-journey/recorded/"
                   + file};
  REQUIRE(in.good());
  std::ostringstream out;
  out << in.rdbuf();
  http_response r;
  r.status = status;
  r.body = out.str();
  return r;
}

} // namespace

TEST_CASE("parses the recorded 200 itinerary, fastest first (D19)",
          "[tfl][journey]") {
  auto reply = tfl::parse_journey_response(
    recorded("itinerary-bank-to-mile-end-tube-2015-10-21.200.json", 200));
  REQUIRE(reply);
  CHECK_FALSE(reply->disambiguation_required);
  REQUIRE(reply->journeys.size() == 4);
  // Durations 7, 7, 7, 60: ties by arrival.
  CHECK(reply->journeys[0].duration_minutes == 7);
  CHECK(reply->journeys[3].duration_minutes == 60);
  CHECK(reply->journeys[0].arrival_time <= reply->journeys[1].arrival_time);
  const auto& leg = reply->journeys[0].legs.at(0);
  CHECK(leg.mode == "tube");
  CHECK(leg.line == std::optional<std::string>{"Central"});
  CHECK(leg.from == "Bank Underground Station");
  CHECK(leg.to == "Mile End Underground Station");
  CHECK(leg.instruction == "Central line to Mile End");
  // Local London time, no offset, as TfL gives it.
  CHECK(reply->journeys[0].start_time == "2015-10-21T16:27:00");
  CHECK_THAT(reply->journeys[0].summary, Catch::Contains("Central line"));
}

TEST_CASE("parses the recorded 300 disambiguation by match quality",
          "[tfl][journey]") {
  auto reply = tfl::parse_journey_response(recorded(
    "disambiguation-bethnal-green-to-white-city-2015-10-21.300.json", 300));
  REQUIRE(reply);
  CHECK(reply->disambiguation_required);
  REQUIRE(reply->from_suggestions.size() >= 4);
  CHECK(reply->from_suggestions[0].parameter_value == "1000022");
  CHECK(reply->from_suggestions[0].match_quality == Approx(1000));
  CHECK_THAT(reply->from_suggestions[0].name, Catch::Contains("Bethnal Green"));
  for (std::size_t i = 1; i < reply->from_suggestions.size(); ++i)
    CHECK(reply->from_suggestions[i - 1].match_quality
          >= reply->from_suggestions[i].match_quality);
  CHECK(reply->to_suggestions.size() == 12);
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
  REQUIRE(reply->disambiguation_required);
  std::vector<std::string> order;
  for (const auto& s : reply->from_suggestions)
    order.push_back(s.parameter_value);
  CHECK(order == std::vector<std::string>{"high", "mid", "low"});
}

TEST_CASE("TfL's ApiError and failures map to UPSTREAM_ERROR and friends",
          "[tfl][journey]") {
  http_response bad;
  bad.status = 400;
  bad.body = R"({"$type":"Tfl.Api.Presentation.Entities.ApiError",
    "httpStatusCode":400,"httpStatus":"BadRequest",
    "message":"The following date is not valid: 2015-99-99"})";
  auto error = tfl::parse_journey_response(bad);
  REQUIRE_FALSE(error);
  CHECK(error.error().code == ec::upstream_error);
  CHECK_THAT(error.error().message, Catch::Contains("date is not valid"));
  http_response limited;
  limited.status = 429;
  limited.retry_after = "12";
  CHECK(tfl::parse_journey_response(limited).error().code == ec::rate_limited);
  http_response broken;
  broken.status = 503;
  CHECK(tfl::parse_journey_response(broken).error().code
        == ec::upstream_error);
  http_response garbage;
  garbage.status = 200;
  garbage.body = "<html>";
  CHECK_FALSE(tfl::parse_journey_response(garbage));
}

TEST_CASE("the journey request: encoded places, accessibility, no key",
          "[tfl][journey]") {
  journey_plan_request r;
  r.from = "King's Cross";
  r.to = "1000022";
  auto target = tfl::make_journey_target("", r);
  CHECK(target == "/Journey/JourneyResults/King%27s%20Cross/to/1000022");
  r.need_accessible_route = true;
  CHECK_THAT(tfl::make_journey_target("/base", r),
             Catch::EndsWith("?accessibilityPreference=StepFreeToPlatform"));
  CHECK(tfl::make_journey_target("", r).find("app_key") == std::string::npos);
}
