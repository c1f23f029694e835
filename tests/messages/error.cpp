#include "transitd/messages/error.hpp"
#include "transitd/messages/resilience.hpp"

#include <set>
#include <string>

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("every error code has distinct wire names", "[errors]") {
  std::set<std::string> lower;
  std::set<std::string> upper;
  for (std::size_t i = 0; i < ec_count; ++i) {
    auto code = static_cast<ec>(i);
    lower.insert(std::string{to_wire(code)});
    upper.insert(std::string{to_wire_upper(code)});
  }
  CHECK(lower.size() == ec_count);
  CHECK(upper.size() == ec_count);
}

TEST_CASE("wire names match the contracts", "[errors]") {
  CHECK(to_wire(ec::validation_error) == "validation-error");
  CHECK(to_wire(ec::upstream_error) == "upstream-error");
  CHECK(to_wire(ec::upstream_timeout) == "upstream-timeout");
  CHECK(to_wire(ec::rate_limited) == "rate-limited");
  CHECK(to_wire(ec::network_error) == "network-error");
  CHECK(to_wire_upper(ec::rate_limited) == "RATE_LIMIT_EXCEEDED");
  CHECK(to_wire_upper(ec::disambiguation_required)
        == "DISAMBIGUATION_REQUIRED");
}

TEST_CASE("retryable codes follow the contracts", "[errors]") {
  CHECK_FALSE(is_retryable(ec::validation_error));
  CHECK(is_retryable(ec::upstream_error));
  CHECK(is_retryable(ec::upstream_timeout));
  CHECK(is_retryable(ec::rate_limited));
  CHECK(is_retryable(ec::network_error));
}

TEST_CASE("outcome holds a value or a failure", "[errors]") {
  outcome<int> good{42};
  REQUIRE(good);
  CHECK(*good == 42);
  outcome<int> bad{make_failure(ec::upstream_error, "boom")};
  REQUIRE_FALSE(bad);
  CHECK(bad.error().code == ec::upstream_error);
  CHECK(bad.error().message == "boom");
}

TEST_CASE("cancelling a call covers its own sub-queries, not shared flights",
          "[resilience][cancel]") {
  CHECK(cancel_covers("abc", "abc"));
  CHECK(cancel_covers("abc", "abc:relaxed"));
  CHECK_FALSE(cancel_covers("abc", "abc:shared"));
  CHECK_FALSE(cancel_covers("abc", "abcd"));
  CHECK_FALSE(cancel_covers("abc", "abc:"));
  CHECK_FALSE(cancel_covers("abc:relaxed", "abc"));
  CHECK(cancel_covers("abc:relaxed", "abc:relaxed"));
}
