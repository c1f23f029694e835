#pragma once
// DEPARTURES_BOARD: the get_departures tool actor.

#include <cstdint>
#include <vector>

#include "transitd/messages/interfaces.hpp"
#include "transitd/actors/tool_support.hpp"

namespace transitd {

using departures_board_options = tool_options;

struct departures_board_state {
  static inline const char* name = "departures_board";
  timetable_actor timetable;
  variable_store_actor variable_store;
  departures_board_options options;
};

departures_board_actor::behavior_type departures_board(
  departures_board_actor::stateful_pointer<departures_board_state> self,
  timetable_actor timetable, variable_store_actor variable_store,
  departures_board_options options);

} // namespace transitd
