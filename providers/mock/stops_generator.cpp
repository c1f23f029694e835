#include "transitd/providers/mock/stops_generator.hpp"

#include <algorithm>
#include <array>
#include <cmath>

#include "transitd/providers/mock/departures_generator.hpp"

namespace json = boost::json;

namespace transitd::mock {

namespace {

constexpr std::array<const char*, 12> names{{
  "Kamppi", "Rautatientori", "Kaivopuisto", "Pasila", "Sörnäinen",
  "Hakaniemi", "Tikkurila", "Latokaski", "Ooppera", "Lasipalatsi",
  "Simonkatu", "Töölön tulli",
}};

constexpr std::array<const char*, 5> modes{{"BUS", "TRAM", "SUBWAY", "RAIL",
                                            "FERRY"}};

constexpr double earth_radius_m = 6371000.0;
constexpr double pi = 3.14159265358979323846;

} // namespace

json::object generate_nearest(const nearest_query& query) {
  // Anchor the stops to a ~100 m grid cell so that nearby queries agree.
  auto cell = std::to_string(std::lround(query.lat * 1000)) + ","
              + std::to_string(std::lround(query.lon * 1000));
  auto seed = stable_hash(cell);
  json::array edges;
  for (int i = 0; i < 40; ++i) {
    auto h = stable_hash(std::to_string(i), seed);
    int distance = 40 + i * 70;
    double bearing = static_cast<double>(h % 360) * pi / 180.0;
    double dlat = distance * std::cos(bearing) / earth_radius_m * 180.0 / pi;
    double dlon = distance * std::sin(bearing)
                  / (earth_radius_m * std::cos(query.lat * pi / 180.0))
                  * 180.0 / pi;
    std::string mode = modes[(h >> 9) % modes.size()];
    if (distance > query.max_distance)
      break;
    if (!query.modes.empty()
        && std::find(query.modes.begin(), query.modes.end(), mode)
             == query.modes.end())
      continue;
    std::string name = names[(h >> 17) % names.size()];
    name += i % 2 == 0 ? "" : (query.language == "sv" ? " (norr)" : " (P)");
    json::array routes{json::object{{"mode", mode}}};
    if ((h >> 5) % 3 == 0 && mode != "BUS")
      routes.push_back(json::object{{"mode", "BUS"}});
    json::object place{
      {"gtfsId", "HSL:" + std::to_string(1000000 + (h % 9000000))},
      {"name", name},
      {"lat", query.lat + dlat},
      {"lon", query.lon + dlon},
      {"vehicleMode", mode},
      {"routes", std::move(routes)}};
    edges.push_back(json::object{
      {"node", json::object{{"distance", distance}, {"place", std::move(place)}}}});
    if (static_cast<int32_t>(edges.size()) >= query.max_results)
      break;
  }
  return json::object{
    {"data",
     json::object{{"nearest", json::object{{"edges", std::move(edges)}}}}}};
}

} // namespace transitd::mock
