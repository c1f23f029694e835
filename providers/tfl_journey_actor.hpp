#pragma once
// TFL_JOURNEY: the TfL Journey Planner provider as an actor.

#include <string>

#include "transitd/messages/interfaces.hpp"
#include "transitd/providers/upstream_call.hpp"

namespace transitd {

struct tfl_journey_options {
  /// The TfL API base, e.g. "https://api.tfl.gov.uk".
  std::string url;
  /// Sent as the app_key header; never logged or returned.
  std::string api_key;
  /// D18: an explicit URL without a key answers UPSTREAM_ERROR per call.
  bool key_required = true;
  int32_t timeout_ms = 5000;
};

struct tfl_journey_state {
  static inline const char* name = "tfl_journey";
  upstream_client upstream;
  /// Without a key TfL refuses every call (D18): say so at once.
  bool key_required = true;
};

london_journey_actor::behavior_type
tfl_journey(london_journey_actor::stateful_pointer<tfl_journey_state> self,
            tfl_journey_options options, upstream_gate_actor gate);

} // namespace transitd
