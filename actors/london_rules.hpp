#pragma once
// The London tools' business rules, pure: D19's order of TfL journeys and
// suggestions, and D20's station matching.

#include <string_view>
#include <vector>

#include "transitd/messages/london.hpp"
#include "transitd/providers/tfl_station_data.hpp"

namespace transitd {

/// Journeys planJourney returns at most (D19).
inline constexpr std::size_t max_journeys = 5;

/// D19: journeys shortest first, equal durations by the earlier arrival,
/// at most max_journeys; disambiguation suggestions best match first.
void apply_journey_rules(journey_plan_reply& reply);

struct station_match {
  /// The one station, when the match is unambiguous.
  const station_record* station = nullptr;
  /// Several candidates, best first (D20).
  std::vector<station_suggestion> suggestions;
};

/// D20: an exact normalised match wins; otherwise prefix, then word-prefix,
/// then substring matches; one candidate is the answer, several are
/// suggestions sorted by match quality.
station_match match_station(const station_dataset& data,
                            std::string_view query);

} // namespace transitd
