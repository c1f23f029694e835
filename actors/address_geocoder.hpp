#pragma once
// ADDRESS_GEOCODER: the geocode_address tool actor.

#include "transitd/messages/interfaces.hpp"
#include "transitd/actors/tool_support.hpp"

namespace transitd {

struct address_geocoder_state {
  static inline const char* name = "address_geocoder";
  geocoding_actor geocoding;
  tool_options options;
};

address_geocoder_actor::behavior_type address_geocoder(
  address_geocoder_actor::stateful_pointer<address_geocoder_state> self,
  geocoding_actor geocoding, tool_options options);

} // namespace transitd
