#include "transitd/providers/mock/geocoding_generator.hpp"

#include <catch2/catch.hpp>

#include "transitd/providers/digitransit_geocoding.hpp"

namespace json = boost::json;
using namespace transitd;

TEST_CASE("mock Pelias answers parse with the real parser", "[mock][pelias]") {
  mock::search_query q;
  q.text = "kamppi";
  q.size = 5;
  auto body = json::serialize(mock::generate_search(q));
  auto parsed = digitransit::parse_search(body, 0);
  REQUIRE(parsed);
  CHECK(parsed->candidates.size() == 5);
  for (const auto& c : parsed->candidates)
    CHECK(c.confidence <= 1.0);
}

TEST_CASE("mock Pelias: no match, layers, 0..100 scale", "[mock][pelias]") {
  mock::search_query none;
  none.text = "zzzx";
  CHECK(mock::generate_search(none).at("features").as_array().empty());
  mock::search_query layered;
  layered.text = "helsinki";
  layered.size = 40;
  layered.layers = {"address"};
  auto answer = mock::generate_search(layered);
  REQUIRE_FALSE(answer.at("features").as_array().empty());
  for (const auto& f : answer.at("features").as_array())
    CHECK(f.at("properties").at("layer").as_string() == "address");
  mock::search_query scaled;
  scaled.text = "kamppi";
  scaled.confidence_scale = 100;
  auto first = mock::generate_search(scaled).at("features").at(0);
  CHECK(first.at("properties").at("confidence").as_double() > 1.0);
}
