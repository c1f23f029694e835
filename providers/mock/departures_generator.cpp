#include "transitd/providers/mock/departures_generator.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <vector>

#include <date/date.h>
#include <date/tz.h>

namespace json = boost::json;

namespace transitd::mock {

uint64_t stable_hash(std::string_view text, uint64_t salt) {
  uint64_t h = 1469598103934665603ULL ^ salt;
  for (unsigned char c : text) {
    h ^= c;
    h *= 1099511628211ULL;
  }
  // Final avalanche so that nearby inputs diverge.
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdULL;
  h ^= h >> 33;
  return h;
}

namespace {

struct line_template {
  const char* short_name;
  const char* mode;
  int headway_minutes;
  const char* headsign_fi;
  const char* headsign_sv;
  bool has_platform;
};

// Real HSL-like lines; a stop serves a deterministic subset.
constexpr std::array<line_template, 10> lines{{
  {"550", "BUS", 6, "Itäkeskus (M)", "Östra centrum (M)", false},
  {"14", "BUS", 10, "Hernesaari", "Ärtholmen", false},
  {"7", "TRAM", 8, "Pasila", "Böle", true},
  {"4", "TRAM", 7, "Munkkiniemi", "Munksnäs", true},
  {"M1", "SUBWAY", 5, "Vuosaari", "Nordsjö", true},
  {"M2", "SUBWAY", 5, "Mellunmäki", "Mellungsbacka", true},
  {"I", "RAIL", 10, "Lentoasema", "Flygstationen", true},
  {"P", "RAIL", 10, "Helsinki", "Helsingfors", true},
  {"19", "FERRY", 20, "Suomenlinna", "Sveaborg", true},
  {"159", "BUS", 12, "Matinkylä (M)", "Mattby (M)", false},
}};

constexpr std::array<const char*, 8> stop_names{{
  "Kamppi", "Rautatientori", "Kaivopuisto", "Pasila", "Sörnäinen",
  "Hakaniemi", "Tikkurila", "Latokaski",
}};

bool known_stop(const std::string& id) {
  // The HSL router knows its own feeds' stops, nothing else.
  auto colon = id.find(':');
  if (colon == std::string::npos || colon + 1 >= id.size())
    return false;
  auto feed = id.substr(0, colon);
  if (feed != "HSL" && feed != "HSLlautta")
    return false;
  auto local = id.substr(colon + 1);
  return !std::all_of(local.begin(), local.end(),
                      [](char c) { return c == '0'; });
}

int64_t helsinki_midnight(int64_t epoch_seconds) {
  const auto* zone = date::locate_zone("Europe/Helsinki");
  date::sys_seconds instant{std::chrono::seconds{epoch_seconds}};
  auto local = zone->to_local(instant);
  auto midnight = date::floor<date::days>(local);
  // Service days start at local noon minus 12 h (GTFS); for the mock,
  // local midnight is close enough and matches the recorded HSL data.
  auto sys = zone->to_sys(date::local_seconds{midnight.time_since_epoch()},
                          date::choose::earliest);
  return sys.time_since_epoch().count();
}

struct generated {
  int64_t scheduled;
  int64_t realtime;
  const line_template* line;
  bool realtime_flag;
  bool cancelled;
  std::string platform;
};

} // namespace

json::object generate_departures(const departures_query& query) {
  json::object data;
  if (!known_stop(query.stop_id)) {
    data["stop"] = nullptr;
    return json::object{{"data", std::move(data)}};
  }
  auto stop_hash = stable_hash(query.stop_id);
  // Each stop serves 3-5 lines.
  std::vector<const line_template*> served;
  auto count = 3 + static_cast<int>(stop_hash % 3);
  for (int i = 0; i < count; ++i)
    served.push_back(&lines[(stop_hash / 7 + static_cast<uint64_t>(i) * 3)
                            % lines.size()]);
  std::vector<generated> times;
  auto end = query.start_time + query.time_range;
  for (const auto* line : served) {
    auto headway = int64_t{line->headway_minutes} * 60;
    auto offset = static_cast<int64_t>(
      stable_hash(line->short_name, stop_hash) % static_cast<uint64_t>(headway));
    // Look back a little: a late vehicle scheduled earlier may still come.
    auto first = ((query.start_time - 600 - offset) / headway) * headway
                 + offset;
    for (auto t = first; t <= end; t += headway) {
      auto h = stable_hash(std::to_string(t), stop_hash ^ line->headway_minutes);
      generated g;
      g.line = line;
      g.scheduled = t;
      auto roll = h % 100;
      g.cancelled = roll < 5;
      g.realtime_flag = roll >= 20;
      // Delays from -90 s (early) to +420 s, mostly small.
      auto spread = static_cast<int64_t>((h >> 8) % 100);
      int64_t delay = spread < 60 ? static_cast<int64_t>((h >> 16) % 61) - 30
                      : spread < 85 ? static_cast<int64_t>((h >> 16) % 240) + 61
                      : spread < 95 ? -61 - static_cast<int64_t>((h >> 16) % 30)
                                    : 300 + static_cast<int64_t>((h >> 16) % 121);
      g.realtime = g.realtime_flag && !g.cancelled ? t + delay : t;
      if (line->has_platform)
        g.platform = std::to_string(1 + (h >> 24) % 4);
      auto effective = g.realtime;
      if (effective >= query.start_time && effective <= end)
        times.push_back(std::move(g));
    }
  }
  std::sort(times.begin(), times.end(),
            [](const generated& a, const generated& b) {
              return a.realtime != b.realtime ? a.realtime < b.realtime
                                              : a.scheduled < b.scheduled;
            });
  if (times.size() > static_cast<std::size_t>(
        std::max(0, query.number_of_departures)))
    times.resize(static_cast<std::size_t>(
      std::max(0, query.number_of_departures)));
  json::array stoptimes;
  for (const auto& g : times) {
    auto service_day = helsinki_midnight(g.scheduled);
    json::object st;
    st["serviceDay"] = service_day;
    st["scheduledDeparture"] = g.scheduled - service_day;
    st["realtimeDeparture"] = g.realtime - service_day;
    st["realtime"] = g.realtime_flag || g.cancelled;
    st["realtimeState"] = g.cancelled       ? "CANCELED"
                          : g.realtime_flag ? "UPDATED"
                                            : "SCHEDULED";
    st["headsign"] = query.language == "sv" ? g.line->headsign_sv
                                            : g.line->headsign_fi;
    json::object stop;
    if (g.platform.empty())
      stop["platformCode"] = nullptr;
    else
      stop["platformCode"] = g.platform;
    st["stop"] = std::move(stop);
    json::object route{{"shortName", g.line->short_name},
                       {"mode", g.line->mode}};
    st["trip"] = json::object{{"route", std::move(route)}};
    stoptimes.push_back(std::move(st));
  }
  json::object stop;
  stop["gtfsId"] = query.stop_id;
  stop["name"] = stop_names[stop_hash % stop_names.size()];
  stop["timezone"] = "Europe/Helsinki";
  stop["stoptimes"] = std::move(stoptimes);
  data["stop"] = std::move(stop);
  return json::object{{"data", std::move(data)}};
}

json::object generate_stop_place(std::string_view stop_id) {
  json::object data;
  data["station"] = nullptr;
  // Digitransit's HSL ids only: any other is unknown, as upstream.
  if (stop_id.substr(0, 4) != "HSL:") {
    data["stop"] = nullptr;
    return json::object{{"data", std::move(data)}};
  }
  auto stop_hash = stable_hash(stop_id);
  json::object stop;
  stop["gtfsId"] = std::string{stop_id};
  stop["name"] = stop_names[stop_hash % stop_names.size()];
  // Somewhere in central Helsinki, the same place for the same id.
  stop["lat"] = 60.15 + static_cast<double>(stop_hash % 1000) / 10000.0;
  stop["lon"] = 24.90 + static_cast<double>(stop_hash / 1000 % 1000) / 10000.0;
  stop["timezone"] = "Europe/Helsinki";
  data["stop"] = std::move(stop);
  return json::object{{"data", std::move(data)}};
}

} // namespace transitd::mock
