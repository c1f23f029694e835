#include "transitd/transport/departures_json.hpp"

#include "transitd/transport/hints.hpp"
#include "transitd/transport/json_text.hpp"

#include "transitd/transport/stops_json.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

const field& get_departures_input() {
  static const auto input = field::object(
    {},
    {field::object("stop",
                   {field::choice("type", {"id", "label"},
                                  "id: a stop id such as HSL:1040129; "
                                  "label: a saved stop variable")
                      .required(),
                    field::string("value", "the stop id or the label")
                      .length(stop_value_length)
                      .when_invalid("is empty: stop id missing; give a "
                                    "stop id such as \"HSL:1040129\" or "
                                    "a saved stop's label")
                      .required()})
       .required(),
     field::integer("windowMinutes", departures_window,
                    "look-ahead from now, minutes"),
     field::integer("limit", departures_limit,
                    "departures returned at most (after sorting)"),
     language_field("language of names and headsigns")});
  return input;
}

} // namespace

tool_spec get_departures_spec() {
  tool_spec spec;
  spec.name = std::string{get_departures_name};
  spec.title = "Departures from a stop";
  spec.description
    = "Upcoming departures at a stop, with realtime delay and cancellation "
      "status where the provider has them. Times are ISO 8601 in the "
      "stop's local offset; sorted by realtime, else scheduled, time.";
  spec.regional = true;
  spec.input = get_departures_input();

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
  departure["tripId"] = schema_string("the trip, for get_trip");
  departure["serviceDate"] = schema_string("YYYY-MM-DD, for get_trip");
  departure["color"] = schema_string("the line's colour, RRGGBB");
  departure["textColor"] = schema_string("text on that colour, RRGGBB");
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
parse_get_departures(const json::object& raw) {
  auto args = arguments::check(get_departures_input(), raw);
  if (!args)
    return args.error();
  get_departures_request request;
  auto stop = *args->object("stop");
  request.stop.type = *stop.string("type") == "label" ? stop_ref::kind::label
                                                       : stop_ref::kind::id;
  request.stop.value = *stop.string("value");
  request.window_minutes
    = args->integer("windowMinutes").value_or(departures_window.fallback);
  request.limit = args->integer("limit").value_or(departures_limit.fallback);
  request.language = args->string("language").value_or(request.language);
  return request;
}

json::array to_json(const std::vector<warning>& warnings) {
  json::array out;
  for (const auto& w : warnings)
    out.push_back(json::object{{"code", w.code},
                               {"message", in_daemon_terms(w.message)}});
  return out;
}

std::string to_json_text(const get_departures_reply& reply) {
  std::string out;
  out.reserve(256 + reply.departures.size() * 384);
  json_object_writer o{out};
  o.string("stopId", reply.stop_id);
  o.maybe_string("stopName", reply.stop_name);
  o.boolean("realtimeUsed", reply.realtime_used);
  o.string("dataFreshness", reply.data_freshness);
  o.key("departures");
  out += '[';
  for (std::size_t i = 0; i < reply.departures.size(); ++i) {
    const auto& d = reply.departures[i];
    if (i > 0)
      out += ',';
    json_object_writer item{out};
    item.string("line", d.line);
    item.string("mode", to_string(d.mode));
    item.string("destination", d.destination);
    item.string("scheduledTime", d.scheduled_time);
    item.maybe_string("realtimeTime", d.realtime_time);
    if (d.delay_seconds)
      item.integer("delaySeconds", *d.delay_seconds);
    item.string("status", to_string(d.status));
    item.maybe_string("platform", d.platform);
    item.maybe_string("tripId", d.trip_id);
    item.maybe_string("serviceDate", d.service_date);
    item.maybe_string("color", d.color);
    item.maybe_string("textColor", d.text_color);
    item.end();
  }
  out += ']';
  o.string("correlationId", reply.correlation_id);
  if (!reply.warnings.empty()) {
    o.key("warnings");
    append_json(out, to_json(reply.warnings));
  }
  o.end();
  return out;
}

json::object to_json(const get_departures_reply& reply) {
  // The text is the one rendering; upstream names are kept byte for byte,
  // as the text carries them.
  json::parse_options options;
  options.allow_invalid_utf8 = true;
  return json::parse(to_json_text(reply), {}, options).as_object();
}

} // namespace transitd::mcp
