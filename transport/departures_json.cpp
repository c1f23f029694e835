#include "transport/departures_json.hpp"

namespace json = boost::json;

namespace transitd::mcp {

tool_spec get_departures_spec() {
  tool_spec spec;
  spec.name = std::string{get_departures_name};
  spec.title = "Departures from a stop";
  spec.description
    = "Upcoming departures at a Helsinki-region stop (Digitransit), with "
      "realtime delay and cancellation status. Times are ISO 8601 in the "
      "stop's local offset; sorted by realtime, else scheduled, time.";
  json::object stop;
  stop["type"] = schema_enum({"id", "label"},
                             "id: a stop id such as HSL:1040129; label: a "
                             "saved stop variable");
  stop["value"] = schema_string("the stop id or the label");
  stop["value"].as_object()["minLength"] = 1;
  json::object input;
  input["stop"] = schema_object(std::move(stop), {"type", "value"});
  input["windowMinutes"] = schema_integer(1, 120, 30,
                                          "look-ahead from now, minutes");
  input["limit"] = schema_integer(1, 50, 10,
                                  "departures returned at most (after "
                                  "sorting)");
  input["language"] = schema_enum({"fi", "sv", "en"},
                                  "language of names and headsigns");
  input["language"].as_object()["default"] = "en";
  spec.input_schema = schema_object(std::move(input), {"stop"});

  json::object departure;
  departure["line"] = schema_string();
  departure["mode"] = schema_enum(transit_mode_names());
  departure["destination"] = schema_string();
  departure["scheduledTime"] = schema_string("ISO 8601");
  departure["realtimeTime"] = schema_string("ISO 8601");
  departure["delaySeconds"] = json::object{{"type", "integer"}};
  departure["status"] = schema_enum(
    {"on_time", "delayed", "cancelled", "scheduled_only"});
  departure["platform"] = schema_string();
  json::object output;
  output["stopId"] = schema_string();
  output["stopName"] = schema_string();
  output["realtimeUsed"] = schema_boolean();
  output["dataFreshness"] = schema_string("ISO 8601 (UTC)");
  output["departures"] = schema_array(
    schema_object(std::move(departure),
                  {"line", "mode", "destination", "scheduledTime", "status"}));
  output["correlationId"] = schema_string("UUID v4 of this call");
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(std::move(output),
                                     {"stopId", "realtimeUsed",
                                      "dataFreshness", "departures",
                                      "correlationId"});
  return spec;
}

outcome<get_departures_request>
parse_get_departures(const json::object& arguments) {
  get_departures_request request;
  argument_reader args{arguments};
  if (const auto* stop = args.object("stop", true)) {
    argument_reader stop_args{*stop, "stop"};
    auto type = stop_args.string("type", true);
    auto value = stop_args.string("value", true);
    if (type && *type != "id" && *type != "label")
      stop_args.fail("field \"stop.type\" must be \"id\" or \"label\", got \""
                     + *type + "\"");
    if (auto problem = stop_args.finish())
      return *problem;
    request.stop.type = *type == "label" ? stop_ref::kind::label
                                         : stop_ref::kind::id;
    request.stop.value = *value;
  }
  auto window = args.integer("windowMinutes", false);
  auto limit = args.integer("limit", false);
  auto language = args.string("language", false);
  if (auto problem = args.finish())
    return *problem;
  auto clamp32 = [](int64_t v) {
    return static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX));
  };
  if (window)
    request.window_minutes = clamp32(*window);
  if (limit)
    request.limit = clamp32(*limit);
  if (language)
    request.language = *language;
  return request;
}

json::array to_json(const std::vector<warning>& warnings) {
  json::array out;
  for (const auto& w : warnings)
    out.push_back(json::object{{"code", w.code}, {"message", w.message}});
  return out;
}

json::object to_json(const get_departures_reply& reply) {
  json::array departures;
  for (const auto& d : reply.departures) {
    json::object item;
    item["line"] = d.line;
    item["mode"] = to_string(d.mode);
    item["destination"] = d.destination;
    item["scheduledTime"] = d.scheduled_time;
    if (d.realtime_time)
      item["realtimeTime"] = *d.realtime_time;
    if (d.delay_seconds)
      item["delaySeconds"] = *d.delay_seconds;
    item["status"] = to_string(d.status);
    if (d.platform)
      item["platform"] = *d.platform;
    departures.push_back(std::move(item));
  }
  json::object out;
  out["stopId"] = reply.stop_id;
  if (reply.stop_name)
    out["stopName"] = *reply.stop_name;
  out["realtimeUsed"] = reply.realtime_used;
  out["dataFreshness"] = reply.data_freshness;
  out["departures"] = std::move(departures);
  out["correlationId"] = reply.correlation_id;
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  return out;
}

} // namespace transitd::mcp
