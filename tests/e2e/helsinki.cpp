// End to end over MCP against the mock upstream: the network's questions
// that Digitransit answers (issue 31): a departure's trip, a line's stops,
// the lines at a stop, and line status from the alerts in force.

#include <string>

#include <catch2/catch.hpp>

#include "support/daemon_harness.hpp"

using namespace transitd;
using test::daemon_harness;
namespace json = boost::json;

TEST_CASE("e2e Helsinki: get_trip follows a Digitransit departure",
          "[e2e][helsinki][get_trip]") {
  daemon_harness daemon{test::harness_options{}};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto board = test::structured(client.call_tool(
    "get_departures", test::departures_args("HSL:1040129", 5)));
  const auto& first = board.at("departures").as_array().at(0);
  REQUIRE(first.as_object().contains("tripId"));
  auto trip_id = std::string{first.at("tripId").as_string()};
  auto trip = test::structured(client.call_tool(
    "get_trip", {{"tripId", trip_id},
                 {"serviceDate", first.at("serviceDate")}}));
  CHECK(trip.at("tripId").as_string() == trip_id);
  CHECK(trip.at("line") == first.at("line"));
  const auto& calls = trip.at("calls").as_array();
  REQUIRE(calls.size() == 8);
  // The board's stop is one of the calls, at the board's scheduled time.
  bool found = false;
  for (const auto& c : calls)
    if (c.at("stopId").as_string() == "HSL:1040129")
      found = c.at("scheduledDeparture") == first.at("scheduledTime");
  CHECK(found);
  // Another day: the trip does not run then, and the answer says when.
  auto other_day = test::tool_error(client.call_tool(
    "get_trip", {{"tripId", trip_id}, {"serviceDate", "2020-01-01"}}));
  CHECK(other_day.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{other_day.at("hint").as_string()},
             Catch::StartsWith("it runs on "));
  auto unknown = test::tool_error(
    client.call_tool("get_trip", {{"tripId", "HSL:nope"}}));
  CHECK(unknown.at("code").as_string() == "validation-error");
}

TEST_CASE("e2e Helsinki: get_route by a line's name and at a stop",
          "[e2e][helsinki][get_route]") {
  daemon_harness daemon{test::harness_options{}};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto line = test::structured(
    client.call_tool("get_route", {{"route", "550"},
                                   {"near", {{"lat", 60.17}, {"lon", 24.94}}}}));
  const auto& lines = line.at("lines").as_array();
  REQUIRE(lines.size() == 1);
  CHECK(lines[0].at("line").as_string() == "550");
  CHECK(lines[0].at("mode").as_string() == "BUS");
  CHECK(lines[0].at("directions").as_array().size() == 2);
  CHECK(lines[0].at("directions").at(0).at("stops").as_array().size() == 8);
  // The route id line_status gives finds the same line.
  auto by_id = test::structured(
    client.call_tool("get_route", {{"route", "HSL:2550"}}));
  CHECK(by_id.at("lines").at(0).at("line").as_string() == "550");
  auto at_stop = test::structured(
    client.call_tool("get_route", {{"stop", "HSL:1040129"}}));
  CHECK(at_stop.at("lines").as_array().size() >= 3);
  // The lines at the stop are those its departures show.
  auto board = test::structured(client.call_tool(
    "get_departures", test::departures_args("HSL:1040129", 50)));
  for (const auto& d : board.at("departures").as_array()) {
    bool listed = false;
    for (const auto& l : at_stop.at("lines").as_array())
      listed = listed || l.at("line") == d.at("line");
    CHECK(listed);
  }
  auto none = test::tool_error(client.call_tool(
    "get_route", {{"route", "999"}, {"near", {{"lat", 60.17}, {"lon", 24.94}}}}));
  CHECK(none.at("code").as_string() == "validation-error");
}

TEST_CASE("e2e Helsinki: line_status from the alerts in force",
          "[e2e][helsinki][line_status]") {
  daemon_harness daemon{test::harness_options{}};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto status = test::structured(
    client.call_tool("line_status", {{"feed", "HSL"}}));
  CHECK(status.at("realtimeUsed").as_bool());
  const auto& lines = status.at("lines").as_array();
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].at("line").as_string() == "550");
  CHECK(lines[0].at("status").as_string() == "severe-delays");
  CHECK(lines[0].at("reasons").at(0).at("alertId").as_string()
        == "mock-alert-550");
  CHECK(lines[1].at("line").as_string() == "7");
  CHECK(lines[1].at("mode").as_string() == "TRAM");
  CHECK(lines[1].at("status").as_string() == "planned-works");
  auto near = test::structured(client.call_tool(
    "line_status", {{"near", {{"lat", 60.17}, {"lon", 24.94}}},
                    {"route", "M1"}}));
  REQUIRE(near.at("lines").as_array().size() == 1);
  CHECK(near.at("lines").at(0).at("status").as_string() == "good-service");
}
