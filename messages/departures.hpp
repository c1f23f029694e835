#pragma once
// get_departures: the tool request and reply, and the timetable provider's
// query and answer that the tool is built on.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd {

/// How a caller names a stop: directly by id or through a saved label.
struct stop_ref {
  enum class kind : uint8_t { id, label };
  kind type = kind::id;
  std::string value;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stop_ref& x) {
  return f(x.type, x.value);
}

/// Look-ahead from the request time, minutes.
inline constexpr int_range departures_window{1, 120, 30};
/// Departures returned at most, after sorting.
inline constexpr int_range departures_limit{1, 50, 10};
/// stop.value: a stop id or a label.
inline constexpr length_range stop_value_length{1, length_range::unbounded};

/// Tool request: upcoming departures at one stop.
struct get_departures_request {
  call_context context;
  stop_ref stop;
  int32_t window_minutes = departures_window.fallback;
  int32_t limit = departures_limit.fallback;
  /// One of `languages` (D5).
  std::string language{default_language};
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_departures_request& x) {
  return f(x.context, x.stop, x.window_minutes, x.limit, x.language);
}

enum class departure_status : uint8_t {
  on_time,
  delayed,
  cancelled,
  scheduled_only,
};

/// "on_time", "delayed", "cancelled", "scheduled_only".
const char* to_string(departure_status status) noexcept;

struct departure {
  std::string line;
  transit_mode mode = transit_mode::bus;
  std::string destination;
  /// ISO 8601 with the stop's UTC offset.
  std::string scheduled_time;
  std::optional<std::string> realtime_time;
  std::optional<int32_t> delay_seconds;
  departure_status status = departure_status::scheduled_only;
  std::optional<std::string> platform;
  /// For get_trip: the trip and its service date (YYYY-MM-DD).
  std::optional<std::string> trip_id;
  std::optional<std::string> service_date;
  /// The line's colours (RRGGBB), when the provider gives them.
  std::optional<std::string> color;
  std::optional<std::string> text_color;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, departure& x) {
  return f(x.line, x.mode, x.destination, x.scheduled_time, x.realtime_time,
           x.delay_seconds, x.status, x.platform, x.trip_id, x.service_date,
           x.color, x.text_color);
}

/// Tool reply: the contract's output object.
struct get_departures_reply {
  std::string stop_id;
  std::optional<std::string> stop_name;
  bool realtime_used = false;
  /// ISO 8601 (UTC).
  std::string data_freshness;
  std::vector<departure> departures;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, get_departures_reply& x) {
  return f(x.stop_id, x.stop_name, x.realtime_used, x.data_freshness,
           x.departures, x.correlation_id, x.warnings);
}

// -- timetable provider -------------------------------------------------------

/// Provider query: stop times at one stop within a time range.
struct stop_departures_query {
  call_context context;
  std::string stop_id;
  /// Epoch seconds.
  int64_t start_time = 0;
  int32_t time_range_seconds = 1800;
  /// Upper bound the upstream may return.
  int32_t max_departures = 100;
  std::string language; // empty: the provider's own
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, stop_departures_query& x) {
  return f(x.context, x.stop_id, x.start_time, x.time_range_seconds,
           x.max_departures, x.language);
}

/// One scheduled call of a vehicle at the stop, as the upstream reports it.
struct stop_time {
  std::string line;
  transit_mode mode = transit_mode::bus;
  std::string headsign;
  /// Epoch seconds.
  int64_t scheduled_departure = 0;
  /// Epoch seconds; meaningful when `realtime` is true.
  int64_t realtime_departure = 0;
  bool realtime = false;
  bool cancelled = false;
  std::optional<std::string> platform;
  /// The trip, as get_trip takes it, and its service date (YYYY-MM-DD);
  /// empty when the provider does not say.
  std::string trip_id;
  std::string service_date;
  /// A prediction with no timetable behind it (TfL's countdown, D23): the
  /// scheduled time is the predicted one and no delay is claimed.
  bool prediction_only = false;
  /// The line's colours (RRGGBB); empty when the provider gives none.
  std::string color;
  std::string text_color;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stop_time& x) {
  return f(x.line, x.mode, x.headsign, x.scheduled_departure,
           x.realtime_departure, x.realtime, x.cancelled, x.platform,
           x.trip_id, x.service_date, x.prediction_only, x.color,
           x.text_color);
}

/// Provider answer.
struct stop_departures {
  std::string stop_id;
  std::optional<std::string> stop_name;
  /// IANA zone of the stop ("Europe/Helsinki"); empty when unknown.
  std::string timezone;
  std::vector<stop_time> stop_times;
  /// When the upstream produced this data (ms since epoch); a cached answer
  /// keeps the time of the upstream call it came from.
  int64_t fetched_ms = 0;
  /// Newest realtime update timestamp the upstream reported (ms), 0 if none.
  int64_t last_realtime_update_ms = 0;
  /// What the answer must tell the caller (a stale realtime source).
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, stop_departures& x) {
  return f(x.stop_id, x.stop_name, x.timezone, x.stop_times, x.fetched_ms,
           x.last_realtime_update_ms, x.warnings);
}

} // namespace transitd
