// The answers a feed gives the tools, on the New York subway.

#include "transitd/offline/gtfs_answers.hpp"

#include <tuple>

#include <catch2/catch.hpp>
#include <date/date.h>
#include <date/tz.h>

#include "transitd/offline/gtfs_reader.hpp"

using namespace transitd;
using namespace transitd::gtfs;

namespace {

std::shared_ptr<const timetable> nyc() {
  static auto tt = [] {
    auto loaded = load_timetable(
      "nyc", std::vector<std::string>{std::string{TRANSITD_FIXTURES_DIR}
                                      + "/gtfs/mta-subway-2026-09/"
                                        "mta-subway-gtfs.zip"});
    REQUIRE(loaded);
    return *loaded;
  }();
  return tt;
}

int64_t new_york(int y, unsigned m, unsigned d, int h, int min) {
  auto local = date::local_days{date::year{y} / m / d} + std::chrono::hours{h}
               + std::chrono::minutes{min};
  return date::locate_zone("America/New_York")
    ->to_sys(local, date::choose::earliest)
    .time_since_epoch()
    .count();
}

const coordinate grand_central{40.751776, -73.976848};

} // namespace

TEST_CASE("feed departures: a station's platforms together, in order",
          "[gtfs][answers]") {
  auto tt = nyc();
  stop_departures_query q;
  q.stop_id = "nyc:631"; // Grand Central-42 St, platforms 631N and 631S
  q.start_time = new_york(2026, 10, 14, 8, 30);
  q.time_range_seconds = 600;
  q.max_departures = 100;
  auto station = departures_at(*tt, q);
  REQUIRE(station);
  CHECK(station->stop_name == "Grand Central-42 St");
  CHECK(station->timezone == "America/New_York");
  REQUIRE(station->stop_times.size() > 10);
  bool north = false, south = false;
  for (std::size_t i = 0; i < station->stop_times.size(); ++i) {
    const auto& t = station->stop_times[i];
    CHECK(t.scheduled_departure >= q.start_time);
    CHECK(t.scheduled_departure <= q.start_time + 600);
    CHECK_FALSE(t.realtime);
    CHECK(t.mode == transit_mode::subway);
    if (i > 0)
      CHECK(station->stop_times[i - 1].scheduled_departure
            <= t.scheduled_departure);
    north = north || t.headsign.find("Bronx") != std::string::npos
            || t.headsign.find("Woodlawn") != std::string::npos
            || t.headsign.find("E 180") != std::string::npos;
    south = south || t.headsign.find("Brooklyn") != std::string::npos
            || t.headsign.find("Utica") != std::string::npos
            || t.headsign.find("Flatbush") != std::string::npos;
  }
  CHECK(north);
  CHECK(south);
  // One platform alone has fewer.
  q.stop_id = "nyc:631N";
  auto platform = departures_at(*tt, q);
  REQUIRE(platform);
  CHECK(platform->stop_times.size() < station->stop_times.size());
  // At night on Sunday fewer trains run than on a weekday morning.
  q.stop_id = "nyc:631";
  q.start_time = new_york(2026, 10, 18, 3, 0);
  auto night = departures_at(*tt, q);
  REQUIRE(night);
  CHECK(night->stop_times.size() < station->stop_times.size());
  // max_departures bounds the answer.
  q.max_departures = 2;
  CHECK(departures_at(*tt, q)->stop_times.size() == 2);
}

TEST_CASE("feed departures: ids of another provider or feed are refused",
          "[gtfs][answers]") {
  auto tt = nyc();
  stop_departures_query q;
  q.stop_id = "HSL:1040129";
  auto other = departures_at(*tt, q);
  REQUIRE_FALSE(other);
  CHECK(other.error().code == ec::validation_error);
  CHECK_THAT(other.error().hint, Catch::Contains("nyc:"));
  q.stop_id = "nyc:NOPE";
  CHECK_FALSE(departures_at(*tt, q));
}

TEST_CASE("feed stops: nearest first, with modes and the mode filter",
          "[gtfs][answers]") {
  auto tt = nyc();
  nearby_stops_query q;
  q.center = grand_central;
  q.radius = 400;
  q.max_results = 10;
  auto near = stops_near(*tt, q);
  REQUIRE_FALSE(near.stops.empty());
  CHECK(near.stops.front().id.rfind("nyc:631", 0) == 0);
  CHECK(near.stops.front().distance == 0);
  for (std::size_t i = 1; i < near.stops.size(); ++i)
    CHECK(near.stops[i - 1].distance <= near.stops[i].distance);
  for (const auto& s : near.stops) {
    CHECK(s.distance <= 400);
    CHECK(s.modes == std::vector<transit_mode>{transit_mode::subway});
  }
  q.modes = {transit_mode::bus};
  CHECK(stops_near(*tt, q).stops.empty());
  q.modes = {transit_mode::bus, transit_mode::subway};
  CHECK(stops_near(*tt, q).stops.size() == near.stops.size());
}

TEST_CASE("feed stops: stations with their platforms and lines, not "
          "platforms named alike",
          "[gtfs][answers][stations]") {
  auto tt = nyc();
  nearby_stops_query q;
  q.center = {40.75529, -73.987495}; // Times Sq-42 St
  q.radius = 300;
  auto near = stops_near(*tt, q);
  std::vector<std::string> ids;
  for (const auto& s : near.stops) {
    ids.push_back(s.id);
    // Station ids only: a platform (127N, 725S...) stands for its station.
    auto st = tt->find_stop(s.id.substr(4));
    REQUIRE(st);
    CHECK(tt->stops[*st].parent == none);
  }
  auto at = [&](const std::string& id) -> const stop_summary& {
    auto it = std::find_if(near.stops.begin(), near.stops.end(),
                           [&](const stop_summary& s) { return s.id == id; });
    REQUIRE(it != near.stops.end());
    return *it;
  };
  CHECK(at("nyc:127").name == "Times Sq-42 St");
  CHECK(at("nyc:127").platforms
        == std::vector<std::string>{"nyc:127N", "nyc:127S"});
  CHECK(at("nyc:127").lines == std::vector<std::string>{"1", "2", "3"});
  CHECK(at("nyc:725").lines == std::vector<std::string>{"7", "7X"});
  // No id twice.
  auto sorted = ids;
  std::sort(sorted.begin(), sorted.end());
  CHECK(std::adjacent_find(sorted.begin(), sorted.end()) == sorted.end());
}

TEST_CASE("feed geocoding: stop names, case- and accent-insensitive",
          "[gtfs][answers]") {
  auto tt = nyc();
  geocode_query q;
  q.text = "TIMES SQ";
  q.size = 5;
  auto found = match_stop_names(*tt, q);
  REQUIRE_FALSE(found.candidates.empty());
  CHECK(found.candidates[0].name == "Times Sq-42 St");
  CHECK(found.candidates[0].layer == "stop");
  CHECK(found.candidates[0].confidence == Approx(0.9));
  // Words in another order still match; a station shows once.
  q.text = "42 st times";
  found = match_stop_names(*tt, q);
  REQUIRE_FALSE(found.candidates.empty());
  CHECK(found.candidates[0].confidence == Approx(0.8));
  for (std::size_t i = 1; i < found.candidates.size(); ++i)
    CHECK(found.candidates[i].name != found.candidates[0].name);
  // Accents fold.
  q.text = "Tïmes Sq-42 St";
  found = match_stop_names(*tt, q);
  REQUIRE_FALSE(found.candidates.empty());
  CHECK(found.candidates[0].confidence == Approx(1.0));
  // Layers without "stop": nothing from a feed.
  q.layers = {"address"};
  CHECK(match_stop_names(*tt, q).candidates.empty());
}

TEST_CASE("feed plans: legs named from the feed, times in its zone",
          "[gtfs][answers]") {
  auto tt = nyc();
  raptor router{*tt};
  trip_plan_query q;
  q.from = grand_central;
  q.to = {40.6782, -73.9442}; // Franklin Av, Brooklyn
  q.time = new_york(2026, 10, 14, 8, 30);
  q.first = 3;
  q.max_walking_distance = 800;
  auto plans = plan_trips(router, *tt, q);
  CHECK(plans.timezone == "America/New_York");
  REQUIRE_FALSE(plans.itineraries.empty());
  CHECK(plans.itineraries.size() <= 3);
  for (std::size_t i = 1; i < plans.itineraries.size(); ++i)
    CHECK(plans.itineraries[i - 1].legs.back().scheduled_end
          <= plans.itineraries[i].legs.back().scheduled_end);
  const auto& first = plans.itineraries.front();
  bool rode = false;
  for (const auto& leg : first.legs) {
    if (!leg.transit) {
      CHECK(leg.mode == transit_mode::walk);
      CHECK(leg.distance <= 800);
      continue;
    }
    rode = true;
    CHECK(leg.mode == transit_mode::subway);
    REQUIRE(leg.line);
    CHECK_FALSE(leg.line->empty());
    REQUIRE(leg.headsign);
    REQUIRE(leg.from.stop_id);
    CHECK(leg.from.stop_id->rfind("nyc:", 0) == 0);
    CHECK_FALSE(leg.from.name.empty());
    CHECK(leg.scheduled_start >= q.time);
    CHECK(leg.distance > 0);
  }
  CHECK(rode);
}

TEST_CASE("feed plans: optimize's worth of a vehicle more reaches the "
          "router",
          "[gtfs][answers]") {
  auto tt = nyc();
  raptor router{*tt};
  int changed = 0;
  for (int i = 0; i < 120; ++i) {
    trip_plan_query q;
    q.from = tt->stops[(static_cast<std::size_t>(i) * 37) % tt->stops.size()]
               .position;
    q.to = tt->stops[(static_cast<std::size_t>(i) * 101 + 7)
                     % tt->stops.size()]
             .position;
    q.time = new_york(2026, 10, 14, 6 + i % 16, (i * 7) % 60);
    q.first = 3;
    auto shape = [](const trip_plans& p) {
      std::vector<std::tuple<int64_t, int64_t, int32_t>> out;
      for (const auto& it : p.itineraries)
        out.emplace_back(it.legs.front().scheduled_start,
                         it.legs.back().scheduled_end, it.transfers);
      return out;
    };
    q.ride_worth_s = 0; // optimize shortest_time
    auto every = shape(plan_trips(router, *tt, q));
    q.ride_worth_s = 180; // balanced
    auto balanced = shape(plan_trips(router, *tt, q));
    INFO("question " << i);
    // Balanced: none gains on one with fewer vehicles less than three
    // minutes a vehicle, on both ends.
    for (const auto& [jd, ja, jt] : balanced)
      for (const auto& [kd, ka, kt] : balanced)
        if (kt < jt) {
          auto allowance = int64_t{180} * (jt - kt);
          CHECK_FALSE((kd >= jd - allowance && ka <= ja + allowance));
        }
    changed += every != balanced ? 1 : 0;
  }
  CHECK(changed > 0);
}

TEST_CASE("feed answers: a time outside the service days says so",
          "[gtfs][answers]") {
  auto tt = nyc();
  CHECK_FALSE(outside_service(*tt, new_york(2026, 10, 14, 8, 0)));
  auto late = outside_service(*tt, new_york(2026, 11, 24, 8, 0));
  REQUIRE(late);
  CHECK(late->code == ec::data_not_available);
  CHECK_THAT(late->message, Catch::Contains("2026-05-26 to 2026-10-31"));
  CHECK_THAT(late->hint, Catch::Contains("engine_config::clock_offset_ms"));
}
