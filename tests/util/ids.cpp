#include "transitd/util/ids.hpp"

#include <regex>
#include <set>

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("correlation ids are RFC 4122 version 4 UUIDs", "[ids]") {
  std::regex uuid_v4{
    "^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$"};
  std::set<std::string> seen;
  for (int i = 0; i < 1000; ++i) {
    auto id = make_uuid_v4();
    REQUIRE(std::regex_match(id, uuid_v4));
    seen.insert(id);
  }
  CHECK(seen.size() == 1000);
}

TEST_CASE("session tokens are 256 random bits in hex", "[ids]") {
  auto a = make_secret_token();
  auto b = make_secret_token();
  CHECK(a.size() == 64);
  CHECK(a.find_first_not_of("0123456789abcdef") == std::string::npos);
  CHECK(a != b);
}
