#pragma once
// STOP_FINDER: the find_stops tool actor.

#include <cstdint>
#include <vector>

#include "transitd/messages/interfaces.hpp"
#include "transitd/actors/tool_support.hpp"

namespace transitd {

struct stop_finder_state {
  static inline const char* name = "stop_finder";
  timetable_actor timetable;
  tool_options options;
};

stop_finder_actor::behavior_type
stop_finder(stop_finder_actor::stateful_pointer<stop_finder_state> self,
            timetable_actor timetable, tool_options options);

} // namespace transitd
