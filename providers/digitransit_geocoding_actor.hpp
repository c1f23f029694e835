#pragma once
// The Digitransit geocoding provider as an actor: implements GEOCODING with
// Pelias GET /search through its UPSTREAM_GATE.

#include <cstdint>
#include <string>

#include "transitd/messages/interfaces.hpp"
#include "transitd/providers/upstream_call.hpp"

namespace transitd {

struct digitransit_geocoding_options {
  /// The Pelias base; "/search" is appended, e.g.
  /// "https://api.digitransit.fi/geocoding/v1".
  std::string url;
  /// Sent as digitransit-subscription-key; never logged.
  std::string api_key;
  int32_t timeout_ms = 5000;
  /// Attempts per search (GET is idempotent).
};

struct digitransit_geocoding_state {
  static inline const char* name = "digitransit_geocoding";
  upstream_client upstream;
};

geocoding_actor::behavior_type digitransit_geocoding(
  geocoding_actor::stateful_pointer<digitransit_geocoding_state> self,
  digitransit_geocoding_options options, upstream_gate_actor gate);

} // namespace transitd
