#pragma once
// Digitransit routing API (OpenTripPlanner GTFS GraphQL, v2): pure request
// builders and response parsers. No sockets, no actors: unit-tested against
// the recorded payloads in tests/fixtures/upstream/digitransit-routing/.

#include <cstdint>
#include <string>
#include <string_view>

#include "transitd/messages/departures.hpp"
#include "transitd/messages/error.hpp"
#include "transitd/messages/http.hpp"
#include "transitd/messages/realtime.hpp"
#include "transitd/messages/stops.hpp"
#include "transitd/messages/trips.hpp"
#include "transitd/providers/upstream_http.hpp"

#include <boost/json/object.hpp>
#include <boost/json/value.hpp>

namespace transitd::digitransit {

/// The zone of the region Digitransit serves here (HSL): where a time
/// without an offset is read (D22) and answers are shown.
inline constexpr std::string_view zone = "Europe/Helsinki";

/// The language Digitransit is asked in (D5): none asked, English; fi, sv
/// or en (any case, region aside: "en-GB"); any other a validation-error
/// naming the three. `language` becomes the one sent.
std::optional<failure> answer_language(std::string& language);

/// A GraphQL response body; malformed JSON and an `errors` payload are
/// upstream errors.
outcome<boost::json::value> parse_graphql(std::string_view body);

/// The JSON body of a GraphQL POST.
std::string graphql_body(std::string_view operation, std::string_view query,
                         boost::json::object variables);

/// The GraphQL operation name of the departures query.
inline constexpr std::string_view departures_operation = "StopDepartures";

/// JSON body of the GraphQL POST asking where a stop or station is (D21).
std::string make_stop_place_body(const stop_lookup& query);

/// The stop or station of a StopPlace answer; validation-error when the
/// upstream has neither.
outcome<stop_place> parse_stop_place(std::string_view body,
                                     std::string_view requested_stop);

/// JSON body of the GraphQL POST for a departures query (asks for cancelled
/// departures too: omitCanceled false).
std::string make_departures_body(const stop_departures_query& query);

/// Parses a GraphQL response body (HTTP 200) into stop departures. A missing
/// stop is a validation-error naming it; a GraphQL `errors` payload is an
/// upstream-error carrying the upstream's (sanitised) message.
outcome<stop_departures> parse_departures(std::string_view body,
                                          std::string_view requested_stop,
                                          int64_t fetched_ms);

/// The GraphQL operation name of the nearby-stops query.
inline constexpr std::string_view nearby_stops_operation = "NearbyStops";

/// JSON body of a `nearest` query for stops (filterByPlaceTypes STOP, and
/// filterByModes when the query names modes).
std::string make_nearby_stops_body(const nearby_stops_query& query);

/// Parses `data.nearest` (places; non-stops skipped) or the older
/// `data.stopsByRadius` shape into stops, nearest first as received.
outcome<nearby_stops> parse_nearby_stops(std::string_view body,
                                         int64_t fetched_ms);

/// The GraphQL operation name of the trip planning query.
inline constexpr std::string_view plan_operation = "PlanTrip";

/// JSON body of a planConnection query (the older `plan` is deprecated
/// upstream).
std::string make_plan_body(const trip_plan_query& query);

/// Parses `data.planConnection.edges[].node` itineraries: legs with
/// scheduled and estimated times (ISO 8601), realtime state, stops.
outcome<trip_plans> parse_plan(std::string_view body, int64_t fetched_ms);

/// The GraphQL operation names of the alerts queries.
inline constexpr std::string_view stop_alerts_operation = "StopAlerts";
inline constexpr std::string_view route_alerts_operation = "RouteAlerts";
inline constexpr std::string_view trip_alerts_operation = "TripAlerts";
inline constexpr std::string_view feed_alerts_operation = "FeedAlerts";

/// JSON body of an alerts query: a stop's (its own, its routes', their
/// trips' and agencies'), a route's (its own, its trips', its agency's and
/// mode's), a trip's (its own, its route's, its agency's and mode's), or
/// every alert of `feed` ("HSL"). Each alert with its texts in
/// every language, cause, effect, severity, period and entities.
std::string make_alerts_body(const alerts_query& query,
                             std::string_view feed);

/// Parses `data.stop.alerts`, `data.route.alerts`, `data.trip.alerts` or
/// `data.alerts` into
/// alerts in force at `query.time` (OTP answers those in force now or
/// later), texts in `query.language` (else English, else the untranslated
/// text), in the upstream's order. A null stop or route is a validation-error
/// naming `query`'s id.
outcome<alert_list> parse_alerts(std::string_view body,
                                 const alerts_query& query,
                                 int64_t fetched_ms);

} // namespace transitd::digitransit
