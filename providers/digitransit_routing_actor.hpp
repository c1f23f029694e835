#pragma once
// The Digitransit routing provider as an actor: implements TIMETABLE by
// turning queries into GraphQL POSTs handed to its UPSTREAM_GATE.

#include <cstdint>
#include <memory>
#include <string>

#include "transitd/messages/interfaces.hpp"
#include "transitd/providers/upstream_call.hpp"

namespace transitd {

struct digitransit_routing_options {
  /// The GraphQL endpoint, e.g.
  /// "https://api.digitransit.fi/routing/v2/hsl/gtfs/v1".
  std::string url;
  /// Sent as digitransit-subscription-key; never logged.
  std::string api_key;
  /// Per upstream attempt.
  int32_t timeout_ms = 5000;
  /// On the built-in demo upstream: departures carry `demo-data` (so that
  /// a board says so whichever provider the switch chose).
  bool demo = false;
  /// Attempts per query (GraphQL queries are idempotent).
};

struct digitransit_routing_state {
  static inline const char* name = "digitransit_routing";
  upstream_client upstream;
  bool demo = false;
};

digitransit_routing_actor::behavior_type digitransit_routing(
  digitransit_routing_actor::stateful_pointer<digitransit_routing_state> self,
  digitransit_routing_options options, upstream_gate_actor gate);

} // namespace transitd
