#pragma once
// LONDON_JOURNEYS: the planJourney tool actor (validation, its own TPS
// limit) in front of TFL_JOURNEY.

#include "actors/interfaces.hpp"
#include "actors/token_bucket.hpp"
#include "actors/tool_support.hpp"

namespace transitd {

struct london_journeys_state {
  static inline const char* name = "london_journeys";
  london_journey_actor provider;
  token_bucket limiter;
  tool_options tool;
};

london_journey_actor::behavior_type london_journeys(
  london_journey_actor::stateful_pointer<london_journeys_state> self,
  london_journey_actor provider, double tps, tool_options tool);

} // namespace transitd
