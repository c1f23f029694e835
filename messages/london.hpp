#pragma once
// The London tools (TfL): stationToilets now; planJourney joins later.
// Their contract models outcomes as data (success, code, message), so the
// disambiguation answer is a reply, not an error.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd {

/// A station name, or a planJourney place (name, stop code, parameterValue).
inline constexpr length_range london_place_text{1, 200};

struct station_toilets_request {
  call_context context;
  std::string station_name;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, station_toilets_request& x) {
  return f(x.context, x.station_name);
}

struct toilet_detail {
  std::optional<std::string> location;
  std::vector<int32_t> platform_numbers;
  bool accessible = false;
  bool baby_changing = false;
  bool inside_gate_line = false;
  bool fee_charged = false;
  std::string type;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, toilet_detail& x) {
  return f(x.location, x.platform_numbers, x.accessible, x.baby_changing,
           x.inside_gate_line, x.fee_charged, x.type);
}

struct station_suggestion {
  std::string name;
  std::string unique_id;
  /// 0..1: how well the name matched the input.
  double match_quality = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, station_suggestion& x) {
  return f(x.name, x.unique_id, x.match_quality);
}

struct station_toilets_reply {
  /// Empty on success; "DISAMBIGUATION_REQUIRED" with suggestions.
  bool disambiguation_required = false;
  std::string station_name;
  std::string station_unique_id;
  std::vector<toilet_detail> toilets;
  std::vector<station_suggestion> suggestions;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type
inspect(Inspector& f, station_toilets_reply& x) {
  return f(x.disambiguation_required, x.station_name, x.station_unique_id,
           x.toilets, x.suggestions, x.correlation_id, x.warnings);
}

} // namespace transitd

namespace transitd {

// -- planJourney --------------------------------------------------------------

struct journey_plan_request {
  call_context context;
  std::string from;
  std::string to;
  bool need_accessible_route = false;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, journey_plan_request& x) {
  return f(x.context, x.from, x.to, x.need_accessible_route);
}

struct journey_leg_summary {
  std::string mode;
  std::optional<std::string> line;
  std::string from;
  std::string to;
  /// Local London time as TfL gives it ("2015-10-21T16:27:00").
  std::string departure_time;
  std::string arrival_time;
  int32_t duration_minutes = 0;
  std::string instruction;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, journey_leg_summary& x) {
  return f(x.mode, x.line, x.from, x.to, x.departure_time, x.arrival_time,
           x.duration_minutes, x.instruction);
}

struct journey_option {
  std::string start_time;
  std::string arrival_time;
  int32_t duration_minutes = 0;
  /// "Central line to Mile End, then walk" — the legs in one line.
  std::string summary;
  std::vector<journey_leg_summary> legs;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, journey_option& x) {
  return f(x.start_time, x.arrival_time, x.duration_minutes, x.summary,
           x.legs);
}

struct place_suggestion {
  /// TfL's retry token for from/to.
  std::string parameter_value;
  std::string name;
  double match_quality = 0;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, place_suggestion& x) {
  return f(x.parameter_value, x.name, x.match_quality);
}

struct journey_plan_reply {
  bool disambiguation_required = false;
  std::vector<journey_option> journeys;
  std::vector<place_suggestion> from_suggestions;
  std::vector<place_suggestion> to_suggestions;
  std::string correlation_id;
  std::vector<warning> warnings;
};

template <class Inspector>
typename Inspector::result_type inspect(Inspector& f, journey_plan_reply& x) {
  return f(x.disambiguation_required, x.journeys, x.from_suggestions,
           x.to_suggestions, x.correlation_id, x.warnings);
}

} // namespace transitd
