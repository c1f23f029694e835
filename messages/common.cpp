#include "transitd/messages/common.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>

namespace transitd {

namespace {

constexpr std::array<std::string_view, 17> mode_names{{
  "BUS", "TRAM", "RAIL", "SUBWAY", "FERRY", "AIRPLANE", "CABLE_CAR",
  "GONDOLA", "FUNICULAR", "MONORAIL", "TROLLEYBUS", "COACH", "TAXI", "WALK",
  "BICYCLE", "CAR", "OTHER",
}};

static_assert(static_cast<std::size_t>(transit_mode::other) + 1
                == mode_names.size(),
              "mode_names must cover every transit_mode");

} // namespace

const std::vector<transit_mode>& all_transit_modes() {
  static const std::vector<transit_mode> modes = [] {
    std::vector<transit_mode> result;
    for (std::size_t i = 0; i < mode_names.size(); ++i)
      result.push_back(static_cast<transit_mode>(i));
    return result;
  }();
  return modes;
}

std::string_view to_string(transit_mode mode) noexcept {
  auto index = static_cast<std::size_t>(mode);
  return index < mode_names.size() ? mode_names[index] : "OTHER";
}

std::optional<transit_mode> parse_transit_mode(std::string_view text) {
  for (std::size_t i = 0; i < mode_names.size(); ++i)
    if (mode_names[i] == text)
      return static_cast<transit_mode>(i);
  return std::nullopt;
}

std::string colour_hex(std::string_view text) {
  bool ok = text.size() == 6
            && std::all_of(text.begin(), text.end(), [](char c) {
                 return std::isxdigit(static_cast<unsigned char>(c)) != 0;
               });
  return ok ? std::string{text} : std::string{};
}

double distance_m(const coordinate& a, const coordinate& b) {
  constexpr double r = 6371000.0;
  constexpr double rad = 3.14159265358979323846 / 180.0;
  auto dlat = (b.lat - a.lat) * rad;
  auto dlon = (b.lon - a.lon) * rad;
  auto h = std::sin(dlat / 2) * std::sin(dlat / 2)
           + std::cos(a.lat * rad) * std::cos(b.lat * rad)
               * std::sin(dlon / 2) * std::sin(dlon / 2);
  return 2 * r * std::asin(std::min(1.0, std::sqrt(h)));
}

bool region::contains(const coordinate& p) const {
  return p.lat >= min_lat && p.lat <= max_lat && p.lon >= min_lon
         && p.lon <= max_lon;
}

std::optional<failure> validate_coordinate(const coordinate& c,
                                           std::string_view field) {
  auto name = std::string{field};
  if (auto bad = check_range(name + ".lat", c.lat, latitude_range))
    return bad;
  return check_range(name + ".lon", c.lon, longitude_range);
}

} // namespace transitd
