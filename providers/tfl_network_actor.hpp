#pragma once
// TFL_NETWORK: TfL's stops and lines as a provider actor. Serves TIMETABLE
// (get_departures from StopPoint Arrivals: NaPTAN and hub ids) and
// NETWORK_INFO's line status (Line Mode Status); TfL has no trips, reach or
// routes here, and its nearby stops are not wired (find_stops in London
// answers data-not-available). Stops' children are cached (they do not
// change within a day); predictions are never cached here (TIMETABLE_CACHE
// in front holds them for its TTL).

#include <string>
#include <unordered_map>

#include "transitd/messages/interfaces.hpp"
#include "transitd/providers/tfl_journey_actor.hpp"
#include "transitd/providers/tfl_network.hpp"
#include "transitd/providers/upstream_call.hpp"

namespace transitd {

using tfl_network_actor = timetable_actor::extend_with<network_info_actor>;

struct tfl_network_state {
  static inline const char* name = "tfl_network";
  upstream_client upstream;
  bool key_required = true;
  /// On the built-in demo upstream: departures carry `demo-data`.
  bool demo = false;
  /// StopPoint answers by id, at most `max_stops` (then cleared).
  std::unordered_map<std::string, tfl::stop_point> stops;
  static constexpr std::size_t max_stops = 4096;
};

tfl_network_actor::behavior_type
tfl_network(tfl_network_actor::stateful_pointer<tfl_network_state> self,
            tfl_journey_options options, upstream_gate_actor gate,
            bool demo);

} // namespace transitd
