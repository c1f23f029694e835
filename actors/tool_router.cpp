#include "actors/tool_router.hpp"

#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/ids.hpp"
#include "messages/time.hpp"

namespace transitd {

void stamp(call_context& context) {
  if (context.correlation_id.empty())
    context.correlation_id = make_uuid_v4();
  if (context.received_ms == 0)
    context.received_ms = now_ms();
}

tool_router_actor::behavior_type
tool_router(tool_router_actor::stateful_pointer<tool_router_state> self,
            departures_board_actor departures_board,
            stop_finder_actor stop_finder,
            address_geocoder_actor address_geocoder,
            trip_planner_actor trip_planner,
            station_toilets_actor station_toilets,
            london_journey_actor london_journeys,
            variable_store_actor variable_store) {
  self->state.departures_board = std::move(departures_board);
  self->state.stop_finder = std::move(stop_finder);
  self->state.address_geocoder = std::move(address_geocoder);
  self->state.trip_planner = std::move(trip_planner);
  self->state.station_toilets = std::move(station_toilets);
  self->state.london_journeys = std::move(london_journeys);
  self->state.variable_store = std::move(variable_store);
  auto route = [self](auto& target, auto& request) {
    stamp(request.context);
    return self->delegate(target, std::move(request));
  };
  return {
    [self, route](get_departures_request& request) {
      return route(self->state.departures_board, request);
    },
    [self, route](find_stops_request& request) {
      return route(self->state.stop_finder, request);
    },
    [self, route](geocode_request& request) {
      return route(self->state.address_geocoder, request);
    },
    [self, route](plan_trip_request& request) {
      return route(self->state.trip_planner, request);
    },
    [self, route](station_toilets_request& request) {
      return route(self->state.station_toilets, request);
    },
    [self, route](journey_plan_request& request) {
      return route(self->state.london_journeys, request);
    },
    [self, route](save_variable_request& request) {
      return route(self->state.variable_store, request);
    },
    [self, route](get_variables_request& request) {
      return route(self->state.variable_store, request);
    },
    [self, route](delete_variable_request& request) {
      return route(self->state.variable_store, request);
    },
  };
}

} // namespace transitd
