// The Pelias client's pure half, against recorded payloads.

#include "transitd/providers/digitransit_geocoding.hpp"


#include <catch2/catch.hpp>

#include "support/stand_ins.hpp"

using namespace transitd;
using test::fixture;

TEST_CASE("parses the recorded address search (lumikintie)",
          "[pelias][parser]") {
  auto parsed = digitransit::parse_search(
    fixture("digitransit-geocoding/recorded/"
            "search-lumikintie-layers-address-2024-05-06.response.json"),
    5);
  REQUIRE(parsed);
  REQUIRE(parsed->candidates.size() == 5);
  const auto& first = parsed->candidates[0];
  CHECK(first.name == "Lumikintie 4");
  // GeoJSON is [lon, lat].
  CHECK(first.position.lat == Approx(60.202563));
  CHECK(first.position.lon == Approx(25.057749));
  CHECK(first.layer == "address");
  CHECK(first.confidence == Approx(0.9983471074380166));
  CHECK(first.label == std::optional<std::string>{"Lumikintie 4, Helsinki"});
  CHECK(first.address
        == std::optional<std::string>{"Lumikintie 4, 00820 Helsinki"});
  CHECK(parsed->fetched_ms == 5);
}

TEST_CASE("parses the documented kamppi search", "[pelias][parser]") {
  auto parsed = digitransit::parse_search(
    fixture("digitransit-geocoding/recorded/"
            "search-kamppi-size1.docs-example.response.json"),
    0);
  REQUIRE(parsed);
  REQUIRE(parsed->candidates.size() == 1);
  CHECK(parsed->candidates[0].name == "Kamppi");
  CHECK(parsed->candidates[0].layer == "station");
  CHECK(parsed->candidates[0].confidence == Approx(1.0));
  CHECK_FALSE(parsed->candidates[0].address);
}

TEST_CASE("Pelias errors and garbage are upstream errors",
          "[pelias][parser]") {
  auto errors = digitransit::parse_search(
    R"({"geocoding":{"errors":["invalid param 'text'"]},"features":[]})", 0);
  REQUIRE_FALSE(errors);
  CHECK(errors.error().code == ec::upstream_error);
  CHECK_THAT(errors.error().message, Catch::Contains("invalid param"));
  CHECK_FALSE(digitransit::parse_search("{oops", 0));
  CHECK_FALSE(digitransit::parse_search(R"({"type":"FeatureCollection"})", 0));
  auto empty = digitransit::parse_search(
    R"({"type":"FeatureCollection","features":[]})", 0);
  REQUIRE(empty);
  CHECK(empty->candidates.empty());
}

TEST_CASE("feature bounding boxes map to min/max lon/lat",
          "[pelias][parser]") {
  auto parsed = digitransit::parse_search(
    R"({"features":[{"type":"Feature","bbox":[24.9,60.1,25.0,60.2],
        "geometry":{"type":"Point","coordinates":[24.95,60.15]},
        "properties":{"name":"Area","layer":"neighbourhood","confidence":0.5}}]})",
    0);
  REQUIRE(parsed);
  REQUIRE(parsed->candidates.at(0).bbox);
  const auto& box = *parsed->candidates.at(0).bbox;
  CHECK(box.min_lon == Approx(24.9));
  CHECK(box.min_lat == Approx(60.1));
  CHECK(box.max_lon == Approx(25.0));
  CHECK(box.max_lat == Approx(60.2));
}

TEST_CASE("the search request carries every parameter, encoded",
          "[pelias][request]") {
  geocode_query q;
  q.text = "Sörnäinen & co";
  q.size = 5;
  q.language = "sv";
  q.layers = {"address", "venue"};
  q.focus = coordinate{60.17, 24.94};
  auto target = digitransit::make_search_target(q);
  CHECK_THAT(target, Catch::StartsWith("/search?text=S%C3%B6rn%C3%A4inen%20%26%20co"));
  CHECK_THAT(target, Catch::Contains("&size=5"));
  CHECK_THAT(target, Catch::Contains("&lang=sv"));
  CHECK_THAT(target, Catch::Contains("&layers=address%2Cvenue"));
  CHECK_THAT(target, Catch::Contains("&focus.point.lat=60.170000"));
  CHECK_THAT(target, Catch::Contains("&focus.point.lon=24.940000"));
}
