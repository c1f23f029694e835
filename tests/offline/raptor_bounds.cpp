// The lower bounds RAPTOR prunes by: no trip's ride between two stops and
// no footpath is shorter than the difference of their bounds (so no
// journey beats them), settled lazily without changing a value, and a
// realtime layer's faster trips taken into account.

#include "transitd/offline/raptor_bounds.hpp"

#include <random>

#include <catch2/catch.hpp>

#include "transitd/offline/gtfs_reader.hpp"
#include "transitd/offline/gtfs_realtime.hpp"
#include "support/fixture_feeds.hpp"

using namespace transitd;
using namespace transitd::gtfs;
using transitd::test::end_near;

namespace {

std::shared_ptr<const timetable> load(const std::string& path) {
  return test::load_fixture_feed(path);
}

/// Counts the rides of `count` patterns (up to three stops on) and the
/// footpaths that a bound does not respect: going from u to v in w
/// seconds, toward the end (`toward`) bound(u) <= w + bound(v), from the
/// end bound(v) <= bound(u) + w.
std::size_t violations(const timetable& tt, const travel_bounds& b,
                       bool toward, const pattern* patterns,
                       std::size_t count, const pattern_stop* stops,
                       const stop_time* times, std::size_t* checked) {
  std::size_t bad = 0;
  auto check = [&](uint32_t u, uint32_t v, int64_t w) {
    ++*checked;
    auto bu = static_cast<int64_t>(b.at(u));
    auto bv = static_cast<int64_t>(b.at(v));
    if (toward ? (bv != travel_bounds::unreachable && bu > w + bv)
               : (bu != travel_bounds::unreachable && bv > bu + w))
      ++bad;
  };
  for (std::size_t p = 0; p < count; ++p) {
    const auto& pat = patterns[p];
    const auto* ps = stops + pat.stops_begin;
    for (uint32_t r = 0; r < pat.trip_count; ++r) {
      const auto* trip
        = times + pat.times_begin + static_cast<std::size_t>(r) * pat.stop_count;
      for (uint32_t i = 0; i + 1 < pat.stop_count; ++i)
        for (uint32_t j = i + 1; j < pat.stop_count && j < i + 4; ++j)
          check(ps[i].stop, ps[j].stop, trip[j].arrival - trip[i].departure);
    }
  }
  for (uint32_t u = 0; u < tt.stops.size(); ++u)
    for (auto f = tt.out_begin[u]; f < tt.out_begin[u + 1]; ++f)
      check(u, tt.out[f].stop, tt.out[f].seconds);
  return bad;
}

} // namespace

TEST_CASE("travel bounds: no ride of any trip and no footpath beats them",
          "[raptor][bounds]") {
  for (const auto* feed : {"caltrain-2023-09/caltrain-gtfs.zip",
                           "bart-2019/bart-gtfs.zip",
                           "mta-subway-2026-09/mta-subway-gtfs.zip"}) {
    INFO(feed);
    auto tt = load(feed);
    REQUIRE(tt->hops.covers(tt->stops.size()));
    REQUIRE(!tt->hops.in.empty());
    std::mt19937 rng{7};
    std::vector<uint32_t> routable;
    for (uint32_t s = 0; s < tt->stops.size(); ++s)
      if (tt->routable(s))
        routable.push_back(s);
    std::uniform_int_distribution<std::size_t> pick(0, routable.size() - 1);
    std::size_t reaching = 0, positive = 0;
    for (int q = 0; q < 6; ++q) {
      auto toward = q % 2 == 0;
      double walk = q < 3 ? 500 : 1500; // how far the end's stops lie
      auto seeds = end_near(*tt, routable[pick(rng)], walk);
      REQUIRE(!seeds.empty());
      travel_bounds b;
      b.start(*tt, nullptr, seeds, toward);
      b.reach(std::numeric_limits<int64_t>::max());
      // The end's own stops: no more than the walk to the end.
      for (auto [s, t] : seeds)
        CHECK(b.at(s) <= t);
      std::size_t checked = 0;
      CHECK(violations(*tt, b, toward, tt->patterns.data(),
                       tt->patterns.size(), tt->pattern_stops.data(),
                       tt->times.data(), &checked)
            == 0);
      CHECK(checked > 1000);
      // And they are bounds worth having: most stops reach the end (not
      // all: Staten Island's railway reaches only itself), not at no time.
      for (auto s : routable)
        if (b.at(s) != travel_bounds::unreachable) {
          ++reaching;
          positive += b.at(s) > 0 ? 1 : 0;
        }
    }
    CHECK(reaching > 6 * routable.size() / 2);
    CHECK(positive > reaching * 9 / 10);
  }
}

TEST_CASE("travel bounds walk fewer footpaths, each matched by the ones "
          "kept",
          "[raptor][bounds]") {
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  REQUIRE(tt->out.size() > 1000);
  // The rides alone, to tell the footpaths kept among the hops.
  auto rides = least_hops(tt->stops.size(), tt->patterns.data(),
                          tt->patterns.size(), tt->pattern_stops.data(),
                          tt->times.data());
  REQUIRE(tt->hops.out.size() > rides.out.size());
  auto walks = tt->hops.out.size() - rides.out.size();
  // Thinned: under the footpaths (a pair both ridden and walked
  // counts once, so this counts at least the walks kept).
  CHECK(walks < tt->out.size() * 8 / 10);
  // Every footpath sampled is walked in the bounds in no more than its
  // seconds: from its far end, its near end's bound is at most them.
  std::mt19937 rng{11};
  std::uniform_int_distribution<std::size_t> pick(0, tt->out.size() - 1);
  std::vector<uint32_t> from(tt->out.size());
  for (uint32_t u = 0; u < tt->stops.size(); ++u)
    for (auto f = tt->out_begin[u]; f < tt->out_begin[u + 1]; ++f)
      from[f] = u;
  std::size_t longer = 0;
  for (int k = 0; k < 300; ++k) {
    auto f = pick(rng);
    const auto& path = tt->out[f];
    travel_bounds b;
    b.start(*tt, nullptr, {{path.stop, 0}}, true);
    b.reach(std::numeric_limits<int64_t>::max());
    if (b.at(from[f]) > path.seconds)
      ++longer;
  }
  CHECK(longer == 0);
}

TEST_CASE("travel bounds keep a street's walks between neighbours alone",
          "[raptor][bounds]") {
  // Ten stops along a street, 100 m apart: every pair within
  // the 500 m radius has a footpath, and each longer one is walked over
  // the neighbours between its stops in no more seconds than it (and
  // under the stretch), however many there are: only the neighbours'
  // footpaths are kept, both ways.
  std::string stops = "stop_id,stop_name,stop_lat,stop_lon\n";
  for (int i = 0; i < 10; ++i)
    stops += "S" + std::to_string(i) + ",S" + std::to_string(i) + ","
             + std::to_string(60.1 + 0.0009 * i) + ",24.9\n";
  // A bus calls at each (a ride hop joins each to the next, where a
  // footpath does too).
  std::string times = "trip_id,arrival_time,departure_time,stop_id,"
                      "stop_sequence\n";
  for (int i = 0; i < 10; ++i)
    times += "x,08:0" + std::to_string(i) + ":00,08:0" + std::to_string(i)
             + ":00,S" + std::to_string(i) + "," + std::to_string(i + 1)
             + "\n";
  std::vector<std::unique_ptr<feed_files>> sources;
  sources.push_back(in_memory_feed({
    {"agency.txt", "agency_name,agency_url,agency_timezone\n"
                   "A,http://a.example,Europe/Helsinki\n"},
    {"stops.txt", stops},
    {"routes.txt", "route_id,route_short_name,route_type\n1,1,3\n"},
    {"trips.txt", "route_id,service_id,trip_id\n1,S,x\n"},
    {"stop_times.txt", times},
    {"calendar.txt", "service_id,monday,tuesday,wednesday,thursday,friday,"
                     "saturday,sunday,start_date,end_date\n"
                     "S,1,1,1,1,1,1,1,20260101,20261231\n"},
  }));
  auto loaded = load_timetable("t", std::move(sources));
  REQUIRE(loaded);
  const auto& tt = **loaded;
  REQUIRE(tt.stops.size() == 10);
  // Within 500 m: 4 or 5 neighbours on each side (about 100 m apart).
  CHECK(tt.out.size() >= 2 * (9 + 8 + 7 + 6));
  auto hops_out = [&tt](uint32_t u) {
    std::vector<uint32_t> to;
    for (auto i = tt.hops.out_begin[u]; i < tt.hops.out_begin[u + 1]; ++i)
      to.push_back(tt.hops.out[i].stop);
    return to;
  };
  std::size_t kept = 0;
  for (uint32_t u = 0; u < tt.stops.size(); ++u) {
    auto mine = std::stoi(tt.stops[u].id.substr(1));
    for (auto v : hops_out(u)) {
      auto theirs = std::stoi(tt.stops[v].id.substr(1));
      INFO(tt.stops[u].id << " to " << tt.stops[v].id);
      CHECK(std::abs(mine - theirs) == 1);
      ++kept;
    }
  }
  CHECK(kept == 2 * 9);
  // And the bounds stay bounds: from any stop to S9, no more seconds than
  // its footpath.
  auto end = tt.find_stop("S9");
  REQUIRE(end);
  travel_bounds b;
  b.start(tt, nullptr, {{*end, 0}}, true);
  b.reach(std::numeric_limits<int64_t>::max());
  for (uint32_t u = 0; u < tt.stops.size(); ++u)
    for (auto f = tt.out_begin[u]; f < tt.out_begin[u + 1]; ++f)
      if (tt.out[f].stop == *end)
        CHECK(b.at(u) <= tt.out[f].seconds);
}

TEST_CASE("travel bounds settled lazily: exact below the radius, the radius "
          "beyond",
          "[raptor][bounds]") {
  auto tt = load("mta-subway-2026-09/mta-subway-gtfs.zip");
  auto seeds = end_near(*tt, 100, 800);
  // (Lazily: the Dijkstra a realtime layer's bounds take; without one the
  // timetable's hierarchy gives every bound at once, as checked below.)
  travel_bounds full;
  full.start(*tt, nullptr, seeds, true, true);
  full.reach(std::numeric_limits<int64_t>::max());
  travel_bounds lazy;
  lazy.start(*tt, nullptr, seeds, true, true);
  std::size_t before = 0;
  for (int64_t radius : {0, 300, 1200, 1199, 2400, 3600, 7200}) {
    lazy.reach(radius);
    INFO("radius " << radius);
    std::size_t wrong = 0;
    for (uint32_t s = 0; s < tt->stops.size(); ++s) {
      auto exact = static_cast<int64_t>(full.at(s));
      // At least the radius asked (a radius never shrinks).
      auto expected = exact < radius ? exact : std::max<int64_t>(radius, 0);
      if (exact < radius ? lazy.at(s) != exact : lazy.at(s) < expected)
        ++wrong;
    }
    CHECK(wrong == 0);
    // Settling is incremental: each radius settles more, never again.
    CHECK(lazy.settled() >= before);
    before = lazy.settled();
    // Five minutes from the end settle a few stops, not the network.
    if (radius == 300) {
      CHECK(lazy.settled() > 0);
      CHECK(lazy.settled() < full.settled() / 4);
    }
  }
  lazy.reach(std::numeric_limits<int64_t>::max());
  CHECK(lazy.settled() == full.settled());
  for (uint32_t s = 0; s < tt->stops.size(); ++s)
    CHECK(lazy.at(s) == full.at(s));
  // From the hierarchy: every bound at the first reach, whatever its
  // radius, the same as the Dijkstra's.
  travel_bounds swept;
  swept.start(*tt, nullptr, seeds, true);
  swept.reach(300);
  CHECK(swept.radius() == travel_bounds::unreachable);
  CHECK(swept.settled() == full.settled());
  std::size_t differ = 0;
  for (uint32_t s = 0; s < tt->stops.size(); ++s)
    differ += swept.at(s) != full.at(s) ? 1 : 0;
  CHECK(differ == 0);
}

TEST_CASE("travel bounds take a realtime layer's faster trips",
          "[raptor][bounds][realtime]") {
  auto tt = load("caltrain-2023-09/caltrain-gtfs.zip");
  // A trip of Tuesday 2023-11-07 running its stops a minute apart, faster
  // than any trip of the timetable between them.
  int32_t day = -1;
  uint32_t trip = none;
  for (uint32_t t = 0; t < tt->trips.size() && trip == none; ++t) {
    auto p = tt->trip_pattern[t];
    if (p == none || tt->patterns[p].stop_count < 6)
      continue;
    auto d = static_cast<int32_t>(19668 - tt->first_day); // 2023-11-07
    if (tt->runs_on(tt->patterns[p].service, d)) {
      trip = t;
      day = d;
    }
  }
  REQUIRE(trip != none);
  const auto& pat = tt->patterns[tt->trip_pattern[trip]];
  auto origin = tt->origin(pat.zone, day);
  uint32_t rank = 0;
  while (tt->pattern_trips[pat.trips_begin + rank] != trip)
    ++rank;
  auto first = origin + tt->times[pat.times_begin + rank * pat.stop_count]
                          .departure;
  gtfs_rt::trip_update u;
  u.trip.trip_id = tt->trips[trip].id;
  u.trip.start_date = "20231107";
  for (uint32_t i = 0; i < pat.stop_count; ++i) {
    gtfs_rt::stop_time_update s;
    s.stop_sequence = tt->pattern_stops[pat.stops_begin + i].sequence;
    s.arrival = gtfs_rt::stop_time_event{};
    s.arrival->time = first + 60 * i;
    s.departure = gtfs_rt::stop_time_event{};
    s.departure->time = first + 60 * i;
    u.stops.push_back(s);
  }
  auto layer = build_realtime(tt, {u}, first);
  REQUIRE(layer->counts.matched == 1);
  REQUIRE(!layer->patterns.empty());
  REQUIRE(layer->least.covers(tt->stops.size()));
  REQUIRE(!layer->least.in.empty());
  auto last = tt->pattern_stops[pat.stops_begin + pat.stop_count - 1].stop;
  auto seeds = end_near(*tt, last, 300);
  auto count_bad = [&](const hop_graph* extra) {
    travel_bounds b;
    b.start(*tt, extra, seeds, true);
    b.reach(std::numeric_limits<int64_t>::max());
    std::size_t checked = 0;
    return violations(*tt, b, true, layer->patterns.data(),
                      layer->patterns.size(), layer->pattern_stops.data(),
                      layer->times.data(), &checked);
  };
  // Without the layer's rides the fast trip beats the bounds (the test
  // means something); with them it does not.
  CHECK(count_bad(nullptr) > 0);
  CHECK(count_bad(&layer->least) == 0);
  // Each layer is told apart from the others.
  auto again = build_realtime(tt, {u}, first);
  CHECK(again->serial != layer->serial);
}

TEST_CASE("the hops of times out of order or at the ends of their range: "
          "none below 0 or above a week, no overflow",
          "[raptor][bounds]") {
  // Two patterns of three stops, as a damaged snapshot could hold them:
  // times running backward, and times at the ends of 32 bits.
  std::vector<pattern> patterns(2);
  patterns[0].stops_begin = 0;
  patterns[0].stop_count = 3;
  patterns[0].trip_count = 2;
  patterns[0].times_begin = 0;
  patterns[1].stops_begin = 3;
  patterns[1].stop_count = 3;
  patterns[1].trip_count = 1;
  patterns[1].times_begin = 6;
  std::vector<pattern_stop> stops(6);
  for (uint32_t i = 0; i < 6; ++i)
    stops[i].stop = i % 3 + (i < 3 ? 0 : 3);
  constexpr auto lo = std::numeric_limits<int32_t>::min();
  constexpr auto hi = std::numeric_limits<int32_t>::max();
  std::vector<stop_time> times = {
    {0, 600},  {300, 300}, {900, 900}, // trip 0: 1 → 2 runs backward
    {0, 0},    {60, 120},  {400, 400}, // trip 1: the fastest, 60 and 280 s
    {0, lo},   {hi, hi},   {lo, lo},   // pattern 1: the ends of the range
  };
  auto hops = least_hops(6, patterns.data(), patterns.size(), stops.data(),
                         times.data());
  REQUIRE(hops.covers(6));
  auto seconds = [&](uint32_t from, uint32_t to) {
    for (auto i = hops.out_begin[from]; i < hops.out_begin[from + 1]; ++i)
      if (hops.out[i].stop == to)
        return hops.out[i].seconds;
    return -1;
  };
  CHECK(seconds(0, 1) == 0);  // min(300 - 600 → 0, 60)
  CHECK(seconds(1, 2) == 280); // min(600, 280)
  CHECK(seconds(3, 4) == 7 * 86400);
  CHECK(seconds(4, 5) == 0);
  // The same both ways.
  CHECK(hops.in.size() == hops.out.size());
  for (uint32_t s = 0; s < 6; ++s)
    for (auto i = hops.in_begin[s]; i < hops.in_begin[s + 1]; ++i)
      CHECK(seconds(hops.in[i].stop, s) == hops.in[i].seconds);
}
