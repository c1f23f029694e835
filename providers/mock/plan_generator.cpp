#include "transitd/providers/mock/plan_generator.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <vector>

#include <date/date.h>

namespace json = boost::json;

namespace transitd::mock {

namespace {

std::string iso(int64_t epoch) {
  return date::format("%FT%TZ",
                      date::sys_seconds{std::chrono::seconds{epoch}});
}

std::string iso_duration(int64_t seconds) {
  char buf[32];
  auto sign = seconds < 0 ? "-" : "";
  seconds = std::llabs(seconds);
  std::snprintf(buf, sizeof(buf), "%sPT%lldM%lldS", sign,
                static_cast<long long>(seconds / 60),
                static_cast<long long>(seconds % 60));
  return buf;
}

struct ride {
  const char* line;
  const char* mode;
  const char* headsign;
  int minutes;
  /// Realtime offset in seconds; nullopt: no realtime data.
  std::optional<int> delay;
  std::optional<double> accessibility;
};

struct shape {
  char key;
  int walk_m;
  std::vector<ride> rides;
};

json::object point(const std::string& name, double lat, double lon,
                   const std::string& stop_id) {
  json::object out{{"name", name}, {"lat", lat}, {"lon", lon}};
  if (stop_id.empty())
    out["stop"] = nullptr;
  else
    out["stop"] = json::object{{"gtfsId", stop_id}};
  return out;
}

json::object leg_time(int64_t scheduled, std::optional<int> delay) {
  json::object out{{"scheduledTime", iso(scheduled)}};
  if (delay)
    out["estimated"] = json::object{{"time", iso(scheduled + *delay)},
                                    {"delay", iso_duration(*delay)}};
  else
    out["estimated"] = nullptr;
  return out;
}

} // namespace

json::object generate_plan(const plan_query& q) {
  std::vector<shape> shapes{
    {'A', 400, {{"550", "BUS", "Itäkeskus (M)", 14, 30, std::nullopt}}},
    {'B', 350,
     {{"550", "BUS", "Itäkeskus (M)", 6, 30, std::nullopt},
      {"M1", "SUBWAY", "Vuosaari", 9, 0, 1.0}}},
    {'C', 1700, {{"7", "TRAM", "Pasila", 16, std::nullopt, 0.7}}},
    {'D', 2400, {{"P", "RAIL", "Helsinki", 11, 90, 1.0}}},
  };
  double budget = 3000.0 / std::max(0.1, q.walk_reluctance);
  json::array edges;
  struct built {
    int64_t arrival;
    json::object node;
  };
  std::vector<built> found;
  int index = 0;
  for (const auto& s : shapes) {
    ++index;
    auto transfers = static_cast<int32_t>(s.rides.size()) - 1;
    if (s.walk_m > budget || transfers > q.max_transfers)
      continue;
    // Durations: walking at 1.3 m/s, split 60/40 around the rides.
    int64_t walk_in = static_cast<int64_t>(s.walk_m * 0.6 / 1.3);
    int64_t walk_out = static_cast<int64_t>(s.walk_m * 0.4 / 1.3);
    int64_t riding = 0;
    for (const auto& r : s.rides)
      riding += r.minutes * 60;
    int64_t transfer_wait = 120 * transfers;
    int64_t total = walk_in + 60 + riding + transfer_wait + walk_out;
    int64_t start = q.arrive_by ? q.time - total - index * 180
                                : q.time + index * 180;
    // Departures on whole minutes, like timetables.
    int64_t t = start;
    json::array legs;
    auto add_walk = [&](int64_t from, int64_t seconds, json::object a,
                        json::object b, int meters) {
      legs.push_back(json::object{{"mode", "WALK"},
                                  {"transitLeg", false},
                                  {"distance", meters},
                                  {"realtimeState", nullptr},
                                  {"headsign", nullptr},
                                  {"accessibilityScore", nullptr},
                                  {"start", leg_time(from, std::nullopt)},
                                  {"end", leg_time(from + seconds, std::nullopt)},
                                  {"from", std::move(a)},
                                  {"to", std::move(b)},
                                  {"route", nullptr}});
    };
    double mid_lat = (q.from_lat + q.to_lat) / 2;
    double mid_lon = (q.from_lon + q.to_lon) / 2;
    std::string first_stop = std::string{"HSL:"} + s.key + "1";
    add_walk(t, walk_in, point("Origin", q.from_lat, q.from_lon, ""),
             point(std::string{"Stop "} + s.key + "1", q.from_lat + 0.002,
                   q.from_lon + 0.002, first_stop),
             static_cast<int>(s.walk_m * 0.6));
    t += walk_in;
    t = (t + 59) / 60 * 60 + 60;
    int n = 0;
    for (const auto& r : s.rides) {
      ++n;
      auto from_stop = std::string{"HSL:"} + s.key + std::to_string(n);
      auto to_stop = std::string{"HSL:"} + s.key + std::to_string(n + 1);
      bool is_550 = std::string{r.line} == "550";
      auto delay = r.delay;
      std::string state = delay ? "UPDATED" : "SCHEDULED";
      if (is_550 && q.disruption == "delay")
        delay = 420;
      if (is_550 && q.disruption == "cancel") {
        state = "CANCELED";
        delay = 0;
      }
      int64_t seconds = r.minutes * 60;
      double f0 = static_cast<double>(n - 1) / s.rides.size();
      double f1 = static_cast<double>(n) / s.rides.size();
      json::object leg{
        {"mode", r.mode},
        {"transitLeg", true},
        {"distance", seconds * 8.0},
        {"realtimeState", state},
        {"headsign", r.headsign},
        {"start", leg_time(t, delay)},
        {"end", leg_time(t + seconds, delay)},
        {"from", point(std::string{"Stop "} + s.key + std::to_string(n),
                       q.from_lat + (mid_lat - q.from_lat) * f0 * 2,
                       q.from_lon + (mid_lon - q.from_lon) * f0 * 2,
                       from_stop)},
        {"to", point(std::string{"Stop "} + s.key + std::to_string(n + 1),
                     q.from_lat + (q.to_lat - q.from_lat) * f1,
                     q.from_lon + (q.to_lon - q.from_lon) * f1, to_stop)},
        {"route", json::object{{"shortName", r.line}}}};
      if (q.wheelchair && r.accessibility)
        leg["accessibilityScore"] = *r.accessibility;
      else
        leg["accessibilityScore"] = nullptr;
      legs.push_back(std::move(leg));
      t += seconds;
      if (n < static_cast<int>(s.rides.size()))
        t += 120;
    }
    auto last_stop = std::string{"Stop "} + s.key
                     + std::to_string(s.rides.size() + 1);
    add_walk(t, walk_out,
             point(last_stop, q.to_lat - 0.001, q.to_lon - 0.001,
                   std::string{"HSL:"} + s.key
                     + std::to_string(s.rides.size() + 1)),
             point("Destination", q.to_lat, q.to_lon, ""),
             static_cast<int>(s.walk_m * 0.4));
    t += walk_out;
    json::object node{{"start", iso(start)},
                      {"end", iso(t)},
                      {"numberOfTransfers", transfers},
                      {"walkDistance", s.walk_m},
                      {"legs", std::move(legs)}};
    found.push_back({t, std::move(node)});
  }
  std::stable_sort(found.begin(), found.end(),
                   [](const built& a, const built& b) {
                     return a.arrival < b.arrival;
                   });
  for (auto& f : found) {
    if (static_cast<int32_t>(edges.size()) >= q.first)
      break;
    edges.push_back(json::object{{"node", std::move(f.node)}});
  }
  return json::object{
    {"data", json::object{{"planConnection",
                           json::object{{"routingErrors", json::array{}},
                                        {"edges", std::move(edges)}}}}}};
}

} // namespace transitd::mock
