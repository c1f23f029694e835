#pragma once
// A GTFS feed of tests/fixtures/upstream/gtfs, loaded as the daemon loads
// one (named "t"); the test fails with the loader's message otherwise.

#include <memory>
#include <string>
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

} // namespace transitd::test
