#pragma once
// TOOL_ROUTER: stamps each call (correlation id, receive time, deadline),
// takes an inbound permit from RATE_LIMITER for tools with a limit, and hands
// the call to the tool actor that owns it. It also fans cancellations out to
// every actor that starts upstream work (caches and gates).

#include <cstdint>
#include <map>
#include <string>
#include <typeindex>
#include <vector>

#include "actors/rate_limiter.hpp"
#include "messages/interfaces.hpp"

namespace transitd {

/// One tool's settings in the engine. The engine knows a tool by the
/// request it takes; what it is called is the embedder's choice (the daemon
/// uses the MCP tool name).
struct tool_settings {
  /// How rate-limit errors, limiter counters and metrics name the tool.
  std::string label;
  /// Deadline of a call that arrives without one; 0: the engine default.
  int32_t timeout_ms = 0;
  /// Inbound calls per second (burst: one second's worth); 0: unlimited.
  double tps = 0;
};

/// Tool settings by the request type of the tool (`tool_of<Request>()`).
using tool_settings_map = std::map<std::type_index, tool_settings>;

template <class Request>
std::type_index tool_of() {
  return std::type_index{typeid(Request)};
}

/// The rate limiter's key for a tool: "tool:<label>" (a tool without a
/// label is keyed by its request type, so that no two tools share one).
std::string tool_limit_key(std::type_index tool, const tool_settings& settings);

/// RATE_LIMITER's limits for the tools with a tps.
std::vector<rate_limit> tool_limits(const tool_settings_map& tools);

/// Who TOOL_ROUTER talks to, and its per-tool settings.
struct tool_router_targets {
  departures_board_actor departures_board;
  stop_finder_actor stop_finder;
  address_geocoder_actor address_geocoder;
  trip_planner_actor trip_planner;
  station_toilets_actor station_toilets;
  london_journey_actor london_journeys;
  variable_store_actor variable_store;
  /// Inbound limits; asked only for tools whose settings have a tps.
  rate_limiter_actor limiter;
  /// Told about every cancel_call.
  std::vector<cancel_listener_actor> cancel_listeners;
  /// Labels, deadlines and limits by tool; tools not listed are unlimited
  /// and take `default_timeout_ms`.
  tool_settings_map tools;
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

} // namespace transitd
