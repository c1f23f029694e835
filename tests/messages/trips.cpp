// The relaxed query's correlation id (D12): a breaker counts it with its
// call, a feed tells it from its primary, a cancel of one leaves the other.

#include "transitd/messages/trips.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("relaxed ids: made from the call's, told apart, traced back",
          "[messages][trips]") {
  CHECK(relaxed_id("abc") == "abc:relaxed");
  CHECK(is_relaxed_id("abc:relaxed"));
  CHECK_FALSE(is_relaxed_id("abc"));
  // The suffix alone names no call.
  CHECK_FALSE(is_relaxed_id(":relaxed"));
  CHECK_FALSE(is_relaxed_id("abc:relaxed:x"));
  CHECK(call_id_of("abc:relaxed") == "abc");
  CHECK(call_id_of("abc") == "abc");
  CHECK(call_id_of(":relaxed") == ":relaxed");
  CHECK(call_id_of(relaxed_id("c-1")) == "c-1");
}
