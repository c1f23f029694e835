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

/// 64-bit FNV-1a: the mock's only source of "randomness".
uint64_t stable_hash(std::string_view text, uint64_t salt = 0);

} // namespace transitd::mock
