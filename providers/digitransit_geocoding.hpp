#pragma once
// Digitransit geocoding (Pelias /search): pure request builder and response
// parser, tested against the recorded payloads.

#include <cstdint>
#include <string>
#include <string_view>

#include "transitd/messages/error.hpp"
#include "transitd/messages/geocoding.hpp"

namespace transitd::digitransit {

/// Path and query string of a Pelias search: "/search?text=...&size=..."
/// relative to the geocoding base (URL-encoded).
std::string make_search_target(const geocode_query& query);

/// Parses a GeoJSON FeatureCollection (coordinates are [lon, lat]).
outcome<geocode_candidates> parse_search(std::string_view body,
                                         int64_t fetched_ms);

} // namespace transitd::digitransit
