// A feed's languages (D24): its own from feed_info.txt and agency.txt, those
// of translations.txt (both forms), those of its realtime alerts; names and
// headsigns in the language asked.

#include "transitd/offline/gtfs_language.hpp"

#include <catch2/catch.hpp>

#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/gtfs_reader.hpp"

using namespace transitd;
using namespace transitd::gtfs;

namespace {

std::shared_ptr<const timetable> bilingual() {
  auto tt = load_timetable(
    "hki", std::vector<std::string>{std::string{TRANSITD_FIXTURES_DIR}
                                    + "/../gtfs/bilingual"});
  REQUIRE(tt);
  return *tt;
}

// 2026-10-14T08:00:00+03:00
constexpr int64_t morning = 1791954000;

} // namespace

TEST_CASE("GTFS languages: the feed's own and translations.txt's",
          "[gtfs][language]") {
  auto tt = bilingual();
  CHECK(tt->language == "fi");
  CHECK(tt->languages == std::vector<std::string>{"sv"});
  CHECK(languages_of(*tt, nullptr) == std::vector<std::string>{"fi", "sv"});
  // By record_id and by field_value.
  CHECK(tt->translated("Rautatientori", "sv") == "Järnvägstorget");
  CHECK(tt->translated("Kauppatori", "sv") == "Salutorget");
  CHECK(tt->translated("Kauppatori - Rautatientori", "sv")
        == "Salutorget - Järnvägstorget");
  CHECK(tt->translated("Kauppatori", "de") == "Kauppatori");
  CHECK(tt->translated("Hakaniemi", "sv") == "Hakaniemi");
}

TEST_CASE("GTFS languages: which one answers", "[gtfs][language]") {
  auto tt = bilingual();
  CHECK(*answer_language(*tt, nullptr, "") == "fi");
  CHECK(*answer_language(*tt, nullptr, "SV") == "sv");
  CHECK(*answer_language(*tt, nullptr, "sv-FI") == "sv");
  auto german = answer_language(*tt, nullptr, "de");
  REQUIRE_FALSE(german);
  CHECK(german.error().code == ec::validation_error);
  CHECK(german.error().hint == "its languages: fi, sv (without language: fi)");
  // A feed that names no language answers any in its only texts.
  auto silent = load_timetable(
    "x", [] {
      std::vector<std::unique_ptr<feed_files>> sources;
      sources.push_back(in_memory_feed(
        {{"agency.txt", "agency_name,agency_timezone\nA,Europe/Helsinki\n"},
         {"stops.txt", "stop_id,stop_name,stop_lat,stop_lon\nS,S,60,24\n"
                       "T,T,60.01,24\n"},
         {"routes.txt", "route_id,route_short_name,route_type\nR,1,3\n"},
         {"trips.txt", "route_id,service_id,trip_id\nR,A,t\n"},
         {"stop_times.txt", "trip_id,arrival_time,departure_time,stop_id,"
                            "stop_sequence\nt,08:00:00,08:00:00,S,1\n"
                            "t,08:05:00,08:05:00,T,2\n"},
         {"calendar.txt", "service_id,monday,tuesday,wednesday,thursday,"
                          "friday,saturday,sunday,start_date,end_date\n"
                          "A,1,1,1,1,1,1,1,20260101,20261231\n"}}));
      return sources;
    }());
  REQUIRE(silent);
  CHECK((*silent)->language.empty());
  CHECK(*answer_language(**silent, nullptr, "de") == "de");
}

TEST_CASE("GTFS languages: departures, stops and trips in Swedish",
          "[gtfs][language]") {
  auto tt = bilingual();
  stop_departures_query q;
  q.stop_id = "hki:RT";
  q.start_time = morning;
  q.time_range_seconds = 1800;
  auto board = departures_at(*tt, q, nullptr);
  REQUIRE(board);
  REQUIRE_FALSE(board->stop_times.empty());
  CHECK(board->stop_name == std::optional<std::string>{"Rautatientori"});
  CHECK(board->stop_times[0].headsign == "Kauppatori");
  translate(*tt, "sv", *board);
  CHECK(board->stop_name == std::optional<std::string>{"Järnvägstorget"});
  CHECK(board->stop_times[0].headsign == "Salutorget");
  // The feed's own language changes nothing.
  auto again = departures_at(*tt, q, nullptr);
  translate(*tt, "fi", *again);
  CHECK(again->stop_name == std::optional<std::string>{"Rautatientori"});

  nearby_stops_query n;
  n.center = {60.1707, 24.9420};
  n.radius = 300;
  n.max_results = 5;
  auto near = stops_near(*tt, n);
  REQUIRE_FALSE(near.stops.empty());
  translate(*tt, "sv", near);
  CHECK(near.stops[0].name == "Järnvägstorget");
}
