#pragma once
// The list of tools: each one's MCP face (spec and strict argument parser)
// with its typed request and reply. The daemon runs them through the
// gateway (transport/tools.cpp); the MCP fuzz target runs the parsers only.

#include "transitd/transport/coverage_json.hpp"
#include "transitd/transport/departures_json.hpp"
#include "transitd/transport/geocode_json.hpp"
#include "transitd/transport/london_json.hpp"
#include "transitd/transport/plan_json.hpp"
#include "transitd/transport/reach_json.hpp"
#include "transitd/transport/route_json.hpp"
#include "transitd/transport/realtime_json.hpp"
#include "transitd/transport/stops_json.hpp"
#include "transitd/transport/tool_catalog.hpp"
#include "transitd/transport/trip_json.hpp"
#include "transitd/transport/variables_json.hpp"

namespace transitd::mcp {

/// Calls, in catalog order, `v.template tool<Request, Reply>(spec, parse)`
/// for each tool whose failures are MCP tool errors, and
/// `v.template london<Request, Reply>(spec, parse, which)` for the London
/// tools, whose failures render as their success:false envelope.
template <class Visitor>
void visit_tools(Visitor& v) {
  v.template tool<transit_coverage_request, transit_coverage_reply>(
    transit_coverage_spec(), parse_transit_coverage);
  v.template tool<get_departures_request, get_departures_reply>(
    get_departures_spec(), parse_get_departures);
  v.template tool<find_stops_request, find_stops_reply>(find_stops_spec(),
                                                        parse_find_stops);
  v.template tool<geocode_request, geocode_reply>(geocode_address_spec(),
                                                  parse_geocode_address);
  v.template tool<plan_trip_request, plan_trip_reply>(plan_trip_spec(),
                                                      parse_plan_trip);
  v.template tool<vehicle_positions_request, vehicle_positions_reply>(
    vehicle_positions_spec(), parse_vehicle_positions);
  v.template tool<service_alerts_request, service_alerts_reply>(
    service_alerts_spec(), parse_service_alerts);
  v.template tool<get_trip_request, get_trip_reply>(get_trip_spec(),
                                                    parse_get_trip);
  v.template tool<reachable_request, reachable_reply>(reachable_spec(),
                                                      parse_reachable);
  v.template tool<get_route_request, get_route_reply>(get_route_spec(),
                                                      parse_get_route);
  v.template tool<line_status_request, line_status_reply>(
    line_status_spec(), parse_line_status);
  v.template london<station_toilets_request, station_toilets_reply>(
    station_toilets_spec(), parse_station_toilets,
    london_tool::station_toilets);
  v.template london<journey_plan_request, journey_plan_reply>(
    plan_journey_spec(), parse_plan_journey, london_tool::plan_journey);
  v.template tool<save_variable_request, save_variable_reply>(
    save_user_variable_spec(), parse_save_user_variable);
  v.template tool<get_variables_request, get_variables_reply>(
    get_user_variables_spec(), parse_get_user_variables);
  v.template tool<delete_variable_request, delete_variable_reply>(
    delete_user_variable_spec(), parse_delete_user_variable);
}

} // namespace transitd::mcp
