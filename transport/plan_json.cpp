#include "transport/plan_json.hpp"

#include <algorithm>
#include <climits>

#include "actors/trip_rules.hpp"
#include "messages/time.hpp"
#include "transport/departures_json.hpp"
#include "transport/stops_json.hpp"

#include <cmath>

#include "transport/json_text.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

json::object location_input_schema(const char* what) {
  json::object coords;
  coords["type"] = json::object{{"const", "coords"}};
  coords["value"] = schema_coordinate();
  json::object label;
  label["type"] = json::object{{"const", "label"}};
  label["value"] = schema_string("a saved location variable's key");
  return json::object{
    {"description", what},
    {"oneOf", json::array{schema_object(std::move(coords), {"type", "value"}),
                          schema_object(std::move(label),
                                        {"type", "value"})}}};
}

json::object location_ref_schema() {
  json::object props;
  props["coordinate"] = schema_coordinate();
  props["label"] = schema_string();
  props["name"] = schema_string();
  props["address"] = schema_string();
  props["rawSource"] = schema_enum({"input", "variable"});
  return schema_object(std::move(props), {"coordinate", "rawSource"});
}

json::object constraints_schema(bool with_defaults) {
  json::object accessibility;
  accessibility["stepFree"] = schema_boolean("step-free route; warns when "
                                             "the data cannot tell");
  accessibility["lowWalkingDistance"] = schema_boolean();
  json::object props;
  props["optimize"] = schema_enum({"balanced", "few_transfers",
                                   "shortest_time"});
  props["maxWalkingDistance"] = schema_integer(
    1, 3000, with_defaults ? std::optional<int64_t>{1500} : std::nullopt,
    "meters");
  props["maxTransfers"] = schema_integer(
    0, 8, with_defaults ? std::optional<int64_t>{4} : std::nullopt);
  props["accessibility"] = schema_object(std::move(accessibility), {});
  props["language"] = schema_enum({"fi", "sv", "en"});
  return schema_object(std::move(props), {});
}

json::object place_schema() {
  json::object props;
  props["name"] = schema_string();
  props["stopId"] = schema_string();
  props["coordinate"] = schema_coordinate();
  return schema_object(std::move(props), {"name", "coordinate"});
}

json::object leg_schema() {
  json::object props;
  props["mode"] = schema_enum(transit_mode_names());
  props["line"] = schema_string();
  props["headsign"] = schema_string();
  props["from"] = place_schema();
  props["to"] = place_schema();
  props["scheduledStart"] = schema_string("ISO 8601");
  props["scheduledEnd"] = schema_string("ISO 8601");
  props["realtimeStart"] = schema_string("ISO 8601");
  props["realtimeEnd"] = schema_string("ISO 8601");
  props["delaySeconds"] = json::object{{"type", "integer"}};
  props["status"] = schema_enum({"on_time", "delayed", "cancelled",
                                 "scheduled_only"});
  props["distance"] = json::object{{"type", "integer"}, {"minimum", 0},
                                  {"description", "meters"}};
  return schema_object(std::move(props),
                       {"mode", "from", "to", "scheduledStart",
                        "scheduledEnd"});
}

json::object itinerary_schema() {
  json::object props;
  props["start"] = schema_string("ISO 8601");
  props["end"] = schema_string("ISO 8601");
  props["durationSeconds"] = json::object{{"type", "integer"}};
  props["transfers"] = json::object{{"type", "integer"}};
  props["walkDistance"] = json::object{{"type", "integer"}, {"minimum", 0},
                                      {"description", "meters"}};
  props["scheduleType"] = schema_enum({"realtime", "scheduled", "mixed"});
  props["fingerprint"] = schema_string();
  props["disruptionAlternative"] = schema_boolean(
    "added by the relaxed search in place of a disrupted itinerary");
  props["legs"] = schema_array(leg_schema());
  return schema_object(std::move(props),
                       {"start", "end", "durationSeconds", "transfers",
                        "scheduleType", "fingerprint", "legs"});
}

outcome<location_input> read_location(argument_reader& args,
                                      std::string_view name) {
  location_input out;
  const auto* object = args.object(name, true);
  if (object == nullptr)
    return make_failure(ec::validation_error, "");
  argument_reader fields{*object, args.field(name)};
  auto type = fields.string("type", true);
  if (type && *type == "label") {
    auto value = fields.string("value", true);
    if (auto problem = fields.finish())
      return *problem;
    out.type = location_input::kind::label;
    out.label = *value;
    return out;
  }
  if (type && *type != "coords")
    fields.fail("field \"" + fields.field("type")
                + "\" must be \"coords\" or \"label\", got \"" + *type
                + "\"");
  auto position = read_coordinate(fields, "value", true);
  if (auto problem = fields.finish())
    return *problem;
  out.type = location_input::kind::coords;
  out.position = *position;
  return out;
}

int32_t clamp32(int64_t v) {
  return static_cast<int32_t>(std::clamp<int64_t>(v, INT32_MIN, INT32_MAX));
}

std::string iso(int64_t epoch, const std::string& zone) {
  return format_in_zone(epoch, zone);
}

json::object place_json(const place_ref& p) {
  json::object out{{"name", p.name},
                   {"coordinate", coordinate_json(p.position.lat, p.position.lon)}};
  if (p.stop_id)
    out["stopId"] = *p.stop_id;
  return out;
}

} // namespace

tool_spec plan_trip_spec() {
  tool_spec spec;
  spec.name = "plan_trip";
  spec.title = "Plan a trip";
  spec.description
    = "Itineraries between two points in the Helsinki region (Digitransit "
      "planConnection) with realtime delays and cancellations. When the "
      "best answer is disrupted, a relaxed search adds alternatives "
      "(disruptionAlternative). Origin and destination are coordinates or "
      "saved location labels.";
  json::object when;
  when["type"] = schema_enum({"depart", "arrive"});
  when["time"] = schema_string("\"now\" or ISO 8601 with offset; arrive "
                               "needs a time");
  json::object input;
  input["origin"] = location_input_schema("where the trip starts");
  input["destination"] = location_input_schema("where the trip ends");
  input["when"] = schema_object(std::move(when), {});
  input["constraints"] = constraints_schema(true);
  input["limit"] = schema_integer(1, 3, 2, "itineraries returned at most");
  input["includeDisruptionAlt"] = schema_boolean(
    "search a relaxed alternative when disrupted (default true)");
  spec.input_schema = schema_object(std::move(input),
                                    {"origin", "destination"});
  json::object requested;
  requested["type"] = schema_enum({"depart", "arrive"});
  requested["time"] = schema_string("ISO 8601");
  json::object meta;
  meta["deduplicatedFrom"] = json::object{{"type", "integer"}};
  json::object output;
  output["origin"] = location_ref_schema();
  output["destination"] = location_ref_schema();
  output["requested"] = schema_object(std::move(requested), {"type", "time"});
  output["constraints"] = constraints_schema(false);
  output["itineraries"] = schema_array(itinerary_schema());
  output["realtimeUsed"] = schema_enum({"realtime", "scheduled", "mixed"});
  output["dataFreshness"] = schema_string("ISO 8601 (UTC)");
  output["warnings"] = schema_warnings();
  output["correlationId"] = schema_string();
  output["meta"] = schema_object(std::move(meta), {});
  spec.output_schema = schema_object(
    std::move(output),
    {"origin", "destination", "requested", "constraints", "itineraries",
     "realtimeUsed", "dataFreshness", "correlationId"});
  return spec;
}

outcome<plan_trip_request> parse_plan_trip(const json::object& arguments) {
  plan_trip_request request;
  argument_reader args{arguments};
  auto origin = read_location(args, "origin");
  auto destination = origin ? read_location(args, "destination")
                            : outcome<location_input>{location_input{}};
  if (const auto* when = args.object("when", false)) {
    argument_reader fields{*when, "when"};
    if (auto type = fields.string("type", false))
      request.when_type = *type;
    if (auto time = fields.string("time", false))
      request.when_time = *time;
    if (auto problem = fields.finish())
      args.fail(problem->message);
  }
  auto& c = request.constraints;
  if (const auto* constraints = args.object("constraints", false)) {
    argument_reader fields{*constraints, "constraints"};
    if (auto v = fields.string("optimize", false))
      c.optimize = *v;
    if (auto v = fields.integer("maxWalkingDistance", false))
      c.max_walking_distance = clamp32(*v);
    if (auto v = fields.integer("maxTransfers", false))
      c.max_transfers = clamp32(*v);
    if (auto v = fields.string("language", false))
      c.language = *v;
    if (const auto* access = fields.object("accessibility", false)) {
      argument_reader flags{*access, "constraints.accessibility"};
      if (auto v = flags.boolean("stepFree", false))
        c.step_free = *v;
      if (auto v = flags.boolean("lowWalkingDistance", false))
        c.low_walking_distance = *v;
      if (auto problem = flags.finish())
        fields.fail(problem->message);
    }
    if (auto problem = fields.finish())
      args.fail(problem->message);
  }
  auto limit = args.integer("limit", false);
  auto alt = args.boolean("includeDisruptionAlt", false);
  if (!origin && !origin.error().message.empty())
    args.fail(origin.error().message);
  if (origin && !destination && !destination.error().message.empty())
    args.fail(destination.error().message);
  if (auto problem = args.finish())
    return *problem;
  request.origin = *origin;
  request.destination = *destination;
  if (limit)
    request.limit = clamp32(*limit);
  if (alt)
    request.include_disruption_alt = *alt;
  return request;
}

json::object to_json(const plan_trip_reply& reply) {
  auto location = [](const location_ref& ref) {
    json::object out{{"coordinate",
                      coordinate_json(ref.position.lat, ref.position.lon)},
                     {"rawSource", ref.raw_source}};
    if (ref.label)
      out["label"] = *ref.label;
    if (ref.name)
      out["name"] = *ref.name;
    if (ref.address)
      out["address"] = *ref.address;
    return out;
  };
  const auto& zone = reply.timezone;
  json::array itineraries;
  for (const auto& it : reply.itineraries) {
    json::array legs;
    for (const auto& leg : it.legs) {
      json::object l{{"mode", to_string(leg.mode)},
                     {"from", place_json(leg.from)},
                     {"to", place_json(leg.to)},
                     {"scheduledStart", iso(leg.scheduled_start, zone)},
                     {"scheduledEnd", iso(leg.scheduled_end, zone)},
                     {"distance", std::llround(leg.distance)}};
      if (leg.line)
        l["line"] = *leg.line;
      if (leg.headsign)
        l["headsign"] = *leg.headsign;
      if (leg.realtime_start)
        l["realtimeStart"] = iso(*leg.realtime_start, zone);
      if (leg.realtime_end)
        l["realtimeEnd"] = iso(*leg.realtime_end, zone);
      if (leg.delay_seconds)
        l["delaySeconds"] = *leg.delay_seconds;
      if (leg.status)
        l["status"] = to_string(*leg.status);
      legs.push_back(std::move(l));
    }
    json::object item{{"start", iso(it.start, zone)},
                      {"end", iso(it.end, zone)},
                      {"durationSeconds", it.duration_seconds},
                      {"transfers", it.transfers},
                      {"walkDistance", std::llround(it.walk_distance)},
                      {"scheduleType", it.schedule_type},
                      {"fingerprint", it.fingerprint},
                      {"legs", std::move(legs)}};
    if (it.disruption_alternative)
      item["disruptionAlternative"] = true;
    itineraries.push_back(std::move(item));
  }
  const auto& c = reply.constraints;
  json::object constraints{
    {"optimize", c.optimize},
    {"maxWalkingDistance", c.max_walking_distance},
    {"maxTransfers", c.max_transfers},
    {"accessibility", json::object{{"stepFree", c.step_free},
                                   {"lowWalkingDistance",
                                    c.low_walking_distance}}},
    {"language", c.language}};
  json::object out{{"origin", location(reply.origin)},
                   {"destination", location(reply.destination)},
                   {"requested", json::object{{"type", reply.requested_type},
                                              {"time", reply.requested_time}}},
                   {"constraints", std::move(constraints)},
                   {"itineraries", std::move(itineraries)},
                   {"realtimeUsed", reply.realtime_used},
                   {"dataFreshness", reply.data_freshness},
                   {"correlationId", reply.correlation_id}};
  if (!reply.warnings.empty())
    out["warnings"] = to_json(reply.warnings);
  if (reply.deduplicated_from > 0)
    out["meta"] = json::object{{"deduplicatedFrom", reply.deduplicated_from}};
  return out;
}

} // namespace transitd::mcp
