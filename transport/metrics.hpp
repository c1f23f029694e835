#pragma once
// Prometheus text exposition (format 0.0.4) for /metrics: per-tool calls by
// outcome code and latency histograms, recorded lock-free on the HTTP
// threads; and the engine's actor counters (upstream gates, caches, the
// limiter, station data) rendered as labelled families.

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "transitd/messages/error.hpp"
#include "transitd/net/connection_reactor.hpp"

namespace transitd {

class call_metrics {
public:
  /// Upper bounds of the latency buckets, in seconds (+Inf is implied).
  static constexpr std::array<double, 12> buckets{
    0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30};
  /// Outcome codes by ec value; ec::none is "ok".
  static constexpr std::size_t code_count
    = static_cast<std::size_t>(ec::cancelled) + 1;

  /// The tools to count; others are ignored.
  explicit call_metrics(const std::vector<std::string>& tools);

  void record(std::string_view tool, ec code, double seconds);
  void started() {
    in_flight_.fetch_add(1, std::memory_order_relaxed);
  }
  void finished() {
    in_flight_.fetch_sub(1, std::memory_order_relaxed);
  }
  int64_t in_flight() const {
    return in_flight_.load(std::memory_order_relaxed);
  }

  /// Appends transitd_tool_calls_total, transitd_tool_call_duration_seconds
  /// and transitd_tool_calls_in_flight.
  void append_prometheus(std::string& out) const;

private:
  struct per_tool {
    std::string name;
    std::array<std::atomic<uint64_t>, code_count> outcomes{};
    std::array<std::atomic<uint64_t>, buckets.size() + 1> le{};
    std::atomic<uint64_t> sum_us{0};
  };
  std::vector<std::unique_ptr<per_tool>> tools_;
  std::atomic<int64_t> in_flight_{0};
};

/// Appends one gauge family with a single sample.
void append_gauge(std::string& out, std::string_view name,
                  std::string_view help, double value);

/// Renders engine counters ("digitransit-routing.calls",
/// "timetable.departures.hits", "tool:planJourney.refused",
/// "station_data.loaded", ...) as Prometheus families; names it does not
/// know are skipped.
/// The HTTP connection loop's counts: connections by phase, and what was
/// refused or timed out.
void append_connection_metrics(std::string& out, const reactor_stats& s);

void append_engine_metrics(
  std::string& out,
  const std::vector<std::pair<std::string, int64_t>>& counters);

/// Escapes a label value (backslash, quote, newline).
std::string prometheus_label(std::string_view value);

} // namespace transitd
