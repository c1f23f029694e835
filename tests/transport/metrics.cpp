// Prometheus exposition of tool calls and engine counters.

#include "transitd/transport/metrics.hpp"

#include <catch2/catch.hpp>

using namespace transitd;
using Catch::Contains;

TEST_CASE("tool calls are counted by outcome with latency histograms",
          "[metrics]") {
  call_metrics m{{"get_departures", "plan_trip"}};
  m.record("get_departures", ec::none, 0.003);
  m.record("get_departures", ec::none, 0.2);
  m.record("get_departures", ec::upstream_timeout, 12);
  m.record("unknown_tool", ec::none, 1); // ignored
  m.started();
  std::string out;
  m.append_prometheus(out);
  CHECK_THAT(out, Contains("# TYPE transitd_tool_calls_total counter"));
  CHECK_THAT(out, Contains(
                    "transitd_tool_calls_total{tool=\"get_departures\","
                    "code=\"ok\"} 2\n"));
  CHECK_THAT(out, Contains("transitd_tool_calls_total{tool=\"get_departures\""
                           ",code=\"upstream-timeout\"} 1\n"));
  // Tools without calls still show their ok series at 0.
  CHECK_THAT(out, Contains(
                    "transitd_tool_calls_total{tool=\"plan_trip\",code=\"ok\"}"
                    " 0\n"));
  CHECK(out.find("unknown_tool") == std::string::npos);
  // Cumulative buckets.
  CHECK_THAT(out, Contains("transitd_tool_call_duration_seconds_bucket{tool="
                           "\"get_departures\",le=\"0.005\"} 1\n"));
  CHECK_THAT(out, Contains("transitd_tool_call_duration_seconds_bucket{tool="
                           "\"get_departures\",le=\"0.25\"} 2\n"));
  CHECK_THAT(out, Contains("transitd_tool_call_duration_seconds_bucket{tool="
                           "\"get_departures\",le=\"10\"} 2\n"));
  CHECK_THAT(out, Contains("transitd_tool_call_duration_seconds_bucket{tool="
                           "\"get_departures\",le=\"+Inf\"} 3\n"));
  CHECK_THAT(out, Contains("transitd_tool_call_duration_seconds_count{tool="
                           "\"get_departures\"} 3\n"));
  CHECK_THAT(out, Contains("transitd_tool_call_duration_seconds_sum{tool="
                           "\"get_departures\"} 12.203"));
  CHECK_THAT(out, Contains("transitd_tool_calls_in_flight 1\n"));
}

TEST_CASE("engine counters become labelled families", "[metrics]") {
  std::string out;
  append_engine_metrics(
    out, {{"digitransit-routing.calls", 10},
          {"digitransit-routing.retries", 2},
          {"digitransit-routing.attempt_ms_total", 1500},
          {"digitransit-routing.breaker_open", 0},
          {"tfl.calls", 3},
          {"timetable.departures.hits", 7},
          {"timetable.departures.entries", 4},
          {"tool:planJourney.refused", 1},
          {"station_data.loaded", 1},
          {"digitransit-routing.something_new", 5},
          {"nodot", 1}});
  CHECK_THAT(out, Contains("# TYPE transitd_upstream_calls_total counter"));
  CHECK_THAT(out, Contains(
                    "transitd_upstream_calls_total{upstream=\"digitransit-"
                    "routing\"} 10\n"));
  CHECK_THAT(out, Contains("transitd_upstream_calls_total{upstream=\"tfl\"} "
                           "3\n"));
  CHECK_THAT(out, Contains("transitd_upstream_retries_total{upstream="
                           "\"digitransit-routing\"} 2\n"));
  CHECK_THAT(out, Contains("transitd_upstream_attempt_seconds_total{upstream="
                           "\"digitransit-routing\"} 1.5\n"));
  CHECK_THAT(out, Contains("# TYPE transitd_upstream_breaker_open gauge"));
  CHECK_THAT(out, Contains("transitd_cache_hits_total{cache=\"timetable."
                           "departures\"} 7\n"));
  CHECK_THAT(out, Contains("transitd_cache_entries{cache=\"timetable."
                           "departures\"} 4\n"));
  CHECK_THAT(out, Contains("transitd_rate_limit_refused_total{key=\"tool:"
                           "planJourney\"} 1\n"));
  CHECK_THAT(out, Contains("transitd_station_data_loaded 1\n"));
  CHECK(out.find("something_new") == std::string::npos);
  // One HELP/TYPE per family.
  auto first = out.find("# TYPE transitd_upstream_calls_total");
  CHECK(out.find("# TYPE transitd_upstream_calls_total", first + 1)
        == std::string::npos);
}

TEST_CASE("label values are escaped", "[metrics]") {
  CHECK(prometheus_label("a\"b\\c\nd") == "a\\\"b\\\\c\\nd");
}

TEST_CASE("shared state counters: Redis links, shared cache and quota",
          "[metrics][shared]") {
  std::string out;
  append_engine_metrics(out, {{"redis:quota.up", 0},
                              {"redis:cache.up", 1},
                              {"redis:cache.commands", 12},
                              {"redis:quota.reconnects", 2},
                              {"timetable.departures.shared_hits", 5},
                              {"timetable.departures.shared_unreachable", 3},
                              {"upstream:tfl.fallbacks", 4}});
  CHECK_THAT(out, Contains("# TYPE transitd_redis_up gauge"));
  CHECK_THAT(out, Contains("transitd_redis_up{link=\"quota\"} 0\n"));
  CHECK_THAT(out, Contains("transitd_redis_up{link=\"cache\"} 1\n"));
  CHECK_THAT(out, Contains("transitd_redis_commands_total{link=\"cache\"} "
                           "12\n"));
  CHECK_THAT(out, Contains("transitd_redis_reconnects_total{link=\"quota\"} "
                           "2\n"));
  CHECK_THAT(out, Contains("transitd_cache_shared_hits_total{cache=\""
                           "timetable.departures\"} 5\n"));
  CHECK_THAT(out, Contains("transitd_cache_shared_unreachable_total{cache=\""
                           "timetable.departures\"} 3\n"));
  CHECK_THAT(out, Contains("transitd_rate_limit_fallbacks_total{key=\""
                           "upstream:tfl\"} 4\n"));
}
