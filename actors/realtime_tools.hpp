#pragma once
// VEHICLE_TRACKER (vehicle_positions) and ALERT_BOARD (service_alerts):
// the realtime tools over REALTIME_INFO.

#include "transitd/actors/tool_support.hpp"
#include "transitd/messages/interfaces.hpp"

namespace transitd {

struct vehicle_tracker_state {
  static inline const char* name = "vehicle_tracker";
  realtime_info_actor realtime;
  tool_options options;
};

/// `realtime` null: every call answers data-not-available saying how to
/// configure realtime.
vehicle_tracker_actor::behavior_type vehicle_tracker(
  vehicle_tracker_actor::stateful_pointer<vehicle_tracker_state> self,
  realtime_info_actor realtime, tool_options options);

struct alert_board_state {
  static inline const char* name = "alert_board";
  realtime_info_actor realtime;
  tool_options options;
};

alert_board_actor::behavior_type
alert_board(alert_board_actor::stateful_pointer<alert_board_state> self,
            realtime_info_actor realtime, tool_options options);

} // namespace transitd
