#pragma once
// TFL_JOURNEY: the TfL Journey Planner provider as an actor.

#include <string>

#include "messages/interfaces.hpp"

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
  std::string origin;
  std::string path;
  tfl_journey_options options;
  upstream_gate_actor gate;
};

london_journey_actor::behavior_type
tfl_journey(london_journey_actor::stateful_pointer<tfl_journey_state> self,
            tfl_journey_options options, upstream_gate_actor gate);

} // namespace transitd
