// The GTFS reader on the real feeds (Caltrain 2023, BART 2019, the New York
// subway 2026) and on small feeds written here for what the real ones lack.

#include "transitd/offline/gtfs_reader.hpp"

#include <algorithm>

#include <catch2/catch.hpp>
#include <date/date.h>

using namespace transitd;
using namespace transitd::gtfs;

namespace {

std::string fixture(const std::string& path) {
  return std::string{TRANSITD_FIXTURES_DIR} + "/gtfs/" + path;
}

std::shared_ptr<const timetable> load(const std::string& name,
                                      const std::string& path) {
  auto tt = load_timetable(name, std::vector<std::string>{fixture(path)});
  if (!tt)
    FAIL(tt.error().message);
  return *tt;
}

int32_t day_of(const timetable& tt, int y, unsigned m, unsigned d) {
  auto days = date::sys_days{date::year{y} / m / d}.time_since_epoch().count();
  return static_cast<int32_t>(days) - tt.first_day;
}

uint32_t stop_named(const timetable& tt, const std::string& id) {
  auto s = tt.find_stop(id);
  REQUIRE(s);
  return *s;
}

/// A minimal valid feed; tests replace or add files.
std::map<std::string, std::string> small_feed() {
  return {
    {"agency.txt", "agency_id,agency_name,agency_url,agency_timezone\n"
                   "A,Agency,http://a.example,Europe/Helsinki\n"},
    {"stops.txt", "stop_id,stop_name,stop_lat,stop_lon,location_type,"
                  "parent_station\n"
                  "S,Station,60.17,24.94,1,\n"
                  "S1,Station,60.17,24.94,0,S\n"
                  "S2,Station,60.1701,24.9401,0,S\n"
                  "T,Töölö,60.18,24.92,0,\n"},
    {"routes.txt", "route_id,route_short_name,route_long_name,route_type\n"
                   "R,1,One,700\n"},
    {"trips.txt", "route_id,service_id,trip_id,trip_headsign\n"
                  "R,WK,t1,To Töölö\n"},
    {"stop_times.txt", "trip_id,arrival_time,departure_time,stop_id,"
                       "stop_sequence\n"
                       "t1,08:00:00,08:00:00,S1,1\n"
                       "t1,08:10:00,08:10:00,T,2\n"},
    {"calendar.txt", "service_id,monday,tuesday,wednesday,thursday,friday,"
                     "saturday,sunday,start_date,end_date\n"
                     "WK,1,1,1,1,1,0,0,20260101,20261231\n"},
  };
}

/// `small_feed` with its route R another line (a bus): what a second
/// agency numbering its routes alike would define.
std::map<std::string, std::string> another_line_feed() {
  auto files = small_feed();
  files["routes.txt"] = "route_id,route_short_name,route_long_name,route_type\n"
                        "R,1,Another line,3\n";
  return files;
}

outcome<std::shared_ptr<const timetable>>
load_memory(std::map<std::string, std::string> files) {
  std::vector<std::unique_ptr<feed_files>> sources;
  sources.push_back(in_memory_feed(std::move(files)));
  return load_timetable("x", std::move(sources));
}

} // namespace

TEST_CASE("GTFS: the New York subway loads whole", "[gtfs][reader]") {
  auto tt = load("nyc", "mta-subway-2026-09/mta-subway-gtfs.zip");
  const auto& r = tt->report;
  CHECK(r.stops == 1488);
  CHECK(r.trips == 20621);
  CHECK(r.stop_times == 565093);
  CHECK(r.skipped_rows == 0);
  CHECK(r.first_day == "2026-05-26");
  CHECK(r.last_day == "2026-10-31");
  CHECK(tt->zones == std::vector<std::string>{"America/New_York"});
  // Every trip lands in exactly one pattern.
  CHECK(tt->pattern_trips.size() == 20621);
  // Parent stations with their N/S platforms.
  auto station = stop_named(*tt, "101");
  CHECK(tt->stops[station].location_type == 1);
  CHECK(tt->stop_and_children(station).size() == 3);
  CHECK(tt->stops[stop_named(*tt, "101N")].parent == station);
  CHECK(tt->modes_at(station) == std::vector<transit_mode>{transit_mode::subway});
  // Times past midnight stay on their service day.
  auto latest = std::max_element(tt->times.begin(), tt->times.end(),
                                 [](const auto& a, const auto& b) {
                                   return a.arrival < b.arrival;
                                 });
  CHECK(latest->arrival > 24 * 3600);
}

TEST_CASE("GTFS: calendar exceptions switch services off and on",
          "[gtfs][reader]") {
  auto tt = load("nyc", "mta-subway-2026-09/mta-subway-gtfs.zip");
  // The service ids are the feed's; find them through a trip of each.
  auto service_named = [&](const std::string& prefix) {
    for (const auto& t : tt->trips)
      if (t.id.find(prefix) != std::string::npos)
        return t.service;
    FAIL("no trip with " << prefix);
    return uint32_t{0};
  };
  auto weekday = service_named("Weekday");
  auto sunday = service_named("Sunday");
  // Wednesday 2026-10-14: a weekday.
  CHECK(tt->runs_on(weekday, day_of(*tt, 2026, 10, 14)));
  CHECK_FALSE(tt->runs_on(sunday, day_of(*tt, 2026, 10, 14)));
  // Labor Day, Monday 2026-09-07: Sunday service instead (calendar_dates).
  CHECK_FALSE(tt->runs_on(weekday, day_of(*tt, 2026, 9, 7)));
  CHECK(tt->runs_on(sunday, day_of(*tt, 2026, 9, 7)));
  // Outside the validity nothing runs.
  CHECK_FALSE(tt->runs_on(weekday, day_of(*tt, 2026, 11, 2)));
}

TEST_CASE("GTFS: a station's transfer applies to its platforms",
          "[gtfs][reader]") {
  auto tt = load("nyc", "mta-subway-2026-09/mta-subway-gtfs.zip");
  // transfers.txt: 101,101,2,180 names the station; its platforms 101N and
  // 101S get a 180 s change time and 180 s between each other.
  auto north = stop_named(*tt, "101N");
  auto south = stop_named(*tt, "101S");
  CHECK(tt->change_seconds[north] == 180);
  CHECK(tt->change_seconds[south] == 180);
  bool found = false;
  for (auto i = tt->out_begin[north]; i < tt->out_begin[north + 1]; ++i)
    if (tt->out[i].stop == south) {
      found = true;
      CHECK(tt->out[i].seconds == 180);
    }
  CHECK(found);
}

TEST_CASE("GTFS: Caltrain's unpadded times and BART's station transfers",
          "[gtfs][reader]") {
  auto caltrain = load("ct", "caltrain-2023-09/caltrain-gtfs.zip");
  CHECK(caltrain->report.skipped_rows == 0);
  CHECK(caltrain->report.first_day == "2023-09-23");
  CHECK(caltrain->zones == std::vector<std::string>{"America/Los_Angeles"});
  CHECK(std::any_of(caltrain->times.begin(), caltrain->times.end(),
                    [](const auto& t) { return t.departure < 10 * 3600; }));
  auto bart = load("bart", "bart-2019/bart-gtfs.zip");
  // COLS,COLS,2,240 in transfers.txt.
  for (auto s : bart->stop_and_children(stop_named(*bart, "COLS")))
    if (bart->routable(s))
      CHECK(bart->change_seconds[s] == 240);
  CHECK(bart->report.first_day == "2019-02-11");
}

TEST_CASE("GTFS: time and date fields", "[gtfs][reader]") {
  CHECK(parse_gtfs_time("25:10:00") == 90600);
  CHECK(parse_gtfs_time(" 5:00:00") == 18000);
  CHECK(parse_gtfs_time("100:00:00") == 360000);
  CHECK_FALSE(parse_gtfs_time("5:60:00"));
  CHECK_FALSE(parse_gtfs_time("5:00"));
  CHECK_FALSE(parse_gtfs_time("5:00:00x"));
  CHECK_FALSE(parse_gtfs_time(""));
  CHECK(parse_gtfs_date("19700102") == 1);
  CHECK_FALSE(parse_gtfs_date("20260230"));
  CHECK_FALSE(parse_gtfs_date("2026-01-01"));
  CHECK(mode_of_route_type(1) == transit_mode::subway);
  CHECK(mode_of_route_type(700) == transit_mode::bus);
  CHECK(mode_of_route_type(109) == transit_mode::rail);
  CHECK(mode_of_route_type(1000) == transit_mode::ferry);
  CHECK(mode_of_route_type(1300) == transit_mode::gondola);
  CHECK(mode_of_route_type(99999) == transit_mode::other);
}

TEST_CASE("GTFS: a missing file or column names it", "[gtfs][reader]") {
  auto files = small_feed();
  files.erase("stop_times.txt");
  auto no_file = load_memory(files);
  REQUIRE_FALSE(no_file);
  CHECK_THAT(no_file.error().message, Catch::Contains("stop_times.txt"));
  CHECK(no_file.error().code == ec::data_not_available);

  files = small_feed();
  files["routes.txt"] = "route_id,route_short_name\nR,1\n";
  auto no_column = load_memory(files);
  REQUIRE_FALSE(no_column);
  CHECK_THAT(no_column.error().message,
             Catch::Contains("routes.txt")
               && Catch::Contains("route_type"));

  files = small_feed();
  files.erase("calendar.txt");
  auto no_calendar = load_memory(files);
  REQUIRE_FALSE(no_calendar);
  CHECK_THAT(no_calendar.error().message, Catch::Contains("calendar"));

  files = small_feed();
  files["agency.txt"] = "agency_name,agency_timezone\nA,Mars/Olympus\n";
  auto bad_zone = load_memory(files);
  REQUIRE_FALSE(bad_zone);
  CHECK_THAT(bad_zone.error().message, Catch::Contains("Mars/Olympus"));
}

TEST_CASE("GTFS: bad rows are skipped, counted and sampled", "[gtfs][reader]") {
  auto files = small_feed();
  files["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence\n"
                            "t1,08:00:00,08:00:00,S1,1\n"
                            "t1,8 o'clock,08:05:00,S2,2\n"
                            "t1,08:10:00,08:10:00,NOWHERE,3\n"
                            "t1,08:20:00,08:20:00,T,4\n";
  auto tt = load_memory(files);
  REQUIRE(tt);
  CHECK((*tt)->report.skipped_rows == 2);
  REQUIRE((*tt)->report.samples.size() == 2);
  CHECK((*tt)->report.samples[0] == "stop_times.txt:3: malformed arrival_time");
  CHECK_THAT((*tt)->report.samples[1],
             Catch::StartsWith("stop_times.txt:4:")
               && Catch::Contains("NOWHERE"));
  CHECK((*tt)->report.stop_times == 2);
}

TEST_CASE("GTFS: BOM, CRLF, quotes and missing optional columns",
          "[gtfs][reader]") {
  auto files = small_feed();
  files["stops.txt"] = "\xEF\xBB\xBFstop_id,stop_lat,stop_lon,stop_name\r\n"
                       "S1,60.17,24.94,\"Rautatientori, laituri 1\"\r\n"
                       "T,60.18,24.92,\"Say \"\"hi\"\"\"\r\n";
  auto tt = load_memory(files);
  REQUIRE(tt);
  CHECK((*tt)->stops[stop_named(**tt, "S1")].name
        == "Rautatientori, laituri 1");
  CHECK((*tt)->stops[stop_named(**tt, "T")].name == "Say \"hi\"");
  CHECK((*tt)->report.skipped_rows == 0);
}

TEST_CASE("GTFS: frequencies expand into trips", "[gtfs][reader]") {
  auto files = small_feed();
  files["frequencies.txt"] = "trip_id,start_time,end_time,headway_secs\n"
                             "t1,06:00:00,07:00:00,600\n";
  auto tt = load_memory(files);
  REQUIRE(tt);
  // 06:00, 06:10, ... 06:50: six trips, the template keeps its shape.
  CHECK((*tt)->report.frequency_trips == 6);
  REQUIRE((*tt)->patterns.size() == 1);
  const auto& p = (*tt)->patterns[0];
  REQUIRE(p.trip_count == 6);
  CHECK((*tt)->time_at(p, 0, 0).departure == 6 * 3600);
  CHECK((*tt)->time_at(p, 5, 1).arrival == 6 * 3600 + 50 * 60 + 10 * 60);
}

TEST_CASE("GTFS: empty times between timepoints are interpolated",
          "[gtfs][reader]") {
  auto files = small_feed();
  files["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence\n"
                            "t1,08:00:00,08:00:00,S1,1\n"
                            "t1,,,S2,2\n"
                            "t1,08:10:00,08:10:00,T,3\n";
  auto tt = load_memory(files);
  REQUIRE(tt);
  CHECK((*tt)->time_at((*tt)->patterns[0], 0, 1).arrival == 8 * 3600 + 300);
}

TEST_CASE("GTFS: overtaking trips go to separate patterns", "[gtfs][reader]") {
  auto files = small_feed();
  files["trips.txt"] = "route_id,service_id,trip_id\nR,WK,slow\nR,WK,fast\n";
  files["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence\n"
                            "slow,08:00:00,08:00:00,S1,1\n"
                            "slow,09:00:00,09:00:00,T,2\n"
                            "fast,08:05:00,08:05:00,S1,1\n"
                            "fast,08:20:00,08:20:00,T,2\n";
  auto tt = load_memory(files);
  REQUIRE(tt);
  CHECK((*tt)->patterns.size() == 2);
}

TEST_CASE("GTFS: merged feeds sharing a stop share it; another stop "
          "under a taken id gets a suffix",
          "[gtfs][reader]") {
  // New York's bus feeds list the stops they share under the same id, a
  // few metres apart and spelled differently: one stop with the calls of
  // both. An id another agency reuses kilometres away is another stop.
  std::vector<std::unique_ptr<feed_files>> sources;
  sources.push_back(in_memory_feed(small_feed()));
  auto shared = small_feed();
  shared["stops.txt"] = "stop_id,stop_name,stop_lat,stop_lon\n"
                        "S1,Station,60.17,24.94\n"
                        "T,Toolo / stop,60.1808,24.9215\n"; // 120 m off
  sources.push_back(in_memory_feed(shared));
  auto far = small_feed();
  far["stops.txt"] = "stop_id,stop_name,stop_lat,stop_lon\n"
                     "S1,Elsewhere,60.20,24.94\n"
                     "T,Elsewhere too,60.21,24.92\n";
  sources.push_back(in_memory_feed(far));
  auto tt = load_timetable("x", std::move(sources));
  REQUIRE(tt);
  const auto& t = **tt;
  CHECK(t.trips.size() == 3);
  REQUIRE(t.find_stop("T"));
  REQUIRE(t.find_stop("T~3"));
  CHECK_FALSE(t.find_stop("T~2"));
  CHECK_FALSE(t.find_stop("S1~2"));
  auto one = *t.find_stop("T");
  CHECK(t.stops[one].name == "Töölö"); // the first definition's
  // The first two sources' trips call at the one T, the third's at its own.
  auto calls_at = [&](uint32_t s) {
    std::size_t n = 0;
    for (auto c = t.calls_begin[s]; c < t.calls_begin[s + 1]; ++c)
      n += t.patterns[t.calls[c].pattern].trip_count;
    return n;
  };
  CHECK(calls_at(one) == 2);
  CHECK(calls_at(*t.find_stop("T~3")) == 1);
  // A stop of another kind under the id is not the stop either.
  std::vector<std::unique_ptr<feed_files>> kinds;
  kinds.push_back(in_memory_feed(small_feed()));
  auto station = small_feed();
  station["stops.txt"] = "stop_id,stop_name,stop_lat,stop_lon,location_type\n"
                         "S1,Station,60.17,24.94,0\n"
                         "T,Toolo,60.18,24.92,1\n";
  station["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                              "stop_sequence\n"
                              "t1,08:00:00,08:00:00,S1,1\n";
  kinds.push_back(in_memory_feed(station));
  auto both = load_timetable("x", std::move(kinds));
  REQUIRE(both);
  CHECK((*both)->find_stop("T~2"));
}

TEST_CASE("GTFS: merged feeds defining a route the same share it; another "
          "route under a taken id gets a suffix",
          "[gtfs][reader]") {
  // New York's bus feeds each list every route of the city, with the
  // trips of one borough: one M15, not five.
  std::vector<std::unique_ptr<feed_files>> sources;
  sources.push_back(in_memory_feed(small_feed()));
  sources.push_back(in_memory_feed(small_feed()));
  sources.push_back(in_memory_feed(another_line_feed()));
  auto tt = load_timetable("x", std::move(sources));
  REQUIRE(tt);
  const auto& t = **tt;
  REQUIRE(t.routes.size() == 2);
  REQUIRE(t.trips.size() == 3);
  auto same = t.find_route("R");
  auto renamed = t.find_route("R~3");
  REQUIRE(same);
  REQUIRE(renamed);
  CHECK(t.routes[*same].long_name == "One");
  CHECK(t.routes[*renamed].long_name == "Another line");
  CHECK(t.routes[*renamed].mode == transit_mode::bus);
  // The trips of the first two sources ride the one route, the third's
  // its own.
  CHECK(t.trips[0].route == *same);
  CHECK(t.trips[1].route == *same);
  CHECK(t.trips[2].route == *renamed);
}

TEST_CASE("GTFS: a later merged source's trip under a taken id gets a "
          "suffix",
          "[gtfs][reader]") {
  // Agencies numbering their trips alike: a trip id names one trip (what
  // get_trip and realtime look up), the first source's.
  std::vector<std::unique_ptr<feed_files>> sources;
  sources.push_back(in_memory_feed(small_feed()));
  auto other = another_line_feed();
  other["trips.txt"] = "route_id,service_id,trip_id,trip_headsign\n"
                       "R,WK,t1,To Elsewhere\nR,WK,t9,Its own\n";
  other["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence\n"
                            "t1,09:00:00,09:00:00,S1,1\n"
                            "t1,09:10:00,09:10:00,T,2\n"
                            "t9,10:00:00,10:00:00,S1,1\n"
                            "t9,10:10:00,10:10:00,T,2\n";
  sources.push_back(in_memory_feed(other));
  auto tt = load_timetable("x", std::move(sources));
  REQUIRE(tt);
  const auto& t = **tt;
  REQUIRE(t.trips.size() == 3);
  auto first = t.find_trip("t1");
  auto second = t.find_trip("t1~2");
  REQUIRE(first);
  REQUIRE(second);
  CHECK(t.trips[*first].headsign == "To Töölö");
  CHECK(t.trips[*second].headsign == "To Elsewhere");
  CHECK(t.trips[*second].route == *t.find_route("R~2"));
  // An id no earlier source took stays; its stop times are its own.
  CHECK(t.find_trip("t9"));
  CHECK_FALSE(t.find_trip("t9~2"));
  auto departs = [&](uint32_t trip) {
    for (const auto& p : t.patterns)
      for (uint32_t r = 0; r < p.trip_count; ++r)
        if (t.pattern_trips[p.trips_begin + r] == trip)
          return t.times[p.times_begin + r * p.stop_count].departure;
    return -1;
  };
  CHECK(departs(*first) == 8 * 3600);
  CHECK(departs(*second) == 9 * 3600);
  // A first source that spells a trip t1~2 itself: the second's t1 is
  // numbered again, not a second t1~2.
  std::vector<std::unique_ptr<feed_files>> spelled;
  auto both = small_feed();
  both["trips.txt"] = "route_id,service_id,trip_id,trip_headsign\n"
                      "R,WK,t1,One\nR,WK,t1~2,Two\n";
  both["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                           "stop_sequence\n"
                           "t1,08:00:00,08:00:00,S1,1\n"
                           "t1,08:10:00,08:10:00,T,2\n"
                           "t1~2,08:30:00,08:30:00,S1,1\n"
                           "t1~2,08:40:00,08:40:00,T,2\n";
  spelled.push_back(in_memory_feed(both));
  spelled.push_back(in_memory_feed(other));
  auto again = load_timetable("x", std::move(spelled));
  REQUIRE(again);
  const auto& a = **again;
  REQUIRE(a.find_trip("t1~2~2"));
  CHECK(a.trips[*a.find_trip("t1~2~2")].headsign == "To Elsewhere");
  CHECK(a.trips[*a.find_trip("t1~2")].headsign == "Two");
}

TEST_CASE("GTFS: a transfer between given trips or routes is not the "
          "stop's own",
          "[gtfs][reader]") {
  // The Long Island Rail Road's transfers.txt: Jamaica's five minutes,
  // then timed transfers between given trips there (no time: as long as
  // the walk, which read as the stop's own erased the five minutes).
  auto files = small_feed();
  files["trips.txt"] = "route_id,service_id,trip_id\nR,WK,t1\nR,WK,t2\n";
  files["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence\n"
                            "t1,08:00:00,08:00:00,S1,1\n"
                            "t1,08:10:00,08:10:00,T,2\n"
                            "t2,08:10:00,08:10:00,T,1\n"
                            "t2,08:20:00,08:20:00,S2,2\n";
  files["transfers.txt"] = "from_stop_id,to_stop_id,from_route_id,"
                           "to_route_id,from_trip_id,to_trip_id,"
                           "transfer_type,min_transfer_time\n"
                           "T,T,,,,,2,300\n"
                           "T,T,,,t1,t2,1,\n"
                           "T,T,R,R,,,2,0\n"
                           "S1,T,,,t1,t2,2,60\n";
  auto loaded = load_memory(files);
  REQUIRE(loaded);
  const auto& tt = **loaded;
  auto t = stop_named(tt, "T");
  CHECK(tt.change_seconds[t] == 300);
  // Nor does a trip's transfer join two stops by a footpath.
  auto s1 = stop_named(tt, "S1");
  for (auto i = tt.out_begin[s1]; i < tt.out_begin[s1 + 1]; ++i)
    CHECK(tt.out[i].stop != t);
}

TEST_CASE("GTFS: a path that is not a feed is refused by name",
          "[gtfs][reader]") {
  auto missing = load_timetable("x", std::vector<std::string>{"/nonexistent/feed.zip"});
  REQUIRE_FALSE(missing);
  CHECK_THAT(missing.error().message, Catch::Contains("/nonexistent/feed.zip"));
  auto not_zip = load_timetable(
    "x", std::vector<std::string>{fixture("../SOURCES.md")});
  REQUIRE_FALSE(not_zip);
  CHECK_THAT(not_zip.error().message, Catch::Contains("SOURCES.md"));
}

TEST_CASE("GTFS: names fold case and accents", "[gtfs][reader]") {
  CHECK(fold_name("Töölö") == "toolo");
  CHECK(fold_name("  Times Sq-42 St ") == "times sq 42 st");
  CHECK(fold_name("Łódź Fabryczna") == "lodz fabryczna");
  CHECK(fold_name("Straße") == "strasse");
  CHECK(fold_name("Macy's") == "macys");
}

TEST_CASE("GTFS: stops without a valid place are skipped, not gridded",
          "[gtfs][reader]") {
  auto files = small_feed();
  files["stops.txt"] += "N1,Node,nan,nan,3,\nN2,Nowhere,91,0,0,\n";
  auto tt = load_memory(files);
  REQUIRE(tt);
  CHECK_FALSE((*tt)->find_stop("N1"));
  CHECK_FALSE((*tt)->find_stop("N2"));
  // The node needs no place (location_type 3); the stop does.
  CHECK((*tt)->report.skipped_rows == 1);
}

TEST_CASE("GTFS: a feed that loads nothing says which rows were skipped",
          "[gtfs][reader]") {
  auto files = small_feed();
  files["trips.txt"] = "route_id,service_id,trip_id\nR,NOSUCH,t1\n";
  auto tt = load_memory(files);
  REQUIRE_FALSE(tt);
  CHECK_THAT(tt.error().message,
             Catch::Contains("no trip with two stop times")
               && Catch::Contains("trips.txt:2")
               && Catch::Contains("without a calendar"));
}

TEST_CASE("GTFS: the day window starts near the day asked for",
          "[gtfs][reader]") {
  auto files = small_feed();
  // A stale service of 2010 beside 2026's.
  files["calendar.txt"] += "OLD,1,1,1,1,1,1,1,20100101,20100102\n";
  std::vector<std::unique_ptr<feed_files>> sources;
  sources.push_back(in_memory_feed(files));
  load_options options;
  options.anchor_day = *parse_gtfs_date("20260601");
  auto tt = load_timetable("x", std::move(sources), options);
  REQUIRE(tt);
  CHECK((*tt)->first_day <= *parse_gtfs_date("20260601"));
  CHECK((*tt)->first_day + (*tt)->day_count > *parse_gtfs_date("20261201"));
  CHECK((*tt)->runs_on((*tt)->trips[0].service,
                       *parse_gtfs_date("20260603") - (*tt)->first_day));
}

TEST_CASE("GTFS: frequencies that expand without end are refused",
          "[gtfs][reader]") {
  auto files = small_feed();
  std::string rows = "trip_id,start_time,end_time,headway_secs\n";
  for (int i = 0; i < 100; ++i)
    rows += "t1,00:00:00,999:00:00,60\n";
  files["frequencies.txt"] = rows;
  auto tt = load_memory(files);
  REQUIRE_FALSE(tt);
  CHECK_THAT(tt.error().message, Catch::Contains("frequencies.txt"));
}

TEST_CASE("GTFS: a feed whose only trip calls at one stop is refused, "
          "saying why", "[gtfs][reader]") {
  auto files = small_feed();
  files["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence\n"
                            "t1,08:00:00,08:00:00,S1,1\n";
  auto tt = load_memory(files);
  REQUIRE_FALSE(tt);
  CHECK_THAT(tt.error().message, Catch::Contains("calls at one stop only"));
}

TEST_CASE("GTFS: stops are numbered along a Hilbert curve, and every "
          "reference follows",
          "[gtfs][reader]") {
  // Four stops at the corners of a square, listed out of the curve's
  // order; a station over two of them; a transfer and trips naming them.
  auto files = small_feed();
  files["stops.txt"] = "stop_id,stop_name,stop_lat,stop_lon,location_type,"
                       "parent_station\n"
                       "NE,North-east,60.20,25.00,0,\n"
                       "SW,South-west,60.10,24.90,0,\n"
                       "ST,Station,60.20,24.90,1,\n"
                       "SE,South-east,60.10,25.00,0,\n"
                       "NW,North-west,60.20,24.90,0,ST\n";
  files["trips.txt"] = "route_id,service_id,trip_id\nR,WK,t1\nR,WK,t2\n";
  files["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence\n"
                            "t1,08:00:00,08:00:00,NE,1\n"
                            "t1,08:10:00,08:10:00,SW,2\n"
                            "t2,09:00:00,09:00:00,SE,1\n"
                            "t2,09:10:00,09:10:00,NW,2\n";
  files["transfers.txt"] = "from_stop_id,to_stop_id,transfer_type,"
                           "min_transfer_time\n"
                           "SW,SE,2,100000\n";
  auto loaded = load_memory(files);
  REQUIRE(loaded);
  const auto& tt = **loaded;
  // The curve over the square: south-west, north-west (the station at
  // the same place first, as listed), north-east, south-east.
  std::vector<std::string> ids;
  for (const auto& s : tt.stops)
    ids.push_back(s.id);
  CHECK(ids == std::vector<std::string>{"SW", "ST", "NW", "NE", "SE"});
  for (const auto& id : ids) {
    auto s = stop_named(tt, id);
    CHECK(tt.stops[s].id == id);
  }
  CHECK(tt.stops[stop_named(tt, "NW")].parent == stop_named(tt, "ST"));
  // The trips call where their rows say.
  auto first_stop = [&](const std::string& trip) {
    auto t = *tt.find_trip(trip);
    const auto& p = tt.patterns[tt.trip_pattern[t]];
    return tt.stops[tt.pattern_stops[p.stops_begin].stop].id;
  };
  CHECK(first_stop("t1") == "NE");
  CHECK(first_stop("t2") == "SE");
  // The transfer joins SW to SE, its time held at what a footpath holds.
  auto sw = stop_named(tt, "SW");
  bool found = false;
  for (auto i = tt.out_begin[sw]; i < tt.out_begin[sw + 1]; ++i)
    if (tt.out[i].stop == stop_named(tt, "SE")) {
      found = true;
      CHECK(tt.out[i].listed);
      CHECK(tt.out[i].seconds == footpath::max_seconds);
      CHECK(tt.out[i].meters > 5000); // 5.6 km: the agency's, not a walk
    }
  CHECK(found);
}
