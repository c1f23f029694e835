#pragma once
// A GTFS feed of tests/fixtures/upstream/gtfs, loaded as the daemon loads
// one (named "t"); the test fails with the loader's message otherwise.

#include <memory>
#include <string>
#include <utility>
#include <vector>

#include <catch2/catch.hpp>

#include "transitd/offline/gtfs_reader.hpp"

namespace transitd::test {

inline std::shared_ptr<const gtfs::timetable>
load_fixture_feed(const std::string& path) {
  auto tt = gtfs::load_timetable(
    "t", std::vector<std::string>{std::string{TRANSITD_FIXTURES_DIR} + "/gtfs/"
                                  + path});
  if (!tt)
    FAIL(tt.error().message);
  return *tt;
}

/// An end as RAPTOR seeds it: the stops within `walk` meters of a stop's
/// position, with their walking seconds.
inline std::vector<std::pair<uint32_t, int32_t>>
end_near(const gtfs::timetable& tt, uint32_t stop, double walk) {
  std::vector<std::pair<uint32_t, int32_t>> seeds;
  for (auto [s, d] : tt.stops_near(tt.stops[stop].position, walk))
    seeds.emplace_back(s, gtfs::walk_seconds(d));
  return seeds;
}

} // namespace transitd::test
