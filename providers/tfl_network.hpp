#pragma once
// TfL's Unified API for stops and lines: pure request builders and parsers
// for StopPoint (a stop and its children), StopPoint Arrivals (the
// countdown predictions) and Line Status. No I/O; the actor is
// providers/tfl_network_actor.

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/departures.hpp"
#include "transitd/messages/error.hpp"
#include "transitd/messages/http.hpp"
#include "transitd/messages/lines.hpp"

namespace transitd::tfl {

/// London's zone: TfL writes its times in UTC ("...Z"); answers show them
/// at London's offset.
inline constexpr std::string_view london_zone = "Europe/London";

/// Greater London, where TfL answers.
inline region london_area() {
  return region{51.28, 51.70, -0.51, 0.34, "Greater London"};
}

/// The id forms get_departures sends to TfL, for messages.
inline constexpr std::string_view stop_id_forms
  = "940GZZLUOXC or HUBOXC (TfL)";

/// Whether `id` is written as TfL writes stop ids: a NaPTAN code (three
/// digits, then 3..12 upper-case letters or digits, at least one letter:
/// 940GZZLUOXC, 910GPADTON, 490008660N, 490G00008660) or a hub
/// (HUB and 3..8 upper-case letters or digits: HUBOXC).
bool is_stop_id(std::string_view id) noexcept;

/// What a StopPoint says about a stop: its name and the ids whose arrivals
/// make up its departures (itself, or for a hub or a bus-stop group
/// (490G...) the stations and stops below it, at most `max_arrival_ids`).
struct stop_point {
  std::string id;
  std::string name;
  std::vector<std::string> arrival_ids;
  coordinate position;
  /// The lines calling there (at a hub, its stations' and stops').
  std::vector<line_info> lines;
};

/// TfL takes about 20 ids per Arrivals call.
inline constexpr std::size_t max_arrival_ids = 20;

/// Path and query of StopPoint/{id}.
std::string make_stop_point_target(std::string_view base_path,
                                   std::string_view id);

/// 200 → the stop; 404 → validation-error naming the id; other statuses as
/// every TfL answer (`failure_of`).
outcome<stop_point> parse_stop_point(const http_response& r,
                                     std::string_view id);

/// Path and query of StopPoint/{ids}/Arrivals.
std::string make_arrivals_target(std::string_view base_path,
                                 const std::vector<std::string>& ids);

/// The predictions as departures: `scheduled_departure` and
/// `realtime_departure` both the predicted time, `prediction_only` set
/// (D23); repeated predictions (same vehicle, line, stop and time) once;
/// `newest_ms` receives the newest prediction timestamp.
outcome<std::vector<stop_time>> parse_arrivals(const http_response& r,
                                               int64_t& newest_ms);

/// TfL's id of a line as riders name it: "Victoria" → "victoria",
/// "Waterloo & City" → "waterloo-city", "Elizabeth line" → "elizabeth",
/// "12" → "12".
std::string line_id_of(std::string_view name);

/// Path and query of Line/{id}/Route/Sequence/all.
std::string make_route_sequence_target(std::string_view base_path,
                                       std::string_view line_id);

/// A line's stops per direction (the longest sequence of each direction)
/// with the ends of its branches as headsigns; 404 → validation-error
/// naming the line.
outcome<line_info> parse_route_sequence(const http_response& r,
                                        std::string_view line_id);

/// Path and query of Line/Mode/{modes}/Status.
std::string make_line_status_target(std::string_view base_path);

/// TfL's status severity as one of `line_statuses`.
std::string_view status_of_severity(int64_t severity) noexcept;

/// The lines and their statuses, each line's worst first; a line whose
/// statuses are all good service has none listed as reasons.
outcome<std::vector<line_state>> parse_line_status(const http_response& r);

/// The failure of a TfL answer that is not 200: 429 and 5xx as every
/// upstream, others upstream-error with TfL's ApiError message.
failure failure_of(const http_response& r);

} // namespace transitd::tfl
