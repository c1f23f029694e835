// TfL station data: the real 2024 and 2026 files, and the D20 matching.

#include "transitd/providers/tfl_station_data.hpp"

#include <catch2/catch.hpp>

using namespace transitd;

namespace {

const std::string data_2024 = std::string{TRANSITD_FIXTURES_DIR}
                              + "/tfl-station-data/"
                                "tfl-stationdata-detailed-2024-07-31";
const std::string data_2026 = std::string{TRANSITD_FIXTURES_DIR}
                              + "/tfl-station-data/"
                                "tfl-stationdata-detailed-2026-08-03";

const station_record& find(const station_dataset& data,
                           const std::string& id) {
  for (const auto& s : data.stations)
    if (s.unique_id == id)
      return s;
  FAIL("no station " << id);
  throw std::logic_error("unreachable");
}

} // namespace

TEST_CASE("the 2024 station data loads and joins toilets to stations",
          "[tfl][station_data]") {
  auto data = load_station_data(directory_reader(data_2024));
  REQUIRE(data);
  CHECK(data->stations.size() > 400);
  const auto& abbey = find(*data, "HUBABW");
  CHECK(abbey.name == "Abbey Wood");
  // Toilets.csv: HUBABW rows 1-3, Male, Female and Unisex, the last
  // accessible ("    TRUE " padded in the file).
  REQUIRE(abbey.toilets.size() == 3);
  CHECK(abbey.toilets[0].type == "Male");
  CHECK_FALSE(abbey.toilets[0].accessible);
  CHECK(abbey.toilets[2].type == "Unisex");
  CHECK(abbey.toilets[2].accessible);
  CHECK(abbey.toilets[2].inside_gate_line);
  CHECK_FALSE(abbey.toilets[2].fee_charged);
  CHECK(abbey.toilets[2].location
        == std::optional<std::string>{"Located in ticket hall"});
  // Quoted location with commas.
  const auto& brentwood = find(*data, "910GBRTWOOD");
  REQUIRE_FALSE(brentwood.toilets.empty());
  CHECK(brentwood.toilets[0].platform_numbers
        == std::vector<int32_t>{2, 3, 4});
}

TEST_CASE("the 2026 Toilets.csv (47 columns, new order) loads by header",
          "[tfl][station_data]") {
  // 2026 ships no Stations.csv here: pair it with the 2024 stations.
  auto reader = [](const std::string& file) {
    return directory_reader(file == "Toilets.csv" ? data_2026
                                                  : data_2024)(file);
  };
  auto data = load_station_data(reader);
  REQUIRE(data);
  const auto& abbey = find(*data, "HUBABW");
  REQUIRE(abbey.toilets.size() == 3);
  CHECK(abbey.toilets[0].type == "Male");
  CHECK(abbey.toilets[2].type == "Unisex");
  CHECK(abbey.toilets[2].accessible);
}

TEST_CASE("missing files and columns are data-not-available",
          "[tfl][station_data]") {
  auto missing = load_station_data(directory_reader("/nonexistent/tfl"));
  REQUIRE_FALSE(missing);
  CHECK(missing.error().code == ec::data_not_available);
  CHECK_THAT(missing.error().message, Catch::Contains("Stations.csv"));
  auto no_column = load_station_data([](const std::string& file)
                                       -> std::optional<std::string> {
    if (file == "Stations.csv")
      return std::string{"UniqueId,Name\nX,Xham\n"};
    return std::string{"StationUniqueId,Type\nX,Male\n"};
  });
  REQUIRE_FALSE(no_column);
  CHECK_THAT(no_column.error().message, Catch::Contains("IsAccessible"));
}

TEST_CASE("toilets of unknown stations are left out and counted",
          "[tfl][station_data]") {
  auto data = load_station_data([](const std::string& file)
                                  -> std::optional<std::string> {
    if (file == "Stations.csv")
      return std::string{"UniqueId,Name\r\nA1,Alpha\r\n"};
    return std::string{
      "StationUniqueId,Id,IsAccessible,HasBabyChanging,IsInsideGateLine,"
      "Location,IsFeeCharged,Type,IsManagedByTfL\r\n"
      "A1,1,TRUE,FALSE,TRUE,,FALSE,Unisex,TRUE\r\n"
      "ZZ,1,TRUE,FALSE,TRUE,,FALSE,Unisex,TRUE\r\n"};
  });
  REQUIRE(data);
  CHECK(data->orphan_toilets == 1);
  CHECK(data->stations.at(0).toilets.size() == 1);
}

TEST_CASE("platform numbers come from the location text", "[tfl]") {
  CHECK(extract_platform_numbers("Platforms 3 and 4")
        == std::vector<int32_t>{3, 4});
  CHECK(extract_platform_numbers("Located on platforms 2,3,4")
        == std::vector<int32_t>{2, 3, 4});
  CHECK(extract_platform_numbers("Located on platform 2")
        == std::vector<int32_t>{2});
  CHECK(extract_platform_numbers("Platform 9 & 10, near exit 3")
        == std::vector<int32_t>{9, 10});
  CHECK(extract_platform_numbers("Located in ticket hall").empty());
  CHECK(extract_platform_numbers("Exit 2").empty());
}

TEST_CASE("station names normalise (D20)", "[tfl]") {
  CHECK(normalise_station_name("King's Cross St. Pancras")
        == "kings cross st pancras");
  CHECK(normalise_station_name("  Shepherd's   Bush ") == "shepherds bush");
  CHECK(normalise_station_name("Elephant & Castle") == "elephant and castle");
  CHECK(normalise_station_name("Héathrow Términal 5") == "heathrow terminal 5");
  CHECK(normalise_station_name("Harrow-on-the-Hill") == "harrow on the hill");
}

