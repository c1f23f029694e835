#include "transitd/providers/mock/departures_generator.hpp"

#include <set>

#include <catch2/catch.hpp>

#include "transitd/providers/digitransit_routing.hpp"

namespace json = boost::json;
using namespace transitd;

namespace {

mock::departures_query query(std::string stop, int range = 3600,
                             int count = 100) {
  mock::departures_query q;
  q.stop_id = std::move(stop);
  q.start_time = 1757930400;
  q.time_range = range;
  q.number_of_departures = count;
  return q;
}

} // namespace

TEST_CASE("generated departures are deterministic", "[mock]") {
  CHECK(mock::generate_departures(query("HSL:1"))
        == mock::generate_departures(query("HSL:1")));
  CHECK(mock::generate_departures(query("HSL:1"))
        != mock::generate_departures(query("HSL:2")));
}

TEST_CASE("generated departures parse with the real parser and mix states",
          "[mock]") {
  auto body = json::serialize(mock::generate_departures(query("HSL:1040129")));
  auto parsed = digitransit::parse_departures(body, "HSL:1040129", 0);
  REQUIRE(parsed);
  REQUIRE(parsed->stop_times.size() > 10);
  std::set<bool> realtime;
  bool cancelled = false;
  bool delayed = false;
  bool early = false;
  for (const auto& t : parsed->stop_times) {
    realtime.insert(t.realtime);
    cancelled = cancelled || t.cancelled;
    if (t.realtime && !t.cancelled) {
      auto delay = t.realtime_departure - t.scheduled_departure;
      delayed = delayed || delay > 60;
      early = early || delay < -60;
    }
    // Inside the requested range, by the effective time.
    auto at = t.realtime ? t.realtime_departure : t.scheduled_departure;
    CHECK(at >= 1757930400);
    CHECK(at <= 1757930400 + 3600);
  }
  CHECK(realtime.size() == 2);
  // One hour at a busy stop: enough vehicles for every state to show up.
  auto busy = json::serialize(
    mock::generate_departures(query("HSL:1040129", 6 * 3600)));
  auto many = digitransit::parse_departures(busy, "HSL:1040129", 0);
  REQUIRE(many);
  for (const auto& t : many->stop_times) {
    cancelled = cancelled || t.cancelled;
    if (t.realtime && !t.cancelled) {
      auto delay = t.realtime_departure - t.scheduled_departure;
      delayed = delayed || delay > 60;
      early = early || delay < -60;
    }
  }
  CHECK(cancelled);
  CHECK(delayed);
  CHECK(early);
}

TEST_CASE("numberOfDepartures bounds the answer", "[mock]") {
  auto body = mock::generate_departures(query("HSL:1", 7200, 3));
  CHECK(body.at("data").at("stop").at("stoptimes").as_array().size() == 3);
}

TEST_CASE("unknown stops answer data.stop null", "[mock]") {
  for (auto id : {"nocolon", "HSL:0000", ":1", "HSL:"})
    CHECK(mock::generate_departures(query(id)).at("data").at("stop").is_null());
}
