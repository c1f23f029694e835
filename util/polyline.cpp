#include "transitd/util/polyline.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <utility>

namespace transitd {

namespace {

constexpr double meters_per_degree = 111'320.0;

/// Distance in meters from `p` to the segment `a`-`b`, on a plane local to
/// `a` (paths are short: a city's lines).
double segment_distance(const coordinate& p, const coordinate& a,
                        const coordinate& b) {
  auto k = std::cos(a.lat * M_PI / 180.0);
  auto px = (p.lon - a.lon) * k, py = p.lat - a.lat;
  auto bx = (b.lon - a.lon) * k, by = b.lat - a.lat;
  auto len = bx * bx + by * by;
  auto t = len > 0 ? std::clamp((px * bx + py * by) / len, 0.0, 1.0) : 0.0;
  auto dx = px - t * bx, dy = py - t * by;
  return std::sqrt(dx * dx + dy * dy) * meters_per_degree;
}

/// Marks the points Douglas-Peucker keeps at `tolerance_m` (an explicit
/// stack: no recursion however long the path).
std::vector<bool> kept(const std::vector<coordinate>& points,
                       double tolerance_m) {
  std::vector<bool> keep(points.size(), false);
  keep.front() = keep.back() = true;
  std::vector<std::pair<std::size_t, std::size_t>> spans{
    {0, points.size() - 1}};
  while (!spans.empty()) {
    auto [first, last] = spans.back();
    spans.pop_back();
    double worst = -1;
    std::size_t at = first;
    for (auto i = first + 1; i < last; ++i) {
      auto d = segment_distance(points[i], points[first], points[last]);
      if (d > worst) {
        worst = d;
        at = i;
      }
    }
    if (worst > tolerance_m) {
      keep[at] = true;
      spans.emplace_back(first, at);
      spans.emplace_back(at, last);
    }
  }
  return keep;
}

void put_number(std::string& out, int64_t value) {
  auto v = static_cast<uint64_t>(value) << 1;
  if (value < 0)
    v = ~v;
  while (v >= 0x20) {
    out += static_cast<char>((0x20 | (v & 0x1f)) + 63);
    v >>= 5;
  }
  out += static_cast<char>(v + 63);
}

} // namespace

std::vector<coordinate> simplify_path(std::vector<coordinate> points,
                                      double tolerance_m,
                                      std::size_t max_points) {
  max_points = std::max<std::size_t>(max_points, 2);
  if (points.size() <= 2)
    return points;
  auto tolerance = std::max(tolerance_m, 0.1);
  for (;;) {
    auto keep = kept(points, tolerance);
    std::size_t count = 0;
    for (bool k : keep)
      count += k ? 1 : 0;
    if (count <= max_points) {
      std::vector<coordinate> out;
      out.reserve(count);
      for (std::size_t i = 0; i < points.size(); ++i)
        if (keep[i])
          out.push_back(points[i]);
      return out;
    }
    tolerance *= 2;
  }
}

std::string encode_polyline(const std::vector<coordinate>& points) {
  std::string out;
  out.reserve(points.size() * 8);
  int64_t lat = 0, lon = 0;
  for (const auto& p : points) {
    auto la = static_cast<int64_t>(std::llround(p.lat * 1e5));
    auto lo = static_cast<int64_t>(std::llround(p.lon * 1e5));
    put_number(out, la - lat);
    put_number(out, lo - lon);
    lat = la;
    lon = lo;
  }
  return out;
}

std::optional<std::vector<coordinate>> decode_polyline(std::string_view text) {
  std::vector<coordinate> out;
  std::size_t i = 0;
  auto next = [&](int64_t& value) {
    uint64_t result = 0;
    int shift = 0;
    for (;;) {
      if (i >= text.size() || shift > 60)
        return false;
      int c = static_cast<unsigned char>(text[i++]) - 63;
      if (c < 0 || c > 63)
        return false;
      result |= static_cast<uint64_t>(c & 0x1f) << shift;
      shift += 5;
      if (c < 0x20)
        break;
    }
    value = (result & 1) ? ~static_cast<int64_t>(result >> 1)
                         : static_cast<int64_t>(result >> 1);
    return true;
  };
  int64_t lat = 0, lon = 0;
  while (i < text.size()) {
    int64_t dlat = 0, dlon = 0;
    if (!next(dlat) || !next(dlon))
      return std::nullopt;
    lat += dlat;
    lon += dlon;
    out.push_back({static_cast<double>(lat) / 1e5,
                   static_cast<double>(lon) / 1e5});
  }
  return out;
}

} // namespace transitd
