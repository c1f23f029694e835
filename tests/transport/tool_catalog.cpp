#include "transitd/transport/tool_catalog.hpp"

#include <functional>

#include <catch2/catch.hpp>

#include "transitd/actors/trip_rules.hpp"
#include "transitd/transport/plan_json.hpp"
#include "transitd/transport/tool_list.hpp"

namespace json = boost::json;
using namespace transitd;

namespace {

/// A declaration using every kind of field.
const mcp::field& sample_input() {
  static const auto input = mcp::field::object(
    {},
    {mcp::field::string("name").length({1, 5}).required(),
     mcp::field::integer("count", int_range{1, 50, 10, "items"}),
     mcp::field::number("lat", latitude_range),
     mcp::field::boolean("flag"),
     mcp::field::choice("mode", {"a", "b"}),
     mcp::field::array("tags", mcp::field::string("tag")).at_most(2),
     mcp::field::object("inner", {mcp::field::integer("n", {0, 3, 0})}),
     mcp::field::tagged(
       "place", "type",
       {{"point", {mcp::field::number("x", {0, 1}).required()}},
        {"label", {mcp::field::string("value").required()}}}),
     mcp::field::choice("kind", {"p", "q"}),
     mcp::field::depends_on(
       "value", "kind",
       {{"p", {mcp::field::integer("p", {0, 9, 0}).required()}},
        {"q", {mcp::field::string("q")}}})});
  return input;
}

std::optional<failure> problem_with(const char* text) {
  auto parsed = mcp::arguments::check(sample_input(),
                                      json::parse(text).as_object());
  if (parsed)
    return std::nullopt;
  return parsed.error();
}

} // namespace

TEST_CASE("arguments are checked against their declaration, naming the "
          "field (D6)",
          "[tool_catalog][validation]") {
  CHECK_FALSE(problem_with(R"({"name":"x"})"));
  CHECK_FALSE(problem_with(
    R"({"name":"abcde","count":50,"lat":-90,"flag":true,"mode":"b",
        "tags":["t","u"],"inner":{"n":3},"place":{"type":"label","value":"k"},
        "kind":"p","value":{"p":9}})"));
  CHECK_FALSE(problem_with(R"({"name":"x","count":5.0,"inner":null})"));
  for (auto [text, says] : std::vector<std::pair<const char*, const char*>>{
         {R"({})", R"(missing required field "name" (a string))"},
         {R"({"name":7})", R"(field "name" must be a string, got a number)"},
         {R"({"name":""})", R"(field "name" must be non-empty)"},
         {R"({"name":"abcdef"})", R"(field "name" must be 1..5 characters, got 6)"},
         {R"({"name":"x","count":0})",
          R"(field "count" must be between 1 and 50 items, got 0)"},
         {R"({"name":"x","count":51})", R"(got 51)"},
         {R"({"name":"x","count":5.5})",
          R"(field "count" must be a whole number, got 5.5)"},
         {R"({"name":"x","count":"5"})", R"(field "count" must be an integer)"},
         {R"({"name":"x","lat":90.5})",
          R"(field "lat" must be between -90 and 90, got 90.5)"},
         {R"({"name":"x","flag":1})", R"(field "flag" must be a boolean)"},
         {R"({"name":"x","mode":"c"})",
          R"(field "mode" must be one of a, b; got "c")"},
         {R"({"name":"x","tags":["t",3]})", R"(field "tags[1]" must be a string)"},
         {R"({"name":"x","tags":["t","u","v"]})",
          R"(field "tags" may hold at most 2 items, got 3)"},
         {R"({"name":"x","inner":{"n":4}})", R"(field "inner.n" must be between 0 and 3)"},
         {R"({"name":"x","inner":{"m":1}})", R"(unknown field "inner.m")"},
         {R"({"name":"x","place":{"value":"k"}})",
          R"(missing required field "place.type")"},
         {R"({"name":"x","place":{"type":"area"}})",
          R"(field "place.type" must be one of point, label; got "area")"},
         {R"({"name":"x","place":{"type":"point","x":0.5,"value":"k"}})",
          R"(unknown field "place.value")"},
         {R"({"name":"x","place":{"type":"point","x":2}})",
          R"(field "place.x" must be between 0 and 1, got 2)"},
         {R"({"name":"x","kind":"p","value":{"q":"s"}})",
          R"(missing required field "value.p")"},
         {R"({"name":"x","kind":"q","value":{"q":"s","p":1}})",
          R"(unknown field "value.p")"},
         {R"({"name":"x","limt":5})", R"(unknown field "limt")"},
       }) {
    INFO(text);
    auto problem = problem_with(text);
    REQUIRE(problem);
    CHECK(problem->code == ec::validation_error);
    CHECK_THAT(problem->message, Catch::Contains(says));
  }
  CHECK_THAT(problem_with(R"({"name":"x","limt":5})")->hint,
             Catch::Contains("inputSchema"));
}

TEST_CASE("a declaration's schema says what its check enforces",
          "[tool_catalog][validation]") {
  auto schema = sample_input().schema();
  CHECK(schema.at("type") == "object");
  CHECK(schema.at("additionalProperties") == false);
  CHECK(schema.at("required") == json::array{"name"});
  const auto& p = schema.at("properties").as_object();
  CHECK(p.at("name").at("minLength") == 1);
  CHECK(p.at("name").at("maxLength") == 5);
  CHECK(p.at("count").at("minimum") == 1);
  CHECK(p.at("count").at("maximum") == 50);
  CHECK(p.at("count").at("default") == 10);
  CHECK(p.at("lat").at("minimum").to_number<double>() == -90);
  CHECK(p.at("mode").at("enum") == json::array{"a", "b"});
  CHECK(p.at("tags").at("maxItems") == 2);
  const auto& place = p.at("place").at("oneOf").as_array();
  REQUIRE(place.size() == 2);
  CHECK(place[0].at("properties").at("type").at("const") == "point");
  CHECK(place[0].at("required") == json::array{"type", "x"});
  const auto& value = p.at("value").at("oneOf").as_array();
  REQUIRE(value.size() == 2);
  CHECK(value[0].at("required") == json::array{"p"});
  // An unbounded range states its minimum only.
  auto open = mcp::field::integer("size", {1, int_range::unbounded, 10});
  CHECK_FALSE(open.schema().contains("maximum"));
}

TEST_CASE("tool results follow D2", "[tool_catalog]") {
  auto ok = mcp::success_outcome(json::object{{"x", 1}});
  CHECK_FALSE(ok.is_error);
  auto bad = mcp::error_outcome(
    make_failure(ec::rate_limited, "slow", "wait", 4), "cid");
  CHECK(bad.is_error);
  const auto& error = bad.error_body.at("error").as_object();
  CHECK(error.at("code").as_string() == "rate-limited");
  CHECK(error.at("message").as_string() == "slow");
  CHECK(error.at("correlationId").as_string() == "cid");
  CHECK(error.at("hint").as_string() == "wait");
  CHECK(error.at("retryAfter").as_int64() == 4);
  auto plain = mcp::error_outcome(make_failure(ec::validation_error, "x"),
                                  "cid");
  CHECK_FALSE(plain.error_body.at("error").as_object().contains("hint"));
  CHECK_FALSE(
    plain.error_body.at("error").as_object().contains("retryAfter"));
}

TEST_CASE("tool definitions carry schemas and hints (D3)", "[tool_catalog]") {
  mcp::tool_spec spec;
  spec.name = "t";
  spec.title = "T";
  spec.input = mcp::field::object({}, {});
  spec.output_schema = mcp::schema_object({}, {});
  auto def = mcp::tool_catalog::definition(spec);
  CHECK(def.at("inputSchema").at("type").as_string() == "object");
  CHECK(def.at("outputSchema").at("type").as_string() == "object");
  CHECK(def.at("annotations").at("readOnlyHint").as_bool());
  CHECK(def.at("annotations").at("openWorldHint").as_bool());
  spec.read_only = false;
  spec.open_world = false;
  def = mcp::tool_catalog::definition(spec);
  CHECK_FALSE(def.at("annotations").at("readOnlyHint").as_bool());
  CHECK_FALSE(def.at("annotations").at("openWorldHint").as_bool());
}

TEST_CASE("cancellation runs its on_cancel actions once, outside its lock",
          "[tool_catalog][cancel]") {
  mcp::cancellation cancel;
  int ran = 0;
  cancel.on_cancel([&] {
    ++ran;
    // Outside the lock: an action may look at the cancellation.
    CHECK(cancel.cancelled());
  });
  CHECK(ran == 0);
  cancel.cancel();
  CHECK(ran == 1);
  cancel.cancel();
  CHECK(ran == 1);
  // Registered after the fact: runs at once.
  int late = 0;
  cancel.on_cancel([&] { ++late; });
  CHECK(late == 1);
}

// -- every real tool: its schema and its parser agree ---------------------------

namespace {

/// Each tool's tools/list entry and its argument parser.
struct declared_tools {
  struct entry {
    json::object schema;
    std::function<std::optional<failure>(const json::object&)> parse;
  };
  std::vector<std::pair<std::string, entry>> tools;

  template <class Request, class Reply, class Parse>
  void add(const mcp::tool_spec& spec, Parse parse) {
    tools.push_back(
      {spec.name,
       {mcp::tool_catalog::definition(spec).at("inputSchema").as_object(),
        [parse](const json::object& args) -> std::optional<failure> {
          auto request = parse(args);
          if (request)
            return std::nullopt;
          return request.error();
        }}});
  }
  template <class Request, class Reply, class Parse>
  void tool(mcp::tool_spec spec, Parse parse) {
    add<Request, Reply>(spec, parse);
  }
  template <class Request, class Reply, class Parse>
  void london(mcp::tool_spec spec, Parse parse, mcp::london_tool) {
    add<Request, Reply>(spec, parse);
  }
};

/// The smallest value the schema allows: required members and optional
/// plain objects (so their members can be varied one at a time), the first
/// alternative and choice, minimum numbers, minimum-length strings.
json::value sample(const json::object& schema) {
  if (const auto* options = schema.if_contains("oneOf"))
    return sample(options->as_array().front().as_object());
  if (const auto* fixed = schema.if_contains("const"))
    return *fixed;
  if (const auto* choices = schema.if_contains("enum"))
    return choices->as_array().front();
  auto type = schema.at("type").as_string();
  if (type == "object") {
    json::object out;
    if (const auto* required = schema.if_contains("required"))
      for (const auto& name : required->as_array())
        out[name.as_string()] = sample(
          schema.at("properties").at(name.as_string()).as_object());
    for (const auto& [name, property] : schema.at("properties").as_object())
      if (const auto* kind = property.as_object().if_contains("type");
          kind != nullptr && *kind == "object")
        out[name] = sample(property.as_object());
    return out;
  }
  if (type == "string") {
    auto n = schema.contains("minLength")
               ? schema.at("minLength").to_number<std::size_t>()
               : std::size_t{1};
    return json::string(n, 'x');
  }
  if (type == "integer" || type == "number")
    return schema.at("minimum");
  if (type == "boolean")
    return true;
  return json::array{};
}

/// Calls `visit(path, property schema)` for every property reachable
/// through plain objects (not through alternatives).
template <class Visit>
void each_property(const json::object& schema,
                   const std::vector<std::string>& path, Visit& visit) {
  const auto* props = schema.if_contains("properties");
  if (props == nullptr || schema.contains("oneOf"))
    return;
  for (const auto& [name, property] : props->as_object()) {
    auto at = path;
    at.emplace_back(name);
    visit(at, property.as_object());
    each_property(property.as_object(), at, visit);
  }
}

json::object with(json::object args, const std::vector<std::string>& path,
                  json::value value) {
  json::object* at = &args;
  for (std::size_t i = 0; i + 1 < path.size(); ++i) {
    auto& next = (*at)[path[i]];
    if (!next.is_object())
      next = json::object{};
    at = &next.as_object();
  }
  (*at)[path.back()] = std::move(value);
  return args;
}

std::string dotted(const std::vector<std::string>& path) {
  std::string out;
  for (const auto& part : path)
    out += (out.empty() ? "" : ".") + part;
  return out;
}

} // namespace

TEST_CASE("every tool enforces exactly the bounds its schema shows",
          "[tool_catalog][validation]") {
  declared_tools declared;
  mcp::visit_tools(declared);
  REQUIRE(declared.tools.size() == 16);
  int bounds_checked = 0;
  for (const auto& [name, tool] : declared.tools) {
    INFO(name);
    auto valid = sample(tool.schema).as_object();
    INFO(json::serialize(valid));
    REQUIRE_FALSE(tool.parse(valid));
    CHECK(tool.parse(with(valid, {"noSuchField"}, 1)));
    auto visit = [&, &tool = tool](const std::vector<std::string>& path,
                                   const json::object& property) {
      auto field = dotted(path);
      INFO(field);
      auto rejects = [&](json::value value) {
        auto problem = tool.parse(with(valid, path, std::move(value)));
        return problem && problem->code == ec::validation_error
               && problem->message.find("\"" + field + "\"")
                    != std::string::npos;
      };
      auto accepts = [&](json::value value) {
        return !tool.parse(with(valid, path, std::move(value)));
      };
      const auto* type = property.if_contains("type");
      auto is = [type](const char* kind) {
        return type != nullptr && *type == kind;
      };
      if (is("integer")) {
        auto min = property.at("minimum").to_number<int64_t>();
        CHECK(accepts(min));
        CHECK(rejects(min - 1));
        if (property.contains("maximum")) {
          auto max = property.at("maximum").to_number<int64_t>();
          CHECK(accepts(max));
          CHECK(rejects(max + 1));
        } else { // no upper bound: large is only large
          CHECK(accepts(int64_t{3000000000}));
          CHECK(accepts(1e12));
        }
        if (property.contains("default"))
          CHECK(accepts(property.at("default")));
        CHECK(rejects(1.5));
        ++bounds_checked;
      }
      if (property.contains("enum")) {
        // Every choice passes this field's check (another field may
        // depend on it: save_user_variable's value on its type).
        for (const auto& choice : property.at("enum").as_array()) {
          auto problem = tool.parse(with(valid, path, choice));
          CHECK((!problem
                 || problem->message.find("\"" + field + "\"")
                      == std::string::npos));
        }
        CHECK(rejects("no-such-choice"));
      }
      if (is("number") && property.contains("minimum")) {
        auto min = property.at("minimum").to_number<double>();
        auto max = property.at("maximum").to_number<double>();
        CHECK(accepts(min));
        CHECK(accepts(max));
        CHECK(rejects(min - 0.5));
        CHECK(rejects(max + 0.5));
        CHECK(rejects("1"));
      }
      if (property.contains("minLength")) {
        auto min = property.at("minLength").to_number<std::size_t>();
        CHECK(rejects(json::string(min - 1, 'x')));
      }
      if (property.contains("maxLength")) {
        auto max = property.at("maxLength").to_number<std::size_t>();
        CHECK(accepts(json::string(max, 'x')));
        CHECK(rejects(json::string(max + 1, 'x')));
      }
      if (is("boolean"))
        CHECK(rejects("yes"));
    };
    each_property(tool.schema, {}, visit);
  }
  // windowMinutes, limit (x5), radius (x2), maxResults, size,
  // maxWalkingDistance (x2), maxTransfers (x2), maxMinutes.
  CHECK(bounds_checked == 15);
}

TEST_CASE("a bad value is worded alike over MCP and by the actor rule an "
          "embedding application meets, each naming the field in its "
          "caller's words",
          "[mcp][contract]") {
  auto args = boost::json::parse(
                R"({"origin":{"type":"coords","value":{"lat":60.17,"lon":24.94}},
                    "destination":{"type":"coords","value":{"lat":60.2,"lon":24.9}},
                    "limit":0})")
                .as_object();
  auto over_mcp = mcp::parse_plan_trip(args);
  REQUIRE_FALSE(over_mcp);
  CHECK(over_mcp.error().message == R"(field "limit" must be between 1 and 3, got 0)");
  plan_trip_request direct;
  direct.origin.type = direct.destination.type = location_input::kind::coords;
  direct.origin.position = {60.17, 24.94};
  direct.destination.position = {60.2, 24.9};
  direct.limit = 0;
  auto by_rule = validate(direct);
  REQUIRE(by_rule);
  CHECK(by_rule->code == ec::validation_error);
  CHECK(by_rule->message == over_mcp.error().message);
  // Nested fields too, and a choice.
  args["limit"] = 2;
  args["constraints"] = {{"maxTransfers", 9}};
  auto nested = mcp::parse_plan_trip(args);
  REQUIRE_FALSE(nested);
  direct.limit = 2;
  direct.constraints.max_transfers = 9;
  REQUIRE(validate(direct));
  // Over MCP the wire's name; from the rule, the C++ request's: wire names
  // stay in transport/.
  CHECK(nested.error().message
        == R"(field "constraints.maxTransfers" must be between 0 and 8, got 9)");
  CHECK(validate(direct)->message
        == R"(field "constraints.max_transfers" must be between 0 and 8, got 9)");
}
