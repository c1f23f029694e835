#include "transport/tool_catalog.hpp"

#include <catch2/catch.hpp>

namespace json = boost::json;
using namespace transitd;

TEST_CASE("the argument reader checks types and names fields",
          "[tool_catalog][validation]") {
  auto args = json::parse(R"({"a":"x","n":5,"d":5.0,"b":true,
                              "o":{"inner":1}})")
                .as_object();
  mcp::argument_reader reader{args};
  CHECK(reader.string("a", true) == std::optional<std::string>{"x"});
  CHECK(reader.integer("n", true) == std::optional<int64_t>{5});
  CHECK(reader.integer("d", true) == std::optional<int64_t>{5});
  CHECK(reader.boolean("b", true) == std::optional<bool>{true});
  CHECK(reader.object("o", true) != nullptr);
  CHECK_FALSE(reader.finish());

  auto with_fraction = json::parse(R"({"f":5.5})").as_object();
  mcp::argument_reader fractional{with_fraction};
  fractional.integer("f", true);
  auto problem = fractional.finish();
  REQUIRE(problem);
  CHECK_THAT(problem->message, Catch::Contains("\"f\""));
}

TEST_CASE("unknown fields are validation errors naming the field (D6)",
          "[tool_catalog][validation]") {
  auto args = json::parse(R"({"stop":1,"limt":5})").as_object();
  mcp::argument_reader reader{args};
  reader.integer("stop", true);
  auto problem = reader.finish();
  REQUIRE(problem);
  CHECK(problem->code == ec::validation_error);
  CHECK_THAT(problem->message, Catch::Contains("\"limt\""));
}

TEST_CASE("missing and mistyped fields name the dotted path",
          "[tool_catalog][validation]") {
  auto args = json::parse(R"({"value":7})").as_object();
  mcp::argument_reader reader{args, "stop"};
  reader.string("type", true);
  auto problem = reader.finish();
  REQUIRE(problem);
  CHECK_THAT(problem->message, Catch::Contains("\"stop.type\""));
  mcp::argument_reader typed{args, "stop"};
  typed.string("value", true);
  REQUIRE(typed.finish());
  CHECK_THAT(typed.finish()->message, Catch::Contains("must be a string"));
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
  spec.input_schema = mcp::schema_object({}, {});
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
