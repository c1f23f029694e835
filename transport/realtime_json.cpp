#include "transitd/transport/realtime_json.hpp"

#include <cmath>

#include "transitd/transport/departures_json.hpp"
#include "transitd/transport/json_text.hpp"
#include "transitd/transport/stops_json.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

const field& vehicle_positions_input() {
  static const auto input = field::object(
    {}, {field::string("route", "a line as departures show it (\"L1\") or a "
                                "route id NAME:route_id")
           .length(vehicles_route_length),
         coordinate_field("near", "vehicles within radius of this point"),
         field::integer("radius", vehicles_radius, "meters around near"),
         field::integer("limit", vehicles_limit,
                        "vehicles returned at most (nearest first with "
                        "near)")});
  return input;
}

const field& service_alerts_input() {
  static const auto input = field::object(
    {}, {field::string("stop", "a stop id (NAME:stop_id for a feed): alerts "
                               "about it, its station and its routes")
           .length(alerts_id_length),
         field::string("route", "a route id (NAME:route_id) or a line "
                                "(\"L1\")")
           .length(alerts_id_length),
         field::string("trip", "a trip id (NAME:trip_id for a feed): alerts "
                               "about it, its route and its agency")
           .length(alerts_id_length),
         field::string("feed", "a --gtfs feed's name: all its alerts")
           .length(alerts_id_length),
         coordinate_field("near", "all alerts of the region holding this "
                                  "point"),
         field::string("when", "\"now\" or ISO 8601 (without an offset: "
                               "local time of the place): the alerts in "
                               "force then")
           .fallback("now"),
         language_field("language of the header and description, when "
                        "the provider has it (else English, else what "
                        "there is)"),
         field::integer("limit", alerts_limit, "alerts returned at most, "
                                               "most severe first")});
  return input;
}

/// Plain decimals at sensible precision: 5 places for degrees, 1 for a
/// bearing, speed in km/h with 1.
double rounded(double v, int places) {
  auto scale = std::pow(10.0, places);
  return std::round(v * scale) / scale;
}

} // namespace

tool_spec vehicle_positions_spec() {
  tool_spec spec;
  spec.name = "vehicle_positions";
  spec.title = "Where vehicles are now";
  spec.description
    = "Vehicles of a line, or near a point, from the provider's realtime "
      "positions: route, trip, headsign, position, bearing, speed, current "
      "stop and status, and how old each report is. Give route, near, or "
      "both.";
  spec.regional = true;
  spec.requires = {"vehicles"};
  spec.input = vehicle_positions_input();
  json::object vehicle;
  vehicle["vehicleId"] = schema_string();
  vehicle["label"] = schema_string();
  vehicle["routeId"] = schema_string();
  vehicle["line"] = schema_string();
  vehicle["mode"] = schema_enum(transit_mode_names());
  vehicle["tripId"] = schema_string();
  vehicle["headsign"] = schema_string();
  vehicle["coordinate"] = schema_coordinate();
  vehicle["bearing"] = schema_number("degrees clockwise from north");
  vehicle["speedKmh"] = schema_number();
  vehicle["currentStop"] = schema_object(
    json::object{{"id", schema_string()}, {"name", schema_string()}},
    {"id", "name"});
  vehicle["status"]
    = schema_enum({"incoming_at", "stopped_at", "in_transit_to"});
  vehicle["reportedAt"] = schema_string("ISO 8601");
  vehicle["ageSeconds"] = json::object{{"type", "integer"}, {"minimum", 0}};
  vehicle["distance"] = json::object{{"type", "integer"},
                                     {"minimum", 0},
                                     {"description", "meters from near"}};
  json::object output;
  output["vehicles"] = schema_array(schema_object(
    std::move(vehicle),
    {"vehicleId", "coordinate", "status", "reportedAt", "ageSeconds"}));
  output["dataFreshness"] = schema_string("ISO 8601 (UTC)");
  output["correlationId"] = schema_string();
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(
    std::move(output), {"vehicles", "dataFreshness", "correlationId"});
  return spec;
}

outcome<vehicle_positions_request>
parse_vehicle_positions(const json::object& raw) {
  auto args = arguments::check(vehicle_positions_input(), raw);
  if (!args)
    return args.error();
  vehicle_positions_request request;
  request.route = args->string("route").value_or("");
  request.near = read_coordinate(*args, "near");
  request.radius = args->integer("radius").value_or(vehicles_radius.fallback);
  request.limit = args->integer("limit").value_or(vehicles_limit.fallback);
  return request;
}

json::object to_json(const vehicle_positions_reply& reply) {
  json::array vehicles;
  for (const auto& v : reply.vehicles) {
    const auto& r = v.report;
    json::object item{
      {"vehicleId", r.vehicle_id},
      {"coordinate",
       coordinate_json(rounded(r.position.lat, 5), rounded(r.position.lon, 5))},
      {"status", r.status},
      {"reportedAt", v.reported_at},
      {"ageSeconds", v.age_seconds}};
    if (!r.label.empty())
      item["label"] = r.label;
    if (!r.route_id.empty()) {
      item["routeId"] = r.route_id;
      item["line"] = r.line;
      item["mode"] = to_string(r.mode);
    }
    if (!r.trip_id.empty())
      item["tripId"] = r.trip_id;
    if (!r.headsign.empty())
      item["headsign"] = r.headsign;
    if (r.bearing)
      item["bearing"] = rounded(*r.bearing, 1);
    if (r.speed_mps)
      item["speedKmh"] = rounded(*r.speed_mps * 3.6, 1);
    if (!r.stop_id.empty())
      item["currentStop"] = json::object{{"id", r.stop_id},
                                         {"name", r.stop_name}};
    if (r.distance)
      item["distance"] = *r.distance;
    vehicles.push_back(std::move(item));
  }
  json::object out{{"vehicles", std::move(vehicles)},
                   {"dataFreshness", reply.data_freshness},
                   {"correlationId", reply.correlation_id}};
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

tool_spec service_alerts_spec() {
  tool_spec spec;
  spec.name = "service_alerts";
  spec.title = "Disruptions in force";
  spec.description
    = "Service alerts in force now (or at a given time) for a stop, a "
      "route, a trip, or a whole feed or region: header and description in the "
      "requested language, cause, effect, severity, active periods and "
      "the stops, routes and trips affected, by name. Most severe first.";
  spec.regional = true;
  spec.requires = {"alerts"};
  spec.input = service_alerts_input();
  json::object alert;
  alert["id"] = schema_string();
  alert["header"] = schema_string();
  alert["description"] = schema_string();
  alert["url"] = schema_string();
  alert["language"] = schema_string("the texts' language; empty: untagged");
  alert["cause"] = schema_string("e.g. technical-problem, strike, weather");
  alert["effect"] = schema_string("e.g. no-service, reduced-service, "
                                  "significant-delays, detour");
  alert["severity"] = schema_enum({"severe", "warning", "info",
                                   "unknown-severity"});
  alert["activePeriods"] = schema_array(schema_object(
    json::object{{"start", schema_string("ISO 8601; absent: open")},
                 {"end", schema_string("ISO 8601; absent: open")}},
    {}));
  alert["affected"] = schema_array(schema_object(
    json::object{{"type", schema_enum({"agency", "route", "route-type",
                                       "stop", "trip"})},
                 {"id", schema_string()},
                 {"name", schema_string()}},
    {"type"}));
  json::object output;
  output["alerts"] = schema_array(schema_object(
    std::move(alert), {"id", "header", "cause", "effect", "severity",
                       "activePeriods", "affected"}));
  output["at"] = schema_string("the instant asked about, ISO 8601");
  output["correlationId"] = schema_string();
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(std::move(output),
                                     {"alerts", "at", "correlationId"});
  return spec;
}

outcome<service_alerts_request>
parse_service_alerts(const json::object& raw) {
  auto args = arguments::check(service_alerts_input(), raw);
  if (!args)
    return args.error();
  service_alerts_request request;
  request.stop = args->string("stop").value_or("");
  request.route = args->string("route").value_or("");
  request.trip = args->string("trip").value_or("");
  request.feed = args->string("feed").value_or("");
  request.near = read_coordinate(*args, "near");
  request.when = args->string("when").value_or("now");
  request.language = args->string("language").value_or(request.language);
  request.limit = args->integer("limit").value_or(alerts_limit.fallback);
  return request;
}

json::object to_json(const service_alerts_reply& reply) {
  json::array alerts;
  for (const auto& entry : reply.alerts) {
    const auto& a = entry.alert;
    json::array periods;
    for (const auto& w : entry.windows) {
      json::object p;
      if (!w.start.empty())
        p["start"] = w.start;
      if (!w.end.empty())
        p["end"] = w.end;
      periods.push_back(std::move(p));
    }
    json::array affected;
    for (const auto& s : a.subjects) {
      json::object item{{"type", s.type}};
      if (!s.id.empty())
        item["id"] = s.id;
      if (!s.name.empty())
        item["name"] = s.name;
      affected.push_back(std::move(item));
    }
    json::object item{{"id", a.id},
                      {"header", a.header},
                      {"cause", a.cause},
                      {"effect", a.effect},
                      {"severity", a.severity},
                      {"activePeriods", std::move(periods)},
                      {"affected", std::move(affected)}};
    if (!a.description.empty())
      item["description"] = a.description;
    if (!a.url.empty())
      item["url"] = a.url;
    if (!a.language.empty())
      item["language"] = a.language;
    alerts.push_back(std::move(item));
  }
  json::object out{{"alerts", std::move(alerts)},
                   {"at", reply.at},
                   {"correlationId", reply.correlation_id}};
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

} // namespace transitd::mcp
