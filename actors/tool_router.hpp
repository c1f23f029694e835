#pragma once
// TOOL_ROUTER: stamps each call (correlation id, receive time, deadline),
// takes an inbound permit from RATE_LIMITER for tools with a limit, and hands
// the call to the tool actor that owns it. It also fans cancellations out to
// every actor that starts upstream work (caches and gates).

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "messages/interfaces.hpp"

namespace transitd {

/// Who TOOL_ROUTER talks to, and its per-tool settings.
struct tool_router_targets {
  departures_board_actor departures_board;
  stop_finder_actor stop_finder;
  address_geocoder_actor address_geocoder;
  trip_planner_actor trip_planner;
  station_toilets_actor station_toilets;
  london_journey_actor london_journeys;
  variable_store_actor variable_store;
  /// Inbound limits; asked only for tools in `limited_tools`.
  rate_limiter_actor limiter;
  std::vector<std::string> limited_tools;
  /// Told about every cancel_call.
  std::vector<cancel_listener_actor> cancel_listeners;
  /// Deadline of a call that arrives without one, by tool name; tools not
  /// listed use `default_timeout_ms`.
  std::map<std::string, int32_t> timeouts_ms;
  int32_t default_timeout_ms = 10000;
};

struct tool_router_state {
  static inline const char* name = "tool_router";
  tool_router_targets targets;
};

tool_router_actor::behavior_type
tool_router(tool_router_actor::stateful_pointer<tool_router_state> self,
            tool_router_targets targets);

/// Fills in a correlation id, the receive time and the deadline
/// (`timeout_ms` after receipt) when the caller left them empty.
void stamp(call_context& context, int32_t timeout_ms);

/// The tool names TOOL_ROUTER uses for limits and timeouts (the MCP names).
namespace tool_names {
inline constexpr const char* get_departures = "get_departures";
inline constexpr const char* find_stops = "find_stops";
inline constexpr const char* geocode_address = "geocode_address";
inline constexpr const char* plan_trip = "plan_trip";
inline constexpr const char* station_toilets = "stationToilets";
inline constexpr const char* plan_journey = "planJourney";
inline constexpr const char* save_user_variable = "save_user_variable";
inline constexpr const char* get_user_variables = "get_user_variables";
inline constexpr const char* delete_user_variable = "delete_user_variable";
} // namespace tool_names

} // namespace transitd
