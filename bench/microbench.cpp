// Micro-benchmarks: JSON-RPC classification, the Digitransit departures
// parser on the recorded HSL payload (100 stop times), the business rules,
// and rendering. Run: build/bench/transitd_microbench
// (options: --benchmark-samples N).

#define CATCH_CONFIG_MAIN
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "actors/departures_rules.hpp"
#include "providers/digitransit_routing.hpp"
#include "transport/departures_json.hpp"
#include "transport/json_rpc.hpp"

namespace json = boost::json;
using namespace transitd;

namespace {

std::string recorded() {
  std::ifstream in{std::string{TRANSITD_FIXTURES_DIR}
                   + "/digitransit-routing/recorded-hsl/"
                     "hsl-stop-HSL2434202-departures-2022-06-06.response.json"};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

} // namespace

TEST_CASE("micro-benchmarks") {
  const std::string call
    = R"({"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"get_departures","arguments":{"stop":{"type":"id","value":"HSL:1040129"},"limit":5}}})";
  BENCHMARK("json-rpc parse + classify (tools/call)") {
    return json_rpc::classify(json::parse(call).as_object()).kind;
  };
  BENCHMARK("get_departures arguments → request") {
    auto parsed = json::parse(call).as_object();
    return mcp::parse_get_departures(
             parsed["params"].as_object()["arguments"].as_object())
      ->limit;
  };
  auto body = recorded();
  BENCHMARK("parse recorded HSL departures (100 stop times, 600 KB)") {
    return digitransit::parse_departures(body, "HSL:2434202", 0)
      ->stop_times.size();
  };
  auto upstream = *digitransit::parse_departures(body, "HSL:2434202", 0);
  get_departures_request request;
  request.stop = {stop_ref::kind::id, "HSL:2434202"};
  request.window_minutes = 120;
  request.limit = 50;
  auto now = upstream.stop_times.front().scheduled_departure;
  BENCHMARK("business rules: window, status, sort, truncate") {
    return build_departures_board(request, upstream, now).departures.size();
  };
  auto reply = build_departures_board(request, upstream, now);
  BENCHMARK("render reply → JSON text") {
    return json::serialize(mcp::to_json(reply)).size();
  };
}
