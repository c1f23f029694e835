#pragma once
// Deterministic stops around any point for the mock upstream's `nearest`.

#include <cstdint>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace transitd::mock {

struct nearest_query {
  double lat = 0;
  double lon = 0;
  int32_t max_distance = 2000;
  int32_t max_results = 20;
  /// Empty: all modes.
  std::vector<std::string> modes;
  std::string language = "fi";
};

/// The full GraphQL response: data.nearest.edges[].node{distance,
/// place{gtfsId,name,lat,lon,vehicleMode,routes[{mode}]}}, nearest first.
/// Forty stops lie around every point, 40..2770 m away.
boost::json::object generate_nearest(const nearest_query& query);

} // namespace transitd::mock
