#include "transitd/transport/trip_json.hpp"
#include "transitd/util/polyline.hpp"

#include "transitd/messages/time.hpp"
#include "transitd/transport/departures_json.hpp"
#include "transitd/transport/json_text.hpp"
#include "transitd/transport/stops_json.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

const field& get_trip_input() {
  static const auto input = field::object(
    {}, {field::string("tripId", "a trip as get_departures and plan_trip "
                                 "legs give it (NAME:trip_id of a feed)")
           .length(trip_id_length)
           .required(),
         field::string("serviceDate", "YYYY-MM-DD: the day the trip runs "
                                      "(as given with the tripId); absent: "
                                      "its run nearest now"),
         language_field()});
  return input;
}

json::object call_schema() {
  json::object call;
  call["stopId"] = schema_string();
  call["stopName"] = schema_string();
  call["coordinate"] = schema_coordinate();
  call["platform"] = schema_string();
  call["scheduledArrival"] = schema_string("ISO 8601");
  call["scheduledDeparture"] = schema_string("ISO 8601");
  call["realtimeArrival"] = schema_string("ISO 8601");
  call["realtimeDeparture"] = schema_string("ISO 8601");
  call["delaySeconds"] = json::object{{"type", "integer"}};
  call["skipped"] = schema_boolean("the vehicle does not stop here");
  call["noPickup"] = schema_boolean("no boarding here");
  call["noDropOff"] = schema_boolean("no alighting here");
  return schema_object(std::move(call), {"stopId", "stopName", "coordinate",
                                         "scheduledArrival",
                                         "scheduledDeparture"});
}

} // namespace

tool_spec get_trip_spec() {
  tool_spec spec;
  spec.name = "get_trip";
  spec.title = "One trip, stop by stop";
  spec.description
    = "One trip's calls in order: each stop with its scheduled and realtime "
      "times, platform, and whether it is skipped; the trip's state "
      "(scheduled, running, cancelled) and its vehicle's last position "
      "where known. Take tripId and serviceDate from get_departures or a "
      "plan_trip leg.";
  spec.regional = true;
  spec.requires = {"trips"};
  spec.input = get_trip_input();
  json::object vehicle;
  vehicle["vehicleId"] = schema_string();
  vehicle["coordinate"] = schema_coordinate();
  vehicle["status"]
    = schema_enum({"incoming_at", "stopped_at", "in_transit_to"});
  vehicle["currentStop"] = schema_object(
    json::object{{"id", schema_string()}, {"name", schema_string()}},
    {"id", "name"});
  vehicle["reportedAt"] = schema_string("ISO 8601");
  json::object output;
  output["tripId"] = schema_string();
  output["serviceDate"] = schema_string("YYYY-MM-DD");
  output["routeId"] = schema_string();
  output["line"] = schema_string();
  output["mode"] = schema_enum(transit_mode_names());
  output["headsign"] = schema_string();
  output["color"] = schema_string("the line's colour, RRGGBB");
  output["textColor"] = schema_string("text on that colour, RRGGBB");
  output["geometry"] = schema_string(
    "the way the trip takes, as an encoded polyline (precision 5)");
  output["state"] = schema_enum({"scheduled", "running", "cancelled"});
  output["calls"] = schema_array(call_schema());
  output["vehicle"] = schema_object(std::move(vehicle),
                                    {"vehicleId", "coordinate", "reportedAt"});
  output["timezone"] = schema_string("IANA zone of the times");
  output["realtimeUsed"] = schema_boolean();
  output["dataFreshness"] = schema_string("ISO 8601 (UTC)");
  output["correlationId"] = schema_string();
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(
    std::move(output),
    {"tripId", "serviceDate", "line", "mode", "headsign", "state", "calls",
     "realtimeUsed", "dataFreshness", "correlationId"});
  return spec;
}

outcome<get_trip_request> parse_get_trip(const json::object& raw) {
  auto args = arguments::check(get_trip_input(), raw);
  if (!args)
    return args.error();
  get_trip_request request;
  request.trip_id = *args->string("tripId");
  request.service_date = args->string("serviceDate").value_or("");
  request.language = args->string("language").value_or(request.language);
  return request;
}

json::object to_json(const get_trip_reply& reply) {
  const auto& t = reply.trip;
  const auto& zone = t.timezone;
  json::array calls;
  for (const auto& c : t.calls) {
    json::object item{
      {"stopId", c.stop_id},
      {"stopName", c.stop_name},
      {"coordinate", coordinate_json(c.position.lat, c.position.lon)},
      {"scheduledArrival", format_in_zone(c.scheduled_arrival, zone)},
      {"scheduledDeparture", format_in_zone(c.scheduled_departure, zone)}};
    if (c.platform)
      item["platform"] = *c.platform;
    if (c.realtime_arrival)
      item["realtimeArrival"] = format_in_zone(*c.realtime_arrival, zone);
    if (c.realtime_departure) {
      item["realtimeDeparture"] = format_in_zone(*c.realtime_departure, zone);
      item["delaySeconds"] = *c.realtime_departure - c.scheduled_departure;
    }
    if (c.skipped)
      item["skipped"] = true;
    if (!c.pickup)
      item["noPickup"] = true;
    if (!c.drop_off)
      item["noDropOff"] = true;
    calls.push_back(std::move(item));
  }
  json::object out{{"tripId", t.trip_id},
                   {"serviceDate", t.service_date},
                   {"line", t.line},
                   {"mode", to_string(t.mode)},
                   {"headsign", t.headsign},
                   {"state", t.state},
                   {"calls", std::move(calls)},
                   {"timezone", zone},
                   {"realtimeUsed", reply.realtime_used},
                   {"dataFreshness", reply.data_freshness},
                   {"correlationId", reply.correlation_id}};
  if (!t.route_id.empty())
    out["routeId"] = t.route_id;
  if (!t.color.empty())
    out["color"] = t.color;
  if (!t.text_color.empty())
    out["textColor"] = t.text_color;
  if (!t.path.empty())
    out["geometry"] = encode_polyline(t.path);
  if (t.vehicle) {
    const auto& v = *t.vehicle;
    json::object vehicle{
      {"vehicleId", v.vehicle_id},
      {"coordinate", coordinate_json(decimals(v.position.lat, 5),
                                     decimals(v.position.lon, 5))},
      {"status", v.status},
      {"reportedAt", format_in_zone(v.timestamp, zone)}};
    if (!v.stop_id.empty())
      vehicle["currentStop"] = json::object{{"id", v.stop_id},
                                            {"name", v.stop_name}};
    out["vehicle"] = std::move(vehicle);
  }
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

} // namespace transitd::mcp
