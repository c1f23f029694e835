// The find_stops contract, rule by rule, on pure functions.

#include "transitd/actors/stops_rules.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

namespace {

find_stops_request request(int32_t radius = 300, int32_t max_results = 10) {
  find_stops_request r;
  r.context.correlation_id = "cid";
  r.center = {60.1699, 24.9384};
  r.radius = radius;
  r.max_results = max_results;
  return r;
}

stop_summary stop(std::string id, std::string name, int32_t distance,
                  std::vector<transit_mode> modes = {transit_mode::bus}) {
  stop_summary s;
  s.id = std::move(id);
  s.name = std::move(name);
  s.distance = distance;
  s.modes = std::move(modes);
  return s;
}

nearby_stops upstream(std::vector<stop_summary> stops) {
  nearby_stops n;
  n.stops = std::move(stops);
  return n;
}

std::vector<std::string> ids(const find_stops_reply& reply) {
  std::vector<std::string> out;
  for (const auto& s : reply.stops)
    out.push_back(s.id);
  return out;
}

} // namespace

TEST_CASE("find_stops: validation fail (bad lat)",
          "[find_stops][contract][validation]") {
  auto r = request();
  r.center.lat = 91;
  REQUIRE(validate(r));
  CHECK(validate(r)->code == ec::validation_error);
  CHECK_THAT(validate(r)->message, Catch::Contains("center.lat"));
  r.center = {60, -181};
  CHECK_THAT(validate(r)->message, Catch::Contains("center.lon"));
  CHECK_FALSE(validate(request()));
}

TEST_CASE("find_stops: basic success (3 stops)", "[find_stops][contract]") {
  auto reply = build_stop_list(
    request(), upstream({stop("HSL:3", "Kamppi", 120),
                         stop("HSL:1", "Lasipalatsi", 40),
                         stop("HSL:2", "Simonkatu", 80)}));
  CHECK(ids(reply) == std::vector<std::string>{"HSL:1", "HSL:2", "HSL:3"});
  CHECK(reply.correlation_id == "cid");
  CHECK(reply.warnings.empty());
}

TEST_CASE("find_stops: name filter reduces the set",
          "[find_stops][contract]") {
  auto r = request();
  r.text_filter = "KAMP";
  auto reply = build_stop_list(
    r, upstream({stop("HSL:1", "Kamppi", 40), stop("HSL:2", "Simonkatu", 80),
                 stop("HSL:3", "Kamppi (M)", 120)}));
  CHECK(ids(reply) == std::vector<std::string>{"HSL:1", "HSL:3"});
  // Case folding covers the Finnish letters.
  r.text_filter = "SÖRNÄ";
  auto nordic = build_stop_list(r, upstream({stop("HSL:9", "Sörnäinen", 10)}));
  CHECK(nordic.stops.size() == 1);
}

TEST_CASE("find_stops: zero matches after the filter is a warning (D9)",
          "[find_stops][contract]") {
  auto r = request();
  r.text_filter = "zzz";
  auto reply = build_stop_list(r, upstream({stop("HSL:1", "Kamppi", 40)}));
  CHECK(reply.stops.empty());
  REQUIRE(reply.warnings.size() == 1);
  CHECK(reply.warnings[0].code == "no-matches-after-filter");
}

TEST_CASE("find_stops: radius cap enforced", "[find_stops][contract]") {
  for (int32_t radius : {0, 3001, -1}) {
    auto r = request(radius);
    REQUIRE(validate(r));
    CHECK_THAT(validate(r)->message, Catch::Contains("radius"));
  }
  CHECK_FALSE(validate(request(3000)));
  CHECK_FALSE(validate(request(1)));
  // Default radius 300 m (rule 1).
  CHECK(find_stops_request{}.radius == 300);
  // Stops the upstream reports beyond the radius are dropped.
  auto reply = build_stop_list(
    request(100), upstream({stop("HSL:1", "A", 90), stop("HSL:2", "B", 110)}));
  CHECK(ids(reply) == std::vector<std::string>{"HSL:1"});
}

TEST_CASE("find_stops: truncation adds a warning", "[find_stops][contract]") {
  std::vector<stop_summary> many;
  for (int i = 0; i < 40; ++i)
    many.push_back(stop("HSL:" + std::to_string(100 + i), "S", 10 * i));
  auto capped = build_stop_list(request(3000, 50), upstream(many));
  CHECK(capped.stops.size() == 25);
  REQUIRE(capped.warnings.size() == 1);
  CHECK(capped.warnings[0].code == "truncated-results");
  CHECK_THAT(capped.warnings[0].message, Catch::Contains("25"));
  auto exact = build_stop_list(request(3000, 40),
                               upstream({many.begin(), many.begin() + 25}));
  CHECK(exact.stops.size() == 25);
  CHECK(exact.warnings.empty());
  for (int32_t n : {0, 51}) {
    auto r = request(300, n);
    REQUIRE(validate(r));
    CHECK_THAT(validate(r)->message, Catch::Contains("max_results"));
  }
}

TEST_CASE("find_stops: modes filter applied", "[find_stops][contract]") {
  auto r = request();
  r.include_modes = {transit_mode::tram, transit_mode::subway};
  auto reply = build_stop_list(
    r, upstream({stop("HSL:1", "A", 10, {transit_mode::bus}),
                 stop("HSL:2", "B", 20, {transit_mode::bus, transit_mode::tram}),
                 stop("HSL:3", "C", 30, {transit_mode::subway})}));
  CHECK(ids(reply) == std::vector<std::string>{"HSL:2", "HSL:3"});
  // The modes reach the upstream query too.
  CHECK(make_query(r).modes == r.include_modes);
}

TEST_CASE("find_stops: stable sort by distance then id", "[find_stops]") {
  auto reply = build_stop_list(
    request(), upstream({stop("HSL:b", "X", 50), stop("HSL:a", "Y", 50),
                         stop("HSL:c", "Z", 10)}));
  CHECK(ids(reply) == std::vector<std::string>{"HSL:c", "HSL:a", "HSL:b"});
}

TEST_CASE("find_stops: the query asks for enough to filter", "[find_stops]") {
  auto r = request(500, 5);
  CHECK(make_query(r).max_results == 5);
  CHECK(make_query(r).radius == 500);
  r.text_filter = "x";
  CHECK(make_query(r).max_results == 50);
}

