// JSON text for agents: plain decimals, the same values, valid JSON.

#include "transitd/transport/json_text.hpp"

#include <catch2/catch.hpp>

#include <boost/json.hpp>

namespace json = boost::json;
using namespace transitd::mcp;

TEST_CASE("numbers are plain decimals, never exponents", "[json_text]") {
  CHECK(json_text(json::value(60.16965252881389)) == "60.16965252881389");
  CHECK(json_text(json::value(decimals(60.16965252881389, 6))) == "60.169653");
  CHECK(json_text(json::value(0.000012)) == "0.000012");
  CHECK(json_text(json::value(1.0e21)) == "1000000000000000000000");
  CHECK(json_text(json::value(-24.5)) == "-24.5");
  CHECK(json_text(json::value(3.0)) == "3");
  CHECK(json_text(json::value(int64_t{-7})) == "-7");
  CHECK(json_text(json::value(uint64_t{18446744073709551615u}))
        == "18446744073709551615");
  // Boost.JSON's own writer, which this replaces, uses exponents.
  CHECK(json::serialize(json::value(60.16965252881389)).find('E')
        != std::string::npos);
}

TEST_CASE("rounding keeps the precision a value deserves", "[json_text]") {
  CHECK(decimals(24.93813716, coordinate_places) == 24.938137);
  CHECK(decimals(-24.93813716, coordinate_places) == -24.938137);
  CHECK(decimals(0.87654, confidence_places) == 0.877);
  CHECK(decimals(1e300, coordinate_places) == 1e300);
  CHECK(json_text(coordinate_json(60.16965252881389, 24.93813716))
        == R"({"lat":60.169653,"lon":24.938137})");
}

TEST_CASE("the text reads back to the same value", "[json_text]") {
  json::value v = json::parse(
    R"({"s":"quote \" backslash \\ tab \t nl \n ctl \u0001 é ✓","a":[1,-2.5,true,false,null,{}],"o":{"k":[]}})");
  auto text = json_text(v);
  CHECK(json::parse(text) == v);
  CHECK(text.find("\\u0001") != std::string::npos);
  CHECK(json_text(json::value(std::nan(""))) == "null");
}

TEST_CASE("a text block is one escaped string literal", "[json_text]") {
  std::string text = R"({"a":"b\"c"})" "\n";
  auto literal = json_string(text);
  CHECK(literal.front() == '"');
  CHECK(json::parse(literal).as_string() == text);
  CHECK(literal == json::serialize(json::string_view{text}));
}

TEST_CASE("strings escape as Boost.JSON's writer does, in both ways of "
          "writing them",
          "[json_text]") {
  // The one-pass way (quotes dense, every short escape, UTF-8 kept), and
  // the sized way a control character that needs \u00XX switches to, here
  // after much of the string has been written the first way.
  std::string dense;
  for (int i = 0; i < 200; ++i)
    dense += "{\"k\":\"v\\\b\f\n\r\t é\"}";
  for (const std::string& text :
       {std::string{}, std::string{"plain"}, std::string{"\""}, dense,
        dense + std::string{"\x01"} + dense, std::string{"\x1f"}}) {
    std::string out = "x";
    append_json_string(out, text);
    CHECK(out == "x" + json::serialize(json::string_view{text}));
    CHECK(json::parse(out.substr(1)).as_string() == text);
  }
}

TEST_CASE("the object writer puts members and commas in place",
          "[json_text]") {
  std::string out;
  json_object_writer w{out};
  w.string("a", "q\"");
  w.integer("n", -3);
  w.boolean("b", false);
  w.maybe_string("none", std::nullopt);
  w.end();
  CHECK(out == R"({"a":"q\"","n":-3,"b":false})");
}
