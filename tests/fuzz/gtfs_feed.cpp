// libFuzzer: the GTFS feed reader (CSV by header, every file routing
// reads, the timetable build) and the answers on what loaded, RAPTOR
// included, and trips' ways along shapes.txt. The input is the files'
// texts separated by NUL bytes, in the order of `files` below; missing
// trailing files are absent.
#include <map>
#include <string>

#include "transitd/offline/gtfs_answers.hpp"
#include "transitd/offline/gtfs_language.hpp"
#include "transitd/offline/gtfs_network.hpp"
#include "transitd/offline/gtfs_reader.hpp"
#include "tests/fuzz/common.hpp"
#include "transitd/util/polyline.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace transitd;
  static const char* files[] = {"agency.txt",     "stops.txt",
                                "routes.txt",     "trips.txt",
                                "stop_times.txt", "calendar.txt",
                                "calendar_dates.txt", "frequencies.txt",
                                "transfers.txt",  "feed_info.txt",
                                "translations.txt", "shapes.txt"};
  auto input = fuzz::text(data, size);
  std::map<std::string, std::string> feed;
  std::size_t start = 0;
  for (const auto* name : files) {
    if (start > input.size())
      break;
    auto end = input.find('\0', start);
    if (end == std::string_view::npos)
      end = input.size();
    feed[name] = std::string{input.substr(start, end - start)};
    start = end + 1;
  }
  std::vector<std::unique_ptr<gtfs::feed_files>> sources;
  sources.push_back(gtfs::in_memory_feed(std::move(feed)));
  gtfs::load_options options;
  options.max_days = 60; // keeps each run small
  auto tt = gtfs::load_timetable("f", std::move(sources), options);
  if (!tt)
    return 0;
  const auto& t = **tt;
  const auto& first = t.stops.front();
  const auto& last = t.stops.back();
  stop_departures_query departures;
  departures.stop_id = "f:" + first.id;
  departures.start_time = t.day_origins[first.zone][1] + 6 * 3600;
  departures.time_range_seconds = 86400;
  auto board = gtfs::departures_at(t, departures);
  // In each language the feed has (translations.txt).
  for (const auto& language : gtfs::languages_of(t, nullptr))
    if (board)
      gtfs::translate(t, language, *board);
  nearby_stops_query near;
  near.center = first.position;
  near.radius = 3000;
  (void)gtfs::stops_near(t, near);
  geocode_query geo;
  geo.text = first.name.empty() ? "a" : first.name;
  (void)gtfs::match_stop_names(t, geo);
  gtfs::raptor router{t};
  trip_plan_query plan;
  plan.from = first.position;
  plan.to = last.position;
  plan.time = departures.start_time;
  plan.max_walking_distance = 3000;
  (void)gtfs::plan_trips(router, t, plan);
  plan.arrive_by = true;
  plan.time += 12 * 3600;
  (void)gtfs::plan_trips(router, t, plan);
  // A trip's way along shapes.txt, and its polyline read back.
  for (uint32_t i = 0; i < t.trips.size() && i < 4; ++i) {
    trip_query trip;
    trip.trip_id = "f:" + t.trips[i].id;
    trip.time = departures.start_time;
    if (auto details = gtfs::trip_of(t, nullptr, trip)) {
      auto encoded = encode_polyline(details->path);
      auto decoded = decode_polyline(encoded);
      if (!decoded || decoded->size() != details->path.size())
        __builtin_trap();
    }
  }
  return 0;
}
