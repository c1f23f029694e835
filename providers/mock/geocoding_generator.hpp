#pragma once
// Deterministic Pelias /search answers for the mock upstream, in the
// recorded GeoJSON shape.

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <boost/json.hpp>

namespace transitd::mock {

struct search_query {
  std::string text;
  int32_t size = 10;
  std::string lang = "fi";
  std::vector<std::string> layers;
  std::optional<double> focus_lat;
  std::optional<double> focus_lon;
  /// 1: confidences 0..1; 100: 0..100.
  int confidence_scale = 1;
};

/// Texts containing "zz" have no match. Others match 5..54 places (by
/// hash), of which `size` come back, best first; pairs of results share a
/// confidence so that the focus tie-break matters.
boost::json::object generate_search(const search_query& query);

} // namespace transitd::mock
