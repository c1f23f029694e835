#include "transitd/transport/london_json.hpp"

#include "transitd/transport/hints.hpp"

#include "transitd/transport/departures_json.hpp"

#include "transitd/transport/json_text.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

json::object nullable_string() {
  return json::object{{"type", json::array{"string", "null"}}};
}

/// The station envelope with every field present, as the contract lists.
json::object station_envelope(bool success, std::string_view code,
                              const std::string& message,
                              const std::string& correlation_id) {
  return json::object{{"success", success},
                      {"code", code},
                      {"message", message},
                      {"stationName", nullptr},
                      {"stationUniqueId", nullptr},
                      {"toilets", nullptr},
                      {"stationDisambiguation", nullptr},
                      {"correlationId", correlation_id}};
}

const field& station_toilets_input() {
  static const auto input = field::object(
    {}, {field::string("stationName", "e.g. \"Abbey Wood\"")
                .header("Station")
           .length(london_place_text)
           .required()});
  return input;
}

const field& plan_journey_input() {
  auto place = [](const char* name, const char* what) {
    return field::string(name, what).length(london_place_text).required();
  };
  static const auto input = field::object(
    {}, {place("from", "start: a place name, stop code, or a parameterValue "
                       "from a disambiguation"),
         place("to", "destination, as from"),
         field::boolean("needAccessibleRoute",
                        "prefer step-free routes (TfL "
                        "accessibilityPreference)")
           .fallback(false)});
  return input;
}

} // namespace

tool_spec station_toilets_spec() {
  tool_spec spec;
  spec.name = "stationToilets";
  spec.title = "Toilets at a London station";
  spec.description
    = "Toilet facilities at a TfL station from TfL's station data: location, "
      "platforms, accessible, baby changing, inside the gate line, fee. "
      "Names match case-, accent- and punctuation-insensitively; several "
      "matches answer DISAMBIGUATION_REQUIRED with suggestions.";
  spec.input = station_toilets_input();
  json::object toilet;
  toilet["location"] = nullable_string();
  toilet["platformNumbers"] = schema_array(json::object{{"type", "integer"}});
  toilet["accessible"] = schema_boolean();
  toilet["babyChanging"] = schema_boolean();
  toilet["insideGateLine"] = schema_boolean();
  toilet["feeCharged"] = schema_boolean();
  toilet["type"] = schema_string("Male, Female, Unisex, ...");
  json::object suggestion;
  suggestion["name"] = schema_string();
  suggestion["uniqueId"] = schema_string();
  suggestion["matchQuality"] = schema_number("0..1");
  json::object output;
  output["success"] = schema_boolean();
  output["code"] = schema_string("OK on success");
  output["message"] = schema_string();
  output["stationName"] = nullable_string();
  output["stationUniqueId"] = nullable_string();
  output["toilets"] = json::object{
    {"type", json::array{"array", "null"}},
    {"items", schema_object(std::move(toilet),
                            {"location", "platformNumbers", "accessible",
                             "babyChanging", "insideGateLine", "feeCharged",
                             "type"})}};
  output["stationDisambiguation"] = json::object{
    {"type", json::array{"array", "null"}},
    {"items", schema_object(std::move(suggestion),
                            {"name", "uniqueId", "matchQuality"})}};
  output["correlationId"] = schema_string();
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(
    std::move(output), {"success", "code", "message", "stationName",
                        "stationUniqueId", "toilets", "stationDisambiguation",
                        "correlationId"});
  return spec;
}

outcome<station_toilets_request>
parse_station_toilets(const json::object& raw) {
  auto args = arguments::check(station_toilets_input(), raw);
  if (!args)
    return args.error();
  station_toilets_request request;
  request.station_name = *args->string("stationName");
  return request;
}

namespace {

json::object journey_envelope(bool success, std::string_view code,
                              const std::string& message,
                              const std::string& correlation_id) {
  return json::object{{"success", success},
                      {"code", code},
                      {"message", message},
                      {"topJourneys", nullptr},
                      {"fromLocationDisambiguation", nullptr},
                      {"toLocationDisambiguation", nullptr},
                      {"correlationId", correlation_id}};
}

} // namespace

tool_outcome london_error(london_tool tool, const failure& f,
                          const std::string& correlation_id) {
  tool_outcome out;
  out.is_error = true;
  out.code = f.code;
  out.error_body = tool == london_tool::station_toilets
                     ? station_envelope(false, to_wire_upper(f.code),
                                        in_daemon_terms(f.message),
                                        correlation_id)
                     : journey_envelope(false, to_wire_upper(f.code),
                                        in_daemon_terms(f.message),
                                        correlation_id);
  if (!f.hint.empty())
    out.error_body["hint"] = in_daemon_terms(f.hint);
  if (f.retry_after > 0)
    out.error_body["retryAfter"] = f.retry_after;
  return out;
}

tool_outcome to_outcome(const station_toilets_reply& reply) {
  if (reply.disambiguation_required) {
    tool_outcome out;
    out.is_error = true;
    out.code = ec::disambiguation_required;
    out.error_body = station_envelope(
      false, to_wire_upper(ec::disambiguation_required),
      "several stations match; retry with one of stationDisambiguation's "
      "names",
      reply.correlation_id);
    json::array suggestions;
    for (const auto& s : reply.suggestions)
      suggestions.push_back(json::object{{"name", s.name},
                                         {"uniqueId", s.unique_id},
                                         {"matchQuality", decimals(s.match_quality, confidence_places)}});
    out.error_body["stationDisambiguation"] = std::move(suggestions);
    return out;
  }
  auto body = station_envelope(true, "OK",
                               std::to_string(reply.toilets.size())
                                 + " toilet(s) listed at "
                                 + reply.station_name,
                               reply.correlation_id);
  body["stationName"] = reply.station_name;
  body["stationUniqueId"] = reply.station_unique_id;
  json::array toilets;
  for (const auto& t : reply.toilets) {
    json::array platforms;
    for (auto p : t.platform_numbers)
      platforms.push_back(p);
    json::object item{{"platformNumbers", std::move(platforms)},
                      {"accessible", t.accessible},
                      {"babyChanging", t.baby_changing},
                      {"insideGateLine", t.inside_gate_line},
                      {"feeCharged", t.fee_charged},
                      {"type", t.type}};
    if (t.location)
      item["location"] = *t.location;
    else
      item["location"] = nullptr;
    toilets.push_back(std::move(item));
  }
  body["toilets"] = std::move(toilets);
  if (!reply.warnings.empty())
    body["warnings"] = to_json(reply.warnings);
  return success_outcome(std::move(body));
}

tool_spec plan_journey_spec() {
  tool_spec spec;
  spec.name = "planJourney";
  spec.title = "Plan a London journey";
  spec.description
    = "Journeys across London from the TfL Journey Planner: the five "
      "fastest, each with its legs. Free-text places TfL cannot pin down "
      "answer DISAMBIGUATION_REQUIRED with suggestions; retry with a "
      "suggestion's parameterValue as from/to.";
  spec.input = plan_journey_input();
  json::object leg;
  leg["mode"] = schema_string();
  leg["line"] = schema_string();
  leg["from"] = schema_string();
  leg["to"] = schema_string();
  leg["departureTime"] = schema_string("London local time");
  leg["arrivalTime"] = schema_string("London local time");
  leg["durationMinutes"] = json::object{{"type", "integer"}};
  leg["instruction"] = schema_string();
  json::object journey;
  journey["startDateTime"] = schema_string("London local time");
  journey["arrivalDateTime"] = schema_string("London local time");
  journey["durationMinutes"] = json::object{{"type", "integer"}};
  journey["summary"] = schema_string();
  journey["legs"] = schema_array(schema_object(
    std::move(leg), {"mode", "from", "to", "departureTime", "arrivalTime",
                     "durationMinutes", "instruction"}));
  json::object suggestion;
  suggestion["parameterValue"] = schema_string("use as from/to to retry");
  suggestion["name"] = schema_string();
  suggestion["matchQuality"] = schema_number();
  auto suggestions = json::object{
    {"type", json::array{"array", "null"}},
    {"items", schema_object(std::move(suggestion),
                            {"parameterValue", "name", "matchQuality"})}};
  json::object output;
  output["success"] = schema_boolean();
  output["code"] = schema_string("OK on success");
  output["message"] = schema_string();
  output["topJourneys"] = json::object{
    {"type", json::array{"array", "null"}},
    {"items", schema_object(std::move(journey),
                            {"startDateTime", "arrivalDateTime",
                             "durationMinutes", "summary", "legs"})}};
  output["fromLocationDisambiguation"] = suggestions;
  output["toLocationDisambiguation"] = suggestions;
  output["correlationId"] = schema_string();
  output["warnings"] = schema_warnings();
  spec.output_schema = schema_object(
    std::move(output), {"success", "code", "message", "topJourneys",
                        "fromLocationDisambiguation",
                        "toLocationDisambiguation", "correlationId"});
  return spec;
}

outcome<journey_plan_request>
parse_plan_journey(const json::object& raw) {
  auto args = arguments::check(plan_journey_input(), raw);
  if (!args)
    return args.error();
  journey_plan_request request;
  request.from = *args->string("from");
  request.to = *args->string("to");
  request.need_accessible_route
    = args->boolean("needAccessibleRoute").value_or(false);
  return request;
}

tool_outcome to_outcome(const journey_plan_reply& reply) {
  auto suggestions = [](const std::vector<place_suggestion>& list)
    -> json::value {
    if (list.empty())
      return nullptr;
    json::array out;
    for (const auto& s : list)
      out.push_back(json::object{{"parameterValue", s.parameter_value},
                                 {"name", s.name},
                                 {"matchQuality", decimals(s.match_quality, confidence_places)}});
    return out;
  };
  if (reply.disambiguation_required) {
    if (reply.from_suggestions.empty() && reply.to_suggestions.empty())
      return london_error(london_tool::plan_journey,
                          make_failure(ec::validation_error,
                                       "TfL knows no place by that name"),
                          reply.correlation_id);
    tool_outcome out;
    out.is_error = true;
    out.code = ec::disambiguation_required;
    out.error_body = journey_envelope(
      false, to_wire_upper(ec::disambiguation_required),
      "TfL could not pin down from or to; retry with a parameterValue",
      reply.correlation_id);
    out.error_body["fromLocationDisambiguation"]
      = suggestions(reply.from_suggestions);
    out.error_body["toLocationDisambiguation"]
      = suggestions(reply.to_suggestions);
    return out;
  }
  auto body = journey_envelope(true, "OK",
                               std::to_string(reply.journeys.size())
                                 + " journey(s), fastest first",
                               reply.correlation_id);
  json::array journeys;
  for (const auto& j : reply.journeys) {
    json::array legs;
    for (const auto& l : j.legs) {
      json::object leg{{"mode", l.mode},
                       {"from", l.from},
                       {"to", l.to},
                       {"departureTime", l.departure_time},
                       {"arrivalTime", l.arrival_time},
                       {"durationMinutes", l.duration_minutes},
                       {"instruction", l.instruction}};
      if (l.line)
        leg["line"] = *l.line;
      legs.push_back(std::move(leg));
    }
    journeys.push_back(json::object{{"startDateTime", j.start_time},
                                    {"arrivalDateTime", j.arrival_time},
                                    {"durationMinutes", j.duration_minutes},
                                    {"summary", j.summary},
                                    {"legs", std::move(legs)}});
  }
  body["topJourneys"] = std::move(journeys);
  if (!reply.warnings.empty())
    body["warnings"] = to_json(reply.warnings);
  return success_outcome(std::move(body));
}

} // namespace transitd::mcp
