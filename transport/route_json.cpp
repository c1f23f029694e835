#include "transitd/transport/route_json.hpp"

#include <cmath>

#include "transitd/messages/time.hpp"
#include "transitd/transport/departures_json.hpp"
#include "transitd/transport/json_text.hpp"
#include "transitd/transport/stops_json.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

const field& get_route_input() {
  static const auto input = field::object(
    {}, {field::string("route", "a line as riders name it (\"7\", \"Q\", "
                                "\"550\") or a route id NAME:route_id")
           .length(route_name_length),
         field::string("stop", "a stop or station id: with route, the feed "
                               "to look in; alone, the lines serving it and "
                               "the stations joined to it")
           .length(route_name_length),
         coordinate_field("near", "a point in the line's area (which feed)"),
         language_field()});
  return input;
}

const field& line_status_input() {
  static const auto input = field::object(
    {}, {field::string("route", "one line (\"7\") or route id; absent: "
                                "every line")
           .length(route_name_length),
         field::string("feed", "a feed served here (its lines), or \"tfl\" "
                                "for London's")
           .length(route_name_length),
         coordinate_field("near", "a point in the feed's area"),
         language_field("language of the alert texts, when the feed "
                        "has it")});
  return input;
}

json::object stop_json(const line_stop& s) {
  return {{"stopId", s.stop_id},
          {"name", s.name},
          {"coordinate", coordinate_json(s.position.lat, s.position.lon)}};
}

} // namespace

tool_spec get_route_spec() {
  tool_spec spec;
  spec.name = "get_route";
  spec.title = "A line, or the lines at a stop";
  spec.description
    = "A line by its public name (\"7\", \"Q\") or route id: its stops in "
      "order per direction, headsigns, the day's first and last departure "
      "and the headway now. With only a stop: the lines serving it and the "
      "stations joined to it as one complex (transfers).";
  spec.regional = true;
  spec.requires = {"trips"};
  spec.input = get_route_input();
  json::object stop{{"stopId", schema_string()},
                    {"name", schema_string()},
                    {"coordinate", schema_coordinate()}};
  json::object direction;
  direction["direction"] = json::object{{"type", "integer"}};
  direction["headsigns"] = schema_array(schema_string());
  direction["stops"] = schema_array(
    schema_object(stop, {"stopId", "name", "coordinate"}));
  direction["firstDeparture"] = schema_string("ISO 8601");
  direction["lastDeparture"] = schema_string("ISO 8601");
  direction["headwayMinutes"] = schema_number("around now");
  direction["tripsToday"] = json::object{{"type", "integer"}};
  json::object line;
  line["routeId"] = schema_string();
  line["line"] = schema_string();
  line["longName"] = schema_string();
  line["mode"] = schema_enum(transit_mode_names());
  line["color"] = schema_string("RRGGBB");
  line["textColor"] = schema_string("RRGGBB");
  line["atStop"] = schema_string("where it calls in the complex");
  line["directions"] = schema_array(
    schema_object(std::move(direction), {"direction", "headsigns", "stops"}));
  json::object output;
  output["lines"] = schema_array(
    schema_object(std::move(line), {"routeId", "line", "mode"}));
  output["complex"] = schema_array(
    schema_object(std::move(stop), {"stopId", "name", "coordinate"}));
  output["serviceDate"] = schema_string("YYYY-MM-DD");
  output["timezone"] = schema_string();
  output["correlationId"] = schema_string();
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(
    std::move(output), {"lines", "serviceDate", "correlationId"});
  return spec;
}

outcome<get_route_request> parse_get_route(const json::object& raw) {
  auto args = arguments::check(get_route_input(), raw);
  if (!args)
    return args.error();
  get_route_request request;
  request.route = args->string("route").value_or("");
  request.stop = args->string("stop").value_or("");
  request.near = read_coordinate(*args, "near");
  request.language = args->string("language").value_or(request.language);
  return request;
}

json::object to_json(const get_route_reply& reply) {
  const auto& d = reply.details;
  json::array lines;
  for (const auto& l : d.lines) {
    json::object item{{"routeId", l.route_id},
                      {"line", l.line},
                      {"mode", to_string(l.mode)}};
    if (!l.long_name.empty() && l.long_name != l.line)
      item["longName"] = l.long_name;
    if (!l.color.empty())
      item["color"] = l.color;
    if (!l.text_color.empty())
      item["textColor"] = l.text_color;
    if (!l.at_stop.empty())
      item["atStop"] = l.at_stop;
    if (!l.directions.empty()) {
      json::array directions;
      for (const auto& dir : l.directions) {
        json::array stops;
        for (const auto& s : dir.stops)
          stops.push_back(stop_json(s));
        json::object o{{"direction", dir.direction},
                       {"headsigns", string_array(dir.headsigns)},
                       {"stops", std::move(stops)}};
        if (dir.trips_today >= 0)
          o["tripsToday"] = dir.trips_today;
        if (dir.first_departure > 0) {
          o["firstDeparture"] = format_in_zone(dir.first_departure, d.timezone);
          o["lastDeparture"] = format_in_zone(dir.last_departure, d.timezone);
        }
        if (dir.headway_minutes > 0)
          o["headwayMinutes"] = std::round(dir.headway_minutes * 10) / 10;
        directions.push_back(std::move(o));
      }
      item["directions"] = std::move(directions);
    }
    lines.push_back(std::move(item));
  }
  json::object out{{"lines", std::move(lines)},
                   {"serviceDate", d.service_date},
                   {"correlationId", reply.correlation_id}};
  if (!d.complex.empty()) {
    json::array complex;
    for (const auto& s : d.complex)
      complex.push_back(stop_json(s));
    out["complex"] = std::move(complex);
  }
  if (!d.timezone.empty())
    out["timezone"] = d.timezone;
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

tool_spec line_status_spec() {
  tool_spec spec;
  spec.name = "line_status";
  spec.title = "How the lines are running";
  spec.description
    = "Each line's status now: good-service, minor-delays, severe-delays, "
      "part-suspended, suspended or planned-works, with the reasons (alerts "
      "in force, cancelled trips, delays; TfL's own status in London). "
      "Worst first. Give a line, a feed (\"tfl\" for London), or a point.";
  spec.regional = true;
  spec.requires = {"lines"};
  spec.input = line_status_input();
  std::vector<std::string> statuses;
  for (auto s : line_statuses)
    statuses.emplace_back(s);
  json::object reason{{"kind", schema_enum({"alert", "cancellations",
                                            "delays", "status"})},
                      {"text", schema_string()},
                      {"alertId", schema_string()},
                      {"status", schema_enum(statuses)}};
  json::object line;
  line["routeId"] = schema_string();
  line["line"] = schema_string();
  line["mode"] = schema_enum(transit_mode_names());
  line["color"] = schema_string("RRGGBB");
  line["status"] = schema_enum(statuses);
  line["reasons"] = schema_array(
    schema_object(std::move(reason), {"kind", "text", "status"}));
  json::object output;
  output["lines"] = schema_array(
    schema_object(std::move(line), {"routeId", "line", "mode", "status"}));
  output["realtimeUsed"] = schema_boolean("alerts and trip updates judged");
  output["dataFreshness"] = schema_string("ISO 8601 (UTC)");
  output["correlationId"] = schema_string();
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(
    std::move(output),
    {"lines", "realtimeUsed", "dataFreshness", "correlationId"});
  return spec;
}

outcome<line_status_request> parse_line_status(const json::object& raw) {
  auto args = arguments::check(line_status_input(), raw);
  if (!args)
    return args.error();
  line_status_request request;
  request.route = args->string("route").value_or("");
  request.feed = args->string("feed").value_or("");
  request.near = read_coordinate(*args, "near");
  request.language = args->string("language").value_or(request.language);
  return request;
}

json::object to_json(const line_status_reply& reply) {
  json::array lines;
  for (const auto& l : reply.result.lines) {
    json::object item{{"routeId", l.route_id},
                      {"line", l.line},
                      {"mode", to_string(l.mode)},
                      {"status", l.status}};
    if (!l.color.empty())
      item["color"] = l.color;
    if (!l.reasons.empty()) {
      json::array reasons;
      for (const auto& r : l.reasons) {
        json::object o{{"kind", r.kind}, {"text", r.text},
                       {"status", r.status}};
        if (!r.alert_id.empty())
          o["alertId"] = r.alert_id;
        reasons.push_back(std::move(o));
      }
      item["reasons"] = std::move(reasons);
    }
    lines.push_back(std::move(item));
  }
  json::object out{{"lines", std::move(lines)},
                   {"realtimeUsed", reply.result.realtime},
                   {"dataFreshness", reply.data_freshness},
                   {"correlationId", reply.correlation_id}};
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

} // namespace transitd::mcp
