#pragma once
// find_stops: the tool request and reply, and the provider's nearby-stops
// query and answer.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd {

/// Search radius, meters (D9).
inline constexpr int_range stops_radius{1, 3000, 300, "meters"};
/// Stops asked for; more than `stops_output_cap` are never returned (D9).
inline constexpr int_range stops_max_results{1, 50, 10};
inline constexpr int32_t stops_output_cap = 25;
/// textFilter's length.
inline constexpr length_range stops_text_filter{0, 200};

struct find_stops_request {
  call_context context;
  coordinate center;
  int32_t radius = stops_radius.fallback;
  int32_t max_results = stops_max_results.fallback;
  /// Case-insensitive substring filter on the stop name, applied after the
  /// upstream query.
  std::optional<std::string> text_filter;
  std::string language{default_language};
  /// Empty: all modes.
  std::vector<transit_mode> include_modes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, find_stops_request& x) {
  return f(x.context, x.center, x.radius, x.max_results, x.text_filter,
           x.language, x.include_modes);
}

struct stop_summary {
  std::string id;
  std::string name;
  coordinate position;
  /// Walking distance in meters, as the upstream measures it.
  int32_t distance = 0;
  std::vector<transit_mode> modes;
  std::optional<std::string> address;
  /// A station's platforms (their ids), when the provider groups them.
  std::vector<std::string> platforms;
  /// The lines calling (at a station: at its platforms), by name.
  std::vector<std::string> lines;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stop_summary& x) {
  return f(x.id, x.name, x.position, x.distance, x.modes, x.address,
           x.platforms, x.lines);
}

struct find_stops_reply {
  std::vector<stop_summary> stops;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, find_stops_reply& x) {
  return f(x.stops, x.correlation_id, x.warnings);
}

/// Provider query: stops within `radius` of `center`.
struct nearby_stops_query {
  call_context context;
  coordinate center;
  int32_t radius = 300;
  int32_t max_results = 50;
  std::string language; // empty: the provider's own
  /// Empty: all modes.
  std::vector<transit_mode> modes;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, nearby_stops_query& x) {
  return f(x.context, x.center, x.radius, x.max_results, x.language, x.modes);
}

struct nearby_stops {
  std::vector<stop_summary> stops;
  int64_t fetched_ms = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, nearby_stops& x) {
  return f(x.stops, x.fetched_ms);
}

} // namespace transitd
