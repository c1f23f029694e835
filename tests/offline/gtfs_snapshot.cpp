// Timetable snapshots: what is read back is what was built (the same bytes
// again, the same answers), and a snapshot of other sources, options or
// format version, a truncated or altered one, is refused saying which.

#include "transitd/offline/gtfs_snapshot.hpp"

#include <catch2/catch.hpp>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <unistd.h>

#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/raptor.hpp"

using namespace transitd;
using namespace transitd::gtfs;

namespace {

std::shared_ptr<const timetable> load(const std::string& name,
                                      const std::string& path,
                                      const load_options& options = {}) {
  auto loaded = load_timetable(name, std::vector<std::string>{path}, options);
  REQUIRE(loaded);
  return *loaded;
}

std::string fixture(const std::string& relative) {
  return std::string{TRANSITD_FIXTURES_DIR} + "/" + relative;
}

std::shared_ptr<const timetable> nyc() {
  static auto tt = load("nyc", fixture("gtfs/mta-subway-2026-09/"
                                       "mta-subway-gtfs.zip"));
  return tt;
}

const source_key key_a = key_of_sources({1, 2}, load_options{});

/// A plan's itineraries, line by line: what a rider would compare.
std::string summary(const trip_plans& plans) {
  std::ostringstream out;
  for (const auto& it : plans.itineraries) {
    for (const auto& leg : it.legs)
      out << leg.line.value_or("walk") << " " << leg.scheduled_start << "-"
          << leg.scheduled_end << " " << leg.distance << "; ";
    out << "\n";
  }
  return out.str();
}

int64_t oct_14_0830_new_york() {
  return 1791981000; // 2026-10-14T08:30:00-04:00
}

std::string scratch_dir() {
  auto dir = std::filesystem::temp_directory_path()
             / ("transitd-snapshot-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  return dir.string();
}

} // namespace

TEST_CASE("snapshot: read back, the timetable writes the same bytes and "
          "answers the same",
          "[gtfs][snapshot]") {
  for (auto [name, path] :
       {std::pair<std::string, std::string>{"nyc", ""},
        {"bilingual", fixture("../gtfs/bilingual")},
        {"hostile", fixture("../gtfs/hostile")}}) {
    auto built = path.empty() ? nyc() : load(name, path);
    auto bytes = snapshot_bytes(*built, key_a);
    auto read = read_snapshot_bytes(bytes, key_a, 0);
    INFO(name << ": " << read.why);
    REQUIRE(read.verdict == snapshot_verdict::read);
    REQUIRE(read.timetable);
    CHECK(snapshot_bytes(*read.timetable, key_a) == bytes);
    const auto& tt = *read.timetable;
    // The lookups rebuilt from the tables.
    REQUIRE_FALSE(tt.stops.empty());
    CHECK(tt.find_stop(tt.stops.back().id) == tt.stops.size() - 1);
    CHECK(tt.find_trip(tt.trips.front().id) == 0u);
    CHECK(tt.find_route(tt.routes.back().id) == tt.routes.size() - 1);
    CHECK(tt.stops_near(tt.stops[tt.pattern_stops[0].stop].position, 50)
          == built->stops_near(built->stops[built->pattern_stops[0].stop]
                                 .position,
                               50));
    // The hops RAPTOR's bounds walk (kept) and the rules beside the calls
    // (rebuilt), as the build made them.
    CHECK(tt.call_rules == built->call_rules);
    CHECK(tt.call_rules.size() == tt.calls.size());
    REQUIRE(tt.hops.covers(tt.stops.size()));
    CHECK(tt.hops.in_begin == built->hops.in_begin);
    CHECK(tt.hops.out_begin == built->hops.out_begin);
    CHECK(tt.hops.in.size() == built->hops.in.size());
    for (std::size_t i = 0; i < tt.hops.in.size(); ++i)
      if (tt.hops.in[i].stop != built->hops.in[i].stop
          || tt.hops.in[i].seconds != built->hops.in[i].seconds)
        FAIL("hop " << i << " differs");
    // The hops contracted (kept: contracting takes seconds on a city).
    REQUIRE(tt.hierarchy.covers(tt.stops.size()));
    CHECK(tt.hierarchy.stop_at == built->hierarchy.stop_at);
    CHECK(tt.hierarchy.position_of == built->hierarchy.position_of);
    CHECK(tt.hierarchy.up_out_begin == built->hierarchy.up_out_begin);
    CHECK(tt.hierarchy.up_in_begin == built->hierarchy.up_in_begin);
    CHECK(tt.hierarchy.up_in.size() == built->hierarchy.up_in.size());
    if (name == "bilingual") {
      CHECK(tt.translates("sv"));
      CHECK(tt.translated(built->stops[0].name, "sv")
            == built->translated(built->stops[0].name, "sv"));
    }
  }
  // RAPTOR on the snapshot plans what it plans on the built timetable.
  auto built = nyc();
  auto read = read_snapshot_bytes(snapshot_bytes(*built, key_a), key_a, 0);
  REQUIRE(read.timetable);
  raptor on_built{*built};
  raptor on_read{*read.timetable};
  int compared = 0;
  for (auto [from, to] :
       {std::pair<coordinate, coordinate>{{40.751776, -73.976848},
                                          {40.6782, -73.9442}},
        {{40.7580, -73.9855}, {40.8075, -73.9626}},
        {{40.5755, -73.9707}, {40.7128, -74.0060}}}) {
    trip_plan_query q;
    q.from = from;
    q.to = to;
    q.time = oct_14_0830_new_york();
    q.first = 3;
    q.max_walking_distance = 800;
    auto a = plan_trips(on_built, *built, q);
    auto b = plan_trips(on_read, *read.timetable, q);
    REQUIRE_FALSE(a.itineraries.empty());
    CHECK(summary(a) == summary(b));
    ++compared;
  }
  CHECK(compared == 3);
}

TEST_CASE("snapshot: of other sources, options or anchor day, another "
          "version, truncated or altered: refused saying which",
          "[gtfs][snapshot]") {
  auto tt = load("bilingual", fixture("../gtfs/bilingual"));
  auto bytes = snapshot_bytes(*tt, key_a);
  SECTION("other sources") {
    auto other = key_of_sources({1, 3}, load_options{});
    auto r = read_snapshot_bytes(bytes, other, 0);
    CHECK(r.verdict == snapshot_verdict::other_sources);
    CHECK_FALSE(r.timetable);
    CHECK_THAT(r.why, Catch::Contains("other sources"));
  }
  SECTION("other options") {
    load_options wider;
    wider.footpath_radius = 800;
    CHECK(key_of_sources({1, 2}, wider) != key_a);
    load_options shorter;
    shorter.max_days = 30;
    CHECK(key_of_sources({1, 2}, shorter) != key_a);
    // The anchor day alone does not change the key...
    load_options anchored;
    anchored.anchor_day = 20000;
    CHECK(key_of_sources({1, 2}, anchored) == key_a);
  }
  SECTION("a window cut around another day") {
    auto cut = std::make_shared<timetable>(*tt);
    cut->report.window_cut = true;
    cut->report.anchor_day = 20000;
    auto cut_bytes = snapshot_bytes(*cut, key_a);
    CHECK(read_snapshot_bytes(cut_bytes, key_a, 20000).verdict
          == snapshot_verdict::read);
    auto r = read_snapshot_bytes(cut_bytes, key_a, 20001);
    CHECK(r.verdict == snapshot_verdict::other_sources);
    CHECK_THAT(r.why, Catch::Contains("another day"));
    // ...and one not cut holds for any day.
    CHECK(read_snapshot_bytes(bytes, key_a, 20001).verdict
          == snapshot_verdict::read);
  }
  SECTION("another format version") {
    auto other = bytes;
    uint32_t version = snapshot_version + 1;
    std::memcpy(other.data() + 19, &version, sizeof(version));
    auto r = read_snapshot_bytes(other, key_a, 0);
    CHECK(r.verdict == snapshot_verdict::other_version);
    CHECK_THAT(r.why, Catch::Contains("format version "
                                      + std::to_string(snapshot_version + 1)));
  }
  SECTION("truncated anywhere") {
    for (std::size_t cut = 0; cut < bytes.size(); cut += 1 + cut / 3) {
      auto r = read_snapshot_bytes(std::string_view{bytes}.substr(0, cut),
                                   key_a, 0);
      INFO(cut);
      CHECK(r.verdict == snapshot_verdict::corrupt);
      CHECK_FALSE(r.timetable);
    }
  }
  SECTION("a byte changed") {
    for (std::size_t at = 60; at < bytes.size(); at += 97) {
      auto other = bytes;
      other[at] = static_cast<char>(other[at] ^ 0x5a);
      auto r = read_snapshot_bytes(other, key_a, 0);
      INFO(at);
      CHECK(r.verdict == snapshot_verdict::corrupt);
      CHECK_THAT(r.why, Catch::Contains("checksum"));
    }
  }
  SECTION("not a snapshot") {
    CHECK(read_snapshot_bytes("stop_id,stop_name\n", key_a, 0).verdict
          == snapshot_verdict::corrupt);
  }
  SECTION("checksum right, a reference out of its table") {
    // Written by a faulty writer: the checks after reading catch it.
    auto broken = std::make_shared<timetable>(*tt);
    broken->pattern_stops[0].stop = static_cast<uint32_t>(tt->stops.size());
    auto r = read_snapshot_bytes(snapshot_bytes(*broken, key_a), key_a, 0);
    CHECK(r.verdict == snapshot_verdict::corrupt);
    CHECK_THAT(r.why, Catch::Contains("a pattern's stop"));
    auto bad_trip = std::make_shared<timetable>(*tt);
    bad_trip->trips[0].route = 99999;
    r = read_snapshot_bytes(snapshot_bytes(*bad_trip, key_a), key_a, 0);
    CHECK_THAT(r.why, Catch::Contains("a trip's line"));
    auto bad_calls = std::make_shared<timetable>(*tt);
    bad_calls->calls_begin.back() += 1;
    r = read_snapshot_bytes(snapshot_bytes(*bad_calls, key_a), key_a, 0);
    CHECK_THAT(r.why, Catch::Contains("the calls"));
    // The bounds' hops: a stop out of the table, a step below 0 (a bound
    // above the truth would prune journeys), an index that does not end
    // where the list does.
    auto bad_hop = std::make_shared<timetable>(*tt);
    REQUIRE_FALSE(bad_hop->hops.in.empty());
    bad_hop->hops.in[0].stop = static_cast<uint32_t>(tt->stops.size());
    r = read_snapshot_bytes(snapshot_bytes(*bad_hop, key_a), key_a, 0);
    CHECK(r.verdict == snapshot_verdict::corrupt);
    CHECK_THAT(r.why, Catch::Contains("a hop"));
    auto below = std::make_shared<timetable>(*tt);
    below->hops.out[0].seconds = -1;
    r = read_snapshot_bytes(snapshot_bytes(*below, key_a), key_a, 0);
    CHECK_THAT(r.why, Catch::Contains("a hop"));
    auto short_index = std::make_shared<timetable>(*tt);
    short_index->hops.out_begin.pop_back();
    r = read_snapshot_bytes(snapshot_bytes(*short_index, key_a), key_a, 0);
    CHECK_THAT(r.why, Catch::Contains("the hops out"));
    // The hierarchy: an arc to a position below its own (the sweep would
    // read a bound not yet final), an arc below 0 seconds, an order that
    // is no permutation of the stops.
    auto h = tt->hierarchy;
    REQUIRE(h.covers(tt->stops.size()));
    std::size_t from = 0;
    while (h.up_out_begin[from] == h.up_out_begin[from + 1])
      ++from;
    auto downward = std::make_shared<timetable>(*tt);
    downward->hierarchy.up_out[h.up_out_begin[from]].stop
      = static_cast<uint32_t>(from);
    r = read_snapshot_bytes(snapshot_bytes(*downward, key_a), key_a, 0);
    CHECK(r.verdict == snapshot_verdict::corrupt);
    CHECK_THAT(r.why, Catch::Contains("an arc of the hierarchy"));
    auto negative = std::make_shared<timetable>(*tt);
    negative->hierarchy.up_in.back().seconds = -5;
    r = read_snapshot_bytes(snapshot_bytes(*negative, key_a), key_a, 0);
    CHECK_THAT(r.why, Catch::Contains("an arc of the hierarchy"));
    auto twice = std::make_shared<timetable>(*tt);
    twice->hierarchy.stop_at[1] = twice->hierarchy.stop_at[0];
    r = read_snapshot_bytes(snapshot_bytes(*twice, key_a), key_a, 0);
    CHECK_THAT(r.why, Catch::Contains("the hierarchy's order"));
  }
}

TEST_CASE("snapshot files: missing, written atomically, read back",
          "[gtfs][snapshot]") {
  auto dir = scratch_dir();
  auto path = snapshot_path(dir, "my feed/1");
  CHECK(std::filesystem::path{path}.filename() == "my_feed_1.timetable");
  std::filesystem::remove(path);
  auto missing = read_snapshot(path, key_a, 0);
  CHECK(missing.verdict == snapshot_verdict::missing);
  auto tt = load("bilingual", fixture("../gtfs/bilingual"));
  auto written = write_snapshot(path, *tt, key_a);
  REQUIRE(written);
  CHECK(*written == std::filesystem::file_size(path));
  CHECK_FALSE(std::filesystem::exists(path + ".writing"));
  auto read = read_snapshot(path, key_a, 0);
  CHECK(read.verdict == snapshot_verdict::read);
  // An empty file is refused, not mapped.
  { std::ofstream empty{path, std::ios::trunc}; }
  CHECK(read_snapshot(path, key_a, 0).verdict == snapshot_verdict::corrupt);
  std::filesystem::remove_all(dir);
}
