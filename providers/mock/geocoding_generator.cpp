#include "transitd/providers/mock/geocoding_generator.hpp"

#include <algorithm>
#include <array>
#include <cctype>

#include "transitd/providers/mock/departures_generator.hpp"

namespace json = boost::json;

namespace transitd::mock {

namespace {

struct layer_shape {
  const char* layer;
  const char* source;
  const char* suffix;
};

constexpr std::array<layer_shape, 4> shapes{{
  {"address", "openstreetmap", "katu"},
  {"venue", "openstreetmap", ""},
  {"stop", "gtfshsl", ""},
  {"street", "openstreetmap", "tie"},
}};

constexpr std::array<const char*, 5> localities{
  {"Helsinki", "Espoo", "Vantaa", "Kauniainen", "Helsinki"}};

std::string capitalised(std::string text) {
  if (!text.empty())
    text[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(text[0])));
  return text;
}

} // namespace

json::object generate_search(const search_query& query) {
  json::object geocoding{
    {"version", "0.2"},
    {"attribution", "http://pelias-api:8080/attribution"},
    {"query", json::object{{"text", query.text},
                           {"size", query.size},
                           {"lang", query.lang},
                           {"private", false}}},
    {"engine", json::object{{"name", "Pelias"},
                            {"author", "Mapzen"},
                            {"version", "1.0"}}},
    {"timestamp", 1715029813550}};
  json::array features;
  auto seed = stable_hash(query.text);
  int matches = query.text.find("zz") != std::string::npos
                  ? 0
                  : 5 + static_cast<int>(seed % 50);
  double min_lon = 180, min_lat = 90, max_lon = -180, max_lat = -90;
  for (int i = 0; i < matches
                  && static_cast<int32_t>(features.size()) < query.size;
       ++i) {
    auto h = stable_hash(std::to_string(i), seed);
    const auto& shape = shapes[h % shapes.size()];
    if (!query.layers.empty()
        && std::find(query.layers.begin(), query.layers.end(), shape.layer)
             == query.layers.end())
      continue;
    // Pairs share a confidence: 1.0, 1.0, 0.95, 0.95, ...
    double confidence = std::max(0.3, 1.0 - 0.05 * (i / 2));
    double lat = 60.15 + static_cast<double>((h >> 8) % 1000) / 10000.0;
    double lon = 24.85 + static_cast<double>((h >> 20) % 2000) / 10000.0;
    std::string locality = localities[(h >> 4) % localities.size()];
    std::string base = capitalised(query.text);
    std::string name = base + shape.suffix;
    json::object props{
      {"id", "node:" + std::to_string(h % 100000000)},
      {"layer", shape.layer},
      {"source", shape.source},
      {"source_id", "node:" + std::to_string(h % 100000000)},
      {"confidence", confidence * query.confidence_scale},
      {"accuracy", "point"},
      {"region", "Uusimaa"},
      {"localadmin", locality},
      {"locality", locality}};
    if (std::string{shape.layer} == "address") {
      auto number = std::to_string(1 + (h >> 12) % 40);
      props["street"] = name;
      props["housenumber"] = number;
      props["postalcode"] = "00" + std::to_string(100 + (h >> 16) % 900);
      name += " " + number;
    }
    props["gid"] = std::string{shape.source} + ":" + shape.layer + ":"
                   + props["id"].as_string().c_str();
    props["name"] = name;
    props["label"] = name + ", " + locality;
    features.push_back(json::object{
      {"type", "Feature"},
      {"geometry", json::object{{"type", "Point"},
                                {"coordinates", json::array{lon, lat}}}},
      {"properties", std::move(props)}});
    min_lon = std::min(min_lon, lon);
    max_lon = std::max(max_lon, lon);
    min_lat = std::min(min_lat, lat);
    max_lat = std::max(max_lat, lat);
  }
  json::object out{{"geocoding", std::move(geocoding)},
                   {"type", "FeatureCollection"},
                   {"features", std::move(features)}};
  if (!out["features"].as_array().empty())
    out["bbox"] = json::array{min_lon, min_lat, max_lon, max_lat};
  return out;
}

} // namespace transitd::mock
