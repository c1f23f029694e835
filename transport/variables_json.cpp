#include "transitd/transport/variables_json.hpp"

#include "transitd/transport/oauth.hpp"

#include "transitd/messages/time.hpp"

#include "transitd/transport/json_text.hpp"

namespace json = boost::json;

namespace transitd::mcp {

namespace {

field key_field() {
  return field::string("key", "the label").length(variable_key_length);
}

/// A saved value by its type: the shapes save_user_variable takes and the
/// tools return.
std::vector<alternative> value_shapes() {
  auto text = [](const char* name, const char* what = "") {
    return field::string(name, what).length(variable_text_length);
  };
  return {{"location",
           {field::number("lat", latitude_range, "latitude").required(),
            field::number("lon", longitude_range, "longitude").required(),
            text("name"), text("address")}},
          {"stop",
           {field::string("stopId", "e.g. HSL:1040129")
              .length(variable_key_length)
              .required(),
            text("name")}}};
}

const field& save_user_variable_input() {
  static const auto input = field::object(
    {}, {key_field().required(),
         field::choice("type", {"location", "stop"}).required(),
         field::depends_on("value", "type", value_shapes(),
                           "location: {lat, lon, name?, address?}; stop: "
                           "{stopId, name?}")
           .required()});
  return input;
}

const field& get_user_variables_input() {
  static const auto input = field::object({}, {key_field()});
  return input;
}

const field& delete_user_variable_input() {
  static const auto input = field::object({}, {key_field().required()});
  return input;
}

json::object variable_schema() {
  json::object props;
  props["key"] = schema_string();
  props["type"] = schema_enum({"location", "stop"});
  props["value"] = field::depends_on("value", "type", value_shapes()).schema();
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
  spec.scope = std::string{oauth::scope_variables_read};
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
  spec.scope = std::string{oauth::scope_variables_write};
  spec.destructive = true; // replaces an existing key
  spec.input = save_user_variable_input();
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
  spec.input = get_user_variables_input();
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
  spec.scope = std::string{oauth::scope_variables_write};
  spec.destructive = true;
  spec.input = delete_user_variable_input();
  json::object output;
  output["key"] = schema_string();
  output["deleted"] = schema_boolean();
  output["correlationId"] = schema_string();
  spec.output_schema = schema_object(std::move(output),
                                     {"key", "deleted", "correlationId"});
  return spec;
}

outcome<save_variable_request>
parse_save_user_variable(const json::object& raw) {
  auto args = arguments::check(save_user_variable_input(), raw);
  if (!args)
    return args.error();
  save_variable_request request;
  auto& v = request.variable;
  v.key = *args->string("key");
  v.type = *parse_variable_type(*args->string("type"));
  auto value = *args->object("value");
  v.name = value.string("name");
  if (v.type == variable_type::location) {
    v.lat = *value.number("lat");
    v.lon = *value.number("lon");
    v.address = value.string("address");
  } else {
    v.stop_id = *value.string("stopId");
  }
  return request;
}

outcome<get_variables_request>
parse_get_user_variables(const json::object& raw) {
  auto args = arguments::check(get_user_variables_input(), raw);
  if (!args)
    return args.error();
  get_variables_request request;
  request.key = args->string("key");
  return request;
}

outcome<delete_variable_request>
parse_delete_user_variable(const json::object& raw) {
  auto args = arguments::check(delete_user_variable_input(), raw);
  if (!args)
    return args.error();
  delete_variable_request request;
  request.key = *args->string("key");
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
