#include "transitd/transport/geocode_json.hpp"

#include "transitd/transport/departures_json.hpp"
#include "transitd/transport/stops_json.hpp"

#include "transitd/transport/json_text.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

const field& geocode_address_input() {
  static const auto input = field::object(
    {},
    {field::string("text", "what to look for; trimmed")
       .length(geocode_text)
       .trimmed()
       .required(),
     field::integer("size", geocode_size,
                    "results wanted; above 40 is capped at 40"),
     language_field(),
     coordinate_field("focus",
                      "prefer results near here (breaks confidence ties)"),
     field::array("layers", field::string("layer"),
                  "Pelias layers to search, e.g. address, venue, stop")
       .at_most(geocode_max_layers)});
  return input;
}

} // namespace

tool_spec geocode_address_spec() {
  tool_spec spec;
  spec.name = "geocode_address";
  spec.title = "Find places by name or address";
  spec.description
    = "Forward geocoding: candidates for a text, best first, with "
      "coordinates, confidence 0..1 and type (address, poi, stop; a GTFS "
      "feed knows its stop names only). size above 40 is capped at 40.";
  spec.regional = true;
  spec.input = geocode_address_input();
  json::object bbox;
  for (auto key : {"minLon", "maxLon", "minLat", "maxLat"})
    bbox[key] = schema_number();
  json::object result;
  result["name"] = schema_string();
  result["coordinates"] = schema_coordinate();
  result["confidence"] = json::object{{"type", "number"},
                                      {"minimum", 0},
                                      {"maximum", 1}};
  result["type"] = schema_enum({"address", "poi", "stop"});
  result["language"] = schema_string();
  result["label"] = schema_string();
  result["address"] = schema_string();
  result["boundingBox"] = schema_object(
    std::move(bbox), {"minLon", "maxLon", "minLat", "maxLat"});
  json::object output;
  output["query"] = schema_string("the normalised query text");
  output["language"] = schema_string();
  output["results"] = schema_array(
    schema_object(std::move(result),
                  {"name", "coordinates", "confidence", "type"}));
  output["truncated"] = schema_boolean();
  output["warnings"] = schema_warnings();
  output["correlationId"] = schema_string();
  spec.output_schema = schema_object(std::move(output),
                                     {"query", "results", "correlationId"});
  return spec;
}

outcome<geocode_request> parse_geocode_address(const json::object& raw) {
  auto args = arguments::check(geocode_address_input(), raw);
  if (!args)
    return args.error();
  geocode_request request;
  request.text = *args->string("text");
  request.size = args->integer("size").value_or(geocode_size.fallback);
  request.language = args->string("language").value_or(request.language);
  request.focus = read_coordinate(*args, "focus");
  request.layers = args->strings("layers");
  return request;
}

json::object to_json(const geocode_reply& reply) {
  json::array results;
  for (const auto& r : reply.results) {
    json::object item{{"name", r.name},
                      {"coordinates",
                       coordinate_json(r.position.lat, r.position.lon)},
                      {"confidence", decimals(r.confidence, confidence_places)},
                      {"type", to_string(r.type)}};
    if (r.language)
      item["language"] = *r.language;
    if (r.label)
      item["label"] = *r.label;
    if (r.address)
      item["address"] = *r.address;
    if (r.bbox)
      item["boundingBox"] = json::object{
        {"minLon", decimals(r.bbox->min_lon, coordinate_places)},
        {"maxLon", decimals(r.bbox->max_lon, coordinate_places)},
        {"minLat", decimals(r.bbox->min_lat, coordinate_places)},
        {"maxLat", decimals(r.bbox->max_lat, coordinate_places)}};
    results.push_back(std::move(item));
  }
  json::object out{{"query", reply.query},
                   {"language", reply.language},
                   {"results", std::move(results)},
                   {"correlationId", reply.correlation_id}};
  if (reply.truncated)
    out["truncated"] = true;
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

} // namespace transitd::mcp
