#include "transitd/providers/digitransit_geocoding.hpp"

#include <boost/json.hpp>

#include "transitd/net/url.hpp"
#include "transitd/providers/upstream_http.hpp"

namespace json = boost::json;

namespace transitd::digitransit {

std::string make_search_target(const geocode_query& query) {
  std::string target = "/search?text=" + url_encode(query.text)
                       + "&size=" + std::to_string(query.size)
                       + "&lang=" + url_encode(query.language);
  if (!query.layers.empty()) {
    std::string layers;
    for (const auto& layer : query.layers) {
      if (!layers.empty())
        layers += ",";
      layers += layer;
    }
    target += "&layers=" + url_encode(layers);
  }
  if (query.focus) {
    char buf[64];
    std::snprintf(buf, sizeof(buf), "%.6f", query.focus->lat);
    target += std::string{"&focus.point.lat="} + buf;
    std::snprintf(buf, sizeof(buf), "%.6f", query.focus->lon);
    target += std::string{"&focus.point.lon="} + buf;
  }
  return target;
}

namespace {

std::optional<double> as_number(const json::value* v) {
  if (v == nullptr)
    return std::nullopt;
  if (v->is_double())
    return v->get_double();
  if (v->is_int64())
    return static_cast<double>(v->get_int64());
  if (v->is_uint64())
    return static_cast<double>(v->get_uint64());
  return std::nullopt;
}

std::optional<std::string> text(const json::object& props,
                                std::string_view key) {
  auto it = props.find(key);
  if (it == props.end() || !it->value().is_string())
    return std::nullopt;
  return std::string{it->value().get_string()};
}

std::optional<bounding_box> read_bbox(const json::object& feature) {
  auto it = feature.find("bbox");
  if (it == feature.end() || !it->value().is_array())
    return std::nullopt;
  const auto& a = it->value().get_array();
  if (a.size() != 4)
    return std::nullopt;
  auto v0 = as_number(&a[0]), v1 = as_number(&a[1]), v2 = as_number(&a[2]),
       v3 = as_number(&a[3]);
  if (!v0 || !v1 || !v2 || !v3)
    return std::nullopt;
  // GeoJSON: [minLon, minLat, maxLon, maxLat].
  return bounding_box{*v0, *v2, *v1, *v3};
}

/// "Lumikintie 4, 00820 Helsinki" from the address parts, when there are.
std::optional<std::string> format_address(const json::object& props) {
  auto street = text(props, "street");
  if (!street)
    return std::nullopt;
  std::string out = *street;
  if (auto number = text(props, "housenumber"))
    out += " " + *number;
  auto postal = text(props, "postalcode");
  auto locality = text(props, "locality");
  if (postal || locality) {
    out += ",";
    if (postal)
      out += " " + *postal;
    if (locality)
      out += " " + *locality;
  }
  return out;
}

} // namespace

outcome<geocode_candidates> parse_search(std::string_view body,
                                         int64_t fetched_ms) {
  json::error_code error;
  auto root = json::parse(body, error);
  if (error)
    return make_failure(ec::upstream_error,
                        "geocoder answered malformed JSON (" + error.message()
                          + ")",
                        "retry later");
  if (!root.is_object())
    return make_failure(ec::upstream_error,
                        "geocoder answer is not a JSON object");
  const auto& obj = root.get_object();
  // Pelias reports problems in geocoding.errors.
  if (auto g = obj.find("geocoding"); g != obj.end() && g->value().is_object()) {
    const auto& geo = g->value().get_object();
    if (auto errs = geo.find("errors");
        errs != geo.end() && errs->value().is_array()
        && !errs->value().get_array().empty()) {
      const auto& first = errs->value().get_array().front();
      std::string message = "geocoder error";
      if (first.is_string())
        message += ": " + sanitize_upstream_text(first.get_string());
      return make_failure(ec::upstream_error, message);
    }
  }
  auto features = obj.find("features");
  if (features == obj.end() || !features->value().is_array())
    return make_failure(ec::upstream_error,
                        "geocoder answer has no features list");
  geocode_candidates result;
  result.fetched_ms = fetched_ms;
  for (const auto& item : features->value().get_array()) {
    if (!item.is_object())
      continue;
    const auto& feature = item.get_object();
    const auto* geometry = feature.if_contains("geometry");
    const auto* props_value = feature.if_contains("properties");
    if (geometry == nullptr || props_value == nullptr
        || !props_value->is_object() || !geometry->is_object())
      continue;
    const auto* coords = geometry->get_object().if_contains("coordinates");
    if (coords == nullptr || !coords->is_array()
        || coords->get_array().size() < 2)
      continue;
    auto lon = as_number(&coords->get_array()[0]);
    auto lat = as_number(&coords->get_array()[1]);
    if (!lon || !lat)
      continue;
    const auto& props = props_value->get_object();
    geocode_candidate c;
    c.position = {*lat, *lon};
    c.label = text(props, "label");
    c.name = text(props, "name").value_or(c.label.value_or(""));
    c.layer = text(props, "layer").value_or("");
    c.confidence = as_number(props.if_contains("confidence")).value_or(0);
    c.address = format_address(props);
    c.bbox = read_bbox(feature);
    result.candidates.push_back(std::move(c));
  }
  return result;
}

} // namespace transitd::digitransit
