#include "transitd/transport/variables_json.hpp"

#include <catch2/catch.hpp>

namespace json = boost::json;
using namespace transitd;

TEST_CASE("save_user_variable arguments map by type",
          "[variables][json]") {
  auto loc = mcp::parse_save_user_variable(json::parse(R"(
    {"key":"home","type":"location",
     "value":{"lat":60.17,"lon":24.94,"name":"Home","address":"Street 1"}})")
                                             .as_object());
  REQUIRE(loc);
  CHECK(loc->variable.type == variable_type::location);
  CHECK(loc->variable.lat == Approx(60.17));
  CHECK(loc->variable.address == std::optional<std::string>{"Street 1"});
  auto st = mcp::parse_save_user_variable(json::parse(R"(
    {"key":"work","type":"stop","value":{"stopId":"HSL:1"}})")
                                            .as_object());
  REQUIRE(st);
  CHECK(st->variable.stop_id == "HSL:1");
}

TEST_CASE("save_user_variable rejects mismatched values by name",
          "[variables][json][validation]") {
  for (auto [text, names] : std::vector<std::pair<const char*, const char*>>{
         {R"({"key":"k","type":"place","value":{}})", "\"type\""},
         {R"({"key":"k","type":"stop","value":{"lat":1,"lon":2}})",
          "value.stopId"},
         {R"({"key":"k","type":"location","value":{"stopId":"x"}})",
          "value.lat"},
         {R"({"key":"k","type":"location","value":{"lat":1,"lon":2,"x":1}})",
          "value.x"},
         {R"({"type":"stop","value":{"stopId":"x"}})", "\"key\""},
         {R"({"key":"k","type":"stop","value":"HSL:1"})", "\"value\""},
       }) {
    INFO(text);
    auto r = mcp::parse_save_user_variable(json::parse(text).as_object());
    REQUIRE_FALSE(r);
    CHECK(r.error().code == ec::validation_error);
    CHECK_THAT(r.error().message, Catch::Contains(names));
  }
}

TEST_CASE("variables render with their typed value", "[variables][json]") {
  user_variable v;
  v.key = "work";
  v.type = variable_type::stop;
  v.stop_id = "HSL:1";
  v.updated_ms = 1757930400000;
  auto out = mcp::to_json(v);
  CHECK(out.at("type").as_string() == "stop");
  CHECK(out.at("value").at("stopId").as_string() == "HSL:1");
  CHECK_FALSE(out.at("value").as_object().contains("lat"));
  CHECK(out.at("updatedAt").as_string() == "2025-09-15T10:00:00Z");
}

TEST_CASE("variable tools are marked as writing to the caller's data (D3)",
          "[variables][json]") {
  auto save = mcp::tool_catalog::definition(mcp::save_user_variable_spec());
  CHECK_FALSE(save.at("annotations").at("readOnlyHint").as_bool());
  CHECK_FALSE(save.at("annotations").at("openWorldHint").as_bool());
  auto get = mcp::tool_catalog::definition(mcp::get_user_variables_spec());
  CHECK(get.at("annotations").at("readOnlyHint").as_bool());
  auto del = mcp::tool_catalog::definition(mcp::delete_user_variable_spec());
  CHECK(del.at("annotations").at("destructiveHint").as_bool());
}
