// Paths for agents and views: simplified, and written as encoded polylines.

#include "transitd/util/polyline.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

TEST_CASE("encoded polylines: the published example, and back",
          "[polyline]") {
  // The format's own documented example.
  std::vector<coordinate> points{
    {38.5, -120.2}, {40.7, -120.95}, {43.252, -126.453}};
  CHECK(encode_polyline(points) == "_p~iF~ps|U_ulLnnqC_mqNvxq`@");
  auto back = decode_polyline("_p~iF~ps|U_ulLnnqC_mqNvxq`@");
  REQUIRE(back);
  REQUIRE(back->size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK((*back)[i].lat == Approx(points[i].lat).margin(1e-6));
    CHECK((*back)[i].lon == Approx(points[i].lon).margin(1e-6));
  }
  CHECK(encode_polyline({}).empty());
  // Rounded to 1e-5 degrees, about a meter.
  CHECK(encode_polyline({{40.712345678, -74.006}})
        == encode_polyline({{40.71235, -74.006}}));
}

TEST_CASE("a malformed polyline is refused, not half read", "[polyline]") {
  CHECK_FALSE(decode_polyline("_p~iF~ps|U_"));  // a number cut short
  CHECK_FALSE(decode_polyline("_p~iF"));        // a latitude alone
  CHECK_FALSE(decode_polyline("ab c"));         // outside the alphabet
  CHECK(decode_polyline("")->empty());
}

TEST_CASE("simplify_path keeps the ends and the bends within its bound",
          "[polyline]") {
  // A straight line of 101 points: only its ends matter.
  std::vector<coordinate> straight;
  for (int i = 0; i <= 100; ++i)
    straight.push_back({40.0 + i * 1e-4, -74.0});
  auto two = simplify_path(straight, 1.0, 50);
  REQUIRE(two.size() == 2);
  CHECK(two.front().lat == 40.0);
  CHECK(two.back().lat == Approx(40.01));
  // A right angle keeps its corner (about 111 m off the straight line).
  std::vector<coordinate> corner{{40.0, -74.0}, {40.0005, -74.0},
                                 {40.001, -74.0}, {40.001, -73.999},
                                 {40.001, -73.998}};
  auto kept = simplify_path(corner, 5.0, 10);
  REQUIRE(kept.size() == 3);
  CHECK(kept[1].lat == 40.001);
  CHECK(kept[1].lon == -74.0);
  // A zigzag of 400 points fits a bound of 20, ends kept.
  std::vector<coordinate> zigzag;
  for (int i = 0; i < 400; ++i)
    zigzag.push_back({40.0 + i * 1e-4, -74.0 + (i % 2) * 1e-3});
  auto fitted = simplify_path(zigzag, 1.0, 20);
  CHECK(fitted.size() <= 20);
  CHECK(fitted.size() >= 2);
  CHECK(fitted.front().lat == zigzag.front().lat);
  CHECK(fitted.back().lat == zigzag.back().lat);
  // Short paths come back as they are.
  CHECK(simplify_path({{1, 2}}, 1.0, 2).size() == 1);
}
