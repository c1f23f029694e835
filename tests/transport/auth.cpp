// Bearer tokens: the tokens file, lookup, header parsing, loopback binds.

#include "transitd/transport/auth.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("a tokens file maps tokens to principals", "[auth]") {
  auto table = token_table::parse("# ops team\n"
                                  "alice   alice-token-0123456789\n"
                                  "\n"
                                  "bob\tbob-token-0123456789abc\n",
                                  "tokens");
  REQUIRE(table);
  CHECK(table->size() == 2);
  CHECK(table->principal_of("alice-token-0123456789") == "alice");
  CHECK(table->principal_of("bob-token-0123456789abc") == "bob");
  CHECK_FALSE(table->principal_of("alice-token-012345678"));
  CHECK_FALSE(table->principal_of(""));
}

TEST_CASE("a bad tokens file names the line, never the token", "[auth]") {
  auto short_token = token_table::parse("alice short\n", "t");
  REQUIRE_FALSE(short_token);
  CHECK_THAT(short_token.error().message, Catch::Contains("t:1"));
  CHECK_THAT(short_token.error().message, Catch::Contains("at least 16"));
  CHECK(short_token.error().message.find("short") == std::string::npos);
  auto missing = token_table::parse("# c\nalice\n", "t");
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::Contains("t:2"));
  auto extra = token_table::parse("alice aaaaaaaaaaaaaaaaaaaa x\n", "t");
  CHECK_FALSE(extra);
  auto bad_name = token_table::parse("al/ice aaaaaaaaaaaaaaaaaaaa\n", "t");
  REQUIRE_FALSE(bad_name);
  CHECK_THAT(bad_name.error().message, Catch::Contains("principal"));
  auto duplicate = token_table::parse("a aaaaaaaaaaaaaaaaaaaa\n"
                                      "b aaaaaaaaaaaaaaaaaaaa\n",
                                      "t");
  REQUIRE_FALSE(duplicate);
  CHECK_THAT(duplicate.error().message, Catch::Contains("t:2"));
  CHECK(duplicate.error().message.find("aaaa") == std::string::npos);
  // Columns swapped: the first field is the token; it is not echoed.
  auto swapped = token_table::parse(
    "3f1c0e9a7b5d4e2f8a6c1b0d9e7f5a3c planner-agent\n", "t");
  REQUIRE_FALSE(swapped);
  CHECK_THAT(swapped.error().message, Catch::Contains("t:1"));
  CHECK_THAT(swapped.error().message, Catch::Contains("swapped"));
  CHECK(swapped.error().message.find("3f1c") == std::string::npos);
  auto swapped_b64 = token_table::parse("ab+/cd==efgh1234ijkl agent\n", "t");
  REQUIRE_FALSE(swapped_b64);
  CHECK(swapped_b64.error().message.find("ab+/") == std::string::npos);
  auto empty = token_table::parse("# nothing\n", "t");
  REQUIRE_FALSE(empty);
  CHECK_THAT(empty.error().message, Catch::Contains("no tokens"));
}

TEST_CASE("bearer tokens are read from Authorization", "[auth]") {
  CHECK(bearer_token("Bearer abc") == std::string_view{"abc"});
  CHECK(bearer_token("bearer   abc  ") == std::string_view{"abc"});
  CHECK_FALSE(bearer_token("Basic abc"));
  CHECK_FALSE(bearer_token("Bearer"));
  CHECK_FALSE(bearer_token("Bearer   "));
  CHECK_FALSE(bearer_token("Bearerabc"));
  CHECK_FALSE(bearer_token(""));
}

TEST_CASE("loopback binds are recognised", "[auth]") {
  CHECK(is_loopback_address("127.0.0.1"));
  CHECK(is_loopback_address("127.1.2.3"));
  CHECK(is_loopback_address("::1"));
  CHECK(is_loopback_address("localhost"));
  CHECK_FALSE(is_loopback_address("0.0.0.0"));
  CHECK_FALSE(is_loopback_address("::"));
  CHECK_FALSE(is_loopback_address("192.168.1.10"));
  CHECK_FALSE(is_loopback_address("1270.0.0.1"));
  // Parsed, not matched by prefix: a name under "127." is no address.
  CHECK_FALSE(is_loopback_address("127.evil.example"));
  CHECK_FALSE(is_loopback_address("127.0.0.1.nip.io"));
}
