#pragma once
// TRIP_VIEWER: the get_trip tool over NETWORK_INFO.

#include "transitd/actors/tool_support.hpp"
#include "transitd/messages/interfaces.hpp"

namespace transitd {

struct trip_viewer_state {
  static inline const char* name = "trip_viewer";
  network_info_actor network;
  tool_options options;
};

/// `network` null: every call answers data-not-available saying which
/// providers answer trips.
trip_viewer_actor::behavior_type
trip_viewer(trip_viewer_actor::stateful_pointer<trip_viewer_state> self,
            network_info_actor network, tool_options options);

} // namespace transitd
