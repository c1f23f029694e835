#pragma once
// Digitransit routing API (OpenTripPlanner GTFS GraphQL, v2): pure request
// builders and response parsers. No sockets, no actors: unit-tested against
// the recorded payloads in shared/fixtures/upstream/digitransit-routing/.

#include <cstdint>
#include <string>
#include <string_view>

#include "messages/departures.hpp"
#include "messages/error.hpp"
#include "messages/http.hpp"
#include "providers/upstream_http.hpp"

namespace transitd::digitransit {

/// The GraphQL operation name of the departures query.
inline constexpr std::string_view departures_operation = "StopDepartures";

/// JSON body of the GraphQL POST for a departures query (asks for cancelled
/// departures too: omitCanceled false).
std::string make_departures_body(const stop_departures_query& query);

/// Parses a GraphQL response body (HTTP 200) into stop departures. A missing
/// stop is a validation-error naming it; a GraphQL `errors` payload is an
/// upstream-error carrying the upstream's (sanitised) message.
outcome<stop_departures> parse_departures(std::string_view body,
                                          std::string_view requested_stop,
                                          int64_t fetched_ms);

} // namespace transitd::digitransit
