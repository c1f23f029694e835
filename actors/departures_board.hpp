#pragma once
// DEPARTURES_BOARD: the get_departures tool actor.

#include <cstdint>
#include <vector>

#include "actors/interfaces.hpp"

namespace transitd {

struct departures_board_options {
  /// Upper bound on the TIMETABLE round trip when the call has no deadline.
  int32_t timeout_ms = 10000;
  /// Attached to every reply (e.g. "demo-data").
  std::vector<warning> standing_warnings;
};

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

/// Milliseconds left until the call's deadline, else `fallback_ms`; never
/// below 1.
int64_t remaining_ms(const call_context& context, int64_t fallback_ms);

} // namespace transitd
