#include "transport/london_json.hpp"

#include "transport/departures_json.hpp"

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
  json::object input;
  auto name = schema_string("e.g. \"Abbey Wood\"");
  name["minLength"] = 1;
  name["maxLength"] = 200;
  input["stationName"] = std::move(name);
  spec.input_schema = schema_object(std::move(input), {"stationName"});
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
parse_station_toilets(const json::object& arguments) {
  station_toilets_request request;
  argument_reader args{arguments};
  auto name = args.string("stationName", true);
  if (auto problem = args.finish())
    return *problem;
  request.station_name = *name;
  return request;
}

tool_outcome london_error(const failure& f,
                          const std::string& correlation_id) {
  tool_outcome out;
  out.is_error = true;
  out.code = f.code;
  out.error_body = station_envelope(false, to_wire_upper(f.code), f.message,
                                    correlation_id);
  if (!f.hint.empty())
    out.error_body["hint"] = f.hint;
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
                                         {"matchQuality", s.match_quality}});
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

} // namespace transitd::mcp
