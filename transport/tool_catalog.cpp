#include "transitd/transport/tool_catalog.hpp"

#include "transitd/transport/hints.hpp"
#include "transitd/transport/views.hpp"

#include <algorithm>
#include <climits>
#include <cmath>

namespace json = boost::json;

namespace transitd::mcp {

tool_outcome success_outcome(json::object structured) {
  tool_outcome out;
  out.structured = std::move(structured);
  return out;
}

tool_outcome text_outcome(std::string structured_text) {
  tool_outcome out;
  out.structured_text = std::move(structured_text);
  return out;
}

tool_outcome error_outcome(const failure& f,
                           const std::string& correlation_id) {
  json::object error;
  error["code"] = to_wire(f.code);
  error["message"] = in_daemon_terms(f.message);
  error["correlationId"] = correlation_id;
  if (!f.hint.empty())
    error["hint"] = in_daemon_terms(f.hint);
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
  out["inputSchema"] = spec.input.schema();
  out["outputSchema"] = spec.output_schema;
  out["annotations"] = std::move(annotations);
  if (const auto* v = view_of_tool(spec.name)) {
    // MCP Apps: the view a host draws the result with (and the flat key
    // hosts of the extension's first drafts read).
    json::object meta;
    meta["ui"] = json::object{{"resourceUri", v->uri}};
    meta["ui/resourceUri"] = v->uri;
    out["_meta"] = std::move(meta);
  }
  return out;
}

// -- field: one declaration, its schema and its check ------------------------

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

std::string quoted(const std::string& path) {
  return "field \"" + path + "\"";
}

std::string join_path(const std::string& path, std::string_view name) {
  return path.empty() ? std::string{name} : path + "." + std::string{name};
}

/// What a field expects, for "missing required field" messages.
std::string expected(const field& f) {
  switch (f.type) {
    case field::kind::string:
    case field::kind::choice:
      return "a string";
    case field::kind::integer:
      return "an integer";
    case field::kind::number:
      return "a number";
    case field::kind::boolean:
      return "a boolean";
    case field::kind::array:
      return "an array";
    default:
      return "an object";
  }
}

field make(field::kind type, std::string name, std::string description) {
  field f;
  f.type = type;
  f.name = std::move(name);
  f.description = std::move(description);
  return f;
}

/// Checks the members of `object` (declared in `members`, plus `extra`
/// names that something else checked) and rejects undeclared ones.
std::optional<std::string>
check_members(const std::vector<field>& members, const json::object& object,
              const std::string& path, std::string_view extra = {}) {
  for (const auto& member : members) {
    auto at = join_path(path, member.name);
    auto it = object.find(member.name);
    if (it == object.end() || it->value().is_null()) {
      if (member.is_required)
        return "missing required field \"" + at + "\" (" + expected(member)
               + ")";
      continue;
    }
    if (auto problem = member.check(it->value(), at, &object))
      return problem;
  }
  for (const auto& item : object) {
    auto key = std::string_view{item.key()};
    if (key == extra)
      continue;
    auto declared = std::any_of(members.begin(), members.end(),
                                [&](const field& m) { return m.name == key; });
    if (!declared)
      return "unknown field \"" + join_path(path, key) + "\"";
  }
  return std::nullopt;
}

const alternative* find_alternative(const std::vector<alternative>& options,
                                    std::string_view tag) {
  for (const auto& option : options)
    if (option.tag == tag)
      return &option;
  return nullptr;
}

std::vector<std::string> tags_of(const std::vector<alternative>& options) {
  std::vector<std::string> tags;
  for (const auto& option : options)
    tags.push_back(option.tag);
  return tags;
}

json::object members_schema(const std::vector<field>& members,
                            json::object extra_properties = {},
                            std::vector<std::string> required = {}) {
  json::object properties = std::move(extra_properties);
  for (const auto& member : members) {
    properties[member.name] = member.schema();
    if (member.is_required)
      required.push_back(member.name);
  }
  return schema_object(std::move(properties), std::move(required));
}

} // namespace

field field::string(std::string name, std::string description) {
  return make(kind::string, std::move(name), std::move(description));
}

field field::choice(std::string name, std::vector<std::string> choices,
                    std::string description) {
  auto f = make(kind::choice, std::move(name), std::move(description));
  f.choices = std::move(choices);
  return f;
}

field field::integer(std::string name, const int_range& range,
                     std::string description) {
  auto f = make(kind::integer, std::move(name), std::move(description));
  f.ints = range;
  f.default_value = range.fallback;
  return f;
}

field field::number(std::string name, const real_range& range,
                    std::string description) {
  auto f = make(kind::number, std::move(name), std::move(description));
  f.reals = range;
  return f;
}

field field::boolean(std::string name, std::string description) {
  return make(kind::boolean, std::move(name), std::move(description));
}

field field::object(std::string name, std::vector<field> members,
                    std::string description) {
  auto f = make(kind::object, std::move(name), std::move(description));
  f.members = std::move(members);
  return f;
}

field field::array(std::string name, field item, std::string description) {
  auto f = make(kind::array, std::move(name), std::move(description));
  f.members.push_back(std::move(item));
  return f;
}

field field::tagged(std::string name, std::string tag,
                    std::vector<alternative> alternatives,
                    std::string description) {
  auto f = make(kind::tagged, std::move(name), std::move(description));
  f.tag = std::move(tag);
  f.alternatives = std::move(alternatives);
  return f;
}

field field::depends_on(std::string name, std::string sibling,
                        std::vector<alternative> alternatives,
                        std::string description) {
  auto f = make(kind::depends_on, std::move(name), std::move(description));
  f.tag = std::move(sibling);
  f.alternatives = std::move(alternatives);
  return f;
}

field& field::required() {
  is_required = true;
  return *this;
}

field& field::length(const length_range& range) {
  text_length = range;
  return *this;
}

field& field::when_invalid(std::string message) {
  invalid_message = std::move(message);
  return *this;
}

field& field::trimmed() {
  trim = true;
  return *this;
}

field& field::at_most(std::size_t items) {
  max_items = items;
  return *this;
}

field& field::fallback(json::value value) {
  default_value = std::move(value);
  return *this;
}

field& field::header(std::string name) {
  mcp_header = std::move(name);
  return *this;
}

json::object field::schema() const {
  json::object out;
  switch (type) {
    case kind::string:
      out = schema_string();
      if (text_length) {
        if (text_length->min > 0)
          out["minLength"] = text_length->min;
        if (text_length->max != length_range::unbounded)
          out["maxLength"] = text_length->max;
      }
      break;
    case kind::choice:
      out = schema_enum(choices);
      break;
    case kind::integer:
      out = json::object{{"type", "integer"}, {"minimum", ints.min}};
      if (ints.max != int_range::unbounded)
        out["maximum"] = ints.max;
      break;
    case kind::number:
      out = json::object{{"type", "number"},
                         {"minimum", reals.min},
                         {"maximum", reals.max}};
      break;
    case kind::boolean:
      out = schema_boolean();
      break;
    case kind::object:
      out = members_schema(members);
      break;
    case kind::array:
      out = schema_array(members.front().schema());
      if (max_items)
        out["maxItems"] = *max_items;
      break;
    case kind::tagged:
    case kind::depends_on: {
      json::array options;
      for (const auto& option : alternatives) {
        if (type == kind::tagged)
          options.push_back(members_schema(
            option.members,
            json::object{{tag, json::object{{"const", option.tag}}}},
            {tag}));
        else
          options.push_back(members_schema(option.members));
      }
      out["oneOf"] = std::move(options);
      break;
    }
  }
  if (!default_value.is_null())
    out["default"] = default_value;
  if (!description.empty())
    out["description"] = description;
  if (!mcp_header.empty())
    out["x-mcp-header"] = mcp_header;
  return out;
}

std::optional<std::string> field::check(const json::value& value,
                                        const std::string& path,
                                        const json::object* parent) const {
  auto wrong = [&](const std::string& what) {
    return quoted(path) + " must be " + what + ", got " + kind_of(value);
  };
  // A value outside its bounds: the shared check's words, or the field's.
  auto from = [&](std::optional<failure> problem) -> std::optional<std::string> {
    if (!problem)
      return std::nullopt;
    if (!invalid_message.empty())
      return quoted(path) + " " + invalid_message;
    return problem->message;
  };
  switch (type) {
    case kind::string:
      if (!value.is_string())
        return wrong("a string");
      if (!text_length)
        return std::nullopt;
      return from(check_length(
        path,
        trim ? trim_space(value.get_string()) : value.get_string(),
        *text_length));
    case kind::choice:
      if (!value.is_string())
        return wrong("a string");
      return from(check_choice(path, value.get_string(), choices));
    case kind::integer: {
      int64_t n = 0;
      if (value.is_int64()) {
        n = value.get_int64();
      } else if (value.is_uint64()) {
        n = value.get_uint64() > static_cast<uint64_t>(INT64_MAX)
              ? INT64_MAX
              : static_cast<int64_t>(value.get_uint64());
      } else if (value.is_double()) {
        auto d = value.get_double();
        if (!std::isfinite(d) || std::floor(d) != d || std::fabs(d) >= 9.0e15)
          return quoted(path) + " must be a whole number, got "
                 + json::serialize(value);
        n = static_cast<int64_t>(d);
      } else {
        return wrong("an integer");
      }
      // Past an open upper bound a number is only large: the rule caps it
      // (geocode size, D10), and it must fit the request's int32.
      if (ints.max == int_range::unbounded)
        n = std::min<int64_t>(n, int_range::unbounded);
      return from(check_range(path, n, ints));
    }
    case kind::number: {
      if (!value.is_number())
        return wrong("a number");
      return from(check_range(path, value.to_number<double>(), reals));
    }
    case kind::boolean:
      if (!value.is_bool())
        return wrong("a boolean");
      return std::nullopt;
    case kind::object:
      if (!value.is_object())
        return wrong("an object");
      return check_members(members, value.get_object(), path);
    case kind::array: {
      if (!value.is_array())
        return wrong("an array");
      const auto& items = value.get_array();
      if (max_items && items.size() > *max_items)
        return quoted(path) + " may hold at most "
               + std::to_string(*max_items) + " items, got "
               + std::to_string(items.size());
      for (std::size_t i = 0; i < items.size(); ++i)
        if (auto problem = members.front().check(
              items[i], path + "[" + std::to_string(i) + "]", nullptr))
          return problem;
      return std::nullopt;
    }
    case kind::tagged: {
      if (!value.is_object())
        return wrong("an object");
      const auto& object = value.get_object();
      auto tag_path = join_path(path, tag);
      const auto* tag_value = object.if_contains(tag);
      if (tag_value == nullptr || tag_value->is_null())
        return "missing required field \"" + tag_path + "\" (a string)";
      if (!tag_value->is_string())
        return quoted(tag_path) + " must be a string, got "
               + kind_of(*tag_value);
      const auto* option = find_alternative(alternatives,
                                            tag_value->get_string());
      if (option == nullptr)
        return from(check_choice(tag_path, tag_value->get_string(),
                                 tags_of(alternatives)));
      return check_members(option->members, object, path, tag);
    }
    case kind::depends_on: {
      if (!value.is_object())
        return wrong("an object");
      const json::value* tag_value
        = parent != nullptr ? parent->if_contains(tag) : nullptr;
      const auto* option
        = tag_value != nullptr && tag_value->is_string()
            ? find_alternative(alternatives, tag_value->get_string())
            : nullptr;
      if (option == nullptr) // the sibling's own check names the problem
        return quoted(path) + " needs a valid \"" + tag + "\" beside it";
      return check_members(option->members, value.get_object(), path);
    }
  }
  return std::nullopt;
}

// -- arguments ----------------------------------------------------------------

outcome<arguments> arguments::check(const field& input,
                                    const json::object& raw) {
  // The members directly: no copy of the arguments into a json::value.
  if (auto problem = check_members(input.members, raw, {})) {
    auto hint = problem->rfind("unknown field", 0) == 0
                  ? "check the tool's inputSchema for the field names"
                  : "";
    return make_failure(ec::validation_error, std::move(*problem), hint);
  }
  return arguments{raw};
}

const json::value* arguments::find(std::string_view name) const {
  const auto* v = raw_->if_contains(name);
  return v == nullptr || v->is_null() ? nullptr : v;
}

std::optional<std::string> arguments::string(std::string_view name) const {
  const auto* v = find(name);
  if (v == nullptr || !v->is_string())
    return std::nullopt;
  return std::string{v->get_string()};
}

std::optional<int32_t> arguments::integer(std::string_view name) const {
  const auto* v = find(name);
  if (v == nullptr || !v->is_number())
    return std::nullopt;
  // The declaration bounded it to an int_range: it fits.
  auto n = v->is_double() ? static_cast<int64_t>(v->get_double())
                          : v->to_number<int64_t>();
  return static_cast<int32_t>(
    std::clamp<int64_t>(n, INT32_MIN, INT32_MAX));
}

std::optional<double> arguments::number(std::string_view name) const {
  const auto* v = find(name);
  if (v == nullptr || !v->is_number())
    return std::nullopt;
  return v->to_number<double>();
}

std::optional<bool> arguments::boolean(std::string_view name) const {
  const auto* v = find(name);
  if (v == nullptr || !v->is_bool())
    return std::nullopt;
  return v->get_bool();
}

std::optional<arguments> arguments::object(std::string_view name) const {
  const auto* v = find(name);
  if (v == nullptr || !v->is_object())
    return std::nullopt;
  return arguments{v->get_object()};
}

std::vector<std::string> arguments::strings(std::string_view name) const {
  std::vector<std::string> out;
  if (const auto* v = find(name); v != nullptr && v->is_array())
    for (const auto& item : v->get_array())
      if (item.is_string())
        out.emplace_back(item.get_string());
  return out;
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
