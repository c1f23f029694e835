#pragma once
// REACH_FINDER: the reachable tool over NETWORK_INFO.

#include "transitd/actors/tool_support.hpp"
#include "transitd/messages/interfaces.hpp"

namespace transitd {

struct reach_finder_state {
  static inline const char* name = "reach_finder";
  network_info_actor network;
  variable_store_actor variable_store;
  tool_options options;
};

/// `network` null: every call answers data-not-available.
reach_finder_actor::behavior_type
reach_finder(reach_finder_actor::stateful_pointer<reach_finder_state> self,
             network_info_actor network, variable_store_actor variable_store,
             tool_options options);

} // namespace transitd
