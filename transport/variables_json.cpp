#include "transport/variables_json.hpp"

#include "messages/time.hpp"

#include "transport/json_text.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

json::object location_value_schema() {
  json::object props;
  props["lat"] = schema_number("latitude, -90..90");
  props["lon"] = schema_number("longitude, -180..180");
  props["name"] = schema_string();
  props["address"] = schema_string();
  return schema_object(std::move(props), {"lat", "lon"});
}

json::object stop_value_schema() {
  json::object props;
  props["stopId"] = schema_string("e.g. HSL:1040129");
  props["name"] = schema_string();
  return schema_object(std::move(props), {"stopId"});
}

json::object key_schema() {
  auto key = schema_string("the label, 1..100 characters");
  key["minLength"] = 1;
  key["maxLength"] = 100;
  return key;
}

json::object variable_schema() {
  json::object props;
  props["key"] = schema_string();
  props["type"] = schema_enum({"location", "stop"});
  props["value"] = json::object{
    {"oneOf", json::array{location_value_schema(), stop_value_schema()}}};
  props["updatedAt"] = schema_string("ISO 8601 (UTC)");
  return schema_object(std::move(props), {"key", "type", "value", "updatedAt"});
}

tool_spec store_tool(std::string name, std::string title,
                     std::string description) {
  tool_spec spec;
  spec.name = std::move(name);
  spec.title = std::move(title);
  spec.description = std::move(description);
  spec.open_world = false;
  return spec;
}

} // namespace

tool_spec save_user_variable_spec() {
  auto spec = store_tool(
    "save_user_variable", "Save a place or stop under a label",
    "Saves a typed variable for the caller: a location {lat, lon, name?, "
    "address?} or a stop {stopId, name?}. Tools accept it as "
    "{\"type\":\"label\",\"value\":KEY}. Saving an existing key replaces it.");
  spec.read_only = false;
  spec.destructive = true; // replaces an existing key
  json::object input;
  input["key"] = key_schema();
  input["type"] = schema_enum({"location", "stop"});
  input["value"] = json::object{
    {"oneOf", json::array{location_value_schema(), stop_value_schema()}},
    {"description", "location: {lat, lon, name?, address?}; stop: "
                    "{stopId, name?}"}};
  spec.input_schema = schema_object(std::move(input),
                                    {"key", "type", "value"});
  json::object output;
  output["variable"] = variable_schema();
  output["replaced"] = schema_boolean("true when the key existed");
  output["correlationId"] = schema_string();
  spec.output_schema = schema_object(std::move(output),
                                     {"variable", "replaced",
                                      "correlationId"});
  return spec;
}

tool_spec get_user_variables_spec() {
  auto spec = store_tool("get_user_variables", "List saved places and stops",
                         "The caller's saved variables, or the one under "
                         "`key` (an empty list when there is none).");
  json::object input;
  input["key"] = key_schema();
  spec.input_schema = schema_object(std::move(input), {});
  json::object output;
  output["variables"] = schema_array(variable_schema());
  output["correlationId"] = schema_string();
  spec.output_schema = schema_object(std::move(output),
                                     {"variables", "correlationId"});
  return spec;
}

tool_spec delete_user_variable_spec() {
  auto spec = store_tool("delete_user_variable", "Delete a saved variable",
                         "Deletes the caller's variable under `key`; "
                         "`deleted` is false when there was none.");
  spec.read_only = false;
  spec.destructive = true;
  json::object input;
  input["key"] = key_schema();
  spec.input_schema = schema_object(std::move(input), {"key"});
  json::object output;
  output["key"] = schema_string();
  output["deleted"] = schema_boolean();
  output["correlationId"] = schema_string();
  spec.output_schema = schema_object(std::move(output),
                                     {"key", "deleted", "correlationId"});
  return spec;
}

outcome<save_variable_request>
parse_save_user_variable(const json::object& arguments) {
  save_variable_request request;
  argument_reader args{arguments};
  auto key = args.string("key", true);
  auto type_text = args.string("type", true);
  const auto* value = args.object("value", true);
  if (auto problem = args.finish())
    return *problem;
  auto type = parse_variable_type(*type_text);
  if (!type)
    return make_failure(ec::validation_error,
                        "field \"type\" must be \"location\" or \"stop\", "
                        "got \"" + *type_text + "\"");
  auto& v = request.variable;
  v.key = *key;
  v.type = *type;
  argument_reader fields{*value, "value"};
  if (*type == variable_type::location) {
    auto lat = fields.number("lat", true);
    auto lon = fields.number("lon", true);
    v.name = fields.string("name", false);
    v.address = fields.string("address", false);
    if (auto problem = fields.finish())
      return *problem;
    v.lat = *lat;
    v.lon = *lon;
  } else {
    auto stop_id = fields.string("stopId", true);
    v.name = fields.string("name", false);
    if (auto problem = fields.finish())
      return *problem;
    v.stop_id = *stop_id;
  }
  return request;
}

outcome<get_variables_request>
parse_get_user_variables(const json::object& arguments) {
  get_variables_request request;
  argument_reader args{arguments};
  request.key = args.string("key", false);
  if (auto problem = args.finish())
    return *problem;
  return request;
}

outcome<delete_variable_request>
parse_delete_user_variable(const json::object& arguments) {
  delete_variable_request request;
  argument_reader args{arguments};
  auto key = args.string("key", true);
  if (auto problem = args.finish())
    return *problem;
  request.key = *key;
  return request;
}

json::object to_json(const user_variable& v) {
  json::object value;
  if (v.type == variable_type::location) {
    value["lat"] = decimals(v.lat, coordinate_places);
    value["lon"] = decimals(v.lon, coordinate_places);
    if (v.name)
      value["name"] = *v.name;
    if (v.address)
      value["address"] = *v.address;
  } else {
    value["stopId"] = v.stop_id;
    if (v.name)
      value["name"] = *v.name;
  }
  json::object out;
  out["key"] = v.key;
  out["type"] = to_string(v.type);
  out["value"] = std::move(value);
  out["updatedAt"] = format_utc(v.updated_ms / 1000);
  return out;
}

json::object to_json(const save_variable_reply& reply) {
  return json::object{{"variable", to_json(reply.variable)},
                      {"replaced", reply.replaced},
                      {"correlationId", reply.correlation_id}};
}

json::object to_json(const get_variables_reply& reply) {
  json::array variables;
  for (const auto& v : reply.variables)
    variables.push_back(to_json(v));
  return json::object{{"variables", std::move(variables)},
                      {"correlationId", reply.correlation_id}};
}

json::object to_json(const delete_variable_reply& reply) {
  return json::object{{"key", reply.key},
                      {"deleted", reply.deleted},
                      {"correlationId", reply.correlation_id}};
}

} // namespace transitd::mcp
