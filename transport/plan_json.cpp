#include "transitd/transport/plan_json.hpp"
#include "transitd/util/polyline.hpp"

#include <cmath>

#include "transitd/messages/time.hpp"
#include "transitd/messages/variables.hpp"
#include "transitd/transport/departures_json.hpp"
#include "transitd/transport/json_text.hpp"
#include "transitd/transport/stops_json.hpp"

namespace json = boost::json;

namespace transitd::mcp {

field location_field(std::string name, std::string what) {
  return field::tagged(
    std::move(name), "type",
    {{"coords", {coordinate_field("value").required()}},
     {"label", {field::string("value", "a saved location variable's key")
                  .length(variable_key_length)
                  .when_invalid("must name a saved label (1..100 "
                                "characters)")
                  .required()}},
     {"stop", {field::string("value", "a stop or station id as find_stops "
                                      "and get_departures give it "
                                      "(NAME:stop_id of a feed, HSL:... of "
                                      "Digitransit); a station means its "
                                      "platforms")
                 .length(stop_id_length)
                 .required()}}},
    std::move(what));
}

location_input read_location(const arguments& args, std::string_view name) {
  auto object = *args.object(name);
  location_input out;
  auto type = *object.string("type");
  if (type == "label") {
    out.type = location_input::kind::label;
    out.label = *object.string("value");
  } else if (type == "stop") {
    out.type = location_input::kind::stop;
    out.stop_id = *object.string("value");
  } else {
    out.type = location_input::kind::coords;
    out.position = *read_coordinate(object, "value");
  }
  return out;
}

json::object location_ref_schema() {
  json::object props;
  props["coordinate"] = schema_coordinate();
  props["label"] = schema_string();
  props["name"] = schema_string();
  props["address"] = schema_string();
  props["rawSource"] = schema_enum({"input", "variable"});
  props["stopId"] = schema_string("the stop the trip starts or ends at");
  return schema_object(std::move(props), {"coordinate", "rawSource"});
}

json::object location_ref_json(const location_ref& ref) {
  json::object out{{"coordinate",
                    coordinate_json(ref.position.lat, ref.position.lon)},
                   {"rawSource", ref.raw_source}};
  if (ref.label)
    out["label"] = *ref.label;
  if (ref.name)
    out["name"] = *ref.name;
  if (ref.address)
    out["address"] = *ref.address;
  if (ref.stop_id)
    out["stopId"] = *ref.stop_id;
  return out;
}

namespace {

field constraints_field() {
  return field::object(
    "constraints",
    {field::choice("optimize", choice_list(plan_optimize))
       .fallback(json::string(plan_optimize[0])),
     field::integer("maxWalkingDistance", plan_max_walk, "meters"),
     field::integer("maxTransfers", plan_max_transfers),
     field::object(
       "accessibility",
       {field::boolean("stepFree",
                       "step-free route; warns when the data cannot tell")
          .fallback(false),
        field::boolean("lowWalkingDistance").fallback(false)}),
     language_field()});
}

const field& plan_trip_input() {
  static const auto input = field::object(
    {},
    {location_field("origin", "where the trip starts").required(),
     location_field("destination", "where the trip ends").required(),
     field::object("when",
                   {field::choice("type", choice_list(plan_when_types))
                      .fallback(json::string(plan_when_types[0])),
                    field::string("time", "\"now\" or ISO 8601 (seconds and "
                                          "offset optional; without an "
                                          "offset, local time at the "
                                          "origin); arrive needs a time")
                      .fallback("now")}),
     constraints_field(),
     field::integer("limit", plan_limit, "itineraries returned at most"),
     field::boolean("includeDisruptionAlt",
                    "search a relaxed alternative when disrupted")
       .fallback(true)});
  return input;
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
  props["tripId"] = schema_string("the trip, for get_trip");
  props["serviceDate"] = schema_string("YYYY-MM-DD, for get_trip");
  props["color"] = schema_string("the line's colour, RRGGBB");
  props["textColor"] = schema_string("text on that colour, RRGGBB");
  props["geometry"] = schema_string(
    "the way the vehicle takes, as an encoded polyline (precision 5)");
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
    = "Itineraries between two points with realtime delays and "
      "cancellations where the provider has them. When the best answer is "
      "disrupted, a relaxed search adds alternatives "
      "(disruptionAlternative). Origin and destination are coordinates or "
      "saved location labels.";
  spec.regional = true;
  spec.input = plan_trip_input();
  json::object requested;
  requested["type"] = schema_enum({"depart", "arrive"});
  requested["time"] = schema_string("ISO 8601");
  json::object meta;
  meta["deduplicatedFrom"] = json::object{{"type", "integer"}};
  json::object output;
  output["origin"] = location_ref_schema();
  output["destination"] = location_ref_schema();
  output["requested"] = schema_object(std::move(requested), {"type", "time"});
  output["constraints"] = constraints_field().schema();
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

outcome<plan_trip_request> parse_plan_trip(const json::object& raw) {
  auto args = arguments::check(plan_trip_input(), raw);
  if (!args)
    return args.error();
  plan_trip_request request;
  request.origin = read_location(*args, "origin");
  request.destination = read_location(*args, "destination");
  if (auto when = args->object("when")) {
    request.when_type = when->string("type").value_or(request.when_type);
    request.when_time = when->string("time").value_or(request.when_time);
  }
  // Rule 6, in the wire's words (the actor checks it again for embedding
  // applications, in theirs).
  if (request.when_time == "now") {
    if (request.when_type == "arrive")
      return make_failure(ec::validation_error,
                          "when.time is required for when.type \"arrive\" "
                          "(an ISO 8601 time, not \"now\")");
  } else if (!parse_iso_time(request.when_time)) {
    return make_failure(ec::validation_error,
                        "when.time must be \"now\" or an ISO 8601 date-time, "
                        "got \"" + request.when_time + "\"",
                        "write " + std::string{iso_time_forms});
  }
  auto& c = request.constraints;
  if (auto given = args->object("constraints")) {
    c.optimize = given->string("optimize").value_or(c.optimize);
    c.max_walking_distance
      = given->integer("maxWalkingDistance").value_or(c.max_walking_distance);
    c.max_transfers = given->integer("maxTransfers").value_or(c.max_transfers);
    c.language = given->string("language").value_or(c.language);
    if (auto access = given->object("accessibility")) {
      c.step_free = access->boolean("stepFree").value_or(false);
      c.low_walking_distance
        = access->boolean("lowWalkingDistance").value_or(false);
    }
  }
  request.limit = args->integer("limit").value_or(plan_limit.fallback);
  request.include_disruption_alt
    = args->boolean("includeDisruptionAlt").value_or(true);
  return request;
}

json::object to_json(const plan_trip_reply& reply) {
  auto location = [](const location_ref& ref) {
    return location_ref_json(ref);
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
      if (leg.trip_id)
        l["tripId"] = *leg.trip_id;
      if (leg.service_date)
        l["serviceDate"] = *leg.service_date;
      if (leg.color)
        l["color"] = *leg.color;
      if (leg.text_color)
        l["textColor"] = *leg.text_color;
      if (!leg.path.empty())
        l["geometry"] = encode_polyline(leg.path);
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
                                    c.low_walking_distance}}}};
  // The language asked; none asked: none shown (the provider's own).
  if (!c.language.empty())
    constraints["language"] = c.language;
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
