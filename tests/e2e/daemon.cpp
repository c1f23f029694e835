// The daemon end to end over real HTTP: MCP client → HTTP server → gateway
// → actors → HTTP client workers → mock upstream, and back.

#include <algorithm>

#include <catch2/catch.hpp>

#include "support/daemon_harness.hpp"

namespace json = boost::json;
using namespace transitd;
using test::daemon_harness;
using test::mcp_client;
using test::departures_args;

TEST_CASE("e2e: initialize, list tools, call get_departures",
          "[e2e][get_departures]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  auto list = client.post(json::object{{"jsonrpc", "2.0"},
                                       {"id", 2},
                                       {"method", "tools/list"}});
  auto tools = list.json().at("result").at("tools").as_array();
  REQUIRE(tools.size() >= 1);
  // The one to call first, first.
  CHECK(tools.at(0).at("name").as_string() == "transit_coverage");
  auto result = client.call_tool("get_departures", departures_args());
  auto board = test::structured(result);
  CHECK(board.at("stopId").as_string() == "HSL:1040129");
  CHECK(board.at("correlationId").as_string().size() == 36);
  auto departures = board.at("departures").as_array();
  CHECK_FALSE(departures.empty());
  CHECK(departures.size() <= 5);
  // The provider sent the subscription key.
  CHECK(daemon.mock().stats().with_subscription_key == 1);
  // Each call gets its own correlation id.
  auto again = test::structured(
    client.call_tool("get_departures", departures_args()));
  CHECK(again.at("correlationId") != board.at("correlationId"));
  CHECK(client.del().status == 200);
}

TEST_CASE("e2e: service_alerts from Digitransit (the mock upstream)",
          "[e2e][alerts]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  auto body = client
                .post(json::object{{"jsonrpc", "2.0"},
                                   {"id", 2},
                                   {"method", "tools/list"}})
                .json();
  std::vector<std::string> names;
  for (const auto& t : body.at("result").at("tools").as_array())
    names.emplace_back(t.at("name").as_string());
  // Digitransit has alerts, not vehicles.
  CHECK(std::count(names.begin(), names.end(), "service_alerts") == 1);
  CHECK(std::count(names.begin(), names.end(), "vehicle_positions") == 0);

  auto at_stop = test::structured(client.call_tool(
    "service_alerts", {{"stop", "HSL:1040129"}, {"language", "sv"}}));
  auto alerts = at_stop.at("alerts").as_array();
  REQUIRE(alerts.size() == 2);
  // Most severe first; Swedish texts.
  CHECK(alerts[0].at("severity").as_string() == "severe");
  CHECK(alerts[0].at("header").as_string() == "Linje 550: störning");
  CHECK(alerts[0].at("affected").as_array()[0].at("name").as_string()
        == "550");
  CHECK(alerts[1].at("effect").as_string() == "stop-moved");
  CHECK(alerts[1].at("language").as_string() == "sv");
  CHECK_THAT(std::string{alerts[1].at("activePeriods").as_array()[0]
                           .at("end").as_string()},
             Catch::EndsWith(":00") && Catch::Contains("+02:00"));
  auto trip = test::structured(client.call_tool(
    "service_alerts", {{"trip", "HSL:2550_20251124_Ma_2_0712"}}));
  CHECK(trip.at("alerts").as_array().size() == 2);
  auto region = test::structured(client.call_tool(
    "service_alerts", {{"near", {{"lat", 60.17}, {"lon", 24.94}}}}));
  CHECK(region.at("alerts").as_array().size() == 3);
  auto unknown = test::tool_error(
    client.call_tool("service_alerts", {{"stop", "HSL:unknown"}}));
  CHECK(unknown.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{unknown.at("message").as_string()},
             Catch::Contains("HSL:unknown"));
  auto other_feed = test::tool_error(
    client.call_tool("service_alerts", {{"feed", "nyc"}}));
  CHECK(other_feed.at("code").as_string() == "validation-error");
}

TEST_CASE("e2e: validation errors never reach the upstream",
          "[e2e][get_departures][validation]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  for (const auto& args :
       {json::object{{"stop", json::object{{"type", "id"}, {"value", ""}}}},
        departures_args("HSL:1", 0), departures_args("HSL:1", 51),
        json::object{{"stop", json::object{{"type", "id"}, {"value", "x"}}},
                     {"windowMinutes", 500}},
        json::object{{"stop", json::object{{"type", "id"}, {"value", "x"}}},
                     {"language", "de"}},
        json::object{{"stop", json::object{{"type", "id"}, {"value", "x"}}},
                     {"lmit", 3}}}) {
    auto error = test::tool_error(client.call_tool("get_departures", args));
    CHECK(error.at("code").as_string() == "validation-error");
    CHECK(error.at("correlationId").as_string().size() == 36);
  }
  CHECK(daemon.mock().stats().requests == 0);
  // An unknown stop is the upstream's answer, also validation-error.
  auto unknown = test::tool_error(
    client.call_tool("get_departures", departures_args("HSL:0000")));
  CHECK(unknown.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{unknown.at("message").as_string()},
             Catch::Contains("HSL:0000"));
}

TEST_CASE("e2e: upstream faults map to the contract's error codes",
          "[e2e][get_departures][faults]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  auto call = [&] {
    return test::tool_error(
      client.call_tool("get_departures", departures_args()));
  };
  mock::fault_settings faults;
  faults.fault = "http503";
  faults.error_rate = 1;
  daemon.mock().set_faults(faults);
  CHECK(call().at("code").as_string() == "upstream-error");
  faults.fault = "graphql-error";
  daemon.mock().set_faults(faults);
  auto graphql = call();
  CHECK(graphql.at("code").as_string() == "upstream-error");
  CHECK_THAT(std::string{graphql.at("message").as_string()},
             Catch::Contains("upstream timetable unavailable"));
  faults.fault = "malformed";
  daemon.mock().set_faults(faults);
  CHECK(call().at("code").as_string() == "upstream-error");
  faults.fault = "hang";
  faults.hang_ms = 5000;
  daemon.mock().set_faults(faults);
  auto hung = call();
  INFO(json::serialize(hung));
  CHECK(hung.at("code").as_string() == "upstream-timeout");
  // Healthy again: the next good call is answered correctly.
  daemon.mock().set_faults(mock::fault_settings{});
  test::structured(client.call_tool("get_departures", departures_args()));
  // Last, because a 429's Retry-After holds the upstream back for its
  // duration: a Retry-After beyond the deadline is answered at once.
  faults.fault = "http429";
  faults.error_rate = 1;
  faults.retry_after = 5;
  daemon.mock().set_faults(faults);
  auto limited = call();
  CHECK(limited.at("code").as_string() == "rate-limited");
  CHECK(limited.at("retryAfter").as_int64() == 5);
}

TEST_CASE("e2e: a refused connection is network-error",
          "[e2e][get_departures][faults]") {
  test::harness_options options;
  // Port 1 on loopback: nothing listens there.
  options.routing_url = "http://127.0.0.1:1/routing/v2/hsl/gtfs/v1";
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  auto error = test::tool_error(
    client.call_tool("get_departures", departures_args()));
  CHECK(error.at("code").as_string() == "network-error");
}

TEST_CASE("e2e: demo mode marks every result", "[e2e][demo]") {
  test::harness_options options;
  options.demo = true;
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  auto board = test::structured(
    client.call_tool("get_departures", departures_args()));
  bool demo_warning = false;
  for (const auto& w : board.at("warnings").as_array())
    demo_warning = demo_warning || w.at("code").as_string() == "demo-data";
  CHECK(demo_warning);
}

TEST_CASE("e2e: HTTP-level rules over a real socket", "[e2e][http]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  CHECK(client.post("{oops").status == 400);
  CHECK(client.post("{}", {{"Content-Type", "text/plain"}}).status == 415);
  CHECK(client.post(std::string(2 * 1024 * 1024, ' ')).status == 413);
  client.initialize();
  auto sse = client.post(
    R"({"jsonrpc":"2.0","id":5,"method":"tools/call","params":{"name":"get_departures","arguments":{"stop":{"type":"id","value":"HSL:1"}},"_meta":{"progressToken":1}}})");
  CHECK(sse.status == 200);
  CHECK_THAT(sse.header("Content-Type"),
             Catch::Contains("text/event-stream"));
  CHECK_THAT(sse.body, Catch::Contains("notifications/progress"));
}

TEST_CASE("e2e: saved labels resolve; without authentication every "
          "session is the one user (D16, D17 revised)",
          "[e2e][labels]") {
  daemon_harness daemon;
  mcp_client first{daemon.port()};
  first.initialize();
  auto saved = test::structured(first.call_tool(
    "save_user_variable",
    json::object{{"key", "work"},
                 {"type", "stop"},
                 {"value", json::object{{"stopId", "HSL:1040129"},
                                        {"name", "Sörnäinen"}}}}));
  CHECK(saved.at("replaced").as_bool() == false);
  test::structured(first.call_tool(
    "save_user_variable",
    json::object{{"key", "home"},
                 {"type", "location"},
                 {"value", json::object{{"lat", 60.17}, {"lon", 24.94}}}}));
  // get_departures through the label.
  auto board = test::structured(first.call_tool(
    "get_departures",
    json::object{{"stop", json::object{{"type", "label"}, {"value", "work"}}}}));
  CHECK(board.at("stopId").as_string() == "HSL:1040129");
  // A location label where a stop is needed names the label.
  auto wrong = test::tool_error(first.call_tool(
    "get_departures",
    json::object{{"stop", json::object{{"type", "label"}, {"value", "home"}}}}));
  CHECK(wrong.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{wrong.at("message").as_string()},
             Catch::Contains("home"));
  // A new conversation (a session opened after the first ended) is the
  // same user: the variables are there, and usable.
  first.del();
  mcp_client later{daemon.port()};
  later.initialize();
  auto mine = test::structured(
    later.call_tool("get_user_variables", json::object{}));
  CHECK(mine.at("variables").as_array().size() == 2);
  auto again = test::structured(later.call_tool(
    "get_departures",
    json::object{{"stop", json::object{{"type", "label"}, {"value", "work"}}}}));
  CHECK(again.at("stopId").as_string() == "HSL:1040129");
  auto one = test::structured(later.call_tool(
    "get_user_variables", json::object{{"key", "home"}}));
  REQUIRE(one.at("variables").as_array().size() == 1);
  CHECK(one.at("variables").at(0).at("value").at("lat").to_number<double>()
        == Approx(60.17));
  CHECK(test::structured(later.call_tool("delete_user_variable",
                                         json::object{{"key", "work"}}))
          .at("deleted")
          .as_bool());
  CHECK_FALSE(test::structured(later.call_tool("delete_user_variable",
                                               json::object{{"key", "work"}}))
                .at("deleted")
                .as_bool());
}

TEST_CASE("e2e: find_stops over MCP against the mock", "[e2e][find_stops]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  auto center = json::object{{"lat", 60.1699}, {"lon", 24.9384}};
  auto near = test::structured(client.call_tool(
    "find_stops", json::object{{"coordinate", center}, {"radius", 500}}));
  auto stops = near.at("stops").as_array();
  REQUIRE_FALSE(stops.empty());
  int64_t last = -1;
  for (const auto& s : stops) {
    auto d = s.at("distance").as_int64();
    CHECK(d <= 500);
    CHECK(d >= last);
    last = d;
    CHECK_FALSE(s.at("modes").as_array().empty());
  }
  auto many = test::structured(client.call_tool(
    "find_stops",
    json::object{{"coordinate", center}, {"radius", 3000}, {"maxResults", 50}}));
  CHECK(many.at("stops").as_array().size() == 25);
  CHECK(many.at("warnings").at(0).at("code").as_string()
        == "truncated-results");
  auto trams = test::structured(client.call_tool(
    "find_stops", json::object{{"coordinate", center},
                               {"radius", 3000},
                               {"includeModes", json::array{"TRAM"}}}));
  for (const auto& s : trams.at("stops").as_array()) {
    bool tram = false;
    for (const auto& m : s.at("modes").as_array())
      tram = tram || m.as_string() == "TRAM";
    CHECK(tram);
  }
  auto bad = test::tool_error(client.call_tool(
    "find_stops", json::object{{"coordinate", json::object{{"lat", 100},
                                                           {"lon", 24.9}}}}));
  CHECK(bad.at("code").as_string() == "validation-error");
  auto mode = test::tool_error(client.call_tool(
    "find_stops", json::object{{"coordinate", center},
                               {"includeModes", json::array{"ROCKET"}}}));
  CHECK_THAT(std::string{mode.at("message").as_string()},
             Catch::Contains("ROCKET"));
}

TEST_CASE("e2e: geocode_address over MCP against the mock",
          "[e2e][geocode]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  auto found = test::structured(client.call_tool(
    "geocode_address", json::object{{"text", "  kamppi "}, {"size", 3}}));
  CHECK(found.at("query").as_string() == "kamppi");
  auto results = found.at("results").as_array();
  REQUIRE(results.size() == 3);
  double last = 2;
  for (const auto& r : results) {
    auto c = r.at("confidence").to_number<double>();
    CHECK(c <= last + 0.01);
    CHECK(c <= 1.0);
    last = c;
  }
  // A deployment answering 0..100 is normalised.
  mock::fault_settings scale;
  scale.confidence_scale = 100;
  daemon.mock().set_faults(scale);
  auto scaled = test::structured(client.call_tool(
    "geocode_address", json::object{{"text", "kamppi"}, {"size", 3}}));
  CHECK(scaled.at("results").at(0).at("confidence").to_number<double>() <= 1.0);
  daemon.mock().set_faults(mock::fault_settings{});
  auto capped = test::structured(client.call_tool(
    "geocode_address", json::object{{"text", "helsinki"}, {"size", 100}}));
  CHECK(capped.at("results").as_array().size() <= 40);
  auto none = test::tool_error(client.call_tool(
    "geocode_address", json::object{{"text", "zzzx"}}));
  CHECK(none.at("code").as_string() == "geocode-no-results");
  auto bad = test::tool_error(client.call_tool(
    "geocode_address", json::object{{"text", "kamppi"}, {"size", 0}}));
  CHECK(bad.at("code").as_string() == "validation-error");
  mock::fault_settings broken;
  broken.fault = "graphql-error";
  broken.error_rate = 1;
  daemon.mock().set_faults(broken);
  auto failed = test::tool_error(client.call_tool(
    "geocode_address", json::object{{"text", "kamppi"}}));
  CHECK(failed.at("code").as_string() == "upstream-error");
  broken.fault = "hang";
  broken.hang_ms = 5000;
  daemon.mock().set_faults(broken);
  auto slow = test::tool_error(client.call_tool(
    "geocode_address", json::object{{"text", "kamppi"}}));
  CHECK(slow.at("code").as_string() == "upstream-timeout");
}

using test::trip_args;

TEST_CASE("e2e: plan_trip basic answer", "[e2e][plan_trip]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  auto plan = test::structured(client.call_tool("plan_trip", trip_args()));
  auto itineraries = plan.at("itineraries").as_array();
  REQUIRE(itineraries.size() == 2); // default limit
  CHECK(plan.at("origin").at("rawSource").as_string() == "input");
  CHECK(plan.at("requested").at("type").as_string() == "depart");
  CHECK(plan.at("realtimeUsed").as_string() == "realtime");
  for (const auto& it : itineraries) {
    CHECK_THAT(std::string{it.at("fingerprint").as_string()},
               Catch::StartsWith("fnv1a64:"));
    CHECK_FALSE(it.at("legs").as_array().empty());
  }
  // One primary and one speculative relaxed query went upstream.
  CHECK(daemon.mock().stats().by_operation.at("PlanTrip") == 2);
}

TEST_CASE("e2e: a disrupted plan_trip costs one round trip, not two",
          "[e2e][plan_trip][fanout]") {
  daemon_harness daemon;
  mock::fault_settings slow;
  slow.latency_ms = 200;
  slow.plan_disruption = "delay";
  daemon.mock().set_faults(slow);
  mcp_client client{daemon.port()};
  client.initialize();
  auto plan = test::structured(client.call_tool(
    "plan_trip", trip_args({{"limit", 3}})));
  // The two upstream queries overlapped at the mock: the relaxed one did not
  // wait for the primary answer (D12).
  CHECK(daemon.mock().stats().max_in_flight == 2);
  CHECK(daemon.mock().stats().by_operation.at("PlanTrip") == 2);
  bool alternative = false;
  for (const auto& it : plan.at("itineraries").as_array())
    if (auto* flag = it.as_object().if_contains("disruptionAlternative"))
      alternative = alternative || flag->as_bool();
  CHECK(alternative);
  CHECK(plan.at("meta").at("deduplicatedFrom").as_int64() > 0);
}

TEST_CASE("e2e: the sequential switch sends the relaxed query afterwards",
          "[e2e][plan_trip][fanout]") {
  test::harness_options options;
  options.speculative_relax = false;
  daemon_harness daemon{options};
  mock::fault_settings slow;
  slow.latency_ms = 200;
  slow.plan_disruption = "cancel";
  daemon.mock().set_faults(slow);
  mcp_client client{daemon.port()};
  client.initialize();
  auto plan = test::structured(client.call_tool("plan_trip", trip_args()));
  CHECK(daemon.mock().stats().max_in_flight == 1);
  CHECK(daemon.mock().stats().by_operation.at("PlanTrip") == 2);
  CHECK(plan.at("itineraries").at(0).at("disruptionAlternative").as_bool());
}

TEST_CASE("e2e: plan_trip errors by code", "[e2e][plan_trip]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  auto none = test::tool_error(client.call_tool(
    "plan_trip",
    trip_args({{"constraints", json::object{{"maxWalkingDistance", 1}}}})));
  CHECK(none.at("code").as_string() == "no-itinerary-found");
  CHECK(none.contains("hint"));
  auto missing = test::tool_error(client.call_tool(
    "plan_trip",
    json::object{{"origin", trip_args().at("origin")}}));
  CHECK(missing.at("code").as_string() == "validation-error");
  CHECK_THAT(std::string{missing.at("message").as_string()},
             Catch::Contains("destination"));
  auto same = test::tool_error(client.call_tool(
    "plan_trip", json::object{{"origin", trip_args().at("origin")},
                              {"destination", trip_args().at("origin")}}));
  CHECK_THAT(std::string{same.at("message").as_string()},
             Catch::Contains("differ"));
  auto far = test::tool_error(client.call_tool(
    "plan_trip",
    trip_args({{"destination",
                json::object{{"type", "coords"},
                             {"value", json::object{{"lat", 61.5},
                                                    {"lon", 23.76}}}}}})));
  CHECK(far.at("code").as_string() == "unsupported-region");
  auto arrive = test::tool_error(client.call_tool(
    "plan_trip", trip_args({{"when", json::object{{"type", "arrive"}}}})));
  CHECK_THAT(std::string{arrive.at("message").as_string()},
             Catch::Contains("when.time"));
}

TEST_CASE("e2e: rate limit path, retry then success",
          "[e2e][plan_trip][contract][faults]") {
  daemon_harness daemon;
  mock::fault_settings once;
  once.fault = "http429";
  once.error_rate = 1;
  once.fault_count = 1;
  once.retry_after = 1;
  daemon.mock().set_faults(once);
  mcp_client client{daemon.port()};
  client.initialize();
  auto plan = test::structured(client.call_tool(
    "plan_trip", trip_args({{"includeDisruptionAlt", false}})));
  CHECK_FALSE(plan.at("itineraries").as_array().empty());
  auto stats = daemon.mock().stats();
  CHECK(stats.faults_injected == 1);
  CHECK(stats.by_operation.at("PlanTrip") == 2); // the 429, then the retry
}

TEST_CASE("e2e: plan_trip from a saved place", "[e2e][plan_trip][labels]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  test::structured(client.call_tool(
    "save_user_variable",
    json::object{{"key", "home"},
                 {"type", "location"},
                 {"value", json::object{{"lat", 60.2055},
                                        {"lon", 24.6559},
                                        {"name", "Home"},
                                        {"address", "Kotikatu 1"}}}}));
  auto plan = test::structured(client.call_tool(
    "plan_trip",
    trip_args({{"destination",
                json::object{{"type", "label"}, {"value", "home"}}}})));
  const auto& dest = plan.at("destination").as_object();
  CHECK(dest.at("label").as_string() == "home");
  CHECK(dest.at("name").as_string() == "Home");
  CHECK(dest.at("address").as_string() == "Kotikatu 1");
  CHECK(dest.at("rawSource").as_string() == "variable");
}

TEST_CASE("e2e: every Helsinki tool maps upstream faults to its codes",
          "[e2e][faults]") {
  test::harness_options options;
  options.tool_timeout_ms = 3000;
  options.upstream_timeout_ms = 800;
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  auto center = json::object{{"lat", 60.1699}, {"lon", 24.9384}};
  std::vector<std::pair<std::string, json::object>> calls{
    {"get_departures", departures_args()},
    {"find_stops", json::object{{"coordinate", center}}},
    {"geocode_address", json::object{{"text", "kamppi"}}},
    {"plan_trip", trip_args({{"includeDisruptionAlt", false}})},
  };
  struct fault_case {
    const char* fault;
    const char* code;
  };
  // http429 last: its Retry-After holds the upstream back (no further
  // request goes out until then).
  for (auto [fault, code] : {fault_case{"http503", "upstream-error"},
                             fault_case{"malformed", "upstream-error"},
                             fault_case{"truncated", "upstream-error"},
                             fault_case{"hang", "upstream-timeout"},
                             fault_case{"http429", "rate-limited"}}) {
    mock::fault_settings faults;
    faults.fault = fault;
    faults.error_rate = 1;
    faults.retry_after = 30; // beyond the deadline: no retry
    faults.hang_ms = 2000;
    daemon.mock().set_faults(faults);
    for (const auto& [tool, args] : calls) {
      INFO(tool << " under " << fault);
      auto error = test::tool_error(client.call_tool(tool, args));
      CHECK(error.at("code").as_string() == code);
      if (std::string{code} == "rate-limited")
        CHECK(error.at("retryAfter").as_int64() == 30);
    }
  }
  // The held-back upstream answers rate-limited without a request, with the
  // time left of its Retry-After.
  auto before = daemon.mock().stats().requests;
  daemon.mock().set_faults(mock::fault_settings{});
  auto held = test::tool_error(client.call_tool("get_departures",
                                                departures_args()));
  CHECK(held.at("code").as_string() == "rate-limited");
  CHECK(held.at("retryAfter").as_int64() >= 25);
  CHECK(daemon.mock().stats().requests == before);
}

TEST_CASE("e2e: every Helsinki tool reports a refused upstream as "
          "network-error",
          "[e2e][faults]") {
  test::harness_options options;
  options.routing_url = "http://127.0.0.1:1/routing/v2/hsl/gtfs/v1";
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  auto center = json::object{{"lat", 60.1699}, {"lon", 24.9384}};
  for (const auto& [tool, args] :
       std::vector<std::pair<std::string, json::object>>{
         {"find_stops", json::object{{"coordinate", center}}},
         {"plan_trip", trip_args()}}) {
    INFO(tool);
    auto error = test::tool_error(client.call_tool(tool, args));
    CHECK(error.at("code").as_string() == "network-error");
  }
}

TEST_CASE("e2e: stationToilets over MCP on TfL's real files",
          "[e2e][station_toilets]") {
  test::harness_options options;
  options.station_data = std::string{TRANSITD_FIXTURES_DIR}
                         + "/tfl-station-data/"
                           "tfl-stationdata-detailed-2024-07-31";
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  auto abbey = test::structured(client.call_tool(
    "stationToilets", json::object{{"stationName", "Abbey Wood"}}));
  CHECK(abbey.at("success").as_bool());
  CHECK(abbey.at("code").as_string() == "OK");
  CHECK(abbey.at("stationUniqueId").as_string() == "HUBABW");
  CHECK(abbey.at("stationDisambiguation").is_null());
  auto toilets = abbey.at("toilets").as_array();
  REQUIRE(toilets.size() == 3);
  CHECK(toilets.at(2).at("type").as_string() == "Unisex");
  CHECK(toilets.at(2).at("accessible").as_bool());
  auto text_of = [](const json::object& result) {
    return json::parse(result.at("content").at(0).at("text").as_string())
      .as_object();
  };
  auto ambiguous = client.call_tool("stationToilets",
                                    json::object{{"stationName", "Abbey"}});
  CHECK(ambiguous.at("isError").as_bool());
  CHECK_FALSE(ambiguous.contains("structuredContent"));
  auto envelope = text_of(ambiguous);
  CHECK_FALSE(envelope.at("success").as_bool());
  CHECK(envelope.at("code").as_string() == "DISAMBIGUATION_REQUIRED");
  CHECK(envelope.at("toilets").is_null());
  CHECK(envelope.at("stationDisambiguation").as_array().size() >= 2);
  auto missing = text_of(client.call_tool(
    "stationToilets", json::object{{"stationName", "Hogwarts"}}));
  CHECK(missing.at("code").as_string() == "STATION_NOT_FOUND");
  auto invalid = text_of(client.call_tool(
    "stationToilets", json::object{{"station", "Bank"}}));
  CHECK(invalid.at("code").as_string() == "VALIDATION_ERROR");
  CHECK(invalid.at("correlationId").as_string().size() == 36);
}

TEST_CASE("e2e: planJourney from the demo upstream says demo-data (D18)",
          "[e2e][plan_journey][demo]") {
  auto has_demo_warning = [](const json::object& result) {
    if (!result.contains("warnings"))
      return false;
    for (const auto& w : result.at("warnings").as_array())
      if (w.at("code").as_string() == "demo-data")
        return true;
    return false;
  };
  auto plan = [](daemon_harness& daemon) {
    mcp_client client{daemon.port()};
    client.initialize();
    return test::structured(client.call_tool(
      "planJourney", json::object{{"from", "Bank"}, {"to", "Mile End"}}));
  };
  {
    test::harness_options options;
    options.demo = true;
    daemon_harness daemon{options};
    auto demo = plan(daemon);
    CHECK(demo.at("code").as_string() == "OK");
    CHECK(has_demo_warning(demo));
  }
  {
    daemon_harness daemon; // a configured TfL (the mock, with a key)
    auto live = plan(daemon);
    CHECK(live.at("code").as_string() == "OK");
    CHECK_FALSE(has_demo_warning(live));
  }
}

TEST_CASE("e2e: stationToilets on the demo set, and without data",
          "[e2e][station_toilets]") {
  {
    daemon_harness daemon;
    mcp_client client{daemon.port()};
    client.initialize();
    auto abbey = test::structured(client.call_tool(
      "stationToilets", json::object{{"stationName", "abbey wood"}}));
    CHECK(abbey.at("warnings").at(0).at("code").as_string() == "demo-data");
  }
  test::harness_options options;
  options.station_data = "/nonexistent/tfl";
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  auto result = client.call_tool("stationToilets",
                                 json::object{{"stationName", "Bank"}});
  auto envelope = json::parse(
    result.at("content").at(0).at("text").as_string()).as_object();
  CHECK(envelope.at("code").as_string() == "DATA_NOT_AVAILABLE");
  // The rest of the daemon works without station data.
  test::structured(client.call_tool("get_departures", departures_args()));
}

namespace {

json::object envelope(const json::object& result) {
  return json::parse(result.at("content").at(0).at("text").as_string())
    .as_object();
}

} // namespace

TEST_CASE("e2e: planJourney against the mock TfL", "[e2e][plan_journey]") {
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  auto ok = test::structured(client.call_tool(
    "planJourney", json::object{{"from", "Bank"}, {"to", "Mile End"}}));
  CHECK(ok.at("success").as_bool());
  CHECK(ok.at("code").as_string() == "OK");
  auto journeys = ok.at("topJourneys").as_array();
  REQUIRE(journeys.size() == 5); // six offered, top five kept (D19)
  for (std::size_t i = 1; i < journeys.size(); ++i)
    CHECK(journeys[i - 1].at("durationMinutes").as_int64()
          <= journeys[i].at("durationMinutes").as_int64());
  CHECK(ok.at("fromLocationDisambiguation").is_null());
  CHECK(daemon.mock().stats().with_subscription_key == 1); // app_key sent
  // Ambiguous free text: suggestions with retry tokens.
  auto ambiguous = client.call_tool(
    "planJourney", json::object{{"from", "bethnal green"}, {"to", "Bank"}});
  CHECK(ambiguous.at("isError").as_bool());
  auto env = envelope(ambiguous);
  CHECK(env.at("code").as_string() == "DISAMBIGUATION_REQUIRED");
  CHECK(env.at("topJourneys").is_null());
  auto options = env.at("fromLocationDisambiguation").as_array();
  REQUIRE(options.size() == 3);
  CHECK(env.at("toLocationDisambiguation").is_null());
  // Retrying with a parameterValue plans the journey.
  auto token = std::string{options.at(0).at("parameterValue").as_string()};
  auto retried = test::structured(client.call_tool(
    "planJourney", json::object{{"from", token}, {"to", "Bank"}}));
  CHECK(retried.at("success").as_bool());
  auto unknown = envelope(client.call_tool(
    "planJourney", json::object{{"from", "nowhere at all"}, {"to", "Bank"}}));
  CHECK(unknown.at("code").as_string() == "VALIDATION_ERROR");
  auto invalid = envelope(client.call_tool(
    "planJourney", json::object{{"from", "  "}, {"to", "Bank"}}));
  CHECK(invalid.at("code").as_string() == "VALIDATION_ERROR");
  auto typo = envelope(client.call_tool(
    "planJourney", json::object{{"from", "Bank"}, {"too", "Bank"}}));
  CHECK(typo.at("code").as_string() == "VALIDATION_ERROR");
}

TEST_CASE("e2e: planJourney error codes", "[e2e][plan_journey][faults]") {
  test::harness_options options;
  options.tool_timeout_ms = 3000;
  options.upstream_timeout_ms = 800;
  options.plan_journey_tps = 2;
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  auto call = [&] {
    return envelope(client.call_tool(
      "planJourney", json::object{{"from", "Bank"}, {"to", "Waterloo"}}));
  };
  mock::fault_settings faults;
  faults.error_rate = 1;
  faults.retry_after = 30;
  faults.hang_ms = 2000;
  faults.fault = "http503";
  daemon.mock().set_faults(faults);
  CHECK(call().at("code").as_string() == "UPSTREAM_ERROR");
  faults.fault = "hang";
  daemon.mock().set_faults(faults);
  // The TPS limit (2/s) has room again after the hang.
  CHECK(call().at("code").as_string() == "UPSTREAM_TIMEOUT");
  daemon.mock().set_faults(mock::fault_settings{});
  // Burst of three at 2 per second: the third is limited.
  call();
  call();
  auto limited = call();
  CHECK(limited.at("code").as_string() == "RATE_LIMIT_EXCEEDED");
  CHECK(limited.at("retryAfter").as_int64() >= 1);
}

TEST_CASE("e2e: planJourney with an explicit TfL URL but no key (D18)",
          "[e2e][plan_journey]") {
  test::harness_options options;
  options.tfl_key = "";
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  auto env = envelope(client.call_tool(
    "planJourney", json::object{{"from", "Bank"}, {"to", "Mile End"}}));
  CHECK(env.at("code").as_string() == "UPSTREAM_ERROR");
  CHECK_THAT(std::string{env.at("message").as_string()},
             Catch::Contains("key"));
  CHECK(daemon.mock().stats().requests == 0);
  // The Helsinki tools are unaffected.
  test::structured(client.call_tool("get_departures", departures_args()));
}

TEST_CASE("e2e: the TfL key never appears in results", "[e2e][security]") {
  test::harness_options options;
  options.tfl_key = "SECRET-TFL-KEY-123";
  daemon_harness daemon{options};
  mcp_client client{daemon.port()};
  client.initialize();
  for (auto args : {json::object{{"from", "Bank"}, {"to", "Mile End"}},
                    json::object{{"from", "somewhere"}, {"to", "Bank"}}}) {
    auto res = client.post(json::object{
      {"jsonrpc", "2.0"},
      {"id", 77},
      {"method", "tools/call"},
      {"params", json::object{{"name", "planJourney"}, {"arguments", args}}}});
    CHECK(res.body.find("SECRET-TFL-KEY") == std::string::npos);
    // Positive control: the call reached TfL with the key and came back
    // with an answer (a journey, or the disambiguation for "somewhere"),
    // so the absence above is not that of a call that failed early.
    auto envelope = json::parse(res.json()
                                  .at("result")
                                  .at("content")
                                  .at(0)
                                  .at("text")
                                  .as_string())
                      .as_object();
    CHECK((envelope.at("code").as_string() == "OK"
           || envelope.at("code").as_string() == "DISAMBIGUATION_REQUIRED"));
  }
  // Both calls carried the key (app_key header) to the upstream.
  CHECK(daemon.mock().stats().with_subscription_key == 2);
}

TEST_CASE("e2e: no tool writes a number in exponent notation",
          "[e2e][numbers]") {
  // The scanner finds what Boost.JSON's own serializer writes for a
  // coordinate: the check below can fail.
  CHECK(test::exponent_number(json::serialize(json::object{
          {"lat", 60.16965252881389}}))
        == "6.016965252881389E1");
  CHECK(test::exponent_number(R"({"id":"1e5","x":[1.5,-2]})").empty());
  daemon_harness daemon;
  mcp_client client{daemon.port()};
  client.initialize();
  json::object center{{"lat", 60.16965252881389}, {"lon", 24.93813716}};
  const std::vector<std::pair<std::string, json::object>> calls{
    {"get_departures", departures_args()},
    {"find_stops", json::object{{"coordinate", center}, {"radius", 800}}},
    {"geocode_address", json::object{{"text", "kamppi"}, {"size", 5}}},
    {"plan_trip", trip_args({{"limit", 3}})},
    {"stationToilets", json::object{{"stationName", "abbey"}}},
    {"stationToilets", json::object{{"stationName", "abbey wood"}}},
    {"planJourney", json::object{{"from", "Bank"}, {"to", "Mile End"}}},
    {"planJourney", json::object{{"from", "somewhere"}, {"to", "Bank"}}},
    {"save_user_variable",
     json::object{{"key", "home"}, {"type", "location"}, {"value", center}}},
    {"get_user_variables", json::object{}},
    {"delete_user_variable", json::object{{"key", "home"}}}};
  int id = 100;
  for (const auto& [name, args] : calls) {
    auto res = client.post(json::object{
      {"jsonrpc", "2.0"},
      {"id", ++id},
      {"method", "tools/call"},
      {"params", json::object{{"name", name}, {"arguments", args}}}});
    INFO(name << ": " << res.body);
    REQUIRE(res.status == 200);
    CHECK(test::exponent_number(res.body).empty());
    // The text block is JSON inside a string: scan it as JSON too.
    auto text = res.json().at("result").at("content").at(0).at("text");
    CHECK(test::exponent_number(text.as_string()).empty());
  }
  // Coordinates at 6 decimals, as saved and as listed.
  test::structured(client.call_tool(
    "save_user_variable",
    json::object{{"key", "work"}, {"type", "location"}, {"value", center}}));
  auto listed = client.post(json::object{
    {"jsonrpc", "2.0"},
    {"id", 999},
    {"method", "tools/call"},
    {"params", json::object{{"name", "get_user_variables"},
                            {"arguments", json::object{}}}}});
  CHECK(listed.body.find("60.169653") != std::string::npos);
  CHECK(listed.body.find("60.1696525") == std::string::npos);
}
