// The timetable's spatial lookups: the stops near a point, the nearest
// one, and the zone a place is in when a timetable spans two.

#include "transitd/offline/gtfs_timetable.hpp"

#include <catch2/catch.hpp>

#include "transitd/offline/gtfs_reader.hpp"

using namespace transitd;
using namespace transitd::gtfs;

namespace {

std::string fixture(const std::string& path) {
  return std::string{TRANSITD_FIXTURES_DIR} + "/gtfs/" + path;
}

/// New York's subway and Caltrain in one timetable: two zones.
std::shared_ptr<const timetable> two_coasts() {
  static auto tt = [] {
    auto loaded = load_timetable(
      "both",
      std::vector<std::string>{fixture("mta-subway-2026-09/mta-subway-gtfs.zip"),
                               fixture("caltrain-2023-09/caltrain-gtfs.zip")});
    REQUIRE(loaded);
    return *loaded;
  }();
  return tt;
}

uint16_t zone_named(const timetable& tt, const std::string& name) {
  for (uint16_t z = 0; z < tt.zones.size(); ++z)
    if (tt.zones[z] == name)
      return z;
  FAIL("no zone " << name);
  return 0;
}

const coordinate grand_central{40.751776, -73.976848};
const coordinate palo_alto{37.443, -122.165};

} // namespace

TEST_CASE("timetable: the nearest stop is the first of the stops near",
          "[gtfs][timetable]") {
  auto tt = two_coasts();
  for (const auto& at : {grand_central, palo_alto,
                         coordinate{40.7209, -74.005175},
                         coordinate{37.7766, -122.3947}}) {
    for (double radius : {50.0, 400.0, 5000.0})
      for (bool routable_only : {true, false}) {
        auto near = tt->stops_near(at, radius, routable_only);
        auto nearest = tt->nearest_stop(at, radius, routable_only);
        if (near.empty())
          CHECK_FALSE(nearest);
        else
          CHECK(nearest == near.front().first);
      }
  }
  CHECK_FALSE(tt->nearest_stop({0, 0}, 5000));
  CHECK_FALSE(tt->nearest_stop(grand_central, -1));
  CHECK_FALSE(tt->nearest_stop({91, 0}, 5000));
}

TEST_CASE("timetable: a place's zone is its nearest stop's, else the first",
          "[gtfs][timetable]") {
  auto tt = two_coasts();
  REQUIRE(tt->zones.size() == 2);
  auto east = zone_named(*tt, "America/New_York");
  auto west = zone_named(*tt, "America/Los_Angeles");
  CHECK(tt->zone_near(grand_central, 5000) == east);
  CHECK(tt->zone_near(palo_alto, 5000) == west);
  CHECK(tt->zone_near(palo_alto, 5000, false) == west);
  // Nothing within reach: the first zone.
  CHECK(tt->zone_near({0, 0}, 5000) == 0);
  CHECK(tt->zone_near(palo_alto, 10) == 0);
}
