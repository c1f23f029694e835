#pragma once
// Paths as agents and views take them: simplified to a bounded number of
// points, and written as an encoded polyline (the format Google's maps,
// OpenTripPlanner and Digitransit use: each coordinate's difference from
// the one before at 1e-5 degrees, in 5-bit groups as printable ASCII).

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "transitd/messages/common.hpp"

namespace transitd {

/// Points a leg's and a trip's way are drawn with, at most (every
/// provider's).
inline constexpr std::size_t max_leg_points = 100;
inline constexpr std::size_t max_trip_points = 300;

/// `points` without the ones a line within `tolerance_m` meters of them
/// replaces (Douglas-Peucker), the ends always kept; when more than
/// `max_points` (at least 2) remain, the tolerance doubles until they fit.
std::vector<coordinate> simplify_path(std::vector<coordinate> points,
                                      double tolerance_m,
                                      std::size_t max_points);

/// The encoded polyline of `points` (precision 5).
std::string encode_polyline(const std::vector<coordinate>& points);

/// The points of an encoded polyline; nullopt when it is malformed.
std::optional<std::vector<coordinate>> decode_polyline(std::string_view text);

} // namespace transitd
