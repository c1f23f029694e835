// shapes.txt read and simplified, and the way a trip takes between two of
// its stops (the views' maps and get_trip's geometry).

#include "transitd/offline/gtfs_network.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/gtfs_reader.hpp"
#include "transitd/util/polyline.hpp"

using namespace transitd;
using namespace transitd::gtfs;

namespace {

std::string fixture(const char* feed) {
  return std::string{TRANSITD_FIXTURES_DIR} + "/../gtfs/" + feed;
}

/// The hostile feed's files, with shapes.txt replaced (or dropped).
std::shared_ptr<const timetable> with_shapes(const char* shapes) {
  std::map<std::string, std::string> files;
  for (const char* name : {"agency.txt", "calendar.txt", "routes.txt",
                           "stops.txt", "trips.txt", "stop_times.txt",
                           "frequencies.txt"}) {
    std::ifstream in{fixture("hostile") + "/" + name};
    REQUIRE(in);
    files[name] = std::string{std::istreambuf_iterator<char>{in}, {}};
  }
  if (shapes != nullptr)
    files["shapes.txt"] = shapes;
  std::vector<std::unique_ptr<feed_files>> sources;
  sources.push_back(in_memory_feed(std::move(files)));
  auto loaded = load_timetable("hostile", std::move(sources));
  REQUIRE(loaded);
  return *loaded;
}

} // namespace

TEST_CASE("shapes.txt: paths ordered by sequence, kept per trip",
          "[gtfs][shapes]") {
  auto loaded = load_timetable("hostile",
                               std::vector<std::string>{fixture("hostile")});
  REQUIRE(loaded);
  const auto& tt = **loaded;
  REQUIRE(tt.shape_begin.size() == 2);
  auto t = tt.find_trip("t1");
  REQUIRE(t);
  REQUIRE(tt.trips[*t].shape == 0);
  // Rows 5 and 6 are out of order in the file; sorted, the path runs
  // north-east and back west without a spike.
  auto count = tt.shape_begin[1] - tt.shape_begin[0];
  CHECK(count >= 5);
  CHECK(count <= 9);
  for (auto i = tt.shape_begin[0] + 1; i < tt.shape_begin[1]; ++i)
    CHECK(tt.shape_points[i].lat >= tt.shape_points[i - 1].lat);
  // Frequency trips keep their template's shape.
  auto later = tt.find_trip("t1@28800");
  REQUIRE(later);
  CHECK(tt.trips[*later].shape == 0);
}

TEST_CASE("a trip's way follows its shape between the stops asked",
          "[gtfs][shapes]") {
  auto loaded = load_timetable("hostile",
                               std::vector<std::string>{fixture("hostile")});
  REQUIRE(loaded);
  const auto& tt = **loaded;
  // t1 runs as its frequencies' trips (t1@SECONDS), each on the shape.
  auto t = *tt.find_trip("t1@28800");
  auto whole = trip_path(tt, t, 0, 2, max_trip_points);
  // The bend east of the straight line S1-S2-S3 is drawn.
  REQUIRE(whole.size() > 3);
  double east = -180;
  for (const auto& c : whole)
    east = std::max(east, c.lon);
  CHECK(east > -73.9805);
  CHECK(whole.front().lat == Approx(40.70).margin(1e-4));
  CHECK(whole.back().lat == Approx(40.71).margin(1e-4));
  // From the middle stop on: it starts where S2 lies on the shape, not at
  // the shape's start.
  auto second = trip_path(tt, t, 1, 2, max_leg_points);
  REQUIRE(second.size() >= 2);
  CHECK(second.front().lat > 40.703);
  CHECK(second.back().lat == Approx(40.71).margin(1e-4));
  // Bounded.
  CHECK(trip_path(tt, t, 0, 2, 2).size() == 2);
  // Not a ride: nothing.
  CHECK(trip_path(tt, t, 2, 2, 10).empty());
  CHECK(trip_path(tt, t, 2, 1, 10).empty());
  CHECK(trip_path(tt, 99999, 0, 1, 10).empty());
  auto positions = positions_on_trip(tt, t, *tt.find_stop("S2"),
                                     *tt.find_stop("S3"));
  REQUIRE(positions);
  CHECK(positions->first == 1);
  CHECK(positions->second == 2);
  CHECK_FALSE(positions_on_trip(tt, t, *tt.find_stop("S3"),
                                *tt.find_stop("S1")));
}

TEST_CASE("without a usable shape a trip's way runs through its stops",
          "[gtfs][shapes]") {
  SECTION("no shapes.txt") {
    auto tt = with_shapes(nullptr);
    auto t = *tt->find_trip("t1@28800");
    CHECK(tt->trips[t].shape == none);
    auto way = trip_path(*tt, t, 0, 2, 10);
    REQUIRE(way.size() == 3);
    CHECK(way[1].lon == Approx(-73.98));
  }
  SECTION("a shapes.txt without its columns is skipped with a note") {
    auto tt = with_shapes("shape_id,lat,lon\nbend,40.7,-73.99\n");
    CHECK(tt->trips[*tt->find_trip("t1")].shape == none);
    REQUIRE_FALSE(tt->report.samples.empty());
    CHECK(tt->report.samples.back().find("shape_pt_lat")
          != std::string::npos);
  }
  SECTION("bad rows are skipped, a shape of one point is none") {
    auto tt = with_shapes(
      "shape_id,shape_pt_lat,shape_pt_lon,shape_pt_sequence\n"
      "bend,40.7,-73.99,1\nbend,91,-73.99,2\nbend,x,-73.99,3\n"
      ",40.7,-73.99,4\n");
    CHECK(tt->trips[*tt->find_trip("t1")].shape == none);
    CHECK(tt->report.skipped_rows >= 3);
    CHECK(trip_path(*tt, *tt->find_trip("t1@28800"), 0, 2, 10).size() == 3);
  }
}

TEST_CASE("plan_trip legs and get_trip carry the way and the line's colour",
          "[gtfs][shapes]") {
  auto loaded = load_timetable("hostile",
                               std::vector<std::string>{fixture("hostile")});
  REQUIRE(loaded);
  const auto& tt = **loaded;
  trip_query q;
  q.trip_id = "hostile:t1@28800";
  q.service_day = tt.first_day + 200;
  auto trip = trip_of(tt, nullptr, q);
  REQUIRE(trip);
  CHECK(trip->path.size() > 3);
  // The feed's colour is not one (zz0000): none is claimed.
  CHECK(trip->color.empty());
  auto encoded = encode_polyline(trip->path);
  auto decoded = decode_polyline(encoded);
  REQUIRE(decoded);
  CHECK(decoded->size() == trip->path.size());
  // A plan from S1 to S3 rides the bus (walking is kept short): the leg's
  // way bends along the shape, from the boarding stop to the alighting one.
  raptor router{tt};
  trip_plan_query plan;
  plan.from = tt.stops[*tt.find_stop("S1")].position;
  plan.to = tt.stops[*tt.find_stop("S3")].position;
  plan.from_stop = "hostile:S1";
  plan.to_stop = "hostile:S3";
  plan.max_walking_distance = 300;
  plan.time = tt.origin(0, 200) + 10 * 3600;
  auto plans = plan_trips(router, tt, plan);
  REQUIRE_FALSE(plans.itineraries.empty());
  const trip_leg* ride = nullptr;
  for (const auto& leg : plans.itineraries.front().legs)
    if (leg.transit)
      ride = &leg;
  REQUIRE(ride != nullptr);
  CHECK(ride->path.size() > 3);
  CHECK(ride->path.front().lat == Approx(40.70).margin(1e-4));
  CHECK(ride->path.back().lat == Approx(40.71).margin(1e-4));
  CHECK_FALSE(ride->color);
}
