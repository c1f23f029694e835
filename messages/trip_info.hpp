#pragma once
// get_trip: one trip's calls in order, scheduled and realtime, with its
// vehicle; the tool request and reply, and the provider's query and answer.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/common.hpp"
#include "transitd/messages/realtime.hpp"

namespace transitd {

/// tripId: as departures and plan legs give it ("nyc:AFA25GEN-1037-...").
inline constexpr length_range trip_id_length{1, 300};

struct get_trip_request {
  call_context context;
  std::string trip_id;
  /// "YYYY-MM-DD" (or "YYYYMMDD"); empty: the run nearest the clock.
  std::string service_date;
  std::string language{default_language};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_trip_request& x) {
  return f(x.context, x.trip_id, x.service_date, x.language);
}

/// One call of the trip: where, when by the timetable and by realtime.
struct trip_call {
  std::string stop_id;
  std::string stop_name;
  coordinate position;
  std::optional<std::string> platform;
  /// Epoch seconds; absent at the first call's arrival and the last's
  /// departure when the feed leaves them out.
  int64_t scheduled_arrival = 0;
  int64_t scheduled_departure = 0;
  std::optional<int64_t> realtime_arrival;
  std::optional<int64_t> realtime_departure;
  /// The vehicle does not stop here this run (GTFS-RT SKIPPED), or the
  /// whole trip is cancelled.
  bool skipped = false;
  bool pickup = true;
  bool drop_off = true;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, trip_call& x) {
  return f(x.stop_id, x.stop_name, x.position, x.platform,
           x.scheduled_arrival, x.scheduled_departure, x.realtime_arrival,
           x.realtime_departure, x.skipped, x.pickup, x.drop_off);
}

/// Provider query: one trip on one service day.
struct trip_query {
  call_context context;
  std::string trip_id;
  /// Days since 1970-01-01 of the service date; nullopt: the run nearest
  /// `time`.
  std::optional<int32_t> service_day;
  /// Epoch seconds: the engine's now.
  int64_t time = 0;
  std::string language{default_language};
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, trip_query& x) {
  return f(x.context, x.trip_id, x.service_day, x.time, x.language);
}

/// Provider answer.
struct trip_details {
  std::string trip_id;
  /// "YYYY-MM-DD".
  std::string service_date;
  std::string route_id;
  std::string line;
  transit_mode mode = transit_mode::bus;
  std::string headsign;
  /// The line's colours (RRGGBB); empty when the feed gives none.
  std::string color;
  std::string text_color;
  /// The way the trip takes (the feed's shapes, else its stops),
  /// simplified.
  std::vector<coordinate> path;
  /// "scheduled", "running" (realtime known), "cancelled" or "added".
  std::string state = "scheduled";
  std::vector<trip_call> calls;
  std::optional<vehicle_report> vehicle;
  /// IANA zone of the times.
  std::string timezone;
  int64_t fetched_ms = 0;
  /// The newest realtime message applied, ms (0: none).
  int64_t realtime_ms = 0;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, trip_details& x) {
  return f(x.trip_id, x.service_date, x.route_id, x.line, x.mode, x.headsign,
           x.color, x.text_color, x.path, x.state, x.calls, x.vehicle, x.timezone, x.fetched_ms,
           x.realtime_ms, x.warnings);
}

/// Tool reply: the provider's answer, stamped.
struct get_trip_reply {
  trip_details trip;
  bool realtime_used = false;
  /// ISO 8601 (UTC), on the engine's clock.
  std::string data_freshness;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, get_trip_reply& x) {
  return f(x.trip, x.realtime_used, x.data_freshness, x.correlation_id,
           x.warnings);
}

} // namespace transitd
