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
