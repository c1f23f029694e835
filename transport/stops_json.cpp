#include "transitd/transport/stops_json.hpp"

#include "transitd/transport/departures_json.hpp"

#include "transitd/transport/json_text.hpp"

namespace json = boost::json;

namespace transitd::mcp {

json::object schema_coordinate(std::string description) {
  auto out = coordinate_field("coordinate").schema();
  if (!description.empty())
    out["description"] = description;
  return out;
}

field coordinate_field(std::string name, std::string description) {
  return field::object(
    std::move(name),
    {field::number("lat", latitude_range, "latitude").required(),
     field::number("lon", longitude_range, "longitude").required()},
    std::move(description));
}

std::optional<coordinate> read_coordinate(const arguments& args,
                                          std::string_view name) {
  auto object = args.object(name);
  if (!object)
    return std::nullopt;
  return coordinate{*object->number("lat"), *object->number("lon")};
}

field language_field(std::string description) {
  return field::string("language",
                       description.empty()
                         ? std::string{"a language tag: fi, sv or en in the "
                                       "Helsinki region; on a GTFS feed any "
                                       "it has (absent: the feed's own)"}
                         : std::move(description)
                             + " (a language tag: fi, sv or en in the "
                               "Helsinki region; on a GTFS feed any it has, "
                               "absent: the feed's own)")
    .length(language_tag_length);
}

field modes_field(std::string name, std::string description) {
  return field::array(std::move(name),
                      field::choice("mode", transit_mode_names()),
                      std::move(description));
}

namespace {

const field& find_stops_input() {
  static const auto input = field::object(
    {}, {coordinate_field("coordinate", "the search center").required(),
         field::integer("radius", stops_radius, "meters"),
         field::integer("maxResults", stops_max_results,
                        "more than 25 are cut with a warning"),
         field::string("textFilter",
                       "case-insensitive substring of the stop name")
           .length(stops_text_filter),
         language_field(),
         modes_field("includeModes", "only stops serving one of these")});
  return input;
}

} // namespace

tool_spec find_stops_spec() {
  tool_spec spec;
  spec.name = "find_stops";
  spec.title = "Stops near a point";
  spec.description
    = "Public transport stops near a coordinate, nearest first, with their "
      "modes. At most 25 are returned; textFilter narrows by name.";
  spec.regional = true;
  spec.input = find_stops_input();
  json::object stop;
  stop["id"] = schema_string();
  stop["name"] = schema_string();
  stop["coordinate"] = schema_coordinate();
  stop["distance"] = json::object{{"type", "integer"}, {"minimum", 0},
                                  {"description", "walking meters"}};
  stop["modes"] = schema_array(schema_enum(transit_mode_names()));
  stop["modes"].as_object()["minItems"] = 1;
  stop["address"] = schema_string();
  stop["platforms"] = schema_array(schema_string());
  stop["platforms"].as_object()["description"]
    = "a station's platforms (the station's id covers them all)";
  stop["lines"] = schema_array(schema_string());
  stop["lines"].as_object()["description"] = "lines calling here, by name";
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

std::vector<transit_mode> read_modes(const arguments& args,
                                     std::string_view name) {
  std::vector<transit_mode> modes;
  for (const auto& text : args.strings(name))
    if (auto mode = parse_transit_mode(text))
      modes.push_back(*mode);
  return modes;
}

outcome<find_stops_request> parse_find_stops(const json::object& raw) {
  auto args = arguments::check(find_stops_input(), raw);
  if (!args)
    return args.error();
  find_stops_request request;
  request.center = *read_coordinate(*args, "coordinate");
  request.radius = args->integer("radius").value_or(stops_radius.fallback);
  request.max_results
    = args->integer("maxResults").value_or(stops_max_results.fallback);
  request.text_filter = args->string("textFilter");
  request.language = args->string("language").value_or(request.language);
  request.include_modes = read_modes(*args, "includeModes");
  return request;
}

namespace {

} // namespace

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
    if (!s.platforms.empty())
      item["platforms"] = string_array(s.platforms);
    if (!s.lines.empty())
      item["lines"] = string_array(s.lines);
    stops.push_back(std::move(item));
  }
  json::object out{{"stops", std::move(stops)},
                   {"correlationId", reply.correlation_id}};
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

} // namespace transitd::mcp
