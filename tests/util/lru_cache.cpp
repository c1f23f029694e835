// The LRU/TTL store behind the provider caches.

#include "transitd/util/lru_cache.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("lru cache: TTL expiry", "[cache]") {
  lru_cache<int> c;
  c.put("a", 1, 10, 1000);
  REQUIRE(c.get("a", 999) != nullptr);
  CHECK(*c.get("a", 999) == 1);
  CHECK(c.get("a", 1000) == nullptr); // expired entries go
  CHECK(c.size() == 0);
  CHECK(c.bytes() == 0);
}

TEST_CASE("lru cache: bounded by entries, least recently used first",
          "[cache]") {
  lru_cache<int> c{{2, 1000}};
  c.put("a", 1, 1, 100);
  c.put("b", 2, 1, 100);
  CHECK(c.get("a", 0) != nullptr); // a is now the most recent
  c.put("c", 3, 1, 100);           // evicts b
  CHECK(c.get("b", 0) == nullptr);
  CHECK(c.get("a", 0) != nullptr);
  CHECK(c.get("c", 0) != nullptr);
  CHECK(c.evictions() == 1);
}

TEST_CASE("lru cache: bounded by bytes; oversize values are not stored",
          "[cache]") {
  lru_cache<int> c{{100, 100}};
  c.put("a", 1, 60, 100);
  c.put("b", 2, 30, 100);
  CHECK(c.bytes() == 90);
  c.put("c", 3, 30, 100); // 120 > 100: a (least recent) goes
  CHECK(c.get("a", 0) == nullptr);
  CHECK(c.bytes() == 60);
  c.put("huge", 4, 101, 100);
  CHECK(c.get("huge", 0) == nullptr);
  CHECK(c.size() == 2);
  // Replacing a key replaces its bytes.
  c.put("b", 5, 10, 100);
  CHECK(c.bytes() == 40);
  CHECK(*c.get("b", 0) == 5);
}
