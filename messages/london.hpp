#pragma once
// The London tools (TfL): stationToilets now; planJourney joins later.
// Their contract models outcomes as data (success, code, message), so the
// disambiguation answer is a reply, not an error.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "messages/common.hpp"

namespace transitd {

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
