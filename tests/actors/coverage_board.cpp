// transit_coverage: the tools per provider kind, the reply's order, and
// the board over FEED stand-ins on a deterministic scheduler.

#include "transitd/actors/coverage_board.hpp"

#include <catch2/catch.hpp>

#include "support/deterministic.hpp"

using namespace transitd;

TEST_CASE("transit_coverage: each provider with the tools it answers",
          "[coverage][rules]") {
  auto feed = tools_of("gtfs", false);
  CHECK(std::find(feed.begin(), feed.end(), "reachable") != feed.end());
  CHECK(std::find(feed.begin(), feed.end(), "vehicle_positions")
        == feed.end());
  auto live = tools_of("gtfs", true);
  CHECK(std::find(live.begin(), live.end(), "vehicle_positions")
        != live.end());
  CHECK(tools_of("tfl", false)
        == std::vector<std::string>{"get_departures", "get_route",
                                    "line_status", "planJourney"});
  CHECK(tools_of("tfl", false, true)
        == std::vector<std::string>{"get_departures", "get_route",
                                    "line_status", "planJourney",
                                    "stationToilets"});
  CHECK(tools_of("elsewhere", true).empty());

  transit_coverage_request r;
  r.context.correlation_id = "cid";
  provider_coverage nyc;
  nyc.name = "nyc";
  nyc.kind = "gtfs";
  nyc.realtime.push_back({"rt.pb", 1, 2, true, ""});
  provider_coverage hsl;
  hsl.name = "Digitransit";
  hsl.tools = tools_of("digitransit", false);
  auto reply = build_coverage_reply(r, {nyc}, {hsl}, 1791981000);
  REQUIRE(reply.providers.size() == 2);
  CHECK(reply.providers[0].name == "nyc");
  CHECK(reply.providers[0].tools == tools_of("gtfs", true));
  CHECK(reply.providers[1].name == "Digitransit");
  CHECK(reply.as_of == "2026-10-14T12:30:00Z");
  CHECK(reply.correlation_id == "cid");
}
