#include "transitd/transport/metrics.hpp"

#include <tuple>

#include <algorithm>
#include <charconv>
#include <map>

namespace transitd {

namespace {

/// The shortest text that reads back as `value`.
std::string number(double value) {
  char buffer[32];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end);
}

void header(std::string& out, std::string_view name, std::string_view type,
            std::string_view help) {
  out += "# HELP ";
  out += name;
  out += ' ';
  out += help;
  out += "\n# TYPE ";
  out += name;
  out += ' ';
  out += type;
  out += '\n';
}

void sample(std::string& out, std::string_view name, std::string_view labels,
            double value) {
  out += name;
  if (!labels.empty()) {
    out += '{';
    out += labels;
    out += '}';
  }
  out += ' ';
  out += number(value);
  out += '\n';
}

std::string code_label(std::size_t index) {
  return index == 0 ? "ok" : std::string{to_wire(static_cast<ec>(index))};
}

/// What an engine counter's stat means in Prometheus terms.
struct family {
  const char* metric;
  const char* type; // "counter" or "gauge"
  const char* help;
  double scale = 1;
};

const std::map<std::string, family>& upstream_families() {
  static const std::map<std::string, family> f{
    {"calls", {"transitd_upstream_calls_total", "counter",
               "Calls handed to the upstream gate."}},
    {"attempts", {"transitd_upstream_attempts_total", "counter",
                  "HTTP attempts sent upstream, retries included."}},
    {"retries", {"transitd_upstream_retries_total", "counter",
                 "Attempts that were retries."}},
    {"failures", {"transitd_upstream_failures_total", "counter",
                  "Calls that ended in an error."}},
    {"throttled", {"transitd_upstream_throttled_total", "counter",
                   "429 answers from the upstream."}},
    {"rejected_breaker_open",
     {"transitd_upstream_rejected_breaker_open_total", "counter",
      "Calls failed fast by the open circuit breaker."}},
    {"rejected_rate_limited",
     {"transitd_upstream_rejected_rate_limited_total", "counter",
      "Calls refused by the outbound rate limit."}},
    {"cancelled", {"transitd_upstream_cancelled_total", "counter",
                   "Calls cancelled by their caller."}},
    {"attempt_ms_total", {"transitd_upstream_attempt_seconds_total", "counter",
                          "Time spent in upstream attempts.", 0.001}},
    {"breaker_opened", {"transitd_upstream_breaker_opened_total", "counter",
                        "Times the circuit breaker opened."}},
    {"breaker_open", {"transitd_upstream_breaker_open", "gauge",
                      "1 while the circuit breaker is open."}},
    {"breaker_window_calls",
     {"transitd_upstream_breaker_window_calls", "gauge",
      "Distinct calls in the breaker's sliding window."}},
    {"breaker_window_failures",
     {"transitd_upstream_breaker_window_failures", "gauge",
      "Of those, the calls that failed after their retries."}},
    {"in_flight", {"transitd_upstream_in_flight", "gauge",
                   "Attempts in flight."}},
    {"queued", {"transitd_upstream_queued", "gauge",
                "Attempts waiting for a free worker."}},
  };
  return f;
}

const std::map<std::string, family>& cache_families() {
  static const std::map<std::string, family> f{
    {"hits", {"transitd_cache_hits_total", "counter",
              "Calls answered from the cache."}},
    {"misses", {"transitd_cache_misses_total", "counter",
                "Calls that went upstream."}},
    {"coalesced", {"transitd_cache_coalesced_total", "counter",
                   "Calls that joined an identical call in flight."}},
    {"evictions", {"transitd_cache_evictions_total", "counter",
                   "Entries evicted by the size bounds."}},
    {"entries", {"transitd_cache_entries", "gauge", "Entries held."}},
    {"bytes", {"transitd_cache_bytes", "gauge",
               "Serialised bytes held."}},
    {"in_flight", {"transitd_cache_in_flight", "gauge",
                   "Upstream calls in flight for the cache."}},
    {"shared_hits", {"transitd_cache_shared_hits_total", "counter",
                     "Local misses answered from Redis (another replica's "
                     "fetch)."}},
    {"shared_waits", {"transitd_cache_shared_waits_total", "counter",
                      "Looks at Redis while another replica held the "
                      "fetch lock."}},
    {"shared_fetches", {"transitd_cache_shared_fetches_total", "counter",
                        "Upstream fetches made for the fleet (lock "
                        "taken)."}},
    {"shared_unreachable", {"transitd_cache_shared_unreachable_total",
                            "counter",
                            "Lookups that found Redis unreachable and "
                            "fetched locally (fail-open)."}},
  };
  return f;
}

const std::map<std::string, family>& redis_families() {
  static const std::map<std::string, family> f{
    {"up", {"transitd_redis_up", "gauge",
            "Whether the Redis connection is up (1) or down (0)."}},
    {"commands", {"transitd_redis_commands_total", "counter",
                  "Commands sent to Redis."}},
    {"failures", {"transitd_redis_failures_total", "counter",
                  "Connections to Redis that failed or broke."}},
    {"reconnects", {"transitd_redis_reconnects_total", "counter",
                    "Reconnections to Redis after a failure."}},
  };
  return f;
}

const std::map<std::string, family>& limiter_families() {
  static const std::map<std::string, family> f{
    {"granted", {"transitd_rate_limit_granted_total", "counter",
                 "Permits granted by the rate limiter."}},
    {"refused", {"transitd_rate_limit_refused_total", "counter",
                 "Permits refused by the rate limiter (rate-limited)."}},
    {"fallbacks", {"transitd_rate_limit_fallbacks_total", "counter",
                   "Shared permits decided on this replica's share because "
                   "Redis was unreachable (fail-safe)."}},
  };
  return f;
}

const std::map<std::string, family>& station_families() {
  static const std::map<std::string, family> f{
    {"loaded", {"transitd_station_data_loaded", "gauge",
                "1 when TfL station data is loaded."}},
    {"stations", {"transitd_station_data_stations", "gauge",
                  "Stations in the loaded station data."}},
  };
  return f;
}

const std::map<std::string, family>& feed_families() {
  static const std::map<std::string, family> f{
    {"loaded", {"transitd_feed_loaded", "gauge",
                "1 when the GTFS feed has a timetable."}},
    {"stops", {"transitd_feed_stops", "gauge", "Stops in the feed."}},
    {"trips", {"transitd_feed_trips", "gauge", "Trips in the feed."}},
    {"stop_times", {"transitd_feed_stop_times", "gauge",
                    "Stop times in the feed."}},
    {"skipped_rows", {"transitd_feed_skipped_rows", "gauge",
                      "Bad rows skipped at the last load."}},
    {"load_ms", {"transitd_feed_load_seconds", "gauge",
                 "Time the last load took.", 0.001}},
    {"from_snapshot", {"transitd_feed_from_snapshot", "gauge",
                       "1 when the feed's timetable was read from its "
                       "snapshot (sources unchanged since it was built)."}},
    {"failed_loads", {"transitd_feed_failed_loads_total", "counter",
                      "Loads or downloads that failed."}},
    {"unchanged_checks", {"transitd_feed_unchanged_checks_total", "counter",
                          "Refreshes that found nothing changed."}},
    {"cancelled_plans", {"transitd_feed_cancelled_plans_total", "counter",
                         "Searches stopped early: their caller no longer "
                         "wanted them."}},
    {"plans", {"transitd_feed_plans_total", "counter",
               "Journey searches the feed's routers answered."}},
    {"plan_us", {"transitd_feed_plan_seconds_total", "counter",
                 "Engine time of those searches (RAPTOR and the answer).",
                 0.000001}},
    {"realtime_polls", {"transitd_feed_realtime_polls_total", "counter",
                        "Polls of the feed's GTFS-realtime sources."}},
    {"realtime_failures", {"transitd_feed_realtime_failures_total",
                           "counter",
                           "Realtime polls that failed (network, status, "
                           "size, or a malformed message)."}},
    {"realtime_refused", {"transitd_feed_realtime_refused_total", "counter",
                          "Realtime messages refused whole as malformed."}},
    {"realtime_timestamp", {"transitd_feed_realtime_timestamp_seconds",
                            "gauge",
                            "Header timestamp of the newest realtime "
                            "message (seconds since the epoch)."}},
    {"realtime_builds", {"transitd_feed_realtime_builds_total", "counter",
                         "Times the realtime layer was rebuilt."}},
    {"realtime_build_ms", {"transitd_feed_realtime_build_seconds", "gauge",
                           "Time the last realtime build took.", 0.001}},
    {"realtime_trip_updates", {"transitd_feed_realtime_trip_updates",
                               "gauge",
                               "Trip updates in the realtime layer's "
                               "messages."}},
    {"realtime_matched", {"transitd_feed_realtime_matched", "gauge",
                          "Trip updates matched to a trip of the "
                          "timetable."}},
    {"realtime_cancelled", {"transitd_feed_realtime_cancelled", "gauge",
                            "Trips cancelled by realtime."}},
    {"realtime_added", {"transitd_feed_realtime_added", "gauge",
                        "Trips realtime added to the timetable."}},
    {"realtime_unmatched_trips", {"transitd_feed_realtime_unmatched_trips",
                                  "gauge",
                                  "Trip updates matching no trip of the "
                                  "timetable."}},
    {"realtime_unmatched_stops", {"transitd_feed_realtime_unmatched_stops",
                                  "gauge",
                                  "Stop time updates matching no call of "
                                  "their trip."}},
  };
  return f;
}

} // namespace

call_metrics::call_metrics(const std::vector<std::string>& tools) {
  for (const auto& name : tools) {
    auto t = std::make_unique<per_tool>();
    t->name = name;
    tools_.push_back(std::move(t));
  }
}

void call_metrics::record(std::string_view tool, ec code, double seconds) {
  for (auto& t : tools_) {
    if (t->name != tool)
      continue;
    auto index = std::min(static_cast<std::size_t>(code), code_count - 1);
    t->outcomes[index].fetch_add(1, std::memory_order_relaxed);
    auto bucket = static_cast<std::size_t>(
      std::lower_bound(buckets.begin(), buckets.end(), seconds)
      - buckets.begin());
    t->le[bucket].fetch_add(1, std::memory_order_relaxed);
    t->sum_us.fetch_add(static_cast<uint64_t>(std::max(0.0, seconds) * 1e6),
                        std::memory_order_relaxed);
    return;
  }
}

void call_metrics::append_prometheus(std::string& out) const {
  header(out, "transitd_tool_calls_total", "counter",
         "Tool calls answered, by tool and outcome code.");
  for (const auto& t : tools_)
    for (std::size_t i = 0; i < code_count; ++i) {
      auto n = t->outcomes[i].load(std::memory_order_relaxed);
      if (n == 0 && i != 0)
        continue;
      sample(out, "transitd_tool_calls_total",
             "tool=\"" + prometheus_label(t->name) + "\",code=\""
               + code_label(i) + "\"",
             static_cast<double>(n));
    }
  header(out, "transitd_tool_call_duration_seconds", "histogram",
         "Tool call latency, from request to answer.");
  for (const auto& t : tools_) {
    auto tool = "tool=\"" + prometheus_label(t->name) + "\"";
    uint64_t cumulative = 0;
    for (std::size_t b = 0; b <= buckets.size(); ++b) {
      cumulative += t->le[b].load(std::memory_order_relaxed);
      auto le = b < buckets.size() ? number(buckets[b]) : "+Inf";
      sample(out, "transitd_tool_call_duration_seconds_bucket",
             tool + ",le=\"" + le + "\"", static_cast<double>(cumulative));
    }
    sample(out, "transitd_tool_call_duration_seconds_sum", tool,
           static_cast<double>(t->sum_us.load(std::memory_order_relaxed))
             / 1e6);
    sample(out, "transitd_tool_call_duration_seconds_count", tool,
           static_cast<double>(cumulative));
  }
  append_gauge(out, "transitd_tool_calls_in_flight",
               "Tool calls being worked on.",
               static_cast<double>(in_flight()));
}

void append_gauge(std::string& out, std::string_view name,
                  std::string_view help, double value) {
  header(out, name, "gauge", help);
  sample(out, name, {}, value);
}

std::string prometheus_label(std::string_view value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == '\\' || c == '"') {
      out += '\\';
      out += c;
    } else if (c == '\n') {
      out += "\\n";
    } else {
      out += c;
    }
  }
  return out;
}

void append_connection_metrics(std::string& out, const reactor_stats& s) {
  header(out, "transitd_http_connections", "gauge",
         "Open HTTP connections by phase: idle (keep-alive), reading (a "
         "request arriving, a handshake, a refusal draining), serving (at a "
         "worker), awaiting (a tool call's reply, no thread held), streaming "
         "(a tool call's SSE reply sent as its events come, no thread "
         "held).");
  std::pair<const char*, int64_t> phases[] = {{"idle", s.idle},
                                              {"reading", s.reading},
                                              {"serving", s.serving},
                                              {"awaiting", s.awaiting_reply},
                                              {"streaming", s.streaming}};
  for (const auto& [phase, value] : phases)
    sample(out, "transitd_http_connections",
           std::string{"phase=\""} + phase + "\"", static_cast<double>(value));
  std::tuple<const char*, const char*, int64_t> counts[] = {
    {"transitd_http_connections_accepted_total", "Connections accepted.",
     s.accepted},
    {"transitd_http_connections_refused_total",
     "Connections refused over max-connections-per-client or "
     "max-connections (503).",
     s.refused_over_cap},
    {"transitd_http_request_timeouts_total",
     "Connections closed because a request did not arrive whole within "
     "request-timeout-s, or stalled for read-timeout-s.",
     s.head_timeouts},
    {"transitd_http_idle_timeouts_total",
     "Keep-alive connections closed after keep-alive-timeout-s idle.",
     s.idle_timeouts},
    {"transitd_http_requests_refused_total",
     "Requests refused for their framing (400, 413, 414, 431, 501).",
     s.refused_framing},
    {"transitd_http_requests_total", "Requests handed to a worker.",
     s.requests},
  };
  for (const auto& [name, help, value] : counts) {
    header(out, name, "counter", help);
    sample(out, name, {}, static_cast<double>(value));
  }
}

void append_engine_metrics(
  std::string& out,
  const std::vector<std::pair<std::string, int64_t>>& counters) {
  // Group samples by metric so that each family is written once.
  struct rendered {
    const family* f;
    std::vector<std::pair<std::string, double>> samples;
  };
  std::map<std::string, rendered> families;
  for (const auto& [name, value] : counters) {
    auto dot = name.rfind('.');
    if (dot == std::string::npos)
      continue;
    auto subject = name.substr(0, dot);
    auto stat = name.substr(dot + 1);
    const std::map<std::string, family>* table = nullptr;
    std::string label;
    if (subject.rfind("tool:", 0) == 0 || subject.rfind("upstream:", 0) == 0) {
      table = &limiter_families();
      label = "key";
    } else if (subject.rfind("redis:", 0) == 0) {
      table = &redis_families(); // "redis:quota"
      label = "link";
      subject = subject.substr(6);
    } else if (subject == "station_data") {
      table = &station_families();
    } else if (subject.rfind("feed.", 0) == 0) {
      table = &feed_families(); // "feed.nyc"
      label = "feed";
      subject = subject.substr(5);
    } else if (subject.find('.') != std::string::npos) {
      table = &cache_families(); // "timetable.departures"
      label = "cache";
    } else {
      table = &upstream_families(); // "digitransit-routing"
      label = "upstream";
    }
    auto it = table->find(stat);
    if (it == table->end())
      continue;
    auto& r = families[it->second.metric];
    r.f = &it->second;
    r.samples.emplace_back(label.empty()
                             ? std::string{}
                             : label + "=\"" + prometheus_label(subject)
                                 + "\"",
                           static_cast<double>(value) * it->second.scale);
  }
  for (const auto& [metric, r] : families) {
    header(out, metric, r.f->type, r.f->help);
    for (const auto& [labels, value] : r.samples)
      sample(out, metric, labels, value);
  }
}

} // namespace transitd
