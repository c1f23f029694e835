#pragma once
// reachable: every stop reachable from a place within a time budget; the
// tool request and reply, and the provider's one-to-all query and answer.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/common.hpp"
#include "transitd/messages/trips.hpp"

namespace transitd {

/// The time budget, minutes.
inline constexpr int_range reach_minutes{1, 120, 30, "minutes"};
/// Stops listed at most (the summary counts them all).
inline constexpr int_range reach_limit{1, 200, 50};

struct reachable_request {
  call_context context;
  /// Coordinates, a saved label, or a stop id (D21).
  location_input origin;
  /// "now" or ISO 8601 (D22).
  std::string when = "now";
  int32_t max_minutes = reach_minutes.fallback;
  int32_t max_walking_distance = plan_max_walk.fallback;
  int32_t max_transfers = plan_max_transfers.fallback;
  int32_t limit = reach_limit.fallback;
  std::string language{default_language};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reachable_request& x) {
  return f(x.context, x.origin, x.when, x.max_minutes,
           x.max_walking_distance, x.max_transfers, x.limit, x.language);
}

/// Provider query: one one-to-all search.
struct reach_query {
  call_context context;
  coordinate from;
  /// A stop id to start at (its platforms, no walk); empty: `from`.
  std::string from_stop;
  /// Epoch seconds; with `local_time`, wall-clock fields (D22).
  int64_t time = 0;
  bool local_time = false;
  int32_t max_seconds = reach_minutes.fallback * 60;
  int32_t max_walking_distance = plan_max_walk.fallback;
  int32_t max_transfers = plan_max_transfers.fallback;
  int32_t limit = reach_limit.fallback;
  /// Of the stop names; empty: the provider's own.
  std::string language;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reach_query& x) {
  return f(x.context, x.from, x.from_stop, x.time, x.local_time,
           x.max_seconds, x.max_walking_distance, x.max_transfers, x.limit,
           x.language);
}

/// A station (or a stop without one) reached: its earliest arrival at any
/// of its platforms.
struct reached_stop {
  std::string stop_id;
  std::string name;
  coordinate position;
  /// Epoch seconds.
  int64_t arrival = 0;
  /// Vehicles ridden to arrive then (0: on foot).
  int32_t rides = 0;
  std::vector<std::string> lines;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reached_stop& x) {
  return f(x.stop_id, x.name, x.position, x.arrival, x.rides, x.lines);
}

struct reach_result {
  /// Earliest first, at most the query's limit.
  std::vector<reached_stop> stops;
  /// Stations and stops reached in all.
  int32_t total = 0;
  /// Lines and modes at the stops reached (sorted).
  std::vector<std::string> lines;
  std::vector<transit_mode> modes;
  /// The instant searched from, epoch seconds; and where.
  int64_t time = 0;
  coordinate from;
  std::string from_name;
  std::string timezone;
  int64_t fetched_ms = 0;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reach_result& x) {
  return f(x.stops, x.total, x.lines, x.modes, x.time, x.from, x.from_name,
           x.timezone, x.fetched_ms, x.warnings);
}

struct reachable_reply {
  location_ref origin;
  /// ISO 8601 with the origin's offset: the instant used.
  std::string requested_time;
  int32_t max_minutes = 0;
  reach_result result;
  std::string data_freshness;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, reachable_reply& x) {
  return f(x.origin, x.requested_time, x.max_minutes, x.result,
           x.data_freshness, x.correlation_id, x.warnings);
}

} // namespace transitd
