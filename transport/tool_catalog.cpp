#include "transport/tool_catalog.hpp"

#include <algorithm>
#include <cmath>

namespace json = boost::json;

namespace transitd::mcp {

tool_outcome success_outcome(json::object structured) {
  tool_outcome out;
  out.structured = std::move(structured);
  return out;
}

tool_outcome error_outcome(const failure& f,
                           const std::string& correlation_id) {
  json::object error;
  error["code"] = to_wire(f.code);
  error["message"] = f.message;
  error["correlationId"] = correlation_id;
  if (!f.hint.empty())
    error["hint"] = f.hint;
  if (f.retry_after > 0)
    error["retryAfter"] = f.retry_after;
  tool_outcome out;
  out.is_error = true;
  out.code = f.code;
  out.error_body["error"] = std::move(error);
  return out;
}

void cancellation::cancel() {
  std::vector<std::function<void()>> actions;
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (cancelled_)
      return;
    cancelled_ = true;
    actions.swap(actions_);
  }
  condition_.notify_all();
  for (auto& action : actions)
    action();
}

void cancellation::on_cancel(std::function<void()> action) {
  {
    std::lock_guard<std::mutex> guard{mutex_};
    if (!cancelled_) {
      actions_.push_back(std::move(action));
      return;
    }
  }
  action();
}

bool cancellation::cancelled() const {
  std::lock_guard<std::mutex> guard{mutex_};
  return cancelled_;
}

void tool_catalog::add(tool_spec spec) {
  tools_.push_back(std::move(spec));
}

const tool_spec* tool_catalog::find(std::string_view name) const {
  for (const auto& spec : tools_)
    if (spec.name == name)
      return &spec;
  return nullptr;
}

json::object tool_catalog::definition(const tool_spec& spec) {
  json::object annotations;
  annotations["title"] = spec.title;
  annotations["readOnlyHint"] = spec.read_only;
  annotations["destructiveHint"] = spec.destructive;
  annotations["idempotentHint"] = spec.idempotent;
  annotations["openWorldHint"] = spec.open_world;
  json::object out;
  out["name"] = spec.name;
  out["title"] = spec.title;
  out["description"] = spec.description;
  out["inputSchema"] = spec.input_schema;
  out["outputSchema"] = spec.output_schema;
  out["annotations"] = std::move(annotations);
  return out;
}

// -- argument_reader ----------------------------------------------------------

argument_reader::argument_reader(const json::object& arguments,
                                 std::string path)
  : arguments_(arguments), path_(std::move(path)) {
}

std::string argument_reader::field(std::string_view name) const {
  return path_.empty() ? std::string{name} : path_ + "." + std::string{name};
}

void argument_reader::fail(std::string message) {
  if (!problem_)
    problem_ = std::move(message);
}

const json::value* argument_reader::lookup(std::string_view name,
                                           bool required,
                                           std::string_view expected) {
  consumed_.emplace_back(name);
  auto it = arguments_.find(name);
  if (it == arguments_.end() || it->value().is_null()) {
    if (required)
      fail("missing required field \"" + field(name) + "\" (" +
           std::string{expected} + ")");
    return nullptr;
  }
  return &it->value();
}

namespace {

std::string kind_of(const json::value& v) {
  switch (v.kind()) {
    case json::kind::string:
      return "a string";
    case json::kind::bool_:
      return "a boolean";
    case json::kind::object:
      return "an object";
    case json::kind::array:
      return "an array";
    case json::kind::null:
      return "null";
    default:
      return "a number";
  }
}

} // namespace

std::optional<std::string> argument_reader::string(std::string_view name,
                                                   bool required) {
  const auto* v = lookup(name, required, "a string");
  if (v == nullptr)
    return std::nullopt;
  if (!v->is_string()) {
    fail("field \"" + field(name) + "\" must be a string, got " + kind_of(*v));
    return std::nullopt;
  }
  return std::string{v->get_string()};
}

std::optional<double> argument_reader::number(std::string_view name,
                                              bool required) {
  const auto* v = lookup(name, required, "a number");
  if (v == nullptr)
    return std::nullopt;
  if (v->is_int64())
    return static_cast<double>(v->get_int64());
  if (v->is_uint64())
    return static_cast<double>(v->get_uint64());
  if (v->is_double() && std::isfinite(v->get_double()))
    return v->get_double();
  fail("field \"" + field(name) + "\" must be a number, got " + kind_of(*v));
  return std::nullopt;
}

std::optional<int64_t> argument_reader::integer(std::string_view name,
                                                bool required) {
  const auto* v = lookup(name, required, "an integer");
  if (v == nullptr)
    return std::nullopt;
  if (v->is_int64())
    return v->get_int64();
  if (v->is_uint64()) {
    auto u = v->get_uint64();
    return u > static_cast<uint64_t>(INT64_MAX) ? INT64_MAX
                                                : static_cast<int64_t>(u);
  }
  if (v->is_double()) {
    auto d = v->get_double();
    if (std::isfinite(d) && std::floor(d) == d && std::fabs(d) < 9.0e15)
      return static_cast<int64_t>(d);
    fail("field \"" + field(name) + "\" must be a whole number, got "
         + json::serialize(*v));
    return std::nullopt;
  }
  fail("field \"" + field(name) + "\" must be an integer, got " + kind_of(*v));
  return std::nullopt;
}

std::optional<bool> argument_reader::boolean(std::string_view name,
                                             bool required) {
  const auto* v = lookup(name, required, "a boolean");
  if (v == nullptr)
    return std::nullopt;
  if (!v->is_bool()) {
    fail("field \"" + field(name) + "\" must be a boolean, got " + kind_of(*v));
    return std::nullopt;
  }
  return v->get_bool();
}

const json::object* argument_reader::object(std::string_view name,
                                            bool required) {
  const auto* v = lookup(name, required, "an object");
  if (v == nullptr)
    return nullptr;
  if (!v->is_object()) {
    fail("field \"" + field(name) + "\" must be an object, got "
         + kind_of(*v));
    return nullptr;
  }
  return &v->get_object();
}

const json::array* argument_reader::array(std::string_view name,
                                          bool required) {
  const auto* v = lookup(name, required, "an array");
  if (v == nullptr)
    return nullptr;
  if (!v->is_array()) {
    fail("field \"" + field(name) + "\" must be an array, got " + kind_of(*v));
    return nullptr;
  }
  return &v->get_array();
}

std::optional<failure> argument_reader::finish() {
  if (problem_)
    return make_failure(ec::validation_error, *problem_);
  for (const auto& item : arguments_) {
    auto key = std::string_view{item.key()};
    if (std::find(consumed_.begin(), consumed_.end(), key) == consumed_.end())
      return make_failure(ec::validation_error,
                          "unknown field \"" + field(key) + "\"",
                          "check the tool's inputSchema for the field names");
  }
  return std::nullopt;
}

// -- schema building blocks -----------------------------------------------------

namespace {

void describe(json::object& schema, const std::string& description) {
  if (!description.empty())
    schema["description"] = description;
}

} // namespace

json::object schema_object(json::object properties,
                           std::vector<std::string> required) {
  json::object out;
  out["type"] = "object";
  out["properties"] = std::move(properties);
  if (!required.empty()) {
    json::array names;
    for (auto& name : required)
      names.emplace_back(std::move(name));
    out["required"] = std::move(names);
  }
  out["additionalProperties"] = false;
  return out;
}

json::object schema_string(std::string description) {
  json::object out{{"type", "string"}};
  describe(out, description);
  return out;
}

json::object schema_enum(std::vector<std::string> values,
                         std::string description) {
  json::array options;
  for (auto& value : values)
    options.emplace_back(std::move(value));
  json::object out{{"type", "string"}, {"enum", std::move(options)}};
  describe(out, description);
  return out;
}

json::object schema_integer(int64_t minimum, int64_t maximum,
                            std::optional<int64_t> default_value,
                            std::string description) {
  json::object out{{"type", "integer"},
                   {"minimum", minimum},
                   {"maximum", maximum}};
  if (default_value)
    out["default"] = *default_value;
  describe(out, description);
  return out;
}

json::object schema_number(std::string description) {
  json::object out{{"type", "number"}};
  describe(out, description);
  return out;
}

json::object schema_boolean(std::string description) {
  json::object out{{"type", "boolean"}};
  describe(out, description);
  return out;
}

json::object schema_array(json::object items, std::string description) {
  json::object out{{"type", "array"}, {"items", std::move(items)}};
  describe(out, description);
  return out;
}

json::object schema_warnings() {
  json::object warning;
  warning["code"] = schema_string("machine-readable, e.g. truncated-results");
  warning["message"] = schema_string();
  return schema_array(schema_object(std::move(warning), {"code", "message"}),
                      "non-fatal remarks about the result");
}

std::vector<std::string> transit_mode_names() {
  std::vector<std::string> names;
  for (auto mode : all_transit_modes())
    names.emplace_back(to_string(mode));
  return names;
}

} // namespace transitd::mcp
