// The London envelope: every code of the contract renders the same shape.

#include "transitd/transport/london_json.hpp"

#include <catch2/catch.hpp>

namespace json = boost::json;
using namespace transitd;

TEST_CASE("London failures render the success:false envelope",
          "[london][json]") {
  for (auto code : {ec::validation_error, ec::disambiguation_required,
                    ec::rate_limited, ec::upstream_timeout,
                    ec::upstream_error, ec::internal_error,
                    ec::station_not_found, ec::data_not_available}) {
    auto journey = mcp::london_error(mcp::london_tool::plan_journey,
                                     make_failure(code, "m"), "cid");
    CHECK(journey.is_error);
    const auto& body = journey.error_body;
    CHECK_FALSE(body.at("success").as_bool());
    CHECK(body.at("code").as_string() == to_wire_upper(code));
    CHECK(body.at("topJourneys").is_null());
    CHECK(body.at("correlationId").as_string() == "cid");
    auto station = mcp::london_error(mcp::london_tool::station_toilets,
                                     make_failure(code, "m"), "cid");
    CHECK(station.error_body.at("toilets").is_null());
    CHECK(station.error_body.at("stationName").is_null());
  }
  CHECK(to_wire_upper(ec::internal_error) == "INTERNAL_ERROR");
  CHECK(to_wire_upper(ec::upstream_timeout) == "UPSTREAM_TIMEOUT");
  auto limited = mcp::london_error(mcp::london_tool::plan_journey,
                                   make_failure(ec::rate_limited, "m", "", 3),
                                   "cid");
  CHECK(limited.error_body.at("retryAfter").as_int64() == 3);
}

TEST_CASE("planJourney arguments", "[london][json][validation]") {
  auto ok = mcp::parse_plan_journey(
    json::parse(R"({"from":"Bank","to":"Mile End","needAccessibleRoute":true})")
      .as_object());
  REQUIRE(ok);
  CHECK(ok->need_accessible_route);
  for (auto text : {R"({"from":"Bank"})", R"({"from":1,"to":"x"})",
                    R"({"from":"a","to":"b","via":"c"})"}) {
    INFO(text);
    auto bad = mcp::parse_plan_journey(json::parse(text).as_object());
    REQUIRE_FALSE(bad);
    CHECK(bad.error().code == ec::validation_error);
  }
}

TEST_CASE("a success envelope carries every contract field",
          "[london][json]") {
  journey_plan_reply reply;
  reply.correlation_id = "cid";
  journey_option j;
  j.duration_minutes = 7;
  reply.journeys.push_back(j);
  auto out = mcp::to_outcome(reply);
  REQUIRE_FALSE(out.is_error);
  for (auto field : {"success", "code", "message", "topJourneys",
                     "fromLocationDisambiguation", "toLocationDisambiguation",
                     "correlationId"})
    CHECK(out.structured.contains(field));
  CHECK(out.structured.at("code").as_string() == "OK");
}
