#include "actors/engine.hpp"

#include <caf/actor_system.hpp>
#include <caf/exit_reason.hpp>
#include <caf/send.hpp>
#include <caf/stateful_actor.hpp>
#include <caf/typed_event_based_actor.hpp>

#include "actors/address_geocoder.hpp"
#include "actors/departures_board.hpp"
#include "actors/london_journeys.hpp"
#include "actors/stop_finder.hpp"
#include "actors/trip_planner.hpp"
#include "providers/tfl_demo_station_data.hpp"
#include "actors/tool_router.hpp"

namespace transitd {

engine spawn_engine(caf::actor_system& system, const engine_config& config) {
  engine result;
  result.variable_store = spawn_variable_store(system, config.variables);
  http_client_pool routing_pool{system, config.http_workers_per_upstream};
  result.http_clients = routing_pool.workers();
  auto routing = system.spawn(digitransit_routing, config.digitransit_routing,
                              std::move(routing_pool));
  result.timetable = routing;
  result.journey_planner = routing;
  http_client_pool geocoding_pool{system, config.http_workers_per_upstream};
  for (const auto& worker : geocoding_pool.workers())
    result.http_clients.push_back(worker);
  result.geocoding = system.spawn(digitransit_geocoding,
                                  config.digitransit_geocoding,
                                  std::move(geocoding_pool));
  const warning demo_warning{
    "demo-data", "answered from the built-in demo upstream, not live data; "
                 "configure DIGITRANSIT_API_KEY for real data"};
  tool_options helsinki;
  helsinki.timeout_ms = config.tool_timeout_ms;
  if (config.demo_routing)
    helsinki.standing_warnings.push_back(demo_warning);
  tool_options geocoder;
  geocoder.timeout_ms = config.tool_timeout_ms;
  if (config.demo_geocoding)
    geocoder.standing_warnings.push_back(demo_warning);
  result.departures_board = system.spawn(departures_board, result.timetable,
                                         result.variable_store, helsinki);
  result.stop_finder = system.spawn(stop_finder, result.timetable, helsinki);
  result.address_geocoder = system.spawn(address_geocoder, result.geocoding,
                                         geocoder);
  trip_planner_options planner;
  planner.tool = helsinki;
  planner.area = config.plan_region;
  planner.speculative_relax = config.speculative_relax;
  result.trip_planner = system.spawn(trip_planner, result.journey_planner,
                                     result.variable_store, planner);
  auto toilets = config.station_toilets;
  if (!toilets.reader) {
    toilets.reader = demo_station_data_reader();
    toilets.source = "the built-in demo set";
    toilets.tool.standing_warnings.push_back(
      {"demo-data", "answered from the built-in demo station data, not "
                    "TfL's; configure --tfl-station-data"});
  }
  if (toilets.tool.timeout_ms == 0)
    toilets.tool.timeout_ms = config.tool_timeout_ms;
  result.station_toilets = spawn_station_toilets(system, std::move(toilets));
  http_client_pool tfl_pool{system, config.http_workers_per_upstream};
  for (const auto& worker : tfl_pool.workers())
    result.http_clients.push_back(worker);
  result.tfl_journey = system.spawn(tfl_journey, config.tfl,
                                    std::move(tfl_pool));
  tool_options london;
  london.timeout_ms = config.tool_timeout_ms;
  if (config.demo_tfl)
    london.standing_warnings.push_back(
      {"demo-data", "answered from the built-in demo upstream, not TfL; "
                    "configure TFL_API_KEY for real journeys"});
  result.london_journeys = system.spawn(london_journeys, result.tfl_journey,
                                        config.plan_journey_tps, london);
  result.router = system.spawn(tool_router, result.departures_board,
                               result.stop_finder, result.address_geocoder,
                               result.trip_planner, result.station_toilets,
                               result.london_journeys, result.variable_store);
  return result;
}

void engine::shutdown() {
  auto stop = [](const auto& handle) {
    if (handle)
      caf::anon_send_exit(handle, caf::exit_reason::user_shutdown);
  };
  stop(router);
  stop(departures_board);
  stop(stop_finder);
  stop(address_geocoder);
  stop(trip_planner);
  stop(station_toilets);
  stop(london_journeys);
  stop(tfl_journey);
  stop(geocoding);
  stop(timetable);
  stop(variable_store);
  for (const auto& worker : http_clients)
    stop(worker);
}

} // namespace transitd
