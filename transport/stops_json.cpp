#include "transport/stops_json.hpp"

#include <algorithm>
#include <climits>

#include "transport/departures_json.hpp"

#include "transport/json_text.hpp"

namespace json = boost::json;

namespace transitd::mcp {

json::object schema_coordinate(std::string description) {
  json::object props;
  props["lat"] = schema_number("latitude, -90..90");
  props["lat"].as_object()["minimum"] = -90;
  props["lat"].as_object()["maximum"] = 90;
  props["lon"] = schema_number("longitude, -180..180");
  props["lon"].as_object()["minimum"] = -180;
  props["lon"].as_object()["maximum"] = 180;
  auto out = schema_object(std::move(props), {"lat", "lon"});
  if (!description.empty())
    out["description"] = description;
  return out;
}

std::optional<coordinate> read_coordinate(argument_reader& args,
                                          std::string_view name,
                                          bool required) {
  const auto* object = args.object(name, required);
  if (object == nullptr)
    return std::nullopt;
  argument_reader fields{*object, args.field(name)};
  auto lat = fields.number("lat", true);
  auto lon = fields.number("lon", true);
  if (auto problem = fields.finish()) {
    args.fail(problem->message);
    return std::nullopt;
  }
  return coordinate{*lat, *lon};
}

tool_spec find_stops_spec() {
  tool_spec spec;
  spec.name = "find_stops";
  spec.title = "Stops near a point";
  spec.description
    = "Public transport stops near a coordinate in the Helsinki region "
      "(Digitransit), nearest first, with their modes. At most 25 are "
      "returned; textFilter narrows by name.";
  json::object input;
  input["coordinate"] = schema_coordinate("the search center");
  input["radius"] = schema_integer(1, 3000, 300, "meters");
  input["maxResults"] = schema_integer(1, 50, 10,
                                       "more than 25 are cut with a warning");
  input["textFilter"] = schema_string("case-insensitive substring of the "
                                      "stop name");
  input["language"] = schema_enum({"fi", "sv", "en"});
  input["language"].as_object()["default"] = "en";
  input["includeModes"] = schema_array(schema_enum(transit_mode_names()),
                                       "only stops serving one of these");
  spec.input_schema = schema_object(std::move(input), {"coordinate"});
  json::object stop;
  stop["id"] = schema_string();
  stop["name"] = schema_string();
  stop["coordinate"] = schema_coordinate();
  stop["distance"] = json::object{{"type", "integer"}, {"minimum", 0},
                                  {"description", "walking meters"}};
  stop["modes"] = schema_array(schema_enum(transit_mode_names()));
  stop["modes"].as_object()["minItems"] = 1;
  stop["address"] = schema_string();
  json::object output;
  output["stops"] = schema_array(
    schema_object(std::move(stop),
                  {"id", "name", "coordinate", "distance", "modes"}));
  output["correlationId"] = schema_string();
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(std::move(output),
                                     {"stops", "correlationId"});
  return spec;
}

outcome<find_stops_request> parse_find_stops(const json::object& arguments) {
  find_stops_request request;
  argument_reader args{arguments};
  auto center = read_coordinate(args, "coordinate", true);
  auto radius = args.integer("radius", false);
  auto max_results = args.integer("maxResults", false);
  request.text_filter = args.string("textFilter", false);
  auto language = args.string("language", false);
  if (const auto* modes = args.array("includeModes", false)) {
    for (const auto& item : *modes) {
      auto mode = item.is_string() ? parse_transit_mode(item.get_string())
                                   : std::nullopt;
      if (!mode) {
        args.fail("field \"includeModes\" has an unknown mode "
                  + json::serialize(item) + " (use BUS, TRAM, RAIL, ...)");
        break;
      }
      request.include_modes.push_back(*mode);
    }
  }
  if (auto problem = args.finish())
    return *problem;
  auto clamp32 = [](int64_t v) {
    return static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX));
  };
  request.center = *center;
  if (radius)
    request.radius = clamp32(*radius);
  if (max_results)
    request.max_results = clamp32(*max_results);
  if (language)
    request.language = *language;
  return request;
}

json::object to_json(const find_stops_reply& reply) {
  json::array stops;
  for (const auto& s : reply.stops) {
    json::array modes;
    for (auto m : s.modes)
      modes.emplace_back(to_string(m));
    json::object item{{"id", s.id},
                      {"name", s.name},
                      {"coordinate", coordinate_json(s.position.lat, s.position.lon)},
                      {"distance", s.distance},
                      {"modes", std::move(modes)}};
    if (s.address)
      item["address"] = *s.address;
    stops.push_back(std::move(item));
  }
  json::object out{{"stops", std::move(stops)},
                   {"correlationId", reply.correlation_id}};
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

} // namespace transitd::mcp
