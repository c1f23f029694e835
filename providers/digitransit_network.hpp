#pragma once
// Digitransit's answers to the network's questions (NETWORK_INFO): a
// trip's calls (GraphQL `trip`), a line's stops and patterns (`routes`),
// and line status from the alerts in force. Pure builders and parsers, as
// providers/digitransit_routing.

#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/error.hpp"
#include "transitd/messages/lines.hpp"
#include "transitd/messages/realtime.hpp"
#include "transitd/messages/trip_info.hpp"

namespace transitd::digitransit {

inline constexpr std::string_view trip_operation = "TripCalls";
inline constexpr std::string_view routes_operation = "LineRoutes";

/// "YYYYMMDD": the service date a trip query asks for (its service day,
/// else the date in Helsinki at the query's time).
std::string service_date_of(const trip_query& query);

/// JSON body of the TripCalls query: the trip, its route and its calls on
/// `service_date` (YYYYMMDD).
std::string make_trip_body(const trip_query& query,
                           std::string_view service_date);

/// The trip's calls in order with scheduled and realtime times; a null
/// trip is a validation-error naming it, a trip without calls that day a
/// validation-error naming the days it runs.
outcome<trip_details> parse_trip(std::string_view body,
                                 const trip_query& query,
                                 std::string_view service_date,
                                 int64_t fetched_ms);

/// The lines the alerts in force name (a route, whole), each with the
/// status its alerts give (`alert_status`) and the alerts as reasons,
/// worst first; `route` (a name or id; empty: all) keeps those lines.
/// Lines no alert names run as planned and are not listed.
std::vector<line_state> lines_of_alerts(const alert_list& alerts,
                                        std::string_view route);

/// JSON body of the LineRoutes query: the routes named `route` ("550", or
/// an id "HSL:2550") with their patterns' stops.
std::string make_routes_body(const route_query& query);

/// The lines named, each direction's stops in order with its headsign; no
/// route of that name is a validation-error.
outcome<route_details> parse_routes(std::string_view body,
                                    const route_query& query,
                                    int64_t fetched_ms);

} // namespace transitd::digitransit
