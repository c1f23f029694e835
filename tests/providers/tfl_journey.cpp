// The TfL Journey Planner client's pure half, against recorded answers.

#include "transitd/providers/tfl_journey.hpp"

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

TEST_CASE("parses the recorded 200 itinerary", "[tfl][journey]") {
  auto reply = tfl::parse_journey_response(
    recorded("itinerary-bank-to-mile-end-tube-2015-10-21.200.json", 200));
  REQUIRE(reply);
  CHECK_FALSE(reply->disambiguation_required);
  REQUIRE(reply->journeys.size() == 4);
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

TEST_CASE("parses the recorded 300 disambiguation", "[tfl][journey]") {
  auto reply = tfl::parse_journey_response(recorded(
    "disambiguation-bethnal-green-to-white-city-2015-10-21.300.json", 300));
  REQUIRE(reply);
  CHECK(reply->disambiguation_required);
  REQUIRE(reply->from_suggestions.size() >= 4);
  bool bethnal = false;
  for (const auto& s : reply->from_suggestions)
    bethnal = bethnal
              || (s.parameter_value == "1000022"
                  && s.match_quality == Approx(1000)
                  && s.name.find("Bethnal Green") != std::string::npos);
  CHECK(bethnal);
  CHECK(reply->to_suggestions.size() == 12);
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
