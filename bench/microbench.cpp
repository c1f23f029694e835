// Micro-benchmarks of the hot pure code: JSON-RPC parse/serialise, every
// upstream parser on its recorded payload, status mapping, the business
// rules, plan merge/dedupe, cache keys, rendering.
// Run: build/bench/transitd_microbench (options: --benchmark-samples N).

#define CATCH_CONFIG_MAIN
#include <fstream>
#include <sstream>

#include <catch2/catch.hpp>

#include "transitd/actors/departures_rules.hpp"
#include "transitd/actors/provider_cache.hpp"
#include "transitd/actors/trip_rules.hpp"
#include "transitd/providers/digitransit_geocoding.hpp"
#include "transitd/providers/digitransit_routing.hpp"
#include "transitd/providers/tfl_journey.hpp"
#include "transitd/providers/upstream_http.hpp"
#include "transitd/transport/departures_json.hpp"
#include "transitd/transport/json_rpc.hpp"
#include "transitd/transport/json_text.hpp"

namespace json = boost::json;
using namespace transitd;

namespace {

std::string fixture(const std::string& path) {
  std::ifstream in{std::string{TRANSITD_FIXTURES_DIR} + "/" + path};
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

std::string recorded() {
  return fixture("digitransit-routing/recorded-hsl/"
                 "hsl-stop-HSL2434202-departures-2022-06-06.response.json");
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
  BENCHMARK("render reply → JSON text (boost::json::serialize)") {
    return json::serialize(mcp::to_json(reply)).size();
  };
  BENCHMARK("render reply → JSON text (json_text, as served)") {
    return mcp::json_text(mcp::to_json(reply)).size();
  };
  BENCHMARK("json-rpc result serialise") {
    return json::serialize(
             json_rpc::make_result(json::value(7), mcp::to_json(reply)))
      .size();
  };
}

TEST_CASE("micro-benchmarks: parsers, status mapping, dedupe, cache keys") {
  auto plan = fixture("digitransit-routing/otp-test-expectations/"
                      "planConnection-extended.response.json");
  BENCHMARK("parse OTP planConnection (extended)") {
    return digitransit::parse_plan(plan, 0)->itineraries.size();
  };
  auto nearest = fixture("digitransit-routing/otp-test-expectations/"
                         "nearest.response.json");
  BENCHMARK("parse OTP nearest stops") {
    return digitransit::parse_nearby_stops(nearest, 0)->stops.size();
  };
  auto pelias = fixture("digitransit-geocoding/recorded/"
                        "search-lumikintie-layers-address-2024-05-06.response.json");
  BENCHMARK("parse Pelias search") {
    return digitransit::parse_search(pelias, 0)->candidates.size();
  };
  http_response tfl_ok;
  tfl_ok.status = 200;
  tfl_ok.body = fixture("tfl-journey/recorded/itinerary-bank-to-mile-end-tube-2015-10-21.200.json");
  BENCHMARK("parse TfL journey results (200)") {
    return static_cast<bool>(tfl::parse_journey_response(tfl_ok));
  };
  http_response throttled;
  throttled.status = 429;
  throttled.retry_after = "7";
  BENCHMARK("status mapping (429 with Retry-After)") {
    return classify_http_failure(throttled, "bench").retry_after;
  };
  auto plans = *digitransit::parse_plan(plan, 0);
  auto doubled = plans;
  for (const auto& it : plans.itineraries)
    doubled.itineraries.push_back(it);
  BENCHMARK("plan merge + fingerprint dedupe (primary + relaxed)") {
    return merge_plans(plans, &doubled).itineraries.size();
  };
  stop_departures_query q;
  q.stop_id = "HSL:1040129";
  q.context.correlation_id = "0b7c1d9e-5a8f-4f8e-9a55-2e0f8e6c9d11";
  BENCHMARK("cache key of a departures query") {
    return cache_key(q).size();
  };
}
