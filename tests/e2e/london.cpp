// End to end over MCP against the mock upstream: London's departures from
// TfL's StopPoint Arrivals (NaPTAN and hub ids) and TfL's line status
// (issue 31), and ids no provider serves.

#include <set>
#include <string>

#include <catch2/catch.hpp>

#include "support/daemon_harness.hpp"

using namespace transitd;
using test::daemon_harness;
namespace json = boost::json;

TEST_CASE("e2e London: departures at a hub, a station and a bus stop from "
          "TfL's arrivals, at London's offset",
          "[e2e][london][get_departures]") {
  daemon_harness daemon{test::harness_options{}};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto hub = test::structured(
    client.call_tool("get_departures", test::departures_args("HUBOXC", 50)));
  CHECK(hub.at("stopId").as_string() == "HUBOXC");
  CHECK(hub.at("stopName").as_string() == "Oxford Circus");
  CHECK(hub.at("realtimeUsed").as_bool());
  // TfL with a key: live, whatever the other providers run on.
  if (hub.contains("warnings"))
    for (const auto& w : hub.at("warnings").as_array())
      CHECK(w.at("code").as_string() != "demo-data");
  const auto& departures = hub.at("departures").as_array();
  REQUIRE(departures.size() >= 10);
  std::set<std::string> lines;
  for (const auto& d : departures) {
    lines.insert(std::string{d.at("line").as_string()});
    // A prediction: no timetable behind it, no delay claimed (D23).
    CHECK(d.at("scheduledTime") == d.at("realtimeTime"));
    CHECK_FALSE(d.as_object().contains("delaySeconds"));
    CHECK(d.at("status").as_string() == "on_time");
    auto time = std::string{d.at("scheduledTime").as_string()};
    bool london_offset = time.size() > 6
                         && (time.substr(time.size() - 6) == "+00:00"
                             || time.substr(time.size() - 6) == "+01:00");
    CHECK(london_offset);
    CHECK(d.as_object().contains("platform"));
  }
  // The hub's stations and its bus stops: tube lines and buses together.
  CHECK(lines.count("Victoria") == 1);
  CHECK(lines.count("Central") == 1);
  CHECK(lines.count("12") == 1);
  auto station = test::structured(client.call_tool(
    "get_departures", test::departures_args("940GZZLUBNK", 50)));
  CHECK(station.at("stopName").as_string() == "Bank Underground Station");
  std::set<std::string> bank;
  for (const auto& d : station.at("departures").as_array())
    bank.insert(std::string{d.at("line").as_string()});
  CHECK(bank == std::set<std::string>{"Central", "Northern",
                                      "Waterloo & City"});
  auto stop = test::structured(client.call_tool(
    "get_departures", test::departures_args("490008660N", 10)));
  for (const auto& d : stop.at("departures").as_array())
    CHECK(d.at("platform").as_string() == "N");
  // The key goes to TfL with every call (D18's key, as planJourney's).
  auto stats = daemon.mock().stats();
  CHECK(stats.by_operation["StopPoint"] >= 3);
  CHECK(stats.by_operation["Arrivals"] >= 3);
}

TEST_CASE("e2e London: an id no provider serves names the forms served, "
          "in demo mode too",
          "[e2e][london][get_departures]") {
  test::harness_options options;
  options.demo = true;
  daemon_harness daemon{options};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto nobody = test::tool_error(
    client.call_tool("get_departures", test::departures_args("1234", 5)));
  CHECK(nobody.at("code").as_string() == "validation-error");
  auto hint = std::string{nobody.at("hint").as_string()};
  CHECK_THAT(hint, Catch::Contains("HSL:1040129 (Digitransit)"));
  CHECK_THAT(hint, Catch::Contains("HUBOXC (TfL)"));
  // Another feed's id: the demo no longer invents Helsinki departures.
  auto elsewhere = test::tool_error(
    client.call_tool("get_departures", test::departures_args("nyc:127", 5)));
  CHECK(elsewhere.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{elsewhere.at("hint").as_string()},
             Catch::Contains("HUBOXC (TfL)"));
  auto unknown_london = test::tool_error(client.call_tool(
    "get_departures", test::departures_args("940GZZLUXXX", 5)));
  CHECK(unknown_london.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{unknown_london.at("message").as_string()},
             Catch::Contains("940GZZLUXXX"));
  // A language refusal keeps its own hint; TfL answers in English only.
  auto args = test::departures_args("HSL:1040129", 5);
  args["language"] = "de";
  auto german = test::tool_error(client.call_tool("get_departures", args));
  CHECK_THAT(std::string{german.at("hint").as_string()},
             Catch::Contains("fi, sv or en"));
  args["stop"] = {{"type", "id"}, {"value", "HUBOXC"}};
  args["language"] = "fi";
  auto finnish = test::tool_error(client.call_tool("get_departures", args));
  CHECK(finnish.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{finnish.at("hint").as_string()},
             Catch::Contains("en"));
  // London on the demo upstream says so.
  auto demo = test::structured(
    client.call_tool("get_departures", test::departures_args("HUBBAN", 5)));
  bool warned = false;
  for (const auto& w : demo.at("warnings").as_array())
    warned = warned || w.at("code").as_string() == "demo-data";
  CHECK(warned);
}

TEST_CASE("e2e London: line_status from TfL's line status",
          "[e2e][london][line_status]") {
  daemon_harness daemon{test::harness_options{}};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto all = test::structured(
    client.call_tool("line_status", {{"feed", "tfl"}}));
  CHECK(all.at("realtimeUsed").as_bool());
  const auto& lines = all.at("lines").as_array();
  REQUIRE(lines.size() >= 10);
  // Worst first: the District's minor delays, the Elizabeth line's works.
  CHECK(lines[0].at("routeId").as_string() == "district");
  CHECK(lines[0].at("status").as_string() == "minor-delays");
  CHECK(lines[0].at("reasons").at(0).at("kind").as_string() == "status");
  CHECK_THAT(std::string{lines[0].at("reasons").at(0).at("text").as_string()},
             Catch::Contains("signal failure"));
  CHECK(lines[1].at("status").as_string() == "planned-works");
  CHECK(lines.back().at("status").as_string() == "good-service");
  // One line by its name, or the lines near a point in London.
  auto district = test::structured(client.call_tool(
    "line_status", {{"feed", "tfl"}, {"route", "District"}}));
  REQUIRE(district.at("lines").as_array().size() == 1);
  // Helsinki's and London's lines both have a status: which is unclear.
  auto unclear = test::tool_error(
    client.call_tool("line_status", {{"route", "District"}}));
  CHECK(unclear.at("code").as_string() == "validation-error");
  auto near = test::structured(client.call_tool(
    "line_status", {{"near", {{"lat", 51.5152}, {"lon", -0.1419}}},
                    {"route", "victoria"}}));
  CHECK(near.at("lines").at(0).at("status").as_string() == "good-service");
  auto nothing = test::tool_error(
    client.call_tool("line_status", {{"feed", "tfl"}, {"route", "Q"}}));
  CHECK(nothing.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{nothing.at("hint").as_string()},
             Catch::Contains("Victoria"));
}

TEST_CASE("e2e London: without a TfL key, departures and line status say "
          "the key is missing (D18)",
          "[e2e][london]") {
  test::harness_options options;
  options.tfl_key.clear();
  daemon_harness daemon{options};
  test::mcp_client client{daemon.port()};
  client.initialize();
  auto departures = test::tool_error(
    client.call_tool("get_departures", test::departures_args("HUBOXC", 5)));
  CHECK(departures.at("code").as_string() == "upstream-error");
  CHECK_THAT(std::string{departures.at("message").as_string()},
             Catch::Contains("TFL_API_KEY"));
  auto status = test::tool_error(
    client.call_tool("line_status", {{"feed", "tfl"}}));
  CHECK(status.at("code").as_string() == "upstream-error");
}

TEST_CASE("e2e London: get_route by a line's name and at a hub",
          "[e2e][london][get_route]") {
  daemon_harness daemon{test::harness_options{}};
  test::mcp_client client{daemon.port()};
  client.initialize();
  json::object oxford{{"lat", 51.5152}, {"lon", -0.1419}};
  auto line = test::structured(client.call_tool(
    "get_route", {{"route", "Waterloo & City"}, {"near", oxford}}));
  const auto& l = line.at("lines").at(0);
  CHECK(l.at("routeId").as_string() == "waterloo-city");
  CHECK(l.at("directions").as_array().size() == 2);
  CHECK_FALSE(l.at("directions").at(0).as_object().contains("tripsToday"));
  auto hub = test::structured(
    client.call_tool("get_route", {{"stop", "HUBOXC"}}));
  std::set<std::string> lines;
  for (const auto& x : hub.at("lines").as_array())
    lines.insert(std::string{x.at("line").as_string()});
  CHECK(lines == std::set<std::string>{"Bakerloo", "Central", "Victoria",
                                       "12", "88"});
  CHECK(hub.at("complex").at(0).at("name").as_string() == "Oxford Circus");
  auto unknown = test::tool_error(client.call_tool(
    "get_route", {{"route", "Purple"}, {"near", oxford}}));
  CHECK(unknown.at("code").as_string() == "validation-error");
  // Helsinki's and London's lines: a bare name must say which.
  auto unclear = test::tool_error(
    client.call_tool("get_route", {{"route", "550"}}));
  CHECK(unclear.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{unclear.at("message").as_string()},
             Catch::Contains("not clear"));
}
