#pragma once
// Deterministic, realistic stop departures for the mock upstream: any stop
// id answers with the same lines and times for the same query, with delays,
// early departures, cancellations and platforms mixed in.

#include <cstdint>
#include <string>
#include <string_view>

#include <boost/json.hpp>

namespace transitd::mock {

struct departures_query {
  std::string stop_id;
  int64_t start_time = 0;
  int32_t time_range = 1800;
  int32_t number_of_departures = 10;
  std::string language = "en";
};

/// The full GraphQL response body, shaped like the recorded HSL response
/// (data.stop{gtfsId,name,timezone,stoptimes[...]}). Stop ids without a
/// feed prefix ("HSL:") or whose local part is all zeros answer
/// data.stop = null, as OTP does for unknown stops.
boost::json::object generate_departures(const departures_query& query);

/// The GraphQL answer to StopPlace (D21): data.stop{gtfsId,name,lat,lon,
/// timezone} for an "HSL:" id, placed in central Helsinki by its hash;
/// data.stop = data.station = null for any other.
boost::json::object generate_stop_place(std::string_view stop_id);

/// The GraphQL answer to TripCalls: data.trip with its calls on
/// `service_date` (YYYYMMDD; none on another day, as OTP), for the trip ids
/// the departures carry ("HSL:550_<epoch>_<stop>"): eight calls two
/// minutes apart, the board's stop the fourth, with that departure's
/// realtime; data.trip = null for any other id.
boost::json::object generate_trip(const std::string& trip_id,
                                  const std::string& service_date,
                                  const std::string& language);

/// The GraphQL answer to LineRoutes: with `stop`, data.stop with the
/// routes it serves (those its departures show); else data.routes whose
/// short name starts with `name` (as OTP matches) or whose id is `id`, each
/// with two patterns of eight stops.
boost::json::object generate_routes(const std::string& name,
                                    const std::string& id,
                                    const std::string& stop);

/// 64-bit FNV-1a: the mock's only source of "randomness".
uint64_t stable_hash(std::string_view text, uint64_t salt = 0);

} // namespace transitd::mock
