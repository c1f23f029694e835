#pragma once
// TOOL_ROUTER: stamps each call (correlation id, receive time) and hands it
// to the tool actor that owns it.

#include "actors/interfaces.hpp"

namespace transitd {

struct tool_router_state {
  static inline const char* name = "tool_router";
  departures_board_actor departures_board;
  stop_finder_actor stop_finder;
  address_geocoder_actor address_geocoder;
  trip_planner_actor trip_planner;
  station_toilets_actor station_toilets;
  london_journey_actor london_journeys;
  variable_store_actor variable_store;
};

tool_router_actor::behavior_type
tool_router(tool_router_actor::stateful_pointer<tool_router_state> self,
            departures_board_actor departures_board,
            stop_finder_actor stop_finder,
            address_geocoder_actor address_geocoder,
            trip_planner_actor trip_planner,
            station_toilets_actor station_toilets,
            london_journey_actor london_journeys,
            variable_store_actor variable_store);

/// Fills in a correlation id and the receive time when the caller (an
/// embedding application) left them empty.
void stamp(call_context& context);

} // namespace transitd
