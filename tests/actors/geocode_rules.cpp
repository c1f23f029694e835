// The geocode_address contract, rule by rule, on pure functions.

#include "transitd/actors/geocode_rules.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

namespace {

geocode_request request(std::string text = "kamppi", int32_t size = 10) {
  geocode_request r;
  r.context.correlation_id = "cid";
  r.text = std::move(text);
  r.size = size;
  return r;
}

geocode_candidate candidate(std::string name, double confidence,
                            std::string layer = "venue", double lat = 60.17,
                            double lon = 24.94) {
  geocode_candidate c;
  c.name = std::move(name);
  c.confidence = confidence;
  c.layer = std::move(layer);
  c.position = {lat, lon};
  return c;
}

geocode_candidates upstream(std::vector<geocode_candidate> list) {
  geocode_candidates out;
  out.candidates = std::move(list);
  return out;
}

std::vector<std::string> names(const geocode_reply& reply) {
  std::vector<std::string> out;
  for (const auto& r : reply.results)
    out.push_back(r.name);
  return out;
}

} // namespace

TEST_CASE("geocode_address: basic search", "[geocode][contract]") {
  auto r = request();
  REQUIRE_FALSE(normalise_and_validate(r));
  auto reply = build_geocode_reply(
    r, upstream({candidate("Kamppi", 1.0, "station"),
                 candidate("Kampintori", 0.8, "address")}));
  REQUIRE(reply);
  CHECK(reply->query == "kamppi");
  CHECK(reply->correlation_id == "cid");
  CHECK(names(*reply) == std::vector<std::string>{"Kamppi", "Kampintori"});
  CHECK(reply->results[0].type == place_type::stop);
  CHECK(reply->results[1].type == place_type::address);
  CHECK_FALSE(reply->truncated);
  CHECK(reply->warnings.empty());
}

TEST_CASE("geocode_address: truncation scenario (size > 40)",
          "[geocode][contract]") {
  auto r = request("kamppi", 100);
  REQUIRE_FALSE(normalise_and_validate(r)); // clamped, not rejected (D10)
  CHECK(make_query(r).size == 40);
  std::vector<geocode_candidate> forty;
  for (int i = 0; i < 40; ++i)
    forty.push_back(candidate("P" + std::to_string(i), 0.9));
  auto reply = build_geocode_reply(r, upstream(forty));
  REQUIRE(reply);
  CHECK(reply->results.size() == 40);
  CHECK(reply->truncated);
  REQUIRE(reply->warnings.size() == 1);
  CHECK(reply->warnings[0].code == "truncated-results");
  // The provider had one more than asked: truncated to size.
  auto small = request("kamppi", 3);
  CHECK(make_query(small).size == 4);
  auto cut = build_geocode_reply(
    small, upstream({candidate("A", 0.9), candidate("B", 0.8),
                     candidate("C", 0.7), candidate("D", 0.6)}));
  CHECK(cut->results.size() == 3);
  CHECK(cut->truncated);
  auto exact = build_geocode_reply(
    small, upstream({candidate("A", 0.9), candidate("B", 0.8)}));
  CHECK_FALSE(exact->truncated);
}

TEST_CASE("geocode_address: no results mapping", "[geocode][contract]") {
  auto r = request("zzzx");
  auto reply = build_geocode_reply(r, upstream({}));
  REQUIRE_FALSE(reply);
  CHECK(reply.error().code == ec::geocode_no_results);
  CHECK_THAT(reply.error().message, Catch::Contains("zzzx"));
}

TEST_CASE("geocode_address: confidence ordering and normalisation",
          "[geocode][contract]") {
  auto reply = build_geocode_reply(
    request(), upstream({candidate("Low", 40), candidate("High", 95),
                         candidate("Mid", 0.7)}));
  REQUIRE(reply);
  CHECK(names(*reply) == std::vector<std::string>{"High", "Mid", "Low"});
  CHECK(reply->results[0].confidence == Approx(0.95));
  CHECK(reply->results[2].confidence == Approx(0.40));
  CHECK(normalise_confidence(100) == Approx(1.0));
  CHECK(normalise_confidence(0.5) == Approx(0.5));
  CHECK(normalise_confidence(-3) == Approx(0.0));
}

TEST_CASE("geocode_address: focus distance tie-break within 0.01",
          "[geocode][contract]") {
  auto r = request();
  r.focus = coordinate{60.20, 24.90};
  auto reply = build_geocode_reply(
    r, upstream({candidate("Far", 0.905, "venue", 60.10, 25.10),
                 candidate("Near", 0.900, "venue", 60.201, 24.901),
                 candidate("Best", 0.99, "venue", 60.0, 25.5),
                 candidate("Lower", 0.85, "venue", 60.2, 24.9)}));
  REQUIRE(reply);
  // 0.905 and 0.900 tie; Near wins on distance. 0.99 and 0.85 do not tie.
  CHECK(names(*reply)
        == std::vector<std::string>{"Best", "Near", "Far", "Lower"});
  // Without a focus the provider order stands within ties.
  auto plain = build_geocode_reply(
    request(), upstream({candidate("Far", 0.905), candidate("Near", 0.900)}));
  CHECK(names(*plain) == std::vector<std::string>{"Far", "Near"});
}

TEST_CASE("geocode_address: layer mapping (rule 5)", "[geocode]") {
  CHECK(map_layer("address") == place_type::address);
  CHECK(map_layer("street") == place_type::address);
  CHECK(map_layer("stop") == place_type::stop);
  CHECK(map_layer("station") == place_type::stop);
  CHECK(map_layer("venue") == place_type::poi);
  CHECK(map_layer("neighbourhood") == place_type::poi);
  CHECK(map_layer("") == place_type::poi);
}

TEST_CASE("geocode_address: validation", "[geocode][validation]") {
  auto check_bad = [](geocode_request r, const char* names) {
    auto bad = normalise_and_validate(r);
    REQUIRE(bad);
    CHECK(bad->code == ec::validation_error);
    CHECK_THAT(bad->message, Catch::Contains(names));
  };
  check_bad(request("   "), "text");
  check_bad(request(std::string(201, 'a')), "200");
  check_bad(request("kamppi", 0), "size");
  auto focus = request();
  focus.focus = coordinate{95, 0};
  check_bad(focus, "focus.lat");
  auto layers = request();
  layers.layers = {"a", "b", "c", "d", "e", "f", "g", "h", "i"};
  check_bad(layers, "layers");
  auto odd = request();
  odd.layers = {"Venue!"};
  check_bad(odd, "layers");
  auto lang = request();
  lang.language = "not a language";
  check_bad(lang, "language");
  // Trimming normalises; 200 characters (not bytes) are fine.
  auto padded = request("  Kamppi  ");
  REQUIRE_FALSE(normalise_and_validate(padded));
  CHECK(padded.text == "Kamppi");
  std::string umlauts;
  for (int i = 0; i < 200; ++i)
    umlauts += "ä";
  auto wide = request(umlauts);
  CHECK_FALSE(normalise_and_validate(wide));
}
