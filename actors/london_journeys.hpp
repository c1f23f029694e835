#pragma once
// LONDON_JOURNEYS: the planJourney tool actor (validation; its TPS limit
// is RATE_LIMITER's "tool:planJourney") in front of TFL_JOURNEY.

#include "transitd/messages/interfaces.hpp"
#include "transitd/actors/tool_support.hpp"

namespace transitd {

struct london_journeys_state {
  static inline const char* name = "london_journeys";
  london_journey_actor provider;
  tool_options tool;
};

london_journey_actor::behavior_type london_journeys(
  london_journey_actor::stateful_pointer<london_journeys_state> self,
  london_journey_actor provider, tool_options tool);

} // namespace transitd
