// The way a trip takes between two of its stops: along its shapes.txt
// path where the feed gives one, else straight from stop to stop.

#include <algorithm>
#include <cmath>
#include <limits>

#include "transitd/offline/gtfs_network.hpp"
#include "transitd/util/polyline.hpp"

namespace transitd::gtfs {

namespace {

/// Where a stop lies on a path: on segment `segment`, `t` of the way.
struct placed {
  std::size_t segment = 0;
  double t = 0;
};

/// The nearest place to `c` on `points`, at or after `from` (so stops are
/// placed in order, and a line passing a stop twice takes the right pass).
placed place_on(const shape_point* points, std::size_t count,
                const coordinate& c, placed from) {
  auto k = std::cos(c.lat * M_PI / 180.0);
  placed best = from;
  double best_d = std::numeric_limits<double>::max();
  for (auto s = from.segment; s + 1 < count; ++s) {
    double ax = points[s].lon * k, ay = points[s].lat;
    double bx = points[s + 1].lon * k - ax, by = points[s + 1].lat - ay;
    double px = c.lon * k - ax, py = c.lat - ay;
    double len = bx * bx + by * by;
    double t = len > 0 ? std::clamp((px * bx + py * by) / len, 0.0, 1.0) : 0;
    if (s == from.segment && t < from.t)
      t = from.t;
    double dx = px - t * bx, dy = py - t * by;
    double d = dx * dx + dy * dy;
    if (d < best_d) {
      best_d = d;
      best = {s, t};
    }
  }
  return best;
}

coordinate at(const shape_point* points, placed p) {
  const auto& a = points[p.segment];
  const auto& b = points[p.segment + 1];
  return {a.lat + p.t * (b.lat - a.lat), a.lon + p.t * (b.lon - a.lon)};
}

} // namespace

std::vector<coordinate> trip_path(const timetable& tt, uint32_t trip,
                                  uint32_t from, uint32_t to,
                                  std::size_t max_points) {
  std::vector<coordinate> out;
  if (trip >= tt.trips.size() || tt.trip_pattern[trip] == none)
    return out;
  const auto& p = tt.patterns[tt.trip_pattern[trip]];
  to = std::min(to, p.stop_count - 1);
  if (from >= to)
    return out;
  auto stop_at = [&](uint32_t pos) -> const coordinate& {
    return tt.stops[tt.pattern_stops[p.stops_begin + pos].stop].position;
  };
  auto shape = tt.trips[trip].shape;
  if (shape == none
      || tt.shape_begin[shape + 1] - tt.shape_begin[shape] < 2) {
    for (auto pos = from; pos <= to; ++pos)
      out.push_back(stop_at(pos));
    return simplify_path(std::move(out), 1.0, max_points);
  }
  const auto* points = tt.shape_points.data() + tt.shape_begin[shape];
  std::size_t count = tt.shape_begin[shape + 1] - tt.shape_begin[shape];
  placed cursor;
  placed start;
  for (uint32_t pos = 0; pos <= to; ++pos) {
    cursor = place_on(points, count, stop_at(pos), cursor);
    if (pos == from)
      start = cursor;
  }
  out.push_back(at(points, start));
  for (auto s = start.segment + 1; s <= cursor.segment; ++s)
    out.push_back({points[s].lat, points[s].lon});
  out.push_back(at(points, cursor));
  return simplify_path(std::move(out), 3.0, max_points);
}

std::optional<std::pair<uint32_t, uint32_t>>
positions_on_trip(const timetable& tt, uint32_t trip, uint32_t from_stop,
                  uint32_t to_stop) {
  if (trip >= tt.trips.size() || tt.trip_pattern[trip] == none)
    return std::nullopt;
  const auto& p = tt.patterns[tt.trip_pattern[trip]];
  for (uint32_t a = 0; a < p.stop_count; ++a) {
    if (tt.pattern_stops[p.stops_begin + a].stop != from_stop)
      continue;
    for (uint32_t b = a + 1; b < p.stop_count; ++b)
      if (tt.pattern_stops[p.stops_begin + b].stop == to_stop)
        return std::pair{a, b};
  }
  return std::nullopt;
}

} // namespace transitd::gtfs
