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
  /// HSL's route id (gtfsId), as its alerts name it.
  const char* id;
  const char* short_name;
  const char* mode;
  int headway_minutes;
  const char* headsign_fi;
  const char* headsign_sv;
  bool has_platform;
};

// Real HSL-like lines; a stop serves a deterministic subset.
constexpr std::array<line_template, 10> lines{{
  {"HSL:2550", "550", "BUS", 6, "Itäkeskus (M)", "Östra centrum (M)", false},
  {"HSL:1014", "14", "BUS", 10, "Hernesaari", "Ärtholmen", false},
  {"HSL:1007", "7", "TRAM", 8, "Pasila", "Böle", true},
  {"HSL:1004", "4", "TRAM", 7, "Munkkiniemi", "Munksnäs", true},
  {"HSL:31M1", "M1", "SUBWAY", 5, "Vuosaari", "Nordsjö", true},
  {"HSL:31M2", "M2", "SUBWAY", 5, "Mellunmäki", "Mellungsbacka", true},
  {"HSL:3002I", "I", "RAIL", 10, "Lentoasema", "Flygstationen", true},
  {"HSL:3002P", "P", "RAIL", 10, "Helsinki", "Helsingfors", true},
  {"HSL:1019", "19", "FERRY", 20, "Suomenlinna", "Sveaborg", true},
  {"HSL:2159", "159", "BUS", 12, "Matinkylä (M)", "Mattby (M)", false},
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

/// Each stop serves 3-5 lines.
std::vector<const line_template*> served_lines(uint64_t stop_hash) {
  std::vector<const line_template*> served;
  auto count = 3 + static_cast<int>(stop_hash % 3);
  for (int i = 0; i < count; ++i)
    served.push_back(&lines[(stop_hash / 7 + static_cast<uint64_t>(i) * 3)
                            % lines.size()]);
  return served;
}

json::object stop_json(const std::string& id) {
  auto h = stable_hash(id);
  return json::object{
    {"gtfsId", id},
    {"name", stop_names[h % stop_names.size()]},
    {"lat", 60.15 + static_cast<double>(h % 1000) / 10000.0},
    {"lon", 24.90 + static_cast<double>(h / 1000 % 1000) / 10000.0}};
}

json::object route_json(const line_template& line) {
  return json::object{{"gtfsId", line.id},
                      {"shortName", line.short_name},
                      {"longName", std::string{line.headsign_fi} + " - "
                                     + stop_names[stable_hash(line.short_name)
                                                  % stop_names.size()]},
                      {"mode", line.mode},
                      {"color", nullptr},
                      {"textColor", nullptr}};
}

/// One departure of `line` at the stop (by its hash) at `t`: whether it
/// is cancelled, its realtime and platform, the same whoever asks.
generated roll_departure(const line_template& line, uint64_t stop_hash,
                         int64_t t) {
  auto h = stable_hash(std::to_string(t), stop_hash ^ line.headway_minutes);
  generated g;
  g.line = &line;
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
  if (line.has_platform)
    g.platform = std::to_string(1 + (h >> 24) % 4);
  return g;
}

/// The mock's trip ids: "HSL:<line>_<scheduled epoch>_<stop local id>",
/// the departure a board listed.
std::string trip_id_of(const generated& g, const std::string& stop_id) {
  return "HSL:" + std::string{g.line->short_name} + "_"
         + std::to_string(g.scheduled) + "_"
         + stop_id.substr(stop_id.find(':') + 1);
}

std::string local_date(int64_t epoch) {
  const auto* zone = date::locate_zone("Europe/Helsinki");
  auto local = zone->to_local(date::sys_seconds{std::chrono::seconds{epoch}});
  return date::format("%Y%m%d", date::floor<date::days>(local));
}

} // namespace

json::object generate_trip(const std::string& trip_id,
                           const std::string& service_date,
                           const std::string& language) {
  json::object data;
  data["trip"] = nullptr;
  // "HSL:<line>_<epoch>_<stop>"
  if (trip_id.rfind("HSL:", 0) != 0)
    return json::object{{"data", std::move(data)}};
  auto rest = trip_id.substr(4);
  auto first = rest.find('_');
  auto second = first == std::string::npos ? std::string::npos
                                           : rest.find('_', first + 1);
  if (second == std::string::npos)
    return json::object{{"data", std::move(data)}};
  auto line_name = rest.substr(0, first);
  auto epoch_text = rest.substr(first + 1, second - first - 1);
  auto stop_local = rest.substr(second + 1);
  const line_template* line = nullptr;
  for (const auto& l : lines)
    if (line_name == l.short_name)
      line = &l;
  if (line == nullptr || epoch_text.empty() || stop_local.empty()
      || epoch_text.size() > 12
      || !std::all_of(epoch_text.begin(), epoch_text.end(),
                      [](char c) { return c >= '0' && c <= '9'; })
      || !std::all_of(stop_local.begin(), stop_local.end(),
                      [](char c) { return c >= '0' && c <= '9'; })
      || stop_local.size() > 9)
    return json::object{{"data", std::move(data)}};
  int64_t at = std::stoll(epoch_text);
  auto stop_id = "HSL:" + stop_local;
  auto g = roll_departure(*line, stable_hash(stop_id), at);
  auto service_day = helsinki_midnight(at);
  auto runs_on = local_date(service_day + 43200);
  json::array calls;
  if (service_date == runs_on) {
    auto local = std::stoll(stop_local);
    for (int k = 0; k < 8; ++k) {
      auto id = "HSL:" + std::to_string(local + (k - 3) * 7);
      int64_t t = at + (k - 3) * 120;
      int64_t rt = g.realtime_flag && !g.cancelled ? t + (g.realtime - at)
                                                   : t;
      json::object st;
      st["stop"] = json::object{
        {"gtfsId", id},
        {"name", stop_names[stable_hash(id) % stop_names.size()]},
        {"lat", 60.15 + static_cast<double>(stable_hash(id) % 1000) / 10000.0},
        {"lon",
         24.90 + static_cast<double>(stable_hash(id) / 1000 % 1000) / 10000.0},
        {"platformCode", g.platform.empty() ? json::value{nullptr}
                                            : json::value{g.platform}}};
      st["serviceDay"] = service_day;
      st["scheduledArrival"] = t - service_day;
      st["scheduledDeparture"] = t - service_day;
      st["realtimeArrival"] = rt - service_day;
      st["realtimeDeparture"] = rt - service_day;
      st["realtime"] = g.realtime_flag || g.cancelled;
      st["realtimeState"] = g.cancelled       ? "CANCELED"
                            : g.realtime_flag ? "UPDATED"
                                              : "SCHEDULED";
      st["pickupType"] = k == 7 ? "NONE" : "SCHEDULED";
      st["dropoffType"] = k == 0 ? "NONE" : "SCHEDULED";
      calls.push_back(std::move(st));
    }
  }
  json::object trip;
  trip["gtfsId"] = trip_id;
  trip["tripHeadsign"] = language == "sv" ? line->headsign_sv
                                          : line->headsign_fi;
  trip["activeDates"] = json::array{json::string{runs_on}};
  trip["route"] = json::object{{"gtfsId", line->id},
                               {"shortName", line->short_name},
                               {"mode", line->mode},
                               {"color", nullptr}};
  trip["stoptimesForDate"] = std::move(calls);
  data["trip"] = std::move(trip);
  return json::object{{"data", std::move(data)}};
}

json::object generate_routes(const std::string& name,
                             const std::string& id,
                             const std::string& stop) {
  json::object data;
  if (!stop.empty()) {
    if (!known_stop(stop)) {
      data["stop"] = nullptr;
      return json::object{{"data", std::move(data)}};
    }
    auto out = stop_json(stop);
    json::array routes;
    for (const auto* line : served_lines(stable_hash(stop)))
      routes.push_back(route_json(*line));
    out["routes"] = std::move(routes);
    data["stop"] = std::move(out);
    return json::object{{"data", std::move(data)}};
  }
  json::array routes;
  for (const auto& line : lines) {
    std::string short_name = line.short_name;
    // OTP matches a name by its start.
    bool named = !name.empty() && short_name.rfind(name, 0) == 0;
    bool by_id = !id.empty() && id == line.id;
    if (!named && !by_id)
      continue;
    auto route = route_json(line);
    json::array patterns;
    auto base = static_cast<int64_t>(1000000 + stable_hash(short_name) % 900000);
    for (int direction = 0; direction < 2; ++direction) {
      json::array stops;
      for (int k = 0; k < 8; ++k) {
        int64_t local = base + (direction == 0 ? k : 7 - k) * 7;
        stops.push_back(stop_json("HSL:" + std::to_string(local)));
      }
      patterns.push_back(json::object{
        {"directionId", direction},
        {"headsign", direction == 0 ? line.headsign_fi
                                    : stop_names[stable_hash(short_name)
                                                 % stop_names.size()]},
        {"stops", std::move(stops)}});
    }
    route["patterns"] = std::move(patterns);
    routes.push_back(std::move(route));
  }
  data["routes"] = std::move(routes);
  return json::object{{"data", std::move(data)}};
}

json::object generate_departures(const departures_query& query) {
  json::object data;
  if (!known_stop(query.stop_id)) {
    data["stop"] = nullptr;
    return json::object{{"data", std::move(data)}};
  }
  auto stop_hash = stable_hash(query.stop_id);
  auto served = served_lines(stop_hash);
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
      auto g = roll_departure(*line, stop_hash, t);
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
    st["trip"] = json::object{{"gtfsId", trip_id_of(g, query.stop_id)},
                              {"route", std::move(route)}};
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
