#pragma once
// TRIP_PLANNER: the plan_trip tool actor.

#include "transitd/messages/interfaces.hpp"
#include "transitd/actors/tool_support.hpp"
#include "transitd/actors/trip_rules.hpp"

namespace transitd {

struct trip_planner_options {
  tool_options tool;
  region area;
  /// Refuse points outside `area` (D15). Off when a provider switch
  /// decides by the areas of several providers.
  bool check_area = true;
  /// D12: send the relaxed query together with the primary one. Off, the
  /// relaxed query goes out only after a disrupted primary answer (for
  /// deployments short of upstream quota).
  bool speculative_relax = true;
};

struct trip_planner_state {
  static inline const char* name = "trip_planner";
  journey_planner_actor journey_planner;
  variable_store_actor variable_store;
  trip_planner_options options;
};

trip_planner_actor::behavior_type
trip_planner(trip_planner_actor::stateful_pointer<trip_planner_state> self,
             journey_planner_actor journey_planner,
             variable_store_actor variable_store,
             trip_planner_options options);

} // namespace transitd
