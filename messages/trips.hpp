#pragma once
// plan_trip: the tool request and reply, and the journey planner's query and
// itineraries.

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/common.hpp"
#include "transitd/messages/departures.hpp"

namespace transitd {

/// Origin or destination as the caller gives it.
struct location_input {
  enum class kind : uint8_t { coords, label, stop };
  kind type = kind::coords;
  coordinate position;
  /// The saved variable's key (kind::label).
  std::string label;
  /// A provider's stop id (kind::stop, D21): "nyc:127", "HSL:1040129".
  std::string stop_id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, location_input& x) {
  return f(x.type, x.position, x.label, x.stop_id);
}

/// A stop id as a trip end (location_input::stop_id).
inline constexpr length_range stop_id_length{1, 200};

/// Where a stop is (D21): asked of the provider its id names.
struct stop_lookup {
  call_context context;
  std::string stop_id;
  std::string language{default_language};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stop_lookup& x) {
  return f(x.context, x.stop_id, x.language);
}

struct stop_place {
  /// As asked ("nyc:127").
  std::string stop_id;
  std::string name;
  coordinate position;
  /// IANA zone; empty when unknown.
  std::string timezone;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stop_place& x) {
  return f(x.stop_id, x.name, x.position, x.timezone);
}

/// Itineraries returned at most, after dedupe.
inline constexpr int_range plan_limit{1, 3, 2};
inline constexpr int_range plan_max_walk{1, 3000, 1500, "meters"};
inline constexpr int_range plan_max_transfers{0, 8, 4};
/// What the planner optimizes; the first is the default.
inline constexpr std::array<std::string_view, 3> plan_optimize{
  "balanced", "few_transfers", "shortest_time"};
/// Per `plan_optimize` choice, the seconds an itinerary with one vehicle
/// more than another must gain on it to be offered beside it (routers of
/// their own): balanced 3 minutes, few_transfers 10 (the transfer cost
/// Digitransit gets), shortest_time none (every itinerary Pareto-optimal
/// over time and vehicles).
inline constexpr std::array<int32_t, 3> plan_ride_worth_s{180, 600, 0};
/// when.type; the first is the default.
inline constexpr std::array<std::string_view, 2> plan_when_types{"depart",
                                                                 "arrive"};

struct plan_constraints {
  std::string optimize{plan_optimize[0]};
  int32_t max_walking_distance = plan_max_walk.fallback;
  int32_t max_transfers = plan_max_transfers.fallback;
  bool step_free = false;
  bool low_walking_distance = false;
  std::string language{default_language};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, plan_constraints& x) {
  return f(x.optimize, x.max_walking_distance, x.max_transfers, x.step_free,
           x.low_walking_distance, x.language);
}

struct plan_trip_request {
  call_context context;
  location_input origin;
  location_input destination;
  std::string when_type{plan_when_types[0]};
  /// "now" or ISO 8601.
  std::string when_time = "now";
  plan_constraints constraints;
  int32_t limit = plan_limit.fallback;
  bool include_disruption_alt = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, plan_trip_request& x) {
  return f(x.context, x.origin, x.destination, x.when_type, x.when_time,
           x.constraints, x.limit, x.include_disruption_alt);
}

/// Origin/destination as resolved (contract's LocationRef).
struct location_ref {
  coordinate position;
  std::optional<std::string> label;
  std::optional<std::string> name;
  std::optional<std::string> address;
  /// "input" | "variable".
  std::string raw_source = "input";
  /// The stop the trip starts or ends at (D21).
  std::optional<std::string> stop_id;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, location_ref& x) {
  return f(x.position, x.label, x.name, x.address, x.raw_source, x.stop_id);
}

struct place_ref {
  std::string name;
  std::optional<std::string> stop_id;
  coordinate position;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, place_ref& x) {
  return f(x.name, x.stop_id, x.position);
}

struct trip_leg {
  transit_mode mode = transit_mode::walk;
  bool transit = false;
  std::optional<std::string> line;
  std::optional<std::string> headsign;
  place_ref from;
  place_ref to;
  /// Epoch seconds.
  int64_t scheduled_start = 0;
  int64_t scheduled_end = 0;
  /// Present when the upstream has realtime estimates.
  std::optional<int64_t> realtime_start;
  std::optional<int64_t> realtime_end;
  bool cancelled = false;
  /// Meters.
  double distance = 0;
  /// The upstream's wheelchair accessibility score, when it knows one.
  std::optional<double> accessibility_score;
  /// Set by the tool: realtime minus scheduled time, when known.
  std::optional<int64_t> delay_seconds;
  /// Set by the tool for transit legs (D11).
  std::optional<departure_status> status;
  /// Transit legs: the trip, as get_trip takes it, and its service date
  /// (YYYY-MM-DD), when the provider says.
  std::optional<std::string> trip_id;
  std::optional<std::string> service_date;
  /// Transit legs: the line's colours (RRGGBB), when the provider gives
  /// them.
  std::optional<std::string> color;
  std::optional<std::string> text_color;
  /// Transit legs: the way the vehicle takes (the feed's shapes, else its
  /// stops), simplified; empty when the provider gives none.
  std::vector<coordinate> path;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, trip_leg& x) {
  return f(x.mode, x.transit, x.line, x.headsign, x.from, x.to,
           x.scheduled_start, x.scheduled_end, x.realtime_start,
           x.realtime_end, x.cancelled, x.distance, x.accessibility_score,
           x.delay_seconds, x.status, x.trip_id, x.service_date, x.color,
           x.text_color, x.path);
}

struct itinerary {
  std::vector<trip_leg> legs;
  int32_t transfers = 0;
  /// Meters.
  double walk_distance = 0;
  /// Set by the tool (D14).
  std::string fingerprint;
  /// Set by the tool (D13).
  bool disruption_alternative = false;
  /// Set by the tool: first departure and last arrival (realtime when
  /// known), epoch seconds, and the time between them.
  int64_t start = 0;
  int64_t end = 0;
  int64_t duration_seconds = 0;
  /// Set by the tool: "realtime", "scheduled" or "mixed".
  std::string schedule_type;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, itinerary& x) {
  return f(x.legs, x.transfers, x.walk_distance, x.fingerprint,
           x.disruption_alternative, x.start, x.end, x.duration_seconds,
           x.schedule_type);
}

struct plan_trip_reply {
  location_ref origin;
  location_ref destination;
  std::string requested_type;
  /// ISO 8601; "now" resolved to the request time.
  std::string requested_time;
  plan_constraints constraints;
  std::vector<itinerary> itineraries;
  /// realtime | scheduled | mixed.
  std::string realtime_used = "scheduled";
  std::string data_freshness;
  std::vector<warning> warnings;
  std::string correlation_id;
  /// Itineraries before deduplication, when any were removed; else 0.
  int32_t deduplicated_from = 0;
  /// IANA zone the times are rendered in.
  std::string timezone = "Europe/Helsinki";
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, plan_trip_reply& x) {
  return f(x.origin, x.destination, x.requested_type, x.requested_time,
           x.constraints, x.itineraries, x.realtime_used, x.data_freshness,
           x.warnings, x.correlation_id, x.deduplicated_from, x.timezone);
}

/// A plan_trip's relaxed query (D12) goes out under its call's
/// correlation id with this suffix: cancelling it leaves the primary's
/// work alone, and a breaker or a feed can tell the two apart.
inline constexpr std::string_view relaxed_suffix = ":relaxed";

/// The relaxed query's correlation id for call `id`.
inline std::string relaxed_id(std::string_view id) {
  return std::string{id} + std::string{relaxed_suffix};
}

/// Whether `id` is a relaxed query's.
inline bool is_relaxed_id(std::string_view id) {
  return id.size() > relaxed_suffix.size()
         && id.substr(id.size() - relaxed_suffix.size()) == relaxed_suffix;
}

/// The call's id: `id` without the relaxed suffix, if it has one.
inline std::string_view call_id_of(std::string_view id) {
  if (is_relaxed_id(id))
    id.remove_suffix(relaxed_suffix.size());
  return id;
}

/// Journey planner query (one upstream planConnection).
struct trip_plan_query {
  call_context context;
  coordinate from;
  coordinate to;
  /// Epoch seconds.
  int64_t time = 0;
  bool arrive_by = false;
  int32_t first = 5;
  double walk_reluctance = 2.0;
  int32_t transfer_cost = 0;
  int32_t max_transfers = 4;
  /// Meters any one walk may take (routers of their own use it; Digitransit
  /// gets `walk_reluctance`).
  int32_t max_walking_distance = plan_max_walk.fallback;
  double wait_reluctance = 1.0;
  /// Routers of their own (Digitransit gets `transfer_cost`): the seconds
  /// an itinerary with one vehicle more than another must gain on it
  /// (leaving later or arriving earlier) to be offered beside it; the
  /// default is `optimize` balanced's (`plan_ride_worth_s`).
  int32_t ride_worth_s = 180;
  bool wheelchair = false;
  std::string language = "en";
  /// `time` is a wall-clock time without an offset (D22), counted as if
  /// UTC: the provider reads it in the zone of the origin.
  bool local_time = false;
  /// Trip ends at stops (D21): the provider's stop ids; the router boards
  /// (alights) there, a station meaning its platforms. Empty: the points.
  std::string from_stop;
  std::string to_stop;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, trip_plan_query& x) {
  return f(x.context, x.from, x.to, x.time, x.arrive_by, x.first,
           x.walk_reluctance, x.transfer_cost, x.max_transfers,
           x.max_walking_distance, x.wait_reluctance, x.ride_worth_s,
           x.wheelchair, x.language,
           x.local_time, x.from_stop, x.to_stop);
}

struct trip_plans {
  std::vector<itinerary> itineraries;
  int64_t fetched_ms = 0;
  /// IANA zone to show the times in; empty: the planner's default.
  std::string timezone;
  /// What the answer must tell the caller (a stale realtime source).
  std::vector<warning> warnings;
  /// The instant searched from (epoch seconds; 0: the query's own).
  int64_t time = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, trip_plans& x) {
  return f(x.itineraries, x.fetched_ms, x.timezone, x.warnings, x.time);
}

} // namespace transitd
