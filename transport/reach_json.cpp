#include "transitd/transport/reach_json.hpp"

#include "transitd/messages/time.hpp"
#include "transitd/transport/departures_json.hpp"
#include "transitd/transport/json_text.hpp"
#include "transitd/transport/plan_json.hpp"
#include "transitd/transport/stops_json.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

const field& reachable_input() {
  static const auto input = field::object(
    {},
    {location_field("origin", "where to start: a point, a stop (its "
                              "platforms) or a saved label")
       .required(),
     field::string("when", "\"now\" or ISO 8601 (seconds and offset "
                           "optional; without an offset, local time at "
                           "the origin)")
       .fallback("now"),
     field::integer("maxMinutes", reach_minutes, "the time budget"),
     field::integer("maxWalkingDistance", plan_max_walk,
                    "meters any one walk may take"),
     field::integer("maxTransfers", plan_max_transfers),
     field::integer("limit", reach_limit,
                    "stops listed at most, earliest first (the summary "
                    "counts all)")});
  return input;
}

} // namespace

tool_spec reachable_spec() {
  tool_spec spec;
  spec.name = "reachable";
  spec.title = "Where can I get to in N minutes";
  spec.description
    = "Every station reachable from a point, a stop or a saved place, "
      "leaving at a time, within maxMinutes (default 30): the earliest "
      "arrival and the rides needed for each, earliest first, and a summary "
      "of how many stations, which lines and modes are in reach. Walking "
      "as in plan_trip.";
  spec.regional = true;
  spec.requires = {"reach"};
  spec.input = reachable_input();
  json::object stop;
  stop["stopId"] = schema_string();
  stop["name"] = schema_string();
  stop["coordinate"] = schema_coordinate();
  stop["arrival"] = schema_string("ISO 8601");
  stop["minutes"] = json::object{{"type", "integer"}, {"minimum", 0}};
  stop["rides"] = json::object{{"type", "integer"},
                               {"minimum", 0},
                               {"description", "vehicles; 0: on foot"}};
  stop["lines"] = schema_array(schema_string());
  json::object summary;
  summary["stations"] = json::object{{"type", "integer"}, {"minimum", 0}};
  summary["lines"] = schema_array(schema_string());
  summary["modes"] = schema_array(schema_enum(transit_mode_names()));
  json::object output;
  output["origin"] = location_ref_schema();
  output["requested"] = schema_string("ISO 8601: the departure used");
  output["maxMinutes"] = json::object{{"type", "integer"}};
  output["summary"] = schema_object(std::move(summary),
                                    {"stations", "lines", "modes"});
  output["stops"] = schema_array(schema_object(
    std::move(stop),
    {"stopId", "name", "coordinate", "arrival", "minutes", "rides"}));
  output["dataFreshness"] = schema_string("ISO 8601 (UTC)");
  output["correlationId"] = schema_string();
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(
    std::move(output), {"origin", "requested", "maxMinutes", "summary",
                        "stops", "dataFreshness", "correlationId"});
  return spec;
}

outcome<reachable_request> parse_reachable(const json::object& raw) {
  auto args = arguments::check(reachable_input(), raw);
  if (!args)
    return args.error();
  reachable_request request;
  request.origin = read_location(*args, "origin");
  request.when = args->string("when").value_or("now");
  request.max_minutes
    = args->integer("maxMinutes").value_or(reach_minutes.fallback);
  request.max_walking_distance
    = args->integer("maxWalkingDistance").value_or(plan_max_walk.fallback);
  request.max_transfers
    = args->integer("maxTransfers").value_or(plan_max_transfers.fallback);
  request.limit = args->integer("limit").value_or(reach_limit.fallback);
  return request;
}

json::object to_json(const reachable_reply& reply) {
  const auto& r = reply.result;
  json::array stops;
  for (const auto& s : r.stops) {
    json::object item{
      {"stopId", s.stop_id},
      {"name", s.name},
      {"coordinate", coordinate_json(s.position.lat, s.position.lon)},
      {"arrival", format_in_zone(s.arrival, r.timezone)},
      {"minutes", (s.arrival - r.time) / 60},
      {"rides", s.rides}};
    if (!s.lines.empty())
      item["lines"] = string_array(s.lines);
    stops.push_back(std::move(item));
  }
  json::array modes;
  for (auto m : r.modes)
    modes.emplace_back(to_string(m));
  json::object out{
    {"origin", location_ref_json(reply.origin)},
    {"requested", reply.requested_time},
    {"maxMinutes", reply.max_minutes},
    {"summary", json::object{{"stations", r.total},
                             {"lines", string_array(r.lines)},
                             {"modes", std::move(modes)}}},
    {"stops", std::move(stops)},
    {"dataFreshness", reply.data_freshness},
    {"correlationId", reply.correlation_id}};
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

} // namespace transitd::mcp
