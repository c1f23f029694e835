#pragma once
// vehicle_positions and service_alerts: the tool requests and replies, and
// the realtime provider's queries and answers they are built on.

#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd {

// -- vehicle_positions ---------------------------------------------------------

/// Around `near`, meters.
inline constexpr int_range vehicles_radius{50, 5000, 1000, "meters"};
/// Vehicles returned at most, nearest (or by line) first.
inline constexpr int_range vehicles_limit{1, 100, 20};
/// `route`: a route id ("NAME:route_id") or a line name ("L1").
inline constexpr length_range vehicles_route_length{1, 200};

struct vehicle_positions_request {
  call_context context;
  /// A route id of a feed ("caltrain:L1") or a line as departures show it
  /// ("L1"); empty: any.
  std::string route;
  std::optional<coordinate> near;
  int32_t radius = vehicles_radius.fallback;
  int32_t limit = vehicles_limit.fallback;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, vehicle_positions_request& x) {
  return f(x.context, x.route, x.near, x.radius, x.limit);
}

/// One vehicle as the realtime provider reports it, resolved to names.
struct vehicle_report {
  std::string vehicle_id;
  std::string label;
  /// "NAME:route_id"; empty when the report names no known route.
  std::string route_id;
  std::string line;
  transit_mode mode = transit_mode::bus;
  std::string trip_id;
  std::string headsign;
  coordinate position;
  std::optional<double> bearing;
  std::optional<double> speed_mps;
  /// "NAME:stop_id" and its name; empty when not reported.
  std::string stop_id;
  std::string stop_name;
  /// "incoming_at", "stopped_at" or "in_transit_to".
  std::string status;
  /// When the vehicle reported this, epoch seconds (the message's time
  /// when the vehicle gives none).
  int64_t timestamp = 0;
  /// Meters from the query's point, when it had one.
  std::optional<int32_t> distance;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, vehicle_report& x) {
  return f(x.vehicle_id, x.label, x.route_id, x.line, x.mode, x.trip_id,
           x.headsign, x.position, x.bearing, x.speed_mps, x.stop_id,
           x.stop_name, x.status, x.timestamp, x.distance);
}

/// Provider query: vehicles of a route or line, or near a point, or both.
struct vehicles_query {
  call_context context;
  std::string route;
  std::optional<coordinate> center;
  int32_t radius = vehicles_radius.fallback;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, vehicles_query& x) {
  return f(x.context, x.route, x.center, x.radius);
}

struct vehicle_list {
  std::vector<vehicle_report> vehicles;
  /// The newest realtime message's time, ms since the epoch (0: none).
  int64_t timestamp_ms = 0;
  /// IANA zone of the feed.
  std::string timezone;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, vehicle_list& x) {
  return f(x.vehicles, x.timestamp_ms, x.timezone, x.warnings);
}

/// A vehicle as the tool answers: the report, its time in the feed's zone
/// and its age against the engine's clock.
struct vehicle_position {
  vehicle_report report;
  std::string reported_at;
  int64_t age_seconds = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, vehicle_position& x) {
  return f(x.report, x.reported_at, x.age_seconds);
}

struct vehicle_positions_reply {
  std::vector<vehicle_position> vehicles;
  /// ISO 8601 (UTC): the newest realtime message's time.
  std::string data_freshness;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, vehicle_positions_reply& x) {
  return f(x.vehicles, x.data_freshness, x.correlation_id, x.warnings);
}

// -- service_alerts -------------------------------------------------------------

/// Alerts returned at most, most severe first.
inline constexpr int_range alerts_limit{1, 50, 10};
inline constexpr length_range alerts_id_length{1, 200};

struct service_alerts_request {
  call_context context;
  /// At most one of stop, route, trip and feed; with none, `near` picks
  /// the provider (all of its alerts).
  std::string stop;
  std::string route;
  std::string trip;
  std::string feed;
  std::optional<coordinate> near;
  /// "now" or ISO 8601: the alerts in force then.
  std::string when = "now";
  std::string language{default_language};
  int32_t limit = alerts_limit.fallback;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, service_alerts_request& x) {
  return f(x.context, x.stop, x.route, x.trip, x.feed, x.near, x.when,
           x.language, x.limit);
}

/// What an alert is about, resolved to a name where known.
struct alert_subject {
  /// "agency", "route", "route-type", "stop", "trip".
  std::string type;
  std::string id;
  std::string name;
  /// A route's mode when the provider says (Digitransit: "BUS"); for
  /// line_status.
  std::string mode;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, alert_subject& x) {
  return f(x.type, x.id, x.name, x.mode);
}

/// When an alert is in force, epoch seconds; absent: open on that side.
struct alert_period {
  std::optional<int64_t> start;
  std::optional<int64_t> end;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, alert_period& x) {
  return f(x.start, x.end);
}

/// An alert's cause, effect or severity as answers spell it: the
/// GTFS-realtime enum name (which Digitransit's GraphQL enums share)
/// lowercased with dashes, "UNKNOWN_CAUSE" -> "unknown-cause".
inline std::string alert_term(std::string_view enum_name) {
  std::string out;
  out.reserve(enum_name.size());
  for (char c : enum_name)
    out += c == '_' ? '-'
                    : static_cast<char>(
                      std::tolower(static_cast<unsigned char>(c)));
  return out;
}

struct service_alert {
  std::string id;
  /// Header and description in `language` (the asked one when given,
  /// else English, else what there is).
  std::string header;
  std::string description;
  std::string url;
  std::string language;
  /// The format's names, lower case with dashes ("technical-problem",
  /// "reduced-service", "severe").
  std::string cause;
  std::string effect;
  std::string severity;
  std::vector<alert_period> periods;
  std::vector<alert_subject> subjects;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, service_alert& x) {
  return f(x.id, x.header, x.description, x.url, x.language, x.cause,
           x.effect, x.severity, x.periods, x.subjects);
}

/// Provider query: the alerts in force at `time` about a stop (or its
/// station), a route, a trip, or anything of the provider (all empty).
struct alerts_query {
  call_context context;
  std::string stop_id;
  std::string route_id;
  std::string trip_id;
  /// Picks a feed by name ("caltrain"); a point picks by area.
  std::string feed;
  std::optional<coordinate> center;
  int64_t time = 0;
  std::string language{default_language};
  /// `time` is a wall-clock time without an offset (D22): the provider
  /// reads it in its zone (the stop's, where one is named).
  bool local_time = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, alerts_query& x) {
  return f(x.context, x.stop_id, x.route_id, x.trip_id, x.feed, x.center,
           x.time, x.language, x.local_time);
}

struct alert_list {
  std::vector<service_alert> alerts;
  int64_t fetched_ms = 0;
  std::string timezone;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, alert_list& x) {
  return f(x.alerts, x.fetched_ms, x.timezone, x.warnings);
}

/// An alert period as the tool answers (ISO 8601 in the provider's zone;
/// empty: open).
struct alert_window {
  std::string start;
  std::string end;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, alert_window& x) {
  return f(x.start, x.end);
}

struct alert_entry {
  service_alert alert;
  std::vector<alert_window> windows;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, alert_entry& x) {
  return f(x.alert, x.windows);
}

struct service_alerts_reply {
  std::vector<alert_entry> alerts;
  /// The instant asked about, ISO 8601.
  std::string at;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, service_alerts_reply& x) {
  return f(x.alerts, x.at, x.correlation_id, x.warnings);
}

} // namespace transitd
