#pragma once
// get_route: a line (its stops per direction, headsigns, first and last
// departure, headway now), or the lines at a stop and the stations joined
// to it; the tool request and reply, and the provider's query and answer.

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd {

/// route and stop: ids or a line's public name.
inline constexpr length_range route_name_length{1, 200};

struct get_route_request {
  call_context context;
  /// "NAME:route_id" or a line's public name ("7", "Q", "550"); empty:
  /// the lines at `stop`.
  std::string route;
  /// A stop id: the feed to look in, or (without `route`) the stop whose
  /// lines are wanted.
  std::string stop;
  /// A point: the feed whose area holds it.
  std::optional<coordinate> near;
  std::string language{default_language};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_route_request& x) {
  return f(x.context, x.route, x.stop, x.near, x.language);
}

/// Provider query.
struct route_query {
  call_context context;
  std::string route;
  std::string stop;
  std::optional<coordinate> near;
  /// Epoch seconds: the engine's now (the day and the headway).
  int64_t time = 0;
  /// Of the names and headsigns; empty: the provider's own.
  std::string language;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, route_query& x) {
  return f(x.context, x.route, x.stop, x.near, x.time, x.language);
}

struct line_stop {
  std::string stop_id;
  std::string name;
  coordinate position;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, line_stop& x) {
  return f(x.stop_id, x.name, x.position);
}

/// One direction of a line: its usual stops in order and where its trips
/// go.
struct line_direction {
  int32_t direction = 0;
  std::vector<std::string> headsigns;
  std::vector<line_stop> stops;
  /// The day's first and last departure from the first stop (epoch s; 0:
  /// none that day).
  int64_t first_departure = 0;
  int64_t last_departure = 0;
  /// Minutes between departures around now (0: too few to say).
  double headway_minutes = 0;
  /// -1: the provider does not say (Digitransit, TfL here).
  int32_t trips_today = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, line_direction& x) {
  return f(x.direction, x.headsigns, x.stops, x.first_departure,
           x.last_departure, x.headway_minutes, x.trips_today);
}

struct line_info {
  std::string route_id;
  std::string line;
  std::string long_name;
  transit_mode mode = transit_mode::bus;
  std::string color;
  std::string text_color;
  std::vector<line_direction> directions;
  /// Where it calls (the lines-at-a-stop answer): the station of the
  /// complex.
  std::string at_stop;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, line_info& x) {
  return f(x.route_id, x.line, x.long_name, x.mode, x.color, x.text_color,
           x.directions, x.at_stop);
}

struct route_details {
  /// The lines asked for (one, or several sharing the name) or, at a
  /// stop, every line of its complex (without directions).
  std::vector<line_info> lines;
  /// At a stop: the stop, and the stations joined to it by transfers.txt
  /// as one complex (itself first).
  std::vector<line_stop> complex;
  /// "YYYY-MM-DD": the service day described.
  std::string service_date;
  std::string timezone;
  int64_t fetched_ms = 0;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, route_details& x) {
  return f(x.lines, x.complex, x.service_date, x.timezone, x.fetched_ms,
           x.warnings);
}

struct get_route_reply {
  route_details details;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_route_reply& x) {
  return f(x.details, x.correlation_id, x.warnings);
}

} // namespace transitd

namespace transitd {

/// line_status: one word per line, worst first.
inline constexpr std::array<std::string_view, 6> line_statuses{
  "suspended",    "part-suspended", "severe-delays",
  "minor-delays", "planned-works",  "good-service"};

struct line_status_request {
  call_context context;
  /// A line's name or route id; empty: every line of the feed.
  std::string route;
  /// The feed: by name, or the one whose area holds `near`.
  std::string feed;
  std::optional<coordinate> near;
  std::string language{default_language};
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, line_status_request& x) {
  return f(x.context, x.route, x.feed, x.near, x.language);
}

/// Why a line has its status.
struct status_reason {
  /// "alert", "cancellations" or "delays".
  std::string kind;
  std::string text;
  /// The alert's id (kind alert).
  std::string alert_id;
  /// What it says about the line: one of `line_statuses`.
  std::string status;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, status_reason& x) {
  return f(x.kind, x.text, x.alert_id, x.status);
}

struct line_state {
  std::string route_id;
  std::string line;
  transit_mode mode = transit_mode::bus;
  std::string color;
  /// One of `line_statuses`: the worst of its reasons.
  std::string status = "good-service";
  std::vector<status_reason> reasons;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, line_state& x) {
  return f(x.route_id, x.line, x.mode, x.color, x.status, x.reasons);
}

/// Provider query.
struct line_status_query {
  call_context context;
  std::string route;
  std::string feed;
  std::optional<coordinate> near;
  /// Epoch seconds: the engine's now.
  int64_t time = 0;
  std::string language{default_language};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, line_status_query& x) {
  return f(x.context, x.route, x.feed, x.near, x.time, x.language);
}

struct line_status_list {
  /// Worst first, then by line.
  std::vector<line_state> lines;
  /// Whether realtime (alerts, trip updates) was there to judge by.
  bool realtime = false;
  int64_t fetched_ms = 0;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, line_status_list& x) {
  return f(x.lines, x.realtime, x.fetched_ms, x.warnings);
}

/// Where `status` stands in `line_statuses` (0: worst; unknown: last).
std::size_t status_rank(std::string_view status) noexcept;

/// What an alert says of a line it names, from its effect, cause and
/// severity as answers spell them ("no-service", "maintenance", "severe"):
/// the whole line, or with `partial` some of its stops.
std::string alert_status(std::string_view effect, std::string_view cause,
                         std::string_view severity, bool partial);

/// Each line's reasons worst first and its status their worst (else
/// good-service); the lines worst first, then by name.
void order_lines(std::vector<line_state>& lines);

struct line_status_reply {
  line_status_list result;
  std::string data_freshness;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, line_status_reply& x) {
  return f(x.result, x.data_freshness, x.correlation_id, x.warnings);
}

} // namespace transitd
