// The network's own questions on the New York subway: one trip's calls.

#include "transitd/offline/gtfs_network.hpp"

#include <catch2/catch.hpp>
#include <date/date.h>
#include <date/tz.h>

#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/gtfs_reader.hpp"

using namespace transitd;
using namespace transitd::gtfs;

namespace {

std::shared_ptr<const timetable> subway() {
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

int64_t new_york(int h, int min, unsigned day = 14) {
  auto local = date::local_days{date::year{2026} / 10 / day}
               + std::chrono::hours{h} + std::chrono::minutes{min};
  return date::locate_zone("America/New_York")
    ->to_sys(local, date::choose::earliest)
    .time_since_epoch()
    .count();
}

/// "YYYY-MM-DD" → days since 1970-01-01 (the GTFS reader's own parser,
/// which the tests of the reader check).
int32_t days(const char* ymd) {
  std::string compact{ymd};
  compact.erase(std::remove(compact.begin(), compact.end(), '-'),
                compact.end());
  return *parse_gtfs_date(compact);
}

} // namespace

TEST_CASE("get_trip on a feed: a departure's trip, stop by stop",
          "[gtfs][network][trip]") {
  auto tt = subway();
  stop_departures_query board;
  board.stop_id = "nyc:631";
  board.start_time = new_york(8, 30);
  board.time_range_seconds = 1800;
  auto departures = departures_at(*tt, board);
  REQUIRE(departures);
  REQUIRE_FALSE(departures->stop_times.empty());
  const auto& first = departures->stop_times.front();
  CHECK_THAT(first.trip_id, Catch::StartsWith("nyc:"));
  CHECK(first.service_date == "2026-10-14");

  trip_query q;
  q.trip_id = first.trip_id;
  q.service_day = days("2026-10-14");
  auto trip = trip_of(*tt, nullptr, q);
  REQUIRE(trip);
  CHECK(trip->service_date == "2026-10-14");
  CHECK(trip->line == first.line);
  CHECK(trip->headsign == first.headsign);
  CHECK(trip->state == "scheduled");
  CHECK(trip->timezone == "America/New_York");
  REQUIRE(trip->calls.size() >= 2);
  // In order, and through Grand Central at the departure's time.
  bool here = false;
  for (std::size_t i = 0; i < trip->calls.size(); ++i) {
    const auto& c = trip->calls[i];
    CHECK(c.scheduled_arrival <= c.scheduled_departure);
    if (i > 0)
      CHECK(trip->calls[i - 1].scheduled_departure <= c.scheduled_arrival);
    if (c.stop_id.rfind("nyc:631", 0) == 0) {
      here = true;
      CHECK(c.scheduled_departure == first.scheduled_departure);
      CHECK(c.stop_name == "Grand Central-42 St");
    }
  }
  CHECK(here);

  // Without a date: the run nearest the clock, the same one at 08:35.
  q.service_day.reset();
  q.time = new_york(8, 35);
  auto nearest = trip_of(*tt, nullptr, q);
  REQUIRE(nearest);
  CHECK(nearest->service_date == "2026-10-14");

  // A weekday trip on a Sunday: refused, saying why.
  q.service_day = days("2026-10-18");
  auto sunday = trip_of(*tt, nullptr, q);
  REQUIRE_FALSE(sunday);
  CHECK(sunday.error().code == ec::validation_error);
  CHECK_THAT(sunday.error().message, Catch::Contains("2026-10-18"));

  // Ids of no trip, or of another feed.
  for (const char* id : {"nyc:no-such-trip", "HSL:1234", "caltrain:124"}) {
    trip_query bad;
    bad.trip_id = id;
    bad.time = q.time;
    auto refused = trip_of(*tt, nullptr, bad);
    REQUIRE_FALSE(refused);
    CHECK(refused.error().code == ec::validation_error);
    CHECK_THAT(refused.error().message, Catch::Contains(id));
  }
}

TEST_CASE("plan legs name their trip for get_trip", "[gtfs][network][trip]") {
  auto tt = subway();
  raptor router{*tt};
  trip_plan_query q;
  q.from = {40.7527, -73.9772};
  q.to = {40.6782, -73.9442};
  q.time = new_york(8, 30);
  auto plans = plan_trips(router, *tt, q);
  REQUIRE_FALSE(plans.itineraries.empty());
  int rides = 0;
  for (const auto& leg : plans.itineraries.front().legs) {
    if (!leg.transit)
      continue;
    ++rides;
    REQUIRE(leg.trip_id);
    REQUIRE(leg.service_date);
    trip_query tq;
    tq.trip_id = *leg.trip_id;
    tq.service_day = days(leg.service_date->c_str());
    auto trip = trip_of(*tt, nullptr, tq);
    REQUIRE(trip);
    // The leg's boarding is one of the trip's calls, at the leg's time.
    bool boards = false;
    for (const auto& c : trip->calls)
      boards = boards
               || (c.stop_id == leg.from.stop_id
                   && c.scheduled_departure == leg.scheduled_start);
    CHECK(boards);
  }
  CHECK(rides > 0);
}

TEST_CASE("get_route on a feed: a line's directions, and a station complex",
          "[gtfs][network][route]") {
  auto tt = subway();
  route_query q;
  q.route = "q"; // any case
  q.time = new_york(8, 30);
  auto q_line = route_of(*tt, q);
  REQUIRE(q_line);
  REQUIRE(q_line->lines.size() == 1);
  const auto& line = q_line->lines[0];
  CHECK(line.route_id == "nyc:Q");
  CHECK(line.color.size() == 6);
  REQUIRE(line.directions.size() == 2);
  for (const auto& d : line.directions) {
    CHECK(d.trips_today > 50);
    CHECK(d.first_departure < d.last_departure);
    CHECK(d.headway_minutes > 0);
    for (const auto& s : d.stops) // stations, not platforms
      CHECK(tt->stops[*tt->find_stop(s.stop_id.substr(4))].parent == none);
  }
  CHECK(q_line->service_date == "2026-10-14");
  // The same by id.
  q.route = "nyc:Q";
  CHECK(route_of(*tt, q)->lines.at(0).line == "Q");
  q.route = "nyc:no-route";
  CHECK_FALSE(route_of(*tt, q));

  // Times Sq-42 St from its 7 platform: the complex, itself first.
  route_query at;
  at.stop = "nyc:725N";
  at.time = q.time;
  auto complex = route_of(*tt, at);
  REQUIRE(complex);
  // Times Sq's four stations (and 42 St-Port Authority, which the feed
  // joins to the 7's).
  REQUIRE(complex->complex.size() >= 4);
  CHECK(complex->complex.front().stop_id == "nyc:725");
  for (const char* id : {"nyc:127", "nyc:R16", "nyc:902"})
    CHECK(std::any_of(complex->complex.begin(), complex->complex.end(),
                      [&](const line_stop& s) { return s.stop_id == id; }));
  for (const auto& l : complex->lines)
    CHECK(l.directions.empty());
  at.stop = "nyc:nowhere";
  CHECK_FALSE(route_of(*tt, at));
}
