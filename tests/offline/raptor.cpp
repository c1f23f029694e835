// RAPTOR against an independent Connection Scan on the real feeds, and on
// small networks for the rules one can check by hand.

#include "transitd/offline/raptor.hpp"

#include <random>

#include <catch2/catch.hpp>
#include <date/date.h>
#include <date/tz.h>

#include "transitd/offline/gtfs_reader.hpp"
#include "transitd/offline/gtfs_realtime.hpp"
#include "support/fixture_feeds.hpp"
#include "support/csa_reference.hpp"

using namespace transitd;
using namespace transitd::gtfs;

namespace {

std::shared_ptr<const timetable> load(const std::string& path) {
  return test::load_fixture_feed(path);
}

/// Whether transfers.txt lists the walk from `a` to `b` (the agency's own
/// connection, which the rider's walk limit does not bound).
bool listed_transfer(const timetable& tt, uint32_t a, uint32_t b) {
  if (a == none || b == none)
    return false;
  for (auto f = tt.out_begin[a]; f < tt.out_begin[a + 1]; ++f)
    if (tt.out[f].stop == b)
      return tt.out[f].listed;
  return false;
}

int64_t local_epoch(const std::string& zone, int y, unsigned m, unsigned d,
                    int seconds) {
  auto local = date::local_days{date::year{y} / m / d}
               + std::chrono::seconds{seconds};
  return date::locate_zone(zone)
    ->to_sys(local, date::choose::earliest)
    .time_since_epoch()
    .count();
}

/// The stops a journey can start or end at, for random queries.
std::vector<uint32_t> routable_stops(const timetable& tt) {
  std::vector<uint32_t> out;
  for (uint32_t s = 0; s < tt.stops.size(); ++s)
    if (tt.routable(s))
      out.push_back(s);
  return out;
}

/// Random questions between the subway's stops on Wednesday 2026-10-14,
/// at a second between `from_s` and `to_s` after its midnight; seeded, so
/// a test asks the same ones every run.
struct subway_questions {
  subway_questions(const timetable& tt, uint32_t seed, int from_s, int to_s)
    : tt(tt), routable(routable_stops(tt)), rng(seed),
      pick(0, routable.size() - 1), second(from_s, to_s) {}
  /// From one stop to another at a random time (other fields defaulted).
  journey_request next() {
    journey_request rq;
    rq.from = tt.stops[routable[pick(rng)]].position;
    rq.to = tt.stops[routable[pick(rng)]].position;
    rq.time = local_epoch("America/New_York", 2026, 10, 14, second(rng));
    return rq;
  }
  /// The next question, question `q` of a mix: every third arrive-by,
  /// every other with walks up to `walk` meters (else 10: from the stops
  /// themselves).
  journey_request next_of_mix(int q, int32_t walk) {
    auto rq = next();
    rq.arrive_by = q % 3 == 2;
    rq.max_walk_meters = q % 2 == 0 ? walk : 10;
    return rq;
  }
  const timetable& tt;
  std::vector<uint32_t> routable;
  std::mt19937 rng;
  std::uniform_int_distribution<std::size_t> pick;
  std::uniform_int_distribution<int> second;
};

/// Random points near random stops, random times of one day, random walk
/// and transfer bounds; RAPTOR's earliest arrival with at most k vehicles
/// must equal the reference's for every k.
void compare_with_reference(
  const timetable& tt, const std::string& zone, int y, unsigned m,
  unsigned d, int queries, uint32_t seed,
  const realtime_layer* realtime = nullptr,
  const test::csa_reference::changes* changes = nullptr) {
  std::mt19937 rng{seed};
  const auto routable = routable_stops(tt);
  auto noon = local_epoch(zone, y, m, d, 12 * 3600);
  test::csa_reference reference{tt, noon, changes};
  raptor router{tt};
  std::uniform_int_distribution<std::size_t> pick(0, routable.size() - 1);
  std::uniform_int_distribution<int> second(4 * 3600, 23 * 3600);
  std::uniform_real_distribution<double> jitter(-0.003, 0.003);
  const int32_t walks[] = {200, 500, 1000, 1500};
  int reached = 0;
  for (int q = 0; q < queries; ++q) {
    journey_request rq;
    auto a = tt.stops[routable[pick(rng)]].position;
    auto b = tt.stops[routable[pick(rng)]].position;
    rq.from = {a.lat + jitter(rng), a.lon + jitter(rng)};
    rq.to = {b.lat + jitter(rng), b.lon + jitter(rng)};
    rq.time = local_epoch(zone, y, m, d, second(rng));
    rq.max_walk_meters = walks[q % 4];
    rq.max_transfers = static_cast<int32_t>(q % 6);
    rq.realtime = realtime;
    auto rides = rq.max_transfers + 1;
    auto expected = reference.earliest(rq.from, rq.to, rq.time, rides,
                                       rq.max_walk_meters);
    auto found = router.route(rq);
    INFO("query " << q << ": from " << rq.from.lat << "," << rq.from.lon
                  << " to " << rq.to.lat << "," << rq.to.lon << " at "
                  << rq.time << ", walk " << rq.max_walk_meters
                  << ", transfers " << rq.max_transfers);
    for (int32_t k = 0; k <= rides; ++k) {
      int64_t best = test::csa_reference::never;
      for (const auto& j : found)
        if (j.rides <= k)
          best = std::min(best, j.arrival);
      INFO("at most " << k << " vehicles");
      CHECK(best == expected[static_cast<std::size_t>(k)]);
    }
    if (!found.empty())
      ++reached;
    // Every journey holds together: legs in order, vehicles as counted.
    for (const auto& j : found) {
      int32_t vehicles = 0;
      for (std::size_t i = 0; i < j.legs.size(); ++i) {
        CHECK(j.legs[i].start <= j.legs[i].end);
        if (i > 0) {
          CHECK(j.legs[i - 1].end <= j.legs[i].start);
          // Continuous: each leg starts where the one before ended.
          CHECK(j.legs[i - 1].to_stop == j.legs[i].from_stop);
        }
        vehicles += j.legs[i].transit ? 1 : 0;
        if (!j.legs[i].transit
            && !listed_transfer(tt, j.legs[i].from_stop, j.legs[i].to_stop))
          CHECK(j.legs[i].meters <= rq.max_walk_meters);
      }
      CHECK(vehicles == j.rides);
      CHECK(j.departure >= rq.time);
    }
  }
  // The comparison means something only if most queries find a journey.
  CHECK(reached > queries / 2);
}

/// Whether two journeys ride and walk alike, leg by leg.
bool same_legs(const journey& a, const journey& b) {
  if (a.legs.size() != b.legs.size())
    return false;
  for (std::size_t i = 0; i < a.legs.size(); ++i) {
    const auto& x = a.legs[i];
    const auto& y = b.legs[i];
    if (x.transit != y.transit || x.from_stop != y.from_stop
        || x.to_stop != y.to_stop || x.start != y.start || x.end != y.end
        || x.pattern != y.pattern || x.trip_rank != y.trip_rank
        || x.board != y.board || x.alight != y.alight
        || x.meters != y.meters)
      return false;
  }
  return true;
}

} // namespace

TEST_CASE("RAPTOR equals a connection scan on the New York subway",
          "[raptor][reference]") {
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  // Wednesday 2026-10-14 and Sunday 2026-10-18.
  compare_with_reference(*tt, "America/New_York", 2026, 10, 14, 250, 1);
  compare_with_reference(*tt, "America/New_York", 2026, 10, 18, 100, 2);
}

TEST_CASE("RAPTOR equals a connection scan on BART and Caltrain",
          "[raptor][reference]") {
  auto bart = load("bart-2019/bart-gtfs.zip");
  compare_with_reference(*bart, "America/Los_Angeles", 2019, 8, 7, 150, 3);
  auto caltrain = load("caltrain-2023-09/caltrain-gtfs.zip");
  compare_with_reference(*caltrain, "America/Los_Angeles", 2023, 11, 7, 150,
                         4);
}

namespace {

/// Realtime for every trip of one service day, at random: a tenth
/// cancelled, a third late or early by a trip-wide delay, some of those
/// skipping a stop or two; the same changes as GTFS-realtime updates (for
/// RAPTOR, through the layer) and as the reference's own.
struct random_realtime {
  std::vector<gtfs_rt::trip_update> updates;
  test::csa_reference::changes changes;
};

random_realtime make_random_realtime(const timetable& tt, int32_t day,
                                     const std::string& date, uint32_t seed) {
  random_realtime out;
  std::mt19937 rng{seed};
  std::uniform_int_distribution<int> percent(0, 99);
  std::uniform_int_distribution<int> delay(-120, 900);
  for (uint32_t t = 0; t < tt.trips.size(); ++t) {
    auto p = tt.trip_pattern[t];
    if (p == none || !tt.runs_on(tt.patterns[p].service, day))
      continue;
    const auto& pat = tt.patterns[p];
    auto roll = percent(rng);
    if (roll >= 40)
      continue;
    gtfs_rt::trip_update u;
    u.trip.trip_id = tt.trips[t].id;
    u.trip.start_date = date;
    test::csa_reference::trip_change change;
    if (roll < 10) {
      u.trip.relationship = gtfs_rt::trip_relationship::canceled;
      change.cancelled = true;
    } else {
      u.delay_s = delay(rng);
      change.delay = *u.delay_s;
      if (roll < 20) {
        change.skipped.assign(pat.stop_count, false);
        std::uniform_int_distribution<uint32_t> at(0, pat.stop_count - 1);
        for (int k = 0; k < 2; ++k) {
          auto i = at(rng);
          change.skipped[i] = true;
          gtfs_rt::stop_time_update skip;
          skip.stop_sequence = tt.pattern_stops[pat.stops_begin + i].sequence;
          skip.relationship = gtfs_rt::stop_relationship::skipped;
          u.stops.push_back(skip);
        }
        std::sort(u.stops.begin(), u.stops.end(),
                  [](const auto& a, const auto& b) {
                    return *a.stop_sequence < *b.stop_sequence;
                  });
      }
    }
    out.updates.push_back(std::move(u));
    out.changes[{t, day}] = std::move(change);
  }
  return out;
}

void compare_realtime_with_reference(std::shared_ptr<const timetable> tt,
                                     const std::string& zone, int y,
                                     unsigned m, unsigned d, int queries,
                                     uint32_t seed) {
  auto noon = local_epoch(zone, y, m, d, 12 * 3600);
  char date[9];
  std::snprintf(date, sizeof date, "%04d%02u%02u", y, m, d);
  auto day = static_cast<int32_t>(noon / 86400) - tt->first_day;
  auto rt = make_random_realtime(*tt, day, date, seed);
  REQUIRE(rt.updates.size() > 20);
  auto layer = build_realtime(tt, rt.updates, noon);
  CHECK(layer->counts.matched == rt.updates.size());
  CHECK(layer->counts.unmatched_trips == 0);
  CHECK(layer->counts.unmatched_stops == 0);
  compare_with_reference(*tt, zone, y, m, d, queries, seed, layer.get(),
                         &rt.changes);
}

} // namespace

TEST_CASE("RAPTOR on realtime equals a connection scan with the same "
          "cancellations, delays and skipped stops",
          "[raptor][reference][realtime]") {
  compare_realtime_with_reference(load("bart-2019/bart-gtfs.zip"),
                                  "America/Los_Angeles", 2019, 8, 7, 150, 5);
  compare_realtime_with_reference(load("caltrain-2023-09/caltrain-gtfs.zip"),
                                  "America/Los_Angeles", 2023, 11, 7, 150, 6);
}

TEST_CASE("RAPTOR arrive-by: the latest departure that arrives in time",
          "[raptor]") {
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  raptor router{*tt};
  subway_questions questions{*tt, 5, 7 * 3600, 22 * 3600};
  int checked = 0;
  for (int q = 0; q < 90; ++q) {
    auto rq = questions.next();
    rq.max_walk_meters = 800;
    rq.max_transfers = 3;
    rq.arrive_by = true;
    auto back = router.route(rq);
    if (back.empty())
      continue;
    int64_t latest = back.front().departure;
    for (const auto& j : back) {
      CHECK(j.arrival <= rq.time);
      latest = std::max(latest, j.departure);
    }
    // Leaving then arrives in time; leaving a second later does not.
    journey_request fwd = rq;
    fwd.arrive_by = false;
    fwd.time = latest;
    auto at = router.route(fwd);
    REQUIRE_FALSE(at.empty());
    CHECK(at.front().arrival <= rq.time);
    fwd.time = latest + 1;
    auto later = router.route(fwd);
    INFO("query " << q);
    CHECK((later.empty() || later.front().arrival > rq.time));
    ++checked;
  }
  CHECK(checked > 30);
}

namespace {

/// A line A-B-C and a line D-E, B and D 100 m apart; all in Helsinki.
std::map<std::string, std::string> two_lines(const std::string& transfers,
                                             const std::string& extra_times
                                             = "") {
  return {
    {"agency.txt", "agency_name,agency_url,agency_timezone\n"
                   "A,http://a.example,Europe/Helsinki\n"},
    {"stops.txt", "stop_id,stop_name,stop_lat,stop_lon\n"
                  "A,A,60.100,24.900\n"
                  "B,B,60.150,24.900\n"
                  "C,C,60.200,24.900\n"
                  "D,D,60.1509,24.900\n"
                  "E,E,60.150,25.000\n"},
    {"routes.txt", "route_id,route_short_name,route_type\n1,1,3\n2,2,3\n"},
    {"trips.txt", "route_id,service_id,trip_id\n1,S,x\n2,S,y\n2,S,z\n"},
    {"stop_times.txt", "trip_id,arrival_time,departure_time,stop_id,"
                       "stop_sequence,pickup_type,drop_off_type\n"
                       "x,08:00:00,08:00:00,A,1,0,0\n"
                       "x,08:10:00,08:10:00,B,2,0,0\n"
                       "x,08:20:00,08:20:00,C,3,0,0\n"
                       "y,08:12:00,08:12:00,D,1,0,0\n"
                       "y,08:30:00,08:30:00,E,2,0,0\n"
                       "z,08:20:00,08:20:00,D,1,0,0\n"
                       "z,08:38:00,08:38:00,E,2,0,0\n"
                         + extra_times},
    {"calendar.txt", "service_id,monday,tuesday,wednesday,thursday,friday,"
                     "saturday,sunday,start_date,end_date\n"
                     "S,1,1,1,1,1,1,1,20260101,20261231\n"},
    {"transfers.txt", "from_stop_id,to_stop_id,transfer_type,"
                      "min_transfer_time\n"
                        + transfers},
  };
}

std::shared_ptr<const timetable>
load_files(std::map<std::string, std::string> files) {
  std::vector<std::unique_ptr<feed_files>> sources;
  sources.push_back(in_memory_feed(std::move(files)));
  auto tt = load_timetable("t", std::move(sources));
  if (!tt)
    FAIL(tt.error().message);
  return *tt;
}

journey_request a_to_e() {
  journey_request rq;
  rq.from = {60.100, 24.900};
  rq.to = {60.150, 25.000};
  rq.time = local_epoch("Europe/Helsinki", 2026, 6, 10, 7 * 3600 + 55 * 60);
  rq.max_walk_meters = 500;
  return rq;
}

int64_t at(int h, int m) {
  return local_epoch("Europe/Helsinki", 2026, 6, 10, h * 3600 + m * 60);
}

} // namespace

TEST_CASE("RAPTOR: a transfer walks the generated footpath", "[raptor]") {
  auto tt = load_files(two_lines(""));
  raptor router{*tt};
  auto found = router.route(a_to_e());
  REQUIRE(found.size() == 1);
  const auto& j = found[0];
  // A 08:00 → B 08:10, walk 100 m (84 s) to D, 08:12 → E 08:30.
  CHECK(j.rides == 2);
  CHECK(j.arrival == at(8, 30));
  REQUIRE(j.legs.size() == 3);
  CHECK(j.legs[0].transit);
  CHECK_FALSE(j.legs[1].transit);
  CHECK(j.legs[1].meters == 100);
  CHECK(j.legs[1].end - j.legs[1].start == 84);
  // No walk at either end: the points are the stops.
  CHECK(j.departure == at(8, 0));
}

TEST_CASE("RAPTOR: transfers.txt overrides and forbids footpaths",
          "[raptor]") {
  // 5 minutes from B to D: the 08:12 is missed, the 08:20 taken.
  auto slow = load_files(two_lines("B,D,2,300\n"));
  raptor slow_router{*slow};
  auto found = slow_router.route(a_to_e());
  REQUIRE_FALSE(found.empty());
  CHECK(found.front().arrival == at(8, 38));
  // Not possible at all.
  auto closed = load_files(two_lines("B,D,3,\n"));
  raptor closed_router{*closed};
  CHECK(closed_router.route(a_to_e()).empty());
}

TEST_CASE("RAPTOR: maxTransfers bounds the vehicles; Pareto set",
          "[raptor]") {
  auto tt = load_files(two_lines(""));
  raptor router{*tt};
  auto rq = a_to_e();
  rq.max_transfers = 0;
  CHECK(router.route(rq).empty());
  // Walking 500 m from C... too far to E: still nothing with one vehicle.
  rq.max_transfers = 1;
  CHECK(router.route(rq).size() == 1);
}

TEST_CASE("RAPTOR: no boarding where pickup is refused", "[raptor]") {
  auto files = two_lines("");
  files["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence,pickup_type,drop_off_type\n"
                            "x,08:00:00,08:00:00,A,1,1,0\n"
                            "x,08:10:00,08:10:00,B,2,0,0\n"
                            "y,08:12:00,08:12:00,D,1,0,0\n"
                            "y,08:30:00,08:30:00,E,2,0,0\n";
  auto tt = load_files(files);
  raptor router{*tt};
  CHECK(router.route(a_to_e()).empty());
}

TEST_CASE("RAPTOR: trips past midnight run on their service day",
          "[raptor]") {
  auto files = two_lines("");
  files["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence\n"
                            "x,24:30:00,24:30:00,A,1\n"
                            "x,24:40:00,24:40:00,B,2\n"
                            "y,24:50:00,24:50:00,D,1\n"
                            "y,25:10:00,25:10:00,E,2\n";
  files["calendar.txt"] = "service_id,monday,tuesday,wednesday,thursday,"
                          "friday,saturday,sunday,start_date,end_date\n"
                          "S,0,0,1,0,0,0,0,20260101,20261231\n";
  auto tt = load_files(files);
  raptor router{*tt};
  auto rq = a_to_e();
  // Thursday 00:20 is still Wednesday's service (Wednesday 2026-06-10).
  rq.time = local_epoch("Europe/Helsinki", 2026, 6, 11, 20 * 60);
  auto found = router.route(rq);
  REQUIRE(found.size() == 1);
  CHECK(found[0].arrival
        == local_epoch("Europe/Helsinki", 2026, 6, 11, 3600 + 10 * 60));
  // On Thursday night nothing runs (Thursday's service does not exist).
  rq.time = local_epoch("Europe/Helsinki", 2026, 6, 12, 20 * 60);
  CHECK(router.route(rq).empty());
}

TEST_CASE("RAPTOR: a walk-only journey when the points are close",
          "[raptor]") {
  auto tt = load_files(two_lines(""));
  raptor router{*tt};
  journey_request rq;
  rq.from = {60.150, 24.900};
  rq.to = {60.1509, 24.900};
  rq.time = at(8, 0);
  auto found = router.route(rq);
  REQUIRE(found.size() == 1);
  CHECK(found[0].rides == 0);
  CHECK(found[0].legs.size() == 1);
  CHECK(found[0].arrival == at(8, 0) + 84);
}

TEST_CASE("RAPTOR: more journeys come from later departures", "[raptor]") {
  auto files = two_lines("", "w,08:30:00,08:30:00,A,1\n"
                             "w,08:40:00,08:40:00,B,2\n"
                             "v,08:50:00,08:50:00,D,1\n"
                             "v,09:08:00,09:08:00,E,2\n");
  files["trips.txt"] += "1,S,w\n2,S,v\n";
  auto tt = load_files(files);
  raptor router{*tt};
  // One search finds x+y; the next, leaving after 08:00, finds w+v.
  CHECK(router.route(a_to_e()).size() == 1);
  auto found = plan_journeys(router, a_to_e(), 3);
  // Tomorrow's 08:00 lies outside the two-hour window of later searches.
  REQUIRE(found.size() == 2);
  CHECK(found[0].arrival == at(8, 30));
  CHECK(found[1].arrival == at(9, 8));
  CHECK(found[1].departure == at(8, 30));
  // Asked for one, the earliest arrival is the one kept.
  auto one = plan_journeys(router, a_to_e(), 1);
  REQUIRE(one.size() == 1);
  CHECK(one[0].arrival == at(8, 30));
}

namespace {

/// Line 1 of `two_lines` with one more stop (a stops.txt row) and trip x
/// alone, at `times` (stop_times.txt rows).
std::shared_ptr<const timetable> line_with_stop(const std::string& stop,
                                                const std::string& times) {
  auto files = two_lines("");
  files["stops.txt"] += stop + "\n";
  files["stop_times.txt"] = "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence\n"
                            + times;
  return load_files(files);
}

journey_request walk_500(coordinate from, coordinate to, int64_t time,
                         bool arrive_by) {
  journey_request rq;
  rq.from = from;
  rq.to = to;
  rq.time = time;
  rq.arrive_by = arrive_by;
  rq.max_walk_meters = 500;
  return rq;
}

} // namespace

TEST_CASE("RAPTOR: the first ride is boarded where the rider leaves latest",
          "[raptor]") {
  // F lies on line 1 between A and B; the point P as far from A as from F.
  auto tt = line_with_stop("F,F,60.104,24.900",
                           "x,08:00:00,08:00:00,A,1\n"
                           "x,08:02:00,08:02:00,F,2\n"
                           "x,08:10:00,08:10:00,B,3\n"
                           "x,08:20:00,08:20:00,C,4\n");
  raptor router{*tt};
  auto found = router.route(
    walk_500({60.102, 24.900}, {60.200, 24.900}, at(7, 50), false));
  REQUIRE(found.size() == 1);
  const auto& j = found[0];
  REQUIRE(j.legs.size() == 2);
  // Both walks are as long: the train is caught at F, two minutes later.
  CHECK(tt->stops[j.legs[1].from_stop].id == "F");
  CHECK(j.legs[1].start == at(8, 2));
  CHECK(j.departure == at(8, 2) - (j.legs[0].end - j.legs[0].start));
  CHECK(j.arrival == at(8, 20));
}

TEST_CASE("RAPTOR arrive-by: the last ride is left where the rider arrives "
          "earliest",
          "[raptor]") {
  // G lies on line 1 between B and C; the point Q as far from B as from G.
  auto tt = line_with_stop("G,G,60.154,24.900",
                           "x,08:00:00,08:00:00,A,1\n"
                           "x,08:10:00,08:10:00,B,2\n"
                           "x,08:12:00,08:12:00,G,3\n"
                           "x,08:20:00,08:20:00,C,4\n");
  raptor router{*tt};
  auto found = router.route(
    walk_500({60.100, 24.900}, {60.152, 24.900}, at(8, 30), true));
  REQUIRE(found.size() == 1);
  const auto& j = found[0];
  REQUIRE(j.legs.size() == 2);
  // Both walks are as long: the rider leaves the train at B, two minutes
  // before G, and arrives that much earlier.
  CHECK(tt->stops[j.legs[0].to_stop].id == "B");
  CHECK(j.legs[0].end == at(8, 10));
  CHECK(j.arrival == at(8, 10) + (j.legs[1].end - j.legs[1].start));
  CHECK(j.departure == at(8, 0));
}

TEST_CASE("RAPTOR: a line calling twice at a stop is ridden between the "
          "calls it was boarded and left at",
          "[raptor]") {
  // Line 1 loops back to B after C, then goes on to F.
  auto tt = line_with_stop("F,F,60.250,24.900",
                           "x,08:00:00,08:00:00,A,1\n"
                           "x,08:10:00,08:10:00,B,2\n"
                           "x,08:20:00,08:20:00,C,3\n"
                           "x,08:30:00,08:30:00,B,4\n"
                           "x,08:40:00,08:40:00,F,5\n");
  raptor router{*tt};
  const coordinate a{60.100, 24.900}, b{60.150, 24.900}, c{60.200, 24.900};
  // The ride of a journey: its one transit leg.
  auto ride_of = [](const std::vector<journey>& found) {
    REQUIRE(found.size() == 1);
    std::optional<journey_leg> ride;
    for (const auto& leg : found[0].legs)
      if (leg.transit) {
        CHECK_FALSE(ride);
        ride = leg;
      }
    REQUIRE(ride);
    return *ride;
  };
  for (bool arrive_by : {false, true}) {
    INFO((arrive_by ? "arrive by" : "leave at"));
    // From C, B is the second call: boarded at position 2, left at 3.
    auto from_c = ride_of(router.route(
      walk_500(c, b, arrive_by ? at(8, 45) : at(8, 15), arrive_by)));
    CHECK(from_c.board == 2);
    CHECK(from_c.alight == 3);
    CHECK(from_c.start == at(8, 20));
    CHECK(from_c.end == at(8, 30));
    CHECK(tt->stops[from_c.to_stop].id == "B");
    // From A, B is the first call (the earliest arrival; arrive-by, the
    // first-ride rule's mirror leaves the train there too).
    auto from_a = ride_of(router.route(
      walk_500(a, b, arrive_by ? at(8, 45) : at(7, 55), arrive_by)));
    CHECK(from_a.board == 0);
    CHECK(from_a.alight == 1);
    CHECK(from_a.start == at(8, 0));
    CHECK(from_a.end == at(8, 10));
  }
}

TEST_CASE("RAPTOR: each ride as late as the next allows (arrive-by: the "
          "rides after the first as early)",
          "[raptor]") {
  // u runs ten minutes before x: both make y at D.
  auto files = two_lines("", "u,07:50:00,07:50:00,A,1\n"
                             "u,08:00:00,08:00:00,B,2\n"
                             "u,08:10:00,08:10:00,C,3\n");
  files["trips.txt"] += "1,S,u\n";
  auto tt = load_files(files);
  raptor router{*tt};
  auto rq = a_to_e();
  rq.time = at(7, 45);
  // The earliest arrival at B is u's; the journey still leaves with x.
  auto found = router.route(rq);
  REQUIRE(found.size() == 1);
  CHECK(found[0].departure == at(8, 0));
  CHECK(found[0].arrival == at(8, 30));
  REQUIRE(found[0].legs.size() == 3);
  CHECK(found[0].legs[1].start == at(8, 10)); // the walk follows the ride
  // Arrive by 08:45: the latest departure is x, whose rider makes y as
  // well as z; the journey takes y and arrives at 08:30, not 08:38.
  rq.arrive_by = true;
  rq.time = at(8, 45);
  auto back = router.route(rq);
  REQUIRE(back.size() == 1);
  CHECK(back[0].departure == at(8, 0));
  CHECK(back[0].arrival == at(8, 30));
  CHECK(back[0].legs[1].start == at(8, 10));
  CHECK(back[0].legs[2].start == at(8, 12));
}

TEST_CASE("RAPTOR: a set stop flag ends the search early", "[raptor]") {
  auto tt = load_files(two_lines(""));
  raptor router{*tt};
  std::atomic<bool> stop{false};
  auto rq = a_to_e();
  rq.stop = &stop;
  // Down, the flag changes nothing.
  CHECK(router.route(rq).size() == 1);
  CHECK(plan_journeys(router, rq, 3).size() == 1);
  // Up, no round runs (the caller drops what it would have had).
  stop = true;
  CHECK(router.route(rq).empty());
  CHECK(plan_journeys(router, rq, 3).empty());
  // The router stays usable for the next search.
  rq.stop = nullptr;
  CHECK(router.route(rq).size() == 1);
}

/// The fastest of a non-empty list: the earliest arrival (arrive-by: the
/// latest departure), then the fewest rides.
const journey& fastest_in(const std::vector<journey>& js, bool back) {
  const journey* fastest = &js.front();
  for (const auto& j : js) {
    auto e = back ? -j.departure : j.arrival;
    auto f = back ? -fastest->departure : fastest->arrival;
    if (e < f || (e == f && j.rides < fastest->rides))
      fastest = &j;
  }
  return *fastest;
}

TEST_CASE("plan_journeys on the subway: itineraries a rider would take",
          "[raptor][rules]") {
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  raptor router{*tt};
  // Any second of the day, the small hours included (where the next ride
  // with fewer changes may be hours away).
  subway_questions questions{*tt, 31, 0, 86399};
  int checked = 0;
  int dropped_or_none = 0;
  // Questions whose itineraries the worth of a ride changed.
  int worth_changed = 0;
  for (int q = 0; q < 300; ++q) {
    auto rq = questions.next_of_mix(q, 400);
    // optimize balanced: a ride more must gain three minutes.
    constexpr int64_t worth = 180;
    auto found = plan_journeys(router, rq, 3, worth);
    INFO("query " << q << " at " << rq.time
                  << (rq.arrive_by ? " arrive-by" : " depart"));
    // None gains on one with fewer rides less than its rides more are
    // worth, on both ends.
    for (const auto& j : found)
      for (const auto& k : found)
        if (k.rides < j.rides) {
          auto allowance = worth * (j.rides - k.rides);
          CHECK_FALSE((k.departure >= j.departure - allowance
                       && k.arrival <= j.arrival + allowance));
        }
    if (found.size() != plan_journeys(router, rq, 3, 0).size()
        || !std::equal(found.begin(), found.end(),
                       plan_journeys(router, rq, 3, 0).begin(),
                       [](const journey& a, const journey& b) {
                         return a.departure == b.departure
                                && a.arrival == b.arrival
                                && a.rides == b.rides;
                       }))
      ++worth_changed;
    if (found.empty()) {
      ++dropped_or_none;
      continue;
    }
    ++checked;
    // The fastest, then no journey outside the window and no fewer-ride
    // journey beyond the slack.
    const journey* fastest = &fastest_in(found, rq.arrive_by);
    auto slack = std::max<int64_t>(20 * 60, (fastest->arrival
                                             - fastest->departure) / 2);
    for (const auto& j : found) {
      if (rq.arrive_by)
        CHECK(j.arrival >= rq.time - later_search_window);
      else
        CHECK(j.departure <= rq.time + later_search_window);
      if (j.rides < fastest->rides)
        CHECK((rq.arrive_by ? fastest->departure - j.departure
                            : j.arrival - fastest->arrival)
              <= slack);
      for (std::size_t i = 1; i < j.legs.size(); ++i)
        CHECK(j.legs[i - 1].to_stop == j.legs[i].from_stop);
    }
  }
  CHECK(checked > 200);
  CHECK(worth_changed > 0);
}

/// Each journey's end (arrival; arrive-by: departure) and rides, sorted:
/// where two journeys tie on both, which one a search keeps may differ (a
/// search pruned otherwise labels the other first).
std::vector<std::pair<int64_t, int32_t>>
ends_and_rides(const std::vector<journey>& js, bool back) {
  std::vector<std::pair<int64_t, int32_t>> out;
  for (const auto& j : js)
    out.emplace_back(back ? j.departure : j.arrival, j.rides);
  std::sort(out.begin(), out.end());
  return out;
}

TEST_CASE("raptor: a cutoff prunes only journeys that do not beat it",
          "[raptor][cutoff]") {
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  raptor router{*tt};
  subway_questions questions{*tt, 41, 5 * 3600, 22 * 3600};
  int cut_some = 0;
  int cut_all = 0;
  for (int q = 0; q < 200; ++q) {
    auto rq = questions.next();
    rq.arrive_by = q % 2 == 1;
    const bool back = rq.arrive_by;
    auto whole = router.route(rq);
    CHECK_FALSE(router.cutoff_used());
    if (whole.empty())
      continue;
    INFO("query " << q << " at " << rq.time << (back ? " arrive-by" : ""));
    // A cutoff between the fastest and the slowest of the Pareto set (and
    // one before the fastest): the journeys beating it, as without it.
    auto ends = ends_and_rides(whole, back);
    const auto first = back ? ends.back().first : ends.front().first;
    const auto last = back ? ends.front().first : ends.back().first;
    for (auto cut : {(first + last) / 2 + (back ? -1 : 1),
                     back ? first + 1 : first - 1}) {
      auto cut_rq = rq;
      cut_rq.cutoff = cut;
      auto pruned = router.route(cut_rq);
      auto beats = [&](const journey& j) {
        return back ? j.departure > cut : j.arrival < cut;
      };
      std::vector<journey> expected;
      std::copy_if(whole.begin(), whole.end(), std::back_inserter(expected),
                   beats);
      CHECK(ends_and_rides(pruned, back) == ends_and_rides(expected, back));
      for (const auto& j : pruned)
        CHECK(beats(j));
      if (expected.size() < whole.size())
        ++cut_some;
      if (expected.empty())
        ++cut_all;
      // Reported, unless nothing was left to prune by it.
      if (router.cutoff_used())
        CHECK(*router.cutoff_used() == cut);
    }
  }
  CHECK(cut_some > 150);
  CHECK(cut_all > 150);
}

TEST_CASE("plan_first_search: a guessed cutoff gives the arrivals and rides "
          "of the whole search within the fastest's slack",
          "[raptor][cutoff][rules]") {
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  raptor router{*tt};
  subway_questions questions{*tt, 43, 0, 86399};
  int guessed = 0;
  int guessed_short = 0;
  int found_beyond_guess = 0;
  int found_none = 0;
  int slack_dropped = 0;
  for (int q = 0; q < 300; ++q) {
    auto rq = questions.next_of_mix(q, 600);
    INFO("query " << q << " at " << rq.time
                  << (rq.arrive_by ? " arrive-by" : ""));
    // The whole search, then the rule by hand.
    auto whole = router.route(rq);
    auto expected = whole;
    std::optional<int64_t> limit;
    if (!whole.empty()) {
      const journey* fastest = &fastest_in(whole, rq.arrive_by);
      auto slack = fewer_rides_slack(*fastest);
      bool in_window = rq.arrive_by
                         ? fastest->arrival >= rq.time - later_search_window
                         : fastest->departure
                             <= rq.time + later_search_window;
      if (in_window) {
        auto f = *fastest;
        limit = rq.arrive_by ? f.departure - slack - 1
                             : f.arrival + slack + 1;
        expected.erase(
          std::remove_if(expected.begin(), expected.end(),
                         [&](const journey& j) {
                           return rq.arrive_by
                                    ? j.departure < f.departure - slack
                                    : j.arrival > f.arrival + slack;
                         }),
          expected.end());
      }
      slack_dropped += expected.size() < whole.size() ? 1 : 0;
    }
    const bool back = rq.arrive_by;
    CHECK(ends_and_rides(plan_first_search(router, rq, {}), back)
          == ends_and_rides(expected, back));
    CHECK(ends_and_rides(plan_first_search(router, rq), back)
          == ends_and_rides(expected, back));
    // A guess far too short: nothing found, searched again without it.
    CHECK(ends_and_rides(plan_first_search(router, rq, {0.3, 0}), back)
          == ends_and_rides(expected, back));
    // Both ways of a guess falling short happen (a route with the guess
    // says what it pruned by).
    auto with_guess = rq;
    with_guess.guess = {first_cutoff_factor, first_cutoff_plus_s};
    router.route(with_guess);
    if (auto cut = router.cutoff_used()) {
      ++guessed;
      if (limit && (back ? *cut > *limit : *cut < *limit)) {
        ++guessed_short; // found the fastest, not all within its slack
        // Fewer rides ending between the guess and the limit: what the
        // search again (its rounds of fewer rides alone) is for.
        if (std::any_of(expected.begin(), expected.end(),
                        [&](const journey& j) {
                          return back ? j.departure <= *cut
                                      : j.arrival >= *cut;
                        }))
          ++found_beyond_guess;
      }
    }
    with_guess.guess = {0.3, 0};
    if (router.route(with_guess).empty() && router.cutoff_used()
        && !expected.empty())
      ++found_none;
  }
  CHECK(guessed > 200);
  CHECK(guessed_short > 10);
  CHECK(found_beyond_guess > 0);
  CHECK(found_none > 10);
  CHECK(slack_dropped > 0);
}

TEST_CASE("transfers.txt's connections are the agency's: a rider's walk "
          "limit does not bound them",
          "[raptor][rules]") {
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  // Times Sq: the 1/2/3 platforms (127) and the 7's (725) are 27 m apart
  // and joined in transfers.txt.
  auto a = tt->find_stop("127S");
  auto b = tt->find_stop("725N");
  REQUIRE(a);
  REQUIRE(b);
  CHECK(listed_transfer(*tt, *a, *b));
  raptor router{*tt};
  journey_request rq;
  // From 96 St (1/2/3) to Flushing-Main St (7 only), walking at most 10 m.
  auto from = tt->find_stop("120");
  auto to = tt->find_stop("701");
  REQUIRE(from);
  REQUIRE(to);
  rq.from_stops = tt->stop_and_children(*from);
  rq.to_stops = tt->stop_and_children(*to);
  rq.from = tt->stops[*from].position;
  rq.to = tt->stops[*to].position;
  rq.time = local_epoch("America/New_York", 2026, 10, 14, 9 * 3600);
  rq.max_walk_meters = 10;
  auto found = router.route(rq);
  REQUIRE_FALSE(found.empty());
  const auto& j = found.front();
  // Stop ends (D21): the journey starts and ends on a platform, no walk.
  REQUIRE(j.legs.front().transit);
  CHECK(tt->stops[j.legs.front().from_stop].parent == *from);
  REQUIRE(j.legs.back().transit);
  CHECK(tt->stops[j.legs.back().to_stop].parent == *to);
  // The change is a leg of its own, from where one ride ends to where the
  // next starts.
  bool change = false;
  for (std::size_t i = 1; i + 1 < j.legs.size(); ++i)
    if (!j.legs[i].transit) {
      change = true;
      CHECK(j.legs[i].from_stop == j.legs[i - 1].to_stop);
      CHECK(j.legs[i].to_stop == j.legs[i + 1].from_stop);
      CHECK(listed_transfer(*tt, j.legs[i].from_stop, j.legs[i].to_stop));
    }
  CHECK(change);
}

TEST_CASE("reach (one-to-all) equals the connection scan's arrivals on the "
          "New York subway",
          "[raptor][reference][reach]") {
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  raptor router{*tt};
  const auto routable = routable_stops(*tt);
  std::mt19937 rng{33};
  std::uniform_int_distribution<std::size_t> pick(0, routable.size() - 1);
  std::uniform_int_distribution<int> second(5 * 3600, 23 * 3600);
  std::uniform_real_distribution<double> jitter(-0.003, 0.003);
  int compared = 0;
  for (int q = 0; q < 40; ++q) {
    journey_request rq;
    auto a = tt->stops[routable[pick(rng)]].position;
    rq.from = {a.lat + jitter(rng), a.lon + jitter(rng)};
    rq.time = local_epoch("America/New_York", 2026, 10, 14, second(rng));
    rq.max_walk_meters = q % 2 == 0 ? 800 : 300;
    rq.max_transfers = q % 4;
    auto limit = rq.time + (q % 3 == 0 ? 30 : 60) * 60;
    test::csa_reference reference{*tt, rq.time};
    auto expected = reference.arrivals(rq.from, rq.time,
                                       rq.max_transfers + 1,
                                       rq.max_walk_meters, limit);
    auto found = router.reach(rq, limit);
    INFO("query " << q << " from " << rq.from.lat << "," << rq.from.lon
                  << " at " << rq.time);
    std::vector<int64_t> got(tt->stops.size(),
                             test::csa_reference::never);
    std::vector<int32_t> rides(tt->stops.size(), -1);
    for (std::size_t i = 0; i < found.size(); ++i) {
      got[found[i].stop] = found[i].arrival;
      rides[found[i].stop] = found[i].rides;
      if (i > 0)
        CHECK(found[i - 1].arrival <= found[i].arrival);
    }
    const auto& best = expected.back();
    for (uint32_t s = 0; s < tt->stops.size(); ++s) {
      INFO("stop " << tt->stops[s].id);
      CHECK(got[s] == best[s]);
      if (best[s] != test::csa_reference::never) {
        // The fewest vehicles that arrive that early.
        int32_t k = 0;
        while (expected[static_cast<std::size_t>(k)][s] != best[s])
          ++k;
        CHECK(rides[s] == k);
        ++compared;
      }
    }
  }
  CHECK(compared > 1000);
}

TEST_CASE("RAPTOR: a router answers as a fresh one whatever it searched "
          "before",
          "[raptor]") {
  // A router keeps state from one search to the next (the running
  // patterns, the live days and the time's cut, the bounds, the stops
  // near the ends, the hints): forward, arrive-by and one-to-all
  // searches, with 1 to 6 rounds and earlier or later times, in turn on
  // one router, each against a router that never searched.
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  raptor shared{*tt};
  subway_questions questions{*tt, 77, 4 * 3600, 26 * 3600};
  int journeys = 0;
  for (int q = 0; q < 90; ++q) {
    auto rq = questions.next();
    // Runs of five alike but for the time (the searches a plan makes, or
    // an hour's questions), then another kind.
    rq.max_walk_meters = q % 3 == 0 ? 300 : 1000;
    rq.max_transfers = q / 5 % 6;
    rq.arrive_by = q / 5 % 3 == 1;
    INFO("query " << q << ": " << (rq.arrive_by ? "arrive-by" : "depart")
                  << " at " << rq.time << ", transfers " << rq.max_transfers);
    raptor fresh{*tt};
    if (q % 10 == 9) {
      auto limit = rq.time + 45 * 60;
      rq.arrive_by = false;
      auto a = shared.reach(rq, limit);
      auto b = fresh.reach(rq, limit);
      REQUIRE(a.size() == b.size());
      for (std::size_t i = 0; i < a.size(); ++i) {
        CHECK(a[i].stop == b[i].stop);
        CHECK(a[i].arrival == b[i].arrival);
        CHECK(a[i].rides == b[i].rides);
      }
      continue;
    }
    auto a = shared.route(rq);
    auto b = fresh.route(rq);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].departure == b[i].departure);
      CHECK(a[i].arrival == b[i].arrival);
      CHECK(a[i].rides == b[i].rides);
      CHECK(same_legs(a[i], b[i]));
    }
    journeys += static_cast<int>(a.size());
  }
  CHECK(journeys > 40);
}

TEST_CASE("RAPTOR: journeys known from earlier searches bound a search, "
          "which answers as without them",
          "[raptor]") {
  // A plan's later searches start a little after the one before, which
  // found journeys: ridden again from the later time (and from where the
  // later search's rounds reach their rides), they bound it from its first
  // round. The answer must be the one found without them, leg for leg,
  // including journeys that only equal one known (and so arrive exactly
  // when a known one ridden again does).
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  raptor with{*tt};
  raptor without{*tt};
  subway_questions questions{*tt, 91, 4 * 3600, 26 * 3600};
  std::uniform_int_distribution<int> later(0, 20 * 60);
  int compared = 0;
  // Answers equal to a known journey with as many rides: where the
  // bound's one second counts.
  int met = 0;
  for (int q = 0; q < 120; ++q) {
    auto rq = questions.next();
    rq.max_walk_meters = q % 3 == 0 ? 300 : 1000;
    rq.max_transfers = q % 5;
    rq.arrive_by = q % 2 == 1;
    INFO("query " << q << ": " << (rq.arrive_by ? "arrive-by" : "depart")
                  << " at " << rq.time << ", transfers " << rq.max_transfers);
    // The searches before: at the time, and a little later (arrive-by:
    // earlier), as a plan's are; then this one after them.
    std::vector<journey> known;
    for (int before = 0; before < 2; ++before) {
      auto found = without.route(rq);
      known.insert(known.end(), found.begin(), found.end());
      auto step = 60 + later(questions.rng);
      rq.time += rq.arrive_by ? -step : step;
    }
    auto a = without.route(rq);
    rq.known = &known;
    auto b = with.route(rq);
    REQUIRE(a.size() == b.size());
    for (std::size_t i = 0; i < a.size(); ++i) {
      CHECK(a[i].departure == b[i].departure);
      CHECK(a[i].arrival == b[i].arrival);
      CHECK(a[i].rides == b[i].rides);
      CHECK(same_legs(a[i], b[i]));
      if (std::any_of(known.begin(), known.end(), [&](const journey& k) {
            return k.rides == a[i].rides
                   && (rq.arrive_by ? k.departure == a[i].departure
                                    : k.arrival == a[i].arrival);
          }))
        ++met;
    }
    compared += static_cast<int>(a.size());
  }
  CHECK(compared > 60);
  CHECK(met > 10);
}

namespace {

/// A journey of its times and rides alone, for the filters.
gtfs::journey make(int64_t departure, int64_t arrival, int32_t rides) {
  gtfs::journey j;
  j.departure = departure;
  j.arrival = arrival;
  j.rides = rides;
  return j;
}

} // namespace

TEST_CASE("plan_journeys' filter: a journey another beats is dropped",
          "[raptor][plan]") {
  std::vector<gtfs::journey> all = {
    make(1000, 3000, 1), // beaten: the next leaves later, arrives the same
    make(1400, 3000, 1),
    make(1500, 2800, 2), // faster with one more ride: kept
    make(1400, 3000, 1), // the same times as the second: kept beside it
    make(900, 3100, 2),  // beaten on every count
    make(1300, 3600, 0), // the walk: fewer rides, kept
  };
  gtfs::drop_dominated(all);
  REQUIRE(all.size() == 4);
  CHECK(all[0].departure == 1400);
  CHECK(all[1].departure == 1500);
  CHECK(all[2].departure == 1400);
  CHECK(all[3].rides == 0);
}

TEST_CASE("plan_journeys' filter: a ride more must gain what it is worth",
          "[raptor][plan]") {
  auto kept = [](std::vector<gtfs::journey> all, int64_t worth) {
    gtfs::drop_dominated(all, worth);
    std::vector<std::pair<int64_t, int32_t>> out;
    for (const auto& j : all)
      out.emplace_back(j.departure, j.rides);
    return out;
  };
  using kept_list = std::vector<std::pair<int64_t, int32_t>>;
  // Five buses to arrive one second before four (Times Sq to St George
  // at 17:30 on all MTA): dropped, unless every second counts.
  std::vector<gtfs::journey> buses = {make(1000, 5000, 5),
                                      make(1000, 5001, 4)};
  CHECK(kept(buses, 180) == kept_list{{1000, 4}});
  CHECK(kept(buses, 0) == kept_list{{1000, 5}, {1000, 4}});
  // Leaving later is a gain too: a ride more to leave half an hour later
  // and arrive a little earlier is worth it.
  std::vector<gtfs::journey> later = {make(2800, 4990, 3),
                                      make(1000, 5000, 2)};
  CHECK(kept(later, 180).size() == 2);
  // What a ride more must gain, on either end: at most its worth later
  // (arriving) or earlier (leaving) beats it, per ride.
  CHECK(kept({make(1000, 4460, 3), make(1000, 5000, 2)}, 600)
        == kept_list{{1000, 2}});
  CHECK(kept({make(1000, 4340, 3), make(1000, 5000, 2)}, 600).size() == 2);
  CHECK(kept({make(1600, 5000, 3), make(1000, 5000, 2)}, 600)
        == kept_list{{1000, 2}});
  CHECK(kept({make(1601, 5000, 3), make(1000, 5000, 2)}, 600).size() == 2);
  // Two rides more: twice the worth (300 s gained, 360 s needed).
  CHECK(kept({make(1000, 4700, 4), make(1000, 5000, 2)}, 180)
        == kept_list{{1000, 2}});
  CHECK(kept({make(1000, 4600, 4), make(1000, 5000, 2)}, 180).size() == 2);
  // The walk is a journey of no rides: a ride that gains less on it
  // than a ride is worth is not offered beside it.
  CHECK(kept({make(1000, 2100, 1), make(1000, 2200, 0)}, 180)
        == kept_list{{1000, 0}});
  CHECK(kept({make(1000, 1900, 1), make(1000, 2200, 0)}, 180).size() == 2);
}

TEST_CASE("plan_journeys on the subway: no itinerary leaves earlier for the "
          "same arrival with as many rides",
          "[raptor][plan]") {
  auto tt = test::load_fixture_feed("mta-subway-2026-09/mta-subway-gtfs.zip");
  gtfs::raptor router{*tt};
  std::mt19937 rng{5};
  const auto routable = routable_stops(*tt);
  std::uniform_int_distribution<std::size_t> pick(0, routable.size() - 1);
  // Wednesday 2026-10-14, 03:00 New York (night service: trains far apart)
  // and 08:00.
  // First the night trip where an earlier search found a longer walk to
  // an earlier stop of the train a later search boards nearer (Grand
  // Central to Cathedral Pkwy at 03:10).
  std::vector<gtfs::journey_request> asked(1);
  asked[0].from = {40.7527, -73.9772};
  asked[0].to = {40.8075, -73.9626};
  asked[0].time = 1791961800;
  for (int64_t time : {int64_t{1791961200}, int64_t{1791979200}})
    for (int q = 0; q < 40; ++q) {
      gtfs::journey_request rq;
      rq.from = tt->stops[routable[pick(rng)]].position;
      rq.to = tt->stops[routable[pick(rng)]].position;
      rq.time = time;
      asked.push_back(rq);
    }
  std::size_t itineraries = 0;
  for (const auto& rq : asked) {
    auto plans = gtfs::plan_journeys(router, rq, 3);
    itineraries += plans.size();
    for (const auto& j : plans)
      for (const auto& k : plans)
        CHECK_FALSE((k.departure >= j.departure && k.arrival <= j.arrival
                     && k.rides <= j.rides
                     && (k.departure > j.departure || k.arrival < j.arrival
                         || k.rides < j.rides)));
  }
  CHECK(itineraries > 2 * asked.size()); // most questions get several
}
